/* sample_stats: see sample_stats.h (STAND-IN until the lead's lands).
 *
 * The Student t distribution through the regularized incomplete beta
 * function, I_x(a, b), evaluated by its continued fraction (modified
 * Lentz); the quantile by bisection on the CDF, which is monotonic. */
#include "coordinator/sample_stats.h"

#include <errno.h>
#include <math.h>

void sample_summarize(const double *x, uint32_t n, struct sample_summary *out)
{
    double sum = 0, ss = 0;

    out->n = n;
    out->mean = out->sd = out->ci95_lo = out->ci95_hi = NAN;
    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        sum += x[i];
    out->mean = sum / n;
    if (n < 2)
        return;
    for (uint32_t i = 0; i < n; i++)
        ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->sd = sqrt(ss / (n - 1));
    {
        double h = sample_t_quantile(0.975, n - 1) * out->sd / sqrt((double)n);
        out->ci95_lo = out->mean - h;
        out->ci95_hi = out->mean + h;
    }
}

/* Continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1), h;

    d = fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    h = d;
    for (int m = 1; m <= 300; m++) {
        double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;

        d = 1 + num * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + num / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + num * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + num / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

static double inc_beta(double a, double b, double x)
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

/* P(|T| > |t|) for T ~ Student t with df degrees of freedom. */
static double t_two_sided(double t, double df)
{
    if (isinf(t))
        return 0;
    return inc_beta(df / 2, 0.5, df / (df + t * t));
}

double sample_t_quantile(double p, double df)
{
    double lo = -1e6, hi = 1e6;

    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2, tail = t_two_sided(mid, df) / 2;
        double cdf = mid < 0 ? tail : 1 - tail;

        if (cdf < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
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
    if (se2 == 0) {   /* no spread on either side: any difference is exact */
        out->t = sa.mean == sb.mean ? 0 : copysign(INFINITY, sa.mean - sb.mean);
        out->df = (double)(na + nb - 2);
        out->p = sa.mean == sb.mean ? 1 : 0;
        return 0;
    }
    out->t = (sa.mean - sb.mean) / sqrt(se2);
    out->df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    out->p = t_two_sided(out->t, out->df);
    return 0;
}
