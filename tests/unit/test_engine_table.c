/* test_engine_table: the one description of every engine, and fio's
 * spellings the plan parser folds through it.
 *
 * - every row has the agent engine of the same name (the registry is the
 *   table's ops column), and the properties the core asks for;
 * - aliases fold, fio engines nfstorm lacks are refused naming the closest;
 * - filecreate/filestat/filedelete become metadata jobs of psync or nfs;
 * - the iodepth_batch_* keys parse as fio's (0 = iodepth for submit). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "agent/engine.h"
#include "common/engine_table.h"
#include "common/plan.h"
#include "common/plan_parse.h"

static void test_engine_table_rows_match_agent_engines(void **state)
{
    static const char *const names[] = { "psync", "io_uring", "libaio", "nfs", "null" };
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct engine_desc *d = engine_table_find(names[i]);
        const struct engine_ops *ops = engine_find(names[i]);
        assert_non_null(d);
        assert_non_null(ops);
        assert_string_equal(ops->name, names[i]);
        /* a row that says metadata has an md op, and the other way round */
        assert_int_equal(!!(d->flags & ENGINE_F_MD), ops->md != NULL);
        /* a page cache to drop means an invalidate op */
        if (d->flags & ENGINE_F_CACHE)
            assert_non_null(ops->invalidate);
    }
    assert_null(engine_table_find("sync"));      /* aliases are folded, never carried */
    assert_null(engine_find("sync"));
    assert_true(engine_table_takes_url("nfs"));
    assert_false(engine_table_takes_url("libaio"));
    assert_true(engine_table_local("libaio"));
    assert_false(engine_table_local("nfs"));
    assert_false(engine_table_local("null"));
    assert_false(engine_table_has_files("null"));
    assert_true(engine_table_has_files("nfs"));
    assert_string_equal(engine_table_allow_flag("nfs"), "--allow-nfs");
    assert_string_equal(engine_table_allow_flag("io_uring"), "--allow");
}

static void expect_parse(const char *value, const char *want)
{
    char out[PLAN_ENGINE_MAX] = "", why[256] = "";
    assert_int_equal(engine_table_parse(value, out, sizeof out, why, sizeof why), 0);
    assert_string_equal(out, want);
}

static void expect_refused(const char *value, const char *why_want)
{
    char out[PLAN_ENGINE_MAX] = "", why[256] = "";
    assert_int_equal(engine_table_parse(value, out, sizeof out, why, sizeof why), -EINVAL);
    assert_string_equal(why, why_want);
    assert_string_equal(out, "");
}

static void test_engine_table_spellings(void **state)
{
    (void)state;
    expect_parse("psync", "psync");
    expect_parse("sync", "psync");
    expect_parse("pvsync", "psync");
    expect_parse("vsync", "psync");
    expect_parse("pvsync2", "psync");
    expect_parse("libaio", "libaio");
    expect_parse("io_uring", "io_uring");
    expect_parse("filestat", "filestat");      /* folded when the job ends */
    expect_parse("posixaio", "posixaio");
    expect_refused("windowsaio", "fio's windowsaio engine is not implemented by nfstorm; "
                   "use libaio or io_uring");
    expect_refused("mmap", "fio's mmap engine is not implemented by nfstorm; use psync");
    expect_refused("sync2", "nfstorm's engines are psync (sync, pvsync, vsync, pvsync2), io_uring, "
                   "libaio, posixaio, nfs, null; and fio's filecreate, filestat, filedelete");
}

/* Parse one job; its spec in *j.  0 or the parser's error in err. */
static int parse_one(const char *text, struct job_spec *j, char *err, size_t errlen)
{
    struct plan p;
    int rc = plan_parse_string("t.fio", text, &p, err, errlen);
    if (rc == 0) {
        assert_int_equal(p.nphases, 1);
        *j = p.phases[0].jobs[0];
        plan_free(&p);
    }
    return rc;
}

static void test_engine_table_md_engines_fold(void **state)
{
    struct job_spec j;
    char err[512] = "";
    (void)state;

    /* filecreate: empty files (fio's does no I/O), on the kernel mount */
    assert_int_equal(parse_one("[c]\nioengine=filecreate\nnrfiles=50\nfilesize=4k\n", &j, err,
                               sizeof err), 0);
    assert_int_equal(j.rw, RW_METADATA);
    assert_string_equal(j.ioengine, "psync");
    assert_int_equal(j.n_md_ops, 1);
    assert_int_equal(j.md_ops[0], OP_CREATE);
    assert_int_equal(j.nrfiles, 50);
    assert_int_equal(j.filesize, 0);
    /* filestat with nfs_url (after the engine key): the libnfs engine; files
     * of filesize made first, as fio lays them out */
    assert_int_equal(parse_one("[s]\nioengine=filestat\nfilesize=4k\nnrfiles=7\n"
                               "nfs_url=nfs://127.0.0.1/export\n", &j, err, sizeof err), 0);
    assert_int_equal(j.rw, RW_METADATA);
    assert_string_equal(j.ioengine, "nfs");
    assert_int_equal(j.n_md_ops, 2);
    assert_int_equal(j.md_ops[0], OP_CREATE);
    assert_int_equal(j.md_ops[1], OP_STAT);
    assert_int_equal(j.filesize, 4096);
    /* filedelete from [global], nrfiles defaulting to 1 as in fio */
    assert_int_equal(parse_one("[global]\nioengine=filedelete\n[d]\n", &j, err, sizeof err), 0);
    assert_int_equal(j.rw, RW_METADATA);
    assert_string_equal(j.ioengine, "psync");
    assert_int_equal(j.n_md_ops, 2);
    assert_int_equal(j.md_ops[0], OP_CREATE);
    assert_int_equal(j.md_ops[1], OP_UNLINK);
    assert_int_equal(j.nrfiles, 1);
    /* fio's engine and nfstorm's md_ops together: which wins is unclear */
    assert_int_equal(parse_one("[m]\nioengine=filestat\nmd_ops=unlink\nnrfiles=3\n", &j, err,
                               sizeof err), -EINVAL);
    assert_string_equal(err, "t.fio: job 'm': ioengine=filestat is a fixed set of metadata ops; "
                        "with md_ops= use rw=metadata and a file engine (psync, nfs)");
    /* windowsaio in a job file: file:line, key, value and the closest engine */
    assert_int_equal(parse_one("[a]\nsize=1m\nioengine=windowsaio\n", &j, err, sizeof err), -EINVAL);
    assert_string_equal(err, "t.fio:3: bad value for 'ioengine': 'windowsaio' (fio's windowsaio engine "
                        "is not implemented by nfstorm; use libaio or io_uring)");
}

static void test_engine_table_batch_keys(void **state)
{
    struct job_spec j;
    char err[512] = "";
    (void)state;

    assert_int_equal(parse_one("[a]\nsize=1m\nioengine=libaio\niodepth=32\n", &j, err, sizeof err), 0);
    assert_int_equal(j.iodepth_batch_submit, 0);
    assert_int_equal(j.iodepth_batch_complete_min, 0);
    assert_int_equal(j.iodepth_batch_complete_max, 0);
    assert_int_equal(parse_one("[a]\nsize=1m\nioengine=libaio\niodepth=32\niodepth_batch=8\n"
                               "iodepth_batch_complete=4\niodepth_batch_complete_max=16\n",
                               &j, err, sizeof err), 0);
    assert_int_equal(j.iodepth_batch_submit, 8);
    assert_int_equal(j.iodepth_batch_complete_min, 4);
    assert_int_equal(j.iodepth_batch_complete_max, 16);
    assert_int_equal(parse_one("[a]\nsize=1m\nioengine=libaio\niodepth_batch_submit=0\n"
                               "iodepth_batch_complete_min=2\n", &j, err, sizeof err), 0);
    assert_int_equal(j.iodepth_batch_submit, PLAN_BATCH_DEPTH);
    assert_int_equal(j.iodepth_batch_complete_min, 2);
    assert_int_equal(parse_one("[a]\nsize=1m\niodepth_batch_submit=many\n", &j, err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "t.fio:3: bad value for 'iodepth_batch_submit': 'many'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_table_rows_match_agent_engines),
        cmocka_unit_test(test_engine_table_spellings),
        cmocka_unit_test(test_engine_table_md_engines_fold),
        cmocka_unit_test(test_engine_table_batch_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
