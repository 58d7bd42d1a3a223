/* engine_psync: POSIX calls on a path (the kernel mount: NFS, EFS, any FS).
 *
 * Synchronous pread/pwrite like fio's psync: queue() does the I/O and
 * completes the request before returning, so a job keeps exactly one op in
 * flight whatever its iodepth.  Short transfers are continued, not counted
 * as separate ops: one request is one op of its full length. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent/done_ring.h"
#include "agent/engine.h"
#include "agent/posix_open.h"
#include "agent/posix_md.h"
#include "common/xmalloc.h"

struct psync_state {
    struct done_ring done;
};

static int psync_setup(struct engine_job *ej)
{
    ej->priv = xcalloc(1, sizeof(struct psync_state));
    return posix_fds_open(ej);
}

/* Move all of r, continuing short transfers. 0 or -errno. */
static int psync_transfer(int fd, struct io_req *r)
{
    uint64_t done = 0;
    while (done < r->len) {
        ssize_t n = r->kind == IO_READ
            ? pread(fd, r->buf + done, r->len - done, (off_t)(r->offset + done))
            : pwrite(fd, r->buf + done, r->len - done, (off_t)(r->offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)                 /* read past the end: the file is shorter than planned */
            return -ENODATA;
        done += (uint64_t)n;
    }
    return 0;
}

static int psync_queue(struct engine_job *ej, struct io_req *r)
{
    struct psync_state *s = ej->priv;
    int fd;

    if (s->done.count == DONE_RING_SIZE)     /* before the I/O: nothing done then */
        return -EAGAIN;
    fd = ej->fd[r->file];
    if (r->kind == IO_SYNC)
        r->result = fsync(fd) < 0 ? -errno : 0;
    else if (r->kind == IO_DATASYNC)
        r->result = fdatasync(fd) < 0 ? -errno : 0;
    else if ((r->result = psync_transfer(fd, r)) == -ENODATA)
        r->eof_size = posix_fd_size(fd);
    return done_ring_push(&s->done, r);
}

static int psync_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                      struct io_req **done, unsigned max)
{
    struct psync_state *s = ej->priv;
    (void)min; (void)timeout_ns;
    return done_ring_pop(&s->done, done, max);
}

const struct engine_ops engine_psync =
    POSIX_ENGINE_OPS("psync", psync_setup, psync_queue, psync_reap, posix_fds_teardown);
