/* test_serve_dir: the ownership mark of nfstorm serve's run directories
 * and the sweep of those a dead serve left (coordinator/fleet/serve_dir.h), on
 * real directories under a private $TMPDIR.  A "dead" serve is a claim
 * whose lock descriptor was closed, as the kernel closes a killed
 * process's; a "live" one keeps it open (flock locks of two open files
 * conflict within one process too). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coordinator/fleet/serve_dir.h"

static char base[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static int setup(void **state)
{
    (void)state;
    snprintf(base, sizeof base, "/tmp/test_serve_dir.XXXXXX");
    assert_non_null(mkdtemp(base));
    setenv("TMPDIR", base, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    unsetenv("TMPDIR");
    return 0;
}

/* a run directory made as serve_run makes one: 0 or the lock fd */
static int make_run_dir(char *dir, size_t len)
{
    int fd = -1;
    snprintf(dir, len, "%s/" SERVE_DIR_PREFIX "XXXXXX", base);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(serve_dir_claim(dir, &fd), 0);
    assert_true(fd > 2);
    return fd;
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[256];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_non_null(f = fopen(p, "w"));
    fputs(text, f);
    fclose(f);
}

static int exists(const char *dir, const char *name)
{
    char p[256];
    struct stat st;
    snprintf(p, sizeof p, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    return lstat(p, &st) == 0;
}

static void test_serve_dir_base_follows_tmpdir(void **state)
{
    char b[64];
    (void)state;
    serve_dir_base(b, sizeof b);
    assert_string_equal(b, base);
    setenv("TMPDIR", "relative", 1);
    serve_dir_base(b, sizeof b);
    assert_string_equal(b, "/tmp");
    setenv("TMPDIR", "/", 1);
    serve_dir_base(b, sizeof b);
    assert_string_equal(b, "");
    setenv("TMPDIR", base, 1);
}

/* A dead serve's directory goes, whatever the run left in it (a subtree
 * too); a live serve's stays. */
static void test_serve_dir_sweep_takes_only_the_dead(void **state)
{
    char dead[128], live[128], sub[160];
    int live_fd, dead_fd;
    (void)state;

    dead_fd = make_run_dir(dead, sizeof dead);
    put(dead, "plan.fio", "[x]\n");
    snprintf(sub, sizeof sub, "%s/logs", dead);
    assert_int_equal(mkdir(sub, 0700), 0);
    put(sub, "a.log", "1\n");
    close(dead_fd);                          /* its serve is gone */
    live_fd = make_run_dir(live, sizeof live);
    put(live, "plan.fio", "[y]\n");

    assert_int_equal(serve_dir_sweep(NULL), 1);
    assert_false(exists(dead, NULL));
    assert_true(exists(live, "plan.fio"));
    assert_true(exists(live, SERVE_DIR_MARKER));
    close(live_fd);
}

/* Look-alikes are never touched: no mark, a mark without the magic (a
 * serve writing it right now), a directory others may read, a symlink to
 * a dead serve's directory, a plain file. */
static void test_serve_dir_sweep_leaves_what_is_not_ours(void **state)
{
    char d[160], target[128], link[160];
    int fd;
    (void)state;

    snprintf(d, sizeof d, "%s/" SERVE_DIR_PREFIX "nomark", base);
    assert_int_equal(mkdir(d, 0700), 0);
    put(d, "plan.fio", "x");
    snprintf(d, sizeof d, "%s/" SERVE_DIR_PREFIX "nomagic", base);
    assert_int_equal(mkdir(d, 0700), 0);
    put(d, SERVE_DIR_MARKER, "");
    snprintf(d, sizeof d, "%s/" SERVE_DIR_PREFIX "shared", base);
    assert_int_equal(mkdir(d, 0700), 0);
    put(d, SERVE_DIR_MARKER, SERVE_DIR_MAGIC "\npid 1\n");
    assert_int_equal(chmod(d, 0755), 0);
    snprintf(d, sizeof d, "%s/" SERVE_DIR_PREFIX "file", base);
    put(base, SERVE_DIR_PREFIX "file", SERVE_DIR_MAGIC "\n");
    /* a dead serve's directory, outside the prefix, reached by a symlink */
    snprintf(target, sizeof target, "%s/elsewhere", base);
    assert_int_equal(mkdir(target, 0700), 0);
    assert_int_equal(serve_dir_claim(target, &fd), 0);
    close(fd);
    put(target, "keep", "x");
    snprintf(link, sizeof link, "%s/" SERVE_DIR_PREFIX "link", base);
    assert_int_equal(symlink(target, link), 0);

    assert_int_equal(serve_dir_sweep(NULL), 0);
    assert_true(exists(base, SERVE_DIR_PREFIX "nomark/plan.fio"));
    assert_true(exists(base, SERVE_DIR_PREFIX "nomagic/" SERVE_DIR_MARKER));
    assert_true(exists(base, SERVE_DIR_PREFIX "shared/" SERVE_DIR_MARKER));
    assert_true(exists(base, SERVE_DIR_PREFIX "file"));
    assert_true(exists(target, "keep"));
    assert_true(exists(base, SERVE_DIR_PREFIX "link"));
}

/* A finished run's directory goes with its mark when it is empty; when
 * the run left files of its own the mark stays, so the next serve sweeps
 * them. */
static void test_serve_dir_release_keeps_the_mark_for_leftovers(void **state)
{
    char a[128], b[128];
    int fa, fb;
    (void)state;

    fa = make_run_dir(a, sizeof a);
    assert_int_equal(serve_dir_release(a, fa), 0);
    assert_false(exists(a, NULL));

    fb = make_run_dir(b, sizeof b);
    put(b, "own.log", "x");
    assert_int_equal(serve_dir_release(b, fb), -ENOTEMPTY);
    assert_true(exists(b, SERVE_DIR_MARKER));
    assert_int_equal(serve_dir_sweep(NULL), 1);
    assert_false(exists(b, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_serve_dir_base_follows_tmpdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serve_dir_sweep_takes_only_the_dead, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serve_dir_sweep_leaves_what_is_not_ours, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serve_dir_release_keeps_the_mark_for_leftovers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
