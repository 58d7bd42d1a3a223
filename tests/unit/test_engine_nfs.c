/* test_engine_nfs: the nfs engine against a real NFS server.
 *
 * Why a live server and not a mock: the engine's job is to drive libnfs's
 * async calls and socket correctly (splitting, completion, poll handling);
 * a mock would test our assumptions about libnfs, not libnfs.  The server
 * comes from tests/nfs_server.sh (see tests/integration/t0300_engine_nfs.sh)
 * and its URL from NFSTORM_TEST_NFS_URL; without it every test skips.
 *
 * Linked only with agent/engine_nfs.c and agent/nfs_conn.c (plus libnfs,
 * cmocka and a few common/ modules), so it
 * builds while the rest of the tree is mid-edit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/engine.h"

#define NFILES    2
#define NWRITES   64
#define BS        4096
#define DEPTH     16
#define BIG       (1024 * 1024)
#define ODD       (4 * 1024 * 1024 + 123)   /* split into several RPCs, ragged end */

static const char *test_url(void)
{
    const char *u = getenv("NFSTORM_TEST_NFS_URL");
    return (u && *u) ? u : NULL;
}

/* Deterministic bytes per (file, offset) so any misplaced part shows. */
static void fill(char *buf, size_t len, uint32_t file, uint64_t off)
{
    for (size_t i = 0; i < len; i++) {
        uint64_t x = (off + i) * 2654435761u + file * 40503u + ((off + i) >> 12);
        buf[i] = (char)(x ^ (x >> 11));
    }
}

struct fixture {
    struct job_spec spec;
    struct engine_file files[NFILES];
    struct engine_job ej;
};

static void fixture_init(struct fixture *f, const char *url, const char *tag, int create)
{
    memset(f, 0, sizeof(*f));
    f->spec.rw = RW_WRITE;
    f->spec.bs = BS;
    f->spec.iodepth = DEPTH;
    f->spec.nrfiles = NFILES;
    snprintf(f->spec.ioengine, sizeof(f->spec.ioengine), "nfs");
    for (uint32_t i = 0; i < NFILES; i++) {
        snprintf(f->files[i].path, sizeof(f->files[i].path), "t_engine_nfs.%ld.%s.%u",
                 (long)getpid(), tag, i);
        f->files[i].size = 8u * 1024 * 1024;
    }
    f->ej.spec = &f->spec;
    f->ej.nfs_url = url;
    f->ej.files = f->files;
    f->ej.nfiles = NFILES;
    f->ej.create = create;
}

/* Setup; fails the test with the engine's message. */
static void setup_or_fail(struct fixture *f)
{
    int rc = engine_nfs.setup(&f->ej);
    if (rc != 0)
        print_message("setup: %d %s\n", rc, f->ej.err);
    assert_int_equal(rc, 0);
}

/* Run reqs[0..n) with at most depth in flight; every result must be 0. */
static void run_all(struct engine_job *ej, struct io_req *reqs, unsigned n, unsigned depth)
{
    unsigned next = 0, inflight = 0, completed = 0;
    struct io_req *done[DEPTH];
    while (completed < n) {
        while (next < n && inflight < depth) {
            int rc = engine_nfs.queue(ej, &reqs[next]);
            if (rc != 0)
                print_message("queue: %d %s\n", rc, ej->err);
            assert_int_equal(rc, 0);
            next++;
            inflight++;
        }
        int got = engine_nfs.reap(ej, 1, 30ull * 1000000000ull, done, DEPTH);
        if (got < 0)
            print_message("reap: %d %s\n", got, ej->err);
        assert_true(got > 0);     /* 30 s without one completion: broken */
        for (int i = 0; i < got; i++) {
            if (done[i]->result != 0)
                print_message("req at %llu: %d\n",
                              (unsigned long long)done[i]->offset, done[i]->result);
            assert_int_equal(done[i]->result, 0);
        }
        completed += (unsigned)got;
        inflight -= (unsigned)got;
    }
}

static void test_write_read_sync_size(void **state)
{
    (void)state;
    const char *url = test_url();
    if (!url)
        skip();
    struct fixture f;
    fixture_init(&f, url, "rw", 1);
    setup_or_fail(&f);

    static char wbuf[NWRITES][BS], rbuf[NWRITES][BS];
    struct io_req reqs[NWRITES];
    for (unsigned i = 0; i < NWRITES; i++) {
        uint32_t file = i % NFILES;
        uint64_t off = (uint64_t)(i / NFILES) * BS;
        fill(wbuf[i], BS, file, off);
        reqs[i] = (struct io_req){ .kind = IO_WRITE, .file = file, .offset = off,
                                   .len = BS, .buf = wbuf[i], .result = 1 };
    }
    run_all(&f.ej, reqs, NWRITES, DEPTH);

    for (unsigned i = 0; i < NWRITES; i++) {
        memset(rbuf[i], 0, BS);
        reqs[i].kind = IO_READ;
        reqs[i].buf = rbuf[i];
        reqs[i].result = 1;
    }
    run_all(&f.ej, reqs, NWRITES, DEPTH);
    for (unsigned i = 0; i < NWRITES; i++)
        assert_memory_equal(rbuf[i], wbuf[i], BS);

    struct io_req sync[NFILES];
    for (uint32_t i = 0; i < NFILES; i++)
        sync[i] = (struct io_req){ .kind = IO_SYNC, .file = i, .result = 1 };
    run_all(&f.ej, sync, NFILES, DEPTH);

    for (uint32_t i = 0; i < NFILES; i++) {
        uint64_t size = 0;
        assert_int_equal(engine_nfs.file_size(&f.ej, i, &size), 0);
        assert_int_equal(size, (uint64_t)NWRITES / NFILES * BS);
    }

    engine_nfs.teardown(&f.ej);
    assert_null(f.ej.priv);
}

/* One op larger than rsize/wsize: split into parts, completed once. */
static void big_op(struct engine_job *ej, uint64_t len, uint64_t off)
{
    char *w = malloc(len), *r = malloc(len);
    assert_non_null(w);
    assert_non_null(r);
    fill(w, len, 0, off);
    memset(r, 0, len);
    struct io_req req = { .kind = IO_WRITE, .file = 0, .offset = off, .len = len,
                          .buf = w, .result = 1 };
    run_all(ej, &req, 1, 1);
    req = (struct io_req){ .kind = IO_READ, .file = 0, .offset = off, .len = len,
                           .buf = r, .result = 1 };
    run_all(ej, &req, 1, 1);
    assert_memory_equal(r, w, len);
    free(w);
    free(r);
}

static void test_big_ops(void **state)
{
    (void)state;
    const char *url = test_url();
    if (!url)
        skip();
    struct fixture f;
    fixture_init(&f, url, "big", 1);
    setup_or_fail(&f);
    big_op(&f.ej, BIG, 0);
    big_op(&f.ej, ODD, BIG);
    uint64_t size = 0;
    assert_int_equal(engine_nfs.file_size(&f.ej, 0, &size), 0);
    assert_int_equal(size, (uint64_t)BIG + ODD);
    engine_nfs.teardown(&f.ej);
}

/* Opening a missing file without create names the file in the error. */
static void test_open_missing(void **state)
{
    (void)state;
    const char *url = test_url();
    if (!url)
        skip();
    struct fixture f;
    fixture_init(&f, url, "missing", 0);
    f.spec.rw = RW_READ;
    int rc = engine_nfs.setup(&f.ej);
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(f.ej.err, "open failed"));
    assert_non_null(strstr(f.ej.err, f.files[0].path));
    assert_null(f.ej.priv);
}

/* Nothing listens on port 1: mount fails fast with the URL in the text. */
static void test_mount_refused(void **state)
{
    (void)state;
    if (!test_url())
        skip();
    struct fixture f;
    const char *bad = "nfs://127.0.0.1/nowhere?nfsport=1&mountport=1";
    fixture_init(&f, bad, "refused", 1);
    int rc = engine_nfs.setup(&f.ej);
    assert_true(rc < 0);
    assert_non_null(strstr(f.ej.err, "mount failed"));
    assert_non_null(strstr(f.ej.err, bad));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read_sync_size),
        cmocka_unit_test(test_big_ops),
        cmocka_unit_test(test_open_missing),
        cmocka_unit_test(test_mount_refused),
    };
    /* scripts/run-unit.sh fails a binary that ran no case unless it says why */
    if (!test_url())
        printf("unit: no cases: NFSTORM_TEST_NFS_URL is not set "
               "(tests/integration/t0300_engine_nfs.sh runs these against a real NFS server)\n");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
