/* test_changepoint: the step detector on synthetic series with seeded
 * noise: a step down, a step up, two steps, a ramp, noise only, a short
 * blip that must not count, a step too small or too late, and the edges
 * (empty, one value, bad parameters). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/changepoint.h"

/* A reproducible noise source: xorshift64, uniform in [-1, 1). */
static double noise(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(UINT64_C(1) << 52) - 1.0;
}

/* x[i] = level(i) * (1 + amp * noise) */
static void fill(double *x, size_t n, const double *level, double amp, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15u + 1;

    for (size_t i = 0; i < n; i++)
        x[i] = level[i] * (1 + amp * noise(&s));
}

static int find(const double *x, size_t n, struct changepoint *c)
{
    return changepoint_find(x, n, CHANGEPOINT_MIN_PCT, CHANGEPOINT_MIN_LEN, c, CHANGEPOINT_MAX);
}

static void test_changepoint_step_down(void **state)
{
    double lv[60], x[60];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 60; i++)
        lv[i] = i < 41 ? 480 : 96;
    fill(x, 60, lv, 0.05, 1);
    assert_int_equal(find(x, 60, c), 1);
    assert_int_equal(c[0].at, 41);
    assert_true(fabs(c[0].before - 480) < 480 * 0.05);
    assert_true(fabs(c[0].after - 96) < 96 * 0.05);
    assert_true(c[0].pct < -75 && c[0].pct > -85);
}

static void test_changepoint_step_up(void **state)
{
    double lv[40], x[40];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 40; i++)
        lv[i] = i < 12 ? 100 : 150;
    fill(x, 40, lv, 0.05, 2);
    assert_int_equal(find(x, 40, c), 1);
    assert_int_equal(c[0].at, 12);
    assert_true(c[0].pct > 40 && c[0].pct < 60);
}

static void test_changepoint_two_steps(void **state)
{
    double lv[60], x[60];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 60; i++)
        lv[i] = i < 20 ? 1000 : i < 35 ? 300 : 800;
    fill(x, 60, lv, 0.08, 3);
    assert_int_equal(find(x, 60, c), 2);
    assert_int_equal(c[0].at, 20);
    assert_true(c[0].pct < -60);
    assert_int_equal(c[1].at, 35);
    assert_true(c[1].pct > 100);
    assert_true(fabs(c[1].before - c[0].after) < 1e-9);   /* the plateau they share */
}

/* A change of 20% exactly counts; 15% does not; the mixed interval a step
 * inside an interval leaves does not move where it is found by more than one. */
static void test_changepoint_threshold_and_mixed_interval(void **state)
{
    double x[30];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 30; i++)
        x[i] = i < 15 ? 100 : 85;
    assert_int_equal(find(x, 30, c), 0);
    for (size_t i = 0; i < 30; i++)
        x[i] = i < 15 ? 100 : 80;
    assert_int_equal(find(x, 30, c), 1);
    assert_float_equal(c[0].pct, -20, 1e-9);
    x[15] = 90;                                 /* the step came half way through interval 15 */
    assert_int_equal(find(x, 30, c), 1);
    assert_true(c[0].at == 15 || c[0].at == 16);
    assert_float_equal(c[0].before, 100, 1e-9);
    assert_float_equal(c[0].after, 80, 1e-9);
}

/* A ramp from 100 to 50 over 60 intervals: no step of 20% anywhere. */
static void test_changepoint_ramp_is_no_step(void **state)
{
    double lv[60], x[60];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 60; i++)
        lv[i] = 100 - 50.0 * (double)i / 59;
    fill(x, 60, lv, 0.02, 4);
    assert_int_equal(find(x, 60, c), 0);
}

/* Noise of +-15% around one level, 500 series: never a change. */
static void test_changepoint_noise_only(void **state)
{
    double lv[80], x[80];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 80; i++)
        lv[i] = 250;
    for (uint64_t seed = 10; seed < 510; seed++) {
        fill(x, 80, lv, 0.15, seed);
        assert_int_equal(find(x, 80, c), 0);
    }
}

/* Slow or fast blips shorter than min_len do not count, whatever their
 * depth; a dip as long as min_len does (a step down and back up). */
static void test_changepoint_short_blip(void **state)
{
    double lv[40], x[40];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t len = 1; len < CHANGEPOINT_MIN_LEN; len++) {
        for (size_t i = 0; i < 40; i++)
            lv[i] = i >= 20 && i < 20 + len ? 5 : 300;
        fill(x, 40, lv, 0.05, 5 + len);
        assert_int_equal(find(x, 40, c), 0);
        for (size_t i = 0; i < 40; i++)
            lv[i] = i >= 20 && i < 20 + len ? 900 : 300;
        fill(x, 40, lv, 0.05, 50 + len);
        assert_int_equal(find(x, 40, c), 0);
    }
    for (size_t i = 0; i < 40; i++)
        lv[i] = i >= 20 && i < 20 + CHANGEPOINT_MIN_LEN ? 5 : 300;
    fill(x, 40, lv, 0.05, 99);
    assert_int_equal(find(x, 40, c), 2);
    assert_int_equal(c[0].at, 20);
    assert_int_equal(c[1].at, 20 + CHANGEPOINT_MIN_LEN);
}

/* A step in the last min_len - 1 values has not lasted: not reported. */
static void test_changepoint_too_late(void **state)
{
    double x[30];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 30; i++)
        x[i] = i < 30 - (CHANGEPOINT_MIN_LEN - 1) ? 100 : 10;
    assert_int_equal(find(x, 30, c), 0);
    for (size_t i = 0; i < 30; i++)
        x[i] = i < 30 - CHANGEPOINT_MIN_LEN ? 100 : 10;
    assert_int_equal(find(x, 30, c), 1);
}

/* From nothing to something: a step up, pct 0 (no ratio to give). */
static void test_changepoint_from_zero(void **state)
{
    double x[20];
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    for (size_t i = 0; i < 20; i++)
        x[i] = i < 10 ? 0 : 50;
    assert_int_equal(find(x, 20, c), 1);
    assert_int_equal(c[0].at, 10);
    assert_float_equal(c[0].before, 0, 0);
    assert_float_equal(c[0].pct, 0, 0);
}

static void test_changepoint_edges(void **state)
{
    double one = 5, x[3] = { 1, 2, NAN };
    struct changepoint c[CHANGEPOINT_MAX];

    (void)state;
    assert_int_equal(find(NULL, 0, c), 0);
    assert_int_equal(find(&one, 1, c), 0);
    assert_int_equal(find(x, 2, c), 0);
    assert_int_equal(find(x, 3, c), -EINVAL);                          /* NaN */
    assert_int_equal(changepoint_find(x, 2, 20, 1, c, 4), -EINVAL);    /* min_len below the floor */
    assert_int_equal(changepoint_find(x, 2, 0, 5, c, 4), -EINVAL);     /* no threshold */
    assert_int_equal(changepoint_find(x, 2, 20, 5, NULL, 4), -EINVAL);
}

/* max caps what is written. */
static void test_changepoint_max(void **state)
{
    double x[60];
    struct changepoint c[1];

    (void)state;
    for (size_t i = 0; i < 60; i++)
        x[i] = i < 20 ? 100 : i < 40 ? 10 : 100;
    assert_int_equal(changepoint_find(x, 60, 20, 5, c, 1), 1);
    assert_int_equal(c[0].at, 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changepoint_step_down),
        cmocka_unit_test(test_changepoint_step_up),
        cmocka_unit_test(test_changepoint_two_steps),
        cmocka_unit_test(test_changepoint_threshold_and_mixed_interval),
        cmocka_unit_test(test_changepoint_ramp_is_no_step),
        cmocka_unit_test(test_changepoint_noise_only),
        cmocka_unit_test(test_changepoint_short_blip),
        cmocka_unit_test(test_changepoint_too_late),
        cmocka_unit_test(test_changepoint_from_zero),
        cmocka_unit_test(test_changepoint_edges),
        cmocka_unit_test(test_changepoint_max),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
