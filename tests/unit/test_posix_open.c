/* test_posix_open: data files are opened, and their missing directories
 * made, beneath the --allow root; a symlink on the way that leads out is
 * never followed.  Real files and symlinks in temp dirs. */
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

#include "agent/posix_open.h"

struct fixture {
    char root[64], out[64];
    struct job_spec spec;
    struct engine_file file;
    struct engine_job ej;
    int fd;
};

static int fixture_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->root, sizeof f->root, "/tmp/t_posix_open_root.XXXXXX");
    snprintf(f->out, sizeof f->out, "/tmp/t_posix_open_out.XXXXXX");
    assert_non_null(mkdtemp(f->root));
    assert_non_null(mkdtemp(f->out));
    f->ej.spec = &f->spec;
    f->ej.files = &f->file;
    f->ej.nfiles = 1;
    f->ej.create = 1;
    f->ej.root = f->root;
    f->fd = -1;
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[256];
    if (f->fd >= 0)
        close(f->fd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", f->root, f->out);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static void test_posix_open_makes_missing_directories(void **state)
{
    struct fixture *f = *state;
    struct stat st;
    snprintf(f->file.path, sizeof f->file.path, "%s/a/b/c/f", f->root);
    assert_int_equal(posix_open_files(&f->ej, &f->fd), 0);
    assert_true(f->fd >= 0);
    assert_int_equal(f->file.created, 1);
    assert_int_equal(stat(f->file.path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

static void test_posix_open_symlink_out_is_not_followed(void **state)
{
    struct fixture *f = *state;
    char link[128], p[160];
    snprintf(link, sizeof link, "%s/link", f->root);
    assert_int_equal(symlink(f->out, link), 0);
    /* the directory to make is beyond the symlink: nothing appears outside */
    snprintf(f->file.path, sizeof f->file.path, "%s/link/sub/f", f->root);
    assert_int_equal(posix_open_files(&f->ej, &f->fd), -EXDEV);
    assert_non_null(strstr(f->ej.err, "outside the allowed directory"));
    snprintf(p, sizeof p, "%s/sub", f->out);
    assert_int_equal(access(p, F_OK), -1);
    /* and the file itself */
    snprintf(f->file.path, sizeof f->file.path, "%s/link/f", f->root);
    f->ej.err[0] = '\0';
    assert_int_equal(posix_open_files(&f->ej, &f->fd), -EXDEV);
    snprintf(p, sizeof p, "%s/f", f->out);
    assert_int_equal(access(p, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_posix_open_makes_missing_directories, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_posix_open_symlink_out_is_not_followed, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
