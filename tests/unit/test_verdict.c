/* test_verdict: phase and run verdicts from hand-built run_results (every
 * reason of docs/running.md), exit statuses, the start skew over agents
 * that issued ops, stalls as "no completion at all", and fairness leaving
 * out agents that agents= left idle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "coordinator/coherence_report.h"
#include "coordinator/fairness.h"
#include "coordinator/journal.h"
#include "coordinator/verdict.h"

#define NA 3

/* One phase "p" on NA agents (agents= spec for its job), started. */
static void build(struct run_result *r, struct plan *p, const char *agents, uint64_t threshold,
                  double pct)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "p");
    snprintf(j.agents, sizeof(j.agents), "%s", agents);
    j.size = 1 << 20;
    j.error_threshold = threshold;
    j.error_threshold_pct = pct;
    plan_add_job(p, &j);
    result_init(r, p, NA, 1000);
    for (uint32_t a = 0; a < NA; a++)
        snprintf(r->agents[a].addr, sizeof(r->agents[a].addr), "10.0.0.%u:4000", a + 1);
    r->phases[0].ran = 1;
}

/* Agent a's phase-done: ops writes of which errors failed, started at start_ns. */
static void done(struct run_result *r, uint32_t a, uint64_t ops, uint64_t errors, uint64_t start_ns)
{
    struct agent_phase *ap = xcalloc(1, sizeof(*ap));
    struct op_set *tot = xmalloc(sizeof(*tot));

    op_set_init(tot);
    tot->op[OP_WRITE].ops = ops;
    tot->op[OP_WRITE].errors = errors;
    tot->op[OP_WRITE].bytes = (ops - errors) * 4096;
    ap->duration_ns = 1000000000ull;
    ap->start_ns = start_ns;
    assert_int_equal(result_set_agent_phase(r, 0, a, ap, tot), 0);
    free(tot);
    free(ap);
}

static int has(const struct verdict *v, const char *want)
{
    for (uint32_t i = 0; i < v->nreasons; i++)
        if (strcmp(v->reason[i], want) == 0)
            return 1;
    return 0;
}

static void test_verdict_ok_and_exit_statuses(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;

    (void)state;
    build(&r, &p, "", 0, 0);
    for (uint32_t a = 0; a < NA; a++)
        done(&r, a, 100, 0, 1000 + a);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    assert_int_equal(v.nreasons, 0);
    assert_int_equal(verdict_run(&r), VERDICT_OK);
    assert_true(verdict_phase_finished(&r, 0));
    assert_int_equal(verdict_exit_status(VERDICT_OK), 0);
    assert_int_equal(verdict_exit_status(VERDICT_FAILED), 1);
    assert_int_equal(verdict_exit_status(VERDICT_PARTIAL), 3);
    assert_int_equal(verdict_exit_status(VERDICT_INTERRUPTED), 130);
    assert_int_equal(verdict_from_name("partial"), VERDICT_PARTIAL);
    assert_int_equal(verdict_from_name("bogus"), -1);
    /* skew over the three agents: 1002 - 1000 */
    assert_int_equal(r.phases[0].start_skew_ns, 2);
    assert_int_equal(r.phases[0].nstarted, 3);
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_agent_with_no_op_fails(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    char line[512];

    (void)state;
    build(&r, &p, "", 0, 0);
    done(&r, 0, 100, 0, 1000);
    done(&r, 1, 0, 0, 9000000000ull);   /* idle: its "start" is only t0 */
    done(&r, 2, 50, 0, 1500);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "agent 1 (10.0.0.2:4000): completed no op"));
    assert_int_equal(v.nreasons, 1);
    /* the idle agent is not in the skew */
    assert_int_equal(r.phases[0].start_skew_ns, 500);
    assert_int_equal(r.phases[0].nstarted, 2);
    assert_int_equal(verdict_summary(&r, line, sizeof line), VERDICT_FAILED);
    assert_string_equal(line, "failed: phase p: agent 1 (10.0.0.2:4000): completed no op");
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_nothing_happened_never_passes(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;

    (void)state;
    build(&r, &p, "", 0, 0);
    for (uint32_t a = 0; a < NA; a++)
        done(&r, a, 0, 0, 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "no op completed on any of the 3 agents taking part"));
    assert_false(verdict_phase_finished(&r, 0) && v.v == VERDICT_OK);
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_errors_and_threshold(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;

    (void)state;
    /* default threshold: any failed op fails the phase */
    build(&r, &p, "", 0, 0);
    done(&r, 0, 100, 19, 0);
    done(&r, 1, 100, 0, 0);
    done(&r, 2, 100, 0, 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "agent 0 (10.0.0.1:4000): 19 of 100 write ops failed"));
    /* the agent's own error text is named, without its "phase N: " */
    result_set_agent_error(&r, 0, 0, "phase 0: job 'p': /x/f: I/O failed: No space left on device (ENOSPC)");
    verdict_phase(&r, 0, &v);
    assert_true(has(&v, "agent 0 (10.0.0.1:4000): 19 of 100 write ops failed (job 'p': /x/f: I/O failed: "
                        "No space left on device (ENOSPC))"));
    /* IOPS counts successful ops only */
    assert_true(result_iops(&r.phases[0].totals.op[OP_WRITE], 1000000000ull) == 281.0);
    result_free(&r);
    plan_free(&p);

    /* 19 failed of 300 = 6.3%: tolerated by 10%, listed anyway */
    build(&r, &p, "", 0, 10.0);
    done(&r, 0, 100, 19, 0);
    done(&r, 1, 100, 0, 0);
    done(&r, 2, 100, 0, 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    assert_true(has(&v, "agent 0 (10.0.0.1:4000): 19 of 100 write ops failed, within error_threshold=10%"));
    result_free(&r);
    plan_free(&p);

    /* a count: 19 > 18 fails, 19 <= 19 passes */
    build(&r, &p, "", 18, 0);
    done(&r, 0, 100, 19, 0);
    done(&r, 1, 100, 0, 0);
    done(&r, 2, 100, 0, 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    r.phases[0].error_threshold = 19;
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    /* an agent error fails the phase whatever the threshold */
    result_set_agent_error(&r, 0, 1, "phase 0: job 'p': stopped: EROFS");
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "agent 1 (10.0.0.2:4000): job 'p': stopped: EROFS"));
    /* the run ended for that error: said once, by the agent's reason */
    r.end = RUN_END_FAILED;
    r.end_phase = 0;
    snprintf(r.end_text, sizeof(r.end_text), "agent 1 (10.0.0.2:4000): phase 0: job 'p': stopped: EROFS");
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.nreasons, 2);    /* agent 1's error, agent 0's tolerated failures */
    assert_string_equal(v.reason[0], "agent 1 (10.0.0.2:4000): job 'p': stopped: EROFS");
    assert_false(verdict_phase_finished(&r, 0));
    free(r.phases[0].agents[1].error);
    r.phases[0].agents[1].error = NULL;
    verdict_phase(&r, 0, &v);
    assert_true(has(&v, "run stopped: agent 1 (10.0.0.2:4000): phase 0: job 'p': stopped: EROFS"));
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_lost_agent_is_partial(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    struct agent_phase *ap = xcalloc(1, sizeof(*ap));

    (void)state;
    build(&r, &p, "", 0, 0);
    done(&r, 0, 100, 0, 1000);
    done(&r, 2, 100, 0, 2000);
    /* agent 1 lost: its intervals salvaged, start unknown (0) */
    struct op_set *tot = xmalloc(sizeof(*tot));
    op_set_init(tot);
    tot->op[OP_WRITE].ops = 10;
    ap->salvaged = 1;
    result_set_agent_phase(&r, 0, 1, ap, tot);
    free(tot);
    free(ap);
    r.agents[1].lost = 1;
    r.agents[1].lost_at_s = 3.25;
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_PARTIAL);
    assert_true(has(&v, "agent 1 (10.0.0.2:4000) lost at 3.2 s; its data up to then is included"));
    /* never "measured start skew: 1920s" from the lost agent's unknown start */
    assert_int_equal(r.phases[0].start_skew_ns, 1000);
    assert_int_equal(r.phases[0].nstarted, 2);
    assert_int_equal(verdict_run(&r), VERDICT_PARTIAL);
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_interrupted_and_not_run(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    struct job_spec j;

    (void)state;
    build(&r, &p, "", 0, 0);
    result_free(&r);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "q");
    j.size = 1 << 20;
    j.stonewall = 1;
    plan_add_job(&p, &j);
    result_init(&r, &p, NA, 1000);
    r.phases[0].ran = 1;
    for (uint32_t a = 0; a < NA; a++)
        done(&r, a, 100, 0, 0);
    result_phase_finish(&r, 0);
    r.phases[0].interrupted = 1;
    r.end = RUN_END_INTERRUPTED;
    r.end_phase = 0;
    r.end_at_s = 4.1;
    snprintf(r.end_text, sizeof(r.end_text), "SIGINT");
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_INTERRUPTED);
    assert_string_equal(v.reason[0], "interrupted by SIGINT at 4.1 s");
    assert_false(verdict_phase_finished(&r, 0));
    verdict_phase(&r, 1, &v);
    assert_int_equal(v.v, VERDICT_INTERRUPTED);
    assert_string_equal(v.reason[0], "not run: interrupted by SIGINT at 4.1 s, before this phase started");
    assert_int_equal(verdict_run(&r), VERDICT_INTERRUPTED);
    /* a run that failed before the phase */
    r.end = RUN_END_FAILED;
    snprintf(r.end_text, sizeof(r.end_text), "agent 0 (10.0.0.1:4000): bad interval");
    verdict_phase(&r, 1, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_string_equal(v.reason[0], "not run: the run failed before this phase started: "
                                     "agent 0 (10.0.0.1:4000): bad interval");
    result_free(&r);
    plan_free(&p);
}

/* A journal replayed after kill -9 of the coordinator: agents salvaged
 * from their intervals, not lost; result_cut_short marks the rest. */
static void test_verdict_cut_short(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    struct agent_phase *ap = xcalloc(1, sizeof(*ap));
    struct op_set *tot = xmalloc(sizeof(*tot));

    (void)state;
    build(&r, &p, "", 0, 0);
    op_set_init(tot);
    tot->op[OP_WRITE].ops = 10;
    ap->salvaged = 1;
    for (uint32_t a = 0; a < NA; a++)
        result_set_agent_phase(&r, 0, a, ap, tot);
    free(tot);
    free(ap);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_PARTIAL);
    assert_true(has(&v, "agent 2 (10.0.0.3:4000): no phase-done; its totals are the sum of its intervals"));
    result_cut_short(&r, "journal x.journal ends without the run's end");
    verdict_phase(&r, 0, &v);
    /* partial, as the exit status of `nfstorm report` says (3) */
    assert_int_equal(v.v, VERDICT_PARTIAL);
    assert_string_equal(v.reason[0], "cut short: journal x.journal ends without the run's end");
    assert_false(verdict_phase_finished(&r, 0));
    assert_int_equal(verdict_exit_status(verdict_run(&r)), 3);
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_idle_agents_not_counted(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    struct fairness f;
    double share[NA];

    (void)state;
    build(&r, &p, "0,1", 0, 0);         /* agents=0,1 (or @label resolved to them) */
    assert_true(r.phases[0].agents[0].participating && r.phases[0].agents[1].participating);
    assert_false(r.phases[0].agents[2].participating);
    done(&r, 0, 100, 0, 0);
    done(&r, 1, 100, 0, 0);
    done(&r, 2, 0, 0, 0);               /* idle, as asked */
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    assert_int_equal(v.nreasons, 0);
    fairness_phase(&r, 0, share, &f);
    assert_int_equal(f.ncounted, 2);
    assert_float_equal(f.jain, 1.0, 1e-12);   /* not 0.667 with the idle agent */
    result_free(&r);
    plan_free(&p);
}

/* Interval 0: agent 0 has an op out for 5 s and completed none in the
 * phase (no pace: the limit is STALL_UNKNOWN_FLOORS intervals); agent 1 has
 * ops out for 2 s but completed 5 (deep queue of slow ops: load). */
static void test_stall_is_no_completion(void **state)
{
    struct run_result r;
    struct plan p;
    struct op_set *s = xmalloc(sizeof(*s));
    uint64_t age;

    (void)state;
    build(&r, &p, "", 0, 0);
    op_set_init(s);
    result_add_interval(&r, 0, 0, 0, s);
    result_set_interval_inflight(&r, 0, 0, 0, 1, 5000000000ull);
    s->op[OP_WRITE].ops = 5;
    result_add_interval(&r, 0, 1, 0, s);
    result_set_interval_inflight(&r, 0, 1, 0, 64, 2000000000ull);
    op_set_init(s);
    result_add_interval(&r, 0, 2, 0, s);
    assert_int_equal(result_interval_stalled(&r, 0, 0, &age), 1);
    assert_int_equal(age, 5000000000ull);
    assert_false(result_interval_fleet_stalled(&r, 0, 0));
    /* interval 1: nobody completes anything, ops stuck for 5 s: agent 1's
     * 4 ops at its pace of 5 a second should take 0.8 s (limit 3.2 s) */
    op_set_init(s);
    for (uint32_t a = 0; a < NA; a++) {
        result_add_interval(&r, 0, a, 1, s);
        result_set_interval_inflight(&r, 0, a, 1, 4, 5000000000ull);
    }
    assert_int_equal(result_stall_limit_ns(&r, 0, 1, 1), 3200000000ull);
    assert_int_equal(result_interval_stalled(&r, 0, 1, &age), 3);
    assert_true(result_interval_fleet_stalled(&r, 0, 1));
    free(s);
    result_free(&r);
    plan_free(&p);
}

/* A slow, healthy server: 8 ops of 32 MiB out at once, one completing
 * every 2.3 s or so (an op takes ~2.3 s): intervals without a completion
 * while the oldest op is 2 s old are the pace, not a stall.  A fast pace
 * that stops dead is one, after the floor of one interval. */
static void test_stall_is_relative_to_pace(void **state)
{
    struct run_result r;
    struct plan p;
    struct op_set *s = xmalloc(sizeof(*s));
    uint64_t age;

    (void)state;
    build(&r, &p, "", 0, 0);
    for (uint32_t k = 0; k < 12; k++) {
        op_set_init(s);
        /* 8 threads finishing together every third interval: 8 ops / 3 s */
        if (k % 3 == 2) {
            s->op[OP_READ].ops = 8;
            s->op[OP_READ].bytes = 8ull << 25;
        }
        result_add_interval(&r, 0, 0, k, s);
        result_set_interval_inflight(&r, 0, 0, k, 8, (uint64_t)(k % 3 + 1) * 1000000000ull - 100000000ull);
        op_set_init(s);
        s->op[OP_READ].ops = k < 8 ? 100 : 0;          /* agent 1: fast, then dead */
        result_add_interval(&r, 0, 1, k, s);
        result_set_interval_inflight(&r, 0, 1, k, 4, k < 8 ? 5000000ull : (k - 7) * 1000000000ull + 500000000ull);
    }
    /* agent 0 at interval 9: 8 in flight at 24 ops in the 9 s before: 3 s
     * expected, 12 s limit */
    assert_int_equal(result_stall_limit_ns(&r, 0, 0, 9), 12000000000ull);
    for (uint32_t k = 0; k < 12; k++) {
        uint32_t n = result_interval_stalled(&r, 0, k, &age);
        /* agent 1 stalls from interval 8 (1.5 s, over the 1 s floor) */
        assert_int_equal(n, k >= 8 ? 1 : 0);
        assert_false(result_interval_fleet_stalled(&r, 0, k) && k < 8);
    }
    free(s);
    result_free(&r);
    plan_free(&p);
}

static void test_verdict_reasons_are_bounded(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict *v = xmalloc(sizeof(*v));
    struct job_spec j;
    char big[3000];

    (void)state;
    plan_init(&p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "p");
    j.size = 1 << 20;
    plan_add_job(&p, &j);
    result_init(&r, &p, 100, 1000);
    r.phases[0].ran = 1;
    for (uint32_t a = 0; a < 100; a++)
        done(&r, a, a == 0 ? 10 : 0, 0, 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, v);
    assert_int_equal(v->v, VERDICT_FAILED);
    assert_int_equal(v->nreasons, VERDICT_REASONS_MAX);
    assert_string_equal(v->reason[VERDICT_REASONS_MAX - 1], "and 84 more reasons like these");
    /* error text from the network: cleaned and capped */
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[3] = '\n';
    big[4] = (char)0xff;
    result_set_agent_error(&r, 0, 1, "short\x01");
    assert_string_equal(r.phases[0].agents[1].error, "short?");
    result_set_agent_error(&r, 0, 1, big);
    assert_string_equal(r.phases[0].agents[1].error, "short?");
    result_set_agent_error(&r, 0, 2, big + 2000);
    assert_int_equal(strlen(r.phases[0].agents[2].error), 999);
    free(v);
    result_free(&r);
    plan_free(&p);
}

/* The journal keeps what the verdicts need: idle agents, the threshold,
 * an agent's error and how the run ended; a replay gives the same verdict. */
static void test_verdict_from_journal(void **state)
{
    struct run_result r, back;
    struct plan p;
    struct verdict v, w;
    struct run_observer o;
    struct journal *j;
    char path[] = "/tmp/test_verdict.XXXXXX", err[256];
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    build(&r, &p, "0,1", 7, 0);
    assert_non_null(j = journal_open(path, "lab"));
    o = journal_observer(j);
    o.phase_start(o.arg, &r, 0);
    for (uint32_t a = 0; a < 2; a++) {
        done(&r, a, 100, a == 0 ? 3 : 0, 0);
        o.agent_phase_done(o.arg, &r, 0, a, &r.phases[0].agents[a]);
    }
    done(&r, 2, 0, 0, 0);
    o.agent_phase_done(o.arg, &r, 0, 2, &r.phases[0].agents[2]);
    result_set_agent_error(&r, 0, 1, "phase 0: job 'p': x: I/O failed: Read-only file system");
    o.agent_error(o.arg, &r, 0, 1, "phase 0: job 'p': x: I/O failed: Read-only file system");
    r.end = RUN_END_FAILED;
    r.end_phase = 0;
    r.end_at_s = 2.5;
    snprintf(r.end_text, sizeof(r.end_text), "agent 1 (10.0.0.2:4000): phase 0: job 'p': x: I/O failed");
    o.run_end(o.arg, &r);
    o.phase_done(o.arg, &r, 0);
    assert_int_equal(journal_close(j), 0);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "agent 0 (10.0.0.1:4000): 3 of 100 write ops failed, within error_threshold=7"));
    assert_true(has(&v, "agent 1 (10.0.0.2:4000): job 'p': x: I/O failed: Read-only file system"));

    assert_int_equal(journal_load(path, &back, err, sizeof(err)), 0);
    for (uint32_t a = 0; a < NA; a++)
        snprintf(back.agents[a].addr, sizeof(back.agents[a].addr), "10.0.0.%u:4000", a + 1);
    assert_false(back.phases[0].agents[2].participating);
    verdict_phase(&back, 0, &w);
    assert_int_equal(w.v, v.v);
    assert_int_equal(w.nreasons, v.nreasons);
    for (uint32_t i = 0; i < v.nreasons; i++)
        assert_string_equal(w.reason[i], v.reason[i]);
    assert_false(verdict_phase_finished(&back, 0));
    result_free(&back);
    result_free(&r);
    plan_free(&p);
    unlink(path);
}

/* Counters at 2^64-1 (an agent's claim, or a fleet sum that saturated)
 * fail the phase by name instead of printing as figures. */
static void test_verdict_saturated_counters_fail(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;

    (void)state;
    build(&r, &p, "", 0, 0);
    done(&r, 0, 100, 0, 1000);
    done(&r, 1, UINT64_MAX, 0, 1000);
    done(&r, 2, 100, 0, 1000);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "agent 1 (10.0.0.2:4000): sent a write counter of 2^64-1 (an impossible value); "
                        "its figures are not measurements"));
    assert_true(has(&v, "the fleet's totals reached 2^64-1 and stopped there (saturated): "
                        "they are not measurements"));
    result_free(&r);
    plan_free(&p);

    /* each agent plausible alone, their sum past 2^64 */
    build(&r, &p, "", 0, 0);
    done(&r, 0, UINT64_MAX / 2 + 1, 0, 1000);
    done(&r, 1, UINT64_MAX / 2 + 1, 0, 1000);
    done(&r, 2, 100, 0, 1000);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_FAILED);
    assert_true(has(&v, "the fleet's totals reached 2^64-1 and stopped there (saturated): "
                        "they are not measurements"));
    result_free(&r);
    plan_free(&p);
}

/* SIGINT after the last phase ended: every phase complete and ok, the run
 * interrupted (exit 130), and the summary says when. */
static void test_verdict_signal_after_last_phase(void **state)
{
    struct run_result r;
    struct plan p;
    struct verdict v;
    char line[1024];

    (void)state;
    build(&r, &p, "", 0, 0);
    for (uint32_t a = 0; a < NA; a++)
        done(&r, a, 100, 0, 1000);
    result_phase_finish(&r, 0);
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    assert_int_equal(verdict_run(&r), VERDICT_OK);
    r.end = RUN_END_INTERRUPTED;
    r.end_phase = r.nphases;
    snprintf(r.end_text, sizeof(r.end_text), "SIGINT");
    verdict_phase(&r, 0, &v);
    assert_int_equal(v.v, VERDICT_OK);
    assert_true(verdict_phase_finished(&r, 0));
    assert_int_equal(verdict_run(&r), VERDICT_INTERRUPTED);
    assert_int_equal(verdict_exit_status(verdict_summary(&r, line, sizeof line)), 130);
    assert_string_equal(line, "interrupted: SIGINT after the last phase ended");
    result_free(&r);
    plan_free(&p);
}

/* rw=coherence: a never-visible generation fails the phase (warn: listed,
 * ok); a phase in which nothing became visible fails either way. */
static void test_verdict_coherence_never_visible(void **state)
{
    static const struct { uint64_t seen, never; int warn; enum verdict_kind want; const char *reason; } c[] = {
        { 10, 0, 0, VERDICT_OK, NULL },
        { 9, 1, 0, VERDICT_FAILED,
          "coherence: 1 of 10 generations never visible within the deadline (most: writer 0 -> reader 1, 1)" },
        { 9, 1, 1, VERDICT_OK, "coherence: 1 of 10 generations never visible within the deadline (most: "
                               "writer 0 -> reader 1, 1); coherence_never_visible=warn" },
        { 0, 10, 1, VERDICT_FAILED,
          "coherence: no generation became visible to any reader (10 never visible): nothing was measured" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct run_result r;
        struct plan p;
        struct verdict v;
        struct coh_set s;
        struct coh_pair *pr;
        build(&r, &p, "", 0, 0);
        r.phases[0].rw = RW_COHERENCE;
        r.phases[0].coh_never_warn = (uint8_t)c[i].warn;
        for (uint32_t a = 0; a < NA; a++)
            done(&r, a, 100, 0, 1000 + a);
        result_phase_finish(&r, 0);
        verdict_phase(&r, 0, &v);
        assert_true(has(&v, "coherence: no reader reported any generation"));
        coh_set_init(&s);
        pr = coh_set_pair(&s, 0, 1, COH_PAIRS_MAX);
        pr->seen = c[i].seen;
        pr->never = c[i].never;
        assert_int_equal(coherence_result_add(&r, 0, &s), 0);
        coh_set_free(&s);
        verdict_phase(&r, 0, &v);
        assert_int_equal(v.v, c[i].want);
        if (c[i].reason && !has(&v, c[i].reason))
            fail_msg("case %zu: no reason '%s' (first: '%s')", i, c[i].reason, v.nreasons ? v.reason[0] : "");
        result_free(&r);
        plan_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_ok_and_exit_statuses),
        cmocka_unit_test(test_verdict_agent_with_no_op_fails),
        cmocka_unit_test(test_verdict_nothing_happened_never_passes),
        cmocka_unit_test(test_verdict_errors_and_threshold),
        cmocka_unit_test(test_verdict_lost_agent_is_partial),
        cmocka_unit_test(test_verdict_interrupted_and_not_run),
        cmocka_unit_test(test_verdict_cut_short),
        cmocka_unit_test(test_verdict_from_journal),
        cmocka_unit_test(test_verdict_idle_agents_not_counted),
        cmocka_unit_test(test_stall_is_no_completion),
        cmocka_unit_test(test_stall_is_relative_to_pace),
        cmocka_unit_test(test_verdict_reasons_are_bounded),
        cmocka_unit_test(test_verdict_signal_after_last_phase),
        cmocka_unit_test(test_verdict_saturated_counters_fail),
        cmocka_unit_test(test_verdict_coherence_never_visible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
