/* test_result: the coordinator's merge and both reporters.
 *
 * Builds a run by hand: a plan of two phases (randread, then randrw) on two
 * agents, fed deterministic samples interval by interval in a scrambled
 * order, exactly as agents would send them.  Every sample is also recorded
 * into reference histograms/counters, so the checks are exact equalities:
 * merged totals == sum of agent totals == sum of intervals, and the merged
 * histograms equal one built from all samples directly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "coordinator/result/spill.h"
#include "tests/unit/stats_util.h"

#define NAGENTS 2
#define NINT 7            /* intervals per phase */
#define INTERVAL_MS 500
#define MAXSAMPLES 20000

struct fixture {
    struct plan plan;
    struct run_result r;
    /* reference, per phase */
    struct op_set *all[2];             /* every sample of the phase */
    struct op_set *agent_tot[2][NAGENTS];
    uint64_t *read_lat[2];             /* raw read latencies, for exact percentiles */
    size_t nread_lat[2];
};

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
    /* xorshift64: deterministic, so a failure reproduces */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void make_plan(struct plan *p)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "randread");
    j.rw = RW_RANDREAD;
    j.bs = 4096;
    j.numjobs = 4;
    j.size = 1 << 20;
    plan_add_job(p, &j);

    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "mix64k");
    j.rw = RW_RANDRW;
    j.bs = 65536;
    j.numjobs = 2;
    j.size = 1 << 20;
    j.stonewall = 1;
    plan_add_job(p, &j);
    j.stonewall = 0;          /* second job in the same phase */
    snprintf(j.name, sizeof(j.name), "mix64k-b");
    j.numjobs = 3;
    plan_add_job(p, &j);
}

/* One agent's interval: n ops of bs, latency 50us..5ms, every 97th fails;
 * phase 1 mixes reads and writes. */
static void make_interval(struct fixture *f, uint32_t ph, struct op_set *s, uint32_t n, uint64_t bs)
{
    op_set_init(s);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t lat = 50000 + rng() % 4950000;
        int ok = rng() % 97 != 0;
        enum op_type t = ph == 1 && rng() % 3 == 0 ? OP_WRITE : OP_READ;

        op_stats_record(&s->op[t], bs, lat, ok);
        if (t == OP_READ) {
            assert_true(f->nread_lat[ph] < MAXSAMPLES);
            f->read_lat[ph][f->nread_lat[ph]++] = lat;
        }
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int setup(void **state)
{
    struct fixture *f = xcalloc(1, sizeof(*f));
    /* scrambled arrival order of (k, agent) pairs */
    static const uint32_t order[NINT * NAGENTS] = { 9, 2, 13, 0, 6, 11, 4, 1, 12, 7, 3, 10, 5, 8 };

    rng_state = 88172645463325252ull;
    make_plan(&f->plan);
    result_init(&f->r, &f->plan, NAGENTS, INTERVAL_MS);
    snprintf(f->r.label, sizeof(f->r.label), "unit");
    f->r.started_unix = 1700000000;
    for (uint32_t a = 0; a < NAGENTS; a++) {
        struct agent_info *ai = &f->r.agents[a];
        snprintf(ai->host, sizeof(ai->host), "%s", a == 0 ? "hosta" : "hostb.example.com");
        snprintf(ai->addr, sizeof(ai->addr), "10.0.0.%u:7777", a + 1);
        ai->ncpus = 2;
        ai->clock_offset_ns = a == 0 ? -1500 : 2500;
        ai->rtt_ns = 80000;
    }

    for (uint32_t ph = 0; ph < 2; ph++) {
        uint64_t bs = f->r.phases[ph].bs;

        f->all[ph] = xmalloc(sizeof(struct op_set));
        op_set_init(f->all[ph]);
        f->read_lat[ph] = xcalloc(MAXSAMPLES, sizeof(uint64_t));
        for (uint32_t a = 0; a < NAGENTS; a++) {
            f->agent_tot[ph][a] = xmalloc(sizeof(struct op_set));
            op_set_init(f->agent_tot[ph][a]);
        }
        for (uint32_t i = 0; i < NINT * NAGENTS; i++) {
            uint32_t k = order[i] / NAGENTS, a = order[i] % NAGENTS;
            struct op_set *s = xmalloc(sizeof(*s));

            /* agent 1 does about twice the work of agent 0 */
            make_interval(f, ph, s, (a + 1) * 100 + k * 7, bs);
            assert_int_equal(result_add_interval(&f->r, ph, a, k, s), 0);
            op_set_merge(f->all[ph], s);
            op_set_merge(f->agent_tot[ph][a], s);
            free(s);
        }
        for (uint32_t a = 0; a < NAGENTS; a++) {
            struct agent_phase ap;

            memset(&ap, 0, sizeof(ap));
            ap.duration_ns = a == 0 ? 3 * NS_PER_SEC + 400 * NS_PER_MS : 3 * NS_PER_SEC;
            ap.start_ns = 1000000 + a * 250000;    /* agent 1 starts 250us late */
            ap.cores = 2;
            ap.nintervals = NINT;
            if (a == 1) {    /* 95% of 2 cores over 3s: client-bound */
                ap.cpu_user_s = 4.0;
                ap.cpu_sys_s = 1.7;
            } else {         /* 50% */
                ap.cpu_user_s = 2.0;
                ap.cpu_sys_s = 1.4;
            }
            assert_int_equal(result_set_agent_phase(&f->r, ph, a, &ap, f->agent_tot[ph][a]), 0);
        }
        result_phase_finish(&f->r, ph);
        qsort(f->read_lat[ph], f->nread_lat[ph], sizeof(uint64_t), cmp_u64);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    for (int ph = 0; ph < 2; ph++) {
        free(f->all[ph]);
        free(f->read_lat[ph]);
        for (int a = 0; a < NAGENTS; a++)
            free(f->agent_tot[ph][a]);
    }
    result_free(&f->r);
    plan_free(&f->plan);
    free(f);
    return 0;
}

static void test_layout(void **state)
{
    struct fixture *f = *state;
    const struct run_result *r = &f->r;

    assert_int_equal(r->nphases, 2);
    assert_int_equal(r->nagents, NAGENTS);
    assert_string_equal(r->phases[0].name, "randread");
    assert_int_equal(r->phases[0].rw, RW_RANDREAD);
    assert_int_equal(r->phases[0].bs, 4096);
    assert_int_equal(r->phases[0].numjobs, 4);
    assert_int_equal(r->phases[0].njobs, 1);
    assert_string_equal(r->phases[1].name, "mix64k");
    assert_int_equal(r->phases[1].numjobs, 5);   /* summed over the phase's jobs */
    assert_int_equal(r->phases[1].njobs, 2);
    assert_int_equal(r->phases[1].bs, 65536);
    assert_int_equal(r->agents[1].id, 1);
    assert_int_equal(r->phases[0].nintervals, NINT);
}

static void test_merge_exact(void **state)
{
    struct fixture *f = *state;

    for (uint32_t ph = 0; ph < 2; ph++) {
        const struct phase_result *p = &f->r.phases[ph];
        struct op_set *isum = xmalloc(sizeof(*isum));
        struct op_set *asum = xmalloc(sizeof(*asum));
        struct op_set *scratch = xmalloc(sizeof(*scratch));

        op_set_init(isum);
        op_set_init(asum);
        assert_true(p->finished);
        for (uint32_t k = 0; k < p->nintervals; k++) {
            assert_int_equal(p->intervals[k].nreported, NAGENTS);
            /* a finished phase keeps its intervals sealed (compact) */
            assert_null(p->intervals[k].pending);
            assert_true(p->intervals[k].is_sealed);
            op_set_merge(isum, result_interval_ops(&f->r, ph, k, scratch));
        }
        for (uint32_t a = 0; a < NAGENTS; a++) {
            const struct op_set *at = result_agent_totals(&f->r, ph, a);
            /* kept sealed, given back exactly */
            for (int t = 0; t < OP__COUNT; t++) {
                assert_int_equal(at->op[t].ops, f->agent_tot[ph][a]->op[t].ops);
                assert_int_equal(at->op[t].timeouts, f->agent_tot[ph][a]->op[t].timeouts);
                assert_true(hist_equal(&at->op[t].lat, &f->agent_tot[ph][a]->op[t].lat));
                assert_true(hist_equal(&at->op[t].svc, &f->agent_tot[ph][a]->op[t].svc));
            }
            assert_true(p->agents[a].sealed.n <= 2);   /* read and write only */
            assert_int_equal(result_agent_empty(&p->agents[a]), op_set_empty(f->agent_tot[ph][a]));
            op_set_merge(asum, at);
        }

        for (int t = 0; t < OP__COUNT; t++) {
            const struct op_stats *tot = &p->totals.op[t];

            assert_int_equal(tot->ops, f->all[ph]->op[t].ops);
            assert_int_equal(tot->ops, asum->op[t].ops);
            assert_int_equal(tot->ops, isum->op[t].ops);
            assert_int_equal(tot->bytes, asum->op[t].bytes);
            assert_int_equal(tot->bytes, isum->op[t].bytes);
            assert_int_equal(tot->errors, asum->op[t].errors);
            assert_int_equal(tot->errors, isum->op[t].errors);
            assert_true(hist_equal(&tot->lat, &f->all[ph]->op[t].lat));
            assert_true(hist_equal(&isum->op[t].lat, &f->all[ph]->op[t].lat));
            assert_int_equal(tot->lat.count, tot->ops - tot->errors);   /* failed ops have no latency */

            /* per-agent interval counters add up to each agent's totals */
            for (uint32_t a = 0; a < NAGENTS; a++) {
                uint64_t ops = 0, bytes = 0, errs = 0;
                for (uint32_t k = 0; k < p->nintervals; k++) {
                    struct counters c;

                    result_slot_agent(&p->intervals[k], a, &c);
                    ops += c.ops[t];
                    bytes += c.bytes[t];
                    errs += c.errors[t];
                }
                assert_int_equal(ops, f->agent_tot[ph][a]->op[t].ops);
                assert_int_equal(bytes, f->agent_tot[ph][a]->op[t].bytes);
                assert_int_equal(errs, f->agent_tot[ph][a]->op[t].errors);
            }
        }
        assert_true(f->all[ph]->op[OP_READ].errors > 0);
        assert_true(f->all[ph]->op[OP_READ].bytes ==
                    (f->all[ph]->op[OP_READ].ops - f->all[ph]->op[OP_READ].errors) * p->bs);
        assert_int_equal(p->duration_ns, 3 * NS_PER_SEC + 400 * NS_PER_MS);
        assert_int_equal(p->start_skew_ns, 250000);
        free(isum);
        free(asum);
        free(scratch);
    }
    /* phase 0 is read-only, phase 1 mixed */
    assert_int_equal(f->r.phases[0].totals.op[OP_WRITE].ops, 0);
    assert_true(f->r.phases[1].totals.op[OP_WRITE].ops > 0);
}

static void test_finish_idempotent(void **state)
{
    struct fixture *f = *state;
    uint64_t ops = f->r.phases[0].totals.op[OP_READ].ops;

    result_phase_finish(&f->r, 0);
    assert_int_equal(f->r.phases[0].totals.op[OP_READ].ops, ops);
    assert_true(hist_equal(&f->r.phases[0].totals.op[OP_READ].lat, &f->all[0]->op[OP_READ].lat));
}

static void test_ranges_and_gaps(void **state)
{
    struct plan p;
    struct run_result r;
    struct op_set *s = xmalloc(sizeof(*s)), *scratch = xmalloc(sizeof(*scratch));
    struct agent_phase ap;

    (void)state;
    make_plan(&p);
    result_init(&r, &p, 1, 1000);
    op_set_init(s);
    op_stats_record(&s->op[OP_READ], 4096, 1000, 1);

    assert_int_equal(result_add_interval(&r, 2, 0, 0, s), -EINVAL);
    assert_int_equal(result_add_interval(&r, 0, 1, 0, s), -EINVAL);
    assert_int_equal(result_add_interval(&r, 0, 0, RESULT_MAX_INTERVALS, s), -EINVAL);
    assert_int_equal(r.phases[0].nintervals, 0);

    /* out of order with a gap: slot 40 first, then 0; 1..39 stay empty */
    assert_int_equal(result_add_interval(&r, 0, 0, 40, s), 0);
    assert_int_equal(r.phases[0].nintervals, 41);
    assert_int_equal(result_add_interval(&r, 0, 0, 0, s), 0);
    assert_int_equal(r.phases[0].nintervals, 41);
    assert_int_equal(r.phases[0].intervals[0].count[OP_READ].ops, 1);
    assert_int_equal(result_interval_ops(&r, 0, 40, scratch)->op[OP_READ].ops, 1);
    for (uint32_t k = 1; k < 40; k++) {
        assert_int_equal(r.phases[0].intervals[k].nreported, 0);
        assert_null(r.phases[0].intervals[k].pending);   /* gaps cost no dense set */
        assert_true(op_set_empty(result_interval_ops(&r, 0, k, scratch)));
    }
    /* a second report into a slot adds to it */
    assert_int_equal(result_add_interval(&r, 0, 0, 40, s), 0);
    assert_int_equal(result_interval_ops(&r, 0, 40, scratch)->op[OP_READ].ops, 2);
    {
        struct counters c;

        result_interval_agent(&r, 0, 40, 0, &c);
        assert_int_equal(c.ops[OP_READ], 2);
        assert_int_equal(c.bytes[OP_READ], 8192);
    }
    assert_int_equal(r.phases[0].intervals[40].nreported, 2);
    /* growth past several capacities keeps earlier slots intact */
    assert_int_equal(result_add_interval(&r, 0, 0, 1000, s), 0);
    assert_int_equal(r.phases[0].nintervals, 1001);
    assert_int_equal(result_interval_ops(&r, 0, 40, scratch)->op[OP_READ].ops, 2);
    assert_int_equal(result_interval_ops(&r, 0, 40, scratch)->op[OP_READ].lat.min_ns, 1000);
    result_interval_seal(&r, 0, 40);
    assert_int_equal(result_interval_ops(&r, 0, 40, scratch)->op[OP_READ].lat.min_ns, 1000);
    assert_int_equal(r.phases[0].intervals[40].count[OP_READ].ops, 2);

    memset(&ap, 0, sizeof(ap));
    assert_int_equal(result_set_agent_phase(&r, 0, 1, &ap, s), -EINVAL);
    assert_int_equal(result_set_agent_phase(&r, 5, 0, &ap, s), -EINVAL);

    /* an agent that never reported: phase finishes with what it has */
    result_phase_finish(&r, 1);
    assert_true(r.phases[1].finished);
    assert_int_equal(r.phases[1].duration_ns, 0);
    assert_int_equal(r.phases[1].start_skew_ns, 0);
    assert_true(op_set_empty(&r.phases[1].totals));
    assert_true(result_agent_empty(&r.phases[1].agents[0]));
    assert_true(op_set_empty(result_agent_totals(&r, 1, 0)));   /* never reported: blank */

    free(s);
    free(scratch);
    result_free(&r);
    plan_free(&p);
}

/* Compare merged interval k, through every accessor, with a dense reference. */
static void check_interval(const struct run_result *r, uint32_t ph, uint32_t k, const struct op_set *ref,
                           struct op_set *scratch)
{
    const struct op_set *v = result_interval_ops(r, ph, k, scratch);
    struct op_stats *one = xmalloc(sizeof(*one)), *all = xmalloc(sizeof(*all)), *rall = xmalloc(sizeof(*rall));

    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = result_interval_op(r, ph, k, (enum op_type)t, one);
        const struct op_stats *x = &ref->op[t];
        const struct op_counts *c = &r->phases[ph].intervals[k].count[t];

        assert_int_equal(v->op[t].ops, x->ops);
        assert_int_equal(v->op[t].bytes, x->bytes);
        assert_int_equal(v->op[t].errors, x->errors);
        assert_int_equal(v->op[t].timeouts, x->timeouts);
        assert_true(hist_equal(&v->op[t].lat, &x->lat));
        assert_true(hist_equal(&v->op[t].svc, &x->svc));
        assert_int_equal(o->ops, x->ops);
        assert_int_equal(o->timeouts, x->timeouts);
        assert_true(hist_equal(&o->lat, &x->lat));
        assert_true(hist_equal(&o->svc, &x->svc));
        assert_int_equal(c->ops, x->ops);
        assert_int_equal(c->bytes, x->bytes);
        assert_int_equal(c->errors, x->errors);
        assert_int_equal(c->timeouts, x->timeouts);
    }
    result_interval_all(r, ph, k, all);
    result_all_ops(ref, rall);
    assert_int_equal(all->ops, rall->ops);
    assert_int_equal(all->bytes, rall->bytes);
    assert_int_equal(all->errors, rall->errors);
    assert_true(hist_equal(&all->lat, &rall->lat));
    assert_true(hist_equal(&all->svc, &rall->svc));
    free(one);
    free(all);
    free(rall);
}

/* Sealing is lossless: random intervals of random op types (svc, timeouts,
 * errors too) from three agents, sealed at random moments, late reports
 * into sealed slots, then the phase's finish; every accessor must match a
 * dense reference exactly at every step, and a sealed slot keeps sparse
 * histograms only for the op types it has. */
static void test_interval_seal_exact(void **state)
{
    enum { NA = 3, NK = 12 };
    struct plan p;
    struct run_result r;
    struct op_set *ref = xmalloc(NK * sizeof(*ref)), *s = xmalloc(sizeof(*s));
    struct op_set *scratch = xmalloc(sizeof(*scratch));

    (void)state;
    rng_state = 12345;
    make_plan(&p);
    result_init(&r, &p, NA, 100);
    for (uint32_t k = 0; k < NK; k++)
        op_set_init(&ref[k]);

    for (int round = 0; round < 150; round++) {
        uint32_t k = (uint32_t)(rng() % NK), a = (uint32_t)(rng() % NA), n = (uint32_t)(rng() % 300);
        enum op_type t1 = (enum op_type)(rng() % OP__COUNT), t2 = rng() % 2 ? t1 : OP_WRITE;

        op_set_init(s);
        for (uint32_t i = 0; i < n; i++) {
            struct op_stats *o = &s->op[i % 2 ? t1 : t2];

            op_stats_record(o, 4096, 1000 + (rng() >> (rng() % 64)) % 100000000, rng() % 50 != 0);
            if (rng() % 4 == 0)
                hist_record(&o->svc, rng() % 5000000);
            if (rng() % 40 == 0)
                o->timeouts++;
        }
        assert_int_equal(result_add_interval(&r, 0, a, k, s), 0);
        op_set_merge(&ref[k], s);
        check_interval(&r, 0, k, &ref[k], scratch);
        if (rng() % 3 == 0) {
            uint32_t j = (uint32_t)(rng() % r.phases[0].nintervals);

            result_interval_seal(&r, 0, j);
            assert_null(r.phases[0].intervals[j].pending);
            check_interval(&r, 0, j, &ref[j], scratch);
        }
    }
    /* a gap slot seals to nothing and takes late data */
    assert_int_equal(result_add_interval(&r, 0, 0, NK + 5, s), 0);
    result_interval_seal(&r, 0, NK + 2);
    assert_int_equal(r.phases[0].intervals[NK + 2].hist_len, 1);   /* no op type: a 0 */
    assert_true(op_set_empty(result_interval_ops(&r, 0, NK + 2, scratch)));
    assert_int_equal(result_add_interval(&r, 0, 1, NK + 2, s), 0);
    assert_null(r.phases[0].intervals[NK + 2].pending);
    check_interval(&r, 0, NK + 2, s, scratch);

    result_phase_finish(&r, 0);
    for (uint32_t k = 0; k < r.phases[0].nintervals; k++) {
        const struct interval_slot *sl = &r.phases[0].intervals[k];
        uint8_t used = 0;

        assert_null(sl->pending);
        assert_true(sl->is_sealed);
        for (int t = 0; t < OP__COUNT; t++)
            used += k < NK && !op_set_empty(&ref[k]) && (ref[k].op[t].ops || ref[k].op[t].svc.count);
        if (k < NK) {
            assert_int_equal(spill_get(sl->spill, sl->at, sl->hist_len)[0], used);
            check_interval(&r, 0, k, &ref[k], scratch);
        }
    }
    free(ref);
    free(s);
    free(scratch);
    result_free(&r);
    plan_free(&p);
}

static void test_rates(void **state)
{
    struct op_stats o;

    (void)state;
    memset(&o, 0, sizeof(o));
    hist_init(&o.lat);
    o.ops = 1000;
    o.bytes = 4096000;
    assert_true(fabs(result_iops(&o, 2 * NS_PER_SEC) - 500.0) < 1e-9);
    assert_true(fabs(result_bw(&o, 2 * NS_PER_SEC) - 2048000.0) < 1e-6);
    assert_true(fabs(result_iops(&o, 250 * NS_PER_MS) - 4000.0) < 1e-9);
    assert_true(result_iops(&o, 0) == 0.0);
    assert_true(result_bw(&o, 0) == 0.0);
}

static void test_client_bound(void **state)
{
    struct agent_phase ap;

    (void)state;
    memset(&ap, 0, sizeof(ap));
    ap.cores = 2;
    ap.duration_ns = 10 * NS_PER_SEC;
    ap.cpu_user_s = 10.0;
    ap.cpu_sys_s = 7.9;       /* 1.79 cores of 2: 89.5% */
    assert_false(result_agent_client_bound(&ap));
    ap.cpu_sys_s = 8.0;       /* exactly 90% counts */
    assert_true(result_agent_client_bound(&ap));
    ap.cpu_sys_s = 9.9;
    assert_true(result_agent_client_bound(&ap));
    ap.cores = 4;             /* same CPU time on more cores: 50% */
    assert_false(result_agent_client_bound(&ap));
    ap.cores = 0;             /* unknown cores: never flagged */
    assert_false(result_agent_client_bound(&ap));
    ap.cores = 2;
    ap.duration_ns = 0;
    assert_false(result_agent_client_bound(&ap));
}

static json_int_t jget_int(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    assert_non_null(v);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static double jget_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    assert_non_null(v);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static int count_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void test_json_roundtrip(void **state)
{
    struct fixture *f = *state;
    char dir[] = "/tmp/test_result.XXXXXX";
    char path[256], bad[300];
    json_error_t err;
    json_t *root, *ph, *rd, *lat, *agents, *ivs;
    const struct phase_result *p0 = &f->r.phases[0];
    uint64_t ops0 = p0->totals.op[OP_READ].ops;
    uint64_t v50;
    unsigned b50;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/result.json", dir);
    /* written twice: the second replaces the first atomically */
    assert_int_equal(report_json_write(path, &f->r), 0);
    assert_int_equal(report_json_write(path, &f->r), 0);
    assert_int_equal(count_dir(dir), 1);      /* no temp file left behind */

    root = json_load_file(path, 0, &err);
    assert_non_null(root);
    assert_int_equal(jget_int(root, "schema"), 2);
    assert_string_equal(json_string_value(json_object_get(root, "label")), "unit");
    assert_int_equal(jget_int(root, "started"), 1700000000);

    agents = json_object_get(root, "agents");
    assert_int_equal(json_array_size(agents), NAGENTS);
    assert_string_equal(json_string_value(json_object_get(json_array_get(agents, 1), "host")),
                        "hostb.example.com");
    assert_string_equal(json_string_value(json_object_get(json_array_get(agents, 0), "addr")),
                        "10.0.0.1:7777");
    assert_int_equal(jget_int(json_array_get(agents, 0), "clock_offset_ns"), -1500);
    assert_int_equal(jget_int(json_array_get(agents, 1), "rtt_ns"), 80000);
    assert_int_equal(jget_int(json_array_get(agents, 1), "ncpus"), 2);
    assert_int_equal(jget_int(json_array_get(agents, 1), "id"), 1);

    assert_int_equal(json_array_size(json_object_get(root, "phases")), 2);
    ph = json_array_get(json_object_get(root, "phases"), 0);
    assert_string_equal(json_string_value(json_object_get(ph, "name")), "randread");
    assert_string_equal(json_string_value(json_object_get(ph, "rw")), "randread");
    assert_int_equal(jget_int(ph, "bs"), 4096);
    assert_int_equal(jget_int(ph, "numjobs"), 4);
    assert_true(fabs(jget_num(ph, "duration_s") - 3.4) < 1e-9);
    assert_int_equal(jget_int(ph, "start_skew_ns"), 250000);

    /* read only: no "write" key */
    assert_null(json_object_get(json_object_get(ph, "ops"), "write"));
    rd = json_object_get(json_object_get(ph, "ops"), "read");
    assert_non_null(rd);
    assert_int_equal(jget_int(rd, "ops"), ops0);
    assert_int_equal(jget_int(rd, "bytes"), p0->totals.op[OP_READ].bytes);
    assert_int_equal(jget_int(rd, "errors"), p0->totals.op[OP_READ].errors);
    assert_true(jget_int(rd, "errors") > 0);
    /* IOPS counts successful ops only: a failed op is not throughput */
    assert_true(fabs(jget_num(rd, "iops") - (double)(ops0 - p0->totals.op[OP_READ].errors) / 3.4) < 1e-6);
    assert_true(fabs(jget_num(rd, "bw_bytes") - (double)p0->totals.op[OP_READ].bytes / 3.4) < 1e-3);

    /* p50 lies in the bucket of the exact nearest-rank median */
    lat = json_object_get(rd, "lat_ns");
    v50 = f->read_lat[0][(f->nread_lat[0] + 1) / 2 - 1];
    b50 = hist_bucket_of(v50);
    assert_true((uint64_t)jget_int(lat, "p50") >= hist_bucket_low(b50));
    assert_true((uint64_t)jget_int(lat, "p50") <= hist_bucket_high(b50));
    assert_int_equal(jget_int(lat, "min"), f->read_lat[0][0]);
    assert_int_equal(jget_int(lat, "max"), f->read_lat[0][f->nread_lat[0] - 1]);
    assert_true(jget_int(lat, "p90") <= jget_int(lat, "p99"));
    assert_true(jget_int(lat, "p99") <= jget_int(lat, "p999"));
    assert_true(fabs(jget_num(lat, "mean") - hist_mean(&p0->totals.op[OP_READ].lat)) < 1e-3);

    /* per agent */
    agents = json_object_get(ph, "agents");
    assert_int_equal(json_array_size(agents), NAGENTS);
    {
        json_t *a1 = json_array_get(agents, 1);
        json_t *a1r = json_object_get(json_object_get(a1, "ops"), "read");
        json_t *cpu = json_object_get(a1, "cpu");

        assert_int_equal(jget_int(a1, "id"), 1);
        assert_int_equal(jget_int(a1r, "ops"), f->agent_tot[0][1]->op[OP_READ].ops);
        assert_int_equal(jget_int(a1r, "bytes"), f->agent_tot[0][1]->op[OP_READ].bytes);
        /* agent rates are over the agent's own 3s */
        assert_true(fabs(jget_num(a1r, "iops") - (double)result_ok_ops(&f->agent_tot[0][1]->op[OP_READ]) / 3.0)
                    < 1e-6);
        assert_true(json_is_true(json_object_get(a1, "client_bound")));
        assert_true(json_is_false(json_object_get(json_array_get(agents, 0), "client_bound")));
        assert_true(fabs(jget_num(cpu, "user_s") - 4.0) < 1e-12);
        assert_true(fabs(jget_num(cpu, "sys_s") - 1.7) < 1e-12);
        assert_int_equal(jget_int(cpu, "cores"), 2);
        assert_true(fabs(jget_num(a1, "duration_s") - 3.0) < 1e-12);
    }

    /* intervals: count, t, merged and per-agent counters */
    ivs = json_object_get(ph, "intervals");
    assert_int_equal(json_array_size(ivs), NINT);
    for (size_t k = 0; k < NINT; k++) {
        json_t *iv = json_array_get(ivs, k);
        json_t *ir = json_object_get(json_object_get(iv, "ops"), "read");
        json_t *ia = json_object_get(iv, "agents");
        uint64_t merged = p0->intervals[k].count[OP_READ].ops;
        uint64_t merged_ok = merged - p0->intervals[k].count[OP_READ].errors;

        assert_true(fabs(jget_num(iv, "t") - (double)k * 0.5) < 1e-12);
        assert_int_equal(jget_int(ir, "ops"), merged);
        /* rates over the 500ms interval */
        assert_true(fabs(jget_num(ir, "iops") - (double)merged_ok * 2.0) < 1e-6);
        /* per-agent counters in columns, indexed by agent */
        {
            json_t *col = json_object_get(json_object_get(ia, "ops"), "read");
            json_t *cops = json_object_get(col, "ops"), *cbytes = json_object_get(col, "bytes");

            assert_int_equal(json_array_size(cops), NAGENTS);
            assert_int_equal(json_array_size(cbytes), NAGENTS);
            assert_null(json_object_get(col, "lat_ns"));
            assert_null(json_object_get(ia, "reported"));   /* every agent reported */
            for (size_t a = 0; a < NAGENTS; a++) {
                struct counters c;

                result_slot_agent(&p0->intervals[k], (uint32_t)a, &c);
                assert_int_equal(json_integer_value(json_array_get(cops, a)), (a + 1) * 100 + k * 7);
                assert_int_equal(json_integer_value(json_array_get(cbytes, a)), c.bytes[OP_READ]);
            }
        }
    }

    /* mixed phase has both op types */
    ph = json_array_get(json_object_get(root, "phases"), 1);
    assert_string_equal(json_string_value(json_object_get(ph, "rw")), "randrw");
    assert_non_null(json_object_get(json_object_get(ph, "ops"), "write"));
    assert_int_equal(jget_int(json_object_get(json_object_get(ph, "ops"), "write"), "ops"),
                     f->r.phases[1].totals.op[OP_WRITE].ops);
    json_decref(root);

    /* failure: directory missing -> -ENOENT, nothing created */
    snprintf(bad, sizeof(bad), "%s/nodir/result.json", dir);
    assert_int_equal(report_json_write(bad, &f->r), -ENOENT);

    unlink(path);
    rmdir(dir);
}

static char *text_of(const struct run_result *r, int base)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    report_text(out, r, base);
    fclose(out);
    return buf;
}

static void test_text(void **state)
{
    struct fixture *f = *state;
    const struct phase_result *p0 = &f->r.phases[0];
    char *txt = text_of(&f->r, 1024), *line, *save = NULL, *copy;
    char iops[32], bw[32], want[256];

    /* phase row: name, r/w, rand/seq, bs, numjobs x agents, IOPS, BW */
    units_fmt_count(iops, sizeof(iops), result_iops(&p0->totals.op[OP_READ], p0->duration_ns));
    units_fmt_rate(bw, sizeof(bw), result_bw(&p0->totals.op[OP_READ], p0->duration_ns), 1024);
    copy = xstrdup(txt);
    {
        int found = 0, found_mixed = 0, found_write_row = 0;

        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            assert_true(strlen(line) <= 120);
            if (strncmp(line, "randread ", 9) == 0) {
                assert_non_null(strstr(line, " read "));
                assert_non_null(strstr(line, " rand "));
                assert_non_null(strstr(line, " 4KiB "));
                assert_non_null(strstr(line, " 4x2 "));
                assert_non_null(strstr(line, iops));
                assert_non_null(strstr(line, bw));
                found = 1;
            }
            if (strncmp(line, "mix64k ", 7) == 0) {
                assert_non_null(strstr(line, " mixed "));
                assert_non_null(strstr(line, " 64KiB "));
                assert_non_null(strstr(line, " 5x2 "));
                found_mixed = 1;
            }
            /* continuation row of the mixed phase: blank phase columns */
            if (strncmp(line, "      ", 6) == 0 && strstr(line, "write "))
                found_write_row = 1;
        }
        assert_true(found);
        assert_true(found_mixed);
        assert_true(found_write_row);
    }
    free(copy);

    assert_non_null(strstr(txt, "run unit: 2 agents, 2 phases"));
    assert_non_null(strstr(txt, "IOPS"));
    assert_non_null(strstr(txt, "p99.9"));
    assert_non_null(strstr(txt, "share"));
    assert_non_null(strstr(txt, "hosta"));
    /* the FQDN fits, so it is kept whole */
    assert_non_null(strstr(txt, "hostb.example.com"));
    assert_non_null(strstr(txt, "measured start skew: 250us"));
    assert_non_null(strstr(txt, "errors: read "));
    /* agent 0: 3.4s of CPU over 3.4s on 2 cores = 50% */
    assert_non_null(strstr(txt, " 50%\n"));
    /* agent 1's share of phase 0's successful reads (a failed op is no share) */
    snprintf(want, sizeof(want), "%.1f%%",
             (double)result_ok_ops(&f->agent_tot[0][1]->op[OP_READ]) * 100.0 /
             (double)result_ok_ops(&p0->totals.op[OP_READ]));
    assert_non_null(strstr(txt, want));
    assert_non_null(strstr(txt, "warning: agent 1 (hostb.example.com) client-bound: CPU 1.90 of 2 cores "
                                "busy (95%; rule: the cores it may use)\n"));
    assert_null(strstr(txt, "warning: agent 0"));
    free(txt);

    /* SI units on request, for measurements; block sizes stay exact */
    txt = text_of(&f->r, 1000);
    assert_null(strstr(txt, "4.1kB"));
    assert_non_null(strstr(txt, " 4KiB "));
    assert_non_null(strstr(txt, " 64KiB "));
    assert_null(strstr(txt, "iB/s"));
    assert_non_null(strstr(txt, "B/s "));
    free(txt);
}

static void test_text_unfinished_and_silent(void **state)
{
    struct plan p;
    struct run_result r;
    struct agent_phase ap;
    struct op_set *tot = malloc(sizeof(*tot));
    char *txt;

    (void)state;
    make_plan(&p);
    result_init(&r, &p, 2, 1000);
    memset(&ap, 0, sizeof(ap));
    op_set_init(tot);
    op_stats_record(&tot->op[OP_READ], 4096, 1000, 1);
    ap.duration_ns = NS_PER_SEC;
    assert_int_equal(result_set_agent_phase(&r, 0, 0, &ap, tot), 0);
    free(tot);
    result_phase_finish(&r, 0);
    txt = text_of(&r, 1024);
    assert_non_null(strstr(txt, "(no result)"));
    assert_non_null(strstr(txt, "warning: agent 1 (?) sent no result for this phase"));
    assert_non_null(strstr(txt, "phase mix64k: not run to completion"));
    assert_null(strstr(txt, "errors:"));
    free(txt);
    result_free(&r);
    plan_free(&p);
}

/* result_clean_utf8: well-formed UTF-8 stays, one '?' per bad byte or
 * refused character, valid UTF-8 out (a JSON string), idempotent. */
static void test_clean_utf8_keeps_scripts_drops_controls(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        { "efs-\xce\x94\xce\xa9-\xe6\x97\xa5\xe6\x9c\xac", "efs-\xce\x94\xce\xa9-\xe6\x97\xa5\xe6\x9c\xac" },
        { "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80" },               /* 2- and 4-byte */
        { "a\x1b[31mb\n\tc\x7f", "a?[31mb??c?" },                                         /* C0, DEL */
        { "x\xc2\x9by", "x?y" },                                                          /* C1 CSI */
        { "l\xe2\x80\xaer\xe2\x81\xa6s\xe2\x80\xa8", "l?r?s?" },                          /* RLO, LRI, LS */
        { "\xff\xfe", "??" },                                                             /* never UTF-8 */
        { "\xc0\xaf", "??" },                                                             /* overlong '/' */
        { "\xe0\x80\xaf", "???" },                                                        /* overlong, 3 bytes */
        { "\xed\xa0\x80", "???" },                                                        /* a surrogate */
        { "\xf4\x90\x80\x80", "????" },                                                   /* > U+10FFFF */
        { "cut\xe6\x97", "cut??" },                                                       /* truncated */
        { "\xce", "?" },
        { "", "" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        json_t *j;

        snprintf(buf, sizeof buf, "%s", cases[i].in);
        result_clean_utf8(buf);
        assert_string_equal(buf, cases[i].out);
        j = json_string(buf);               /* jansson takes only valid UTF-8 */
        assert_non_null(j);
        json_decref(j);
        result_clean_utf8(buf);
        assert_string_equal(buf, cases[i].out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_finish_idempotent, setup, teardown),
        cmocka_unit_test(test_ranges_and_gaps),
        cmocka_unit_test(test_interval_seal_exact),
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_client_bound),
        cmocka_unit_test_setup_teardown(test_json_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
        cmocka_unit_test(test_text_unfinished_and_silent),
        cmocka_unit_test(test_clean_utf8_keeps_scripts_drops_controls),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
