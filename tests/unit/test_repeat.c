/* test_repeat: repeat sets (coordinator/result/repeat.h, result_set.c): the
 * summary's figures on known inputs, the set file written and read back
 * (result_load_set) with the same numbers, hostile set files refused with
 * the key named, file names of repetitions, the exit status ordering, and
 * the text summary's alignment. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "coordinator/result/repeat.h"
#include "coordinator/result/result_load.h"
#include "coordinator/result/sample_stats.h"
#include "coordinator/run/verdict.h"
#include "tests/unit/stats_util.h"

/* One phase "r" (randread 4k) on 1 agent: ops reads of lat_ns over 1 s,
 * so its IOPS is ops. */
static void one_run(struct run_result *r, uint64_t ops, uint64_t lat_ns)
{
    struct plan p;
    struct job_spec j;
    struct agent_phase ap;
    struct op_set *tot = xmalloc(sizeof(*tot));

    plan_init(&p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "r");
    j.rw = RW_RANDREAD;
    j.bs = 4096;
    j.size = 1 << 20;
    plan_add_job(&p, &j);
    result_init(r, &p, 1, 1000);
    snprintf(r->agents[0].host, sizeof r->agents[0].host, "h");
    snprintf(r->agents[0].addr, sizeof r->agents[0].addr, "127.0.0.1:1");
    op_set_init(tot);
    for (uint64_t i = 0; i < ops; i++)
        op_stats_record(&tot->op[OP_READ], 4096, lat_ns, 1);
    memset(&ap, 0, sizeof ap);
    ap.duration_ns = 1000000000ull;
    result_set_agent_phase(r, 0, 0, &ap, tot);
    r->phases[0].ran = 1;
    result_phase_finish(r, 0);
    free(tot);
    plan_free(&p);
}

/* Runs with IOPS 10, 12, 14 (and latencies 1, 2, 3 us), 3 requested. */
static void make_set(struct run_set *s)
{
    memset(s, 0, sizeof *s);
    s->n = 3;
    s->requested = 3;
    s->interval_ns = 1500000000ull;
    s->reps = xcalloc(3, sizeof *s->reps);
    for (uint32_t k = 0; k < 3; k++)
        one_run(&s->reps[k], 10 + 2 * k, 1000 * (k + 1));
    snprintf(s->target, sizeof s->target, "tgt");
}

static void test_repeat_summary_known_values(void **state)
{
    struct run_set s;
    double x[3];
    uint32_t rep[3];
    struct sample_summary sum;
    json_t *root, *iops;
    double half = 4.302652729911275 * 2.0 / sqrt(3.0);

    (void)state;
    make_set(&s);
    assert_int_equal(repeat_values(&s, 0, OP_READ, REPEAT_IOPS, x, rep), 3);
    assert_true(fabs(x[0] - 10) < 1e-9 && fabs(x[1] - 12) < 1e-9 && fabs(x[2] - 14) < 1e-9);
    assert_int_equal(rep[2], 2);
    sample_summarize(x, 3, &sum);
    assert_true(fabs(sum.mean - 12) < 1e-9);
    assert_true(fabs(sum.sd - 2) < 1e-9);
    assert_true(fabs(sum.ci95_lo - (12 - half)) < 1e-6 && fabs(sum.ci95_hi - (12 + half)) < 1e-6);
    /* the bandwidth is IOPS x 4 KiB */
    assert_int_equal(repeat_values(&s, 0, OP_READ, REPEAT_BW, x, NULL), 3);
    assert_true(fabs(x[1] - 12 * 4096.0) < 1e-6);

    root = repeat_set_json(&s);
    assert_non_null(root);
    iops = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(
        json_object_get(root, "summary"), "phases"), 0), "ops"), "read"), "iops");
    assert_int_equal(json_integer_value(json_object_get(iops, "n")), 3);
    assert_true(fabs(json_real_value(json_object_get(iops, "mean")) - 12) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(iops, "sd")) - 2) < 1e-9);
    assert_true(fabs(json_real_value(json_array_get(json_object_get(iops, "ci95"), 0)) - (12 - half)) < 1e-6);
    assert_true(fabs(json_real_value(json_array_get(json_object_get(iops, "ci95"), 1)) - (12 + half)) < 1e-6);
    assert_int_equal(json_array_size(json_object_get(iops, "values")), 3);
    assert_int_equal(json_integer_value(json_object_get(root, "repeat")), 3);
    assert_true(fabs(json_real_value(json_object_get(root, "repeat_interval_s")) - 1.5) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(root, "target")), "tgt");
    assert_int_equal(json_array_size(json_object_get(root, "repetitions")), 3);
    json_decref(root);
    run_set_free(&s);
}

/* One value: no spread known, written as null. */
static void test_repeat_single_value_null_sd(void **state)
{
    struct run_set s;
    json_t *root, *iops;

    (void)state;
    make_set(&s);
    for (uint32_t k = 1; k < 3; k++) {       /* SIGINT: not averaged in */
        s.reps[k].phases[0].interrupted = 1;
        s.reps[k].end = RUN_END_INTERRUPTED;
        snprintf(s.reps[k].end_text, sizeof s.reps[k].end_text, "SIGINT");
    }
    root = repeat_set_json(&s);
    iops = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(
        json_object_get(root, "summary"), "phases"), 0), "ops"), "read"), "iops");
    assert_int_equal(json_integer_value(json_object_get(iops, "n")), 1);
    assert_true(json_is_null(json_object_get(iops, "sd")));
    assert_true(json_is_null(json_object_get(iops, "ci95")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(json_object_get(
        json_object_get(root, "summary"), "phases"), 0), "verdicts"), 1)), "interrupted");
    assert_int_equal(repeat_exit_status(&s), 130);
    json_decref(root);
    run_set_free(&s);
}

/* The text summary of s, as one string (caller frees). */
static char *summary_text(const struct run_set *s)
{
    char **txt = xcalloc(1, sizeof(*txt)), *out;
    size_t len = 0;
    FILE *f = open_memstream(txt, &len);

    repeat_report_text(f, s, 1024);
    fclose(f);
    out = *txt;
    free(txt);
    return out;
}

static json_t *summary_iops(json_t *root)
{
    return json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(
        json_object_get(root, "summary"), "phases"), 0), "ops"), "read"), "iops");
}

/* A repetition whose phase failed (an agent's error) is left out of the
 * mean, sd and CI by default, and shown: its value, its verdict and why,
 * in the text and the JSON.  --include-failed (s.include_failed) keeps it. */
static void test_repeat_failed_left_out(void **state)
{
    struct run_set s;
    json_t *root, *iops, *left;
    double x[3];
    char *txt;

    (void)state;
    make_set(&s);
    result_free(&s.reps[1]);
    one_run(&s.reps[1], 1, 1000);                 /* 1 IOPS ... */
    result_set_agent_error(&s.reps[1], 0, 0, "read: Input/output error");   /* ... and failed */

    assert_int_equal(repeat_values(&s, 0, OP_READ, REPEAT_IOPS, x, NULL), 2);
    assert_true(fabs((x[0] + x[1]) / 2 - 12) < 1e-9);        /* 10 and 14 */
    assert_true(repeat_left_out(&s, 0, 1) && !repeat_left_out(&s, 0, 0));
    root = repeat_set_json(&s);
    iops = summary_iops(root);
    assert_int_equal(json_integer_value(json_object_get(iops, "n")), 2);
    assert_true(fabs(json_real_value(json_object_get(iops, "mean")) - 12) < 1e-9);
    assert_int_equal(json_array_size(json_object_get(iops, "left_out_values")), 1);
    assert_true(fabs(json_real_value(json_array_get(json_object_get(iops, "left_out_values"), 0)) - 1) < 1e-9);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(iops, "left_out_repetitions"), 0)), 2);
    left = json_object_get(json_array_get(json_object_get(json_object_get(root, "summary"), "phases"), 0),
                           "left_out");
    assert_int_equal(json_array_size(left), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(left, 0), "repetition")), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(left, 0), "verdict")), "failed");
    assert_true(json_is_false(json_object_get(json_object_get(root, "summary"), "include_failed")));
    json_decref(root);
    txt = summary_text(&s);
    assert_non_null(strstr(txt, "repetition 2 left out of the statistics (failed: "));
    assert_non_null(strstr(txt, "Input/output error"));
    assert_non_null(strstr(txt, "--include-failed"));
    free(txt);

    s.include_failed = 1;
    assert_int_equal(repeat_values(&s, 0, OP_READ, REPEAT_IOPS, x, NULL), 3);
    assert_false(repeat_left_out(&s, 0, 1));
    root = repeat_set_json(&s);
    iops = summary_iops(root);
    assert_true(fabs(json_real_value(json_object_get(iops, "mean")) - 25.0 / 3) < 1e-9);
    assert_true(json_is_true(json_object_get(json_object_get(root, "summary"), "include_failed")));
    json_decref(root);
    /* an interrupted repetition never counts, --include-failed or not */
    s.reps[2].phases[0].interrupted = 1;
    s.reps[2].end = RUN_END_INTERRUPTED;
    snprintf(s.reps[2].end_text, sizeof s.reps[2].end_text, "SIGINT");
    assert_int_equal(repeat_values(&s, 0, OP_READ, REPEAT_IOPS, x, NULL), 2);
    assert_true(repeat_left_out(&s, 0, 2));
    run_set_free(&s);
}

/* IOPS 1, 2 and 100: mean 34.3, sd 56.6, the t interval's low end is
 * -106; an IOPS interval never goes below zero: clamped, and said. */
static void test_repeat_ci_clamped(void **state)
{
    struct run_set s;
    json_t *root, *iops;
    char *txt;
    static const uint64_t ops[3] = { 1, 2, 100 };

    (void)state;
    make_set(&s);
    for (uint32_t k = 0; k < 3; k++) {
        result_free(&s.reps[k]);
        one_run(&s.reps[k], ops[k], 1000);
    }
    root = repeat_set_json(&s);
    iops = summary_iops(root);
    assert_int_equal(json_integer_value(json_object_get(iops, "n")), 3);
    assert_true(json_real_value(json_array_get(json_object_get(iops, "ci95"), 0)) == 0.0);
    assert_true(json_real_value(json_array_get(json_object_get(iops, "ci95"), 1)) > 100);
    assert_true(json_is_true(json_object_get(iops, "ci95_clamped")));
    json_decref(root);
    txt = summary_text(&s);
    assert_non_null(strstr(txt, "0* .. "));
    assert_non_null(strstr(txt, "IOPS interval clamped at 0 (mean - t*sd/sqrt(n) is -"));
    {
        /* the table's IOPS row has no negative figure (the note names the raw end) */
        char *row = strstr(txt, " IOPS "), *eol = row ? strchr(row, '\n') : NULL;

        assert_non_null(eol);
        for (char *p = row; p < eol; p++)
            assert_false(p[0] == '-' && p[1] >= '0' && p[1] <= '9');
    }
    free(txt);
    run_set_free(&s);
}

static void test_repeat_set_round_trip(void **state)
{
    struct run_set s, back;
    char path[] = "/tmp/test_repeat.XXXXXX", err[512];
    double a[3], b[3];
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_set(&s);
    assert_int_equal(repeat_set_write(path, &s), 0);
    assert_int_equal(result_load_set(path, &back, err, sizeof err), 0);
    assert_int_equal(back.n, 3);
    assert_int_equal(back.requested, 3);
    assert_int_equal(back.interval_ns, 1500000000ull);
    assert_string_equal(back.target, "tgt");
    assert_int_equal(back.interrupted, 0);
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(back.reps[k].phases[0].totals.op[OP_READ].ops, 10 + 2 * k);
    for (int m = 0; m < REPEAT__METRICS; m++) {
        assert_int_equal(repeat_values(&s, 0, OP_READ, (enum repeat_metric)m, a, NULL), 3);
        assert_int_equal(repeat_values(&back, 0, OP_READ, (enum repeat_metric)m, b, NULL), 3);
        for (int i = 0; i < 3; i++)
            assert_true(fabs(a[i] - b[i]) <= 1e-9 * fabs(a[i]));
    }
    assert_int_equal(repeat_exit_status(&back), 0);
    run_set_free(&back);

    /* a plain result is a set of one, not a repeat set */
    assert_int_equal(report_json_write(path, &s.reps[1]), 0);
    assert_int_equal(result_load_set(path, &back, err, sizeof err), 0);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.requested, 0);
    assert_int_equal(back.reps[0].phases[0].totals.op[OP_READ].ops, 12);
    run_set_free(&back);
    run_set_free(&s);
    unlink(path);
}

/* Write the set with one change (edit), load it, expect failure naming want. */
static void refused(const char *path, void (*edit)(json_t *root), const char *want)
{
    struct run_set s, back;
    json_t *root;
    char err[512] = "";

    make_set(&s);
    root = repeat_set_json(&s);
    edit(root);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);
    assert_int_equal(result_load_set(path, &back, err, sizeof err), -EINVAL);
    if (!strstr(err, want))
        fail_msg("error '%s' does not say '%s'", err, want);
    assert_null(back.reps);
    run_set_free(&back);
    run_set_free(&s);
}

static json_t *rep_at(json_t *root, size_t k)
{
    return json_array_get(json_object_get(root, "repetitions"), k);
}
static void no_reps(json_t *r) { json_object_del(r, "repetitions"); }
static void huge_repeat(json_t *r) { json_object_set_new(r, "repeat", json_integer(1000000)); }
static void fewer_repeat(json_t *r) { json_object_set_new(r, "repeat", json_integer(2)); }
static void no_repeat(json_t *r) { json_object_del(r, "repeat"); }
static void version2(json_t *r) { json_object_set_new(r, "nfstorm_repeat_set", json_integer(2)); }
static void empty_reps(json_t *r) { json_array_clear(json_object_get(r, "repetitions")); }
static void rep_not_object(json_t *r) { json_array_set_new(json_object_get(r, "repetitions"), 1, json_integer(5)); }
static void bad_interval(json_t *r) { json_object_set_new(r, "repeat_interval_s", json_real(-1)); }
static void bad_target(json_t *r) { json_object_set_new(r, "target", json_integer(3)); }
static void no_ops(json_t *r)
{
    json_object_del(json_array_get(json_object_get(rep_at(r, 1), "phases"), 0), "ops");
}
static void other_phase(json_t *r)
{
    json_object_set_new(json_array_get(json_object_get(rep_at(r, 2), "phases"), 0), "name", json_string("zz"));
}
static void extra_phase(json_t *r)
{
    json_t *ph = json_object_get(rep_at(r, 1), "phases");
    json_array_append_new(ph, json_deep_copy(json_array_get(ph, 0)));
}

static void test_repeat_set_hostile(void **state)
{
    char path[] = "/tmp/test_repeat.XXXXXX";
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    refused(path, no_reps, ": repetitions: missing");
    refused(path, huge_repeat, ": repeat: want an integer in 1..1000");
    refused(path, no_repeat, ": repeat: missing");
    refused(path, fewer_repeat, ": repetitions: has 3 elements, more than repeat (2)");
    refused(path, version2, ": nfstorm_repeat_set: unsupported version");
    refused(path, empty_reps, ": repetitions: empty");
    refused(path, rep_not_object, ": repetitions[1]: not an object");
    refused(path, bad_interval, ": repeat_interval_s: want a number");
    refused(path, bad_target, ": target: want a string");
    refused(path, no_ops, ": repetitions[1].phases[0].ops: missing");
    refused(path, other_phase, ": repetitions[2].phases[0]: 'zz'");
    refused(path, extra_phase, ": repetitions[1].phases: 2 phases, repetitions[0] has 1");
    /* the file name leads every message */
    {
        struct run_set back;
        char err[512];
        FILE *f = fopen(path, "w");

        fputs("{\"nfstorm_repeat_set\": 1, \"repeat\": \"3\"}", f);
        fclose(f);
        assert_int_equal(result_load_set(path, &back, err, sizeof err), -EINVAL);
        assert_int_equal(strncmp(err, path, strlen(path)), 0);
        run_set_free(&back);
    }
    unlink(path);
}

/* A journal is a set of one: the run, cut short when it has no end record
 * (as `nfstorm report` marks it), and a broken one refused with file:line. */
static void test_repeat_set_from_journal(void **state)
{
    static const char hdr[] = "{\"type\":\"header\",\"schema\":2,\"nagents\":1,\"interval_ms\":1000,\"started\":0,"
        "\"agents\":[],\"phases\":[{\"name\":\"a\",\"rw\":\"read\",\"bs\":4096,\"numjobs\":1,\"njobs\":1}]}\n"
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"ops\":{}}\n";
    char path[] = "/tmp/test_repeat.XXXXXX", err[512];
    struct run_set s;
    int fd = mkstemp(path);
    FILE *f;

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    f = fopen(path, "w");
    fputs(hdr, f);
    fclose(f);
    assert_int_equal(result_load_set(path, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.requested, 0);
    assert_int_equal(s.reps[0].nphases, 1);
    assert_int_equal(s.reps[0].end, RUN_END_INTERRUPTED);          /* cut short */
    assert_non_null(strstr(s.reps[0].end_text, "no end record"));
    run_set_free(&s);

    f = fopen(path, "a");
    fputs("garbage\n", f);
    fclose(f);
    assert_true(result_load_set(path, &s, err, sizeof err) < 0);
    assert_non_null(strstr(err, ":3: not a journal line"));
    assert_null(s.reps);
    run_set_free(&s);
    unlink(path);
}

static void test_repeat_file_name(void **state)
{
    char b[128];

    (void)state;
    assert_string_equal(repeat_file_name(b, sizeof b, "a.csv", 2), "a.rep2.csv");
    assert_string_equal(repeat_file_name(b, sizeof b, "out/x.y/a", 1), "out/x.y/a.rep1");
    assert_string_equal(repeat_file_name(b, sizeof b, "dir/.hidden", 3), "dir/.hidden.rep3");
    assert_string_equal(repeat_file_name(b, sizeof b, "t.tar.gz", 10), "t.tar.rep10.gz");
}

static void test_repeat_worse_status(void **state)
{
    (void)state;
    assert_int_equal(repeat_worse_status(0, 3), 3);
    assert_int_equal(repeat_worse_status(3, 1), 1);
    assert_int_equal(repeat_worse_status(1, 3), 1);
    assert_int_equal(repeat_worse_status(1, 130), 130);
    assert_int_equal(repeat_worse_status(130, 0), 130);
    assert_int_equal(repeat_worse_status(130, 2), 2);
}

/* Every table row, header included, is as wide as the header: the
 * columns line up whatever the figures. */
static void test_repeat_text_aligned(void **state)
{
    struct run_set s;
    char *txt = NULL, *line, *save = NULL;
    size_t len = 0, head = 0;
    int rows = 0;
    FILE *f = open_memstream(&txt, &len);

    (void)state;
    make_set(&s);
    s.reps[2].phases[0].totals.op[OP_READ].lat.max_ns = 5000000000ull;   /* no effect on the table */
    repeat_report_text(f, &s, 1024);
    fclose(f);
    if (!strstr(txt, "repeat set (unlabelled), target tgt: 3 of 3 repetitions, 1.5s apart"))
        fprintf(stderr, "%s", txt);
    assert_non_null(strstr(txt, "repeat set (unlabelled), target tgt: 3 of 3 repetitions, 1.5s apart"));
    assert_non_null(strstr(txt, "verdicts: 3/3 ok"));
    assert_non_null(strstr(txt, "exit status 0 (the worst of 3 repetitions)"));
    for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "phase ", 6) == 0) {
            head = strlen(line);
            continue;
        }
        if (!head)
            continue;
        if (strstr(line, "verdicts:"))
            break;
        assert_int_equal(strlen(line), head);
        rows++;
    }
    assert_int_equal(rows, 4);     /* IOPS, bandwidth, p50, p99 */
    free(txt);
    run_set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat_summary_known_values),
        cmocka_unit_test(test_repeat_single_value_null_sd),
        cmocka_unit_test(test_repeat_failed_left_out),
        cmocka_unit_test(test_repeat_ci_clamped),
        cmocka_unit_test(test_repeat_set_round_trip),
        cmocka_unit_test(test_repeat_set_hostile),
        cmocka_unit_test(test_repeat_set_from_journal),
        cmocka_unit_test(test_repeat_file_name),
        cmocka_unit_test(test_repeat_worse_status),
        cmocka_unit_test(test_repeat_text_aligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
