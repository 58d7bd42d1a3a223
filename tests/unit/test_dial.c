/* Unit tests for agent/dial (backoff with full jitter, target parsing)
 * and agent/env_opts (NFSTORM_AGENT_* variables as arguments). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/dial.h"
#include "agent/env_opts.h"

static void test_dial_backoff_bounds(void **state)
{
    (void)state;
    /* the window doubles from 100 ms and stops at 10 s */
    assert_int_equal(dial_backoff_ms(0, 100), 100);
    assert_int_equal(dial_backoff_ms(0, 101), 0);
    assert_int_equal(dial_backoff_ms(1, 200), 200);
    assert_int_equal(dial_backoff_ms(2, 400), 400);
    assert_int_equal(dial_backoff_ms(6, 6400), 6400);
    assert_int_equal(dial_backoff_ms(7, 10000), 10000);     /* 12.8 s capped */
    assert_int_equal(dial_backoff_ms(7, 10001), 0);
    assert_int_equal(dial_backoff_ms(40, UINT64_MAX), UINT64_MAX % 10001);
    assert_int_equal(dial_backoff_ms(UINT32_MAX, 12345), 12345 % 10001);
}

static void test_dial_backoff_jitter_spreads(void **state)
{
    /* full jitter: draws fill [0, cap], not a point */
    uint64_t x = 88172645463325252ull, lo = UINT64_MAX, hi = 0, sum = 0;
    (void)state;
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t d = dial_backoff_ms(10, x);
        assert_true(d <= DIAL_CAP_MS);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        sum += d;
    }
    assert_true(lo < 100);
    assert_true(hi > 9900);
    assert_true(sum / 10000 > 4500 && sum / 10000 < 5500);   /* mean ~ cap/2 */
}

static void test_dial_parse_target(void **state)
{
    char h[256], p[8];
    (void)state;
    assert_int_equal(dial_parse_target("coord:7879", h, sizeof h, p, sizeof p), 0);
    assert_string_equal(h, "coord");
    assert_string_equal(p, "7879");
    assert_int_equal(dial_parse_target("[::1]:99", h, sizeof h, p, sizeof p), 0);
    assert_string_equal(h, "::1");
    assert_string_equal(p, "99");
    assert_int_equal(dial_parse_target("10.0.0.1:65535", h, sizeof h, p, sizeof p), 0);
    assert_string_equal(h, "10.0.0.1");
    const char *bad[] = { "coord", "coord:", ":7879", "coord:0", "coord:65536", "coord:7x",
                          "[::1:5", "[]:5", "coord:-1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(dial_parse_target(bad[i], h, sizeof h, p, sizeof p), -EINVAL);
}

static const struct option opts[] = {
    { "coordinator", required_argument, NULL, 'C' },
    { "allow", required_argument, NULL, 'a' },
    { "label", required_argument, NULL, 'b' },
    { "secret-file", required_argument, NULL, 's' },
    { "insecure", no_argument, NULL, 'i' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void clear_env(void)
{
    unsetenv("T_COORDINATOR");
    unsetenv("T_ALLOW");
    unsetenv("T_LABEL");
    unsetenv("T_SECRET_FILE");
    unsetenv("T_INSECURE");
    unsetenv("T_QUIET");
    unsetenv("T_HELP");
}

static void test_env_opts_arguments(void **state)
{
    char *argv[] = { "agent", "--label", "cli", "--quiet", NULL };
    struct env_argv e;
    char err[256];
    (void)state;
    clear_env();
    setenv("T_COORDINATOR", "c:7879", 1);
    setenv("T_ALLOW", "/a,,/b", 1);
    setenv("T_LABEL", "envlabel", 1);       /* --label on the command line wins */
    setenv("T_SECRET_FILE", "", 1);         /* empty: unset */
    setenv("T_INSECURE", "yes", 1);
    setenv("T_QUIET", "0", 1);              /* also given on the command line */
    setenv("T_HELP", "1", 1);               /* no variable for --help */
    assert_int_equal(env_opts_build(&e, opts, "T_", 4, argv, err, sizeof err), 0);
    assert_int_equal(e.argc, 8);
    assert_string_equal(e.argv[0], "agent");
    assert_string_equal(e.argv[1], "--coordinator=c:7879");
    assert_string_equal(e.argv[2], "--allow=/a");
    assert_string_equal(e.argv[3], "--allow=/b");
    assert_string_equal(e.argv[4], "--insecure");
    assert_string_equal(e.argv[5], "--label");
    assert_string_equal(e.argv[6], "cli");
    assert_string_equal(e.argv[7], "--quiet");
    assert_null(e.argv[8]);
    env_opts_free(&e);
    clear_env();
}

static void test_env_opts_bad_switch(void **state)
{
    char *argv[] = { "agent", NULL };
    struct env_argv e;
    char err[256];
    (void)state;
    clear_env();
    setenv("T_COORDINATOR", "c:1", 1);
    setenv("T_INSECURE", "maybe", 1);
    assert_int_equal(env_opts_build(&e, opts, "T_", 1, argv, err, sizeof err), -EINVAL);
    assert_string_equal(err, "T_INSECURE=maybe: want 1 (on) or 0 (off)");
    assert_null(e.argv);
    env_opts_free(&e);       /* harmless after a failure */
    clear_env();
}

static void test_env_opts_nothing_set(void **state)
{
    char *argv[] = { "agent", "--allow", "/x", NULL };
    struct env_argv e;
    char err[256];
    (void)state;
    clear_env();
    assert_int_equal(env_opts_build(&e, opts, "T_", 3, argv, err, sizeof err), 0);
    assert_int_equal(e.argc, 3);
    assert_string_equal(e.argv[1], "--allow");
    assert_string_equal(e.argv[2], "/x");
    env_opts_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dial_backoff_bounds),
        cmocka_unit_test(test_dial_backoff_jitter_spreads),
        cmocka_unit_test(test_dial_parse_target),
        cmocka_unit_test(test_env_opts_arguments),
        cmocka_unit_test(test_env_opts_bad_switch),
        cmocka_unit_test(test_env_opts_nothing_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
