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

/* Bucket layout, exported for the serialised form (hist_codec.h) and tests. */
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

/* Compact, lossless form for keeping many histograms (the coordinator's
 * per-interval ones, 86,400 of them in a day at 1 s): the same count, sum,
 * min and max, plus only the non-zero buckets as n ascending (idx, cnt)
 * pairs, packed as varints (7 bits a byte) of the gap to the previous
 * index and of the count.  A run's interval touches a few hundred of the
 * 2496 buckets at most, mostly neighbours with small counts, so this is
 * 2-3 bytes a used bucket (12 as two arrays) instead of 20 KB a histogram.
 * buckets is a heap block owned by the struct (NULL when n == 0). */
struct hist_sparse {
    uint64_t count, sum_ns, min_ns, max_ns;
    uint32_t n;           /* non-zero buckets */
    uint32_t len;         /* bytes in buckets */
    uint8_t *buckets;     /* n x (varint index gap, varint count > 0) */
};

/* Fill sp from h (sp's previous content is not freed).  Exact. */
void hist_sparse_from(struct hist_sparse *sp, const struct hist *h);
/* Overwrite h with sp's histogram: hist_sparse_to(from(h)) equals h. */
void hist_sparse_to(const struct hist_sparse *sp, struct hist *h);
/* dst += sp, the same as hist_merge with sp's dense form. */
void hist_sparse_merge(struct hist *dst, const struct hist_sparse *sp);
/* 1 when sp is the form of a freshly hist_init'ed histogram. */
int hist_sparse_empty(const struct hist_sparse *sp);
/* Free the buckets; sp is left as an empty histogram's form. */
void hist_sparse_free(struct hist_sparse *sp);

/* Recording form for job threads: the same layout and the same exact sums,
 * but the buckets live in chunks of HIST_CHUNK (64) consecutive buckets
 * (the exact range below 128 is two chunks, then one chunk per octave),
 * each allocated the first time a value falls into it.  A job's latencies
 * span a few octaves, so a histogram costs about 1-2 KB instead of 20 KB;
 * 1024 job threads x 2 buffers x (op types x lat/svc) stay a few MB.
 *
 * Recording is still O(1) with no lock and no syscall: a chunk is
 * allocated (xcalloc, 512 bytes) at most once per chunk per histogram for
 * its whole life, and draining keeps the chunks (zeroed), so a steady
 * workload never allocates again.  Owned by one writer at a time (the job
 * thread; the sampler drains it only once the writer moved to the other
 * buffer, see agent/job.h); hist_rec_free releases the chunks. */
#define HIST_CHUNK   64u
#define HIST_NCHUNKS (HIST_NBUCKETS / HIST_CHUNK)

struct hist_rec {
    uint64_t count, sum_ns, min_ns, max_ns;   /* min UINT64_MAX when empty */
    uint64_t *chunk[HIST_NCHUNKS];            /* [HIST_CHUNK] each, or NULL */
};

void hist_rec_init(struct hist_rec *h);               /* empty, nothing allocated */
void hist_rec_record(struct hist_rec *h, uint64_t ns); /* may allocate one chunk */
/* h empty again; its chunks stay allocated for reuse. */
void hist_rec_clear(struct hist_rec *h);
/* h += src exactly (as hist_merge into h's dense form would), allocating
 * only the chunks src has counts in: an accumulator of a few KB where a
 * dense histogram takes 20 KB (the coordinator's per-agent phase sums). */
void hist_rec_add(struct hist_rec *h, const struct hist *src);
/* dst += h exactly, h unchanged. */
void hist_rec_sum(const struct hist_rec *h, struct hist *dst);
/* Bytes of chunks h holds (memory accounting, tests). */
size_t hist_rec_bytes(const struct hist_rec *h);
void hist_rec_free(struct hist_rec *h);               /* release chunks; h is empty */

#endif
