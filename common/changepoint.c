/* changepoint: binary segmentation, then a median test per split
 * (the method and why: changepoint.h). */
#include "common/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"

/* Splits binary segmentation may propose before the median tests: enough
 * for CHANGEPOINT_MAX real steps among the noise-driven proposals of a
 * drifting series, and a bound on the tests' cost. */
#define PROPOSALS_MAX (4 * CHANGEPOINT_MAX)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Median of x[0..n) (n > 0), sorting a copy in scratch. */
static double median(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof(*x));
    qsort(scratch, n, sizeof(*scratch), cmp_double);
    return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/* Percent change from a to b; any rise from 0 counts as a full step. */
static double pct_change(double a, double b)
{
    if (a > 0)
        return 100.0 * (b - a) / a;
    return b > 0 ? INFINITY : 0;
}

/* Noise of one value: the median absolute first difference over
 * 0.6745 * sqrt(2) (for Gaussian noise the difference of two values has
 * sigma * sqrt(2), and its median absolute value is 0.6745 of that). */
static double noise_sigma(const double *x, size_t n, double *scratch)
{
    for (size_t i = 0; i + 1 < n; i++)
        scratch[i] = fabs(x[i + 1] - x[i]);
    return median(scratch, n - 1, scratch + n) / (0.6745 * sqrt(2.0));
}

/* The split of [a, b) with the largest CUSUM statistic, each side at least
 * m long (b - a >= 2 m); its statistic in *stat. */
static size_t best_split(const double *sum, size_t a, size_t b, size_t m, double *stat)
{
    size_t best = a + m;

    *stat = -1;
    for (size_t t = a + m; t + m <= b; t++) {
        double l = (double)(t - a), r = (double)(b - t);
        double ml = (sum[t] - sum[a]) / l, mr = (sum[b] - sum[t]) / r;
        double s = fabs(ml - mr) / sqrt(1 / l + 1 / r);

        if (s > *stat) {
            *stat = s;
            best = t;
        }
    }
    return best;
}

/* Binary segmentation of x[0..n) into segments of at least m; the split
 * points, unsorted, in split[]; returns their count. */
static size_t segment(const double *x, size_t n, size_t m, double sigma, size_t *split)
{
    double *sum = xmalloc((n + 1) * sizeof(*sum));
    size_t (*stack)[2] = xmalloc((PROPOSALS_MAX + 1) * sizeof(*stack));
    size_t nstack = 0, nsplit = 0;
    double zcrit = fmax(CHANGEPOINT_Z, sqrt(2 * log((double)n)) + 2);

    sum[0] = 0;
    for (size_t i = 0; i < n; i++)
        sum[i + 1] = sum[i] + x[i];
    stack[nstack][0] = 0;
    stack[nstack++][1] = n;
    while (nstack && nsplit < PROPOSALS_MAX) {
        size_t a = stack[nstack - 1][0], b = stack[nstack - 1][1], t;
        double stat;

        nstack--;
        if (b - a < 2 * m)
            continue;
        t = best_split(sum, a, b, m, &stat);
        if (stat <= zcrit * sigma)
            continue;
        split[nsplit++] = t;
        /* each pop pushes at most two: the stack never outgrows the splits + 1 */
        stack[nstack][0] = a;
        stack[nstack++][1] = t;
        stack[nstack][0] = t;
        stack[nstack++][1] = b;
    }
    free(stack);
    free(sum);
    return nsplit;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* How many of x[a, b) lie nearer level than other. */
static size_t nearer(const double *x, size_t a, size_t b, double level, double other)
{
    size_t k = 0;

    for (size_t i = a; i < b; i++)
        k += fabs(x[i] - level) < fabs(x[i] - other);
    return k;
}

/* Split j of the segments (bounds bound[0..nsplit+1]) must be a big enough
 * change, locally and between the plateaus, in one direction, and each
 * plateau must have lasted: min_len of its values nearer it than the other
 * (a segment can hold a blip shorter than min_len plus a few values of the
 * old level, and have the blip's median).  Returns how far the split
 * clears min_pct; < 0 fails. */
static double clearance(const double *x, const size_t *bound, const double *plateau, size_t j,
                        size_t min_len, double min_pct, double *scratch)
{
    size_t t = bound[j + 1];
    double local = pct_change(median(x + t - min_len, min_len, scratch), median(x + t, min_len, scratch));
    double across = pct_change(plateau[j], plateau[j + 1]);

    if ((local > 0) != (across > 0))
        return -1;
    if (nearer(x, bound[j], t, plateau[j], plateau[j + 1]) < min_len ||
        nearer(x, t, bound[j + 2], plateau[j + 1], plateau[j]) < min_len)
        return -1;
    return fmin(fabs(local), fabs(across)) - min_pct;
}

int changepoint_find(const double *x, size_t n, double min_pct, size_t min_len, struct changepoint *out,
                     size_t max)
{
    size_t *split, nsplit, k = 0, nout = 0;
    double *scratch, *plateau, sigma;

    if (min_len < CHANGEPOINT_MIN_LEN_FLOOR || !(min_pct > 0) || (max && !out))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -EINVAL;
    if (n < 2 * min_len)
        return 0;
    scratch = xmalloc(2 * n * sizeof(*scratch));
    split = xmalloc((PROPOSALS_MAX + 2) * sizeof(*split));
    plateau = xmalloc((PROPOSALS_MAX + 1) * sizeof(*plateau));
    sigma = noise_sigma(x, n, scratch);
    /* a noise-free series (synthetic, or a counter that never moves): any
     * split of unequal means is significant */
    if (!(sigma > 0))
        sigma = 1e-12 * (1 + fabs(median(x, n, scratch)));
    nsplit = segment(x, n, min_len, sigma, split);
    qsort(split, nsplit, sizeof(*split), cmp_size);

    /* the local test depends on no other split (windows of min_len fit
     * between splits min_len apart): filter once */
    for (size_t j = 0; j < nsplit; j++) {
        size_t t = split[j];
        double before = median(x + t - min_len, min_len, scratch);
        double after = median(x + t, min_len, scratch);

        if (fabs(pct_change(before, after)) >= min_pct)
            split[k++] = split[j];
    }
    nsplit = k;

    /* plateau test: drop the weakest failing split, merge, until none
     * fails.  bound[] is 0, the splits, n: segment j is [bound[j], bound[j+1]) */
    memmove(&split[1], &split[0], nsplit * sizeof(*split));
    split[0] = 0;
    split[nsplit + 1] = n;
    for (size_t j = 0; j <= nsplit; j++)
        plateau[j] = median(x + split[j], split[j + 1] - split[j], scratch);
    for (;;) {
        size_t worst = nsplit;
        double worst_c = 0;

        for (size_t j = 0; j < nsplit; j++) {
            double c = clearance(x, split, plateau, j, min_len, min_pct, scratch);

            if (c < worst_c) {
                worst_c = c;
                worst = j;
            }
        }
        if (worst == nsplit)
            break;
        /* drop bound worst + 1: segments worst and worst + 1 become one */
        memmove(&split[worst + 1], &split[worst + 2], (nsplit - worst) * sizeof(*split));
        memmove(&plateau[worst + 1], &plateau[worst + 2], (nsplit - worst - 1) * sizeof(*plateau));
        nsplit--;
        plateau[worst] = median(x + split[worst], split[worst + 1] - split[worst], scratch);
    }
    for (size_t j = 0; j < nsplit && nout < max && nout < CHANGEPOINT_MAX; j++) {
        double p = pct_change(plateau[j], plateau[j + 1]);

        out[nout++] = (struct changepoint){ .at = split[j + 1], .before = plateau[j], .after = plateau[j + 1],
                                            .pct = isfinite(p) ? p : 0 };
    }
    free(plateau);
    free(split);
    free(scratch);
    return (int)nout;
}
