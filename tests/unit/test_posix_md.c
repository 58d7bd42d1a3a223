/* test_posix_md: metadata ops on a kernel mount stay beneath the root and
 * never replace what exists.
 *
 * Real files in a temp dir, real symlinks swapped in: the confinement is
 * the kernel's (openat2 RESOLVE_BENEATH, *at() calls on directory fds), so
 * only the kernel can answer whether it holds.  Layout: R (the root),
 * O (outside it, with a sentinel), R/w (a job's work directory). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/posix_md.h"

struct fixture {
    char root[64], out[64], base[128];
    struct engine_job ej;
};

static int fixture_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->root, sizeof f->root, "/tmp/t_posix_md_root.XXXXXX");
    snprintf(f->out, sizeof f->out, "/tmp/t_posix_md_out.XXXXXX");
    assert_non_null(mkdtemp(f->root));
    assert_non_null(mkdtemp(f->out));
    snprintf(f->base, sizeof f->base, "%s/w", f->root);
    f->ej.root = f->root;
    f->ej.md_base = f->base;
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[256];
    posix_md_release(&f->ej);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", f->root, f->out);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static int md(struct fixture *f, enum op_type op, const char *rel, const char *rel2, const char *data)
{
    char p[256], p2[256];
    uint64_t count = 0;
    snprintf(p, sizeof p, "%s/%s", f->root, rel);
    snprintf(p2, sizeof p2, "%s/%s", f->root, rel2 ? rel2 : "");
    return posix_md_run(&f->ej, op, p, rel2 ? p2 : NULL, data, data ? strlen(data) : 0, &count);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int has(const char *dir, const char *name, const char *text)
{
    char p[256], got[64] = "";
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "r");
    if (!fp)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, fp);
    fclose(fp);
    got[n] = '\0';
    return !text || strcmp(got, text) == 0;
}

/* the directory of name swapped for a symlink to target: the real one
 * moves to name.moved */
static void swap(const char *dir, const char *name, const char *target)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/%s", dir, name);
    snprintf(b, sizeof b, "%s/%s.moved", dir, name);
    assert_int_equal(rename(a, b), 0);
    assert_int_equal(symlink(target, a), 0);
}

static void test_posix_md_create_is_exclusive(void **state)
{
    struct fixture *f = *state;
    put(f->root, "theirs", "data");
    assert_int_equal(md(f, OP_CREATE, "theirs", NULL, "x"), -EEXIST);
    assert_true(has(f->root, "theirs", "data"));     /* not truncated */
    assert_int_equal(md(f, OP_CREATE, "mine", NULL, "x"), 0);
    assert_true(has(f->root, "mine", "x"));
}

static void test_posix_md_rename_never_replaces(void **state)
{
    struct fixture *f = *state;
    put(f->root, "a.r", "theirs");
    assert_int_equal(md(f, OP_CREATE, "a", NULL, "mine"), 0);
    assert_int_equal(md(f, OP_RENAME, "a", "a.r", NULL), -EEXIST);
    assert_true(has(f->root, "a.r", "theirs"));
    assert_true(has(f->root, "a", "mine"));
    assert_int_equal(md(f, OP_RENAME, "a", "b", NULL), 0);
    assert_true(has(f->root, "b", "mine"));
}

static void test_posix_md_outside_root_refused(void **state)
{
    struct fixture *f = *state;
    char p[256], link[256];
    uint64_t n;
    put(f->out, "s", "sentinel");
    snprintf(p, sizeof p, "%s/s", f->out);
    assert_int_equal(posix_md_run(&f->ej, OP_UNLINK, p, NULL, NULL, 0, &n), -EXDEV);
    /* through a symlink in the root that leads out */
    snprintf(link, sizeof link, "%s/link", f->root);
    assert_int_equal(symlink(f->out, link), 0);
    assert_int_equal(md(f, OP_UNLINK, "link/s", NULL, NULL), -EXDEV);
    assert_int_equal(md(f, OP_CREATE, "link/new", NULL, "x"), -EXDEV);
    assert_int_equal(md(f, OP_MKDIR, "link/d", NULL, NULL), -EXDEV);
    assert_true(has(f->out, "s", "sentinel"));
    assert_false(has(f->out, "new", NULL));
    /* a last component that is a symlink is never followed */
    assert_int_equal(md(f, OP_RMDIR, "link", NULL, NULL), -ENOTDIR);
    assert_int_equal(md(f, OP_UNLINK, "..", NULL, NULL), -EINVAL);
    /* no root: never a plain path */
    f->ej.root = NULL;
    posix_md_release(&f->ej);
    assert_int_equal(md(f, OP_STAT, "anything", NULL, NULL), -EACCES);
}

static void test_posix_md_work_dir_opened_once(void **state)
{
    struct fixture *f = *state;
    char moved[256];
    uint64_t n = 0;
    assert_int_equal(md(f, OP_MKDIR, "w", NULL, NULL), 0);
    assert_int_equal(md(f, OP_CREATE, "w/a", NULL, "a"), 0);
    put(f->out, "a", "sentinel");
    swap(f->root, "w", f->out);
    snprintf(moved, sizeof moved, "%s/w.moved", f->root);
    /* the job goes on in its own directory, wherever it is now */
    assert_int_equal(md(f, OP_CREATE, "w/b", NULL, "b"), 0);
    assert_true(has(moved, "b", "b"));
    assert_false(has(f->out, "b", NULL));
    assert_int_equal(md(f, OP_RENAME, "w/b", "w/c", NULL), 0);
    assert_true(has(moved, "c", "b"));
    assert_int_equal(md(f, OP_UNLINK, "w/a", NULL, NULL), 0);
    assert_false(has(moved, "a", NULL));
    assert_true(has(f->out, "a", "sentinel"));
    assert_int_equal(posix_md_run(&f->ej, OP_READDIR, f->base, NULL, NULL, 0, &n), 0);
    assert_int_equal(n, 3);                           /* ".", "..", "c" */
}

static void test_posix_md_subdir_cannot_lead_out(void **state)
{
    struct fixture *f = *state;
    char w[256], moved[256];
    uint64_t n = 0;
    assert_int_equal(md(f, OP_MKDIR, "w", NULL, NULL), 0);
    assert_int_equal(md(f, OP_MKDIR, "w/d0", NULL, NULL), 0);
    assert_int_equal(md(f, OP_CREATE, "w/d0/a", NULL, "a"), 0);
    snprintf(w, sizeof w, "%s/w", f->root);
    swap(w, "d0", f->out);
    snprintf(moved, sizeof moved, "%s/w/d0.moved", f->root);
    /* d0 was opened before the swap: its fd goes on */
    assert_int_equal(md(f, OP_CREATE, "w/d0/b", NULL, "b"), 0);
    assert_true(has(moved, "b", "b"));
    assert_int_equal(posix_md_run(&f->ej, OP_READDIR, w, NULL, NULL, 0, &n), 0);
    /* a subdirectory that is a symlink out from the start */
    char d1[256];
    snprintf(d1, sizeof d1, "%s/d1", w);
    assert_int_equal(symlink(f->out, d1), 0);
    assert_int_equal(md(f, OP_CREATE, "w/d1/x", NULL, "x"), -EXDEV);
    assert_false(has(f->out, "x", NULL));
    assert_false(has(f->out, "b", NULL));
}

/* A shared subdirectory removed by another job (it was empty) and made
 * again: the fd kept for it is dropped, the op goes to the new one. */
static void test_posix_md_subdir_made_again(void **state)
{
    struct fixture *f = *state;
    char d0[256];
    assert_int_equal(md(f, OP_MKDIR, "w", NULL, NULL), 0);
    assert_int_equal(md(f, OP_MKDIR, "w/d0", NULL, NULL), 0);
    assert_int_equal(md(f, OP_CREATE, "w/d0/a", NULL, "a"), 0);
    assert_int_equal(md(f, OP_UNLINK, "w/d0/a", NULL, NULL), 0);
    snprintf(d0, sizeof d0, "%s/d0", f->base);
    assert_int_equal(rmdir(d0), 0);                  /* the other job */
    assert_int_equal(md(f, OP_CREATE, "w/d0/b", NULL, "b"), -ENOENT);
    assert_int_equal(md(f, OP_MKDIR, "w/d0", NULL, NULL), 0);
    assert_int_equal(md(f, OP_CREATE, "w/d0/b", NULL, "b"), 0);
    assert_true(has(d0, "b", "b"));
}

/* A FIFO or a symlink put in place of the job's file: open neither blocks
 * nor follows it. */
static void test_posix_md_open_never_blocks_or_follows(void **state)
{
    struct fixture *f = *state;
    char p[256];
    snprintf(p, sizeof p, "%s/fifo", f->root);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(md(f, OP_OPEN, "fifo", NULL, NULL), 0);
    put(f->out, "s", "sentinel");
    snprintf(p, sizeof p, "%s/s", f->out);
    char l[256];
    snprintf(l, sizeof l, "%s/l", f->root);
    assert_int_equal(symlink(p, l), 0);
    assert_int_equal(md(f, OP_OPEN, "l", NULL, NULL), -ELOOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_posix_md_create_is_exclusive, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_rename_never_replaces, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_outside_root_refused, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_work_dir_opened_once, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_subdir_cannot_lead_out, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_subdir_made_again, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_md_open_never_blocks_or_follows, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
