/* engine_libaio: the kernel mount through Linux native AIO (libaio),
 * iodepth ops in flight, batched as fio's iodepth_batch_* say.
 *
 * The AIO context is created before any file is opened, so a kernel that
 * refuses it (no AIO, fs.aio-max-nr used up) fails setup with a message
 * naming psync and without creating files.  Files are opened like psync's
 * (posix_open: beneath the --allow root, O_DIRECT alignment checked there).
 * Linux AIO is asynchronous only with O_DIRECT; on buffered files the kernel
 * runs the I/O inside io_submit, as with fio's libaio engine.
 *
 * Batching, in fio's meaning:
 * - queue() prepares an iocb and, when iodepth_batch_submit is set,
 *   submits the prepared ones once that many are waiting (1: each at once,
 *   fio's default, also when unset); reap() submits whatever is left before
 *   it waits, so nothing queued is held back once the job loop reaps, which
 *   it always does right after issuing;
 * - reap() waits for at least iodepth_batch_complete_min completions (or the
 *   loop's own min, whichever is more; never more than are in flight) and
 *   takes at most iodepth_batch_complete_max per io_getevents (unset:
 *   complete_min, as fio).
 * Every wait has the job loop's timeout (io_getevents' own), so stop and
 * runtime end it within one reap interval, as the io_uring engine's.
 *
 * Each request gets a tracking slot (iodepth of them, allocated in setup)
 * holding its iocb and how much has moved: a short read or write continues
 * with the remainder from the same slot, so one request is one op of its
 * full length; a read that gets 0 bytes is past the end: -ENODATA, as
 * psync.  fsync/fdatasync run synchronously in queue() (the job loop drains
 * before it syncs; IOCB_CMD_FSYNC is refused by many file systems).
 * Nothing is allocated after setup. */
#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "agent/engine.h"
#include "agent/io_slots.h"
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define AIO_MAX_XFER (1u << 30)   /* one iocb moves at most this; the kernel caps near 2 GiB */

struct aio_slot {
    struct io_slot s;             /* first: the request and what has moved */
    struct iocb cb;
};

struct aio_state {
    io_context_t ctx;
    int ctx_ok;
    const int *fd;                /* ej->fd (borrowed: posix_fds_open owns it) */
    struct io_slots q;            /* [depth] request slots of struct aio_slot */
    unsigned depth;
    struct iocb **pending;        /* [depth] prepared, not yet submitted */
    unsigned npending;
    unsigned inkernel;            /* submitted, not yet completed */
    struct io_event *events;      /* [depth] */
    unsigned batch_submit, complete_min, complete_max;
};

/* fio's knobs clamped to 1..depth (see plan.h for what 0 means). */
static unsigned clamp_batch(uint32_t v, unsigned dflt, unsigned depth)
{
    unsigned n = v ? (unsigned)(v < depth ? v : depth) : dflt;
    return n ? n : 1;
}

static int aio_setup(struct engine_job *ej)
{
    struct aio_state *s = xcalloc(1, sizeof *s);
    const struct job_spec *sp = ej->spec;
    int rc;

    ej->priv = s;
    s->depth = sp->iodepth ? sp->iodepth : 1;
    /* unset: fio's defaults, each op submitted at once and each wait
     * taking complete_min completions (bench/libaio-vs-fio.sh: at iodepth
     * 16, whole-burst submission and unbounded reaps kept the device's
     * queue emptier than fio's, 0.82x its IOPS; with fio's defaults 1.05x) */
    s->batch_submit = clamp_batch(sp->iodepth_batch_submit, 1, s->depth);
    s->complete_min = clamp_batch(sp->iodepth_batch_complete_min, 1, s->depth);
    s->complete_max = clamp_batch(sp->iodepth_batch_complete_max, s->complete_min, s->depth);
    if (s->complete_max < s->complete_min)
        s->complete_max = s->complete_min;       /* fio: max follows min */
    io_slots_init(&s->q, s->depth, sizeof(struct aio_slot));
    s->pending = xcalloc(s->depth, sizeof *s->pending);
    s->events = xcalloc(s->depth, sizeof *s->events);

    rc = io_setup((int)s->depth, &s->ctx);
    if (rc < 0) {
        /* -EAGAIN: fs.aio-max-nr would be exceeded; -ENOSYS: no AIO;
         * -EPERM: seccomp */
        snprintf(ej->err, sizeof ej->err, "libaio refused by the kernel: io_setup(%u): %s%s "
                 "(try ioengine=psync)", s->depth, strerror(-rc),
                 rc == -EAGAIN ? " (see /proc/sys/fs/aio-max-nr)" : "");
        return rc;
    }
    s->ctx_ok = 1;
    rc = posix_fds_open(ej);
    s->fd = ej->fd;
    return rc;
}

/* Fill slot's iocb for the rest of its request and add it to pending. */
static void aio_prep(struct aio_state *s, struct aio_slot *sl)
{
    struct io_req *r = sl->s.r;
    uint64_t done = sl->s.done, left = r->len - done;
    size_t n = left > AIO_MAX_XFER ? AIO_MAX_XFER : (size_t)left;
    int fd = s->fd[r->file];

    if (r->kind == IO_READ)
        io_prep_pread(&sl->cb, fd, r->buf + done, n, (long long)(r->offset + done));
    else
        io_prep_pwrite(&sl->cb, fd, r->buf + done, n, (long long)(r->offset + done));
    sl->cb.data = sl;
    s->pending[s->npending++] = &sl->cb;
}

/* Submit what is pending.  A request the kernel refuses (io_submit fails on
 * the first iocb: a bad offset, misaligned O_DIRECT) completes with that
 * error, the ones after it go on.  -EAGAIN (the context is full for now)
 * leaves them pending for the next call.  0, or -errno of a fatal error. */
static int aio_submit(struct aio_state *s)
{
    while (s->npending > 0) {
        int rc = io_submit(s->ctx, (long)s->npending, s->pending);
        if (rc == -EINTR)
            continue;
        if (rc == -EAGAIN)
            return 0;
        if (rc < 0) {
            io_slots_complete(&s->q, s->pending[0]->data, rc);
            rc = 1;                   /* consumed, as a failed request */
        } else {
            s->inkernel += (unsigned)rc;
        }
        s->npending -= (unsigned)rc;
        memmove(s->pending, s->pending + rc, s->npending * sizeof *s->pending);
    }
    return 0;
}

static int aio_queue(struct engine_job *ej, struct io_req *r)
{
    struct aio_state *s = ej->priv;
    struct aio_slot *sl = (struct aio_slot *)io_slots_take(&s->q, r);

    if (!sl)
        return -EAGAIN;
    if (io_slots_finish_now(&s->q, &sl->s, s->fd[r->file], 1))
        return 0;
    aio_prep(s, sl);
    return s->npending >= s->batch_submit ? aio_submit(s) : 0;
}

/* Account n events: finish requests, or prepare the remainder of short ones. */
static void aio_collect(struct aio_state *s, int n)
{
    for (int i = 0; i < n; i++) {
        struct aio_slot *sl = s->events[i].data;
        s->inkernel--;
        if (io_slots_account(&s->q, &sl->s, (long)s->events[i].res, s->fd[sl->s.r->file]))
            aio_prep(s, sl);
    }
}

static int aio_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                    struct io_req **done, unsigned max)
{
    struct aio_state *s = ej->priv;
    uint64_t deadline = clock_now_ns() + timeout_ns;
    const char *what = "submit";
    int rc, got;

    if ((rc = aio_submit(s)) < 0)
        goto fatal;
    if (min > 0 && min < s->complete_min)
        min = s->complete_min;
    if (min > s->q.ndone + s->inkernel + s->npending)
        min = s->q.ndone + s->inkernel + s->npending;
    /* min 0: take what is ready without waiting */
    for (int once = min == 0; s->inkernel > 0 && (once || s->q.ndone < min); once = 0) {
        uint64_t now = clock_now_ns(), left = deadline > now && !once ? deadline - now : 0;
        struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u),
                               .tv_nsec = (long)(left % 1000000000u) };
        unsigned want = min > s->q.ndone ? min - s->q.ndone : 0;
        if (want > s->inkernel)
            want = s->inkernel;
        if (want > s->complete_max)
            want = s->complete_max;       /* io_getevents refuses min_nr > nr; loop for the rest */
        got = io_getevents(s->ctx, (long)want, (long)s->complete_max, s->events, &ts);
        if (got == -EINTR) {
            if (left == 0)
                break;
            continue;
        }
        if (got < 0) {
            rc = got;
            what = "wait";
            goto fatal;
        }
        aio_collect(s, got);
        /* short transfers continue, and what -EAGAIN held back goes out */
        if ((rc = aio_submit(s)) < 0)
            goto fatal;
        if (left == 0 || (unsigned)got < want)
            break;                    /* the timeout passed */
    }
    return (int)io_slots_hand_back(&s->q, done, max);
fatal:
    snprintf(ej->err, sizeof ej->err, "%s: libaio %s failed: %s", ej->files[0].path, what,
             strerror(-rc));
    return rc;
}

/* io_destroy waits for (or cancels) what is still in flight (the job loop
 * leaves requests out only past its drain limit) before the files close. */
static void aio_teardown(struct engine_job *ej)
{
    struct aio_state *s = ej->priv;
    if (s) {
        if (s->ctx_ok)
            io_destroy(s->ctx);
        io_slots_free(&s->q);
        free(s->pending);
        free(s->events);
    }
    posix_fds_teardown(ej);
}

const struct engine_ops engine_libaio =
    POSIX_ENGINE_OPS("libaio", aio_setup, aio_queue, aio_reap, aio_teardown);
