/* test_engine_libaio: the libaio engine on real files in a temp dir.
 *
 * Real kernel, no mock: what can go wrong is how the engine drives the AIO
 * context (batching as fio's iodepth_batch_* say, completion accounting,
 * continuing short transfers, O_DIRECT), and only the kernel answers that.
 * Batching is observable from outside on buffered files: the kernel does
 * buffered AIO inside io_submit, so a file grows exactly when the engine
 * submitted.  Where the kernel refuses AIO every test but the refusal one
 * skips; that one makes it refuse on purpose with a seccomp filter. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/engine.h"

#define NFILES    2
#define NWRITES   64
#define BS        4096
#define DEPTH     16
#define BIG       (1024 * 1024)
#define FILE_SIZE (8u * 1024 * 1024)
#define REAP_NS   (5 * 1000000000ull)

/* Deterministic bytes per (file, offset) so any misplaced block shows. */
static void fill(char *buf, size_t len, uint32_t file, uint64_t off)
{
    for (size_t i = 0; i < len; i++) {
        uint64_t x = (off + i) * 2654435761u + file * 40503u + ((off + i) >> 12);
        buf[i] = (char)(x ^ (x >> 11));
    }
}

struct fixture {
    char dir[64];
    struct job_spec spec;
    struct engine_file files[NFILES];
    struct engine_job ej;
};

static int fixture_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/t_engine_libaio.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->spec.rw = RW_RANDWRITE;
    f->spec.bs = BS;
    f->spec.iodepth = DEPTH;
    f->spec.nrfiles = NFILES;
    snprintf(f->spec.ioengine, sizeof f->spec.ioengine, "libaio");
    for (uint32_t i = 0; i < NFILES; i++) {
        snprintf(f->files[i].path, sizeof f->files[i].path, "%s/f.%u", f->dir, i);
        f->files[i].size = FILE_SIZE;
    }
    f->ej.spec = &f->spec;
    f->ej.files = f->files;
    f->ej.nfiles = NFILES;
    f->ej.create = 1;
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    struct fixture *f = *state;
    engine_libaio.teardown(&f->ej);    /* no-op if a test already tore down */
    for (uint32_t i = 0; i < NFILES; i++)
        unlink(f->files[i].path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Setup, skipping when the kernel refuses AIO. */
static void setup_or_skip(struct fixture *f)
{
    int rc = engine_libaio.setup(&f->ej);
    if (rc < 0 && strstr(f->ej.err, "libaio refused by the kernel")) {
        print_message("skipping: %s\n", f->ej.err);
        skip();
    }
    if (rc != 0)
        fail_msg("setup: %d %s", rc, f->ej.err);
}

/* Reap until n requests came back; returns how many failed. */
static unsigned reap_n(struct fixture *f, unsigned n)
{
    struct io_req *done[8];
    unsigned got = 0, failed = 0;
    while (got < n) {
        unsigned max = n - got < 8 ? n - got : 8;
        int k = engine_libaio.reap(&f->ej, 1, REAP_NS, done, max);
        assert_true(k > 0);            /* k == 0: nothing within 5 s */
        for (int i = 0; i < k; i++)
            failed += done[i]->result != 0;
        got += (unsigned)k;
    }
    return failed;
}

/* One request start to finish; its result. */
static int run_one(struct fixture *f, enum io_kind kind, uint32_t file, uint64_t off,
                   char *buf, uint64_t len)
{
    struct io_req r = { .kind = kind, .file = file, .offset = off, .buf = buf, .len = len,
                        .result = 12345 };
    struct io_req *done[1];
    assert_int_equal(engine_libaio.queue(&f->ej, &r), 0);
    assert_int_equal(engine_libaio.reap(&f->ej, 1, REAP_NS, done, 1), 1);
    assert_ptr_equal(done[0], &r);
    return r.result;
}

static uint64_t size_on_disk(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* 64 writes of 4k over 2 files with 16 in flight, then read them all back
 * (also 16 in flight) and compare; fsync and fdatasync both files. */
static void test_libaio_depth16_write_read(void **state)
{
    struct fixture *f = *state;
    static char wbuf[NWRITES][BS], rbuf[NWRITES][BS];
    struct io_req req[NWRITES];
    unsigned inflight = 0, failed = 0;

    setup_or_skip(f);
    for (int pass = 0; pass < 2; pass++) {
        memset(req, 0, sizeof req);
        for (unsigned i = 0; i < NWRITES; i++) {
            uint32_t file = i % NFILES;
            uint64_t off = (uint64_t)(NWRITES - 1 - i) / NFILES * BS;  /* backwards: not sequential */
            if (pass == 0)
                fill(wbuf[i], BS, file, off);
            req[i] = (struct io_req){ .kind = pass == 0 ? IO_WRITE : IO_READ, .file = file,
                                      .offset = off, .len = BS, .buf = pass == 0 ? wbuf[i] : rbuf[i],
                                      .result = 12345 };
            if (inflight == DEPTH) {
                failed += reap_n(f, 1);
                inflight--;
            }
            assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
            inflight++;
        }
        failed += reap_n(f, inflight);
        inflight = 0;
        assert_int_equal(failed, 0);
        for (unsigned i = 0; i < NWRITES; i++)
            assert_int_equal(req[i].result, 0);
    }
    for (unsigned i = 0; i < NWRITES; i++)
        assert_memory_equal(rbuf[i], wbuf[i], BS);
    for (uint32_t i = 0; i < NFILES; i++) {
        uint64_t size = 0;
        assert_int_equal(engine_libaio.file_size(&f->ej, i, &size), 0);
        assert_int_equal(size, NWRITES / NFILES * BS);
        assert_int_equal(run_one(f, IO_SYNC, i, 0, NULL, 0), 0);
        assert_int_equal(run_one(f, IO_DATASYNC, i, 0, NULL, 0), 0);
    }
    int fd = open(f->files[1].path, O_RDONLY);
    char check[BS];
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, check, BS, 0), BS);
    close(fd);
    assert_memory_equal(check, wbuf[NWRITES - 1], BS);   /* last op, file 1, offset 0 */
}

/* iodepth_batch_submit=4: three queued writes stay in the engine (the file
 * does not grow), the fourth sends all four; a reap sends a partial batch. */
static void test_libaio_batch_submit_holds_until_full(void **state)
{
    struct fixture *f = *state;
    static char buf[6][BS];
    struct io_req req[6];

    f->spec.iodepth_batch_submit = 4;
    setup_or_skip(f);
    for (unsigned i = 0; i < 6; i++) {
        req[i] = (struct io_req){ .kind = IO_WRITE, .file = 0, .offset = (uint64_t)i * BS,
                                  .len = BS, .buf = buf[i] };
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
        if (i < 3)
            assert_int_equal(size_on_disk(f->files[0].path), 0);
        else if (i < 5)
            assert_int_equal(size_on_disk(f->files[0].path), 4 * BS);
    }
    assert_int_equal(reap_n(f, 6), 0);        /* writes 5 and 6 go out with the reap */
    assert_int_equal(size_on_disk(f->files[0].path), 6 * BS);
}

/* Unset is fio's default, 1: each op goes out in queue(), at once; and so
 * with 1 set. */
static void test_libaio_batch_submit_unset_and_one(void **state)
{
    struct fixture *f = *state;
    static char buf[5][BS];
    struct io_req req[5];

    setup_or_skip(f);
    for (unsigned i = 0; i < 5; i++) {
        req[i] = (struct io_req){ .kind = IO_WRITE, .file = 0, .offset = (uint64_t)i * BS,
                                  .len = BS, .buf = buf[i] };
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
        assert_int_equal(size_on_disk(f->files[0].path), (1 + i) * BS);
    }
    assert_int_equal(reap_n(f, 5), 0);
    assert_int_equal(size_on_disk(f->files[0].path), 5 * BS);
    engine_libaio.teardown(&f->ej);

    f->spec.iodepth_batch_submit = 1;
    setup_or_skip(f);
    for (unsigned i = 0; i < 5; i++) {
        req[i].offset = (uint64_t)(5 + i) * BS;
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
        assert_int_equal(size_on_disk(f->files[0].path), (6 + i) * BS);
    }
    assert_int_equal(reap_n(f, 5), 0);
}

/* PLAN_BATCH_DEPTH (the plan's iodepth_batch_submit=0) is the job's iodepth. */
static void test_libaio_batch_submit_zero_is_iodepth(void **state)
{
    struct fixture *f = *state;
    static char buf[DEPTH][BS];
    struct io_req req[DEPTH];

    f->spec.iodepth_batch_submit = PLAN_BATCH_DEPTH;
    setup_or_skip(f);
    for (unsigned i = 0; i < DEPTH; i++) {
        req[i] = (struct io_req){ .kind = IO_WRITE, .file = 1, .offset = (uint64_t)i * BS,
                                  .len = BS, .buf = buf[i] };
        assert_int_equal(size_on_disk(f->files[1].path), 0);
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
    }
    assert_int_equal(size_on_disk(f->files[1].path), DEPTH * BS);
    assert_int_equal(reap_n(f, DEPTH), 0);
}

/* complete_max=3 caps what one wait takes; complete_min=5 raises the
 * loop's min of 1 (all 8 are done once submitted, buffered). */
static void test_libaio_batch_complete_min_max(void **state)
{
    struct fixture *f = *state;
    static char buf[8][BS];
    struct io_req req[8], *done[8];

    f->spec.iodepth_batch_complete_min = 5;
    f->spec.iodepth_batch_complete_max = 6;
    setup_or_skip(f);
    for (unsigned i = 0; i < 8; i++) {
        req[i] = (struct io_req){ .kind = IO_WRITE, .file = 0, .offset = (uint64_t)i * BS,
                                  .len = BS, .buf = buf[i] };
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
    }
    /* min 5 wanted, max 6 per io_getevents: one wait takes 5 or 6 */
    int k = engine_libaio.reap(&f->ej, 1, REAP_NS, done, 8);
    assert_true(k >= 5 && k <= 6);
    /* fewer left than min: the rest, not a wait for the timeout */
    int k2 = engine_libaio.reap(&f->ej, 1, REAP_NS, done, 8);
    assert_int_equal(k + k2, 8);
    engine_libaio.teardown(&f->ej);

    /* max below min follows min, as fio's */
    f->spec.iodepth_batch_complete_min = 4;
    f->spec.iodepth_batch_complete_max = 2;
    setup_or_skip(f);
    for (unsigned i = 0; i < 8; i++) {
        req[i].result = 1;
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
    }
    k = engine_libaio.reap(&f->ej, 1, REAP_NS, done, 8);
    assert_int_equal(k, 4);
    k = engine_libaio.reap(&f->ej, 4, REAP_NS, done, 8);
    assert_int_equal(k, 4);
    engine_libaio.teardown(&f->ej);

    /* the job loop's drain asks for all that is out, more than one wait
     * may take (max 2): several waits, one reap, all 8 */
    f->spec.iodepth_batch_complete_min = 0;
    f->spec.iodepth_batch_complete_max = 2;
    setup_or_skip(f);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), 0);
    assert_int_equal(engine_libaio.reap(&f->ej, 8, REAP_NS, done, 8), 8);
}

/* More than iodepth requests at once: the extra one is refused, not lost. */
static void test_libaio_queue_beyond_depth_is_eagain(void **state)
{
    struct fixture *f = *state;
    static char buf[DEPTH + 1][BS];
    struct io_req req[DEPTH + 1];

    setup_or_skip(f);
    for (unsigned i = 0; i <= DEPTH; i++) {
        req[i] = (struct io_req){ .kind = IO_WRITE, .file = 0, .offset = (uint64_t)i * BS,
                                  .len = BS, .buf = buf[i] };
        assert_int_equal(engine_libaio.queue(&f->ej, &req[i]), i < DEPTH ? 0 : -EAGAIN);
    }
    assert_int_equal(reap_n(f, DEPTH), 0);
    struct io_req *done[1];
    assert_int_equal(engine_libaio.reap(&f->ej, 1, REAP_NS, done, 1), 0);
}

/* A 1 MiB request is one op of its full length, both ways; reading across
 * the end continues the short part, then -ENODATA as psync. */
static void test_libaio_big_op_and_eof(void **state)
{
    struct fixture *f = *state;
    char *w = malloc(BIG), *r = malloc(BIG);
    static char rr[4 * BS];

    assert_non_null(w);
    assert_non_null(r);
    setup_or_skip(f);
    fill(w, BIG, 0, 3 * BS);
    memset(r, 0, BIG);
    assert_int_equal(run_one(f, IO_WRITE, 0, 3 * BS, w, BIG), 0);
    assert_int_equal(run_one(f, IO_READ, 0, 3 * BS, r, BIG), 0);
    assert_memory_equal(r, w, BIG);
    /* the file ends at 3 * BS + BIG: two blocks from the end, ask four */
    assert_int_equal(run_one(f, IO_READ, 0, 3 * BS + BIG - 2 * BS, rr, sizeof rr), -ENODATA);
    assert_memory_equal(rr, w + BIG - 2 * BS, 2 * BS);
    assert_int_equal(run_one(f, IO_READ, 0, 100 * BIG, rr, BS), -ENODATA);
    free(w);
    free(r);
}

/* direct=1: O_DIRECT, alignment found by posix_open, aligned ops move data. */
static void test_libaio_direct(void **state)
{
    struct fixture *f = *state;
    char *w, *r;

    f->spec.direct = 1;
    setup_or_skip(f);
    assert_true(f->ej.dio_align > 0);
    assert_int_equal(posix_memalign((void **)&w, 4096, 16 * BS), 0);
    assert_int_equal(posix_memalign((void **)&r, 4096, 16 * BS), 0);
    fill(w, 16 * BS, 1, 0);
    memset(r, 0, 16 * BS);
    assert_int_equal(run_one(f, IO_WRITE, 1, 0, w, 16 * BS), 0);
    assert_int_equal(run_one(f, IO_READ, 1, 0, r, 16 * BS), 0);
    assert_memory_equal(r, w, 16 * BS);
    assert_int_equal(size_on_disk(f->files[1].path), 16 * BS);
    free(w);
    free(r);
}

/* The metadata ops are psync's (posix_md). */
static void test_libaio_md_ops(void **state)
{
    struct fixture *f = *state;
    char d[128], a[160];
    uint64_t count = 0;

    setup_or_skip(f);
    f->ej.root = f->dir;
    snprintf(d, sizeof d, "%s/md", f->dir);
    snprintf(a, sizeof a, "%s/a", d);
    assert_int_equal(engine_libaio.md(&f->ej, OP_MKDIR, d, NULL, NULL, 0, &count), 0);
    assert_int_equal(engine_libaio.md(&f->ej, OP_CREATE, a, NULL, "hello", 5, &count), 0);
    assert_int_equal(engine_libaio.md(&f->ej, OP_STAT, a, NULL, NULL, 0, &count), 0);
    assert_int_equal(size_on_disk(a), 5);
    assert_int_equal(engine_libaio.md(&f->ej, OP_UNLINK, a, NULL, NULL, 0, &count), 0);
    assert_int_equal(engine_libaio.md(&f->ej, OP_RMDIR, d, NULL, NULL, 0, &count), 0);
}

/* In a child: make io_setup fail with err and check setup's message.
 * Exit 0 ok, 1 wrong, 77 no seccomp. */
static int refusal_child(struct fixture *f, int err, const char *want)
{
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fp = { .len = sizeof prog / sizeof prog[0], .filter = prog };

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) != 0)
        return 77;
    int rc = engine_libaio.setup(&f->ej);
    int ok = rc == -err && strcmp(f->ej.err, want) == 0;
    if (!ok)
        fprintf(stderr, "setup: %d, err: '%s'; want %d, '%s'\n", rc, f->ej.err, -err, want);
    engine_libaio.teardown(&f->ej);
    if (ok && access(f->files[0].path, F_OK) == 0) {
        fprintf(stderr, "setup created %s although it failed\n", f->files[0].path);
        ok = 0;
    }
    return ok ? 0 : 1;
}

static void test_libaio_refused_setup_says_so(void **state)
{
    struct fixture *f = *state;
    const struct { int err; const char *want; } cases[] = {
        { ENOSYS, "libaio refused by the kernel: io_setup(16): Function not implemented "
                  "(try ioengine=psync)" },
        { EAGAIN, "libaio refused by the kernel: io_setup(16): Resource temporarily unavailable "
                  "(see /proc/sys/fs/aio-max-nr) (try ioengine=psync)" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int status;
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(refusal_child(f, cases[i].err, cases[i].want));
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77) {
            print_message("skipping: cannot install a seccomp filter\n");
            skip();
        }
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_libaio_depth16_write_read, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_batch_submit_holds_until_full, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_batch_submit_unset_and_one, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_batch_submit_zero_is_iodepth, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_batch_complete_min_max, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_queue_beyond_depth_is_eagain, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_big_op_and_eof, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_direct, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_md_ops, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_libaio_refused_setup_says_so, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
