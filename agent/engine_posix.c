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
    int *fd;                        /* [nfiles] */
    struct done_ring done;
};

static int psync_setup(struct engine_job *ej)
{
    struct psync_state *s = xcalloc(1, sizeof *s);

    s->fd = xcalloc(ej->nfiles, sizeof(int));
    ej->priv = s;
    return posix_open_files(ej, s->fd);
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
    fd = s->fd[r->file];
    if (r->kind == IO_SYNC)
        r->result = fsync(fd) < 0 ? -errno : 0;
    else if (r->kind == IO_DATASYNC)
        r->result = fdatasync(fd) < 0 ? -errno : 0;
    else
        r->result = psync_transfer(fd, r);
    return done_ring_push(&s->done, r);
}

static int psync_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                      struct io_req **done, unsigned max)
{
    struct psync_state *s = ej->priv;
    (void)min; (void)timeout_ns;
    return done_ring_pop(&s->done, done, max);
}

static int psync_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    struct psync_state *s = ej->priv;
    struct stat st;
    if (fstat(s->fd[file], &st) < 0)     /* the file opened beneath the root, not a path */
        return -errno;
    *size = (uint64_t)st.st_size;
    return 0;
}

static void psync_teardown(struct engine_job *ej)
{
    struct psync_state *s = ej->priv;
    posix_md_release(ej);
    if (!s)
        return;
    for (uint32_t i = 0; i < ej->nfiles; i++)
        if (s->fd[i] >= 0)
            close(s->fd[i]);
    free(s->fd);
    free(s);
    ej->priv = NULL;
}

static void psync_invalidate(struct engine_job *ej)
{
    struct psync_state *s = ej->priv;
    posix_md_invalidate(s->fd, ej->nfiles);
}

static int psync_extend(struct engine_job *ej, uint32_t file, uint64_t size)
{
    struct psync_state *s = ej->priv;
    return posix_extend(ej, s->fd[file], size);
}

static int psync_space(struct engine_job *ej, uint64_t *avail, char *where, size_t wherelen)
{
    struct psync_state *s = ej->priv;
    if (ej->nfiles == 0 || s->fd[0] < 0)
        return -ENOENT;
    return posix_space(ej, s->fd[0], avail, where, wherelen);
}

const struct engine_ops engine_psync = {
    .name = "psync",
    .setup = psync_setup,
    .queue = psync_queue,
    .reap = psync_reap,
    .file_size = psync_file_size,
    .teardown = psync_teardown,
    .md = posix_md_run,
    .invalidate = psync_invalidate,
    .extend = psync_extend,
    .space = psync_space,
};
