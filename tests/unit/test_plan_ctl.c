/* Unit tests for common/plan_ctl.c (fio's phase control keys) and
 * coordinator/run/phase_ctl.c (the coordinator's decisions): every key's
 * values and errors as users see them, wait_for's phases, the steady-state
 * criteria on known series, and when exitall and ss end a phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "common/plan_ctl.h"
#include "common/plan_parse.h"
#include "common/stats.h"
#include "agent/latctl.h"
#include "coordinator/run/phase_ctl.h"
#include "coordinator/result/result.h"

static void parse_ok(const char *text, struct plan *p)
{
    char err[512] = "";
    if (plan_parse_string("t.fio", text, p, err, sizeof err))
        fail_msg("parse failed: %s", err);
}

static void parse_err(const char *text, const char *want)
{
    struct plan p;
    char err[512] = "";
    assert_int_not_equal(plan_parse_string("t.fio", text, &p, err, sizeof err), 0);
    assert_string_equal(err, want);
}

static void test_plan_ctl_keys(void **state)
{
    struct plan p;
    const struct job_spec *j;
    (void)state;

    parse_ok("[a]\nsize=1m\nexitall\nexit_what=stonewall\nss=iops_slope:0.1%\nss_dur=30\n"
             "ss_ramp=5s\n", &p);
    j = &p.phases[0].jobs[0];
    assert_int_equal(j->exitall, 1);
    assert_int_equal(j->exit_what, PLAN_EXIT_STONEWALL);
    assert_int_equal(j->ss, PLAN_SS_IOPS_SLOPE);
    assert_true(fabs(j->ss_limit - 0.1) < 1e-12);
    assert_int_equal(j->ss_pct, 1);
    assert_int_equal(j->ss_dur_ns, 30000000000ull);
    assert_int_equal(j->ss_ramp_ns, 5000000000ull);
    plan_free(&p);
    /* fio's long spellings, a bandwidth limit as a size, exitall=0 */
    parse_ok("[a]\nsize=1m\nsteadystate=bw:1m\nsteadystate_duration=10s\n"
             "steadystate_ramp_time=2\nexitall=0\nexit_what=all\n", &p);
    j = &p.phases[0].jobs[0];
    assert_int_equal(j->exitall, 0);
    assert_int_equal(j->exit_what, PLAN_EXIT_ALL);
    assert_int_equal(j->ss, PLAN_SS_BW);
    assert_true(j->ss_limit == 1048576.0);
    assert_int_equal(j->ss_pct, 0);
    assert_int_equal(j->ss_dur_ns, 10000000000ull);
    assert_int_equal(j->ss_ramp_ns, 2000000000ull);
    plan_free(&p);

    parse_err("[a]\nsize=1m\nexit_what=some\n",
              "t.fio:3: bad value for 'exit_what': 'some' (want group, stonewall or all)");
    parse_err("[a]\nsize=1m\nss=iops\n",
              "t.fio:3: bad value for 'ss': 'iops' (want CRITERION:LIMIT, CRITERION one of iops, "
              "iops_slope, bw, bw_slope, e.g. iops_slope:0.1%)");
    parse_err("[a]\nsize=1m\nss=iops:120%\n",
              "t.fio:3: bad value for 'ss': 'iops:120%' (bad limit '120%' (want a number >= 0, or "
              "0%..100%))");
    parse_err("[a]\nsize=1m\nexitall=2\n",
              "t.fio:3: bad value for 'exitall': '2' (a flag: give it alone, or 0 or 1)");
    assert_string_equal(plan_ss_name(PLAN_SS_BW_SLOPE), "bw_slope");
    assert_string_equal(plan_exit_what_name(PLAN_EXIT_GROUP), "group");
    assert_null(plan_ss_name((enum plan_ss)9));
}

static void test_plan_ctl_wait_for_phases(void **state)
{
    struct plan p;
    (void)state;

    /* c waits for a, in the phase being built: c starts phase 2; d waits
     * for a too, already done by then: it joins c */
    parse_ok("[global]\nsize=1m\n[a]\n[b]\n[c]\nwait_for=a\n[d]\nwait_for=a\n", &p);
    assert_int_equal(p.nphases, 2);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_string_equal(p.phases[1].name, "c");
    assert_int_equal(p.phases[1].njobs, 2);
    assert_string_equal(p.phases[1].jobs[1].name, "d");
    plan_free(&p);
    parse_err("[global]\nsize=1m\n[a]\nwait_for=b\n[b]\n",
              "t.fio:3: job 'a': wait_for=b: no earlier job of that name (the waitee must come first)");
    parse_err("[global]\nsize=1m\n[a]\n[a]\n[c]\nwait_for=a\n",
              "t.fio:5: job 'c': wait_for=a: more than one earlier job has that name (a waitee's "
              "name must be unique)");
}

static void test_phase_ctl_criterion(void **state)
{
    double flat[] = { 100, 100, 100, 100 }, ramp[] = { 100, 110, 120, 130 }, mean;
    double dev[] = { 90, 110, 100, 100 };
    (void)state;

    assert_true(phase_ctl_criterion(PLAN_SS_IOPS, flat, 4, 1.0, &mean) == 0.0);
    assert_true(mean == 100.0);
    assert_true(phase_ctl_criterion(PLAN_SS_IOPS, dev, 4, 1.0, &mean) == 10.0);
    assert_true(fabs(phase_ctl_criterion(PLAN_SS_IOPS_SLOPE, ramp, 4, 1.0, &mean) - 10.0) < 1e-9);
    assert_true(mean == 115.0);
    /* half-second samples: the slope is per second */
    assert_true(fabs(phase_ctl_criterion(PLAN_SS_BW_SLOPE, ramp, 4, 0.5, &mean) - 20.0) < 1e-9);
    assert_true(phase_ctl_criterion(PLAN_SS_IOPS_SLOPE, flat, 4, 1.0, &mean) == 0.0);
}

/* A phase of nint 1-s intervals with ops[k] reads each. */
static void fake_phase(struct phase_result *pr, const uint64_t *ops, uint32_t nint, uint32_t nagents)
{
    memset(pr, 0, sizeof *pr);
    pr->interval_ms = 1000;
    pr->intervals = calloc(nint, sizeof *pr->intervals);
    pr->nintervals = nint;
    for (uint32_t k = 0; k < nint; k++) {
        pr->intervals[k].count[OP_READ].ops = ops[k];
        pr->intervals[k].count[OP_READ].bytes = ops[k] * 4096;
    }
    pr->agents = calloc(nagents, sizeof *pr->agents);
    for (uint32_t a = 0; a < nagents; a++)
        pr->agents[a].participating = a != 1;   /* agent 1 idles (agents=) */
}

static void test_phase_ctl_steady_state_ends_once(void **state)
{
    uint64_t ops[] = { 10, 500, 1000, 1010, 995, 1000, 1002 };
    struct phase_result pr;
    struct job_spec j;
    struct phase ph = { .name = "s", .njobs = 1, .jobs = &j };
    int first = -1;
    (void)state;

    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "s");
    j.ss = PLAN_SS_IOPS;
    j.ss_limit = 2;
    j.ss_pct = 1;                  /* within 2% of the mean */
    j.ss_dur_ns = 3000000000ull;   /* 3 intervals */
    j.ss_ramp_ns = 1000000000ull;  /* from interval 1 on */
    fake_phase(&pr, ops, 7, 3);
    phase_ctl_begin(&pr, &ph);
    for (uint32_t k = 0; k < 7; k++)
        if (phase_ctl_interval(&pr, k)) {
            assert_int_equal(first, -1);    /* once */
            first = (int)k;
        }
    /* [500,1000,1010] and [1000,1010,995]? no: 500 is off; k=4 holds */
    assert_int_equal(first, 4);
    assert_int_equal(pr.ctl.ss_attained, 1);
    assert_true(fabs(pr.ctl.ss_at_s - 5.0) < 1e-9);
    assert_true(fabs(pr.ctl.ss_mean - (1000 + 1010 + 995) / 3.0) < 1e-9);
    assert_string_equal(pr.ctl.why, "steady state (iops:2%) at 5.0 s");
    /* exitall is not set: an agent's phase-done changes nothing */
    assert_int_equal(phase_ctl_agent_done(&pr, &ph, 0), 0);
    free(pr.intervals);
    free(pr.agents);
}

static void test_phase_ctl_exitall_first_participant(void **state)
{
    uint64_t ops[] = { 5 };
    struct phase_result pr;
    struct job_spec j[2];
    struct phase ph = { .name = "a", .njobs = 2, .jobs = j };
    (void)state;

    job_spec_default(&j[0]);
    job_spec_default(&j[1]);
    snprintf(j[1].name, sizeof j[1].name, "short");
    j[1].exitall = 1;
    j[1].exit_what = PLAN_EXIT_ALL;
    fake_phase(&pr, ops, 1, 3);
    phase_ctl_begin(&pr, &ph);
    assert_int_equal(phase_ctl_agent_done(&pr, &ph, 1), 0);   /* idle agent: not a finish */
    assert_int_equal(phase_ctl_agent_done(&pr, &ph, 2), 1);
    assert_string_equal(pr.ctl.why, "exitall (job 'short'): agent 2 finished first");
    assert_int_equal(phase_ctl_agent_done(&pr, &ph, 0), 0);   /* sent once */
    pr.ran = 1;
    assert_int_equal(phase_ctl_end_run(&pr, &ph), 1);
    j[1].exit_what = PLAN_EXIT_GROUP;
    assert_int_equal(phase_ctl_end_run(&pr, &ph), 0);
    assert_int_equal(phase_ctl_interval(&pr, 0), 0);          /* no ss */
    /* exitall on both jobs (fio's exitall in [global]): which one ended is not known */
    j[0].exitall = 1;
    phase_ctl_begin(&pr, &ph);
    assert_int_equal(phase_ctl_agent_done(&pr, &ph, 0), 1);
    assert_string_equal(pr.ctl.why, "exitall (any of 2 jobs): agent 0 finished first");
    free(pr.intervals);
    free(pr.agents);
}

/* One window of n ops all at lat_ns. */
static int feed(struct latctl *c, uint64_t lat_ns, uint64_t iv_ns)
{
    static struct op_set s;
    op_set_init(&s);
    for (int i = 0; i < 100; i++)
        hist_record(&s.op[OP_READ].lat, lat_ns);
    s.op[OP_READ].ops = 100;
    return latctl_interval(c, &s, iv_ns);
}

/* A device whose latency is 10 us x depth: with a 75-us target the search
 * doubles 1, 2, 4, 8 (80 us: missed), bisects 6, 7 (70 us: met): 7. */
static void test_latctl_search(void **state)
{
    struct latctl c;
    uint32_t tried[16], n = 0;
    (void)state;

    latctl_init(&c, 75000, 99.0, 200000000ull, 64);
    tried[n++] = c.cur;
    while (!c.done && n < 16) {
        /* two 100-ms intervals make a window: the first changes nothing */
        assert_int_equal(feed(&c, 10000ull * c.cur, 100000000ull), 0);
        assert_int_equal(feed(&c, 10000ull * c.cur, 100000000ull), 1);
        tried[n++] = c.cur;
    }
    assert_true(c.done);
    assert_int_equal(c.found, 7);
    assert_int_equal(n, 7);
    assert_int_equal(tried[0], 1);
    assert_int_equal(tried[1], 2);
    assert_int_equal(tried[2], 4);
    assert_int_equal(tried[3], 8);
    assert_int_equal(tried[4], 6);
    assert_int_equal(tried[5], 7);
    assert_int_equal(tried[6], 7);
    assert_int_equal(feed(&c, 1, 200000000ull), 0);     /* over */

    /* met at the job's iodepth: that depth; missed at 1: 0, depth 1 kept */
    latctl_init(&c, 75000, 100.0, 1, 4);
    while (!c.done)
        feed(&c, 1000, 1);
    assert_int_equal(c.found, 4);
    latctl_init(&c, 75000, 100.0, 1, 4);
    assert_int_equal(feed(&c, 90000, 1), 1);
    assert_true(c.done);
    assert_int_equal(c.found, 0);
    assert_int_equal(c.cur, 1);
}

static void test_plan_ctl_latency_keys(void **state)
{
    struct plan p;
    const struct job_spec *j;
    (void)state;

    parse_ok("[a]\nsize=1m\niodepth=8\nlatency_target=500\nlatency_window=2s\n"
             "latency_percentile=99.5\n", &p);
    j = &p.phases[0].jobs[0];
    assert_int_equal(j->latency_target_us, 500);        /* a bare number is us, as fio */
    assert_int_equal(j->latency_window_us, 2000000);
    assert_int_equal(j->latency_pct_milli, 99500);
    plan_free(&p);
    parse_err("[a]\nsize=1m\nlatency_percentile=0\n",
              "t.fio:3: bad value for 'latency_percentile': '0' (want a percentage above 0 up to 100)");
    parse_err("[a]\nsize=1m\nlatency_target=2h\n",
              "t.fio:3: bad value for 'latency_target': '2h' (want a duration from 1us to 71m (a number "
              "is microseconds))");
}

/* phase_ctl_json, then phase_ctl_load: the same; a bad object is refused
 * naming the key. */
static void test_phase_ctl_json_round_trip(void **state)
{
    uint64_t ops[] = { 1 };
    struct phase_result pr, back;
    char err[256];
    json_t *o, *bad;
    (void)state;

    fake_phase(&pr, ops, 1, 3);
    pr.ctl.ended_early = 1;
    snprintf(pr.ctl.why, sizeof pr.ctl.why, "steady state (bw_slope:2%%) at 4.0 s");
    pr.ctl.ss = PLAN_SS_BW_SLOPE;
    pr.ctl.ss_limit = 2;
    pr.ctl.ss_pct = 1;
    pr.ctl.ss_dur_ns = 3000000000ull;
    pr.ctl.ss_ramp_ns = 500000000ull;
    pr.ctl.ss_attained = 1;
    pr.ctl.ss_value = 1.5;
    pr.ctl.ss_mean = 1e6;
    pr.ctl.ss_at_s = 4;
    pr.ctl.lat_target_us = 500;
    pr.ctl.lat_window_us = 100000;
    pr.ctl.lat_pct = 99.5;
    pr.agents[0].lat_depth = 8;
    pr.agents[2].lat_unmet = 1;
    o = phase_ctl_json(&pr, 3);
    assert_non_null(o);
    fake_phase(&back, ops, 1, 3);
    assert_int_equal(phase_ctl_load(&back, 3, o, err, sizeof err), 0);
    assert_memory_equal(&back.ctl, &pr.ctl, sizeof pr.ctl);
    assert_int_equal(back.agents[0].lat_depth, 8);
    assert_int_equal(back.agents[2].lat_unmet, 1);
    /* agent 1 takes no part: the depth list has two entries */
    assert_int_equal(json_array_size(json_object_get(json_object_get(o, "latency_target"), "depth")), 2);

    bad = json_deep_copy(o);
    json_object_set_new(json_object_get(bad, "steadystate"), "ss", json_string("iops_curve"));
    assert_int_equal(phase_ctl_load(&back, 3, bad, err, sizeof err), -EINVAL);
    assert_string_equal(err, "steadystate.ss: want iops, iops_slope, bw or bw_slope");
    json_decref(bad);
    bad = json_deep_copy(o);
    json_array_append_new(json_object_get(json_object_get(bad, "latency_target"), "depth"), json_integer(1));
    json_array_append_new(json_object_get(json_object_get(bad, "latency_target"), "depth"), json_integer(1));
    assert_int_equal(phase_ctl_load(&back, 3, bad, err, sizeof err), -EINVAL);
    assert_string_equal(err, "latency_target.depth: want an array of at most 3 depths");
    json_decref(bad);
    bad = json_deep_copy(o);
    json_object_set_new(bad, "ended_early", json_integer(1));
    assert_int_equal(phase_ctl_load(&back, 3, bad, err, sizeof err), -EINVAL);
    assert_string_equal(err, "ended_early: want true or false");
    json_decref(bad);
    json_decref(o);
    free(pr.intervals);
    free(pr.agents);
    free(back.intervals);
    free(back.agents);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_ctl_keys),
        cmocka_unit_test(test_plan_ctl_wait_for_phases),
        cmocka_unit_test(test_phase_ctl_criterion),
        cmocka_unit_test(test_phase_ctl_steady_state_ends_once),
        cmocka_unit_test(test_phase_ctl_exitall_first_participant),
        cmocka_unit_test(test_latctl_search),
        cmocka_unit_test(test_plan_ctl_latency_keys),
        cmocka_unit_test(test_phase_ctl_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
