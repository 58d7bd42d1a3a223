/* sample_stats: summaries of repeated measurements and whether two sets
 * of repetitions differ by more than their noise.
 *
 * Used by --repeat (mean, standard deviation and a 95% confidence interval
 * of each phase metric over the repetitions) and by compare (Welch's
 * unequal-variance t-test between two inputs).  Welch's test is the usual
 * choice for a handful of repetitions whose spreads differ between
 * configurations: it does not assume equal variances, and with n >= 2 per
 * side it needs nothing but the samples.  Pure functions, no state. */
#ifndef NFSTORM_SAMPLE_STATS_H
#define NFSTORM_SAMPLE_STATS_H

#include <stdint.h>

/* A difference is significant when the two-sided p-value is below this. */
#define SAMPLE_ALPHA 0.05

struct sample_summary {
    uint32_t n;
    double mean;
    double sd;                    /* sample standard deviation (n - 1); NAN when n < 2 */
    double ci95_lo, ci95_hi;      /* mean -/+ t(0.975, n-1) * sd / sqrt(n); NAN when n < 2 */
    double ci95_raw_lo, ci95_raw_hi; /* the same before sample_clamp_ci (equal when not clamped) */
    uint8_t ci95_clamped;         /* SAMPLE_CLAMPED_LO | _HI: sample_clamp_ci moved an end */
};
#define SAMPLE_CLAMPED_LO 1u
#define SAMPLE_CLAMPED_HI 2u

/* Summarise x[0..n).  n == 0 gives mean NAN. */
void sample_summarize(const double *x, uint32_t n, struct sample_summary *out);
/* Keep the interval inside the metric's range [min, max] (IOPS, bandwidth
 * and latency are never below 0; a fairness index never above 1): an end
 * beyond it is moved onto it and ci95_clamped says which, so a report
 * prints "0* .. 184k" with why, never an IOPS interval below zero.  The
 * t interval reaches out of range when the repetitions are few and spread
 * (often one failed repetition among good ones).  NAN ends stay NAN. */
void sample_clamp_ci(struct sample_summary *s, double min, double max);

struct welch_result {
    double t;                     /* (mean(a) - mean(b)) / standard error */
    double df;                    /* Welch-Satterthwaite degrees of freedom */
    double p;                     /* two-sided p-value */
};

/* Welch's t-test of a[0..na) against b[0..nb).  -EINVAL (out all NAN) when
 * na < 2 or nb < 2: no variance is known.  Two sets without any spread
 * give p = 1 when their means are equal and p = 0 when they differ. */
int sample_welch(const double *a, uint32_t na, const double *b, uint32_t nb, struct welch_result *out);

/* Student's t distribution with df degrees of freedom (df > 0):
 * P(T <= t), and its inverse for 0 < p < 1 (NAN outside). */
double sample_t_cdf(double t, double df);
double sample_t_quantile(double p, double df);

#endif
