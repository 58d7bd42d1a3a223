/* test_sched_debt: what an open-loop phase asked (per-thread rates x
 * threads x the agents running each job, both directions of a list), the
 * JSON's debt sums and its round trip, and the text line only when the
 * fleet fell short. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu_seconds.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "coordinator/result/sched_debt.h"

/* Phase 0: job a at 1000 IOPS x 2 threads on agents 0-1 and job b at 300
 * reads + 100 writes per thread on agent 2 only; phase 1: closed loop.
 * 3 agents, each 1 s, agent a completing ops[a] reads. */
static void build(struct run_result *r, struct plan *p, const uint64_t *ops)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "a");
    j.size = 1 << 20;
    j.numjobs = 2;
    j.rate_iops = 1000;
    snprintf(j.agents, sizeof j.agents, "0-1");
    plan_add_job(p, &j);
    snprintf(j.name, sizeof j.name, "b");
    j.numjobs = 1;
    j.rate_iops = 300;
    j.rate_w_iops = 100;
    j.rate_per_dir = 1;
    snprintf(j.agents, sizeof j.agents, "2");
    plan_add_job(p, &j);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "c");
    j.size = 1 << 20;
    j.stonewall = 1;
    plan_add_job(p, &j);
    result_init(r, p, 3, 1000);
    for (uint32_t a = 0; a < 3; a++) {
        struct agent_phase ap;
        struct op_set *s = xmalloc(sizeof *s);
        memset(&ap, 0, sizeof ap);
        op_set_init(s);
        s->op[OP_READ].ops = ops[a];
        ap.duration_ns = 1000000000ull;
        ap.cores = 2;
        ap.cpu_user_s = 0.5;
        ap.late_ops = a == 1 ? 700 : 0;
        ap.late_ns = a == 1 ? 350000000ull : 0;
        result_set_agent_phase(r, 0, a, &ap, s);
        free(s);
    }
    result_phase_finish(r, 0);
    r->phases[0].ran = 1;
}

static void test_sched_debt_asked_from_the_plan(void **state)
{
    static const uint64_t ops[3] = { 2000, 2000, 400 };
    struct run_result r;
    struct plan p;
    (void)state;
    build(&r, &p, ops);
    /* 1000 x 2 threads x 2 agents + (300 + 100) x 1 thread x 1 agent */
    assert_float_equal(r.phases[0].asked_iops, 4400, 1e-9);
    assert_float_equal(r.phases[0].asked_bps, 0, 1e-9);
    assert_float_equal(r.phases[1].asked_iops, 0, 1e-9);   /* closed loop */
    assert_null(sched_debt_phase_json(&r, 1));
    assert_null(sched_debt_agent_json(&r, 1, 0));
    result_free(&r);
    plan_free(&p);
}

static void test_sched_debt_json_sums_and_loads_back(void **state)
{
    static const uint64_t ops[3] = { 2000, 1300, 400 };
    struct run_result r;
    struct plan p;
    struct phase_result back;
    struct agent_phase ab;
    char why[128];
    json_t *o, *a1;
    (void)state;
    build(&r, &p, ops);
    o = sched_debt_phase_json(&r, 0);
    assert_non_null(o);
    assert_float_equal(json_number_value(json_object_get(o, "asked_iops")), 4400, 1e-9);
    assert_float_equal(json_number_value(json_object_get(o, "achieved_pct")), 100.0 * 3700 / 4400, 1e-6);
    assert_int_equal(json_integer_value(json_object_get(o, "late_ops")), 700);
    assert_int_equal(json_integer_value(json_object_get(o, "late_ns")), 350000000);
    a1 = sched_debt_agent_json(&r, 0, 1);
    assert_float_equal(json_number_value(json_object_get(a1, "cpu_pct")), 25.0, 1e-9);   /* 0.5 s of 2 cores x 1 s */
    memset(&back, 0, sizeof back);
    memset(&ab, 0, sizeof ab);
    assert_int_equal(sched_debt_phase_load(o, &back, why, sizeof why), 0);
    assert_float_equal(back.asked_iops, 4400, 1e-9);
    assert_int_equal(sched_debt_agent_load(a1, &ab, why, sizeof why), 0);
    assert_int_equal(ab.late_ops, 700);
    assert_int_equal(ab.late_ns, 350000000);
    /* bad input names the field */
    json_object_set_new(o, "asked_iops", json_string("lots"));
    assert_int_equal(sched_debt_phase_load(o, &back, why, sizeof why), -EINVAL);
    assert_non_null(strstr(why, "schedule_debt.asked_iops"));
    json_decref(o);
    json_decref(a1);
    result_free(&r);
    plan_free(&p);
}

static void test_sched_debt_text_only_when_short(void **state)
{
    static const uint64_t full[3] = { 2000, 2000, 400 }, shortfall[3] = { 2000, 1300, 400 };
    struct run_result r;
    struct plan p;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    (void)state;
    build(&r, &p, full);
    f = open_memstream(&buf, &len);
    sched_debt_text(f, &r, 0);
    fclose(f);
    assert_string_equal(buf, "");             /* 100% of what it asked */
    free(buf);
    result_free(&r);
    plan_free(&p);

    build(&r, &p, shortfall);
    f = open_memstream(&buf, &len);
    sched_debt_text(f, &r, 0);
    fclose(f);
    assert_non_null(strstr(buf, "  achieved 84.1% of the 4.4k IOPS asked; schedule debt: agent 0 0 ops late at 25% "
                                "client CPU; agent 1 700 ops late (350ms in all) at 25% client CPU"));
    free(buf);
    result_free(&r);
    plan_free(&p);
}

/* A CPU time the agent sends reads back from a result's 15 digits as the
 * same double, so the cpu_pct a re-render derives is the run's: for every
 * microsecond count here (sec + usec / 1e6 fails this for ~8% of them). */
static void test_cpu_seconds_read_back_exactly(void **state)
{
    uint32_t x = 12345, bad = 0;
    (void)state;

    for (int i = 0; i < 200000; i++) {
        struct timeval a = { 0, 0 }, b;
        char text[64];
        double v;

        x = x * 1103515245u + 12345u;
        b.tv_sec = (time_t)(x % 10);     /* a phase's CPU seconds */
        x = x * 1103515245u + 12345u;
        b.tv_usec = (suseconds_t)(x % 1000000);
        a.tv_usec = (suseconds_t)(i % 1000);
        v = cpu_seconds_between(&a, &b);
        snprintf(text, sizeof text, "%.15g", v);
        bad += strtod(text, NULL) != v;
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_seconds_read_back_exactly),
        cmocka_unit_test(test_sched_debt_asked_from_the_plan),
        cmocka_unit_test(test_sched_debt_json_sums_and_loads_back),
        cmocka_unit_test(test_sched_debt_text_only_when_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
