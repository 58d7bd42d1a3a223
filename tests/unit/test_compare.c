/* test_compare: two results saved as JSON and read back (result_load), then
 * compared: expected ratios, matched and unmatched phases; result_load's
 * strictness (one-line error naming file and key); and, on synthetic repeat
 * sets built in memory, Welch significance against known p values,
 * direction-aware marks, text alignment at several widths, the Markdown
 * seeds' table shape, and --labels counted. */
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

#include "common/storage.h"
#include "common/xmalloc.h"
#include "coordinator/run/run_record.h"
#include "coordinator/cli/cmd_report.h"
#include "coordinator/report/compare.h"
#include "coordinator/result/result_load.h"
#include "coordinator/result/sample_stats.h"
#include "tests/unit/stats_util.h"

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

/* compare_cell's mean (ratio 0) or ratio to the baseline (1): what every
 * view prints. */
static double cell_of(const struct compare *c, uint32_t row, uint32_t j, int op, int m, int ratio)
{
    struct compare_cell cell;

    compare_cell(c, row, j, op, m, &cell);
    return ratio ? cell.ratio : cell.mean;
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
    struct run_set sets[2] = { { .n = 1, .reps = &runs[0] }, { .n = 1, .reps = &runs[1] } };
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

    compare_build(&c, sets, labels, 2);
    assert_int_equal(c.nrows, 3);                 /* r (both), w (A only), s (B only) */
    assert_string_equal(c.rows[0].name, "r");
    assert_int_equal(c.rows[0].nmissing, 0);
    assert_float_equal(cell_of(&c, 0, 1, OP_READ, CMP_IOPS, 1), 2.0, 1e-9);
    assert_float_equal(cell_of(&c, 0, 1, OP_READ, CMP_BW, 1), 2.0, 1e-9);
    assert_float_equal(cell_of(&c, 0, 0, OP_READ, CMP_IOPS, 0), 1000.0, 1e-9);
    {
        double p50a = cell_of(&c, 0, 0, OP_READ, CMP_P50, 0), p50b = cell_of(&c, 0, 1, OP_READ, CMP_P50, 0);
        assert_true(fabs(p50a - 100003) / 100003 < 0.008);   /* within the histogram's 0.78% */
        assert_float_equal(cell_of(&c, 0, 1, OP_READ, CMP_P50, 1), p50b / p50a, 1e-12);
    }
    assert_string_equal(c.rows[1].name, "w");
    assert_int_equal(c.rows[1].idx[1], -1);
    assert_true(isnan(cell_of(&c, 1, 1, OP_WRITE, CMP_IOPS, 1)));
    assert_string_equal(c.rows[2].name, "s");
    assert_int_equal(c.rows[2].idx[0], -1);
    assert_int_equal(c.rows[2].idx[1], 1);

    paths[0] = pa;
    paths[1] = pb;
    f = open_memstream(&txt, &len);
    compare_text(f, &c, paths, 1024);
    fclose(f);
    assert_non_null(strstr(txt, "2.00x better"));
    assert_non_null(strstr(txt, "unmatched phases"));
    assert_non_null(strstr(txt, "  w (randwrite, 4k): in A; missing from B\n"));
    assert_non_null(strstr(txt, "  s (read, 1m): in B; missing from A\n"));
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
    fputs("{\"schema\": 2, \"label\": \"x\", \"started\": 0, \"agents\": [], \"phases\": "
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

/* ---- synthetic repeat sets, built in memory ---- */

struct ph_spec {
    const char *name;
    enum rw_mode rw;
    uint64_t bs;
};

/* One repetition: phase i gets ops[i] ops of lat[i] ns (bs bytes each) in
 * exactly 1 s on one agent, so its IOPS is ops[i]. */
static void make_run(struct run_result *r, const char *label, const struct ph_spec *ph, int n,
                     const uint64_t *ops, const uint64_t *lat)
{
    struct plan p;

    plan_init(&p);
    for (int i = 0; i < n; i++)
        add_job(&p, ph[i].name, ph[i].rw, ph[i].bs);
    result_init(r, &p, 1, 1000);
    snprintf(r->label, sizeof(r->label), "%s", label);
    for (int i = 0; i < n; i++) {
        struct agent_phase *ap = xcalloc(1, sizeof(*ap));
        struct op_set *tot = xmalloc(sizeof(*tot));
        enum op_type t = rw_mode_writes(ph[i].rw) ? OP_WRITE : OP_READ;

        op_set_init(tot);
        for (uint64_t k = 0; k < ops[i]; k++)
            op_stats_record(&tot->op[t], ph[i].bs, lat[i], 1);
        ap->duration_ns = 1000000000ull;
        result_set_agent_phase(r, (uint32_t)i, 0, ap, tot);
        result_phase_finish(r, (uint32_t)i);
        free(tot);
        free(ap);
    }
    plan_free(&p);
}

/* A set of nrep repetitions of one phase spec list; ops[rep][phase]. */
static void make_set(struct run_set *s, const char *label, const struct ph_spec *ph, int n, uint32_t nrep,
                     const uint64_t ops[][4], const uint64_t *lat)
{
    memset(s, 0, sizeof(*s));
    s->n = nrep;
    s->reps = xcalloc(nrep, sizeof(*s->reps));
    for (uint32_t r = 0; r < nrep; r++)
        make_run(&s->reps[r], label, ph, n, ops[r], lat);
}

static void free_set(struct run_set *s)
{
    for (uint32_t r = 0; r < s->n; r++)
        result_free(&s->reps[r]);
    free(s->reps);
}

/* The view fn writes, as one string (caller frees).  The memstream's
 * buffer pointer lives on the heap: gcc's dangling-pointer check cannot
 * see that fclose ends the stream's use of it. */
static char *render(void (*fn)(FILE *, const struct compare *, const char *const *, int),
                    const struct compare *c, const char *const *paths)
{
    char **txt = xcalloc(1, sizeof(*txt)), *s;
    size_t len = 0;
    FILE *f = open_memstream(txt, &len);

    fn(f, c, paths, 1024);
    fclose(f);
    s = *txt;
    free(txt);
    return s;
}

static const struct ph_spec one_phase[] = { { "r", RW_RANDREAD, 4096 } };

/* Reference p values: Welch's test computed independently (mpmath, the t
 * density integrated numerically): A = {1000, 1010, 990} against
 * B = {1100, 1120, 1090}: t = -9.80306, df = 3.44828, p = 0.00122715;
 * against C = {1005, 985, 1015}: t = -0.158114, p = 0.883183. */
static void test_compare_significance_known_p(void **state)
{
    static const uint64_t a[3][4] = { { 1000 }, { 1010 }, { 990 } }, b[3][4] = { { 1100 }, { 1120 }, { 1090 } },
                          cc[3][4] = { { 1005 }, { 985 }, { 1015 } }, lat[1] = { 100000 };
    const char *labels[4] = { "A", "B", "C", "D" };
    struct run_set sets[4];
    struct compare c;
    struct compare_cell cell;
    struct welch_result w;
    double x[3] = { 1000, 1010, 990 }, y[3] = { 1100, 1120, 1090 };

    (void)state;
    assert_int_equal(sample_welch(x, 3, y, 3, &w), 0);
    assert_float_equal(w.t, -9.80306074652, 1e-9);
    assert_float_equal(w.df, 3.44827586207, 1e-9);
    assert_float_equal(w.p, 0.00122715135373, 1e-9);
    assert_float_equal(sample_t_quantile(0.975, 2), 4.30265272975, 1e-6);
    assert_int_equal(sample_welch(x, 1, y, 3, &w), -EINVAL);

    make_set(&sets[0], "A", one_phase, 1, 3, a, lat);
    make_set(&sets[1], "B", one_phase, 1, 3, b, lat);
    make_set(&sets[2], "C", one_phase, 1, 3, cc, lat);
    make_set(&sets[3], "D", one_phase, 1, 1, b, lat);          /* one run of B's first value */
    compare_build(&c, sets, labels, 4);
    assert_int_equal(c.nrows, 1);

    compare_cell(&c, 0, 0, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.verdict, CMP_V_BASELINE);
    assert_int_equal(cell.n, 3);
    assert_float_equal(cell.mean, 1000, 1e-9);
    assert_float_equal(cell.sd, 10, 1e-9);
    /* 1000 +- t(0.975, 2) * 10 / sqrt(3) */
    assert_float_equal(cell.ci95_lo, 1000 - 4.30265272975 * 10 / sqrt(3), 1e-5);

    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.verdict, CMP_V_SIGNIFICANT);
    assert_float_equal(cell.p, 0.00122715135373, 1e-9);
    assert_float_equal(cell.ratio, 1103.333333333 / 1000, 1e-9);
    assert_int_equal(cell.mark, CMP_MARK_BETTER);
    /* BW follows IOPS exactly (same bytes per op): the same p */
    compare_cell(&c, 0, 1, OP_READ, CMP_BW, &cell);
    assert_int_equal(cell.verdict, CMP_V_SIGNIFICANT);
    assert_float_equal(cell.p, 0.00122715135373, 1e-9);

    compare_cell(&c, 0, 2, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.verdict, CMP_V_NOISE);
    assert_float_equal(cell.p, 0.883183470314, 1e-9);
    assert_int_equal(cell.mark, CMP_MARK_SAME);              /* 1001.7 vs 1000: within 1% */

    compare_cell(&c, 0, 3, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.verdict, CMP_V_NO_VARIANCE);
    assert_int_equal(cell.n, 1);
    assert_true(isnan(cell.sd));
    assert_true(isnan(cell.p));
    assert_float_equal(cell.ratio, 1.1, 1e-12);

    /* latency has no spread (every op the same) on either side, and the
     * same value: within noise with p = 1, the mark "same" */
    compare_cell(&c, 0, 1, OP_READ, CMP_P99, &cell);
    assert_int_equal(cell.mark, CMP_MARK_SAME);
    assert_int_equal(cell.verdict, CMP_V_NOISE);

    {
        char *txt = render(compare_text, &c, labels);

        assert_non_null(strstr(txt, "significant (p=0.001)"));
        assert_non_null(strstr(txt, "within noise (p=0.883)"));
        assert_non_null(strstr(txt, "no variance known"));
        char want[64], m[32], sd[32];

        compare_fmt_value(m, sizeof(m), 1000, OP_READ, CMP_IOPS, 1024);
        compare_fmt_value(sd, sizeof(sd), 10, OP_READ, CMP_IOPS, 1024);
        snprintf(want, sizeof(want), "  read IOPS  %s \u00b1%s  ", m, sd);   /* the baseline's mean +-sd */
        assert_non_null(strstr(txt, want));
        free(txt);
    }
    {
        /* HTML: error bars where an input has repetitions (A, B, C: IOPS and
         * BW have a spread; latency is constant, so no bar), none for D */
        char *html = render(compare_html, &c, labels), *p;
        int neb = 0;
        const char *keep = getenv("TEST_COMPARE_HTML");   /* keep a copy to look at */

        for (p = html; (p = strstr(p, "class=\"eb\"")); p++)
            neb++;
        assert_int_equal(neb, 3 * 2);
        assert_non_null(strstr(html, "data-view=\"compare-iops-4k\""));
        assert_non_null(strstr(html, "\u00b110 (n=3)"));
        if (keep) {
            FILE *f = fopen(keep, "w");
            if (f) {
                fputs(html, f);
                fclose(f);
            }
        }
        free(html);
    }
    compare_free(&c);
    for (int j = 0; j < 4; j++)
        free_set(&sets[j]);
}

/* A failed repetition is left out of compare's means and test (and listed
 * with its value and why in every view); --include-failed keeps it.  A
 * phase with fewer than COMPARE_MIN_OPS_PER_THREAD ops per thread is "too
 * few ops to judge", never "significant", however small p is. */
static void test_compare_failed_left_out_too_few_ops(void **state)
{
    static const uint64_t a[3][4] = { { 1000 }, { 1010 }, { 990 } }, b[3][4] = { { 1100 }, { 3 }, { 1090 } },
                          fa[3][4] = { { 2 }, { 2 }, { 2 } }, fb[3][4] = { { 4 }, { 4 }, { 4 } }, lat[1] = { 100000 };
    const char *labels[2] = { "A", "B" };
    struct run_set sets[2];
    struct compare c;
    struct compare_cell cell;
    char buf[160], *txt;

    (void)state;
    make_set(&sets[0], "A", one_phase, 1, 3, a, lat);
    make_set(&sets[1], "B", one_phase, 1, 3, b, lat);
    result_set_agent_error(&sets[1].reps[1], 0, 0, "read: Input/output error");
    compare_build(&c, sets, labels, 2);
    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.n, 2);
    assert_int_equal(cell.nleft, 1);
    assert_float_equal(cell.mean, 1095, 1e-9);
    assert_int_equal(compare_rep_state(&c, 0, 1, 1), CMP_REP_LEFT_OUT);
    assert_int_equal(compare_left_out_total(&c), 1);
    txt = render(compare_text, &c, labels);
    assert_non_null(strstr(txt, "left out of the statistics"));
    assert_non_null(strstr(txt, "r (randread, 4k), B: repetition 2 left out (failed: "));
    assert_non_null(strstr(txt, "read IOPS 3"));
    free(txt);
    txt = render(compare_md, &c, labels);
    assert_non_null(strstr(txt, "repetition 2 left out (failed: "));
    free(txt);
    txt = render(compare_html, &c, labels);
    assert_non_null(strstr(txt, "repetition 2 left out (failed: "));
    free(txt);
    compare_free(&c);
    sets[1].include_failed = 1;
    compare_build(&c, sets, labels, 2);
    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.n, 3);
    assert_int_equal(cell.nleft, 0);
    assert_float_equal(cell.mean, (1100 + 3 + 1090) / 3.0, 1e-9);
    /* IOPS cannot go below 0: B's interval (mean 731, sd 631) is clamped */
    assert_true(cell.ci95_lo == 0.0 && cell.ci95_clamped);
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);

    /* 2 and 4 ops per thread: consistently different (Welch p < 0.001),
     * but no verdict on so few ops */
    make_set(&sets[0], "A", one_phase, 1, 3, fa, lat);
    make_set(&sets[1], "B", one_phase, 1, 3, fb, lat);
    compare_build(&c, sets, labels, 2);
    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.verdict, CMP_V_TOO_FEW_OPS);
    assert_int_equal(cell.min_ops, 2);
    assert_int_equal(cell.threads, 1);
    compare_fmt_verdict(buf, sizeof buf, &cell);
    assert_string_equal(buf, "too few ops to judge (2 ops on 1 thread)");
    txt = render(compare_text, &c, labels);
    assert_null(strstr(txt, "significant (p"));
    assert_non_null(strstr(txt, "too few ops to judge"));
    free(txt);
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);
}

/* IOPS up is better, latency up is worse, and a 0.5% change is "same". */
static void test_compare_direction_marks(void **state)
{
    static const uint64_t a[1][4] = { { 1000 } }, b[1][4] = { { 2000 } }, cc[1][4] = { { 995 } };
    static const uint64_t la[1] = { 100000 }, lb[1] = { 300000 }, lc[1] = { 50000 };
    const char *labels[3] = { "A", "B", "C" };
    struct run_set sets[3];
    struct compare c;
    struct compare_cell cell;

    (void)state;
    make_set(&sets[0], "A", one_phase, 1, 1, a, la);
    make_set(&sets[1], "B", one_phase, 1, 1, b, lb);   /* more IOPS, slower */
    make_set(&sets[2], "C", one_phase, 1, 1, cc, lc);  /* 0.5% fewer IOPS, faster */
    compare_build(&c, sets, labels, 3);
    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.mark, CMP_MARK_BETTER);
    compare_cell(&c, 0, 1, OP_READ, CMP_BW, &cell);
    assert_int_equal(cell.mark, CMP_MARK_BETTER);
    compare_cell(&c, 0, 1, OP_READ, CMP_P50, &cell);
    assert_int_equal(cell.mark, CMP_MARK_WORSE);
    compare_cell(&c, 0, 1, OP_READ, CMP_P99, &cell);
    assert_int_equal(cell.mark, CMP_MARK_WORSE);
    assert_true(cell.ratio > 2.9 && cell.ratio < 3.1);
    compare_cell(&c, 0, 2, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.mark, CMP_MARK_SAME);
    compare_cell(&c, 0, 2, OP_READ, CMP_P99, &cell);
    assert_int_equal(cell.mark, CMP_MARK_BETTER);
    assert_true(compare_higher_is_better(OP_READ, CMP_IOPS) && compare_higher_is_better(-1, CMP_JAIN));
    assert_false(compare_higher_is_better(OP_READ, CMP_P99));
    {
        char buf[64];
        compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
        compare_fmt_change(buf, sizeof(buf), &cell);
        assert_string_equal(buf, "2.00x better");
        compare_cell(&c, 0, 1, OP_READ, CMP_P99, &cell);
        compare_fmt_change(buf, sizeof(buf), &cell);
        assert_non_null(strstr(buf, "x worse"));
    }
    compare_free(&c);
    for (int j = 0; j < 3; j++)
        free_set(&sets[j]);
}

/* A repetition whose phases differ from its set's first (a hand-made set)
 * counts as missing for the row, never as a value of another phase. */
static void test_compare_mismatched_repetition(void **state)
{
    static const struct ph_spec other[] = { { "x", RW_RANDREAD, 4096 } };
    static const uint64_t a[2][4] = { { 1000 }, { 1010 } }, b[1][4] = { { 5000 } }, lat[1] = { 1000 };
    const char *labels[2] = { "A", "B" };
    struct run_set sets[2];
    struct compare c;
    struct compare_cell cell;

    (void)state;
    make_set(&sets[0], "A", one_phase, 1, 2, a, lat);
    sets[1].n = 2;
    sets[1].reps = xcalloc(2, sizeof(*sets[1].reps));
    make_run(&sets[1].reps[0], "B", one_phase, 1, b[0], lat);
    make_run(&sets[1].reps[1], "B", other, 1, b[0], lat);      /* phase "x", not "r" */
    compare_build(&c, sets, labels, 2);
    assert_int_equal(c.nrows, 1);
    compare_cell(&c, 0, 1, OP_READ, CMP_IOPS, &cell);
    assert_int_equal(cell.n, 1);
    assert_float_equal(cell.mean, 5000, 1e-9);
    assert_int_equal(cell.verdict, CMP_V_NO_VARIANCE);
    assert_true(isnan(compare_rep_value(&c, 0, 1, 1, OP_READ, CMP_IOPS)));
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);
}

/* Display columns (UTF-8 code points, "±" is one) where a cell starts:
 * after the indent, or after two spaces. */
static int col_starts(const char *line, size_t len, int *pos, int max)
{
    int n = 0, col = 2;

    for (size_t p = 2; p < len && n < max; p++) {
        if (((unsigned char)line[p] & 0xC0) == 0x80)
            continue;   /* a continuation byte: same column */
        if (line[p] != ' ' && (p == 2 || (line[p - 1] == ' ' && line[p - 2] == ' ')))
            pos[n++] = col;
        col++;
    }
    return n;
}

/* Every table of the text view (the headline, each phase's detail): every
 * row's cells start at the header's column offsets.  Returns the tables seen. */
static int check_aligned(const char *txt)
{
    const char *l = txt;
    int in = 0, ref[32], nref = 0, tables = 0;

    while (*l) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        int pos[32], n;

        if (len == 0) {
            in = 0;
        } else if (strncmp(l, "headline:", 9) == 0 || strncmp(l, "phase ", 6) == 0) {
            in = 1;
            nref = 0;
        } else if (in && strncmp(l, "  ", 2) == 0) {
            n = col_starts(l, len, pos, 32);
            if (nref == 0) {
                memcpy(ref, pos, sizeof(pos));
                nref = n;
                tables++;
                assert_true(n >= 4);
            } else {
                if (n != nref)
                    fail_msg("row has %d columns, header %d: %.*s", n, nref, (int)len, l);
                for (int k = 0; k < n; k++)
                    if (pos[k] != ref[k])
                        fail_msg("column %d starts at %d, header's at %d: %.*s", k, pos[k], ref[k], (int)len, l);
            }
        }
        l = e ? e + 1 : l + len;
    }
    return tables;
}

static void test_compare_text_aligned_any_width(void **state)
{
    static const struct ph_spec ph[] = { { "r", RW_RANDREAD, 4096 },
                                         { "a-long-phase-name-for-width", RW_READ, 32 << 20 } };
    static const uint64_t small[2][4] = { { 7, 3 }, { 9, 4 } }, big[2][4] = { { 1234567, 80 }, { 1200000, 90 } };
    static const uint64_t lat_s[2] = { 900, 2000 }, lat_b[2] = { 12000000, 450000000 };
    static const char *const label_sets[3][2] = {
        { "A", "B" },
        { "base", "an-input-label-much-wider-than-any-value" },
        { "efs-general-purpose-bursting", "x" },
    };

    (void)state;
    for (int w = 0; w < 3; w++)
        for (uint32_t nrep = 1; nrep <= 2; nrep++) {
            struct run_set sets[2];
            struct compare c;
            char *txt;

            make_set(&sets[0], label_sets[w][0], ph, 2, nrep, small, lat_s);
            make_set(&sets[1], label_sets[w][1], ph, 2, nrep, big, lat_b);
            compare_build(&c, sets, label_sets[w], 2);
            txt = render(compare_text, &c, label_sets[w]);
            /* headline + one detail table per phase */
            assert_int_equal(check_aligned(txt), 3);
            assert_non_null(strstr(txt, label_sets[w][1]));
            free(txt);
            compare_free(&c);
            free_set(&sets[0]);
            free_set(&sets[1]);
        }
}

/* Cells of a Markdown table line, trimmed. */
static int md_cells(const char *line, char cells[][48], int max)
{
    int n = 0;
    const char *p = line;

    if (*p != '|')
        return 0;
    p++;
    while (*p && *p != '\n' && n < max) {
        const char *e = strchr(p, '|');
        size_t len;

        if (!e)
            break;
        while (*p == ' ')
            p++;
        len = (size_t)(e - p);
        while (len && p[len - 1] == ' ')
            len--;
        snprintf(cells[n++], 48, "%.*s", (int)len, p);
        p = e + 1;
    }
    return n;
}

static void test_compare_md_seeds_shape(void **state)
{
    static const struct ph_spec pa[] = { { "r4", RW_RANDREAD, 4096 }, { "s32", RW_READ, 32 << 20 },
                                         { "w4", RW_RANDWRITE, 4096 } };
    static const struct ph_spec pb[] = { { "r4", RW_RANDREAD, 4096 }, { "s32", RW_READ, 32 << 20 } };
    static const uint64_t oa[1][4] = { { 2000, 50, 700 } }, ob[1][4] = { { 3000, 40 } }, lat[3] = { 1000, 1000, 1000 };
    static const char *const hdr[] = { "target", "r/w", "rand/seq", "IOPS 4k", "IOPS 32m", "BW 4k", "BW 32m" };
    const char *labels[2] = { "gp2", "io1" };
    struct run_set sets[2];
    struct compare c;
    char *txt, *l, cells[16][48], want[48];
    int n, rows = 0;

    (void)state;
    make_set(&sets[0], "gp2", pa, 3, 1, oa, lat);
    make_set(&sets[1], "io1", pb, 2, 1, ob, lat);
    compare_build(&c, sets, labels, 2);
    txt = render(compare_md, &c, labels);
    l = strstr(txt, "| target");
    assert_non_null(l);
    n = md_cells(l, cells, 16);
    assert_int_equal(n, 7);
    for (int k = 0; k < 7; k++)
        assert_string_equal(cells[k], hdr[k]);
    l = strchr(l, '\n') + 1;
    assert_int_equal(strncmp(l, "| ---", 5), 0);
    /* rows: input x (read rand, read seq, write rand); write seq ran nowhere */
    {
        static const char *const expect[6][3] = {
            { "gp2", "read", "rand" }, { "gp2", "read", "seq" }, { "gp2", "write", "rand" },
            { "io1", "read", "rand" }, { "io1", "read", "seq" }, { "io1", "write", "rand" },
        };
        for (l = strchr(l, '\n') + 1; *l == '|'; l = strchr(l, '\n') + 1, rows++) {
            n = md_cells(l, cells, 16);
            assert_int_equal(n, 7);
            assert_true(rows < 6);
            for (int k = 0; k < 3; k++)
                assert_string_equal(cells[k], expect[rows][k]);
            if (rows == 0) {
                compare_fmt_value(want, sizeof(want), 2000, OP_READ, CMP_IOPS, 1024);
                assert_string_equal(cells[3], want);
                assert_string_equal(cells[4], "-");
                compare_fmt_value(want, sizeof(want), 2000.0 * 4096, OP_READ, CMP_BW, 1024);
                assert_string_equal(cells[5], want);
            }
            if (rows == 4) {
                assert_string_equal(cells[3], "-");
                assert_string_equal(cells[4], "40");
                assert_string_equal(cells[6], "1.25GiB/s");   /* 40 x 32 MiB */
            }
            if (rows == 5)
                assert_string_equal(cells[3], "-");
        }
    }
    assert_int_equal(rows, 6);
    assert_non_null(strstr(txt, "### Every phase against the baseline"));
    free(txt);
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);
}

/* Phase i of every repetition of s ran on storage kind/where. */
static void set_storage(struct run_set *s, uint32_t i, uint32_t kind, const char *fstype, const char *where)
{
    struct storage_info st;

    memset(&st, 0, sizeof st);
    st.kind = kind;
    snprintf(st.fstype, sizeof st.fstype, "%s", fstype);
    snprintf(st.where, sizeof st.where, "%s", where);
    snprintf(st.job, sizeof st.job, "%s", s->reps[0].phases[i].name);
    for (uint32_t r = 0; r < s->n; r++)
        assert_int_equal(run_record_add_storage(&s->reps[r], i, 0, &st), 0);
}

/* The seeds' table of a plan with NFS phases (4k, 32m) and a local psync
 * control (4k, 1m): a row per job (where the phases ran), the control's
 * 1m beside its own 4k, never beside the NFS cells, and no phase dropped. */
static void test_compare_md_seeds_keyed_by_job(void **state)
{
    static const struct ph_spec ph[] = { { "nfs-4k", RW_RANDREAD, 4096 }, { "nfs-32m", RW_RANDREAD, 32 << 20 },
                                         { "ctl-4k", RW_RANDREAD, 4096 }, { "ctl-1m", RW_RANDREAD, 1 << 20 },
                                         { "md", RW_METADATA, 4096 } };
    static const uint64_t oa[1][4] = { { 20000, 40, 450000, 3000 } }, ob[1][4] = { { 21000, 44, 460000, 3100 } };
    static const uint64_t lat[4] = { 1000, 1000, 1000, 1000 };
    const char *labels[2] = { "A", "B" };
    struct run_set sets[2];
    struct compare c;
    char *txt, *l, cells[16][48], want[48];
    int n, rows = 0, seen_ctl4k = 0;

    (void)state;
    make_set(&sets[0], "A", ph, 4, 1, oa, lat);
    make_set(&sets[1], "B", ph, 4, 1, ob, lat);
    for (int j = 0; j < 2; j++) {
        set_storage(&sets[j], 0, STORAGE_NFS, "nfs", "nfs://srv/export");
        set_storage(&sets[j], 1, STORAGE_NFS, "nfs", "nfs://srv/export");
        set_storage(&sets[j], 2, STORAGE_MOUNT, "ext4", "/");
        set_storage(&sets[j], 3, STORAGE_MOUNT, "ext4", "/");
    }
    sets[1].reps[0].phases[3].finished = 0;      /* B's control 1m: no results */
    compare_build(&c, sets, labels, 2);
    txt = render(compare_md, &c, labels);
    l = strstr(txt, "| target");
    assert_non_null(l);
    n = md_cells(l, cells, 16);
    assert_int_equal(n, 10);
    assert_string_equal(cells[1], "job");
    assert_string_equal(cells[4], "IOPS 4k");
    assert_string_equal(cells[5], "IOPS 1m");
    assert_string_equal(cells[6], "IOPS 32m");
    l = strchr(strchr(l, '\n') + 1, '\n') + 1;
    for (; *l == '|'; l = strchr(l, '\n') + 1, rows++) {
        n = md_cells(l, cells, 16);
        assert_int_equal(n, 10);
        if (strcmp(cells[1], "nfs-4k, nfs-32m") == 0) {
            assert_string_equal(cells[5], "-");              /* no control cell beside NFS */
            compare_fmt_value(want, sizeof want, strcmp(cells[0], "A") == 0 ? 20000 : 21000, OP_READ,
                              CMP_IOPS, 1024);
            assert_string_equal(cells[4], want);
        } else if (strncmp(cells[1], "ctl-4k", 6) == 0) {
            seen_ctl4k++;
            compare_fmt_value(want, sizeof want, strcmp(cells[0], "A") == 0 ? 450000 : 460000, OP_READ,
                              CMP_IOPS, 1024);
            assert_string_equal(cells[4], want);
            assert_string_equal(cells[6], "-");
            if (strcmp(cells[0], "A") == 0) {
                assert_string_equal(cells[1], "ctl-4k, ctl-1m");
                assert_string_equal(cells[5], "3k");
            } else {
                assert_string_equal(cells[1], "ctl-4k");
            }
        } else {
            fail_msg("unexpected row: %s", cells[1]);
        }
    }
    assert_int_equal(rows, 4);
    assert_int_equal(seen_ctl4k, 2);
    /* what is not in the table, and why */
    assert_non_null(strstr(txt, "- B, phase ctl-1m (randread): no results (not run to completion)"));
    assert_null(strstr(txt, "phase md"));       /* (only 4 phases were filled) */
    free(txt);
    {
        /* HTML: the 4k facet's NFS (20k) and control (450k) phases are on
         * separate axes, so every bar of every chart is at least a tenth
         * of the plot's height (186 px); and the ratio-to-A chart */
        char *html = render(compare_html, &c, labels), *p = html;
        int nbars = 0;

        assert_non_null(strstr(html, "data-view=\"compare-iops-4k\""));
        assert_non_null(strstr(html, "data-view=\"compare-iops-4k-scale2\""));
        assert_non_null(strstr(html, "data-view=\"compare-ratio-iops\""));
        while ((p = strstr(p, "<rect x=\""))) {
            double x, y, w, h;

            if (sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\" fill=\"#", &x, &y, &w, &h) == 4 &&
                strstr(p, "><title>") == strchr(p, '>')) {
                nbars++;
                if (h < 18.6)
                    fail_msg("a bar %.1f px high: %.80s", h, p);
            }
            p++;
        }
        assert_true(nbars >= 2 * 4);           /* 2 inputs x 4 phases, IOPS alone */
        free(html);
    }
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);
}

/* Plans that differ only by an expanded variable: "what differs" names
 * the line, not just "plan A / plan B". */
static void test_compare_plan_lines_differ(void **state)
{
    static const uint64_t a[1][4] = { { 1000 } }, lat[1] = { 1000 };
    const char *labels[2] = { "A", "B" };
    struct run_set sets[2];
    struct compare c;
    char *txt;
    static const char *const plans[2] = {
        "[global]\nioengine=nfs\nnfs_url=nfs://127.0.0.1:2049/export/a-long-path-that-is-shared/x?version=3\n[r]\nrw=randread\n",
        "[global]\nioengine=nfs\nnfs_url=nfs://127.0.0.1:2049/export/a-long-path-that-is-shared/y?version=3\n[r]\nrw=randread\n",
    };

    (void)state;
    make_set(&sets[0], "A", one_phase, 1, 1, a, lat);
    make_set(&sets[1], "B", one_phase, 1, 1, a, lat);
    for (int j = 0; j < 2; j++) {
        sets[j].reps[0].record.present = 1;
        sets[j].reps[0].record.plan_text = xstrdup(plans[j]);
    }
    /* a long URL that differs at its end: cut where it differs too */
    set_storage(&sets[0], 0, STORAGE_NFS, "nfs", "nfs://127.0.0.1:2049/export/a-long-path-that-is-shared/x");
    set_storage(&sets[1], 0, STORAGE_NFS, "nfs", "nfs://127.0.0.1:2049/export/a-long-path-that-is-shared/y");
    compare_build(&c, sets, labels, 2);
    txt = render(compare_text, &c, labels);
    assert_non_null(strstr(txt, "  url          ...t-is-shared/x            ...t-is-shared/y\n"));
    assert_non_null(strstr(txt, "  plan         plan A"));
    /* a long line is cut where the values first differ, not at its end */
    assert_non_null(strstr(txt, "  plan line 3  ...t-is-shared/x?version=3  ...t-is-shared/y?version=3"));
    assert_null(strstr(txt, "plan line 1 "));
    free(txt);
    txt = render(compare_md, &c, labels);
    assert_non_null(strstr(txt, "| plan line 3 | nfs\\_url=nfs://127.0.0.1:2049/export/a-long-path-that-is-shared/x?version=3 |"));
    free(txt);
    compare_free(&c);
    free_set(&sets[0]);
    free_set(&sets[1]);
}

static void test_compare_bs_exact(void **state)
{
    char b[32];

    (void)state;
    assert_string_equal(compare_fmt_bs(b, sizeof(b), 4096), "4k");
    assert_string_equal(compare_fmt_bs(b, sizeof(b), 32u << 20), "32m");
    assert_string_equal(compare_fmt_bs(b, sizeof(b), 1u << 30), "1g");
    assert_string_equal(compare_fmt_bs(b, sizeof(b), 1536), "1536");
    assert_string_equal(compare_fmt_bs(b, sizeof(b), 512), "512");
}

/* --labels must name every input, no more, no fewer; a bad --format is a
 * usage error too. */
static void test_compare_labels_counted(void **state)
{
    static const char *const na[] = { "r" };
    static const enum rw_mode ra[] = { RW_RANDREAD };
    static const uint64_t oa[] = { 100 }, la[] = { 1000 };
    char dir[] = "/tmp/test_labels.XXXXXX", pa[64], pb[64];
    char l1[] = "--labels", v1[] = "one", v3[] = "a,b,c", v0[] = "a,", f1[] = "--format", fx[] = "xml";

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(pa, sizeof(pa), "%s/a.json", dir);
    snprintf(pb, sizeof(pb), "%s/b.json", dir);
    save(pa, na, ra, oa, la, 1);
    save(pb, na, ra, oa, la, 1);
    {
        char *argv1[] = { pa, pb, l1, v1 }, *argv3[] = { pa, pb, l1, v3 }, *argv0[] = { pa, pb, l1, v0 };
        char *argvf[] = { pa, pb, f1, fx };

        assert_int_equal(cmd_compare_main(4, argv1), 2);
        assert_int_equal(cmd_compare_main(4, argv3), 2);
        assert_int_equal(cmd_compare_main(4, argv0), 2);
        assert_int_equal(cmd_compare_main(4, argvf), 2);
    }
    unlink(pa);
    unlink(pb);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_ratios_and_unmatched),
        cmocka_unit_test(test_result_load_names_file_and_key),
        cmocka_unit_test(test_compare_significance_known_p),
        cmocka_unit_test(test_compare_direction_marks),
        cmocka_unit_test(test_compare_failed_left_out_too_few_ops),
        cmocka_unit_test(test_compare_mismatched_repetition),
        cmocka_unit_test(test_compare_text_aligned_any_width),
        cmocka_unit_test(test_compare_md_seeds_shape),
        cmocka_unit_test(test_compare_md_seeds_keyed_by_job),
        cmocka_unit_test(test_compare_plan_lines_differ),
        cmocka_unit_test(test_compare_bs_exact),
        cmocka_unit_test(test_compare_labels_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
