/* msg_codec: the table-driven msgpack packer and unpacker behind msg.c.
 * Private to proto/: msg.c describes each message as a field table; this
 * module walks the tables (and the nested op_set, histogram and plan
 * values), with every check a decoder must make in one place. */
#ifndef NFSTORM_MSG_CODEC_H
#define NFSTORM_MSG_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "proto/msg.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum fkind {
    F_U32,       /* uint32_t in [min, max] */
    F_U64,       /* uint64_t in [min, max] */
    F_BOOL,      /* int, 0 or 1; msgpack bool on the wire */
    F_DOUBLE,    /* finite, >= 0 */
    F_STR,       /* char[size], NUL-terminated */
    F_RW,        /* enum rw_mode as fio's word */
    F_OPSET,     /* struct op_set as a sparse map */
    F_PHASES,    /* struct plan as the "phases" array */
    F_ENUM,      /* an enum as its word, through codec */
    F_AGENTS,    /* char[size] agents= spec: indexes only, labels resolved */
    F_BSSPLIT,   /* job_spec nbssplit/bssplit as [[bs, pct], ...] */
    F_MDOPS,     /* job_spec n_md_ops/md_ops as ["create", ...] */
    F_BIN,       /* unsigned char[size], exactly size bytes (nonces, proofs) */
    F_OPTSTR,    /* as F_STR, but optional: "" when the key is absent (keys
                    added at the same PROTO_VERSION, which older peers omit) */
};

/* Word <-> value of one of the plan's small enums. */
struct enum_codec {
    const char *(*name)(unsigned v);     /* NULL if out of range */
    int (*value)(const char *word);      /* -1 if unknown */
};

struct field {
    const char *key;
    enum fkind kind;
    size_t off;
    size_t size;          /* F_STR: buffer size including the NUL */
    uint64_t min, max;    /* F_U32/F_U64 */
    const struct enum_codec *codec;      /* F_ENUM */
};

#define MEMBER_SIZE(st, f) sizeof(((st *)0)->f)
#define FU32(st, f, lo, hi) { #f, F_U32, offsetof(st, f), 0, (lo), (hi), NULL }
#define FU64(st, f, lo, hi) { #f, F_U64, offsetof(st, f), 0, (lo), (hi), NULL }
#define FANYU32(st, f)      FU32(st, f, 0, UINT32_MAX)
#define FANYU64(st, f)      FU64(st, f, 0, UINT64_MAX)
#define FBOOL(st, f)        { #f, F_BOOL, offsetof(st, f), 0, 0, 0, NULL }
#define FDOUBLE(st, f)      { #f, F_DOUBLE, offsetof(st, f), 0, 0, 0, NULL }
#define FSTR(st, f)         { #f, F_STR, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FKIND(st, f, k)     { #f, (k), offsetof(st, f), 0, 0, 0, NULL }
#define FENUM(st, f, c)     { #f, F_ENUM, offsetof(st, f), sizeof(((st *)0)->f), 0, 0, &(c) }
#define FBIN(st, f)         { #f, F_BIN, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FOPTSTR(st, f)      { #f, F_OPTSTR, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FAGENTS(st, f)      { #f, F_AGENTS, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FPHASE(st)          FU32(st, phase, 0, PLAN_MAX_PHASES - 1)

#define AT(base, f, type) ((type *)((char *)(base) + (f)->off))
#define CAT(base, f, type) ((const type *)((const char *)(base) + (f)->off))

/* The job_spec field table (msg.c), used for the plan's jobs. */
extern const struct field msg_job_fields[];
extern const size_t msg_job_nfields;

/* Append one frame: header + the map {type, fields of base}. */
void msg_codec_encode(struct buf *out, enum msg_type t, const struct field *f, size_t n,
                      const void *base);
/* Decode a payload of type t into base.  0 or -EBADMSG with err set. */
int msg_codec_decode(const char *p, size_t n, enum msg_type t, const struct field *f, size_t nf,
                     void *base, char *err, size_t errlen);

#endif
