/* posix_md: metadata ops and cache dropping on a kernel mount (see posix_md.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent/posix_md.h"

static int posix_md_create(const char *path, const char *buf, uint64_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), rc = 0;
    if (fd < 0)
        return -errno;
    for (uint64_t done = 0; done < size;) {
        ssize_t n = write(fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : -EIO;
            break;
        }
        done += (uint64_t)n;
    }
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        unlink(path);     /* O_EXCL made it ours: no half-written name stays */
    return rc;
}

static int posix_md_readdir(const char *path, uint64_t *count)
{
    DIR *d = opendir(path);
    struct dirent *e;
    if (!d)
        return -errno;
    *count = 0;
    errno = 0;
    while ((e = readdir(d)) != NULL)
        (*count)++;
    int rc = errno ? -errno : 0;
    closedir(d);
    return rc;
}

int posix_md_run(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                 const char *buf, uint64_t size, uint64_t *count)
{
    struct stat st;
    int fd;
    (void)ej;
    switch (op) {
    case OP_CREATE: return posix_md_create(path, buf, size);
    case OP_STAT: return stat(path, &st) < 0 ? -errno : 0;
    case OP_OPEN:
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            return -errno;
        close(fd);
        return 0;
    case OP_READDIR: return posix_md_readdir(path, count);
    case OP_RENAME: return rename(path, path2) < 0 ? -errno : 0;
    case OP_UNLINK: return unlink(path) < 0 ? -errno : 0;
    case OP_MKDIR: return mkdir(path, 0755) < 0 ? -errno : 0;
    case OP_RMDIR: return rmdir(path) < 0 ? -errno : 0;
    default: return -EINVAL;
    }
}

void posix_md_invalidate(const int *fd, uint32_t nfd)
{
    for (uint32_t i = 0; i < nfd; i++) {
        if (fd[i] < 0)
            continue;
        fdatasync(fd[i]);     /* dirty pages are not dropped */
        posix_fadvise(fd[i], 0, 0, POSIX_FADV_DONTNEED);
    }
}
