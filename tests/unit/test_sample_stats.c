/* test_sample_stats: summaries, the t distribution and Welch's test against
 * reference values computed independently (numerical integration of the t
 * density at 30 digits). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "coordinator/result/sample_stats.h"

#define near(a, b, tol) do { double a_ = (a), b_ = (b); \
    if (!(fabs(a_ - b_) <= (tol))) fail_msg("%s = %.12g, want %.12g", #a, a_, b_); } while (0)

static void test_summary_known(void **state)
{
    const double x[] = { 10, 12, 14 };
    struct sample_summary s;

    (void)state;
    sample_summarize(x, 3, &s);
    assert_int_equal(s.n, 3);
    near(s.mean, 12, 1e-12);
    near(s.sd, 2, 1e-12);
    /* 12 -/+ t(0.975, 2) * 2 / sqrt(3), t = 4.302652729911275 */
    near(s.ci95_lo, 12 - 4.302652729911275 * 2 / sqrt(3), 1e-9);
    near(s.ci95_hi, 12 + 4.302652729911275 * 2 / sqrt(3), 1e-9);
}

static void test_summary_small(void **state)
{
    const double one = 7;
    struct sample_summary s;

    (void)state;
    sample_summarize(&one, 1, &s);
    near(s.mean, 7, 0);
    assert_true(isnan(s.sd) && isnan(s.ci95_lo) && isnan(s.ci95_hi));
    sample_summarize(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean));
}

static void test_summary_large_values_small_spread(void **state)
{
    /* E[x^2] - mean^2 would lose this spread entirely */
    const double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
    struct sample_summary s;

    (void)state;
    sample_summarize(x, 3, &s);
    near(s.sd, 1, 1e-6);
}

static void test_t_distribution(void **state)
{
    (void)state;
    near(sample_t_cdf(0, 3), 0.5, 1e-15);
    near(sample_t_cdf(2.0, 5), 0.9490302605851, 1e-11);
    near(sample_t_cdf(-2.0, 5), 1 - 0.9490302605851, 1e-11);
    near(sample_t_quantile(0.975, 1), 12.706204736174707, 1e-8);
    near(sample_t_quantile(0.975, 2), 4.302652729911275, 1e-9);
    near(sample_t_quantile(0.975, 3), 3.182446305283708, 1e-9);
    near(sample_t_quantile(0.975, 10), 2.228138851986274, 1e-9);
    near(sample_t_quantile(0.025, 10), -2.228138851986274, 1e-9);
    near(sample_t_quantile(0.975, 1e6), 1.959966, 1e-5);     /* the normal's 1.96 */
    assert_true(isnan(sample_t_quantile(0, 3)));
    assert_true(isnan(sample_t_quantile(1, 3)));
    assert_true(isnan(sample_t_cdf(1, 0)));
}

static void test_welch_known(void **state)
{
    const double a[] = { 10, 12, 14 }, b[] = { 20, 22, 24 };
    const double c[] = { 100, 103, 98, 101 }, d[] = { 110, 95, 120 };
    struct welch_result w;

    (void)state;
    assert_int_equal(sample_welch(a, 3, b, 3, &w), 0);
    near(w.t, -10 / sqrt(8.0 / 3), 1e-12);
    near(w.df, 4, 1e-12);
    near(w.p, 0.0036022326091, 1e-10);
    assert_true(w.p < SAMPLE_ALPHA);
    /* unequal sizes and spreads: within noise */
    assert_int_equal(sample_welch(c, 4, d, 3, &w), 0);
    near(w.t, -1.067355158583071, 1e-12);
    near(w.df, 2.08236301493154, 1e-10);
    near(w.p, 0.39379313902237538, 1e-9);
    assert_false(w.p < SAMPLE_ALPHA);
}

static void test_welch_edges(void **state)
{
    const double a[] = { 5, 5, 5 }, b[] = { 5, 5 }, c[] = { 6, 6 };
    struct welch_result w;

    (void)state;
    assert_int_equal(sample_welch(a, 1, b, 2, &w), -EINVAL);
    assert_true(isnan(w.p) && isnan(w.t) && isnan(w.df));
    assert_int_equal(sample_welch(a, 3, b, 1, &w), -EINVAL);
    assert_int_equal(sample_welch(a, 3, b, 2, &w), 0);
    near(w.p, 1, 0);
    assert_int_equal(sample_welch(a, 3, c, 2, &w), 0);
    near(w.p, 0, 0);
    assert_true(isinf(w.t) && w.t < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_known),
        cmocka_unit_test(test_summary_small),
        cmocka_unit_test(test_summary_large_values_small_spread),
        cmocka_unit_test(test_t_distribution),
        cmocka_unit_test(test_welch_known),
        cmocka_unit_test(test_welch_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
