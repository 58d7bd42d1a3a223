/* test_rerender: a run's model, saved as the JSON result and as the journal
 * (through the journal's observer, fed as run.c feeds it), reads back into
 * a model every report renders byte for byte the same from: text (both
 * unit bases), CSV with agents, time series and HTML.  The run has a rate-
 * limited phase (service times), a stall (ops outstanding), an agent lost
 * mid-phase (membership, salvaged totals, when), an agent's error, CPU and
 * start skew; and saved again, the JSON is the same bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/run/journal.h"
#include "coordinator/report/report.h"
#include "coordinator/result/result.h"
#include "coordinator/result/result_load.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/run/timeseries.h"
#include "tests/unit/stats_util.h"

#define NA 2
#define NINT 6
#define INTERVAL_MS 1000

static uint64_t seed = 1313;

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static void make_plan(struct plan *p)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "mix");
    j.rw = RW_RANDRW;
    j.bs = 4096;
    j.numjobs = 2;
    plan_add_job(p, &j);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "paced");
    j.rw = RW_RANDREAD;
    j.bs = 65536;
    j.numjobs = 1;
    j.rate_iops = 100;
    j.stonewall = 1;
    plan_add_job(p, &j);
}

/* n ops, latencies spread over 20us..20ms; phase 1 also has service times */
static void make_interval(struct op_set *s, uint32_t phase, uint32_t n)
{
    op_set_init(s);
    for (uint32_t i = 0; i < n; i++) {
        enum op_type t = phase == 0 && rnd() % 2 ? OP_WRITE : OP_READ;
        uint64_t lat = 20000 + rnd() % 20000000;

        op_stats_record(&s->op[t], phase ? 65536 : 4096, lat, rnd() % 211 != 0);
        if (phase == 1)
            hist_record(&s->op[t].svc, lat / 3 + 1);
    }
}

/* The run as run.c would record it, into r and the journal at path. */
static void make_run(struct run_result *r, const char *journal_path)
{
    struct plan p;
    struct journal *j = journal_open(journal_path, "unit");
    struct run_observer o = journal_observer(j);
    struct op_set *s = xmalloc(sizeof *s), *acc = xmalloc(NA * sizeof *acc);

    assert_non_null(j);
    make_plan(&p);
    result_init(r, &p, NA, INTERVAL_MS);
    plan_free(&p);
    snprintf(r->label, sizeof r->label, "unit");
    r->started_unix = 1700000000;
    for (uint32_t a = 0; a < NA; a++) {
        snprintf(r->agents[a].host, sizeof r->agents[a].host, "host%u", a);
        snprintf(r->agents[a].addr, sizeof r->agents[a].addr, "10.0.0.%u:7777", a + 1);
        r->agents[a].ncpus = 4;
        r->agents[a].rtt_ns = 70000 + a;
    }
    for (uint32_t ph = 0; ph < 2; ph++) {
        r->phases[ph].ran = 1;
        r->phases[ph].t0_ns = 4999000000ull + ph * 10 * NS_PER_SEC;   /* as run.c sets them */
        o.phase_start(o.arg, r, ph);
        for (uint32_t a = 0; a < NA; a++)
            op_set_init(&acc[a]);
        for (uint32_t k = 0; k < NINT; k++) {
            for (uint32_t a = 0; a < NA; a++) {
                if (ph == 1 && a == 1 && k >= 3)
                    continue;   /* agent 1 is lost after interval 2 of phase 1 */
                make_interval(s, ph, k == 2 && a == 0 ? 0 : 50 + (uint32_t)(rnd() % 400));
                assert_int_equal(result_add_interval(r, ph, a, k, s), 0);
                if (k == 2 && a == 0)   /* a stall: nothing done, one op 1.5 s old */
                    result_set_interval_inflight(r, ph, a, k, 1, 1500000000);
                op_set_merge(&acc[a], s);
                o.agent_interval(o.arg, r, ph, a, k, s);
            }
            /* complete: the observers hear of it, then it is sealed (run.c's
             * notify_intervals); the journal writes its merged latency here */
            o.interval(o.arg, r, ph, k);
            result_interval_seal(r, ph, k);
        }
        if (ph == 0) {              /* an agent's error: a verdict input */
            assert_int_equal(result_set_agent_error(r, ph, 1, "EIO on f.1"), 0);
            o.agent_error(o.arg, r, ph, 1, "EIO on f.1");
        }
        if (ph == 1) {
            r->agents[1].lost = 1;
            r->agents[1].lost_at_s = 9.25;
            o.agent_lost(o.arg, r, 1, "connection reset");
        }
        for (uint32_t a = 0; a < NA; a++) {
            struct agent_phase ap;

            memset(&ap, 0, sizeof ap);
            if (ph == 1 && a == 1) {    /* salvaged, as run.c's agent_salvage */
                ap.salvaged = 1;
                ap.nintervals = 3;
                ap.duration_ns = 3ull * INTERVAL_MS * NS_PER_MS;
            } else {
                ap.duration_ns = NINT * NS_PER_SEC - 1234567 * (a + 1);
                ap.start_ns = 5000000000ull + 333333 * a;   /* a 333us skew */
                ap.cpu_user_s = 1.25 + a;
                ap.cpu_sys_s = 0.5;
                ap.cores = 4;
                ap.nintervals = NINT;
            }
            assert_int_equal(result_set_agent_phase(r, ph, a, &ap, &acc[a]), 0);
            if (!ap.salvaged) {         /* its failed ops' causes, as phase-done carries them */
                struct errcause_set *es = xmalloc(sizeof *es);
                errcause_set_init(es);
                for (int t = 0; t < OP__COUNT; t++) {
                    uint64_t e = acc[a].op[t].errors;
                    if (e > 1)
                        errcause_add(es, (enum op_type)t, ERRC_ERRNO, 5, 4096 * (uint64_t)t, 0, "/d/f.1", e - 1);
                    if (e > 0)
                        errcause_add(es, (enum op_type)t, ERRC_SHORT_READ, 0, 8192, a ? 0 : ERRCAUSE_SIZE_UNKNOWN,
                                     "/d/f.2", 1);
                }
                assert_int_equal(result_errors_match(es, &acc[a], NULL, 0), 0);
                assert_int_equal(result_set_agent_errors(r, ph, a, es), 0);
                free(es);
            }
            o.agent_phase_done(o.arg, r, ph, a, &ap);
        }
        result_phase_finish(r, ph);
        o.phase_done(o.arg, r, ph);
    }
    assert_int_equal(journal_end(j, "partial"), 0);
    assert_int_equal(journal_close(j), 0);
    free(s);
    free(acc);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *buf;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    buf = xmalloc(*len + 1);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

/* r saved again as JSON is byte for byte the file at orig. */
static void same_json(const struct run_result *r, const char *orig, const char *again, const char *from)
{
    size_t na, nb;
    char *a, *b;

    assert_int_equal(report_json_write(again, r), 0);
    a = slurp(orig, &na);
    b = slurp(again, &nb);
    if (na != nb || memcmp(a, b, na) != 0) {
        size_t i = 0;
        while (i < na && i < nb && a[i] == b[i])
            i++;
        fail_msg("JSON from the %s differs at byte %zu: '%.60s' vs '%.60s'", from, i, a + i, b + i);
    }
    free(a);
    free(b);
    unlink(again);
}

/* Every report of r, concatenated. */
static char *render(const struct run_result *r, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    assert_non_null(f);
    report_text(f, r, 1024);
    report_text(f, r, 1000);
    report_csv(f, r, 1);
    timeseries_write_all(f, r);
    report_html(f, r, 1024);
    fclose(f);
    return buf;
}

static void test_rerender_json_and_journal_exact(void **state)
{
    char dir[] = "/tmp/test_rerender.XXXXXX", json[64], jnl[80], again[80], err[512];
    struct run_result *run = xcalloc(1, sizeof *run), *back = xcalloc(1, sizeof *back);
    size_t nrun, nback;
    char *want, *got;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(jnl, sizeof jnl, "%s/r.json.journal", dir);
    snprintf(again, sizeof again, "%s/again.json", dir);
    make_run(run, jnl);
    assert_int_equal(report_json_write(json, run), 0);
    want = render(run, &nrun);
    assert_non_null(strstr(want, "stall"));           /* the shapes are there */
    assert_non_null(strstr(want, "lost at 9.2"));
    assert_non_null(strstr(want, "EIO on f.1"));
    assert_non_null(strstr(want, "x short read at offset 8192 (file size unknown) in /d/f.2"));
    assert_non_null(strstr(want, "x EIO (Input/output error), first at offset 4096 in /d/f.1"));

    assert_int_equal(result_load(json, back, err, sizeof err), 0);
    got = render(back, &nback);
    if (nrun != nback || memcmp(want, got, nrun) != 0) {
        size_t i = 0;
        while (i < nrun && i < nback && want[i] == got[i])
            i++;
        fail_msg("from the JSON: reports differ at byte %zu: '%.60s' vs '%.60s'", i, want + i, got + i);
    }
    free(got);
    same_json(back, json, again, "JSON");
    result_free(back);

    assert_int_equal(journal_load(jnl, back, err, sizeof err), 0);
    got = render(back, &nback);
    if (nrun != nback || memcmp(want, got, nrun) != 0) {
        size_t i = 0;
        while (i < nrun && i < nback && want[i] == got[i])
            i++;
        fail_msg("from the journal: reports differ at byte %zu: '%.60s' vs '%.60s'", i, want + i, got + i);
    }
    free(got);
    same_json(back, json, again, "journal");
    result_free(back);

    free(want);
    result_free(run);
    free(run);
    free(back);
    unlink(json);
    unlink(jnl);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rerender_json_and_journal_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
