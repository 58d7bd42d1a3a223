/* test_halt: the phase's stop signal ends every kind of sleep at once, from
 * another thread, and a sleep without a stop lasts until its deadline. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <time.h>

#include "agent/halt.h"
#include "common/clock.h"

#define MS 1000000ull

struct sleeper {
    struct halt *h;
    atomic_uint_fast64_t *var;   /* NULL: a fixed deadline */
    uint64_t until_ns;
    int rc;
    uint64_t woke_ns;
};

static void *sleeper_main(void *arg)
{
    struct sleeper *s = arg;
    s->rc = s->var ? halt_sleep_until_var(s->h, s->var) : halt_sleep_until(s->h, s->until_ns);
    s->woke_ns = clock_now_ns();
    return NULL;
}

static void test_halt_sleep_reaches_deadline(void **state)
{
    struct halt h;
    (void)state;
    halt_init(&h);
    uint64_t t0 = clock_now_ns();
    assert_int_equal(halt_sleep_until(&h, t0 + 30 * MS), 0);
    assert_true(clock_now_ns() >= t0 + 30 * MS);
    assert_int_equal(halt_sleep_until(&h, t0), 0);          /* past: at once */
    halt_destroy(&h);
}

static void test_halt_raise_wakes_sleepers(void **state)
{
    struct halt h;
    atomic_uint_fast64_t never;
    struct sleeper s[3];
    pthread_t t[3];
    (void)state;
    halt_init(&h);
    atomic_init(&never, HALT_NEVER);
    uint64_t t0 = clock_now_ns();
    for (int i = 0; i < 3; i++) {
        s[i] = (struct sleeper){ .h = &h, .var = i == 2 ? &never : NULL,
                                 .until_ns = i == 0 ? t0 + 60000 * MS : HALT_NEVER };
        assert_int_equal(pthread_create(&t[i], NULL, sleeper_main, &s[i]), 0);
    }
    struct timespec ts = { 0, 50 * 1000000 };
    nanosleep(&ts, NULL);
    halt_raise(&h);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(s[i].rc, 1);
        assert_true(s[i].woke_ns - t0 < 2000 * MS);
    }
    assert_true(halt_raised(&h));
    assert_int_equal(halt_sleep_until(&h, t0 + 60000 * MS), 1);   /* raised: at once */
    halt_destroy(&h);
}

static void test_halt_kick_rereads_deadline(void **state)
{
    struct halt h;
    atomic_uint_fast64_t start;
    struct sleeper s;
    pthread_t t;
    (void)state;
    halt_init(&h);
    atomic_init(&start, HALT_NEVER);
    s = (struct sleeper){ .h = &h, .var = &start };
    assert_int_equal(pthread_create(&t, NULL, sleeper_main, &s), 0);
    struct timespec ts = { 0, 20 * 1000000 };
    nanosleep(&ts, NULL);
    uint64_t go = clock_now_ns() + 30 * MS;
    atomic_store(&start, go);
    halt_kick(&h);
    pthread_join(t, NULL);
    assert_int_equal(s.rc, 0);
    assert_true(s.woke_ns >= go);
    assert_true(s.woke_ns - go < 1000 * MS);
    halt_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halt_sleep_reaches_deadline),
        cmocka_unit_test(test_halt_raise_wakes_sleepers),
        cmocka_unit_test(test_halt_kick_rereads_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
