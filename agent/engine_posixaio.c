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
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define PAIO_MAX_XFER (1u << 30)   /* one aiocb moves at most this */

struct paio_slot {
    struct aiocb cb;
    struct io_req *r;
    uint64_t done;                 /* bytes moved so far */
};

struct paio_state {
    const int *fd;                 /* ej->fd (borrowed: posix_fds_open owns it) */
    struct paio_slot *slots;       /* [depth] */
    struct paio_slot **free_slots;
    unsigned depth, nfree;
    struct paio_slot **busy;       /* [depth] in flight */
    unsigned nbusy;
    const struct aiocb **wait;     /* [depth] aio_suspend's list */
    struct paio_slot **done;       /* [depth] ring of completed, not yet handed back */
    unsigned done_head, ndone;
};

static int paio_setup(struct engine_job *ej)
{
    struct paio_state *s = xcalloc(1, sizeof *s);
    ej->priv = s;
    s->depth = ej->spec->iodepth ? ej->spec->iodepth : 1;
    s->slots = xcalloc(s->depth, sizeof *s->slots);
    s->free_slots = xcalloc(s->depth, sizeof *s->free_slots);
    s->busy = xcalloc(s->depth, sizeof *s->busy);
    s->wait = xcalloc(s->depth, sizeof *s->wait);
    s->done = xcalloc(s->depth, sizeof *s->done);
    for (unsigned i = 0; i < s->depth; i++)
        s->free_slots[s->nfree++] = &s->slots[i];
    int rc = posix_fds_open(ej);
    s->fd = ej->fd;
    return rc;
}

static void paio_complete(struct paio_state *s, struct paio_slot *sl, int result)
{
    sl->r->result = result;
    s->done[(s->done_head + s->ndone++) % s->depth] = sl;
}

/* Start the rest of slot's request; on a refusal it completes with it. */
static void paio_start(struct paio_state *s, struct paio_slot *sl)
{
    struct io_req *r = sl->r;
    uint64_t left = r->len - sl->done;
    int rc;

    memset(&sl->cb, 0, sizeof sl->cb);
    sl->cb.aio_fildes = s->fd[r->file];
    sl->cb.aio_buf = r->buf + sl->done;
    sl->cb.aio_nbytes = left > PAIO_MAX_XFER ? PAIO_MAX_XFER : (size_t)left;
    sl->cb.aio_offset = (off_t)(r->offset + sl->done);
    sl->cb.aio_sigevent.sigev_notify = SIGEV_NONE;
    for (int tries = 0;; tries++) {
        rc = r->kind == IO_READ ? aio_read(&sl->cb) : aio_write(&sl->cb);
        if (rc == 0 || errno != EAGAIN || tries == 1000)
            break;
        /* glibc's queue is full for now: wait a little for one to end */
        if (s->nbusy) {
            for (unsigned i = 0; i < s->nbusy; i++)
                s->wait[i] = &s->busy[i]->cb;
            struct timespec ts = { 0, 1000000 };
            (void)aio_suspend(s->wait, (int)s->nbusy, &ts);
        } else {
            struct timespec ts = { 0, 100000 };
            nanosleep(&ts, NULL);
        }
    }
    if (rc != 0) {
        paio_complete(s, sl, -errno);
        return;
    }
    s->busy[s->nbusy++] = sl;
}

static int paio_queue(struct engine_job *ej, struct io_req *r)
{
    struct paio_state *s = ej->priv;
    struct paio_slot *sl;

    if (s->nfree == 0)
        return -EAGAIN;
    sl = s->free_slots[--s->nfree];
    sl->r = r;
    sl->done = 0;
    if (r->kind == IO_SYNC || r->kind == IO_DATASYNC) {
        int fd = s->fd[r->file];
        int rc = r->kind == IO_SYNC ? fsync(fd) : fdatasync(fd);
        paio_complete(s, sl, rc < 0 ? -errno : 0);
        return 0;
    }
    if (r->len == 0) {
        paio_complete(s, sl, 0);
        return 0;
    }
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
        if (e == EINTR) {
            paio_start(s, sl);            /* the same part again, as psync retries EINTR */
        } else if (e != 0) {
            paio_complete(s, sl, -e);
        } else if (res == 0) {
            paio_complete(s, sl, -ENODATA);   /* read past the end */
        } else {
            sl->done += (uint64_t)res;
            if (sl->done >= sl->r->len)
                paio_complete(s, sl, 0);
            else
                paio_start(s, sl);
        }
    }
}

static int paio_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct paio_state *s = ej->priv;
    uint64_t deadline = clock_now_ns() + timeout_ns;
    unsigned n = 0;

    if (min > s->ndone + s->nbusy)
        min = s->ndone + s->nbusy;
    paio_collect(s);
    while (s->ndone < min && s->nbusy > 0) {
        uint64_t now = clock_now_ns();
        if (now >= deadline)
            break;
        uint64_t left = deadline - now;
        struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u),
                               .tv_nsec = (long)(left % 1000000000u) };
        for (unsigned i = 0; i < s->nbusy; i++)
            s->wait[i] = &s->busy[i]->cb;
        if (aio_suspend(s->wait, (int)s->nbusy, &ts) < 0 && errno != EINTR && errno != EAGAIN) {
            snprintf(ej->err, sizeof ej->err, "%s: posixaio wait failed: %s", ej->files[0].path,
                     strerror(errno));
            return -errno;
        }
        paio_collect(s);
    }
    while (n < max && s->ndone > 0) {
        struct paio_slot *sl = s->done[s->done_head];
        s->done_head = (s->done_head + 1) % s->depth;
        s->ndone--;
        done[n++] = sl->r;
        sl->r = NULL;
        s->free_slots[s->nfree++] = sl;
    }
    return (int)n;
}

/* What is still in flight is cancelled, and waited for, before the files
 * close: glibc's threads would otherwise write into freed buffers. */
static void paio_teardown(struct engine_job *ej)
{
    struct paio_state *s = ej->priv;
    posix_md_release(ej);
    if (!s)
        return;
    for (unsigned i = 0; i < s->nbusy; i++)
        (void)aio_cancel(s->busy[i]->cb.aio_fildes, &s->busy[i]->cb);
    while (s->nbusy > 0) {
        for (unsigned i = 0; i < s->nbusy; i++)
            s->wait[i] = &s->busy[i]->cb;
        struct timespec ts = { 0, 10000000 };
        (void)aio_suspend(s->wait, (int)s->nbusy, &ts);
        for (unsigned i = 0; i < s->nbusy;) {
            if (aio_error(&s->busy[i]->cb) != EINPROGRESS) {
                (void)aio_return(&s->busy[i]->cb);
                s->busy[i] = s->busy[--s->nbusy];
            } else {
                i++;
            }
        }
    }
    posix_fds_close(ej);
    free(s->slots);
    free(s->free_slots);
    free(s->busy);
    free(s->wait);
    free(s->done);
    free(s);
    ej->priv = NULL;
}

const struct engine_ops engine_posixaio = {
    .name = "posixaio",
    .setup = paio_setup,
    .queue = paio_queue,
    .reap = paio_reap,
    .file_size = posix_fds_file_size,
    .teardown = paio_teardown,
    .md = posix_md_run,
    .invalidate = posix_fds_invalidate,
    .extend = posix_fds_extend,
    .space = posix_fds_space,
    .lock = posix_fds_lock,
};
