/* test_limits: the --limits file (coordinator/result/limits.c), the forecast of
 * a plan's metered load, credit drain and cost against hand calculations
 * (coordinator/result/limits_model.c), the judgement against a cap, and the
 * CloudWatch metrics file's checks (coordinator/result/ext_metrics.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/plan_parse.h"
#include "coordinator/result/ext_metrics.h"
#include "coordinator/result/limits.h"
#include "coordinator/result/limits_model.h"

#define MIB (1024.0 * 1024.0)

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/test_limits.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static int load_text(const char *text, struct limits *l, char *err, size_t errlen)
{
    char *p = write_tmp(text);
    int rc = limits_load(p, l, err, errlen);
    unlink(p);
    free(p);
    return rc;
}

/* The model the three plans below run against:
 *   per-client cap 100 MiB/s; reads metered at 1/3;
 *   1 TiB of credits; baseline 50 KiB/s per GiB; burst 100 MiB/s, or
 *   100 MiB/s per TiB; 0.03 per GB read, 0.06 per GB written, 1.5 an hour;
 *   --fs-size 200GiB: baseline = 50 KiB/s x 200 = 10000 KiB/s
 *   = 9.765625 MiB/s; burst = max(100, 100 x 200/1024) = 100 MiB/s. */
static const char model[] =
    "# a test model\n"
    "[limits]\n"
    "name = test model\n"
    "client_throughput = 100MiB/s\n"
    "read_metering = 1/3\n"
    "[credits]\n"
    "initial = 1TiB\n"
    "baseline_per_gib = 50KiB/s\n"
    "burst = 100MiB/s\n"
    "burst_per_tib = 100MiB/s\n"
    "[prices]\n"
    "read_per_gb = 0.03\n"
    "write_per_gb = 0.06\n"
    "per_hour = 1.5\n";

static void forecast_of(const char *plan_text, uint32_t nagents, struct limits_forecast *f)
{
    struct limits l;
    struct plan p;
    char err[512];

    assert_int_equal(load_text(model, &l, err, sizeof err), 0);
    assert_int_equal(limits_set_fs_size(&l, "200GiB", err, sizeof err), 0);
    assert_int_equal(plan_parse_string("t.fio", plan_text, &p, err, sizeof err), 0);
    limits_forecast(&l, &p, nagents, f);
    plan_free(&p);
}

static void test_limits_load_model(void **state)
{
    struct limits l;
    char err[512];
    (void)state;
    assert_int_equal(load_text(model, &l, err, sizeof err), 0);
    assert_string_equal(l.name, "test model");
    assert_true(fabs(l.client_bps - 100 * MIB) < 1);
    assert_true(fabs(l.read_metering - 1.0 / 3) < 1e-12);
    assert_true(fabs(l.write_metering - 1) < 1e-12);
    assert_true(fabs(l.credits_initial - 1024 * 1024 * MIB) < 1);
    assert_true(l.has_credits && l.has_prices);
    assert_string_equal(l.currency, "USD");
    assert_int_equal(limits_set_fs_size(&l, "200GiB", err, sizeof err), 0);
    assert_true(fabs(limits_baseline_bps(&l) - 9.765625 * MIB) < 1);
    assert_true(fabs(limits_burst_bps(&l) - 100 * MIB) < 1);
    assert_int_equal(limits_set_fs_size(&l, "2.5TiB", err, sizeof err), 0);
    assert_true(fabs(limits_burst_bps(&l) - 250 * MIB) < 1);
    assert_int_equal(limits_set_fs_size(&l, "lots", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "--fs-size: bad value 'lots'"));
}

/* Plan 1: 2 agents x 2 threads of rate=20m writes for 1 h.
 *   raw 4 x 20 = 80 MiB/s, under the caps (2 x 100 client, burst 100 metered);
 *   metered 80 MiB/s (writes x 1);
 *   drain = 1 TiB / (80 - 9.765625) MiB/s = 1048576 / 70.234375 = 14929.67 s (4.1 h)
 *   > 3600 s: the run is shorter than the drain;
 *   written 80 MiB/s x 3600 s = 288000 MiB = 301.989888 GB: 18.1193933 + 1.5 h-price = 19.6193933. */
static void test_limits_forecast_rate_limited_write(void **state)
{
    struct limits_forecast f;
    (void)state;
    forecast_of("[w]\nrw=write\nbs=1m\nsize=1g\nrate=20m\nnumjobs=2\nruntime=1h\ntime_based\n", 2, &f);
    assert_true(f.load_known);
    assert_false(f.from_caps);
    assert_true(fabs(f.duration_s - 3600) < 1e-6);
    assert_true(fabs(f.metered_bps - 80 * MIB) < 1);
    assert_true(fabs(f.drain_s - 14929.67) < 0.01);
    assert_true(f.shorter_than_drain);
    assert_true(fabs(f.write_bytes - 301989888000.0) < 1);
    assert_true(fabs(f.cost - 19.6193933) < 1e-6);
}

/* Plan 2: 4 agents reading without a rate limit for 10 h: an open load.
 *   caps: clients 4 x 100 = 400 MiB/s raw; burst 100 MiB/s metered = 300 MiB/s
 *   of reads (x 1/3): the load is 300 MiB/s raw, 100 MiB/s metered;
 *   drain = 1048576 / (100 - 9.765625) = 11620.58 s (3.2 h) < 36000 s: not shorter;
 *   read 300 x 36000 = 10800000 MiB = 11324.620800 GB: 339.738624 + 10 h x 1.5 = 354.738624. */
static void test_limits_forecast_open_read(void **state)
{
    struct limits_forecast f;
    (void)state;
    forecast_of("[r]\nrw=read\nbs=1m\nsize=1g\nruntime=10h\ntime_based\n", 4, &f);
    assert_true(f.load_known);
    assert_true(f.from_caps);
    assert_true(fabs(f.metered_bps - 100 * MIB) < 1);
    assert_true(fabs(f.read_bytes - 300 * MIB * 36000) < 1);
    assert_true(fabs(f.drain_s - 11620.58) < 0.01);
    assert_false(f.shorter_than_drain);
    assert_true(fabs(f.cost - 354.738624) < 1e-6);
}

/* Plan 3: two phases on 1 agent.
 *   phase 1: randrw 75% reads, rate_iops=160 of 64 KiB = 10 MiB/s for 30 min:
 *     reads 7.5, writes 2.5 MiB/s; metered 7.5/3 + 2.5 = 5 MiB/s;
 *   phase 2: 3 GiB written at rate=30m, no runtime: 3072 / 30 = 102.4 s, metered 30 MiB/s;
 *   metered 5 x 1800 + 30 x 102.4 = 12072 MiB over 1902.4 s = 6.3457 MiB/s,
 *   under the 9.765625 MiB/s baseline: the credits never run out;
 *   read 7.5 x 1800 = 13500 MiB, written 2.5 x 1800 + 3072 = 7572 MiB:
 *   14.155776 GB x 0.03 + 7.939817 GB x 0.06 + 1902.4/3600 h x 1.5
 *   = 0.42467328 + 0.47638905 + 0.79266667 = 1.69372900. */
static void test_limits_forecast_two_phases_under_baseline(void **state)
{
    struct limits_forecast f;
    (void)state;
    forecast_of("[m]\nrw=randrw\nrwmixread=75\nbs=64k\nsize=1g\nrate_iops=160\nruntime=30m\ntime_based\n"
                "[w]\nstonewall\nrw=write\nbs=1m\nsize=3g\nrate=30m\n", 1, &f);
    assert_true(f.load_known);
    assert_true(fabs(f.duration_s - 1902.4) < 1e-6);
    assert_true(fabs(f.metered_bytes - 12072 * MIB) < 1);
    assert_true(f.drain_s < 0);
    assert_true(fabs(f.read_bytes - 13500 * MIB) < 1);
    assert_true(fabs(f.write_bytes - 7572 * MIB) < 1);
    assert_true(fabs(f.cost - 1.693729) < 1e-6);
}

static void test_limits_forecast_unknown_load(void **state)
{
    struct limits_forecast f;
    struct limits l;
    struct plan p;
    char err[512];
    (void)state;
    /* no caps, no rate: nothing to forecast from */
    assert_int_equal(load_text("[credits]\ninitial=1TiB\n", &l, err, sizeof err), 0);
    assert_int_equal(plan_parse_string("t.fio", "[r]\nrw=read\nsize=1g\nruntime=1m\n", &p, err, sizeof err), 0);
    limits_forecast(&l, &p, 1, &f);
    plan_free(&p);
    assert_false(f.load_known);
    assert_non_null(strstr(f.unknown_why, "phase r: no rate limit and no declared cap"));
}

static void test_limits_load_errors(void **state)
{
    struct limits l;
    char err[512];
    (void)state;
    assert_int_equal(load_text("[limits]\nname = x\nclient_thruput = 1m\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":3: client_thruput: unknown key in [limits]"));
    assert_int_equal(load_text("[limits]\n\n\nclient_throughput = fast\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":4: client_throughput: bad value 'fast'"));
    assert_int_equal(load_text("[quotas]\nx = 1\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":2: [quotas]: unknown section"));
    assert_int_equal(load_text("[limits]\nread_metering = 0\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "read_metering: bad value '0'"));
    assert_int_equal(load_text("[prices]\nread_per_gb = -1\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":2: read_per_gb: bad value '-1'"));
    assert_int_equal(load_text("[credits]\ninitial = 1TiB/s\n", &l, err, sizeof err), -EINVAL);
    assert_int_equal(load_text("[limits]\nthis is not a key\n", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":2: syntax error"));
    assert_int_equal(limits_load("/nonexistent/limits.ini", &l, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "--limits /nonexistent/limits.ini: cannot open"));
    assert_int_equal(limits_load("/tmp", &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
}

static void test_limits_quantity(void **state)
{
    double v;
    (void)state;
    assert_int_equal(limits_parse_quantity("2.1TiB", 0, &v), 0);
    assert_true(fabs(v - 2.1 * 1099511627776.0) < 1);
    assert_int_equal(limits_parse_quantity("3GB/s", 1, &v), 0);
    assert_true(fabs(v - 3e9) < 1);
    assert_int_equal(limits_parse_quantity("10Gbit/s", 1, &v), 0);
    assert_true(fabs(v - 1.25e9) < 1);
    assert_int_equal(limits_parse_quantity("10Gbit", 0, &v), -EINVAL);
    assert_int_equal(limits_parse_quantity("-1m", 1, &v), -EINVAL);
    assert_int_equal(limits_parse_quantity("1e400", 1, &v), -EINVAL);
    assert_int_equal(limits_parse_quantity("nan", 1, &v), -EINVAL);
    assert_int_equal(limits_parse_quantity("5 apples", 1, &v), -EINVAL);
}

static void test_limits_judge(void **state)
{
    char b[96];
    (void)state;
    assert_int_equal(limits_judge(96, 100), LIMITS_AT_CAP);
    assert_int_equal(limits_judge(104, 100), LIMITS_AT_CAP);
    assert_int_equal(limits_judge(94, 100), LIMITS_BELOW);
    assert_int_equal(limits_judge(106, 100), LIMITS_ABOVE);
    assert_int_equal(limits_judge(106, 0), LIMITS_NO_CAP);
    assert_string_equal(limits_judgement_text(LIMITS_AT_CAP, "per-client", b, sizeof b),
                        "limited by the declared per-client cap");
    assert_string_equal(limits_judgement_text(LIMITS_ABOVE, "per-client", b, sizeof b),
                        "faster than the declared cap: cache?");
}

static int metrics_text(const char *text, struct ext_metrics *m, char *err, size_t errlen)
{
    char *p = write_tmp(text);
    int rc = ext_metrics_load(p, m, err, errlen);
    unlink(p);
    free(p);
    return rc;
}

static void test_ext_metrics_load(void **state)
{
    struct ext_metrics m;
    char err[512];
    (void)state;
    assert_int_equal(metrics_text("{\"MetricDataResults\":[{\"Id\":\"m1\",\"Label\":\"BurstCreditBalance\","
                                  "\"Timestamps\":[\"2026-01-02T00:01:00+00:00\",\"2026-01-02T01:00:00.250+01:00\"],"
                                  "\"Values\":[5,7.5],\"StatusCode\":\"Complete\"}],\"Messages\":[]}",
                                  &m, err, sizeof err), 0);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.s[0].label, "BurstCreditBalance");
    assert_string_equal(m.s[0].status, "Complete");
    assert_int_equal(m.s[0].n, 2);
    /* sorted by time: 01:00+01:00 is 00:00:00.250Z, before 00:01Z */
    assert_int_equal(m.s[0].pt[0].unix_ms, 1767312000250ll);
    assert_true(m.s[0].pt[0].value == 7.5);
    assert_int_equal(m.s[0].pt[1].unix_ms, 1767312060000ll);
    ext_metrics_free(&m);
}

static void test_ext_metrics_hostile(void **state)
{
    static const struct { const char *text, *want; } bad[] = {
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"2026-01-02T00:00:00Z\"],\"Values\":[]}]}",
          "(Id 'a'): 1 Timestamps but 0 Values" },
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"2026-13-02T00:00:00Z\"],\"Values\":[1]}]}",
          "Timestamps[0]: bad time '2026-13-02T00:00:00Z'" },
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"2026-02-29T00:00:00Z\"],\"Values\":[1]}]}",
          "bad time" },
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"2026-01-02 00:00\"],\"Values\":[1]}]}",
          "bad time" },
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[12],\"Values\":[1]}]}", "bad time" },
        { "{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"2026-01-02T00:00:00Z\"],\"Values\":[\"x\"]}]}",
          "Values[0]: want a number" },
        { "{\"MetricDataResults\":[{\"Timestamps\":[],\"Values\":[]}]}", "Id: want a string" },
        { "{\"MetricDataResults\":{}}", "no MetricDataResults array" },
        { "[1,2]", "no MetricDataResults array" },
        { "{\"MetricDataResults\":[", "not JSON" },
    };
    struct ext_metrics m;
    char err[512];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(metrics_text(bad[i].text, &m, err, sizeof err) < 0);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
        assert_null(strchr(err, '\n'));
    }
    /* too many points: refused by count before anything is kept */
    {
        size_t n = EXT_METRICS_POINTS_MAX + 1, len = n * 26 + n * 2 + 128;
        char *t = malloc(len), *p = t;
        p += sprintf(p, "{\"MetricDataResults\":[{\"Id\":\"big\",\"Timestamps\":[");
        for (size_t k = 0; k < n; k++)
            p += sprintf(p, "%s\"2026-01-02T00:00:00Z\"", k ? "," : "");
        p += sprintf(p, "],\"Values\":[");
        for (size_t k = 0; k < n; k++)
            p += sprintf(p, "%s1", k ? "," : "");
        sprintf(p, "]}]}");
        assert_int_equal(metrics_text(t, &m, err, sizeof err), -E2BIG);
        assert_non_null(strstr(err, "too many points (100801"));
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_load_model),
        cmocka_unit_test(test_limits_forecast_rate_limited_write),
        cmocka_unit_test(test_limits_forecast_open_read),
        cmocka_unit_test(test_limits_forecast_two_phases_under_baseline),
        cmocka_unit_test(test_limits_forecast_unknown_load),
        cmocka_unit_test(test_limits_load_errors),
        cmocka_unit_test(test_limits_quantity),
        cmocka_unit_test(test_limits_judge),
        cmocka_unit_test(test_ext_metrics_load),
        cmocka_unit_test(test_ext_metrics_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
