/* changepoint: step-downs and step-ups in a per-interval series.
 *
 * A throttled file system (burst credits spent, a QoS cap applied) shows as
 * a level shift in the interval series: one plateau, then another.  One
 * slow interval is no such shift, and neither is a slow drift, so this is a
 * change-point method, not a threshold on one interval:
 *
 *  1. Binary segmentation with a minimum segment length of min_len
 *     intervals: a segment is split where the CUSUM statistic
 *     |mean(left) - mean(right)| / (sigma * sqrt(1/l + 1/r)) is largest,
 *     if it is significant (above CHANGEPOINT_Z and sqrt(2 ln n) + 2, the
 *     order of the largest such statistic of pure noise over n splits).
 *     sigma is the noise of one interval, estimated robustly from the
 *     median absolute first difference (a step moves one difference only).
 *  2. Each split found is kept only if it is a step of at least min_pct:
 *     - locally: the medians of the min_len intervals before and after it
 *       differ by min_pct (a ramp spreads its change over many intervals
 *       and fails this; a blip shorter than min_len/2 cannot move a median);
 *     - as plateaus: the medians of the whole segments on either side of it
 *       differ by min_pct.  The weakest failing split is dropped and its
 *       segments merged until every split left passes.
 *
 * Plateaus are medians, so a stray slow or fast interval does not move the
 * "before" and "after" figures.  A change in the last min_len - 1 intervals
 * has not lasted min_len and is not reported.  Pure functions, no state. */
#ifndef NFSTORM_CHANGEPOINT_H
#define NFSTORM_CHANGEPOINT_H

#include <stddef.h>

/* Defaults (docs/long-runs.md): a change of 20% lasting 5 intervals. */
#define CHANGEPOINT_MIN_PCT 20.0
#define CHANGEPOINT_MIN_LEN 5u
/* The smallest min_len accepted: a step needs intervals on both sides. */
#define CHANGEPOINT_MIN_LEN_FLOOR 2u
/* At most this many changes per series are reported (the strongest splits
 * come first in binary segmentation, so a pathological series costs
 * O(n log n) and reports its largest steps). */
#define CHANGEPOINT_MAX 32u
/* Floor of the significance threshold, in noise sigmas. */
#define CHANGEPOINT_Z 4.0

struct changepoint {
    size_t at;          /* index of the first value at the new level */
    double before;      /* median of the segment before at */
    double after;       /* median of the segment from at */
    double pct;         /* 100 * (after - before) / before; 0 when before is 0 */
};

/* Find the steps of x[0..n) of at least min_pct percent lasting at least
 * min_len values (min_len >= CHANGEPOINT_MIN_LEN_FLOOR, min_pct > 0).
 * Writes up to max of them to out in order of at; returns how many, or
 * -EINVAL on bad parameters.  n of 0 or 1 (or below 2 * min_len) gives 0.
 * Values must be finite and >= 0 (rates, latencies): a NaN is -EINVAL. */
int changepoint_find(const double *x, size_t n, double min_pct, size_t min_len, struct changepoint *out,
                     size_t max);

#endif
