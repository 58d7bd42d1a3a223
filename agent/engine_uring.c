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
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define URING_MAX_ENTRIES 4096          /* SQ size cap; deeper jobs submit in several goes */
#define URING_MAX_XFER    (1u << 30)    /* one entry's len is 32 bits; the kernel caps near 2 GiB */

struct uring_slot {
    struct io_req *r;
    uint64_t done;              /* bytes moved so far */
};

struct uring_state {
    struct io_uring ring;
    int ring_ok;
    int fixed;                  /* files registered: sqe fd is the index */
    const int *fd;              /* ej->fd (borrowed: posix_fds_open owns it) */
    struct uring_slot *slots;   /* [depth] */
    struct uring_slot **free_slots;
    unsigned depth, nfree;
    struct uring_slot **done;   /* [depth] ring of completed, not yet handed back */
    unsigned done_head, ndone;
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
    s->slots = xcalloc(s->depth, sizeof *s->slots);
    s->free_slots = xcalloc(s->depth, sizeof *s->free_slots);
    s->done = xcalloc(s->depth, sizeof *s->done);
    for (unsigned i = 0; i < s->depth; i++)
        s->free_slots[s->nfree++] = &s->slots[i];

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
    struct io_req *r = sl->r;
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
        uint64_t left = r->len - sl->done;
        unsigned n = left > URING_MAX_XFER ? URING_MAX_XFER : (unsigned)left;
        if (r->kind == IO_READ)
            io_uring_prep_read(sqe, fd, r->buf + sl->done, n, r->offset + sl->done);
        else
            io_uring_prep_write(sqe, fd, r->buf + sl->done, n, r->offset + sl->done);
    }
    if (s->fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, sl);
    s->inkernel++;
    return 0;
}

static void uring_complete(struct uring_state *s, struct uring_slot *sl, int result)
{
    sl->r->result = result;
    s->done[(s->done_head + s->ndone++) % s->depth] = sl;
}

static int uring_queue(struct engine_job *ej, struct io_req *r)
{
    struct uring_state *s = ej->priv;
    struct uring_slot *sl;
    int rc;

    if (s->nfree == 0)
        return -EAGAIN;
    sl = s->free_slots[--s->nfree];
    sl->r = r;
    sl->done = 0;
    if (r->kind != IO_SYNC && r->kind != IO_DATASYNC && r->len == 0) {
        uring_complete(s, sl, 0);     /* nothing to move; the kernel would say 0 = EOF */
        return 0;
    }
    if ((rc = uring_prep(s, sl)) < 0) {
        s->free_slots[s->nfree++] = sl;
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
        struct io_req *r = sl->r;
        if (r->kind == IO_SYNC || r->kind == IO_DATASYNC) {
            uring_complete(s, sl, res < 0 ? res : 0);
            continue;
        }
        if (res == -EINTR) {
            res = 0;                  /* retry the same part, as psync does for EINTR */
        } else if (res < 0) {
            uring_complete(s, sl, res);
            continue;
        } else if (res == 0) {
            /* read past the end: the file is shorter than planned */
            r->eof_size = posix_fd_size(s->fd[r->file]);
            uring_complete(s, sl, -ENODATA);
            continue;
        }
        sl->done += (uint64_t)res;
        if (sl->done >= r->len) {
            uring_complete(s, sl, 0);
        } else if ((rc = uring_prep(s, sl)) < 0) {
            uring_complete(s, sl, rc);
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
    unsigned n = 0;
    int rc;

    uring_collect(s);
    if (min > s->ndone + s->inkernel)
        min = s->ndone + s->inkernel;
    while (s->ndone < min) {
        uint64_t now = clock_now_ns(), left = deadline > now ? deadline - now : 0;
        struct __kernel_timespec ts = { .tv_sec = (long long)(left / 1000000000u),
                                        .tv_nsec = (long long)(left % 1000000000u) };
        struct io_uring_cqe *cqe;
        /* submits what queue() prepared and waits in one syscall */
        rc = io_uring_submit_and_wait_timeout(&s->ring, &cqe, min - s->ndone, &ts, NULL);
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
    while (n < max && s->ndone > 0) {
        struct uring_slot *sl = s->done[s->done_head];
        s->done_head = (s->done_head + 1) % s->depth;
        s->ndone--;
        done[n++] = sl->r;
        sl->r = NULL;
        s->free_slots[s->nfree++] = sl;
    }
    return (int)n;
}

/* Exiting the ring cancels what is still in flight (the job loop leaves
 * requests out only past its drain limit) before the files are closed. */
static void uring_teardown(struct engine_job *ej)
{
    struct uring_state *s = ej->priv;
    posix_md_release(ej);
    if (!s)
        return;
    if (s->ring_ok)
        io_uring_queue_exit(&s->ring);
    posix_fds_close(ej);
    free(s->slots);
    free(s->free_slots);
    free(s->done);
    free(s);
    ej->priv = NULL;
}

const struct engine_ops engine_uring = {
    .name = "io_uring",
    .setup = uring_setup,
    .queue = uring_queue,
    .reap = uring_reap,
    .file_size = posix_fds_file_size,
    .teardown = uring_teardown,
    .md = posix_md_run,
    .invalidate = posix_fds_invalidate,
    .extend = posix_fds_extend,
    .space = posix_fds_space,
    .lock = posix_fds_lock,
};
