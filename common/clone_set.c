/* clone_set: per-thread figures of a phase (see clone_set.h).  Entries are
 * few (CLONE_SET_MAX at most), so lookups are linear. */
#include "common/clone_set.h"

#include <stdlib.h>
#include "common/xmalloc.h"

void clone_set_init(struct clone_set *s)
{
    *s = (struct clone_set){ .c = NULL };
}

struct clone_stats *clone_set_add(struct clone_set *s, uint32_t job, uint32_t clone)
{
    struct clone_stats *e;

    s->c = xrealloc(s->c, (size_t)(s->n + 1) * sizeof(*s->c));
    e = &s->c[s->n++];
    e->job = job;
    e->clone = clone;
    e->runtime_ns = 0;
    e->stats = xmalloc(sizeof(*e->stats));
    op_set_init(e->stats);
    return e;
}

struct clone_stats *clone_set_find(const struct clone_set *s, uint32_t job, uint32_t clone)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->c[i].job == job && s->c[i].clone == clone)
            return &s->c[i];
    return NULL;
}

void clone_set_free(struct clone_set *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        free(s->c[i].stats);
    free(s->c);
    clone_set_init(s);
}
