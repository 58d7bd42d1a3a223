/* hist_codec: see hist_codec.h.  The checks live here once; the three
 * containers (msgpack, the JSON result, the journal) only walk their own
 * types and feed the values through. */
#include "common/hist_codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

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
    d->h = h;
    d->total = 0;
    d->prev = -1;
    d->first = d->last = 0;
    d->why[0] = '\0';
    hist_init(h);
    if (nvalues > HIST_CODEC_MAX_VALUES)
        return dec_fail(d, "'b' has %zu entries, at most %u allowed", nvalues, HIST_CODEC_MAX_VALUES);
    if (nvalues % 2)
        return dec_fail(d, "'b' has an odd number of entries");
    h->count = count;
    h->sum_ns = sum_ns;
    h->min_ns = min_ns;
    h->max_ns = max_ns;
    return 0;
}

int hist_dec_bucket(struct hist_dec *d, uint64_t idx, uint64_t n)
{
    if (idx >= HIST_NBUCKETS)
        return dec_fail(d, "bucket index %" PRIu64 " out of range (0..%u)", idx, HIST_NBUCKETS - 1);
    /* strictly increasing: also rules out a bucket given twice */
    if ((int64_t)idx <= d->prev)
        return dec_fail(d, "bucket index %" PRIu64 " not in increasing order", idx);
    if (n == 0)
        return dec_fail(d, "bucket %" PRIu64 " given with count 0", idx);
    if (__builtin_add_overflow(d->total, n, &d->total))
        return dec_fail(d, "bucket counts overflow");
    if (d->prev < 0)
        d->first = (uint32_t)idx;
    d->last = (uint32_t)idx;
    d->prev = (int64_t)idx;
    d->h->bucket[idx] = n;
    return 0;
}

int hist_dec_end(struct hist_dec *d)
{
    struct hist *h = d->h;

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

uint32_t hist_enc_nbuckets(const struct hist *h)
{
    uint32_t n = 0;

    for (unsigned i = 0; i < HIST_NBUCKETS; i++)
        n += h->bucket[i] != 0;
    return n;
}
