/* msg_codec: the table-driven msgpack packer (msg_pack.c) and unpacker
 * (msg_codec.c) behind msg.c.
 * Private to proto/: msg.c describes each message as a field table; this
 * module walks the tables (and the nested op_set, histogram and plan
 * values), with every check a decoder must make in one place. */
#ifndef NFSTORM_MSG_CODEC_H
#define NFSTORM_MSG_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "common/names.h"
#include "proto/msg.h"


enum fkind {
    F_U32,       /* uint32_t in [min, max] */
    F_U64,       /* uint64_t in [min, max] */
    F_BOOL,      /* int, 0 or 1; msgpack bool on the wire */
    F_DOUBLE,    /* finite, >= 0 */
    F_STR,       /* char[size], NUL-terminated */
    F_OPSET,     /* struct op_set as a sparse map */
    F_PHASES,    /* struct plan as the "phases" array */
    F_ENUM,      /* an enum as its word, through codec */
    F_AGENTS,    /* char[size] agents= spec: indexes only, labels resolved */
    F_BSSPLIT,   /* job_spec nbssplit/bssplit as [[bs, pct], ...] */
    F_MDOPS,     /* job_spec n_md_ops/md_ops as ["create", ...] */
    F_BIN,       /* unsigned char[size], exactly size bytes (nonces, proofs) */
    F_OPTSTR,    /* as F_STR, but optional: "" when the key is absent (keys
                    added at the same PROTO_VERSION, which older peers omit) */
    F_OPTU32,    /* uint32_t, optional: sent only when not 0, 0 when absent */
    F_NFSRPC,    /* struct nfs_rpc_set, optional: sent only when not empty,
                    empty when absent; decode allocates (nfs_rpc_set_free) */
    F_OPTU64,    /* uint64_t, optional: sent only when not 0, 0 when absent */
    F_OPTSTRNZ,  /* char[size], optional: sent only when not "", "" when absent */
    F_OPTBSSPLIT,/* job_spec nbssplit_w/bssplit_w as F_BSSPLIT; sent only when
                    nbssplit_w is not 0, 0 when absent */
    F_HOST,      /* struct host_sample as an optional map (msg_client.h) */
    F_MSTATS,    /* struct ms_sample as an optional map (msg_client.h) */
    F_PROXY,     /* struct proxy_sample as an optional map (msg_client.h) */
    F_VERIFY,    /* struct vstats, optional: sent only when on, off when absent */
    F_ERRORS,    /* struct errcause_set, optional: sent only when not empty,
                    empty when absent (proto/errcause_codec.h) */
    F_CLONES,    /* struct clone_set, optional: sent only when not empty,
                    empty when absent; decode allocates (clone_set_free) */
};

/* Word <-> value of one of the plan's small enums. */
struct enum_codec {
    const char *(*name)(unsigned v);     /* NULL if out of range */
    int (*value)(const char *word);      /* -1 if unknown */
    const char *what;                    /* "is not <what>" when unknown */
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
/* Each entry names its wire key as a string literal (k), apart from the C
 * member (f) it fills: the keys are the protocol's contract
 * (docs/protocol.md, pinned by tests/unit/test_msg_contract.c), so a
 * member may be renamed freely and a key may not. */
#define FU32(st, k, f, lo, hi) { k, F_U32, offsetof(st, f), 0, (lo), (hi), NULL }
#define FU64(st, k, f, lo, hi) { k, F_U64, offsetof(st, f), 0, (lo), (hi), NULL }
#define FANYU32(st, k, f)      FU32(st, k, f, 0, UINT32_MAX)
#define FANYU64(st, k, f)      FU64(st, k, f, 0, UINT64_MAX)
#define FOPTU32(st, k, f)      { k, F_OPTU32, offsetof(st, f), 0, 0, UINT32_MAX, NULL }
#define FOPTU64(st, k, f)      { k, F_OPTU64, offsetof(st, f), 0, 0, UINT64_MAX, NULL }
#define FOPTSTRNZ(st, k, f)    { k, F_OPTSTRNZ, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FBOOL(st, k, f)        { k, F_BOOL, offsetof(st, f), 0, 0, 0, NULL }
#define FDOUBLE(st, k, f)      { k, F_DOUBLE, offsetof(st, f), 0, 0, 0, NULL }
#define FSTR(st, k, f)         { k, F_STR, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FKIND(st, k, f, kind)  { k, (kind), offsetof(st, f), 0, 0, 0, NULL }
#define FENUM(st, k, f, c)     { k, F_ENUM, offsetof(st, f), sizeof(((st *)0)->f), 0, 0, &(c) }
#define FBIN(st, k, f)         { k, F_BIN, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FOPTSTR(st, k, f)      { k, F_OPTSTR, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FAGENTS(st, k, f)      { k, F_AGENTS, offsetof(st, f), MEMBER_SIZE(st, f), 0, 0, NULL }
#define FPHASE(st)             FU32(st, "phase", phase, 0, PLAN_MAX_PHASES - 1)

#define AT(base, f, type) ((type *)((char *)(base) + (f)->off))
#define CAT(base, f, type) ((const type *)((const char *)(base) + (f)->off))

/* The job_spec field table (msg.c), used for the plan's jobs. */
extern const struct field msg_job_fields[];
extern const size_t msg_job_nfields;

/* Append one frame: header + the map {type, fields of base}. (msg_pack.c) */
void msg_codec_encode(struct buf *out, enum msg_type t, const struct field *f, size_t n,
                      const void *base);

/* One row of the message table (msg_table.h): its fields, and a rule
 * across them checked after they decode (NULL: none; a one-line reason in
 * err, without the type, which the codec prefixes). */
struct msg_codec_row {
    const struct field *f;
    size_t n;
    int (*check)(const void *m, char *err, size_t errlen);
};
/* Decode frame fr, which must be of type t, into base by row.  0 or
 * -EBADMSG with err set; the members a decode allocates are empty after a
 * failure. */
int msg_codec_decode(const struct msg_frame *fr, enum msg_type t, const struct msg_codec_row *row,
                     void *base, char *err, size_t errlen);

#endif
