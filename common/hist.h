/* hist: mergeable log-linear latency histogram (values in nanoseconds).
 *
 * Fixed layout, identical on every agent and the coordinator, so merging
 * jobs, agents and intervals is exact bucket addition.  Values below
 * 2^HIST_SUB_BITS+1 (128) get one bucket each; above that every power-of-two
 * range [2^e, 2^(e+1)) is cut into 2^HIST_SUB_BITS (64) equal buckets.  A
 * bucket's width is then at most 1/64 of its lower bound, and reporting the
 * bucket midpoint is off by at most half a width: relative error <= 1/128
 * (0.78%) for every value, <= 1% as promised.  Values at or above
 * HIST_MAX_NS (2^44 ns, about 4.9 hours) land in the last bucket.
 *
 * min, max, sum and count are kept exactly besides the buckets. */
#ifndef NFSTORM_HIST_H
#define NFSTORM_HIST_H

#include <stdint.h>
#include <stddef.h>

#define HIST_SUB_BITS 6
#define HIST_MAX_LOG2 44
#define HIST_MAX_NS   (UINT64_C(1) << HIST_MAX_LOG2)
/* 128 exact buckets + 64 per octave from 2^7 up to 2^44 */
#define HIST_NBUCKETS ((2u << HIST_SUB_BITS) + (HIST_MAX_LOG2 - HIST_SUB_BITS - 1) * (1u << HIST_SUB_BITS))

struct hist {
    uint64_t count;
    uint64_t sum_ns;   /* wraps after ~584 years of summed latency: fine */
    uint64_t min_ns;   /* UINT64_MAX when empty */
    uint64_t max_ns;
    uint64_t bucket[HIST_NBUCKETS];
};

void hist_init(struct hist *h);                 /* empty histogram */
void hist_record(struct hist *h, uint64_t ns);  /* O(1), no allocation */
void hist_merge(struct hist *dst, const struct hist *src);

/* Bucket layout, exported for the sparse wire form and tests. */
unsigned hist_bucket_of(uint64_t ns);
uint64_t hist_bucket_low(unsigned idx);   /* smallest value in bucket idx */
uint64_t hist_bucket_high(unsigned idx);  /* largest value in bucket idx */

/* Nearest-rank percentile, q in [0,100]: the midpoint of the bucket holding
 * the ceil(q/100*count)-th smallest value, clamped to [min, max].
 * q=0 gives min, q=100 gives max. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double q);
double hist_mean(const struct hist *h);   /* 0 when empty */

/* Exact comparison of two histograms (tests, merge checks). */
int hist_equal(const struct hist *a, const struct hist *b);

#endif
