/* sample_stats: mean, deviation, confidence interval, Welch's t-test.
 *
 * The t distribution's CDF is the regularized incomplete beta function:
 * for T with df degrees of freedom, P(|T| > |t|) = I_x(df/2, 1/2) with
 * x = df / (df + t^2).  I_x(a, b) is evaluated by its continued fraction
 * (modified Lentz's method), which converges quickly for
 * x < (a + 1) / (a + b + 2); above that the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) is used.  The quantile is found by
 * bisection on the CDF: it is monotonic, and 200 halvings of a bracket
 * reach double precision whatever df is, which costs nothing at the
 * handful of calls a report makes. */
#include "coordinator/result/sample_stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>

void sample_summarize(const double *x, uint32_t n, struct sample_summary *out)
{
    double sum = 0, ss = 0, mean, half;

    out->n = n;
    out->mean = out->sd = out->ci95_lo = out->ci95_hi = out->ci95_raw_lo = out->ci95_raw_hi = NAN;
    out->ci95_clamped = 0;
    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        sum += x[i];
    mean = sum / n;
    out->mean = mean;
    if (n < 2)
        return;
    /* Two passes: the sum of squared deviations, not E[x^2] - mean^2,
     * which cancels badly for large IOPS figures with a small spread. */
    for (uint32_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    out->sd = sqrt(ss / (n - 1));
    half = sample_t_quantile(0.975, n - 1) * out->sd / sqrt(n);
    out->ci95_lo = out->ci95_raw_lo = mean - half;
    out->ci95_hi = out->ci95_raw_hi = mean + half;
}

void sample_clamp_ci(struct sample_summary *s, double min, double max)
{
    if (s->ci95_lo < min) {       /* false for NAN */
        s->ci95_lo = min;
        s->ci95_clamped |= SAMPLE_CLAMPED_LO;
    }
    if (s->ci95_hi > max) {
        s->ci95_hi = max;
        s->ci95_clamped |= SAMPLE_CLAMPED_HI;
    }
}

/* Lentz's floor: a denominator this close to 0 is nudged off it. */
static const double lentz_tiny = 1e-300;

/* One step of Lentz's method with the fraction's numerator num: the new
 * c and d, and the factor (d c) the convergent is multiplied by. */
static double lentz_step(double num, double *c, double *d)
{
    *d = 1 + num * *d;
    if (fabs(*d) < lentz_tiny)
        *d = lentz_tiny;
    *c = 1 + num / *c;
    if (fabs(*c) < lentz_tiny)
        *c = lentz_tiny;
    *d = 1 / *d;
    return *d * *c;
}

/* Continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
    const double eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1), h;

    if (fabs(d) < lentz_tiny)
        d = lentz_tiny;
    d = 1 / d;
    h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m, num, del;

        /* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
        num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        h *= lentz_step(num, &c, &d);
        /* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        del = lentz_step(num, &c, &d);
        h *= del;
        if (fabs(del - 1) < eps)
            break;
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b), 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
    double front;

    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double sample_t_cdf(double t, double df)
{
    double tail;

    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1 : 0;
    tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));   /* P(T > |t|) */
    return t > 0 ? 1 - tail : tail;
}

double sample_t_quantile(double p, double df)
{
    double lo = -1, hi = 1;

    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    while (sample_t_cdf(lo, df) > p && lo > -1e300)
        lo *= 2;
    while (sample_t_cdf(hi, df) < p && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > DBL_EPSILON * fabs(hi + lo); i++) {
        double mid = 0.5 * (lo + hi);

        if (sample_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

int sample_welch(const double *a, uint32_t na, const double *b, uint32_t nb, struct welch_result *out)
{
    struct sample_summary sa, sb;
    double va, vb, se2;

    out->t = out->df = out->p = NAN;
    if (na < 2 || nb < 2)
        return -EINVAL;
    sample_summarize(a, na, &sa);
    sample_summarize(b, nb, &sb);
    va = sa.sd * sa.sd / na;
    vb = sb.sd * sb.sd / nb;
    se2 = va + vb;
    if (se2 == 0) {               /* no spread on either side */
        out->df = na + nb - 2;
        out->t = sa.mean == sb.mean ? 0 : (sa.mean > sb.mean ? INFINITY : -INFINITY);
        out->p = sa.mean == sb.mean ? 1 : 0;
        return 0;
    }
    out->t = (sa.mean - sb.mean) / sqrt(se2);
    out->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    out->p = 2 * sample_t_cdf(-fabs(out->t), out->df);
    if (out->p > 1)
        out->p = 1;
    return 0;
}
