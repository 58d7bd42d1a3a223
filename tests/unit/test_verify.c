/* test_verify: a job's verification on crafted I/O buffers: stamping,
 * the three read modes, verify_only's newest-generation rule and file ids
 * relative to the --allow root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/verify.h"
#include "common/plan.h"

#define BS 4096

struct fixture {
    struct job_spec spec;
    struct engine_file files[2];
    struct engine_job ej;
    struct vstats out;
    struct verify_job v;
    char buf[2 * BS];
};

static void setup(struct fixture *f, enum vblock_csum csum)
{
    char err[256];
    memset(f, 0, sizeof *f);
    job_spec_default(&f->spec);
    f->spec.verify = csum;
    f->spec.verify_interval = BS;    /* reads and stamps cut ops alike */
    snprintf(f->files[0].path, sizeof f->files[0].path, "/mnt/a/dir/f.0");
    snprintf(f->files[1].path, sizeof f->files[1].path, "/mnt/a/dir/f.1");
    f->ej.files = f->files;
    f->ej.nfiles = 2;
    f->ej.root = "/mnt/a";
    assert_int_equal(verify_init(&f->v, &f->spec, &f->ej, 3, 7, 500, &f->out, err, sizeof err), 0);
}

static struct io_req req(struct fixture *f, uint32_t file, uint64_t off, uint64_t len)
{
    struct io_req r = { .kind = IO_WRITE, .file = file, .offset = off, .len = len, .buf = f->buf };
    return r;
}

static void test_verify_stamp_and_read_back(void **state)
{
    struct fixture *f = test_malloc(sizeof *f);
    struct io_req r;
    (void)state;
    setup(f, VB_CSUM_CRC32C);
    assert_int_equal(f->out.on, 1);
    r = req(f, 1, 8192, 2 * BS);
    verify_stamp(&f->v, &r, BS, 500, 1000);          /* two units */
    r.kind = IO_READ;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_READBACK), 0);
    assert_int_equal(f->out.checked, 2);
    assert_int_equal(f->out.count[VB_OK], 2);
    /* another agent's generation-500 block: read-back names the writer */
    f->v.writer = 4;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_READBACK), 1);
    assert_int_equal(f->out.count[VB_WRONG_WRITER], 2);
    assert_int_equal(f->out.first[0].expected_writer, 4);
    assert_int_equal(f->out.first[0].found_writer, 3);
    assert_int_equal(f->out.first[0].found_job, 7);
    assert_int_equal(f->out.first[1].offset, 8192 + BS);
    assert_string_equal(f->out.first[0].file, "/mnt/a/dir/f.1");
    /* any writer, any generation: fine */
    assert_int_equal(verify_read(&f->v, &r, VERIFY_MIXED), 0);
    /* the other file's id: wrong file */
    r.file = 0;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_MIXED), 1);
    assert_int_equal(f->out.count[VB_WRONG_FILE], 2);
    verify_free(&f->v);
    test_free(f);
}

static void test_verify_scan_newest_generation_wins(void **state)
{
    struct fixture *f = test_malloc(sizeof *f);
    struct io_req r;
    (void)state;
    setup(f, VB_CSUM_MD5);
    /* units 0-2 of generation 700, unit 3 of 600 (an older write back) */
    for (int i = 0; i < 4; i++) {
        r = req(f, 0, (uint64_t)i * BS, BS);
        verify_stamp(&f->v, &r, BS, i == 3 ? 600 : 700, 10 + (uint64_t)i);
        r.kind = IO_READ;
        assert_int_equal(verify_read(&f->v, &r, VERIFY_SCAN), 0);   /* judged at the end */
    }
    assert_int_equal(f->out.checked, 0);
    verify_end(&f->v);
    assert_int_equal(f->out.checked, 4);
    assert_int_equal(f->out.count[VB_OK], 3);
    assert_int_equal(f->out.count[VB_STALE], 1);
    assert_int_equal(f->out.nfirst, 1);
    assert_int_equal(f->out.first[0].offset, 3 * BS);
    assert_int_equal(f->out.first[0].expected_gen, 700);
    assert_int_equal(f->out.first[0].found_gen, 600);
    assert_int_equal(f->out.first[0].expected_writer, VBLOCK_ANY_WRITER);
    assert_int_equal(f->v.failed, 1);
    verify_free(&f->v);
    test_free(f);
}

/* More generations than the job tells apart (VERIFY_GENS): each unit is
 * still judged, only the newest ok; the rest stale, none silently ok. */
static void test_verify_scan_many_generations(void **state)
{
    struct fixture *f = test_malloc(sizeof *f);
    struct io_req r;
    const int n = VERIFY_GENS + 4;
    (void)state;
    setup(f, VB_CSUM_CRC32C);
    for (int i = 0; i < n; i++) {
        /* generations in a shuffled order: the newest (1000 + n - 1) at unit 5 */
        uint64_t gen = 1000 + (uint64_t)((i * 5) % n);
        r = req(f, 0, (uint64_t)i * BS, BS);
        verify_stamp(&f->v, &r, BS, gen, 10 + (uint64_t)i);
        r.kind = IO_READ;
        verify_read(&f->v, &r, VERIFY_SCAN);
    }
    verify_end(&f->v);
    assert_int_equal(f->out.checked, n);
    assert_int_equal(f->out.count[VB_OK], 1);
    assert_int_equal(f->out.count[VB_STALE], n - 1);
    verify_free(&f->v);
    test_free(f);
}

/* A reader of what an earlier phase of this run wrote: a previous run's
 * block (every write lost) is stale and names the run; the runs that
 * wrote what was checked are tallied. */
static void test_verify_scan_expects_this_run(void **state)
{
    struct fixture *f = test_malloc(sizeof *f);
    struct io_req r;
    (void)state;
    setup(f, VB_CSUM_CRC32C);
    f->v.run = 0xaaaa;                  /* the previous run writes */
    r = req(f, 0, 0, BS);
    verify_stamp(&f->v, &r, BS, 900, 10);
    f->v.run = 0xbbbb;                  /* this run reads, its phase 1 wrote at 1000 */
    f->v.min_gen = 1000;
    r.kind = IO_READ;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_SCAN), 1);
    assert_int_equal(f->out.count[VB_STALE], 1);
    assert_true(f->out.first[0].found_run == 0xaaaa && f->out.first[0].expected_run == 0xbbbb);
    assert_int_equal(f->out.nruns, 1);
    assert_true(f->out.runs[0].run == 0xaaaa && f->out.runs[0].blocks == 1);
    /* verify_written_by: only that run's blocks */
    f->v.min_gen = 0;
    f->v.written_by = 0xaaaa;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_SCAN), 0);
    f->v.written_by = 0xcccc;
    assert_int_equal(verify_read(&f->v, &r, VERIFY_MIXED), 1);
    verify_end(&f->v);
    assert_int_equal(f->out.count[VB_STALE], 2);
    assert_int_equal(f->out.count[VB_OK], 1);
    verify_free(&f->v);
    test_free(f);
}

static void test_verify_file_id_relative(void **state)
{
    struct engine_file a = { .path = "/mnt/a/dir/f.0" }, b = { .path = "dir/f.0" }, c = { .path = "/dir/f.0" };
    struct engine_job ja = { .files = &a, .nfiles = 1, .root = "/mnt/a" };
    struct engine_job jb = { .files = &b, .nfiles = 1 };           /* nfs: relative to the export */
    struct engine_job jc = { .files = &c, .nfiles = 1 };
    struct engine_job jd = { .files = &a, .nfiles = 1, .root = "/mnt/ab" };   /* not a prefix dir */
    (void)state;
    assert_true(verify_file_id(&ja, 0) == vblock_file_id("dir/f.0"));
    assert_true(verify_file_id(&jb, 0) == verify_file_id(&ja, 0));
    assert_true(verify_file_id(&jc, 0) == verify_file_id(&ja, 0));
    assert_true(verify_file_id(&jd, 0) == vblock_file_id("mnt/a/dir/f.0"));
    assert_true(verify_job_bytes(10) > sizeof(struct vstats));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify_stamp_and_read_back),
        cmocka_unit_test(test_verify_scan_newest_generation_wins),
        cmocka_unit_test(test_verify_scan_many_generations),
        cmocka_unit_test(test_verify_scan_expects_this_run),
        cmocka_unit_test(test_verify_file_id_relative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
