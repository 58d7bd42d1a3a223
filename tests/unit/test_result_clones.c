/* test_result_clones: the fleet's per-job, per-clone figures (fio's jobs[]
 * without group_reporting): summed exactly over agents, checked against
 * each agent's totals and the plan, complete or not used, and read back
 * from a saved result. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clone_set.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "coordinator/result/result_clones.h"
#include "tests/unit/stats_util.h"

/* One phase: "w" numjobs=2 writes, "r" numjobs=1 reads. */
static void make_plan(struct plan *p, int grouped)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "w");
    j.rw = RW_WRITE;
    j.numjobs = 2;
    j.group_reporting = grouped;
    plan_add_job(p, &j);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "r");
    j.rw = RW_READ;
    j.numjobs = 1;
    plan_add_job(p, &j);
}

/* An agent's clones: thread (job, clone) did ops[i] ops of 4 KiB, each
 * recorded at lat_ns; totals is their sum. */
static void agent_clones(struct clone_set *cs, struct op_set *totals, uint64_t base)
{
    static const uint32_t job[] = { 0, 0, 1 }, clone[] = { 0, 1, 0 };

    clone_set_init(cs);
    op_set_init(totals);
    for (int i = 0; i < 3; i++) {
        struct clone_stats *e = clone_set_add(cs, job[i], clone[i]);
        struct op_stats *o = &e->stats->op[job[i] ? OP_READ : OP_WRITE];

        e->runtime_ns = base + (uint64_t)i;
        for (uint64_t k = 0; k < base + (uint64_t)i; k++)
            op_stats_record(o, 4096, 1000 * (k + 1), 1);
        op_set_merge(totals, e->stats);
    }
}

static void test_result_clones_fleet_sum(void **state)
{
    struct plan p;
    struct run_result r;
    struct clone_set cs[2];
    struct op_set *tot = xmalloc(2 * sizeof(*tot)), *scratch = xmalloc(sizeof(*scratch));
    struct agent_phase ap = { .done = 1, .duration_ns = 1 };
    char err[256];

    (void)state;
    make_plan(&p, 0);
    result_init(&r, &p, 2, 1000);
    agent_clones(&cs[0], &tot[0], 10);
    agent_clones(&cs[1], &tot[1], 20);
    /* agent 1 first: entries stay in fio's order (job, then clone) */
    for (int a = 1; a >= 0; a--) {
        result_set_agent_phase(&r, 0, (uint32_t)a, &ap, &tot[a]);
        assert_int_equal(result_clones_usable(&r, 0), 0);      /* agent 0 not in yet */
        assert_int_equal(result_clones_add(&r, 0, (uint32_t)a, &p.phases[0], &cs[a], &tot[a], err, sizeof err), 0);
    }
    assert_int_equal(result_clones_usable(&r, 0), 1);
    assert_int_equal(r.phases[0].clones->n, 3);
    for (uint32_t i = 0; i < 3; i++) {
        const struct clone_result *c = &r.phases[0].clones->c[i];
        const struct op_set *s = result_clone_totals(&r, 0, i, scratch);
        int t = c->job ? OP_READ : OP_WRITE;

        assert_int_equal(c->job, i < 2 ? 0 : 1);
        assert_int_equal(c->clone, i < 2 ? i : 0);
        assert_string_equal(c->name, i < 2 ? "w" : "r");
        assert_int_equal(s->op[t].ops, 10 + i + 20 + i);                /* both agents' thread */
        assert_int_equal(s->op[t].bytes, (10 + i + 20 + i) * 4096ull);
        assert_int_equal(s->op[t].lat.count, 10 + i + 20 + i);
        assert_int_equal(s->op[t].lat.max_ns, (20 + i) * 1000ull);
        assert_int_equal(s->op[t ^ 1].ops, 0);
        assert_int_equal(c->runtime_ns, 20 + i);                         /* the longest */
    }
    for (int a = 0; a < 2; a++)
        clone_set_free(&cs[a]);
    result_free(&r);
    plan_free(&p);
    free(tot);
    free(scratch);
}

/* Clones that do not add up to the agent's totals, or name a thread the
 * plan does not have, are refused whole; a phase some agent sent none of
 * (an older agent) or that asks for group_reporting is reported per phase. */
static void test_result_clones_checked(void **state)
{
    struct plan p, pg;
    struct run_result r;
    struct clone_set cs;
    struct op_set *tot = xmalloc(sizeof(*tot));
    struct agent_phase ap = { .done = 1, .duration_ns = 1 };
    char err[256];

    (void)state;
    make_plan(&p, 0);
    result_init(&r, &p, 2, 1000);
    agent_clones(&cs, tot, 5);
    tot->op[OP_WRITE].ops++;
    assert_int_equal(result_clones_add(&r, 0, 0, &p.phases[0], &cs, tot, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "write"));
    assert_null(r.phases[0].clones);
    tot->op[OP_WRITE].ops--;
    cs.c[2].clone = 1;                            /* "r" has numjobs=1 */
    assert_int_equal(result_clones_add(&r, 0, 0, &p.phases[0], &cs, tot, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "no such thread"));
    cs.c[2].clone = 0;
    result_set_agent_phase(&r, 0, 0, &ap, tot);
    result_set_agent_phase(&r, 0, 1, &ap, tot);   /* agent 1: ops, no clones */
    assert_int_equal(result_clones_add(&r, 0, 0, &p.phases[0], &cs, tot, err, sizeof err), 0);
    assert_int_equal(result_clones_usable(&r, 0), 0);
    result_free(&r);

    make_plan(&pg, 1);
    result_init(&r, &pg, 1, 1000);
    result_set_agent_phase(&r, 0, 0, &ap, tot);
    assert_int_equal(result_clones_add(&r, 0, 0, &pg.phases[0], &cs, tot, err, sizeof err), 0);
    assert_int_equal(result_clones_usable(&r, 0), 0);             /* group_reporting */
    result_free(&r);
    clone_set_free(&cs);
    plan_free(&p);
    plan_free(&pg);
    free(tot);
}

/* A saved result's entries: set once each, every agent's. */
static void test_result_clones_put(void **state)
{
    struct plan p;
    struct run_result r;
    struct op_set *s = xmalloc(sizeof(*s));
    char err[256];

    (void)state;
    make_plan(&p, 0);
    result_init(&r, &p, 3, 1000);
    op_set_init(s);
    op_stats_record(&s->op[OP_WRITE], 4096, 500, 1);
    assert_int_equal(result_clones_put(&r, 0, 0, 1, "w", 7, s, err, sizeof err), 0);
    assert_int_equal(result_clones_put(&r, 0, 0, 0, "w", 9, s, err, sizeof err), 0);
    assert_int_equal(result_clones_put(&r, 0, 0, 1, "w", 7, s, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "twice"));
    assert_int_equal(result_clones_put(&r, 0, PLAN_MAX_JOBS, 0, "w", 7, s, err, sizeof err), -EINVAL);
    assert_int_equal(r.phases[0].clones->n, 2);
    assert_int_equal(r.phases[0].clones->c[0].clone, 0);
    assert_int_equal(r.phases[0].clones->c[0].runtime_ns, 9);
    assert_int_equal(result_clones_usable(&r, 0), 1);
    result_free(&r);
    plan_free(&p);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_clones_fleet_sum),
        cmocka_unit_test(test_result_clones_checked),
        cmocka_unit_test(test_result_clones_put),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
