/* plan_sweep: the sweep keys' parsing and a search's points. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include "common/plan_sweep.h"
#include "common/units.h"

static void test_plan_sweep_defaults_and_search(void **state)
{
    struct sweep_text t = { .dim = "rate_iops", .start = "10k", .max = "400k", .slo = "p99<=2ms,mean<=500us" };
    struct sweep_spec s;
    char why[256];
    (void)state;
    assert_int_equal(plan_sweep_parse(&t, &s, why, sizeof why), 0);
    assert_int_equal(s.dim, SWEEP_RATE_IOPS);
    assert_int_equal(s.start, 10000);
    assert_int_equal(s.max, 400000);
    assert_true(s.resolution_pct == 5.0 && s.achieved_pct == 95.0 && s.agent_pct == 75.0 && s.cv_pct == 5.0);
    assert_int_equal(s.nslo, 2);
    assert_int_equal(s.slo[0].pct_milli, 99000);
    assert_int_equal(s.slo[0].limit_ns, 2000000);
    assert_int_equal(s.slo[1].pct_milli, 0);
    assert_int_equal(s.slo[1].limit_ns, 500000);
    /* 10k..400k doubles 7 times (the last point is max), then at most
     * ceil(log2(100/5)) + 1 = 6 bisections */
    assert_int_equal(s.npoints, 13);
}

static void test_plan_sweep_doubling_ends_at_max(void **state)
{
    uint64_t p[32];
    (void)state;
    assert_int_equal(plan_sweep_doubling(10000, 400000, p, 32), 7);
    assert_int_equal(p[5], 320000);
    assert_int_equal(p[6], 400000);
    assert_int_equal(plan_sweep_doubling(5, 5, p, 32), 1);
    assert_int_equal(plan_sweep_max_points(5, 5, 5.0, 0), 1);   /* one point: nothing to bisect */
}

/* iodepth, numjobs and agents are searched too; their bisection also ends
 * when the bracket's ends are neighbours, so the most points are fewer */
static void test_plan_sweep_integer_search(void **state)
{
    struct sweep_text t = { .dim = "iodepth", .start = "1", .max = "64" };
    struct sweep_spec s;
    char why[256];
    (void)state;
    assert_int_equal(plan_sweep_parse(&t, &s, why, sizeof why), 0);
    assert_int_equal(s.dim, SWEEP_IODEPTH);
    /* 1..64 doubles 7 times; the widest bracket 32..64 bisects 5 times to
     * neighbours, fewer than the 6 of 5% */
    assert_int_equal(s.npoints, 12);
    strcpy(t.dim, "agents");
    strcpy(t.max, "4");
    assert_int_equal(plan_sweep_parse(&t, &s, why, sizeof why), 0);
    assert_int_equal(s.npoints, 3 + 1);            /* 1 2 4, then 3 */
    assert_int_equal(plan_sweep_max_points(1, 50, 5.0, 1), 7 + 5);   /* 32..50: 18 wide */
    assert_int_equal(plan_sweep_max_points(1, 50, 5.0, 0), 7 + 6);
}

static void test_plan_sweep_values_and_units(void **state)
{
    struct sweep_text t = { .dim = "rate", .values = "1m,2m", .valid = "achieved:90,cv:10%" };
    struct sweep_spec s;
    char why[256];
    (void)state;
    assert_int_equal(plan_sweep_parse(&t, &s, why, sizeof why), 0);
    assert_int_equal(s.nvalues, 2);
    assert_int_equal(s.values[1], 2u << 20);          /* rate: sizes, k = 1024 */
    assert_true(s.achieved_pct == 90.0 && s.cv_pct == 10.0 && s.agent_pct == 75.0);
    strcpy(t.dim, "agents");
    strcpy(t.values, "1,2,4");
    t.valid[0] = '\0';
    assert_int_equal(plan_sweep_parse(&t, &s, why, sizeof why), 0);
    assert_int_equal(s.npoints, 3);
}

static void test_plan_sweep_bad_input_says_why(void **state)
{
    static const struct { struct sweep_text t; const char *want; } cases[] = {
        { { .dim = "depth", .values = "1" }, "sweep='depth': want rate_iops" },
        { { .dim = "iodepth", .start = "1", .max = "5000" }, "sweep_max: '5000' is not a positive count of at most 4096" },
        { { .dim = "rate_iops", .start = "10k" }, "needs sweep_values=, or sweep_start= and sweep_max=" },
        { { .dim = "rate_iops", .start = "10k", .max = "1k" }, "sweep_max (1k) is below sweep_start (10k)" },
        { { .dim = "rate_iops", .values = "1k,0" }, "sweep_values: '0' is not a positive" },
        { { .dim = "rate_iops", .values = "1k", .start = "1" }, "exclude each other" },
        { { .dim = "rate_iops", .values = "1k", .slo = "p99<5ms" }, "is not pNN<=DURATION" },
        { { .dim = "rate_iops", .values = "1k", .slo = "p101<=5ms" }, "is not a percentile" },
        { { .dim = "rate_iops", .values = "1k", .valid = "spread:5" }, "unknown rule 'spread'" },
        { { .dim = "rate_iops", .values = "1k", .resolution = "0" }, "sweep_resolution: '0'" },
        { { .dim = "rate_iops", .start = "1", .max = "1g", .resolution = "0.01" }, "at most 32" },
    };
    char why[256];
    struct sweep_spec s;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why[0] = '\0';
        assert_int_equal(plan_sweep_parse(&cases[i].t, &s, why, sizeof why), -22);
        if (!strstr(why, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].want);
    }
}

static void test_plan_sweep_count_units(void **state)
{
    uint64_t n;
    (void)state;
    assert_int_equal(units_parse_count("50k", &n), 0);
    assert_int_equal(n, 50000);
    assert_int_equal(units_parse_count("1.5M", &n), 0);
    assert_int_equal(n, 1500000);
    assert_int_not_equal(units_parse_count("5x", &n), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_sweep_defaults_and_search),
        cmocka_unit_test(test_plan_sweep_doubling_ends_at_max),
        cmocka_unit_test(test_plan_sweep_integer_search),
        cmocka_unit_test(test_plan_sweep_values_and_units),
        cmocka_unit_test(test_plan_sweep_bad_input_says_why),
        cmocka_unit_test(test_plan_sweep_count_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
