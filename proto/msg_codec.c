/* msg_codec: see msg_codec.h and the design note in msg.c.
 *
 * Hostile input: msgpack-c allocates an array's or map's element storage as
 * soon as it reads the count, before the elements, so a 5-byte payload
 * declaring 2^32 elements would ask for ~100 GB.  Before unpacking we walk
 * the payload once (prescan) and reject any container whose count exceeds
 * the bytes left (every element takes at least one byte), any truncation,
 * any trailing bytes and more than MAX_OBJECTS objects.  The unpack zone is
 * then bounded by a small multiple of the payload length. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "common/hist_codec.h"
#include "common/xmalloc.h"
#include "proto/msg_client.h"
#include "proto/msg_codec.h"
#include "proto/hist_msgpack.h"
#include "proto/vstats_codec.h"
#include "proto/errcause_codec.h"

/* Far above any legitimate message (a full plan is ~2 objects per job field,
 * ~0.7M), far below what would make the zone large. */
#define MAX_OBJECTS (1u << 22)

/* ---- encoding -------------------------------------------------------- */

static int buf_write(void *data, const char *p, size_t len)
{
    buf_append(data, p, len);
    return 0;
}

static void pack_strn(msgpack_packer *pk, const char *s, size_t n)
{
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

static void pack_cstr(msgpack_packer *pk, const char *s)
{
    pack_strn(pk, s, strlen(s));
}

static void pack_u64(msgpack_packer *pk, const char *key, uint64_t v)
{
    pack_cstr(pk, key);
    msgpack_pack_uint64(pk, v);
}

static int op_stats_sent(const struct op_stats *o)
{
    return o->ops > 0 || o->errors > 0;
}

static void pack_op_set(msgpack_packer *pk, const struct op_set *s)
{
    uint32_t n = 0;

    for (int t = 0; t < OP__COUNT; t++)
        n += op_stats_sent(&s->op[t]);
    msgpack_pack_map(pk, n);
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];
        if (!op_stats_sent(o))
            continue;
        pack_cstr(pk, op_type_name((enum op_type)t));
        msgpack_pack_map(pk, 4 + (o->svc.count > 0) + (o->timeouts > 0));
        pack_u64(pk, "ops", o->ops);
        pack_u64(pk, "bytes", o->bytes);
        pack_u64(pk, "errors", o->errors);
        if (o->timeouts)
            pack_u64(pk, "timeouts", o->timeouts);
        pack_cstr(pk, "lat");
        hist_msgpack_pack(pk, &o->lat);
        if (o->svc.count) {          /* rate-limited jobs only */
            pack_cstr(pk, "svc");
            hist_msgpack_pack(pk, &o->svc);
        }
    }
}

/* Per-thread figures (common/clone_set.h):
 *     [{job, clone, runtime_ns, stats: op_set}, ...]
 * at most CLONE_SET_MAX entries (the agent sends none beyond). */
static void pack_clones(msgpack_packer *pk, const struct clone_set *s)
{
    uint32_t n = s->n < CLONE_SET_MAX ? s->n : CLONE_SET_MAX;

    msgpack_pack_array(pk, n);
    for (uint32_t i = 0; i < n; i++) {
        const struct clone_stats *e = &s->c[i];

        msgpack_pack_map(pk, 4);
        pack_u64(pk, "job", e->job);
        pack_u64(pk, "clone", e->clone);
        pack_u64(pk, "runtime_ns", e->runtime_ns);
        pack_cstr(pk, "stats");
        pack_op_set(pk, e->stats);
    }
}

static void pack_fields(msgpack_packer *pk, const struct field *f, size_t n, const void *base);

/* NFS RPC telemetry (common/nfs_rpc.h):
 *     {retransmits, timeouts, reconnects,
 *      rpc: {PROC: {calls, bytes_out, bytes_in, errors, rtt: hist,
 *                   status: [[code, n], ...], status_other}},
 *      [split: {read|write: {ops, lat_ns, rtt_ns, queued_ns, late_ns}}]}
 * Procedure names and status codes come from the fixed tables. */
static void pack_nfs_rpc(msgpack_packer *pk, const struct nfs_rpc_set *s)
{
    uint32_t n = 0;

    uint32_t nsplit = 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        n += s->proc[i] != NULL && s->proc[i]->calls > 0;
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++)
        nsplit += s->split[k].ops > 0;
    msgpack_pack_map(pk, nsplit ? 5 : 4);
    pack_u64(pk, "retransmits", s->retransmits);
    pack_u64(pk, "timeouts", s->timeouts);
    pack_u64(pk, "reconnects", s->reconnects);
    pack_cstr(pk, "rpc");
    msgpack_pack_map(pk, n);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        pack_cstr(pk, nfs_proc_name(i));
        msgpack_pack_map(pk, 7);
        pack_u64(pk, "calls", p->calls);
        pack_u64(pk, "bytes_out", p->bytes_out);
        pack_u64(pk, "bytes_in", p->bytes_in);
        pack_u64(pk, "errors", p->errors);
        pack_cstr(pk, "rtt");
        hist_msgpack_pack(pk, &p->rtt);
        pack_cstr(pk, "status");
        msgpack_pack_array(pk, p->nstatus);
        for (uint32_t k = 0; k < p->nstatus; k++) {
            msgpack_pack_array(pk, 2);
            msgpack_pack_uint32(pk, p->status[k].code);
            msgpack_pack_uint64(pk, p->status[k].n);
        }
        pack_u64(pk, "status_other", p->status_other);
    }
    if (!nsplit)
        return;
    pack_cstr(pk, "split");
    msgpack_pack_map(pk, nsplit);
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const struct nfs_op_split *x = &s->split[k];
        if (!x->ops)
            continue;
        pack_cstr(pk, nfs_op_split_name(k));
        msgpack_pack_map(pk, 5);
        pack_u64(pk, "ops", x->ops);
        pack_u64(pk, "lat_ns", x->lat_ns);
        pack_u64(pk, "rtt_ns", x->rtt_ns);
        pack_u64(pk, "queued_ns", x->queued_ns);
        pack_u64(pk, "late_ns", x->late_ns);
    }
}

/* An optional value left at 0 (or ""), empty NFS telemetry and the
 * verification results of a phase that did not verify are not sent. */
static int field_sent(const struct field *f, const void *base)
{
    switch (f->kind) {
    case F_NFSRPC:
        return !nfs_rpc_set_empty(CAT(base, f, struct nfs_rpc_set));
    case F_HOST:
        return msg_client_host_sent(CAT(base, f, struct host_sample));
    case F_MSTATS:
        return msg_client_ms_sent(CAT(base, f, struct ms_sample));
    case F_PROXY:
        return msg_client_proxy_sent(CAT(base, f, struct proxy_sample));
    case F_VERIFY:
        return CAT(base, f, struct vstats)->on != 0;
    case F_ERRORS:
        return !errcause_empty(CAT(base, f, struct errcause_set));
    case F_CLONES:
        return CAT(base, f, struct clone_set)->n != 0;
    case F_OPTU32:
        return *CAT(base, f, uint32_t) != 0;
    case F_OPTU64:
        return *CAT(base, f, uint64_t) != 0;
    case F_OPTSTRNZ:
        return CAT(base, f, char)[0] != '\0';
    case F_OPTBSSPLIT:
        return ((const struct job_spec *)base)->nbssplit_w != 0;
    default:
        return 1;
    }
}

static uint32_t fields_sent(const struct field *f, size_t n, const void *base)
{
    uint32_t k = 0;

    for (; n > 0; n--, f++)
        k += (uint32_t)field_sent(f, base);
    return k;
}

static void pack_phases(msgpack_packer *pk, const struct plan *p)
{
    msgpack_pack_array(pk, p->nphases);
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *ph = &p->phases[i];
        msgpack_pack_map(pk, 2);
        pack_cstr(pk, "name");
        pack_strn(pk, ph->name, strnlen(ph->name, sizeof ph->name));
        pack_cstr(pk, "jobs");
        msgpack_pack_array(pk, ph->njobs);
        for (uint32_t j = 0; j < ph->njobs; j++) {
            msgpack_pack_map(pk, fields_sent(msg_job_fields, msg_job_nfields, &ph->jobs[j]));
            pack_fields(pk, msg_job_fields, msg_job_nfields, &ph->jobs[j]);
        }
    }
}

static void pack_fields(msgpack_packer *pk, const struct field *f, size_t n, const void *base);

/* The optional maps of msg_client.h. */
static void pack_client(msgpack_packer *pk, const struct field *f, const void *base)
{
    const struct ms_sample *m = CAT(base, f, struct ms_sample);
    uint32_t nops;

    if (f->kind == F_HOST) {
        const struct host_sample *h = CAT(base, f, struct host_sample);
        msgpack_pack_map(pk, fields_sent(msg_host_fields, msg_host_nfields, h));
        pack_fields(pk, msg_host_fields, msg_host_nfields, h);
        return;
    }
    if (f->kind == F_PROXY) {
        const struct proxy_sample *p = CAT(base, f, struct proxy_sample);
        msgpack_pack_map(pk, fields_sent(msg_proxy_fields, msg_proxy_nfields, p));
        pack_fields(pk, msg_proxy_fields, msg_proxy_nfields, p);
        return;
    }
    /* (only here is the field an ms_sample: the other kinds are smaller) */
    nops = m->nops < MS_OPS_MAX ? m->nops : MS_OPS_MAX;
    msgpack_pack_map(pk, fields_sent(msg_ms_fields, msg_ms_nfields, m) + 2);
    pack_fields(pk, msg_ms_fields, msg_ms_nfields, m);
    pack_cstr(pk, "xprt");
    msgpack_pack_map(pk, msg_xprt_nfields);
    pack_fields(pk, msg_xprt_fields, msg_xprt_nfields, &m->xprt);
    pack_cstr(pk, "ops");
    msgpack_pack_array(pk, nops);
    for (uint32_t i = 0; i < nops; i++) {
        msgpack_pack_map(pk, msg_msop_nfields);
        pack_fields(pk, msg_msop_fields, msg_msop_nfields, &m->op[i]);
    }
}

static void pack_fields(msgpack_packer *pk, const struct field *f, size_t n, const void *base)
{
    for (; n > 0; n--, f++) {
        const char *rw;

        if (!field_sent(f, base))
            continue;
        pack_cstr(pk, f->key);
        switch (f->kind) {
        case F_U32:
        case F_OPTU32:
            msgpack_pack_uint32(pk, *CAT(base, f, uint32_t));
            break;
        case F_U64:
        case F_OPTU64:
            msgpack_pack_uint64(pk, *CAT(base, f, uint64_t));
            break;
        case F_BOOL:
            if (*CAT(base, f, int))
                msgpack_pack_true(pk);
            else
                msgpack_pack_false(pk);
            break;
        case F_DOUBLE:
            msgpack_pack_double(pk, *CAT(base, f, double));
            break;
        case F_BIN:
            msgpack_pack_bin(pk, f->size);
            msgpack_pack_bin_body(pk, CAT(base, f, unsigned char), f->size);
            break;
        case F_STR:
        case F_OPTSTR:
        case F_OPTSTRNZ:
            /* strnlen: a buffer filled to the brim must not be overread */
            pack_strn(pk, CAT(base, f, char), strnlen(CAT(base, f, char), f->size));
            break;
        case F_RW:
            /* an invalid mode goes out as "" and the peer rejects it */
            rw = rw_mode_name(*CAT(base, f, enum rw_mode));
            pack_cstr(pk, rw ? rw : "");
            break;
        case F_OPSET:
            pack_op_set(pk, CAT(base, f, struct op_set));
            break;
        case F_NFSRPC:
            pack_nfs_rpc(pk, CAT(base, f, struct nfs_rpc_set));
            break;
        case F_HOST:
        case F_MSTATS:
        case F_PROXY:
            pack_client(pk, f, base);
            break;
        case F_VERIFY:
            vstats_pack(pk, CAT(base, f, struct vstats));
            break;
        case F_ERRORS:
            errcause_pack(pk, CAT(base, f, struct errcause_set));
            break;
        case F_CLONES:
            pack_clones(pk, CAT(base, f, struct clone_set));
            break;
        case F_PHASES:
            pack_phases(pk, CAT(base, f, struct plan));
            break;
        case F_ENUM: {
            /* an invalid value goes out as "" and the peer rejects it */
            unsigned v = 0;
            memcpy(&v, CAT(base, f, char), f->size < sizeof v ? f->size : sizeof v);
            rw = f->codec->name(v);
            pack_cstr(pk, rw ? rw : "");
            break;
        }
        case F_AGENTS:
            pack_strn(pk, CAT(base, f, char), strnlen(CAT(base, f, char), f->size));
            break;
        case F_BSSPLIT:
        case F_OPTBSSPLIT: {
            const struct job_spec *j = base;
            int w = f->kind == F_OPTBSSPLIT;
            const struct bssplit_entry *e = w ? j->bssplit_w : j->bssplit;
            uint32_t cnt = w ? j->nbssplit_w : j->nbssplit;
            if (cnt > PLAN_MAX_BSSPLIT)
                cnt = PLAN_MAX_BSSPLIT;
            msgpack_pack_array(pk, cnt);
            for (uint32_t i = 0; i < cnt; i++) {
                msgpack_pack_array(pk, 2);
                msgpack_pack_uint64(pk, e[i].bs);
                msgpack_pack_uint32(pk, e[i].pct);
            }
            break;
        }
        case F_MDOPS: {
            const struct job_spec *j = base;
            uint32_t cnt = j->n_md_ops < PLAN_MAX_MD_OPS ? j->n_md_ops : PLAN_MAX_MD_OPS;
            msgpack_pack_array(pk, cnt);
            for (uint32_t i = 0; i < cnt; i++)
                pack_cstr(pk, j->md_ops[i] < OP__COUNT ? op_type_name((enum op_type)j->md_ops[i]) : "");
            break;
        }
        }
    }
}

/* Appends header + payload; the header is patched once the length is known.
 * Nothing here enforces FRAME_MAX_PAYLOAD: the receiver does, and every
 * message we send is far below it unless a plan is absurd. */
void msg_codec_encode(struct buf *out, enum msg_type t, const struct field *f, size_t n,
                   const void *m)
{
    static const unsigned char zero[FRAME_HEADER_LEN];
    size_t start = out->len;
    msgpack_packer pk;

    buf_append(out, zero, sizeof zero);
    msgpack_packer_init(&pk, out, buf_write);
    msgpack_pack_map(&pk, fields_sent(f, n, m) + 1);
    pack_cstr(&pk, "type");
    pack_cstr(&pk, msg_type_name(t));
    pack_fields(&pk, f, n, m);
    frame_put_header((unsigned char *)out->data + start,
                     (uint32_t)(out->len - start - FRAME_HEADER_LEN));
}

/* ---- decoding: context and errors ------------------------------------ */

struct dctx {
    const char *what;     /* message type: the prefix of every error */
    char *err;
    size_t errlen;
    char where[96];       /* path inside the message, "" at the top */
};

__attribute__((format(printf, 2, 3)))
static int fail(struct dctx *c, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (!c->err || c->errlen == 0)
        return -EBADMSG;
    if (c->where[0])
        k = snprintf(c->err, c->errlen, "%s: %s: ", c->what, c->where);
    else
        k = snprintf(c->err, c->errlen, "%s: ", c->what);
    if (k >= 0 && (size_t)k < c->errlen) {
        va_start(ap, fmt);
        vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -EBADMSG;
}

/* Extend the path by ".key" or "[i]"; returns the old length for pop. */
__attribute__((format(printf, 2, 3)))
static size_t where_push(struct dctx *c, const char *fmt, ...)
{
    size_t old = strlen(c->where);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->where + old, sizeof c->where - old, fmt, ap);
    va_end(ap);
    return old;
}

static size_t where_key(struct dctx *c, const char *key)
{
    return c->where[0] ? where_push(c, ".%s", key) : where_push(c, "%s", key);
}

static void where_pop(struct dctx *c, size_t old)
{
    c->where[old] = '\0';
}

/* A wire string made safe for a one-line message: short and printable. */
static const char *show(char dst[40], const msgpack_object_str *s)
{
    size_t n = s->size < 32 ? s->size : 32, i;

    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s->ptr[i];
        dst[i] = isprint(ch) ? (char)ch : '?';
    }
    if (s->size > n) {
        memcpy(dst + i, "...", 3);
        i += 3;
    }
    dst[i] = '\0';
    return dst;
}

/* ---- decoding: the prescan ------------------------------------------- */

static uint64_t get_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | *p++;
    return v;
}

/* Walk one msgpack object without building it.  pending counts the objects
 * still to read; as each needs at least one byte, pending > bytes left means
 * a lying count, caught before msgpack-c would allocate for it. */
static int prescan(struct dctx *c, const char *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + n;
    uint64_t pending = 1, objects = 0;

    if (n == 0)
        return fail(c, "empty payload");
    while (pending > 0) {
        size_t lenbytes = 0;      /* width of a length/count field */
        uint64_t skip = 0;        /* payload bytes after the header */
        uint64_t items = 0;       /* child objects */
        int kind = 0;             /* with lenbytes: 0 data, 1 ext, 2 array, 3 map */
        unsigned b;

        if (p == end)
            return fail(c, "truncated msgpack");
        b = *p++;
        pending--;
        if (++objects > MAX_OBJECTS)
            return fail(c, "more than %u msgpack objects", MAX_OBJECTS);
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
            ;                                       /* fixint, nil, bool */
        else if (b <= 0x8f)
            items = 2u * (b & 0x0f);                /* fixmap */
        else if (b <= 0x9f)
            items = b & 0x0f;                       /* fixarray */
        else if (b <= 0xbf)
            skip = b & 0x1f;                        /* fixstr */
        else {
            switch (b) {
            case 0xc4: case 0xd9: lenbytes = 1; break;          /* bin8, str8 */
            case 0xc5: case 0xda: lenbytes = 2; break;
            case 0xc6: case 0xdb: lenbytes = 4; break;
            case 0xc7: lenbytes = 1; kind = 1; break;           /* ext8/16/32 */
            case 0xc8: lenbytes = 2; kind = 1; break;
            case 0xc9: lenbytes = 4; kind = 1; break;
            case 0xca: skip = 4; break;                         /* float32 */
            case 0xcb: skip = 8; break;
            case 0xcc: case 0xd0: skip = 1; break;              /* (u)int8..64 */
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;                         /* fixext 1..16 */
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: lenbytes = 2; kind = 2; break;           /* array16/32 */
            case 0xdd: lenbytes = 4; kind = 2; break;
            case 0xde: lenbytes = 2; kind = 3; break;           /* map16/32 */
            case 0xdf: lenbytes = 4; kind = 3; break;
            default:
                return fail(c, "invalid msgpack byte 0x%02x", b);
            }
        }
        if (lenbytes) {
            uint64_t len;
            if ((size_t)(end - p) < lenbytes)
                return fail(c, "truncated msgpack");
            len = get_be(p, lenbytes);
            p += lenbytes;
            if (kind == 2)
                items = len;
            else if (kind == 3)
                items = 2 * len;
            else
                skip = len + (kind == 1);           /* ext: type byte + data */
        }
        if ((uint64_t)(end - p) < skip)
            return fail(c, "truncated msgpack");
        p += skip;
        pending += items;
        if (pending > (uint64_t)(end - p))
            return fail(c, "truncated msgpack (a count exceeds the payload)");
    }
    if (p != end)
        return fail(c, "%zu trailing bytes after the message", (size_t)(end - p));
    return 0;
}

/* ---- decoding: typed getters ----------------------------------------- */

/* First match wins; keys that are not strings are skipped like unknown keys. */
static const msgpack_object *map_get(const msgpack_object *map, const char *key)
{
    size_t klen = strlen(key);

    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

static int get(struct dctx *c, const msgpack_object *map, const char *key,
               msgpack_object_type type, const char *tname, const msgpack_object **out)
{
    const msgpack_object *o = map_get(map, key);

    if (!o)
        return fail(c, "missing key '%s'", key);
    if (o->type != type) {
        if (type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
            return fail(c, "'%s' out of range (negative)", key);
        return fail(c, "'%s' is not %s", key, tname);
    }
    *out = o;
    return 0;
}

static int get_u64(struct dctx *c, const msgpack_object *map, const char *key,
                   uint64_t min, uint64_t max, uint64_t *v)
{
    const msgpack_object *o = NULL;
    int rc = get(c, map, key, MSGPACK_OBJECT_POSITIVE_INTEGER, "an unsigned integer", &o);

    if (rc)
        return rc;
    if (o->via.u64 < min || o->via.u64 > max)
        return fail(c, "'%s' = %" PRIu64 " out of range [%" PRIu64 ", %" PRIu64 "]",
                    key, o->via.u64, min, max);
    *v = o->via.u64;
    return 0;
}

static int get_str(struct dctx *c, const msgpack_object *map, const char *key,
                   char *dst, size_t size)
{
    const msgpack_object *o = NULL;
    int rc = get(c, map, key, MSGPACK_OBJECT_STR, "a string", &o);

    if (rc)
        return rc;
    if (o->via.str.size >= size)
        return fail(c, "'%s' is longer than %zu bytes", key, size - 1);
    if (memchr(o->via.str.ptr, '\0', o->via.str.size))
        return fail(c, "'%s' contains a NUL byte", key);
    memcpy(dst, o->via.str.ptr, o->via.str.size);
    dst[o->via.str.size] = '\0';
    return 0;
}

static int get_bool(struct dctx *c, const msgpack_object *map, const char *key, int *v)
{
    const msgpack_object *o = map_get(map, key);

    if (!o)
        return fail(c, "missing key '%s'", key);
    if (o->type == MSGPACK_OBJECT_BOOLEAN)
        *v = o->via.boolean;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= 1)
        *v = (int)o->via.u64;               /* tolerate 0/1 from other packers */
    else
        return fail(c, "'%s' is not a boolean", key);
    return 0;
}

static int get_double(struct dctx *c, const msgpack_object *map, const char *key, double *v)
{
    const msgpack_object *o = map_get(map, key);
    double d;

    if (!o)
        return fail(c, "missing key '%s'", key);
    if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64)
        d = o->via.f64;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        d = (double)o->via.u64;
    else
        return fail(c, "'%s' is not a number", key);
    if (!isfinite(d) || d < 0)
        return fail(c, "'%s' out of range", key);
    *v = d;
    return 0;
}

static int get_array(struct dctx *c, const msgpack_object *map, const char *key,
                     uint32_t min, uint32_t max, const msgpack_object_array **a)
{
    const msgpack_object *o = NULL;
    int rc = get(c, map, key, MSGPACK_OBJECT_ARRAY, "an array", &o);

    if (rc)
        return rc;
    if (o->via.array.size < min || o->via.array.size > max)
        return fail(c, "'%s' has %" PRIu32 " entries, allowed %" PRIu32 "..%" PRIu32,
                    key, o->via.array.size, min, max);
    *a = &o->via.array;
    return 0;
}

/* ---- decoding: nested values ----------------------------------------- */

/* The histogram form of common/hist_codec.h; every check is the decoder's. */
static int unpack_hist(struct dctx *c, const msgpack_object *map, struct hist *h)
{
    const msgpack_object_array *runs = NULL;
    uint64_t count = 0, sum = 0, min = 0, max = 0;
    char why[160];
    int rc;

    hist_init(h);
    if ((rc = get_u64(c, map, "count", 0, UINT64_MAX, &count)) ||
        (rc = get_u64(c, map, "sum", 0, UINT64_MAX, &sum)) ||
        (rc = get_u64(c, map, "min", 0, UINT64_MAX, &min)) ||
        (rc = get_u64(c, map, "max", 0, UINT64_MAX, &max)) ||
        (rc = get_array(c, map, "runs", 0, HIST_CODEC_MAX_VALUES, &runs)))
        return rc;
    if (hist_msgpack_runs(h, count, sum, min, max, runs, why, sizeof why) < 0)
        return fail(c, "%s", why);
    return 0;
}

static int unpack_op_set(struct dctx *c, const msgpack_object *map, struct op_set *s)
{
    op_set_init(s);
    for (int t = 0; t < OP__COUNT; t++) {
        const char *name = op_type_name((enum op_type)t);
        const msgpack_object *o = map_get(map, name), *lat = NULL, *svc;
        struct op_stats *st = &s->op[t];
        size_t mark, sub;
        int rc;

        if (!o)
            continue;                       /* not sent: no ops of this type */
        mark = where_key(c, name);
        if (o->type != MSGPACK_OBJECT_MAP)
            return fail(c, "not a map");
        if ((rc = get_u64(c, o, "ops", 0, UINT64_MAX, &st->ops)) ||
            (rc = get_u64(c, o, "bytes", 0, UINT64_MAX, &st->bytes)) ||
            (rc = get_u64(c, o, "errors", 0, UINT64_MAX, &st->errors)) ||
            (rc = get(c, o, "lat", MSGPACK_OBJECT_MAP, "a map", &lat)))
            return rc;
        if (map_get(o, "timeouts") &&                /* optional */
            (rc = get_u64(c, o, "timeouts", 0, st->errors, &st->timeouts)))
            return rc;
        sub = where_key(c, "lat");
        if ((rc = unpack_hist(c, lat, &st->lat)))
            return rc;
        where_pop(c, sub);
        if ((svc = map_get(o, "svc")) != NULL) {    /* optional */
            sub = where_key(c, "svc");
            if (svc->type != MSGPACK_OBJECT_MAP)
                return fail(c, "not a map");
            if ((rc = unpack_hist(c, svc, &st->svc)))
                return rc;
            where_pop(c, sub);
        }
        /* Every latency belongs to a counted op; an entry with no ops would
         * also be dropped by op_set_merge and by the encoder. */
        if (st->ops == 0 && (st->lat.count > 0 || st->svc.count > 0))
            return fail(c, "latencies recorded for 0 ops");
        where_pop(c, mark);
    }
    return 0;
}

/* The "clones" array: bounded by CLONE_SET_MAX, each entry's job below
 * PLAN_MAX_JOBS and clone below PLAN_MAX_NUMJOBS, no (job, clone) twice.
 * s is empty on entry; on failure the caller frees what was added. */
static int unpack_clones(struct dctx *c, const msgpack_object_array *a, struct clone_set *s)
{
    for (uint32_t i = 0; i < a->size; i++) {
        const msgpack_object *e = &a->ptr[i], *st = NULL;
        uint64_t job = 0, clone = 0, rt = 0;
        size_t mark = where_push(c, "[%" PRIu32 "]", i);
        int rc;

        if (e->type != MSGPACK_OBJECT_MAP)
            return fail(c, "not a map");
        if ((rc = get_u64(c, e, "job", 0, PLAN_MAX_JOBS - 1, &job)) ||
            (rc = get_u64(c, e, "clone", 0, PLAN_MAX_NUMJOBS - 1, &clone)) ||
            (rc = get_u64(c, e, "runtime_ns", 0, UINT64_MAX, &rt)) ||
            (rc = get(c, e, "stats", MSGPACK_OBJECT_MAP, "a map", &st)))
            return rc;
        if (clone_set_find(s, (uint32_t)job, (uint32_t)clone))
            return fail(c, "job %" PRIu64 " clone %" PRIu64 " twice", job, clone);
        struct clone_stats *cs = clone_set_add(s, (uint32_t)job, (uint32_t)clone);
        cs->runtime_ns = rt;
        size_t sub = where_key(c, "stats");
        if ((rc = unpack_op_set(c, st, cs->stats)))
            return rc;
        where_pop(c, sub);
        where_pop(c, mark);
    }
    return 0;
}

static int unpack_fields(struct dctx *c, const msgpack_object *map,
                         const struct field *f, size_t n, void *base);

static int unpack_nfs_proc(struct dctx *c, const msgpack_object *o, struct nfs_rpc_proc *p)
{
    const msgpack_object *rtt = NULL;
    const msgpack_object_array *st = NULL;
    uint64_t sum = 0;
    size_t mark;
    int rc;

    if (o->type != MSGPACK_OBJECT_MAP)
        return fail(c, "not a map");
    if ((rc = get_u64(c, o, "calls", 1, UINT64_MAX, &p->calls)) ||
        (rc = get_u64(c, o, "bytes_out", 0, UINT64_MAX, &p->bytes_out)) ||
        (rc = get_u64(c, o, "bytes_in", 0, UINT64_MAX, &p->bytes_in)) ||
        (rc = get_u64(c, o, "errors", 0, p->calls, &p->errors)) ||
        (rc = get_u64(c, o, "status_other", 0, p->errors, &p->status_other)) ||
        (rc = get(c, o, "rtt", MSGPACK_OBJECT_MAP, "a map", &rtt)) ||
        (rc = get_array(c, o, "status", 0, NFS_RPC_STATUS_MAX, &st)))
        return rc;
    mark = where_key(c, "rtt");
    if ((rc = unpack_hist(c, rtt, &p->rtt)))
        return rc;
    where_pop(c, mark);
    if (p->rtt.count > p->calls)
        return fail(c, "'rtt' holds more calls than 'calls'");
    for (uint32_t i = 0; i < st->size; i++) {
        const msgpack_object *e = &st->ptr[i];
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2 ||
            e->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
            e->via.array.ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return fail(c, "'status' entry %" PRIu32 " is not [code, n]", i);
        uint64_t code = e->via.array.ptr[0].via.u64, cnt = e->via.array.ptr[1].via.u64;
        if (code > UINT32_MAX || !nfs_status_valid((uint32_t)code) || cnt == 0)
            return fail(c, "'status' entry %" PRIu32 " is not a known status with a count", i);
        for (uint32_t k = 0; k < p->nstatus; k++)
            if (p->status[k].code == code)
                return fail(c, "'status' names code %" PRIu64 " twice", code);
        if (cnt > p->errors - sum)
            return fail(c, "'status' counts more than 'errors'");
        sum += cnt;
        p->status[p->nstatus].code = (uint32_t)code;
        p->status[p->nstatus].n = cnt;
        p->nstatus++;
    }
    if (sum + p->status_other != p->errors)
        return fail(c, "'status' and 'status_other' do not add up to 'errors'");
    return 0;
}

/* s is initialised by the caller; on failure the caller frees it. */
static int unpack_nfs_rpc(struct dctx *c, const msgpack_object *o, struct nfs_rpc_set *s)
{
    const msgpack_object *rpc = NULL;
    int rc;

    if (o->type != MSGPACK_OBJECT_MAP)
        return fail(c, "not a map");
    if ((rc = get_u64(c, o, "retransmits", 0, UINT64_MAX, &s->retransmits)) ||
        (rc = get_u64(c, o, "timeouts", 0, UINT64_MAX, &s->timeouts)) ||
        (rc = get_u64(c, o, "reconnects", 0, UINT64_MAX, &s->reconnects)) ||
        (rc = get(c, o, "rpc", MSGPACK_OBJECT_MAP, "a map", &rpc)))
        return rc;
    if (rpc->via.map.size > NFSP__COUNT)
        return fail(c, "'rpc' has %" PRIu32 " procedures, at most %u", rpc->via.map.size,
                    (unsigned)NFSP__COUNT);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const char *name = nfs_proc_name(i);
        const msgpack_object *po = map_get(rpc, name);
        size_t mark;
        if (!po)
            continue;                  /* unknown names are ignored, as keys are */
        mark = where_key(c, name);
        if ((rc = unpack_nfs_proc(c, po, nfs_rpc_set_proc(s, i))))
            return rc;
        where_pop(c, mark);
    }
    const msgpack_object *sp = map_get(o, "split");
    if (!sp)
        return 0;                      /* optional: no op was timed */
    if (sp->type != MSGPACK_OBJECT_MAP)
        return fail(c, "'split' is not a map");
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const msgpack_object *x = map_get(sp, nfs_op_split_name(k));
        struct nfs_op_split *d = &s->split[k];
        size_t mark;
        if (!x)
            continue;
        mark = where_key(c, nfs_op_split_name(k));
        if (x->type != MSGPACK_OBJECT_MAP)
            return fail(c, "not a map");
        if ((rc = get_u64(c, x, "ops", 0, UINT64_MAX, &d->ops)) ||
            (rc = get_u64(c, x, "lat_ns", 0, UINT64_MAX, &d->lat_ns)) ||
            (rc = get_u64(c, x, "rtt_ns", 0, UINT64_MAX, &d->rtt_ns)) ||
            (rc = get_u64(c, x, "queued_ns", 0, UINT64_MAX, &d->queued_ns)) ||
            (rc = get_u64(c, x, "late_ns", 0, UINT64_MAX, &d->late_ns)))
            return rc;
        if (!nfs_op_split_valid(d))
            return fail(c, "its parts exceed its latency");
        where_pop(c, mark);
    }
    return 0;
}

static int unpack_phase(struct dctx *c, const msgpack_object *o, struct phase *ph)
{
    const msgpack_object_array *jobs = NULL;
    int rc;

    if (o->type != MSGPACK_OBJECT_MAP)
        return fail(c, "not a map");
    if ((rc = get_str(c, o, "name", ph->name, sizeof ph->name)) ||
        (rc = get_array(c, o, "jobs", 1, PLAN_MAX_JOBS, &jobs)))
        return rc;
    ph->jobs = xcalloc(jobs->size, sizeof *ph->jobs);
    ph->njobs = jobs->size;
    for (uint32_t j = 0; j < jobs->size; j++) {
        size_t mark = where_push(c, ".jobs[%" PRIu32 "]", j);
        if (jobs->ptr[j].type != MSGPACK_OBJECT_MAP)
            return fail(c, "not a map");
        if ((rc = unpack_fields(c, &jobs->ptr[j], msg_job_fields, msg_job_nfields, &ph->jobs[j])))
            return rc;
        where_pop(c, mark);
    }
    return 0;
}

/* The plan is built in place; on failure it is freed and left empty, so the
 * caller has nothing to clean up. */
static int unpack_phases(struct dctx *c, const msgpack_object *map, const char *key,
                         struct plan *p)
{
    const msgpack_object_array *a = NULL;
    /* An empty plan is legal: the run simply ends after the plan. */
    int rc = get_array(c, map, key, 0, PLAN_MAX_PHASES, &a);

    if (rc || a->size == 0)
        return rc;
    p->phases = xcalloc(a->size, sizeof *p->phases);
    p->nphases = a->size;
    for (uint32_t i = 0; i < a->size && rc == 0; i++) {
        size_t mark = where_push(c, "%s[%" PRIu32 "]", key, i);
        rc = unpack_phase(c, &a->ptr[i], &p->phases[i]);
        if (rc == 0)
            where_pop(c, mark);
    }
    if (rc) {
        plan_free(p);
        plan_init(p);
    }
    return rc;
}

/* A short wire string as a C string for the plan's word lookups; "" (no
 * word matches it) when it is too long or holds a NUL. */
static void word_of(const msgpack_object *o, char *dst, size_t size)
{
    dst[0] = '\0';
    if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size ||
        memchr(o->via.str.ptr, '\0', o->via.str.size))
        return;
    memcpy(dst, o->via.str.ptr, o->via.str.size);
    dst[o->via.str.size] = '\0';
}

/* The job_spec kinds added with the wider fio dialect. */
static int unpack_job_extra(struct dctx *c, const msgpack_object *map, const struct field *f,
                            void *base)
{
    const msgpack_object *o = NULL;
    const msgpack_object_array *a = NULL;
    struct job_spec *j = base;
    char word[32], shown[40], why[128];
    int rc, v;

    switch (f->kind) {
    case F_ENUM:
        if ((rc = get(c, map, f->key, MSGPACK_OBJECT_STR, "a string", &o)))
            return rc;
        word_of(o, word, sizeof word);
        if ((v = f->codec->value(word)) < 0)
            return fail(c, "'%s' = '%s' is not a known value", f->key, show(shown, &o->via.str));
        {
            unsigned u = (unsigned)v;
            memcpy(AT(base, f, char), &u, f->size < sizeof u ? f->size : sizeof u);
        }
        return 0;
    case F_AGENTS:
        if ((rc = get_str(c, map, f->key, AT(base, f, char), f->size)))
            return rc;
        /* labels are the coordinator's to resolve; an agent sees indexes */
        if (strchr(AT(base, f, char), '@') || plan_agents_check(AT(base, f, char), why, sizeof why))
            return fail(c, "'%s' is not an agent index list", f->key);
        return 0;
    case F_BSSPLIT:
    case F_OPTBSSPLIT: {
        int w = f->kind == F_OPTBSSPLIT;
        struct bssplit_entry *out = w ? j->bssplit_w : j->bssplit;
        if (w) {
            j->nbssplit_w = 0;
            if (!map_get(map, f->key))
                return 0;
        }
        if ((rc = get_array(c, map, f->key, 0, PLAN_MAX_BSSPLIT, &a)))
            return rc;
        for (uint32_t i = 0; i < a->size; i++) {
            const msgpack_object *e = &a->ptr[i];
            if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2 ||
                e->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
                e->via.array.ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
                return fail(c, "'%s' entry %" PRIu32 " is not [bs, pct]", f->key, i);
            if (e->via.array.ptr[0].via.u64 == 0 || e->via.array.ptr[1].via.u64 > 100)
                return fail(c, "'%s' entry %" PRIu32 " out of range", f->key, i);
            out[i].bs = e->via.array.ptr[0].via.u64;
            out[i].pct = (uint32_t)e->via.array.ptr[1].via.u64;
        }
        if (w)
            j->nbssplit_w = a->size;
        else
            j->nbssplit = a->size;
        return 0;
    }
    case F_MDOPS:
        if ((rc = get_array(c, map, f->key, 0, PLAN_MAX_MD_OPS, &a)))
            return rc;
        for (uint32_t i = 0; i < a->size; i++) {
            word_of(&a->ptr[i], word, sizeof word);
            v = op_type_from_name(word);
            if (v < 0 || !plan_md_op_valid((uint32_t)v))
                return fail(c, "'%s' entry %" PRIu32 " is not a metadata op", f->key, i);
            j->md_ops[i] = (uint32_t)v;
        }
        j->n_md_ops = a->size;
        return 0;
    default:
        return fail(c, "internal: bad field kind");
    }
}

static int unpack_fields(struct dctx *c, const msgpack_object *map,
                         const struct field *f, size_t n, void *base);

/* The optional maps of msg_client.h: zeroed when absent. */
static int unpack_client(struct dctx *c, const msgpack_object *map, const struct field *f,
                         void *base)
{
    const msgpack_object *o = map_get(map, f->key), *x = NULL;
    const msgpack_object_array *a = NULL;
    struct host_sample *h = AT(base, f, struct host_sample);
    struct ms_sample *m = AT(base, f, struct ms_sample);
    struct proxy_sample *px = AT(base, f, struct proxy_sample);
    char why[128];
    size_t mark;
    int rc;

    if (f->kind == F_HOST)
        memset(h, 0, sizeof *h);
    else if (f->kind == F_PROXY)
        memset(px, 0, sizeof *px);
    else
        memset(m, 0, sizeof *m);
    if (!o)
        return 0;
    if ((rc = get(c, map, f->key, MSGPACK_OBJECT_MAP, "a map", &o)))
        return rc;
    mark = where_key(c, f->key);
    if (f->kind == F_HOST) {
        if ((rc = unpack_fields(c, o, msg_host_fields, msg_host_nfields, h)))
            return rc;
        h->present = 1;
        rc = msg_client_host_check(h, why, sizeof why);
    } else if (f->kind == F_PROXY) {
        if ((rc = unpack_fields(c, o, msg_proxy_fields, msg_proxy_nfields, px)))
            return rc;
        px->present = 1;
        rc = msg_client_proxy_check(px, why, sizeof why);
    } else {
        if ((rc = unpack_fields(c, o, msg_ms_fields, msg_ms_nfields, m)) ||
            (rc = get(c, o, "xprt", MSGPACK_OBJECT_MAP, "a map", &x)) ||
            (rc = unpack_fields(c, x, msg_xprt_fields, msg_xprt_nfields, &m->xprt)) ||
            (rc = get_array(c, o, "ops", 0, MS_OPS_MAX, &a)))
            return rc;
        for (uint32_t i = 0; i < a->size; i++) {
            if (a->ptr[i].type != MSGPACK_OBJECT_MAP)
                return fail(c, "'ops' entry %" PRIu32 " is not a map", i);
            if ((rc = unpack_fields(c, &a->ptr[i], msg_msop_fields, msg_msop_nfields, &m->op[i])))
                return rc;
        }
        m->nops = a->size;
        m->present = m->mount[0] != '\0';
        rc = msg_client_ms_check(m, why, sizeof why);
    }
    if (rc)
        return fail(c, "%s", why);
    where_pop(c, mark);
    return 0;
}

static int unpack_fields(struct dctx *c, const msgpack_object *map,
                         const struct field *f, size_t n, void *base)
{
    for (; n > 0; n--, f++) {
        const msgpack_object *o = NULL;
        uint64_t v = 0;
        size_t mark;
        int rc = 0, rw;
        char shown[40];

        switch (f->kind) {
        case F_U32:
            if ((rc = get_u64(c, map, f->key, f->min, f->max, &v)) == 0)
                *AT(base, f, uint32_t) = (uint32_t)v;
            break;
        case F_U64:
            rc = get_u64(c, map, f->key, f->min, f->max, AT(base, f, uint64_t));
            break;
        case F_OPTU32:
            *AT(base, f, uint32_t) = 0;
            if (map_get(map, f->key) &&
                (rc = get_u64(c, map, f->key, f->min, f->max, &v)) == 0)
                *AT(base, f, uint32_t) = (uint32_t)v;
            break;
        case F_OPTU64:
            *AT(base, f, uint64_t) = 0;
            if (map_get(map, f->key))
                rc = get_u64(c, map, f->key, f->min, f->max, AT(base, f, uint64_t));
            break;
        case F_BOOL:
            rc = get_bool(c, map, f->key, AT(base, f, int));
            break;
        case F_DOUBLE:
            rc = get_double(c, map, f->key, AT(base, f, double));
            break;
        case F_STR:
            rc = get_str(c, map, f->key, AT(base, f, char), f->size);
            break;
        case F_OPTSTR:
        case F_OPTSTRNZ:
            AT(base, f, char)[0] = '\0';
            if (map_get(map, f->key))
                rc = get_str(c, map, f->key, AT(base, f, char), f->size);
            break;
        case F_BIN:
            if ((rc = get(c, map, f->key, MSGPACK_OBJECT_BIN, "binary", &o)))
                break;
            if (o->via.bin.size != f->size)
                rc = fail(c, "'%s' must be %zu bytes, not %u", f->key, f->size, o->via.bin.size);
            else
                memcpy(AT(base, f, unsigned char), o->via.bin.ptr, f->size);
            break;
        case F_RW:
            if ((rc = get(c, map, f->key, MSGPACK_OBJECT_STR, "a string", &o)))
                break;
            {
                /* rw_mode_from_name wants a C string; fio's words are short */
                char word[32];
                if (o->via.str.size >= sizeof word || memchr(o->via.str.ptr, '\0', o->via.str.size))
                    rw = -1;
                else {
                    memcpy(word, o->via.str.ptr, o->via.str.size);
                    word[o->via.str.size] = '\0';
                    rw = rw_mode_from_name(word);
                }
            }
            if (rw < 0 || rw >= RW__COUNT)
                rc = fail(c, "'%s' = '%s' is not an rw mode", f->key, show(shown, &o->via.str));
            else
                *AT(base, f, enum rw_mode) = (enum rw_mode)rw;
            break;
        case F_OPSET:
            if ((rc = get(c, map, f->key, MSGPACK_OBJECT_MAP, "a map", &o)))
                break;
            mark = where_key(c, f->key);
            if ((rc = unpack_op_set(c, o, AT(base, f, struct op_set))) == 0)
                where_pop(c, mark);
            break;
        case F_PHASES:
            rc = unpack_phases(c, map, f->key, AT(base, f, struct plan));
            break;
        case F_NFSRPC:
            /* initialised (and freed on failure) by msg_codec_decode */
            if (!map_get(map, f->key))
                break;
            if ((rc = get(c, map, f->key, MSGPACK_OBJECT_MAP, "a map", &o)))
                break;
            mark = where_key(c, f->key);
            if ((rc = unpack_nfs_rpc(c, o, AT(base, f, struct nfs_rpc_set))) == 0)
                where_pop(c, mark);
            break;
        case F_HOST:
        case F_MSTATS:
        case F_PROXY:
            rc = unpack_client(c, map, f, base);
            break;
        case F_VERIFY: {
            char why[200];
            vstats_init(AT(base, f, struct vstats));
            if ((o = map_get(map, f->key)) != NULL &&
                vstats_unpack(o, AT(base, f, struct vstats), why, sizeof why) < 0)
                rc = fail(c, "%s", why);
            break;
        }
        case F_ERRORS: {
            char why[200];
            errcause_set_init(AT(base, f, struct errcause_set));
            if ((o = map_get(map, f->key)) != NULL &&
                errcause_unpack(o, AT(base, f, struct errcause_set), why, sizeof why) < 0)
                rc = fail(c, "%s", why);
            break;
        }
        case F_CLONES: {
            /* initialised (and freed on failure) by msg_codec_decode */
            const msgpack_object_array *a = NULL;
            if (!map_get(map, f->key))
                break;
            if ((rc = get_array(c, map, f->key, 0, CLONE_SET_MAX, &a)))
                break;
            mark = where_key(c, f->key);
            if ((rc = unpack_clones(c, a, AT(base, f, struct clone_set))) == 0)
                where_pop(c, mark);
            break;
        }
        case F_ENUM:
        case F_AGENTS:
        case F_BSSPLIT:
        case F_OPTBSSPLIT:
        case F_MDOPS:
            rc = unpack_job_extra(c, map, f, base);
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- decoding: whole messages ---------------------------------------- */

/* Prescan, unpack, and find the root map.  u must be destroyed by the
 * caller whatever the result. */
static int parse(struct dctx *c, const char *p, size_t n, msgpack_unpacked *u,
                 const msgpack_object **root)
{
    size_t off = 0;
    int rc;

    msgpack_unpacked_init(u);
    if ((rc = prescan(c, p, n)))
        return rc;
    if (msgpack_unpack_next(u, p, n, &off) != MSGPACK_UNPACK_SUCCESS || off != n)
        return fail(c, "malformed msgpack");
    if (u->data.type != MSGPACK_OBJECT_MAP)
        return fail(c, "payload is not a map");
    *root = &u->data;
    return 0;
}

static int type_of(struct dctx *c, const msgpack_object *root)
{
    const msgpack_object *o = NULL;
    char shown[40];
    int rc = get(c, root, "type", MSGPACK_OBJECT_STR, "a string", &o);

    if (rc)
        return rc;
    for (int t = 1; t < MSG__COUNT; t++) {
        const char *name = msg_type_name((enum msg_type)t);
        size_t len = strlen(name);
        if (o->via.str.size == len && memcmp(o->via.str.ptr, name, len) == 0)
            return t;
    }
    return fail(c, "unknown type '%s'", show(shown, &o->via.str));
}

int msg_peek_type(const char *payload, size_t len, char *err, size_t errlen)
{
    struct dctx c = { .what = "message", .err = err, .errlen = errlen };
    const msgpack_object *root = NULL;
    msgpack_unpacked u;
    int rc = parse(&c, payload, len, &u, &root);

    if (rc == 0)
        rc = type_of(&c, root);
    msgpack_unpacked_destroy(&u);
    return rc;
}

int msg_codec_peek_u32(const char *p, size_t n, const char *key, uint32_t *v, int *present,
                       char *err, size_t errlen)
{
    struct dctx c = { .what = "message", .err = err, .errlen = errlen };
    const msgpack_object *root = NULL;
    msgpack_unpacked u;
    uint64_t x = 0;
    int rc = parse(&c, p, n, &u, &root);

    *v = 0;
    *present = 0;
    if (rc == 0 && map_get(root, key)) {
        *present = 1;
        if ((rc = get_u64(&c, root, key, 0, UINT32_MAX, &x)) == 0)
            *v = (uint32_t)x;
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}

int msg_codec_decode(const char *p, size_t n, enum msg_type t, const struct field *f, size_t nf,
                  void *m, char *err, size_t errlen)
{
    struct dctx c = { .what = msg_type_name(t), .err = err, .errlen = errlen };
    const msgpack_object *root = NULL;
    msgpack_unpacked u;
    int rc;

    /* allocating members start empty and are left empty by any failure */
    for (size_t i = 0; i < nf; i++)
        if (f[i].kind == F_NFSRPC)
            nfs_rpc_set_init(AT(m, &f[i], struct nfs_rpc_set));
        else if (f[i].kind == F_CLONES)
            clone_set_init(AT(m, &f[i], struct clone_set));
    rc = parse(&c, p, n, &u, &root);
    if (rc == 0) {
        rc = type_of(&c, root);
        if (rc >= 0 && rc != (int)t)
            rc = fail(&c, "got a '%s' message", msg_type_name((enum msg_type)rc));
        else if (rc >= 0)
            rc = unpack_fields(&c, root, f, nf, m);
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0) {
        for (size_t i = 0; i < nf; i++) {
            if (f[i].kind == F_NFSRPC)
                nfs_rpc_set_free(AT(m, &f[i], struct nfs_rpc_set));
            else if (f[i].kind == F_CLONES)
                clone_set_free(AT(m, &f[i], struct clone_set));
        }
    }
    return rc;
}
