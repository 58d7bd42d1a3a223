/* test_compare: two results saved as JSON and read back (result_load), then
 * compared: expected ratios, matched and unmatched phases; and result_load's
 * strictness (one-line error naming file and key). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "common/xmalloc.h"
#include "coordinator/compare.h"
#include "coordinator/result_load.h"

static void add_job(struct plan *p, const char *name, enum rw_mode rw, uint64_t bs)
{
    struct job_spec j;

    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "%s", name);
    j.rw = rw;
    j.bs = bs;
    j.size = 1 << 20;
    j.stonewall = 1;
    plan_add_job(p, &j);
}

/* Every phase: 1 agent, n ops of lat_ns over 1 s. */
static void fill(struct run_result *r, uint32_t phase, enum op_type t, uint64_t n, uint64_t lat_ns)
{
    struct agent_phase *ap = xcalloc(1, sizeof(*ap));
    struct op_set *tot = xmalloc(sizeof(*tot));

    op_set_init(tot);
    for (uint64_t i = 0; i < n; i++)
        op_stats_record(&tot->op[t], 4096, lat_ns + i % 7, 1);
    ap->duration_ns = 1000000000ull;
    result_set_agent_phase(r, phase, 0, ap, tot);
    result_phase_finish(r, phase);
    free(tot);
    free(ap);
}

static void save(const char *path, const char *const *names, const enum rw_mode *rw,
                 const uint64_t *ops, const uint64_t *lat, int n)
{
    struct plan p;
    struct run_result r;

    plan_init(&p);
    for (int i = 0; i < n; i++)
        add_job(&p, names[i], rw[i], rw[i] == RW_READ ? 1 << 20 : 4096);
    result_init(&r, &p, 1, 1000);
    for (int i = 0; i < n; i++)
        fill(&r, (uint32_t)i, rw_mode_writes(rw[i]) ? OP_WRITE : OP_READ, ops[i], lat[i]);
    assert_int_equal(report_json_write(path, &r), 0);
    result_free(&r);
    plan_free(&p);
}

static void test_compare_ratios_and_unmatched(void **state)
{
    static const char *const na[] = { "r", "w" }, *const nb[] = { "r", "s" };
    static const enum rw_mode ra[] = { RW_RANDREAD, RW_RANDWRITE }, rb[] = { RW_RANDREAD, RW_READ };
    static const uint64_t oa[] = { 1000, 500 }, ob[] = { 2000, 100 };
    static const uint64_t la[] = { 100000, 200000 }, lb[] = { 300000, 50000 };
    char dir[] = "/tmp/test_compare.XXXXXX", pa[64], pb[64], err[256], *txt = NULL;
    const char *labels[2] = { "A", "B" }, *paths[2];
    struct run_result runs[2];
    struct compare c;
    size_t len = 0;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(pa, sizeof(pa), "%s/a.json", dir);
    snprintf(pb, sizeof(pb), "%s/b.json", dir);
    save(pa, na, ra, oa, la, 2);
    save(pb, nb, rb, ob, lb, 2);
    assert_int_equal(result_load(pa, &runs[0], err, sizeof(err)), 0);
    assert_int_equal(result_load(pb, &runs[1], err, sizeof(err)), 0);
    /* the saved buckets make the histograms exact again */
    assert_int_equal(hist_percentile(&runs[0].phases[0].totals.op[OP_READ].lat, 99),
                     hist_percentile(&result_agent_totals(&runs[0], 0, 0)->op[OP_READ].lat, 99));

    compare_build(&c, runs, labels, 2);
    assert_int_equal(c.nrows, 3);                 /* r (both), w (A only), s (B only) */
    assert_string_equal(c.rows[0].name, "r");
    assert_int_equal(c.rows[0].nmissing, 0);
    assert_float_equal(compare_ratio(&c, 0, 1, OP_READ, CMP_IOPS), 2.0, 1e-9);
    assert_float_equal(compare_ratio(&c, 0, 1, OP_READ, CMP_BW), 2.0, 1e-9);
    assert_float_equal(compare_value(&c, 0, 0, OP_READ, CMP_IOPS), 1000.0, 1e-9);
    {
        double p50a = compare_value(&c, 0, 0, OP_READ, CMP_P50), p50b = compare_value(&c, 0, 1, OP_READ, CMP_P50);
        assert_true(fabs(p50a - 100003) / 100003 < 0.008);   /* within the histogram's 0.78% */
        assert_float_equal(compare_ratio(&c, 0, 1, OP_READ, CMP_P50), p50b / p50a, 1e-12);
    }
    assert_string_equal(c.rows[1].name, "w");
    assert_int_equal(c.rows[1].idx[1], -1);
    assert_true(isnan(compare_ratio(&c, 1, 1, OP_WRITE, CMP_IOPS)));
    assert_string_equal(c.rows[2].name, "s");
    assert_int_equal(c.rows[2].idx[0], -1);
    assert_int_equal(c.rows[2].idx[1], 1);

    paths[0] = pa;
    paths[1] = pb;
    f = open_memstream(&txt, &len);
    compare_text(f, &c, paths, 1024);
    fclose(f);
    assert_non_null(strstr(txt, "(2.00x)"));
    assert_non_null(strstr(txt, "unmatched phases"));
    assert_non_null(strstr(txt, "  w (randwrite, 4KiB): in A; missing from B\n"));
    assert_non_null(strstr(txt, "  s (read, 1MiB): in B; missing from A\n"));
    free(txt);
    compare_free(&c);
    result_free(&runs[0]);
    result_free(&runs[1]);
    unlink(pa);
    unlink(pb);
    rmdir(dir);
}

static void test_result_load_names_file_and_key(void **state)
{
    char path[] = "/tmp/test_load.XXXXXX", err[256];
    struct run_result r;
    int fd;
    FILE *f;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs("{\"schema\": 1, \"label\": \"x\", \"started\": 0, \"agents\": [], \"phases\": "
          "[{\"name\": \"p\", \"rw\": \"read\", \"bs\": 4096, \"numjobs\": 1, \"njobs\": 1,"
          " \"finished\": true, \"duration_ns\": 1, \"start_skew_ns\": 0, \"interval_ms\": 1000,"
          " \"ops\": {\"read\": {\"ops\": 1, \"bytes\": 1, \"errors\": 0, \"lat_ns\": {\"min\": 1,"
          " \"mean\": 1.0, \"p50\": 1, \"p90\": 1, \"p999\": 1, \"max\": 1}}}, \"agents\": [],"
          " \"intervals\": []}]}", f);
    fclose(f);
    assert_int_equal(result_load(path, &r, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "phases[0].ops.read.lat_ns.p99: missing"));
    assert_null(strchr(err, '\n'));
    result_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_ratios_and_unmatched),
        cmocka_unit_test(test_result_load_names_file_and_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
