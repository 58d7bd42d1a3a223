/* test_fairness: Jain's index and shares from known per-agent numbers, on
 * raw arrays and on a hand-built run_result (phase and interval). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/fairness.h"

static void test_fairness_jain_known_values(void **state)
{
    double even[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 }, half[2] = { 1, 3 }, zero[3] = { 0, 0, 0 };

    (void)state;
    assert_float_equal(fairness_jain(even, 4), 1.0, 1e-12);
    assert_float_equal(fairness_jain(one, 4), 0.25, 1e-12);           /* 1/n */
    assert_float_equal(fairness_jain(half, 2), 16.0 / (2 * 10), 1e-12); /* (1+3)^2 / 2(1+9) = 0.8 */
    assert_float_equal(fairness_jain(zero, 3), 1.0, 1e-12);
    assert_float_equal(fairness_jain(NULL, 0), 1.0, 1e-12);
}

static void test_fairness_shares_sum_to_one(void **state)
{
    double x[3] = { 1, 3, 6 }, s[3];

    (void)state;
    fairness_shares(x, 3, s);
    assert_float_equal(s[0], 0.1, 1e-12);
    assert_float_equal(s[1], 0.3, 1e-12);
    assert_float_equal(s[2], 0.6, 1e-12);
}

/* 3 agents, one phase: agent ops 100/200/300 over 1 s each; agent 2 lost
 * in the second run of the check. */
static void build(struct run_result *r, struct plan *p)
{
    struct job_spec j;
    static const uint64_t ops[3] = { 100, 200, 300 };

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "p");
    j.size = 1 << 20;
    plan_add_job(p, &j);
    result_init(r, p, 3, 1000);
    for (uint32_t a = 0; a < 3; a++) {
        struct agent_phase *ap = xcalloc(1, sizeof(*ap));
        struct op_set *s = xmalloc(sizeof(*s));

        op_set_init(s);
        s->op[OP_READ].ops = ops[a];
        ap->duration_ns = 1000000000ull;
        result_set_agent_phase(r, 0, a, ap, s);
        op_set_init(s);
        s->op[OP_READ].ops = a == 0 ? 10 : 0;   /* interval 0: agent 0 alone */
        result_add_interval(r, 0, a, 0, s);
        free(s);
        free(ap);
    }
    result_phase_finish(r, 0);
}

static void test_fairness_phase_from_result(void **state)
{
    struct run_result r;
    struct plan p;
    struct fairness f;
    double share[3], j;

    (void)state;
    build(&r, &p);
    fairness_phase(&r, 0, share, &f);
    /* (600)^2 / (3 * (100^2+200^2+300^2)) = 360000 / 420000 */
    assert_float_equal(f.jain, 360000.0 / 420000.0, 1e-9);
    assert_int_equal(f.ncounted, 3);
    assert_int_equal(f.slowest, 0);
    assert_int_equal(f.fastest, 2);
    assert_float_equal(f.slowest_iops, 100, 1e-9);
    assert_float_equal(f.fastest_iops, 300, 1e-9);
    assert_float_equal(share[0], 1.0 / 6, 1e-12);
    assert_float_equal(share[2], 0.5, 1e-12);

    j = fairness_interval(&r, 0, 0, share);
    assert_float_equal(j, 1.0 / 3, 1e-12);
    assert_float_equal(share[0], 1.0, 1e-12);
    assert_float_equal(share[1], 0.0, 1e-12);

    r.agents[2].lost = 1;     /* a lost agent is left out of the index */
    fairness_phase(&r, 0, share, &f);
    assert_int_equal(f.ncounted, 2);
    assert_float_equal(f.jain, 90000.0 / (2 * 50000.0), 1e-9);
    result_free(&r);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fairness_jain_known_values),
        cmocka_unit_test(test_fairness_shares_sum_to_one),
        cmocka_unit_test(test_fairness_phase_from_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
