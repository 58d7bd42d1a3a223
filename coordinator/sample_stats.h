/* sample_stats: summaries and Welch's t-test over a few repetitions.
 *
 * STAND-IN written by helper H2b against the lead's published header so
 * compare can build and be tested before the lead's module lands on main;
 * at merge, main's coordinator/sample_stats.{c,h} replace this file pair
 * (same interface). */
#ifndef NFSTORM_SAMPLE_STATS_H
#define NFSTORM_SAMPLE_STATS_H

#include <stdint.h>

#define SAMPLE_ALPHA 0.05   /* a difference is significant when Welch's p < this */

struct sample_summary { uint32_t n; double mean, sd, ci95_lo, ci95_hi; }; /* sd, ci: NAN when n < 2 */
void sample_summarize(const double *x, uint32_t n, struct sample_summary *out);
struct welch_result { double t, df, p; };  /* p: two-sided */
/* Welch's unequal-variance t-test of a against b.  -EINVAL (and out NAN) when na < 2 or nb < 2. */
int sample_welch(const double *a, uint32_t na, const double *b, uint32_t nb, struct welch_result *out);
double sample_t_quantile(double p, double df);   /* Student t inverse CDF */

#endif
