/* hist_codec: the one serialised form of a histogram, and its one
 * validating decoder, shared by the wire (proto/msg_codec.c), the JSON
 * result (coordinator/report_json.c, result_load.c) and the journal
 * (coordinator/journal.c).
 *
 * The form (docs/results.md, docs/protocol.md) is a map
 *     {count, sum, min, max, b: [idx, n, idx, n, ...]}
 * with exact count, sum_ns, min_ns and max_ns and, in b, only the non-empty
 * buckets (bucket layout: hist.h) by strictly increasing index, each with
 * its count n > 0.  Each container (msgpack, jansson) walks its own map and
 * array, but every value goes through the decoder below, so every reader
 * accepts and refuses exactly the same histograms.
 *
 * Validation: b has an even number of entries, at most 2 * HIST_NBUCKETS;
 * indices are below HIST_NBUCKETS and strictly increasing (no bucket twice);
 * counts are > 0 and their sum neither overflows nor differs from count;
 * for a non-empty histogram min <= max, min lies in the first non-empty
 * bucket and max in the last (what hist_record and hist_merge always
 * produce), so percentiles clamped to [min, max] stay in their bucket.  An
 * empty histogram (count 0) has no buckets; its min, sum and max are
 * ignored and it decodes to hist_init's form.
 *
 * Usage (decoding):
 *     struct hist_dec d;
 *     if (hist_dec_begin(&d, h, count, sum, min, max, nvalues) < 0) -> d.why
 *     for each pair: if (hist_dec_bucket(&d, idx, n) < 0) -> d.why
 *     if (hist_dec_end(&d) < 0) -> d.why
 * A non-integer or negative value is the container's to refuse before it
 * reaches the decoder (hist_dec_fail names it in the same words). */
#ifndef NFSTORM_HIST_CODEC_H
#define NFSTORM_HIST_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

/* Most entries b may have: every bucket, as an (idx, n) pair. */
#define HIST_CODEC_MAX_VALUES (2u * HIST_NBUCKETS)

struct hist_dec {
    struct hist *h;        /* being filled; valid once hist_dec_end returned 0,
                              reset to empty by any failure */
    uint64_t total;        /* sum of the counts so far */
    int64_t prev;          /* last index, -1 before the first */
    uint32_t first, last;  /* first and last non-empty bucket */
    char why[128];         /* one line, set on the first failure */
};

/* Start decoding into h (overwritten): the scalars and how many entries b
 * holds.  0, or -EINVAL with d->why ("'b' has an odd number of entries"). */
int hist_dec_begin(struct hist_dec *d, struct hist *h, uint64_t count, uint64_t sum_ns,
                   uint64_t min_ns, uint64_t max_ns, size_t nvalues);
/* The next (idx, n) pair of b.  0 or -EINVAL with d->why. */
int hist_dec_bucket(struct hist_dec *d, uint64_t idx, uint64_t n);
/* All pairs given: check the totals.  0 or -EINVAL with d->why. */
int hist_dec_end(struct hist_dec *d);
/* The container found a value that is not an unsigned integer: -EINVAL,
 * d->why says so. */
int hist_dec_fail(struct hist_dec *d, const char *what);

/* Encoding side: the scalars as the form carries them (min 0 when empty)
 * and the number of non-empty buckets; the pairs are then every i with
 * h->bucket[i] != 0, ascending. */
uint64_t hist_enc_min(const struct hist *h);
uint32_t hist_enc_nbuckets(const struct hist *h);

#endif
