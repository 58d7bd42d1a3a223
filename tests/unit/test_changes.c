/* test_changes: a phase's steps from a hand-built run_result: who is named
 * (fleet-wide, some agents, one agent alone), the first and last interval
 * left out, the fleet's latency and its floor, the text line, the JSON
 * entries and the thresholds a result carries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/xmalloc.h"
#include "common/changepoint.h"
#include "coordinator/changes.h"

#define NIV 40
#define MIB (1024.0 * 1024.0)

/* bytes/s of agent a in interval k (1 s intervals) */
typedef double (*rate_fn)(uint32_t a, uint32_t k);
/* the fleet's latency of interval k, ns (0: record none) */
typedef uint64_t (*lat_fn)(uint32_t k);

static void build_iv(struct run_result *r, struct plan *p, uint32_t nagents, rate_fn rate, lat_fn lat,
                     uint32_t interval_ms)
{
    struct job_spec j;
    struct op_set *s = xmalloc(sizeof(*s));

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "p");
    j.size = 1 << 20;
    plan_add_job(p, &j);
    result_init(r, p, nagents, interval_ms);
    for (uint32_t a = 0; a < nagents; a++) {
        struct agent_phase ap = { .duration_ns = NIV * interval_ms * 1000000ull, .nintervals = NIV };

        for (uint32_t k = 0; k < NIV; k++) {
            op_set_init(s);
            s->op[OP_READ].bytes = (uint64_t)rate(a, k);
            s->op[OP_READ].ops = s->op[OP_READ].bytes / 4096;
            assert_int_equal(result_add_interval(r, 0, a, k, s), 0);
        }
        op_set_init(s);
        s->op[OP_READ].ops = 1;
        s->op[OP_READ].bytes = 4096;
        assert_int_equal(result_set_agent_phase(r, 0, a, &ap, s), 0);
    }
    for (uint32_t k = 0; k < NIV && lat; k++) {
        op_set_init(s);
        if (lat(k)) {
            hist_record(&s->op[OP_READ].lat, lat(k));
            assert_int_equal(result_add_interval_latency(r, 0, k, s), 0);
        }
    }
    free(s);
    result_phase_finish(r, 0);
}

static void build(struct run_result *r, struct plan *p, uint32_t nagents, rate_fn rate, lat_fn lat)
{
    build_iv(r, p, nagents, rate, lat, 1000);
}

static void done(struct run_result *r, struct plan *p, struct change_set *s)
{
    change_set_free(s);
    result_free(r);
    plan_free(p);
}

/* all three drop from 1 MiB/s to 256 KiB/s at interval 20; interval 0
 * and the last are off (start-up, partial) and must not count */
static double all_drop(uint32_t a, uint32_t k)
{
    (void)a;
    if (k == 0 || k == NIV - 1)
        return 0.1 * MIB;
    return k < 20 ? MIB : MIB / 4;
}

static void test_changes_fleet_wide(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;
    char line[256];
    json_t *j;

    (void)state;
    build(&r, &p, 3, all_drop, NULL);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 4);            /* the fleet, then each agent */
    assert_int_equal(s.c[0].fleet, 1);
    assert_int_equal(s.c[0].metric, CHANGE_THROUGHPUT);
    assert_int_equal(s.c[0].k, 20);
    assert_float_equal(s.c[0].at_s, 20.0, 1e-9);
    assert_float_equal(s.c[0].before, 3 * MIB, 1e-6);
    assert_float_equal(s.c[0].after, 0.75 * MIB, 1e-6);
    assert_float_equal(s.c[0].pct, -75, 1e-9);
    assert_int_equal(s.c[0].fleet_wide, 1);
    assert_int_equal(s.c[0].nagents, 3);
    for (uint32_t a = 0; a < 3; a++) {
        assert_int_equal(s.c[1 + a].fleet, 0);
        assert_int_equal(s.c[1 + a].agent, a);
        assert_int_equal(s.c[1 + a].k, 20);
    }
    changes_line(line, sizeof(line), &r, &s.c[0], 1024);
    assert_string_equal(line, "throughput stepped down from 3MiB/s to 768KiB/s at 20 s (-75%), fleet-wide");
    j = changes_json(&r, 0, &s);
    assert_int_equal(json_array_size(j), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "scope")), "fleet");
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "direction")), "down");
    assert_true(json_is_true(json_object_get(json_array_get(j, 0), "fleet_wide")));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 2), "agent")), 1);
    assert_null(json_object_get(json_array_get(j, 2), "fleet_wide"));
    json_decref(j);
    done(&r, &p, &s);
}

/* agents 0 and 1 halve at 12, agent 2 holds: the fleet steps -33%, naming
 * two; a 40% threshold from the result hides it */
static double two_drop(uint32_t a, uint32_t k)
{
    return a < 2 && k >= 12 ? MIB / 2 : MIB;
}

static void test_changes_some_agents_and_threshold(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;
    char line[256];

    (void)state;
    build(&r, &p, 3, two_drop, NULL);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.c[0].fleet_wide, 0);
    assert_int_equal(s.c[0].nagents, 2);
    changes_line(line, sizeof(line), &r, &s.c[0], 1024);
    assert_string_equal(line, "throughput stepped down from 3MiB/s to 2MiB/s at 12 s (-33%), agents 0, 1");
    change_set_free(&s);
    r.change_min_pct = 40;               /* --change-min-pct 40: the fleet's -33% is no step */
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.c[0].fleet, 0);
    assert_int_equal(changes_min_intervals(&r), CHANGEPOINT_MIN_LEN);
    done(&r, &p, &s);
}

/* one agent of 8 stops to a quarter at 25: too little for the fleet
 * (-9%), its own line; up to 30 s only: a step at 36 has not lasted 5 */
static double one_drop(uint32_t a, uint32_t k)
{
    if (a == 7 && k >= 36)
        return MIB / 8;
    return a == 5 && k >= 25 ? MIB / 4 : MIB;
}

static void test_changes_one_agent_alone(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;
    char buf[1024];
    FILE *f;

    (void)state;
    build(&r, &p, 8, one_drop, NULL);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.c[0].fleet, 0);
    assert_int_equal(s.c[0].agent, 5);
    assert_int_equal(s.c[0].k, 25);
    memset(buf, 0, sizeof(buf));
    f = fmemopen(buf, sizeof(buf) - 1, "w");
    changes_text(f, &r, 0, 1024);
    fclose(f);
    assert_string_equal(buf, "throughput stepped down from 1MiB/s to 256KiB/s at 25 s (-75%), agent 5\n");
    done(&r, &p, &s);
}

/* the fleet's mean latency steps from 2 ms to 9 ms at 30: reported; a step
 * from 20 us to 60 us is under the floor */
static double steady(uint32_t a, uint32_t k)
{
    (void)a;
    (void)k;
    return MIB;
}

static uint64_t lat_big(uint32_t k)
{
    return k < 30 ? 2000000 : 9000000;
}

static uint64_t lat_small(uint32_t k)
{
    return k < 30 ? 20000 : 60000;
}

static void test_changes_latency(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;
    char line[256];

    (void)state;
    build(&r, &p, 2, steady, lat_big);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.c[0].metric, CHANGE_LATENCY);
    assert_int_equal(s.c[0].k, 30);
    assert_int_equal(s.c[0].nagents, 0);
    changes_line(line, sizeof(line), &r, &s.c[0], 1024);
    assert_non_null(strstr(line, "latency stepped up from "));
    assert_non_null(strstr(line, " at 30 s (+"));
    assert_non_null(strstr(line, "%), fleet"));
    done(&r, &p, &s);
    build(&r, &p, 2, steady, lat_small);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 0);
    done(&r, &p, &s);
}

/* at 100 ms intervals a latency step must still last 2 s (20 intervals)
 * on each side: 1.5 s after it is not enough, a throughput step of 5
 * intervals is */
static uint64_t lat_late(uint32_t k)
{
    return k < 24 ? 2000000 : 9000000;
}

static double drop_late(uint32_t a, uint32_t k)
{
    (void)a;
    return k < 24 ? MIB : MIB / 4;
}

static void test_changes_latency_lasts_2s(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;

    (void)state;
    build_iv(&r, &p, 1, drop_late, lat_late, 100);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 2);            /* the fleet's throughput and agent 0's */
    assert_int_equal(s.c[0].metric, CHANGE_THROUGHPUT);
    assert_float_equal(s.c[0].at_s, 2.4, 1e-9);
    assert_int_equal(s.c[1].metric, CHANGE_THROUGHPUT);
    done(&r, &p, &s);
    build_iv(&r, &p, 1, drop_late, lat_late, 1000);   /* 15 s after it: reported */
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.c[1].metric, CHANGE_LATENCY);
    done(&r, &p, &s);
}

/* nothing moves after 28 s: the agents' threads winding down past a 28 s
 * phase (duration_ns) are no step to nothing; the same zeros inside the
 * phase time are */
static double wind_down(uint32_t a, uint32_t k)
{
    (void)a;
    return k < 28 ? MIB : 0;
}

static void test_changes_wind_down(void **state)
{
    struct run_result r;
    struct plan p;
    struct change_set s;

    (void)state;
    build(&r, &p, 2, wind_down, NULL);
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 3);            /* 40 s of phase time: a real stop */
    change_set_free(&s);
    for (uint32_t a = 0; a < 2; a++)
        r.phases[0].agents[a].duration_ns = 28 * 1000000000ull;
    changes_phase(&r, 0, &s);
    assert_int_equal(s.n, 0);
    done(&r, &p, &s);
}

static void test_changes_fmt_secs(void **state)
{
    char b[48];

    (void)state;
    assert_string_equal(changes_fmt_secs(b, sizeof(b), 2472), "41 min 12 s");
    assert_string_equal(changes_fmt_secs(b, sizeof(b), 7205), "2 h 0 min 5 s");
    assert_string_equal(changes_fmt_secs(b, sizeof(b), 12), "12 s");
    assert_string_equal(changes_fmt_secs(b, sizeof(b), 4.5), "4.5 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changes_fleet_wide),
        cmocka_unit_test(test_changes_some_agents_and_threshold),
        cmocka_unit_test(test_changes_one_agent_alone),
        cmocka_unit_test(test_changes_latency),
        cmocka_unit_test(test_changes_latency_lasts_2s),
        cmocka_unit_test(test_changes_wind_down),
        cmocka_unit_test(test_changes_fmt_secs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
