/* Unit tests for coordinator/cli/fio_cli.c: fio's command-line options, how
 * job options combine with a job file (fio's init.c order), --section,
 * --readonly and --max-jobs on a parsed plan, and --showcmd's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "coordinator/cli/fio_cli.h"
#include "coordinator/report/report.h"

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/nfstorm-test-fio-cli-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static int opt(struct fio_cli *f, struct report_outputs *o, const char *a, const char *b)
{
    char *argv[3] = { (char *)a, (char *)b, NULL };
    int i = 0;
    return fio_cli_option(f, o, b ? 2 : 1, argv, &i);
}

static void test_fio_cli_options(void **state)
{
    struct fio_cli f;
    struct report_outputs o;
    (void)state;

    memset(&f, 0, sizeof f);
    memset(&o, 0, sizeof o);
    assert_int_equal(opt(&f, &o, "--minimal", NULL), 1);
    assert_int_equal(o.fio_formats, REPORT_FIO_TERSE);
    assert_int_equal(opt(&f, &o, "--terse-version=3", NULL), 1);
    assert_int_equal(opt(&f, &o, "--terse-version=4", NULL), 2);
    assert_int_equal(opt(&f, &o, "--section", "a"), 1);
    assert_int_equal(opt(&f, &o, "--section=b", NULL), 1);
    assert_int_equal(f.nsections, 2);
    assert_string_equal(f.sections[1], "b");
    assert_int_equal(opt(&f, &o, "--eta=never", NULL), 1);
    assert_int_equal(f.eta, FIO_ETA_NEVER);
    assert_int_equal(opt(&f, &o, "--eta=sometimes", NULL), 2);
    assert_int_equal(opt(&f, &o, "--status-interval=2", NULL), 1);
    assert_int_equal(f.status_interval_ns, 2000000000ull);
    assert_int_equal(opt(&f, &o, "--status-interval=500ms", NULL), 1);
    assert_int_equal(f.status_interval_ns, 500000000ull);
    assert_int_equal(opt(&f, &o, "--status-interval", NULL), 2);     /* value missing */
    assert_int_equal(opt(&f, &o, "--max-jobs=0", NULL), 2);
    assert_int_equal(opt(&f, &o, "--max-jobs", "8"), 1);
    assert_int_equal(f.max_jobs, 8);
    assert_int_equal(opt(&f, &o, "--readonly", NULL), 1);
    assert_int_equal(opt(&f, &o, "--parse-only", NULL), 1);
    assert_int_equal(opt(&f, &o, "--showcmd", NULL), 1);
    assert_true(f.readonly && f.parse_only && f.showcmd);
    assert_int_equal(opt(&f, &o, "--sectionx", NULL), 0);
    assert_int_equal(opt(&f, &o, "--bs=4k", NULL), 0);
}

/* fio: options before the first --name are defaults beneath the file's
 * [global]; a --name job runs ahead of the file's, without its [global]. */
static void test_fio_cli_options_with_a_job_file(void **state)
{
    char *path = write_tmp("[global]\nbs=8k\n[a]\nsize=1m\n[b]\nsize=2m\nbs=16k\nstonewall\n");
    char *args[] = { "--bs=64k", "--numjobs=3", "--name=c", "--size=4m", NULL };
    char err[512] = "", *text = NULL;
    struct plan p;
    (void)state;

    assert_int_equal(fio_cli_read_plan(path, 4, args, &p, &text, err, sizeof err), 0);
    assert_int_equal(p.nphases, 2);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_string_equal(p.phases[0].jobs[0].name, "c");
    assert_int_equal(p.phases[0].jobs[0].bs, 65536);        /* the command line's */
    assert_int_equal(p.phases[0].jobs[0].numjobs, 3);
    assert_string_equal(p.phases[0].jobs[1].name, "a");
    assert_int_equal(p.phases[0].jobs[1].bs, 8192);         /* the file's [global] wins */
    assert_int_equal(p.phases[0].jobs[1].numjobs, 3);       /* beneath it: the command line */
    assert_int_equal(p.phases[1].jobs[0].bs, 16384);
    assert_non_null(strstr(text, "bs=64k\nnumjobs=3\nname=c\nsize=4m\n[global]\nbs=8k\n"));
    plan_free(&p);
    free(text);

    /* an unknown command-line option is named */
    char *bad[] = { "--blocksizz=4k", NULL };
    assert_int_not_equal(fio_cli_read_plan(path, 1, bad, &p, &text, err, sizeof err), 0);
    assert_string_equal(err, "unknown option '--blocksizz=4k' (did you mean '--blocksize'?)");
    assert_null(text);
    unlink(path);
    free(path);
}

static void test_fio_cli_section_readonly_max_jobs(void **state)
{
    struct plan p;
    struct fio_cli f;
    char err[512] = "";
    const char *text = "[global]\nsize=1m\n[r]\nrw=randread\nnumjobs=4\n[w]\nrw=write\n"
                       "stonewall\n[m]\nrw=metadata\nnrfiles=4\nmd_ops=stat,unlink\n";
    (void)state;

    memset(&f, 0, sizeof f);
    assert_int_equal(plan_parse_string("t.fio", text, &p, err, sizeof err), 0);
    f.readonly = 1;
    assert_int_equal(fio_cli_apply(&f, &p, err, sizeof err), -EINVAL);
    assert_string_equal(err, "--readonly: job 'w' would write (rw=write)");
    /* --section w skips [w]: r and m run together (w's stonewall went with it) */
    f.sections[0] = "r";
    f.sections[1] = "m";
    f.nsections = 2;
    assert_int_equal(fio_cli_apply(&f, &p, err, sizeof err), -EINVAL);
    assert_string_equal(err, "--readonly: job 'm' would write (md_ops=unlink)");
    assert_int_equal(p.nphases, 1);
    assert_int_equal(p.phases[0].njobs, 2);
    f.readonly = 0;
    f.max_jobs = 4;
    assert_int_equal(fio_cli_apply(&f, &p, err, sizeof err), -EINVAL);
    assert_string_equal(err, "--max-jobs 4: the plan has 5 jobs per agent (numjobs summed over "
                             "its job sections)");
    f.max_jobs = 5;
    f.nsections = 1;
    f.sections[0] = "nope";
    assert_int_equal(fio_cli_apply(&f, &p, err, sizeof err), -EINVAL);
    assert_string_equal(err, "--section nope: the plan has no job section of that name");
    plan_free(&p);
}

static void test_fio_cli_showcmd(void **state)
{
    char buf[512];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    (void)state;

    assert_non_null(f);
    fio_cli_showcmd(f, "[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\nstonewall\n");
    fclose(f);
    assert_string_equal(buf, "fio --size=1m --name=a --rw=read --name=b --rw=write --stonewall\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fio_cli_options),
        cmocka_unit_test(test_fio_cli_options_with_a_job_file),
        cmocka_unit_test(test_fio_cli_section_readonly_max_jobs),
        cmocka_unit_test(test_fio_cli_showcmd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
