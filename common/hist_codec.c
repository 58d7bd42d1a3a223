/* hist_codec: see hist_codec.h.  The checks live here once; the three
 * containers (msgpack, the JSON result, the journal) only walk their own
 * types and feed the values through. */
#include "common/hist_codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

enum { STAGE_SKIP, STAGE_LEN, STAGE_COUNT };

static int dec_fail(struct hist_dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dec_fail(struct hist_dec *d, const char *fmt, ...)
{
    va_list ap;

    hist_init(d->h);            /* never left half filled */
    if (d->why[0] == '\0') {
        va_start(ap, fmt);
        vsnprintf(d->why, sizeof d->why, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

int hist_dec_fail(struct hist_dec *d, const char *what)
{
    return dec_fail(d, "%s", what);
}

int hist_dec_begin(struct hist_dec *d, struct hist *h, uint64_t count, uint64_t sum_ns,
                   uint64_t min_ns, uint64_t max_ns, size_t nvalues)
{
    *d = (struct hist_dec){ .h = h, .stage = STAGE_SKIP };
    hist_init(h);
    if (nvalues > HIST_CODEC_MAX_VALUES)
        return dec_fail(d, "'runs' has %zu entries, at most %u allowed", nvalues, HIST_CODEC_MAX_VALUES);
    h->count = count;
    h->sum_ns = sum_ns;
    h->min_ns = min_ns;
    h->max_ns = max_ns;
    return 0;
}

int hist_dec_value(struct hist_dec *d, uint64_t v)
{
    switch (d->stage) {
    case STAGE_SKIP:
        /* a later run right after the previous one would be one run */
        if (d->nruns && v == 0)
            return dec_fail(d, "a run starts right where the previous one ended (bucket %" PRIu32 ")", d->pos);
        if (v >= HIST_NBUCKETS - d->pos)
            return dec_fail(d, "a run starts %" PRIu64 " buckets after bucket %" PRIu32 ", past the last (%u)",
                            v, d->pos, HIST_NBUCKETS - 1);
        d->pos += (uint32_t)v;
        d->stage = STAGE_LEN;
        return 0;
    case STAGE_LEN:
        if (v == 0)
            return dec_fail(d, "a run at bucket %" PRIu32 " has length 0", d->pos);
        if (v > HIST_NBUCKETS - d->pos)
            return dec_fail(d, "a run of %" PRIu64 " at bucket %" PRIu32 " ends past the last bucket (%u)",
                            v, d->pos, HIST_NBUCKETS - 1);
        if (d->nruns == 0)
            d->first = d->pos;
        d->nruns = 1;
        d->left = (uint32_t)v;
        d->stage = STAGE_COUNT;
        return 0;
    default:
        if (v == 0)
            return dec_fail(d, "bucket %" PRIu32 " given with count 0", d->pos);
        if (__builtin_add_overflow(d->total, v, &d->total))
            return dec_fail(d, "bucket counts overflow");
        d->h->bucket[d->pos] = v;
        d->last = d->pos++;
        if (--d->left == 0)
            d->stage = STAGE_SKIP;
        return 0;
    }
}

int hist_dec_end(struct hist_dec *d)
{
    struct hist *h = d->h;

    if (d->stage != STAGE_SKIP)
        return dec_fail(d, "'runs' ends inside a run");
    if (d->total != h->count)
        return dec_fail(d, "bucket counts sum to %" PRIu64 ", count is %" PRIu64, d->total, h->count);
    if (h->count == 0) {        /* canonical empty form, as hist_init makes it */
        hist_init(h);
        return 0;
    }
    if (h->min_ns > h->max_ns)
        return dec_fail(d, "min %" PRIu64 " > max %" PRIu64, h->min_ns, h->max_ns);
    if (hist_bucket_of(h->min_ns) != d->first)
        return dec_fail(d, "min %" PRIu64 " is not in the first bucket (%u)", h->min_ns, d->first);
    if (hist_bucket_of(h->max_ns) != d->last)
        return dec_fail(d, "max %" PRIu64 " is not in the last bucket (%u)", h->max_ns, d->last);
    return 0;
}

uint64_t hist_enc_min(const struct hist *h)
{
    return h->count ? h->min_ns : 0;
}

uint32_t hist_enc_begin(struct hist_enc *e, const struct hist *h)
{
    uint32_t n = 0;

    for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
        if (!h->bucket[i])
            continue;
        n += 1 + (i == 0 || !h->bucket[i - 1]) * 2;   /* its count, and skip + len for a run's first */
    }
    e->h = h;
    e->pos = e->run_end = 0;
    e->stage = STAGE_SKIP;
    return n;
}

int hist_enc_next(struct hist_enc *e, uint64_t *v)
{
    const struct hist *h = e->h;
    uint32_t start;

    switch (e->stage) {
    case STAGE_SKIP:
        for (start = e->pos; start < HIST_NBUCKETS && !h->bucket[start]; start++)
            ;
        if (start == HIST_NBUCKETS)
            return 0;
        for (e->run_end = start; e->run_end < HIST_NBUCKETS && h->bucket[e->run_end]; e->run_end++)
            ;
        *v = start - e->pos;
        e->pos = start;
        e->stage = STAGE_LEN;
        return 1;
    case STAGE_LEN:
        *v = e->run_end - e->pos;
        e->stage = STAGE_COUNT;
        return 1;
    default:
        *v = h->bucket[e->pos++];
        if (e->pos == e->run_end)
            e->stage = STAGE_SKIP;
        return 1;
    }
}
