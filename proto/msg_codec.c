/* msg_codec: the decoding half of msg_codec.h (msg_pack.c packs): walk a
 * field table over a frame msg_parse unpacked once, with every check a
 * decoder must make (missing key, wrong type, range, string length, the
 * caps on counts) in one place.  See the design note in msg.c. */
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
#include "proto/mp.h"
#include "proto/vstats_codec.h"
#include "proto/errcause_codec.h"

/* ---- decoding: context and errors ------------------------------------ */

struct dctx {
    const char *what;     /* message type: the prefix of every error */
    char *err;
    size_t errlen;
    char where[96];       /* path inside the message, "" at the top */
};

/* "<what>: [<where>: ]<reason>" (every reason is well under 256 bytes). */
__attribute__((format(printf, 2, 3)))
static int fail(struct dctx *c, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return mp_fail(c->err, c->errlen, "%s: %s%s%s", c->what, c->where, c->where[0] ? ": " : "", why);
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


/* ---- decoding: typed getters ----------------------------------------- */

/* A value the where-path names must be a map. */
static int want_map(struct dctx *c, const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_MAP ? 0 : fail(c, "not a map");
}

static int get(struct dctx *c, const msgpack_object *map, const char *key,
               msgpack_object_type type, const char *tname, const msgpack_object **out)
{
    const msgpack_object *o = mp_lookup(map, key);

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
    const msgpack_object *o = mp_lookup(map, key);

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
    const msgpack_object *o = mp_lookup(map, key);
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
        const msgpack_object *o = mp_lookup(map, name), *lat = NULL, *svc;
        struct op_stats *st = &s->op[t];
        size_t mark, sub;
        int rc;

        if (!o)
            continue;                       /* not sent: no ops of this type */
        mark = where_key(c, name);
        if ((rc = want_map(c, o)) ||
            (rc = get_u64(c, o, "ops", 0, UINT64_MAX, &st->ops)) ||
            (rc = get_u64(c, o, "bytes", 0, UINT64_MAX, &st->bytes)) ||
            (rc = get_u64(c, o, "errors", 0, UINT64_MAX, &st->errors)) ||
            (rc = get(c, o, "lat", MSGPACK_OBJECT_MAP, "a map", &lat)))
            return rc;
        if (mp_lookup(o, "timeouts") &&                /* optional */
            (rc = get_u64(c, o, "timeouts", 0, st->errors, &st->timeouts)))
            return rc;
        sub = where_key(c, "lat");
        if ((rc = unpack_hist(c, lat, &st->lat)))
            return rc;
        where_pop(c, sub);
        if ((svc = mp_lookup(o, "svc")) != NULL) {    /* optional */
            sub = where_key(c, "svc");
            if ((rc = want_map(c, svc)) || (rc = unpack_hist(c, svc, &st->svc)))
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

        if ((rc = want_map(c, e)) ||
            (rc = get_u64(c, e, "job", 0, PLAN_MAX_JOBS - 1, &job)) ||
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

    if ((rc = want_map(c, o)) ||
        (rc = get_u64(c, o, "calls", 1, UINT64_MAX, &p->calls)) ||
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

    if ((rc = want_map(c, o)) ||
        (rc = get_u64(c, o, "retransmits", 0, UINT64_MAX, &s->retransmits)) ||
        (rc = get_u64(c, o, "timeouts", 0, UINT64_MAX, &s->timeouts)) ||
        (rc = get_u64(c, o, "reconnects", 0, UINT64_MAX, &s->reconnects)) ||
        (rc = get(c, o, "rpc", MSGPACK_OBJECT_MAP, "a map", &rpc)))
        return rc;
    if (rpc->via.map.size > NFSP__COUNT)
        return fail(c, "'rpc' has %" PRIu32 " procedures, at most %u", rpc->via.map.size,
                    (unsigned)NFSP__COUNT);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const char *name = nfs_proc_name(i);
        const msgpack_object *po = mp_lookup(rpc, name);
        size_t mark;
        if (!po)
            continue;                  /* unknown names are ignored, as keys are */
        mark = where_key(c, name);
        if ((rc = unpack_nfs_proc(c, po, nfs_rpc_set_proc(s, i))))
            return rc;
        where_pop(c, mark);
    }
    const msgpack_object *sp = mp_lookup(o, "split");
    if (!sp)
        return 0;                      /* optional: no op was timed */
    if (sp->type != MSGPACK_OBJECT_MAP)
        return fail(c, "'split' is not a map");
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const msgpack_object *x = mp_lookup(sp, nfs_op_split_name(k));
        struct nfs_op_split *d = &s->split[k];
        size_t mark;
        if (!x)
            continue;
        mark = where_key(c, nfs_op_split_name(k));
        if ((rc = want_map(c, x)) ||
            (rc = get_u64(c, x, "ops", 0, UINT64_MAX, &d->ops)) ||
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

    if ((rc = want_map(c, o)) ||
        (rc = get_str(c, o, "name", ph->name, sizeof ph->name)) ||
        (rc = get_array(c, o, "jobs", 1, PLAN_MAX_JOBS, &jobs)))
        return rc;
    ph->jobs = xcalloc(jobs->size, sizeof *ph->jobs);
    ph->njobs = jobs->size;
    for (uint32_t j = 0; j < jobs->size; j++) {
        size_t mark = where_push(c, ".jobs[%" PRIu32 "]", j);
        if ((rc = want_map(c, &jobs->ptr[j])) ||
            (rc = unpack_fields(c, &jobs->ptr[j], msg_job_fields, msg_job_nfields, &ph->jobs[j])))
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
        mp_cstr(o, word, sizeof word);   /* "" (no word) when too long */
        if ((v = f->codec->value(word)) < 0)
            return fail(c, "'%s' = '%s' is not %s", f->key, mp_show(shown, &o->via.str), f->codec->what);
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
            if (!mp_lookup(map, f->key))
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
            mp_cstr(&a->ptr[i], word, sizeof word);
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
    const struct msg_client_map *cm = MSG_CLIENT_MAP(f->kind);
    const msgpack_object *o = mp_lookup(map, f->key), *x = NULL;
    const msgpack_object_array *a = NULL;
    struct ms_sample *m = AT(base, f, struct ms_sample);   /* F_MSTATS only */
    char why[128];
    size_t mark;
    int rc;

    memset(AT(base, f, char), 0, cm->size);
    if (!o)
        return 0;
    if ((rc = get(c, map, f->key, MSGPACK_OBJECT_MAP, "a map", &o)))
        return rc;
    mark = where_key(c, f->key);
    if ((rc = unpack_fields(c, o, cm->f, cm->n, AT(base, f, char))))
        return rc;
    if (f->kind == F_MSTATS) {
        if ((rc = get(c, o, "xprt", MSGPACK_OBJECT_MAP, "a map", &x)) ||
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
    }
    if (cm->accept(AT(base, f, char), why, sizeof why) < 0)
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
        int rc = 0;

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
            if (mp_lookup(map, f->key) &&
                (rc = get_u64(c, map, f->key, f->min, f->max, &v)) == 0)
                *AT(base, f, uint32_t) = (uint32_t)v;
            break;
        case F_OPTU64:
            *AT(base, f, uint64_t) = 0;
            if (mp_lookup(map, f->key))
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
            if (mp_lookup(map, f->key))
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
            if (!mp_lookup(map, f->key))
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
        case F_VERIFY:
        case F_ERRORS: {
            /* their own codecs (vstats_codec.h, errcause_codec.h); empty when absent */
            void *p = AT(base, f, char);
            char why[200];
            if (f->kind == F_VERIFY)
                vstats_init(p);
            else
                errcause_set_init(p);
            if ((o = mp_lookup(map, f->key)) != NULL &&
                (f->kind == F_VERIFY ? vstats_unpack(o, p, why, sizeof why)
                                     : errcause_unpack(o, p, why, sizeof why)) < 0)
                rc = fail(c, "%s", why);
            break;
        }
        case F_CLONES: {
            /* initialised (and freed on failure) by msg_codec_decode */
            const msgpack_object_array *a = NULL;
            if (!mp_lookup(map, f->key))
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

/* The members a decode allocates start empty, and any failure leaves them
 * empty (free: 1). */
static void allocated_reset(const struct msg_codec_row *row, void *m, int free)
{
    for (size_t i = 0; i < row->n; i++) {
        const struct field *f = &row->f[i];
        if (f->kind == F_NFSRPC) {
            if (free)
                nfs_rpc_set_free(AT(m, f, struct nfs_rpc_set));
            nfs_rpc_set_init(AT(m, f, struct nfs_rpc_set));
        } else if (f->kind == F_CLONES) {
            if (free)
                clone_set_free(AT(m, f, struct clone_set));
            clone_set_init(AT(m, f, struct clone_set));
        } else if (f->kind == F_PHASES) {
            if (free)
                plan_free(AT(m, f, struct plan));
            plan_init(AT(m, f, struct plan));
        }
    }
}

int msg_codec_decode(const struct msg_frame *fr, enum msg_type t, const struct msg_codec_row *row,
                     void *m, char *err, size_t errlen)
{
    struct dctx c = { .what = msg_type_name(t), .err = err, .errlen = errlen };
    char why[200];
    int rc;

    if (!row->f)
        return fail(&c, "no field table");
    allocated_reset(row, m, 0);
    if (fr->type != t || !fr->root)
        return fail(&c, "got a '%s' message", msg_type_name(fr->type));
    rc = unpack_fields(&c, fr->root, row->f, row->n, m);
    if (rc == 0 && row->check && row->check(m, why, sizeof why) < 0)
        rc = fail(&c, "%s", why);
    if (rc < 0)
        allocated_reset(row, m, 1);
    return rc;
}
