/* coherence: see coherence.h.  Pairs are few (writers x readers of one
 * job), so finding one is a linear scan. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/coherence.h"
#include "common/sat.h"
#include "common/le.h"
#include "common/xmalloc.h"

void coh_set_init(struct coh_set *s)
{
    *s = (struct coh_set){ .pair = NULL };
}

void coh_set_free(struct coh_set *s)
{
    free(s->pair);
    coh_set_init(s);
}

static struct coh_pair *find(const struct coh_set *s, uint32_t writer, uint32_t reader)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->pair[i].writer == writer && s->pair[i].reader == reader)
            return &s->pair[i];
    return NULL;
}

struct coh_pair *coh_set_pair(struct coh_set *s, uint32_t writer, uint32_t reader, uint32_t cap)
{
    struct coh_pair *p = find(s, writer, reader);

    if (p)
        return p;
    if (s->n >= cap)
        return NULL;
    s->pair = xrealloc(s->pair, (size_t)(s->n + 1) * sizeof *s->pair);
    p = &s->pair[s->n++];
    memset(p, 0, sizeof *p);
    p->writer = writer;
    p->reader = reader;
    hist_init(&p->lag);
    return p;
}

int coh_set_merge(struct coh_set *dst, const struct coh_set *src, uint32_t cap)
{
    uint32_t add = 0;

    for (uint32_t i = 0; i < src->n; i++)
        if (!find(dst, src->pair[i].writer, src->pair[i].reader))
            add++;
    if ((uint64_t)dst->n + add > cap)
        return -E2BIG;
    for (uint32_t i = 0; i < src->n; i++) {
        const struct coh_pair *q = &src->pair[i];
        struct coh_pair *p = coh_set_pair(dst, q->writer, q->reader, cap);
        p->seen = sat_add_u64(p->seen, q->seen);
        p->never = sat_add_u64(p->never, q->never);
        hist_merge(&p->lag, &q->lag);
    }
    return 0;
}

void coh_set_total(const struct coh_set *s, struct coh_pair *out)
{
    memset(out, 0, sizeof *out);
    out->writer = out->reader = UINT32_MAX;
    hist_init(&out->lag);
    for (uint32_t i = 0; i < s->n; i++) {
        out->seen = sat_add_u64(out->seen, s->pair[i].seen);
        out->never = sat_add_u64(out->never, s->pair[i].never);
        hist_merge(&out->lag, &s->pair[i].lag);
    }
}

/* layout: +0 magic, +4 writer, +8 generation, +16 t_ns, +24 the sum of the
 * three as a cheap guard against a torn stamp */
void coh_stamp_put(unsigned char *blk, uint32_t writer, uint64_t gen, uint64_t t_ns)
{
    le_put32(blk, COH_MAGIC);
    le_put32(blk + 4, writer);
    le_put64(blk + 8, gen);
    le_put64(blk + 16, t_ns);
    le_put64(blk + 24, (uint64_t)writer + gen + t_ns + COH_MAGIC);
}

int coh_stamp_get(const unsigned char *blk, size_t len, uint32_t *writer, uint64_t *gen,
                  uint64_t *t_ns)
{
    if (len < COH_STAMP_LEN || le_get32(blk) != COH_MAGIC)
        return -EINVAL;
    *writer = le_get32(blk + 4);
    *gen = le_get64(blk + 8);
    *t_ns = le_get64(blk + 16);
    if (le_get64(blk + 24) != (uint64_t)*writer + *gen + *t_ns + COH_MAGIC)
        return -EINVAL;
    return 0;
}
