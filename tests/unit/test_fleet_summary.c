/* test_fleet_summary: nearest-rank percentiles of known inputs (ties, one
 * value, none), the fleet view's switch, and a hand-built run_result's
 * agents classified (ran, lost, idle, no result) and sorted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/fleet_summary.h"

static void test_fleet_percentile_nearest_rank(void **state)
{
    double v[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    double w[7] = { 10, 20, 30, 40, 50, 60, 70 };

    (void)state;
    /* rank ceil(p/100 * n) */
    assert_float_equal(fleet_percentile(v, 10, 0), 1, 0);
    assert_float_equal(fleet_percentile(v, 10, 10), 1, 0);      /* rank 1 */
    assert_float_equal(fleet_percentile(v, 10, 11), 2, 0);      /* rank ceil(1.1) = 2 */
    assert_float_equal(fleet_percentile(v, 10, 50), 5, 0);      /* lower middle */
    assert_float_equal(fleet_percentile(v, 10, 90), 9, 0);
    assert_float_equal(fleet_percentile(v, 10, 100), 10, 0);
    assert_float_equal(fleet_percentile(w, 7, 10), 10, 0);      /* ceil(0.7) = 1 */
    assert_float_equal(fleet_percentile(w, 7, 50), 40, 0);      /* ceil(3.5) = 4 */
    assert_float_equal(fleet_percentile(w, 7, 90), 70, 0);      /* ceil(6.3) = 7 */
    assert_float_equal(fleet_percentile(NULL, 0, 50), 0, 0);
}

static void test_fleet_dist_ties_and_one(void **state)
{
    double ties[5] = { 3, 3, 3, 8, 8 }, one[1] = { 42 };
    struct fleet_dist d;

    (void)state;
    fleet_dist_of(ties, 5, &d);
    assert_float_equal(d.min, 3, 0);
    assert_float_equal(d.p10, 3, 0);
    assert_float_equal(d.median, 3, 0);     /* rank 3 */
    assert_float_equal(d.p90, 8, 0);        /* rank 5 */
    assert_float_equal(d.max, 8, 0);
    fleet_dist_of(one, 1, &d);
    assert_float_equal(d.min, 42, 0);
    assert_float_equal(d.p10, 42, 0);
    assert_float_equal(d.median, 42, 0);
    assert_float_equal(d.p90, 42, 0);
    assert_float_equal(d.max, 42, 0);
    fleet_dist_of(NULL, 0, &d);
    assert_float_equal(d.max, 0, 0);
}

static void test_fleet_use_view_threshold(void **state)
{
    (void)state;
    assert_false(fleet_use_view(16, 0));           /* default 16: rows */
    assert_true(fleet_use_view(17, 0));
    assert_true(fleet_use_view(10, 8));
    assert_false(fleet_use_view(8, 8));
    assert_false(fleet_use_view(1000, FLEET_ROWS_ALL));
}

/* n agents, one phase; agent a did ops[a] reads of 4 KiB over 1 s. */
static void build(struct run_result *r, struct plan *p, uint32_t n, const uint64_t *ops)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "p");
    j.size = 1 << 20;
    plan_add_job(p, &j);
    result_init(r, p, n, 1000);
    for (uint32_t a = 0; a < n; a++) {
        struct agent_phase *ap = xcalloc(1, sizeof(*ap));
        struct op_set *s = xmalloc(sizeof(*s));

        op_set_init(s);
        s->op[OP_READ].ops = ops[a];
        s->op[OP_READ].bytes = ops[a] * 4096;
        ap->duration_ns = 1000000000ull;
        result_set_agent_phase(r, 0, a, ap, s);
        free(s);
        free(ap);
    }
    result_phase_finish(r, 0);
}

static void test_fleet_phase_classifies_and_sorts(void **state)
{
    static const uint64_t ops[14] = { 50, 10, 30, 30, 90, 70, 20, 60, 40, 80, 100, 5, 1, 2 };
    struct run_result r;
    struct plan p;
    struct fleet_phase f;

    (void)state;
    build(&r, &p, 14, ops);
    r.agents[11].lost = 1;                      /* lost before its phase-done */
    r.phases[0].agents[11].salvaged = 1;
    r.phases[0].agents[12].participating = 0;   /* idle */
    r.phases[0].agents[13].done = 0;            /* no result */
    fleet_phase_init(&f, &r, 0);
    assert_int_equal(f.count[FLEET_RAN], 11);
    assert_int_equal(f.count[FLEET_LOST], 1);
    assert_int_equal(f.count[FLEET_IDLE], 1);
    assert_int_equal(f.count[FLEET_NO_RESULT], 1);
    assert_int_equal(f.state[11], FLEET_LOST);
    assert_int_equal(f.state[12], FLEET_IDLE);
    assert_int_equal(f.state[13], FLEET_NO_RESULT);
    /* ascending; the tie 30/30 by index: 2 before 3 */
    static const uint32_t order[11] = { 1, 6, 2, 3, 8, 0, 7, 5, 9, 4, 10 };
    for (uint32_t i = 0; i < 11; i++)
        assert_int_equal(f.ran[i].agent, order[i]);
    /* 11 values 10 20 30 30 40 50 60 70 80 90 100: ranks 1, 2, 6, 10, 11 */
    assert_float_equal(f.iops.min, 10, 1e-9);
    assert_float_equal(f.iops.p10, 20, 1e-9);
    assert_float_equal(f.iops.median, 50, 1e-9);
    assert_float_equal(f.iops.p90, 90, 1e-9);
    assert_float_equal(f.iops.max, 100, 1e-9);
    assert_float_equal(f.bw.median, 50 * 4096.0, 1e-6);
    assert_int_equal(fleet_edge_slow(&f), 5);
    assert_int_equal(fleet_edge_fast(&f), 5);
    fleet_phase_free(&f);
    result_free(&r);
    plan_free(&p);
}

static void test_fleet_phase_all_idle_and_few(void **state)
{
    static const uint64_t ops[3] = { 7, 8, 9 };
    struct run_result r;
    struct plan p;
    struct fleet_phase f;

    (void)state;
    build(&r, &p, 3, ops);
    fleet_phase_init(&f, &r, 0);                /* 3 ran: no overlap of the edges */
    assert_int_equal(fleet_edge_slow(&f), 3);
    assert_int_equal(fleet_edge_fast(&f), 0);
    assert_float_equal(f.iops.median, 8, 1e-9);
    fleet_phase_free(&f);
    for (uint32_t a = 0; a < 3; a++)
        r.phases[0].agents[a].participating = 0;
    fleet_phase_init(&f, &r, 0);
    assert_int_equal(f.count[FLEET_RAN], 0);
    assert_int_equal(f.count[FLEET_IDLE], 3);
    assert_float_equal(f.iops.max, 0, 0);
    assert_int_equal(fleet_edge_slow(&f), 0);
    assert_int_equal(fleet_edge_fast(&f), 0);
    fleet_phase_free(&f);
    result_free(&r);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fleet_percentile_nearest_rank),
        cmocka_unit_test(test_fleet_dist_ties_and_one),
        cmocka_unit_test(test_fleet_use_view_threshold),
        cmocka_unit_test(test_fleet_phase_classifies_and_sorts),
        cmocka_unit_test(test_fleet_phase_all_idle_and_few),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
