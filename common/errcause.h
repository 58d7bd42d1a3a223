/* errcause: why ops failed, per op type: a few distinct causes (an errno,
 * an NFS status, a short read, a deadline passed, an op cut off) with how
 * many ops failed so and where the first one was, mergeable from job to
 * agent to fleet.
 *
 * Bounded by construction: at most ERRCAUSE_MAX distinct causes per op
 * type; the failures of any further cause are summed in `other`.  So the
 * causes' counts plus `other` always equal the op type's failed ops, which
 * is what the coordinator checks against the agent's `errors` counter
 * (errcause_check, then the cross-check in coordinator/run/run.c).
 *
 * Plain data of fixed size (no pointers), as vstats: copied, sent and
 * merged without ownership questions; about 25 KB, so a job allocates it
 * at its first failed op only. */
#ifndef NFSTORM_ERRCAUSE_H
#define NFSTORM_ERRCAUSE_H

#include <stddef.h>
#include <stdint.h>
#include "common/stats.h"

#define ERRCAUSE_MAX       8      /* distinct causes kept per op type (the wire's cap too) */
#define ERRCAUSE_PATH_MAX  256    /* the first failed op's file, cut to fit */
#define ERRCAUSE_SIZE_UNKNOWN UINT64_MAX
#define ERRCAUSE_ERRNO_MAX 4095   /* Linux errno values are below this */

/* The kinds of cause, in value order from 0, each with its word (wire,
 * JSON, text): one list makes both the enum and errcause.c's word table. */
#define ERRCAUSE_KINDS(X)                                                                          \
    X(ERRC_ERRNO, "errno")           /* code: a positive errno (ENOSPC, EIO, ...) */               \
    X(ERRC_NFS, "nfs")               /* code: an NFS status (common/nfs_rpc.h NFS_STATUS_CODE) */  \
    X(ERRC_SHORT_READ, "short_read") /* the file ended before the read did; size: the file's */    \
    X(ERRC_TIMEOUT, "timeout")       /* completed, but after the job's op_deadline */              \
    X(ERRC_CUT_OFF, "cut_off")       /* still outstanding when the job ended (drain limit, fatal error) */
#define ERRC_ENUM_ENTRY(e, word) e,
enum errcause_kind { ERRCAUSE_KINDS(ERRC_ENUM_ENTRY) ERRC__COUNT };

struct errcause {
    uint32_t kind;                /* enum errcause_kind */
    uint32_t code;                /* ERRC_ERRNO, ERRC_NFS: what; else 0 */
    uint64_t count;               /* ops that failed so, >= 1 */
    uint64_t offset;              /* of the first of them in its file (0 for metadata ops) */
    uint64_t size;                /* ERRC_SHORT_READ: the file's size when the first
                                     was seen, ERRCAUSE_SIZE_UNKNOWN if not known; else 0 */
    char file[ERRCAUSE_PATH_MAX]; /* the first one's file as its agent names it ("" unknown) */
};

struct errcause_op {
    uint32_t n;                   /* causes in c[], in the order first seen */
    struct errcause c[ERRCAUSE_MAX];
    uint64_t other;               /* failed ops whose cause did not fit in c[] */
};

struct errcause_set {
    struct errcause_op op[OP__COUNT];
};

const char *errcause_kind_name(enum errcause_kind k);   /* "errno", "nfs", "short_read", ...; NULL out of range */
int errcause_kind_from_name(const char *name);          /* the kind or -1 */

void errcause_set_init(struct errcause_set *s);
/* n more ops of type t failed with (kind, code); offset, size and file
 * describe the first of them and are kept only when the cause is new (the
 * file cut to fit, control bytes as '?').  A cause that does not fit adds
 * to `other`. */
void errcause_add(struct errcause_set *s, enum op_type t, enum errcause_kind kind, uint32_t code,
                  uint64_t offset, uint64_t size, const char *file, uint64_t n);
/* dst += src: counts summed per cause, dst's first kept; src's new causes
 * appended while room is left, the rest (and src's other) into other. */
void errcause_merge(struct errcause_set *dst, const struct errcause_set *src);
/* The failed ops s accounts for, op type t: the causes' counts plus other. */
uint64_t errcause_failed(const struct errcause_set *s, enum op_type t);
/* 1 when s holds no failed op. */
int errcause_empty(const struct errcause_set *s);
/* 0 when s is consistent: n <= ERRCAUSE_MAX, kinds known, codes valid for
 * their kind (errno 1..4095, a known NFS status class, 0 otherwise),
 * counts >= 1 and no sum overflows, no cause twice in an op type, size 0
 * unless a short read, files terminated and printable.  Else -EINVAL with
 * err naming what.  For everything that arrives from the wire or a file. */
int errcause_check(const struct errcause_set *s, char *err, size_t errlen);
/* The cause in words: "ENOSPC (No space left on device)", "NFS3ERR_NOSPC",
 * "short read at offset 8192 (file is 0 bytes)", "completed after
 * op_deadline", "cut off: still outstanding when the job ended". */
const char *errcause_text(const struct errcause *c, char *buf, size_t len);
/* The cause's short name: "ENOSPC", "NFS3ERR_NOSPC", "short_read",
 * "timeout", "cut_off". */
const char *errcause_name(const struct errcause *c, char *buf, size_t len);

#endif
