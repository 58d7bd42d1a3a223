/* stats: per-op-type counters and latency histograms.
 *
 * Design: everything is a sum (counters and histogram buckets), so merging
 * is plain addition and the result does not depend on merge order or on how
 * the work was split between jobs, agents and intervals. */
#include "common/stats.h"
#include "common/sat.h"

#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "common/xmalloc.h"

static const char *const op_names[OP__COUNT] = {
    [OP_READ] = "read",
    [OP_WRITE] = "write",
    [OP_CREATE] = "create",
    [OP_STAT] = "stat",
    [OP_OPEN] = "open",
    [OP_READDIR] = "readdir",
    [OP_RENAME] = "rename",
    [OP_UNLINK] = "unlink",
    [OP_MKDIR] = "mkdir",
    [OP_RMDIR] = "rmdir",
    [OP_SYNC] = "sync",
};

const char *op_type_name(enum op_type t)
{
    const char *w = names_word(op_names, OP__COUNT, t);
    return w ? w : "?";
}

int op_type_from_name(const char *name)
{
    return names_index(op_names, OP__COUNT, name);
}

void op_set_init(struct op_set *s)
{
    for (int i = 0; i < OP__COUNT; i++) {
        s->op[i].ops = 0;
        s->op[i].bytes = 0;
        s->op[i].errors = 0;
        s->op[i].timeouts = 0;
        hist_init(&s->op[i].lat);
        hist_init(&s->op[i].svc);
    }
}

void op_set_merge(struct op_set *dst, const struct op_set *src)
{
    for (int i = 0; i < OP__COUNT; i++) {
        if (src->op[i].ops == 0 && src->op[i].errors == 0)
            continue;   /* most op types are unused in a phase: skip their buckets */
        dst->op[i].ops = sat_add_u64(dst->op[i].ops, src->op[i].ops);
        dst->op[i].bytes = sat_add_u64(dst->op[i].bytes, src->op[i].bytes);
        dst->op[i].errors = sat_add_u64(dst->op[i].errors, src->op[i].errors);
        dst->op[i].timeouts = sat_add_u64(dst->op[i].timeouts, src->op[i].timeouts);
        hist_merge(&dst->op[i].lat, &src->op[i].lat);
        hist_merge(&dst->op[i].svc, &src->op[i].svc);
    }
}

int op_set_empty(const struct op_set *s)
{
    for (int i = 0; i < OP__COUNT; i++)
        if (s->op[i].ops)
            return 0;
    return 1;
}

void op_rec_init(struct op_rec *r)
{
    *r = (struct op_rec){ .op = { NULL } };
}

struct op_stats_rec *op_rec_alloc(struct op_rec *r, enum op_type t)
{
    struct op_stats_rec *o = r->op[t];
    if (o)
        return o;
    o = xcalloc(1, sizeof(*o));
    hist_rec_init(&o->lat);
    hist_rec_init(&o->svc);
    r->op[t] = o;
    return o;
}

void op_rec_drain(struct op_rec *r, struct op_set *acc)
{
    op_rec_sum(r, acc);
    for (int i = 0; i < OP__COUNT; i++) {
        struct op_stats_rec *o = r->op[i];
        if (!o)
            continue;
        o->ops = o->bytes = o->errors = o->timeouts = 0;
        hist_rec_clear(&o->lat);
        hist_rec_clear(&o->svc);
    }
}

void op_rec_add(struct op_rec *r, const struct op_set *s)
{
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_stats *src = &s->op[i];
        struct op_stats_rec *o;
        if (src->ops == 0 && src->errors == 0)
            continue;   /* as op_set_merge */
        o = op_rec_get(r, (enum op_type)i);
        o->ops = sat_add_u64(o->ops, src->ops);
        o->bytes = sat_add_u64(o->bytes, src->bytes);
        o->errors = sat_add_u64(o->errors, src->errors);
        o->timeouts = sat_add_u64(o->timeouts, src->timeouts);
        hist_rec_add(&o->lat, &src->lat);
        hist_rec_add(&o->svc, &src->svc);
    }
}

void op_rec_sum(const struct op_rec *r, struct op_set *acc)
{
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_stats_rec *o = r->op[i];
        if (!o || (o->ops == 0 && o->errors == 0))
            continue;   /* as op_set_merge: nothing recorded, nothing added */
        acc->op[i].ops += o->ops;
        acc->op[i].bytes += o->bytes;
        acc->op[i].errors += o->errors;
        acc->op[i].timeouts += o->timeouts;
        hist_rec_sum(&o->lat, &acc->op[i].lat);
        hist_rec_sum(&o->svc, &acc->op[i].svc);
    }
}

size_t op_rec_bytes(const struct op_rec *r)
{
    size_t n = 0;
    for (int i = 0; i < OP__COUNT; i++)
        if (r->op[i])
            n += sizeof(*r->op[i]) + hist_rec_bytes(&r->op[i]->lat) + hist_rec_bytes(&r->op[i]->svc);
    return n;
}

void op_rec_free(struct op_rec *r)
{
    for (int i = 0; i < OP__COUNT; i++) {
        if (!r->op[i])
            continue;
        hist_rec_free(&r->op[i]->lat);
        hist_rec_free(&r->op[i]->svc);
        free(r->op[i]);
        r->op[i] = NULL;
    }
}
