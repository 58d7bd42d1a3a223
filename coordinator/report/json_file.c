/* json_file: see json_file.h. */
#include "coordinator/report/json_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/xmalloc.h"

/* jansson hands the writer one token at a time: buffered, a result costs
 * a write(2) per 64 KB instead of one per number. */
#define SINK_BUF (64u << 10)
struct sink {
    int fd;
    int err;      /* errno of the first failed write */
    size_t used;
    char *buf;    /* [SINK_BUF] */
};

/* Write out what is buffered.  0, or -1 with s->err. */
static int sink_flush(struct sink *s)
{
    const char *p = s->buf;
    size_t size = s->used;

    s->used = 0;
    while (size > 0) {
        ssize_t n = write(s->fd, p, size);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            s->err = errno;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

static int write_all(const char *buf, size_t size, void *data)
{
    struct sink *s = data;

    while (size > 0) {
        size_t n = SINK_BUF - s->used < size ? SINK_BUF - s->used : size;

        memcpy(s->buf + s->used, buf, n);
        s->used += n;
        buf += n;
        size -= n;
        if (s->used == SINK_BUF && sink_flush(s) != 0)
            return -1;
    }
    return 0;
}

/* open(2) of path's directory ("." for a bare name) with flags. */
static int open_dir_of(const char *path, int flags)
{
    const char *slash = strrchr(path, '/');
    char *dir = xstrdup(slash ? path : ".");
    int fd;

    if (slash)
        dir[slash == path ? 1 : slash - path] = '\0';
    fd = open(dir, flags, 0644);
    free(dir);
    return fd;
}

/* fsync the directory holding path so the rename itself is durable.
 * Best effort: the result is already in place, and some file systems
 * refuse fsync on directories. */
static void sync_dir(const char *path)
{
    int fd = open_dir_of(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Give the complete unnamed file fd the name tmp.  0 or -errno. */
static int name_unnamed(int fd, const char *tmp)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0)
        return -errno;
    return 0;
}

/* Write body straight into path: a device, a FIFO or a socket is written
 * into, never replaced by a file (rename over /dev/null would destroy it). */
static int write_direct(const char *path, json_file_body body, void *arg, int flags)
{
    struct sink s = { .fd = -1, .err = 0, .used = 0, .buf = NULL };
    int rc = 0;

    int fl;
    /* non-blocking open: a FIFO nobody reads is ENXIO at once, never a hang */
    if ((s.fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | flags, 0644)) < 0)
        return -errno;
    if ((fl = fcntl(s.fd, F_GETFL)) < 0 || fcntl(s.fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        rc = -errno;
        close(s.fd);
        return rc;
    }
    s.buf = xmalloc(SINK_BUF);
    if (body(write_all, &s, arg) != 0 || sink_flush(&s) != 0)
        rc = s.err ? -s.err : -ENOMEM;
    if (close(s.fd) != 0 && rc == 0)
        rc = -errno;
    free(s.buf);
    return rc;
}

int json_file_write(const char *path, json_file_body body, void *arg)
{
    struct sink s = { .fd = -1, .err = 0, .used = 0, .buf = NULL };
    char *tmp, real[PATH_MAX];
    size_t n;
    int rc = 0, unnamed = 0;
    struct stat st;

    /* What path names decides how it is written: a symlink's target is
     * replaced (the link stays a link), a dangling one is written through,
     * and anything that is not a regular file is written into. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, real))
            return errno == ENOENT ? write_direct(path, body, arg, O_CREAT | O_TRUNC) : -errno;
        path = real;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return -EISDIR;
        return write_direct(path, body, arg, 0);
    }

    /* Same directory as path, so rename is atomic (no cross-device move). */
    n = strlen(path);
    tmp = xmalloc(n + sizeof(".XXXXXX"));
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", sizeof(".XXXXXX"));
    /* an unnamed file (O_TMPFILE) in path's directory, else (a file system
     * without them) a named temp file */
    s.fd = open_dir_of(path, O_TMPFILE | O_WRONLY | O_CLOEXEC);
    if (s.fd >= 0) {
        unnamed = 1;
    } else {
        s.fd = mkstemp(tmp);
        if (s.fd < 0) {
            rc = -errno;
            goto out;
        }
    }
    /* mkstemp creates 0600; a result is meant to be read by others. */
    if (fchmod(s.fd, 0644) != 0) {
        rc = -errno;
        goto fail;
    }
    s.buf = xmalloc(SINK_BUF);
    if (body(write_all, &s, arg) != 0 || sink_flush(&s) != 0) {
        rc = s.err ? -s.err : -ENOMEM;   /* no write error: the encoder ran out of memory */
        goto fail;
    }
    if (fsync(s.fd) != 0) {
        rc = -errno;
        goto fail;
    }
    if (unnamed && (rc = name_unnamed(s.fd, tmp)) < 0) {
        unnamed = 0;            /* nothing named to unlink */
        goto fail_unnamed;
    }
    unnamed = 0;
    if (close(s.fd) != 0) {
        s.fd = -1;
        rc = -errno;
        goto fail;
    }
    s.fd = -1;
    if (rename(tmp, path) != 0) {
        rc = -errno;
        goto fail;
    }
    sync_dir(path);
    goto out;

fail:
    if (!unnamed)
        unlink(tmp);
fail_unnamed:
    if (s.fd >= 0)
        close(s.fd);
out:
    free(s.buf);
    free(tmp);
    return rc;
}
