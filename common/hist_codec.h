/* hist_codec: the one serialised form of a histogram, and its one
 * validating decoder, shared by the wire (proto/msg_codec.c), the JSON
 * result (coordinator/report/report_json.c, result_load.c) and the journal
 * (coordinator/run/journal.c).
 *
 * The form (docs/results.md, docs/protocol.md) is a map
 *     {count, sum, min, max, runs: [skip, len, n1 .. n_len, skip, len, ...]}
 * with exact count, sum_ns, min_ns and max_ns and, in runs, the non-empty
 * buckets (bucket layout: hist.h) as runs of consecutive buckets: skip
 * empty buckets (from bucket 0 for the first run, from the end of the
 * previous run after that), then len buckets with counts n1..n_len.  A
 * latency histogram's body is contiguous, so a bucket costs one small
 * number (its count) instead of an index and a count: ~45% less JSON than
 * index/count pairs on real runs, and 1-byte skips and lengths on the wire.
 *
 * The form is canonical (one histogram, one encoding): runs are maximal
 * (skip >= 1 after the first run, counts > 0).  Validation: at most
 * HIST_CODEC_MAX_VALUES entries; every run has len >= 1 and ends at or
 * below HIST_NBUCKETS; no run is cut off by the end of the array; counts are
 * > 0 and their sum neither overflows nor differs from count; for a
 * non-empty histogram min <= max, min lies in the first non-empty bucket
 * and max in the last (what hist_record and hist_merge always produce), so
 * percentiles clamped to [min, max] stay in their bucket.  An empty
 * histogram (count 0) has no runs; its min, sum and max are ignored and it
 * decodes to hist_init's form.
 *
 * Each container (msgpack, jansson) walks its own map and array, but every
 * value goes through the encoder and decoder below, so every reader accepts
 * and refuses exactly the same histograms with the same reasons:
 *     struct hist_dec d;
 *     if (hist_dec_begin(&d, h, count, sum, min, max, nvalues) < 0) -> d.why
 *     for each value of runs: if (hist_dec_value(&d, v) < 0) -> d.why
 *     if (hist_dec_end(&d) < 0) -> d.why
 * A value that is not an unsigned integer is the container's to refuse
 * (hist_dec_fail names it in the same words).  Any failure leaves h empty. */
#ifndef NFSTORM_HIST_CODEC_H
#define NFSTORM_HIST_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

/* Most entries runs may have: every other bucket non-empty, 3 values a run
 * of one (HIST_NBUCKETS is even), and slack for one run of them all. */
#define HIST_CODEC_MAX_VALUES (3u * HIST_NBUCKETS / 2 + 2)

struct hist_dec {
    struct hist *h;        /* being filled; valid once hist_dec_end returned 0,
                              reset to empty by any failure */
    uint64_t total;        /* sum of the counts so far */
    uint32_t pos;          /* next bucket a run may start at or continue with */
    uint32_t left;         /* counts still due in the current run */
    uint32_t first, last;  /* first and last non-empty bucket */
    uint8_t stage;         /* what the next value is: skip, len or a count */
    uint8_t nruns;         /* 0 before the first run, then 1 */
    char why[128];         /* one line, set on the first failure */
};

/* Start decoding into h (overwritten): the scalars and how many entries
 * runs holds.  0, or -EINVAL with d->why. */
int hist_dec_begin(struct hist_dec *d, struct hist *h, uint64_t count, uint64_t sum_ns,
                   uint64_t min_ns, uint64_t max_ns, size_t nvalues);
/* The next value of runs.  0 or -EINVAL with d->why. */
int hist_dec_value(struct hist_dec *d, uint64_t v);
/* All values given: check the totals.  0 or -EINVAL with d->why. */
int hist_dec_end(struct hist_dec *d);
/* The container found a value that is not an unsigned integer: -EINVAL,
 * d->why is what. */
int hist_dec_fail(struct hist_dec *d, const char *what);

/* Encoding: the scalars as the form carries them (min 0 when empty), then
 *     struct hist_enc e; uint64_t v;
 *     n = hist_enc_begin(&e, h);           -- the number of values of runs
 *     while (hist_enc_next(&e, &v)) emit v;
 * h must not change in between. */
uint64_t hist_enc_min(const struct hist *h);
struct hist_enc {
    const struct hist *h;
    uint32_t pos, run_end;
    uint8_t stage;
};
uint32_t hist_enc_begin(struct hist_enc *e, const struct hist *h);
int hist_enc_next(struct hist_enc *e, uint64_t *v);   /* 1: *v set; 0: done */

#endif
