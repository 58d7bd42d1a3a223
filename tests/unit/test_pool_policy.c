/* Unit tests for coordinator/pool_policy: what a submission may cause on
 * the pool host, judged word by word and key by key. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "coordinator/pool_policy.h"

static const char good_plan[] = "[p]\nioengine=null\nrw=read\nbs=4k\nsize=64k\nfilename=/d/f.${agent}.${job}\n";

static int check(char **argv, uint32_t argc, const char *plan, char *err, size_t errlen)
{
    struct pool_submit s = { .argv = argv, .argc = argc, .plan = (char *)plan, .plan_len = plan ? strlen(plan) : 0 };
    return pool_policy_check(&s, err, errlen);
}

static void test_pool_policy_allows_report_options(void **state)
{
    /* values that look like refused options are values: skipped */
    char *argv[] = { "@plan", "--label", "--html", "--target=--csv", "--quiet", "--unit-base", "1000",
                     "--section", "p", "--eta=never", "--output-format", "json", "--bs=8k", "-rw=write" };
    char err[512];

    (void)state;
    assert_int_equal(check(argv, 14, good_plan, err, sizeof err), 0);
}

static void test_pool_policy_refuses_every_refused_option(void **state)
{
    size_t n;
    const struct pool_policy_rule *t = pool_policy_options(&n);
    char err[512], joined[64];
    int refused = 0;

    (void)state;
    for (size_t i = 0; i < n; i++) {
        char *argv[] = { "@plan", (char *)t[i].name, "/etc/x" };
        char *argv2[] = { "@plan", joined };
        if (!t[i].refused)
            continue;
        refused++;
        assert_int_equal(check(argv, 3, good_plan, err, sizeof err), -EPERM);
        assert_non_null(strstr(err, t[i].name));
        assert_non_null(strstr(err, t[i].refused));
        if (t[i].takes_value) {
            snprintf(joined, sizeof joined, "%s=../x", t[i].name);
            assert_int_equal(check(argv2, 2, good_plan, err, sizeof err), -EPERM);
            assert_true(strncmp(err, "refused by the pool's policy: ", 30) == 0);
        }
    }
    assert_true(refused == 30);     /* the table of docs/fleet.md */
}

static void test_pool_policy_refuses_paths_and_unknown_words(void **state)
{
    char *path[] = { "/etc/passwd" }, *twice[] = { "@plan", "@plan" }, *unknown[] = { "@plan", "--frob" },
         *flagval[] = { "@plan", "--filename", "/etc/passwd" }, *dash[] = { "@plan", "-" };
    char err[512];

    (void)state;
    assert_int_equal(check(path, 1, NULL, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "a plan path names a file on the pool host"));
    assert_int_equal(check(twice, 2, good_plan, err, sizeof err), -EPERM);
    assert_int_equal(check(unknown, 2, good_plan, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "'--frob': not an option the pool knows"));
    /* "--filename /x": the run joins the value to a key that takes one (an
     * agent's path, confined there); a flag's next word is a word of its
     * own, and a key nfstorm knows only from fio's inventory is never
     * joined here: its next word, a path, is refused */
    assert_int_equal(check(flagval, 3, good_plan, err, sizeof err), 0);
    {
        char *flag[] = { "@plan", "--time_based", "/etc/passwd" }, *fio[] = { "@plan", "--cpus_allowed", "/etc/passwd" },
             *fioj[] = { "@plan", "--cpus_allowed=0-3" };
        assert_int_equal(check(flag, 3, good_plan, err, sizeof err), -EPERM);
        assert_non_null(strstr(err, "'/etc/passwd'"));
        assert_int_equal(check(fio, 3, good_plan, err, sizeof err), -EPERM);
        assert_non_null(strstr(err, "'/etc/passwd'"));
        assert_int_equal(check(fioj, 2, good_plan, err, sizeof err), 0);
    }
    assert_int_equal(check(dash, 2, good_plan, err, sizeof err), -EPERM);
}

static void test_pool_policy_plan_keys(void **state)
{
    static const char *const bad[][2] = {
        { "[p]\nrw=read\nwrite_bw_log=/tmp/x\n", "write_bw_log" },
        { "[global]\nwrite_lat_log=../x\n[p]\nrw=read\n", "write_lat_log" },
        { "[p]\nrw=read\n  write_iops_log = x ; comment\n", "write_iops_log" },
        { "[p]\nrw=read\nwrite_hist_log=x\n", "write_hist_log" },
        { "include /etc/shadow\n[p]\nrw=read\n", "include" },
        { "[p]\nrw=read\ninclude ../../x.fio\n", "include" },
        { "[p]\nrw=read\nfilename=/d/${HOME}/x\n", "${HOME}" },
        { "[p]\nrw=read\ndirectory=${agent}${SECRET_TOKEN}\n", "${SECRET_TOKEN}" },
    };
    char *argv[] = { "@plan" }, *opt[] = { "--name=p", "--write_bw_log=/tmp/x" };
    char err[512];

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(check(argv, 1, bad[i][0], err, sizeof err), -EPERM);
        assert_non_null(strstr(err, bad[i][1]));
        assert_non_null(strstr(err, "@plan:"));    /* where: the plan's line */
    }
    assert_int_equal(check(opt, 2, NULL, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "--write_bw_log: writes a fio log file on the pool host"));
    /* the path variables are the agent's: allowed */
    assert_int_equal(check(argv, 1, "[p]\nrw=read\nfilename=/d/${host}.${nagents}\n", err, sizeof err), 0);
    /* a plan with a NUL byte is not read past it: refused whole */
    {
        struct pool_submit s = { .argv = argv, .argc = 1, .plan = "[p]\nrw=read\n\0write_bw_log=x\n", .plan_len = 28 };
        assert_int_equal(pool_policy_check(&s, err, sizeof err), -EINVAL);
    }
}

/* The fields a submitter's options limit are limited here too. */
static void test_pool_policy_fields(void **state)
{
    char *argv[] = { "@plan" };
    char err[512];
    struct pool_submit s = { .argv = argv, .argc = 1, .plan = (char *)good_plan, .plan_len = sizeof good_plan - 1,
                             .expect = 4096, .min_agents = 1, .expect_timeout_ms = 86400000u };

    (void)state;
    assert_int_equal(pool_policy_check(&s, err, sizeof err), 0);
    s.expect = 4097;
    assert_int_equal(pool_policy_check(&s, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "over 4096 agents"));
    s.expect = 1;
    s.expect_timeout_ms = 4000000000u;
    assert_int_equal(pool_policy_check(&s, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "expect_timeout_ms 4000000000: over 24h"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_policy_allows_report_options),
        cmocka_unit_test(test_pool_policy_refuses_every_refused_option),
        cmocka_unit_test(test_pool_policy_refuses_paths_and_unknown_words),
        cmocka_unit_test(test_pool_policy_plan_keys),
        cmocka_unit_test(test_pool_policy_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
