"""Welch's t-test, written independently of nfstorm's C (coordinator/
sample_stats.c), so a test can check compare's significance flags against
it.  Standard library only (no scipy on the test machines): the two-sided
p is 1 - 2 * integral from 0 to |t| of Student's t density, integrated with
composite Simpson's rule; the density is smooth and its peak is at 0, so
a fine fixed grid is exact to well under 1e-6 for the t and df a compare
of a few repetitions gives."""
import math


def mean_sd(xs):
    """Mean and sample standard deviation (n - 1) of a list of >= 2 values."""
    n = len(xs)
    m = sum(xs) / n
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def t_density(x, df):
    c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(c - (df + 1) / 2 * math.log1p(x * x / df))


def t_two_sided_p(t, df, steps=20000):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    a = abs(t)
    if math.isinf(a):
        return 0.0
    if a == 0:
        return 1.0
    h = a / steps
    s = t_density(0, df) + t_density(a, df)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_density(i * h, df)
    return min(1.0, max(0.0, 1 - 2 * s * h / 3))


def welch(a, b):
    """(t, df, p) of Welch's unequal-variances t-test of samples a and b
    (each >= 2 values); p is two-sided.  No spread on either side: p is 0
    when the means differ, 1 when they are equal."""
    ma, sa = mean_sd(a)
    mb, sb = mean_sd(b)
    va, vb = sa * sa / len(a), sb * sb / len(b)
    se2 = va + vb
    if se2 == 0:
        return (0.0 if ma == mb else math.copysign(math.inf, ma - mb),
                len(a) + len(b) - 2, 1.0 if ma == mb else 0.0)
    t = (ma - mb) / math.sqrt(se2)
    df = se2 * se2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return t, df, t_two_sided_p(t, df)


if __name__ == "__main__":
    # self-check against textbook values: t=2.776 at df=4 and t=4.303 at
    # df=2 are the 0.05 two-sided critical values; t=1 at df=1 gives 0.5
    for t, df, p in ((2.776445, 4, 0.05), (4.302653, 2, 0.05), (1.0, 1, 0.5), (12.706205, 1, 0.05)):
        got = t_two_sided_p(t, df)
        assert abs(got - p) < 1e-5, (t, df, got, p)
    print("welch.py self-check ok")
