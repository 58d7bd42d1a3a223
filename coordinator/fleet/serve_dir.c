/* serve_dir: run directories of nfstorm serve and their owners (see
 * serve_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coordinator/fleet/serve_dir.h"

#define SWEEP_DEPTH_MAX 8         /* a run makes no deeper tree than this */

void serve_dir_base(char *out, size_t len)
{
    const char *tmp = getenv("TMPDIR");

    /* room for "/nfstorm-serve.XXXXXX" after it, in a buffer of len */
    if (!tmp || tmp[0] != '/' || strlen(tmp) > len - sizeof "/" SERVE_DIR_PREFIX "XXXXXX")
        tmp = "/tmp";
    snprintf(out, len, "%s", strcmp(tmp, "/") ? tmp : "");
}

int serve_dir_claim(const char *dir, int *lock_fd)
{
    char path[512], line[96];
    int fd, n, rc = 0;

    snprintf(path, sizeof path, "%s/" SERVE_DIR_MARKER, dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (fd <= 2) {
        /* 0 means "none" to serve_run: keep the lock above stdio */
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        if ((fd = hi) < 0)
            return -errno;
    }
    /* the lock first, the magic second: a sweep that sees the magic and
     * gets the lock knows this serve is gone (serve_dir.h) */
    n = snprintf(line, sizeof line, SERVE_DIR_MAGIC "\npid %ld\n", (long)getpid());
    if (flock(fd, LOCK_EX) < 0 || write(fd, line, (size_t)n) != n)
        rc = errno ? -errno : -EIO;
    if (rc < 0) {
        close(fd);
        unlink(path);
        return rc;
    }
    *lock_fd = fd;
    return 0;
}

int serve_dir_release(const char *dir, int lock_fd)
{
    char path[512];
    struct dirent *e;
    int others = 0, rc = 0;
    DIR *d = opendir(dir);

    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, SERVE_DIR_MARKER))
            others = 1;
    if (d)
        closedir(d);
    if (others) {
        rc = -ENOTEMPTY;            /* the mark stays: the next serve sweeps the rest */
    } else {
        /* the mark last, while still locked */
        snprintf(path, sizeof path, "%s/" SERVE_DIR_MARKER, dir);
        unlink(path);
        if (rmdir(dir) < 0 && errno != ENOENT)
            rc = -errno;
    }
    if (lock_fd > 2)
        close(lock_fd);
    return rc;
}

/* Remove everything in directory dfd (not dfd itself), depth levels at
 * most, never following a symlink.  0, or -1 when something stayed. */
static int remove_contents(int dfd, int depth)
{
    int fd = dup(dfd), rc = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, SERVE_DIR_MARKER))
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0)
            continue;
        if (errno == EISDIR && depth > 0) {
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                rc |= remove_contents(sub, depth - 1);
                close(sub);
                if (unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0)
                    continue;
            }
        }
        rc = -1;
    }
    closedir(d);
    return rc;
}

/* The pid its marker names, for the log line (0: none). */
static long marker_pid(const char *text)
{
    const char *p = strstr(text, "\npid ");
    return p ? strtol(p + 5, NULL, 10) : 0;
}

/* Entry name of base (basefd): 1 when it was a stale directory of ours
 * and is gone, 0 when it is not ours or still in use, -1 when it was ours
 * but could not be removed whole. */
static int sweep_one(int basefd, const char *name, long *pid)
{
    struct stat st, mst, now;
    char text[128];
    ssize_t got;
    int dfd, mfd = -1, rc = 0;

    dfd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;                   /* a symlink, a file, or not ours to open */
    if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))
        goto out;
    mfd = openat(dfd, SERVE_DIR_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (mfd < 0 || fstat(mfd, &mst) < 0 || !S_ISREG(mst.st_mode) || mst.st_uid != geteuid())
        goto out;                   /* no marker: not known to be a serve's */
    if (flock(mfd, LOCK_EX | LOCK_NB) < 0)
        goto out;                   /* its serve lives */
    got = pread(mfd, text, sizeof text - 1, 0);
    if (got < (ssize_t)sizeof SERVE_DIR_MAGIC || memcmp(text, SERVE_DIR_MAGIC "\n", sizeof SERVE_DIR_MAGIC))
        goto out;                   /* a serve making it right now, or a stranger's file */
    text[got] = '\0';
    *pid = marker_pid(text);
    /* the marker we hold is still the directory's (it was not just removed
     * by its serve, whose directory might then be gone or remade) */
    if (fstatat(dfd, SERVE_DIR_MARKER, &now, AT_SYMLINK_NOFOLLOW) < 0 || now.st_ino != mst.st_ino ||
        now.st_dev != mst.st_dev)
        goto out;
    rc = -1;
    if (remove_contents(dfd, SWEEP_DEPTH_MAX) < 0 || unlinkat(dfd, SERVE_DIR_MARKER, 0) < 0)
        goto out;
    /* and the name still leads to the directory we emptied */
    if (fstatat(basefd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == st.st_ino &&
        now.st_dev == st.st_dev && unlinkat(basefd, name, AT_REMOVEDIR) == 0)
        rc = 1;
out:
    if (mfd >= 0)
        close(mfd);                 /* and its lock */
    close(dfd);
    return rc;
}

int serve_dir_sweep(FILE *log)
{
    char base[64];
    struct dirent *e;
    int basefd, fd, removed = 0;
    DIR *d;

    serve_dir_base(base, sizeof base);
    basefd = open(base[0] ? base : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (basefd < 0)
        return 0;
    if ((fd = dup(basefd)) < 0 || !(d = fdopendir(fd))) {
        if (fd >= 0)
            close(fd);
        close(basefd);
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        long pid = 0;
        int rc;
        if (strncmp(e->d_name, SERVE_DIR_PREFIX, sizeof SERVE_DIR_PREFIX - 1) != 0)
            continue;
        rc = sweep_one(basefd, e->d_name, &pid);
        if (rc > 0)
            removed++;
        if (log && rc > 0)
            fprintf(log, "nfstorm serve: removed %s/%s, the run directory of a serve that is gone (pid %ld)\n",
                    base, e->d_name, pid);
        else if (log && rc < 0)
            fprintf(log, "nfstorm serve: the run directory %s/%s of a serve that is gone (pid %ld) could not be "
                    "removed whole\n", base, e->d_name, pid);
    }
    closedir(d);
    close(basefd);
    if (log)
        fflush(log);
    return removed;
}
