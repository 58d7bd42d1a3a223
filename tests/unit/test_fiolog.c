/* Unit tests for fio's log files and JSON option objects:
 * common/plan_log.c (the keys and their errors), coordinator/run/fiolog.c
 * (file names, fio's histogram line, the run's interval) and
 * coordinator/cli/fio_opts.c (options back from the plan text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/plan.h"
#include "common/plan_parse.h"
#include "coordinator/cli/fio_opts.h"
#include "coordinator/run/fiolog.h"

static void parse(const char *text, struct plan *p)
{
    char err[512] = "";
    if (plan_parse_string("t.fio", text, p, err, sizeof(err)))
        fail_msg("parse failed: %s", err);
}

static void test_plan_log_keys_parse(void **state)
{
    struct plan p;
    const struct job_log *l;

    (void)state;
    parse("[a]\nsize=1m\nwrite_bw_log\nwrite_lat_log=pfx\nwrite_iops_log=1\nlog_avg_msec=250\n"
          "log_hist_msec=500\nlog_hist_coarseness=2\nper_job_logs=0\nlog_offset=1\nlat_percentiles=1\n", &p);
    l = &p.phases[0].jobs[0].log;
    assert_int_equal(l->mask, (1 << PLAN_LOG_BW) | (1 << PLAN_LOG_LAT) | (1 << PLAN_LOG_IOPS));
    assert_string_equal(plan_log_prefix(l, PLAN_LOG_BW, "a"), "a");      /* bare: the job's name */
    assert_string_equal(plan_log_prefix(l, PLAN_LOG_LAT, "a"), "pfx");
    assert_string_equal(plan_log_prefix(l, PLAN_LOG_IOPS, "a"), "a");    /* "1" means on */
    assert_int_equal(l->avg_msec, 250);
    assert_int_equal(l->hist_msec, 500);
    assert_int_equal(l->hist_coarseness, 2);
    assert_int_equal(l->per_job_logs, 0);
    assert_int_equal(l->log_offset, 1);
    assert_int_equal(l->lat_percentiles, 1);
    assert_int_equal(l->clat_percentiles, 1);
    assert_int_equal(p.nwarnings, 0);          /* no longer "ignored" */
    plan_free(&p);
}

static void test_plan_log_keys_errors(void **state)
{
    struct job_log l;
    char why[128];

    (void)state;
    plan_log_default(&l);
    assert_int_equal(plan_log_set(&l, "log_avg_msec", "5", why, sizeof(why)), -EINVAL);
    assert_string_equal(why, "want milliseconds, 0 or 10..3600000");
    assert_int_equal(plan_log_set(&l, "log_avg_msec", "3600001", why, sizeof(why)), -EINVAL);
    assert_int_equal(plan_log_set(&l, "log_hist_coarseness", "11", why, sizeof(why)), -EINVAL);
    assert_int_equal(plan_log_set(&l, "per_job_logs", "2", why, sizeof(why)), -EINVAL);
    assert_string_equal(why, "want 0 or 1");
    assert_int_equal(plan_log_set(&l, "nope", "1", why, sizeof(why)), -ENOENT);
    assert_int_equal(plan_log_set(&l, "write_bw_log", "x", why, sizeof(why)), 0);
    assert_int_equal(plan_log_set(&l, "write_bw_log", "0", why, sizeof(why)), 0);
    assert_int_equal(l.mask, 0);
    {
        char big[400];
        memset(big, 'p', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        assert_int_equal(plan_log_set(&l, "write_hist_log", big, why, sizeof(why)), -EINVAL);
        assert_string_equal(why, "file prefix longer than 255 bytes");
    }
}

static void test_fiolog_names(void **state)
{
    char b[128];

    (void)state;
    fiolog_name(b, sizeof(b), "x", -1, "bw", 1, 1);
    assert_string_equal(b, "x_bw.1.log");
    fiolog_name(b, sizeof(b), "x", 3, "clat_hist", 2, 1);
    assert_string_equal(b, "x_clat_hist.2.agent3");
    fiolog_name(b, sizeof(b), "dir/x", -1, "iops", 7, 0);
    assert_string_equal(b, "dir/x_iops.log");
    fiolog_name(b, sizeof(b), "x", 0, "lat", 7, 0);
    assert_string_equal(b, "x_lat.agent0");
}

/* Parse one hist line back into its numbers. */
static unsigned split(char *line, uint64_t *v, unsigned max)
{
    unsigned n = 0;
    for (char *t = strtok(line, ", \n"); t && n < max; t = strtok(NULL, ", \n"))
        v[n++] = strtoull(t, NULL, 10);
    return n;
}

static void test_fiolog_hist_line_bins(void **state)
{
    struct hist *h = malloc(sizeof(*h));
    static uint64_t v[4000];
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    unsigned n;

    (void)state;
    hist_init(h);
    hist_record(h, 5);                  /* exact: bin 5 */
    hist_record(h, 1000);               /* fio's bin of 1000 ns is nfstorm's bucket */
    hist_record(h, UINT64_C(60) * 1000000000);   /* 60 s: beyond fio's range, its last bin */
    f = open_memstream(&buf, &len);
    fiolog_hist_line(f, 500, 1, 4096, h, 0);
    fclose(f);
    n = split(buf, v, 4000);
    assert_int_equal(n, 3 + FIOLOG_PLAT_NR);
    assert_int_equal(v[0], 500);
    assert_int_equal(v[1], 1);
    assert_int_equal(v[2], 4096);
    assert_int_equal(v[3 + 5], 1);
    assert_int_equal(v[3 + hist_bucket_of(1000)], 1);
    assert_int_equal(v[3 + FIOLOG_PLAT_NR - 1], 1);
    free(buf);
    /* coarseness 2: groups of 4 bins, 464 of them */
    buf = NULL;
    f = open_memstream(&buf, &len);
    fiolog_hist_line(f, 0, 0, 0, h, 2);
    fclose(f);
    n = split(buf, v, 4000);
    assert_int_equal(n, 3 + FIOLOG_PLAT_NR / 4);
    assert_int_equal(v[3 + 1], 1);      /* 5 is in bins 4..7 */
    assert_int_equal(v[n - 1], 1);
    free(buf);
    free(h);
}

static void test_fiolog_plan_interval(void **state)
{
    struct plan p;
    uint32_t ms = 1000;
    char err[256] = "";

    (void)state;
    parse("[a]\nsize=1m\nrw=read\n", &p);
    assert_int_equal(fiolog_plan_wants(&p), 0);
    assert_int_equal(fiolog_plan_interval(&p, 0, &ms, err, sizeof(err)), 0);
    assert_int_equal(ms, 1000);
    plan_free(&p);
    parse("[a]\nsize=1m\nwrite_bw_log\nlog_avg_msec=250\nlog_hist_msec=750\n", &p);
    assert_int_equal(fiolog_plan_interval(&p, 0, &ms, err, sizeof(err)), 0);
    assert_int_equal(ms, 250);
    ms = 500;
    assert_int_equal(fiolog_plan_interval(&p, 1, &ms, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "job 'a': log_avg_msec=250 asks for 250 ms intervals, --interval says 500 ms");
    plan_free(&p);
    ms = 1000;
    parse("[a]\nsize=1m\nwrite_hist_log\nlog_hist_msec=300\n", &p);   /* hist alone sets it */
    assert_int_equal(fiolog_plan_interval(&p, 0, &ms, err, sizeof(err)), 0);
    assert_int_equal(ms, 300);
    plan_free(&p);
}

static void test_fio_opts_sections(void **state)
{
    const char *text = "[global]\nsize=1m\nbs=4k\n[a]\nrw=read\ntime_based\nbs=8k\n[global]\niodepth=4\n"
                       "[b]\nrw=write\n[a]\nrw=randread\n";
    json_t *g, *a, *b, *none;
    char *s;

    (void)state;
    g = fio_opts_section(text, NULL);
    s = json_dumps(g, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, "{\"size\":\"1m\",\"bs\":\"4k\",\"iodepth\":\"4\"}");
    free(s);
    a = fio_opts_section(text, "a");   /* the first [a] only */
    s = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, "{\"rw\":\"read\",\"time_based\":\"\",\"bs\":\"8k\"}");
    free(s);
    b = fio_opts_section(text, "b");
    assert_int_equal(json_object_size(b), 1);
    none = fio_opts_section(NULL, "a");
    assert_int_equal(json_object_size(none), 0);
    json_decref(g);
    json_decref(a);
    json_decref(b);
    json_decref(none);
    /* the command-line form: name= starts a job, options before it are global */
    g = fio_opts_section("directory=/x\nname=j\nrw=read\nname=k\nrw=write\n", NULL);
    a = fio_opts_section("directory=/x\nname=j\nrw=read\nname=k\nrw=write\n", "k");
    s = json_dumps(g, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, "{\"directory\":\"/x\"}");
    free(s);
    s = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, "{\"name\":\"k\",\"rw\":\"write\"}");
    free(s);
    json_decref(g);
    json_decref(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_log_keys_parse),
        cmocka_unit_test(test_plan_log_keys_errors),
        cmocka_unit_test(test_fiolog_names),
        cmocka_unit_test(test_fiolog_hist_line_bins),
        cmocka_unit_test(test_fiolog_plan_interval),
        cmocka_unit_test(test_fio_opts_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
