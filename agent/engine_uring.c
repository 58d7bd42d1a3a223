/* engine_uring: the kernel mount through io_uring, iodepth ops in flight.
 *
 * The ring is created before any file is opened, so a kernel that refuses
 * io_uring fails setup (with a message naming psync) without creating
 * files.  Files are opened like psync's; the difference is that queue() only
 * prepares a submission entry and reap() submits everything prepared and
 * waits for completions in the same io_uring_enter call, so a job at depth
 * 16 costs about one syscall per batch instead of one per op (fio's
 * io_uring engine batches the same way through its commit hook).  A request
 * queued is thus in flight once reap is called, which the job loop always
 * does right after queueing.
 *
 * Each request gets a tracking slot (allocated in setup, iodepth of them)
 * holding how much of it has moved: a short read or write continues with
 * the remainder from a new entry, so one request is still one op of its
 * full length, as with psync.  A read that gets 0 bytes is past the end of
 * the file: -ENODATA, as psync.  A slot is held until its request is handed
 * back by reap, so slots bound both the ring and the done queue.
 *
 * Files are registered with the ring when the kernel allows it (saves the
 * fd lookup per op); otherwise plain fds are used.  Nothing is allocated
 * after setup. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent/engine.h"
#include "agent/io_slots.h"
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define URING_MAX_ENTRIES 4096          /* SQ size cap; deeper jobs submit in several goes */
#define URING_MAX_XFER    (1u << 30)    /* one entry's len is 32 bits; the kernel caps near 2 GiB */

struct uring_slot {
    struct io_slot s;           /* the request and what has moved */
};

struct uring_state {
    struct io_uring ring;
    int ring_ok;
    int fixed;                  /* files registered: sqe fd is the index */
    const int *fd;              /* ej->fd (borrowed: posix_fds_open owns it) */
    struct io_slots q;          /* [depth] request slots */
    unsigned depth;
    unsigned inkernel;          /* entries prepared or submitted, not yet completed */
};

/* COOP_TASKRUN (5.19+, as fio sets it): completions from io-wq wait for
 * the job thread's next io_uring_enter instead of interrupting it with an
 * IPI; reap always enters the kernel before it waits, so nothing is late.
 * Older kernels reject the flag: retry without. */
static int uring_ring_init(struct io_uring *ring, unsigned entries)
{
    struct io_uring_params p = { .flags = IORING_SETUP_COOP_TASKRUN };
    int rc = io_uring_queue_init_params(entries, ring, &p);
    if (rc == -EINVAL) {
        memset(&p, 0, sizeof p);
        rc = io_uring_queue_init_params(entries, ring, &p);
    }
    return rc;
}

static int uring_setup(struct engine_job *ej)
{
    struct uring_state *s = xcalloc(1, sizeof *s);
    unsigned entries;
    int rc;

    ej->priv = s;
    s->depth = ej->spec->iodepth ? ej->spec->iodepth : 1;
    io_slots_init(&s->q, s->depth, sizeof(struct uring_slot));

    /* +1: room for the timeout entry liburing adds on kernels without
     * IORING_FEAT_EXT_ARG (< 5.11).  The CQ is twice the SQ by default. */
    entries = s->depth < URING_MAX_ENTRIES ? s->depth + 1 : URING_MAX_ENTRIES;
    rc = uring_ring_init(&s->ring, entries);
    if (rc < 0) {
        /* -ENOSYS (no io_uring), -EPERM (seccomp, io_uring_disabled=2 or
         * not in io_uring_group), -ENOMEM (RLIMIT_MEMLOCK on < 5.12) */
        snprintf(ej->err, sizeof ej->err, "io_uring refused by the kernel: %s (try ioengine=psync)",
                 strerror(-rc));
        return rc;
    }
    s->ring_ok = 1;

    if ((rc = posix_fds_open(ej)) < 0)
        return rc;
    s->fd = ej->fd;
    s->fixed = io_uring_register_files(&s->ring, ej->fd, ej->nfiles) == 0;
    return 0;
}

/* Prepare the next entry of slot's request (its remainder after a short
 * transfer).  The SQ holds at least as many entries as can be prepared
 * between two submits unless depth > URING_MAX_ENTRIES; then submit to make
 * room.  0 or -errno. */
static int uring_prep(struct uring_state *s, struct uring_slot *sl)
{
    struct io_req *r = sl->s.r;
    struct io_uring_sqe *sqe;
    int fd = s->fixed ? (int)r->file : s->fd[r->file];

    while ((sqe = io_uring_get_sqe(&s->ring)) == NULL) {
        int rc = io_uring_submit(&s->ring);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
            return rc;
    }
    if (r->kind == IO_SYNC || r->kind == IO_DATASYNC) {
        io_uring_prep_fsync(sqe, fd, r->kind == IO_DATASYNC ? IORING_FSYNC_DATASYNC : 0);
    } else {
        uint64_t done = sl->s.done, left = r->len - done;
        unsigned n = left > URING_MAX_XFER ? URING_MAX_XFER : (unsigned)left;
        if (r->kind == IO_READ)
            io_uring_prep_read(sqe, fd, r->buf + done, n, r->offset + done);
        else
            io_uring_prep_write(sqe, fd, r->buf + done, n, r->offset + done);
    }
    if (s->fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, sl);
    s->inkernel++;
    return 0;
}

static int uring_queue(struct engine_job *ej, struct io_req *r)
{
    struct uring_state *s = ej->priv;
    struct uring_slot *sl = (struct uring_slot *)io_slots_take(&s->q, r);
    int rc;

    if (!sl)
        return -EAGAIN;
    if (io_slots_finish_now(&s->q, &sl->s, s->fd[r->file], 0))
        return 0;                     /* empty: the kernel would say 0 = EOF */
    if ((rc = uring_prep(s, sl)) < 0) {
        io_slots_untake(&s->q, &sl->s);
        return rc;
    }
    return 0;
}

/* Consume every completion ready in the CQ (no syscall): finish requests or
 * prepare the remainder of short ones.  0 or -errno from preparing. */
static int uring_collect(struct uring_state *s)
{
    struct io_uring_cqe *cqe;
    int rc = 0;

    while (io_uring_peek_cqe(&s->ring, &cqe) == 0) {
        struct uring_slot *sl = io_uring_cqe_get_data(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&s->ring, cqe);
        if (cqe->user_data == LIBURING_UDATA_TIMEOUT || !sl)
            continue;                 /* liburing's own timeout entry */
        s->inkernel--;
        if (io_slots_account(&s->q, &sl->s, res, s->fd[sl->s.r->file]) && (rc = uring_prep(s, sl)) < 0) {
            io_slots_complete(&s->q, &sl->s, rc);
            rc = 0;                   /* the request fails, not the engine */
        }
    }
    return rc;
}

static int uring_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                      struct io_req **done, unsigned max)
{
    struct uring_state *s = ej->priv;
    uint64_t deadline = clock_now_ns() + timeout_ns;
    int rc;

    uring_collect(s);
    if (min > s->q.ndone + s->inkernel)
        min = s->q.ndone + s->inkernel;
    while (s->q.ndone < min) {
        uint64_t now = clock_now_ns(), left = deadline > now ? deadline - now : 0;
        struct __kernel_timespec ts = { .tv_sec = (long long)(left / 1000000000u),
                                        .tv_nsec = (long long)(left % 1000000000u) };
        struct io_uring_cqe *cqe;
        /* submits what queue() prepared and waits in one syscall */
        rc = io_uring_submit_and_wait_timeout(&s->ring, &cqe, min - s->q.ndone, &ts, NULL);
        /* -EBUSY/-EAGAIN: the kernel is short of room for now (CQ
         * overflow on old kernels); collecting makes room, the deadline
         * bounds the retries */
        if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EBUSY && rc != -EAGAIN) {
            snprintf(ej->err, sizeof ej->err, "%s: io_uring wait failed: %s",
                     ej->files[0].path, strerror(-rc));
            return rc;
        }
        uring_collect(s);
        if (rc == -ETIME || left == 0)
            break;
    }
    /* requests queued but not submitted (min already met) go out now */
    if (io_uring_sq_ready(&s->ring) > 0 && (rc = io_uring_submit(&s->ring)) < 0 && rc != -EINTR) {
        snprintf(ej->err, sizeof ej->err, "%s: io_uring submit failed: %s",
                 ej->files[0].path, strerror(-rc));
        return rc;
    }
    return (int)io_slots_hand_back(&s->q, done, max);
}

/* Exiting the ring cancels what is still in flight (the job loop leaves
 * requests out only past its drain limit) before the files are closed. */
static void uring_teardown(struct engine_job *ej)
{
    struct uring_state *s = ej->priv;
    if (s) {
        if (s->ring_ok)
            io_uring_queue_exit(&s->ring);
        io_slots_free(&s->q);
    }
    posix_fds_teardown(ej);
}

const struct engine_ops engine_uring =
    POSIX_ENGINE_OPS("io_uring", uring_setup, uring_queue, uring_reap, uring_teardown);
