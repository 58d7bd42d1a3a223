/* stats: per-op-type counters and latency histograms.
 *
 * Design: everything is a sum (counters and histogram buckets), so merging
 * is plain addition and the result does not depend on merge order or on how
 * the work was split between jobs, agents and intervals. */
#include "common/stats.h"

#include <string.h>

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
};

const char *op_type_name(enum op_type t)
{
    if ((unsigned)t >= OP__COUNT)
        return "?";
    return op_names[t];
}

int op_type_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < OP__COUNT; i++)
        if (strcmp(name, op_names[i]) == 0)
            return i;
    return -1;
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
        dst->op[i].ops += src->op[i].ops;
        dst->op[i].bytes += src->op[i].bytes;
        dst->op[i].errors += src->op[i].errors;
        dst->op[i].timeouts += src->op[i].timeouts;
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
