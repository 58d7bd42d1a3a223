/* engine_posixaio: the kernel mount through POSIX AIO (aio_read/aio_write,
 * glibc's), iodepth ops in flight: fio's posixaio engine, the one many job
 * files written for file systems name.
 *
 * glibc runs POSIX AIO on a pool of its own threads doing pread/pwrite, so
 * unlike Linux native AIO it is asynchronous on buffered files too, and its
 * cost per op is a thread hand-off; that is what a job naming posixaio
 * measures under fio as well.  Files are opened as psync's (posix_open:
 * beneath the --allow root, O_DIRECT alignment checked there).
 *
 * Each request gets a slot (iodepth, allocated in setup) holding its aiocb
 * and how much has moved: a short transfer continues with the remainder
 * from the same slot, so one request is one op of its full length; a read
 * that gets 0 bytes is past the end: -ENODATA, as psync.  reap() scans the
 * slots in flight with aio_error and waits in aio_suspend (bounded by the
 * job loop's timeout, so stop and runtime end a wait) until enough are
 * done.  fsync/fdatasync run synchronously in queue() (the job loop drains
 * before it syncs).  Nothing is allocated after setup. */
#include <aio.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agent/engine.h"
#include "agent/io_slots.h"
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define PAIO_MAX_XFER (1u << 30)   /* one aiocb moves at most this */

struct paio_slot {
    struct io_slot s;              /* first: the request and what has moved */
    struct aiocb cb;
};

struct paio_state {
    const int *fd;                 /* ej->fd (borrowed: posix_fds_open owns it) */
    struct io_slots q;             /* [depth] request slots of struct paio_slot */
    unsigned depth;
    struct paio_slot **busy;       /* [depth] in flight */
    unsigned nbusy;
    const struct aiocb **wait;     /* [depth] aio_suspend's list */
};

static int paio_setup(struct engine_job *ej)
{
    struct paio_state *s = xcalloc(1, sizeof *s);
    ej->priv = s;
    s->depth = ej->spec->iodepth ? ej->spec->iodepth : 1;
    io_slots_init(&s->q, s->depth, sizeof(struct paio_slot));
    s->busy = xcalloc(s->depth, sizeof *s->busy);
    s->wait = xcalloc(s->depth, sizeof *s->wait);
    int rc = posix_fds_open(ej);
    s->fd = ej->fd;
    return rc;
}

/* Wait at most ns for one of the requests in flight to end. */
static int paio_suspend(struct paio_state *s, uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
    for (unsigned i = 0; i < s->nbusy; i++)
        s->wait[i] = &s->busy[i]->cb;
    return aio_suspend(s->wait, (int)s->nbusy, &ts);
}

/* Start the rest of slot's request; on a refusal it completes with it. */
static void paio_start(struct paio_state *s, struct paio_slot *sl)
{
    struct io_req *r = sl->s.r;
    uint64_t left = r->len - sl->s.done;
    int rc;

    memset(&sl->cb, 0, sizeof sl->cb);
    sl->cb.aio_fildes = s->fd[r->file];
    sl->cb.aio_buf = r->buf + sl->s.done;
    sl->cb.aio_nbytes = left > PAIO_MAX_XFER ? PAIO_MAX_XFER : (size_t)left;
    sl->cb.aio_offset = (off_t)(r->offset + sl->s.done);
    sl->cb.aio_sigevent.sigev_notify = SIGEV_NONE;
    for (int tries = 0;; tries++) {
        rc = r->kind == IO_READ ? aio_read(&sl->cb) : aio_write(&sl->cb);
        if (rc == 0 || errno != EAGAIN || tries == 1000)
            break;
        /* glibc's queue is full for now: wait a little for one to end */
        if (s->nbusy) {
            (void)paio_suspend(s, 1000000);
        } else {
            struct timespec ts = { 0, 100000 };
            nanosleep(&ts, NULL);
        }
    }
    if (rc != 0) {
        io_slots_complete(&s->q, &sl->s, -errno);
        return;
    }
    s->busy[s->nbusy++] = sl;
}

static int paio_queue(struct engine_job *ej, struct io_req *r)
{
    struct paio_state *s = ej->priv;
    struct paio_slot *sl = (struct paio_slot *)io_slots_take(&s->q, r);

    if (!sl)
        return -EAGAIN;
    if (io_slots_finish_now(&s->q, &sl->s, s->fd[r->file], 1))
        return 0;
    paio_start(s, sl);
    return 0;
}

/* Move finished requests from busy to done (or restart short ones). */
static void paio_collect(struct paio_state *s)
{
    for (unsigned i = 0; i < s->nbusy;) {
        struct paio_slot *sl = s->busy[i];
        int e = aio_error(&sl->cb);
        if (e == EINPROGRESS) {
            i++;
            continue;
        }
        ssize_t res = aio_return(&sl->cb);
        s->busy[i] = s->busy[--s->nbusy];
        if (io_slots_account(&s->q, &sl->s, e ? -(long)e : (long)res, s->fd[sl->s.r->file]))
            paio_start(s, sl);
    }
}

static int paio_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct paio_state *s = ej->priv;
    uint64_t deadline = clock_now_ns() + timeout_ns;

    if (min > s->q.ndone + s->nbusy)
        min = s->q.ndone + s->nbusy;
    paio_collect(s);
    while (s->q.ndone < min && s->nbusy > 0) {
        uint64_t now = clock_now_ns();
        if (now >= deadline)
            break;
        if (paio_suspend(s, deadline - now) < 0 && errno != EINTR && errno != EAGAIN) {
            snprintf(ej->err, sizeof ej->err, "%s: posixaio wait failed: %s", ej->files[0].path,
                     strerror(errno));
            return -errno;
        }
        paio_collect(s);
    }
    return (int)io_slots_hand_back(&s->q, done, max);
}

/* What is still in flight is cancelled, and waited for, before the files
 * close: glibc's threads would otherwise write into freed buffers. */
static void paio_teardown(struct engine_job *ej)
{
    struct paio_state *s = ej->priv;
    for (unsigned i = 0; s && i < s->nbusy; i++)
        (void)aio_cancel(s->busy[i]->cb.aio_fildes, &s->busy[i]->cb);
    while (s && s->nbusy > 0) {
        (void)paio_suspend(s, 10000000);
        for (unsigned i = 0; i < s->nbusy;) {
            if (aio_error(&s->busy[i]->cb) != EINPROGRESS) {
                (void)aio_return(&s->busy[i]->cb);
                s->busy[i] = s->busy[--s->nbusy];
            } else {
                i++;
            }
        }
    }
    if (s) {
        io_slots_free(&s->q);
        free(s->busy);
        free(s->wait);
    }
    posix_fds_teardown(ej);
}

const struct engine_ops engine_posixaio =
    POSIX_ENGINE_OPS("posixaio", paio_setup, paio_queue, paio_reap, paio_teardown);
