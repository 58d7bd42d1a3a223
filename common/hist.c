/* hist: log-linear latency histogram.
 *
 * Design: the bucket index is computed arithmetically from the value's
 * leading-bit position (one __builtin_clzll, a shift and an add) so that
 * recording costs a handful of instructions and no data-dependent branch
 * beyond what compilers turn into conditional moves; this is on every I/O
 * completion.  The layout is a pure function of the value, so merging two
 * histograms is exact bucket addition and the coordinator's percentiles are
 * those of the union of all agents' samples (up to bucket resolution).
 *
 * Index formula.  Let S = HIST_SUB_BITS (6) and e = max(floor(log2 v), S).
 * Then v >> (e-S) lies in [2^S, 2^(S+1)) and
 *     idx = (e - S) * 2^S + (v >> (e - S)).
 * For v < 2^(S+1) (128) e is S, the shift is 0 and idx = v: one exact bucket
 * per value.  For larger v each octave [2^e, 2^(e+1)) maps onto 2^S
 * consecutive indices of width 2^(e-S), directly after the previous octave.
 * Forcing bit S on (v | 2^S) yields e = max(log2 v, S) without a branch and
 * keeps clzll's argument non-zero.  Values >= HIST_MAX_NS are clamped to
 * HIST_MAX_NS-1 first, which lands them in the last bucket.
 *
 * Error bound.  A bucket in octave e holds w = 2^(e-S) consecutive integers
 * starting at low >= 2^e, so w / low <= 2^-S.  hist_percentile reports the
 * midpoint m = low + (w-1)/2, hence for every v in the bucket
 *     |m - v| <= (w-1)/2 < w/2 <= low * 2^-(S+1) <= v * 2^-(S+1),
 * i.e. a relative error below 2^-7 = 0.78% (0 for the exact buckets below
 * 128).  Nearest-rank picks the bucket that holds the exact rank-k sample,
 * so the reported percentile is within 0.78% of the exact one; clamping to
 * [min, max] only moves it closer.  The one exception is the last bucket,
 * which also absorbs every value >= HIST_MAX_NS: there the answer is only
 * known to lie in [its low, max], and clamping to max is the best we have. */
#include "common/hist.h"
#include "common/varint.h"
#include "common/sat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#define SUB       HIST_SUB_BITS
#define SUB_COUNT (1u << SUB)
#define LAST      (HIST_NBUCKETS - 1)

_Static_assert(HIST_NBUCKETS == (HIST_MAX_LOG2 - SUB + 1) * SUB_COUNT,
               "layout: the formula's top index must be the last bucket");

/* Add src's count, sum, min and max to dst's: the summary every form of
 * the histogram (struct hist, hist_sparse, hist_rec) keeps by these names. */
#define MERGE_SUMMARY(dst, src) do {                                  \
        (dst)->count = sat_add_u64((dst)->count, (src)->count);       \
        (dst)->sum_ns = sat_add_u64((dst)->sum_ns, (src)->sum_ns);    \
        if ((src)->min_ns < (dst)->min_ns)                            \
            (dst)->min_ns = (src)->min_ns;                            \
        if ((src)->max_ns > (dst)->max_ns)                            \
            (dst)->max_ns = (src)->max_ns;                            \
    } while (0)

void hist_init(struct hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
}

static inline unsigned bucket_of(uint64_t ns)
{
    uint64_t v = ns < HIST_MAX_NS ? ns : HIST_MAX_NS - 1;
    unsigned e = 63u - (unsigned)__builtin_clzll(v | SUB_COUNT);
    unsigned shift = e - SUB;
    return shift * SUB_COUNT + (unsigned)(v >> shift);
}

void hist_record(struct hist *h, uint64_t ns)
{
    h->count++;
    h->sum_ns = sat_add_u64(h->sum_ns, ns);
    h->min_ns = ns < h->min_ns ? ns : h->min_ns;
    h->max_ns = ns > h->max_ns ? ns : h->max_ns;
    h->bucket[bucket_of(ns)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    MERGE_SUMMARY(dst, src);
    for (unsigned i = 0; i < HIST_NBUCKETS; i++)
        dst->bucket[i] = sat_add_u64(dst->bucket[i], src->bucket[i]);
}

unsigned hist_bucket_of(uint64_t ns)
{
    return bucket_of(ns);
}

uint64_t hist_bucket_low(unsigned idx)
{
    if (idx >= HIST_NBUCKETS)
        return UINT64_MAX;
    if (idx < 2 * SUB_COUNT)
        return idx;
    return (uint64_t)(SUB_COUNT + idx % SUB_COUNT) << (idx / SUB_COUNT - 1);   /* mantissa << octave */
}

uint64_t hist_bucket_high(unsigned idx)
{
    /* The last bucket really does hold everything up to UINT64_MAX. */
    return idx >= LAST ? UINT64_MAX : hist_bucket_low(idx + 1) - 1;
}

uint64_t hist_percentile(const struct hist *h, double q)
{
    if (h->count == 0)
        return 0;
    if (!(q > 0))           /* also catches NaN */
        return h->min_ns;
    if (q >= 100)
        return h->max_ns;

    /* rank = ceil(q/100 * count).  q/100 is rarely exact in binary (99.9/100
     * * 100000 comes out as 99900.00000000001), so shave a relative 1e-12
     * off before ceil to avoid stepping to the next rank. */
    double r = q / 100.0 * (double)h->count;
    double c = ceil(r * (1.0 - 1e-12));
    uint64_t rank = c < 1 ? 1 : (uint64_t)c;
    if (rank > h->count)
        rank = h->count;

    uint64_t cum = 0;
    unsigned i;
    for (i = 0; i < LAST; i++) {
        cum += h->bucket[i];
        if (cum >= rank)
            break;
    }
    uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
    uint64_t mid = lo + (hi - lo) / 2;
    return mid < h->min_ns ? h->min_ns : mid > h->max_ns ? h->max_ns : mid;
}

double hist_mean(const struct hist *h)
{
    return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}

int hist_equal(const struct hist *a, const struct hist *b)
{
    if (a->count != b->count || a->sum_ns != b->sum_ns ||
        a->min_ns != b->min_ns || a->max_ns != b->max_ns)
        return 0;
    return memcmp(a->bucket, b->bucket, sizeof(a->bucket)) == 0;
}

void hist_sparse_from(struct hist_sparse *sp, const struct hist *h)
{
    uint32_t n = 0, prev = 0;
    size_t len = 0;
    uint8_t *tmp;

    for (unsigned i = 0; i < HIST_NBUCKETS; i++)
        n += h->bucket[i] != 0;
    *sp = (struct hist_sparse){ .count = h->count, .sum_ns = h->sum_ns, .min_ns = h->min_ns,
                                .max_ns = h->max_ns, .n = n };
    if (n == 0)
        return;
    /* worst case: a 2-byte gap (HIST_NBUCKETS < 2^14) and a 10-byte count */
    tmp = xmalloc((size_t)n * 12);
    for (unsigned i = 0; i < HIST_NBUCKETS; i++)
        if (h->bucket[i]) {
            len += varint_put(tmp + len, i - prev);
            len += varint_put(tmp + len, h->bucket[i]);
            prev = i;
        }
    sp->buckets = xrealloc(tmp, len);
    sp->len = (uint32_t)len;
}

void hist_sparse_to(const struct hist_sparse *sp, struct hist *h)
{
    hist_init(h);
    hist_sparse_merge(h, sp);
}

void hist_sparse_merge(struct hist *dst, const struct hist_sparse *sp)
{
    const uint8_t *p = sp->buckets;
    uint32_t idx = 0;

    MERGE_SUMMARY(dst, sp);
    for (uint32_t i = 0; i < sp->n; i++) {
        idx += (uint32_t)varint_get(&p);
        dst->bucket[idx] = sat_add_u64(dst->bucket[idx], varint_get(&p));
    }
}

int hist_sparse_empty(const struct hist_sparse *sp)
{
    return sp->n == 0 && sp->count == 0 && sp->sum_ns == 0 && sp->min_ns == UINT64_MAX &&
           sp->max_ns == 0;
}

void hist_sparse_free(struct hist_sparse *sp)
{
    free(sp->buckets);
    *sp = (struct hist_sparse){ .min_ns = UINT64_MAX };
}

/* Recording form.  HIST_NBUCKETS is 39 whole chunks (2 below 128, then 37
 * octaves of 64), so idx / HIST_CHUNK never runs past the array. */
_Static_assert(HIST_NBUCKETS % HIST_CHUNK == 0, "chunks tile the bucket array");

void hist_rec_init(struct hist_rec *h)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
}

void hist_rec_record(struct hist_rec *h, uint64_t ns)
{
    unsigned idx = bucket_of(ns);
    uint64_t *c = h->chunk[idx / HIST_CHUNK];
    if (__builtin_expect(c == NULL, 0))
        c = h->chunk[idx / HIST_CHUNK] = xcalloc(HIST_CHUNK, sizeof(*c));
    c[idx % HIST_CHUNK]++;
    h->count++;
    h->sum_ns = sat_add_u64(h->sum_ns, ns);
    h->min_ns = ns < h->min_ns ? ns : h->min_ns;
    h->max_ns = ns > h->max_ns ? ns : h->max_ns;
}

void hist_rec_clear(struct hist_rec *h)
{
    if (h->count == 0)
        return;
    for (unsigned c = 0; c < HIST_NCHUNKS; c++)
        if (h->chunk[c])       /* kept: the next interval records into them */
            memset(h->chunk[c], 0, HIST_CHUNK * sizeof(*h->chunk[c]));
    h->count = h->sum_ns = h->max_ns = 0;
    h->min_ns = UINT64_MAX;
}

void hist_rec_add(struct hist_rec *h, const struct hist *src)
{
    if (src->count == 0)
        return;
    MERGE_SUMMARY(h, src);
    /* only the chunks between min and max can hold counts: min is in the
     * first non-empty bucket and max in the last, as hist_record and
     * hist_merge keep them and hist_codec's decoder insists on */
    for (unsigned c = bucket_of(src->min_ns) / HIST_CHUNK; c <= bucket_of(src->max_ns) / HIST_CHUNK; c++) {
        const uint64_t *b = &src->bucket[c * HIST_CHUNK];
        uint64_t any = 0;
        for (unsigned i = 0; i < HIST_CHUNK; i++)
            any |= b[i];
        if (!any)
            continue;
        if (!h->chunk[c])
            h->chunk[c] = xcalloc(HIST_CHUNK, sizeof(*h->chunk[c]));
        for (unsigned i = 0; i < HIST_CHUNK; i++)
            h->chunk[c][i] = sat_add_u64(h->chunk[c][i], b[i]);
    }
}

void hist_rec_sum(const struct hist_rec *h, struct hist *dst)
{
    if (h->count == 0)
        return;
    MERGE_SUMMARY(dst, h);
    for (unsigned c = 0; c < HIST_NCHUNKS; c++)
        for (unsigned i = 0; h->chunk[c] && i < HIST_CHUNK; i++)
            dst->bucket[c * HIST_CHUNK + i] = sat_add_u64(dst->bucket[c * HIST_CHUNK + i], h->chunk[c][i]);
}

size_t hist_rec_bytes(const struct hist_rec *h)
{
    size_t n = 0;
    for (unsigned c = 0; c < HIST_NCHUNKS; c++)
        n += h->chunk[c] ? HIST_CHUNK * sizeof(uint64_t) : 0;
    return n;
}

void hist_rec_free(struct hist_rec *h)
{
    for (unsigned c = 0; c < HIST_NCHUNKS; c++)
        free(h->chunk[c]);
    hist_rec_init(h);
}
