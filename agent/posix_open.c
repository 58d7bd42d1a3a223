/* posix_open: see posix_open.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/plan.h"
#include "agent/paths.h"
#include "agent/posix_md.h"
#include "agent/posix_open.h"
#include "agent/halt.h"
#include "common/xmalloc.h"

static int open_beneath(int rootfd, const char *rel, int flags)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .mode = (flags & O_CREAT) ? 0644 : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
}

/* mkdir -p of rel's directories, each made with mkdirat in its parent
 * opened beneath the root: a symlink on the way that leads out fails it
 * (EXDEV) instead of being followed.  0 or -1 with errno. */
static int mkdirs_beneath(int rootfd, const char *rel)
{
    char p[PLAN_PATH_MAX];
    if (snprintf(p, sizeof p, "%s", rel) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p; (s = strchr(s, '/')) != NULL; s++) {
        char *name = p, *up;
        int pfd, rc;
        *s = '\0';
        if ((up = strrchr(p, '/')) != NULL) {
            *up = '\0';
            name = up + 1;
        }
        pfd = up ? open_beneath(rootfd, p, O_PATH | O_DIRECTORY) : rootfd;
        if (up)
            *up = '/';
        if (pfd < 0)
            return -1;
        rc = *name ? mkdirat(pfd, name, 0755) : 0;
        if (rc < 0 && errno == EEXIST)
            rc = 0;
        if (pfd != rootfd) {
            int e = errno;
            close(pfd);
            errno = e;
        }
        *s = '/';
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Open path (beneath root if given), creating it (and its missing
 * directories) only if missing. */
static int open_one(int rootfd, const char *root, const char *path, int flags, int create, int *created)
{
    const char *rel = path;
    int fd, made_dirs = 0;

    *created = 0;
    if (rootfd >= 0) {
        size_t n = strlen(root);
        rel = path + n;
        while (*rel == '/')
            rel++;
        if (!*rel)
            rel = ".";
    }
    for (int attempt = 0; attempt < 3; attempt++) {
        fd = rootfd >= 0 ? open_beneath(rootfd, rel, flags) : open(path, flags | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT || !create)
            return fd;
        fd = rootfd >= 0 ? open_beneath(rootfd, rel, flags | O_CREAT | O_EXCL)
                         : open(path, flags | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            *created = 1;
            return fd;
        }
        if (errno == ENOENT && !made_dirs) {   /* its directory is missing */
            int rc = rootfd >= 0 ? mkdirs_beneath(rootfd, rel) : paths_make_parents(path);
            if (rc < 0) {
                if (rootfd < 0)
                    errno = -rc;
                return -1;
            }
            made_dirs = 1;
            continue;
        }
        if (errno != EEXIST)       /* EEXIST: another job created it meanwhile */
            return fd;
    }
    return -1;
}

/* fio's fadvise_hint: announce the job's access pattern, which the kernel
 * sizes its readahead by (a random reader gets none, as under fio).
 * Advice is advice: a file system that ignores it is not an error. */
static void advise(const struct engine_job *ej, const int *fd)
{
    const struct job_spec *sp = ej->spec;
    int how;

    if (!sp || sp->fadvise_hint == FADV_OFF)
        return;
    how = sp->fadvise_hint == FADV_RANDOM_HINT ? POSIX_FADV_RANDOM
        : sp->fadvise_hint == FADV_SEQ_HINT ? POSIX_FADV_SEQUENTIAL
        : rw_mode_random(sp->rw) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
    for (uint32_t i = 0; i < ej->nfiles; i++)
        if (fd[i] >= 0)
            (void)posix_fadvise(fd[i], 0, 0, how);
}

int posix_open_files(struct engine_job *ej, int *fd)
{
    int flags = ej->create ? O_RDWR : O_RDONLY;
    int rootfd = -1, rc = 0;

    if (ej->spec->direct)
        flags |= O_DIRECT;
    if (ej->spec->sync)
        flags |= O_SYNC;
    for (uint32_t i = 0; i < ej->nfiles; i++)
        fd[i] = -1;
    if (ej->root) {
        rootfd = open(ej->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
            rc = -errno;
            snprintf(ej->err, sizeof ej->err, "%s: cannot open the allowed directory: %s", ej->root,
                     strerror(errno));
            return rc;
        }
        /* no openat2 (kernel < 5.6): the plan-time check is what we have */
        int probe = open_beneath(rootfd, ".", O_RDONLY | O_DIRECTORY);
        if (probe >= 0) {
            close(probe);
        } else if (errno == ENOSYS) {
            close(rootfd);
            rootfd = -1;
        }
    }
    for (uint32_t i = 0; i < ej->nfiles && rc == 0; i++) {
        fd[i] = open_one(rootfd, ej->root, ej->files[i].path, flags, ej->create && !ej->no_create,
                         &ej->files[i].created);
        if (fd[i] < 0) {
            int e = errno;
            rc = -e;
            snprintf(ej->err, sizeof ej->err, "%s: open failed: %s%s", ej->files[i].path, strerror(e),
                     e == EXDEV ? " (it leads outside the allowed directory)"
                     : (e == EINVAL && ej->spec->direct) ? " (direct=1 unsupported here?)" : "");
        }
    }
    if (rootfd >= 0)
        close(rootfd);
    if (rc == 0)
        advise(ej, fd);
    if (rc == 0 && ej->spec->direct && ej->nfiles > 0) {
        struct statx stx;
        /* 512: the smallest logical block size, if the kernel cannot say */
        ej->dio_align = 512;
        if (statx(fd[0], "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
            (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0)
            ej->dio_align = stx.stx_dio_offset_align;
    }
    return rc;
}

/* Preallocation goes in steps this long, the phase's stop checked between
 * them: posix_fallocate where the file system has no fallocate is glibc
 * writing every block, minutes for a big file over NFSv3. */
#define PREALLOC_STEP (64ull << 20)

/* Out of space, quota, file size: what no fallback cures, so the job fails
 * before its first write instead of writing into a disk it just filled. */
static int prealloc_fatal(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG;
}

/* fio's fallocate= (common/plan.h) over [start, size).  native and posix
 * on a file system without them (EOPNOTSUPP, NFSv3) give a sparse file, as
 * in fio; out of space they fail the layout, as keep and truncate fail on
 * any error.  Sets *done when the size needs nothing more. */
static int preallocate(const struct engine_job *ej, int fd, uint64_t start, uint64_t size, int *done)
{
    const struct job_spec *sp = ej->spec;
    uint32_t mode = sp ? sp->fallocate : FALLOC_NONE;
    struct stat st;

    *done = mode == FALLOC_KEEP || mode == FALLOC_TRUNCATE;
    if (mode == FALLOC_TRUNCATE) {
        /* not shrinking a file already larger (a sharer growing it between
         * the two calls can still lose: sharers are better off with none) */
        if (fstat(fd, &st) < 0)
            return -errno;
        if ((uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0)
            return -errno;
        return 0;
    }
    if (mode != FALLOC_NATIVE && mode != FALLOC_POSIX && mode != FALLOC_KEEP)
        return 0;
    for (uint64_t at = start; at < size; at += PREALLOC_STEP) {
        off_t len = (off_t)(size - at < PREALLOC_STEP ? size - at : PREALLOC_STEP);
        int e = 0;
        if (ej->halt && halt_raised(ej->halt))
            return -ECANCELED;
        if (mode == FALLOC_POSIX)
            e = posix_fallocate(fd, (off_t)at, len);
        else if (fallocate(fd, mode == FALLOC_KEEP ? FALLOC_FL_KEEP_SIZE : 0, (off_t)at, len) < 0)
            e = errno;
        if (e && (mode == FALLOC_KEEP || prealloc_fatal(e)))
            return -e;
        if (e)
            return 0;                 /* not supported here: sparse, as with none */
    }
    return 0;
}

int posix_fds_extend(struct engine_job *ej, uint32_t file, uint64_t size)
{
    char proc[64];
    int fd = ej->fd[file], wfd = fd, rc = 0, done;
    struct stat st;
    if (size == 0)
        return 0;
    if (fcntl(fd, F_GETFL) & O_DIRECT) {
        /* the same file, buffered (for the byte below, and for glibc's
         * posix_fallocate, which writes where the file system has no
         * fallocate): reopening the fd's /proc link resolves no path, so
         * confinement is untouched */
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if ((wfd = open(proc, O_WRONLY | O_CLOEXEC)) < 0)
            return -errno;
    }
    /* then one byte at the end: unlike ftruncate it never shrinks a file
     * that another agent sharing it has extended further meanwhile */
    if ((rc = preallocate(ej, wfd, ej->files[file].start, size, &done)) < 0 || done)
        ;
    else if (fstat(wfd, &st) < 0)
        rc = -errno;
    else if ((uint64_t)st.st_size < size && pwrite(wfd, "", 1, (off_t)(size - 1)) != 1)
        rc = -errno;
    if (wfd != fd)
        close(wfd);
    return rc;
}

int posix_fds_space(struct engine_job *ej, struct engine_space *out)
{
    struct statvfs sv;
    struct stat st;
    if (ej->nfiles == 0 || !ej->fd || ej->fd[0] < 0)
        return -ENOENT;
    if (fstatvfs(ej->fd[0], &sv) < 0 || fstat(ej->fd[0], &st) < 0)
        return -errno;
    out->avail = (uint64_t)sv.f_bavail * sv.f_frsize;
    /* st_dev, and the size statfs reports: a project quota (XFS, ext4)
     * reports its own, so two projects on one device are two places */
    out->fs = (uint64_t)st.st_dev ^ ((uint64_t)sv.f_blocks * 0x9e3779b97f4a7c15ull);
    out->file = (uint64_t)st.st_ino;
    snprintf(out->where, sizeof out->where, "%s", ej->root ? ej->root : ej->files[0].path);
    return 0;
}

int posix_fds_open(struct engine_job *ej)
{
    ej->fd = xcalloc(ej->nfiles ? ej->nfiles : 1, sizeof(int));
    return posix_open_files(ej, ej->fd);    /* every fd -1 first */
}

void posix_fds_teardown(struct engine_job *ej)
{
    posix_md_release(ej);
    for (uint32_t i = 0; ej->fd && i < ej->nfiles; i++)
        if (ej->fd[i] >= 0)
            close(ej->fd[i]);
    free(ej->fd);
    ej->fd = NULL;
    free(ej->priv);
    ej->priv = NULL;
}

int posix_fds_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    struct stat st;
    if (fstat(ej->fd[file], &st) < 0)     /* the file opened beneath the root, not a path */
        return -errno;
    *size = (uint64_t)st.st_size;
    return 0;
}

uint64_t posix_fd_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) < 0 ? ERRCAUSE_SIZE_UNKNOWN : (uint64_t)st.st_size;
}

void posix_fds_invalidate(struct engine_job *ej)
{
    posix_md_invalidate(ej->fd, ej->nfiles);
}

/* An open file description lock (F_OFD_SETLK), not a classic POSIX one:
 * it belongs to this job's descriptor, so another job of this agent
 * sharing the file waits too, and closing some other descriptor of the
 * file does not drop it.  Whole file, write lock; never blocks. */
int posix_fds_lock(struct engine_job *ej, uint32_t file, int hold)
{
    struct flock fl = { .l_type = hold ? F_WRLCK : F_UNLCK, .l_whence = SEEK_SET };
    if (!ej->fd || ej->fd[file] < 0)
        return -EBADF;
    if (fcntl(ej->fd[file], F_OFD_SETLK, &fl) == 0)
        return 0;
    return errno == EACCES ? -EAGAIN : -errno;
}
