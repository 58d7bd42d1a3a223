/* posix_md: metadata ops and cache dropping on a kernel mount (see posix_md.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "agent/posix_md.h"
#include "common/xmalloc.h"

/* What a job keeps between ops: fds of the root, its work directory and the
 * subdirectory it used last (ops walk files in order, so a subdirectory is
 * opened once per files_per_dir ops, not once per op). */
struct pmd {
    int rootfd;
    int basefd;
    int subfd;
    char sub[256];            /* subfd's name in the work directory */
    int no_noreplace;         /* the file system refuses RENAME_NOREPLACE */
};

/* Where an op's last name lives: dfd (borrowed, or tmpfd owned). */
struct pmd_at {
    int dfd;
    int tmpfd;
    const char *name;
};

static int pmd_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .mode = mode,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    /* kernels < 5.6: no openat2; the plan-time confinement is what we have */
    if (fd < 0 && errno == ENOSYS)
        fd = openat(dirfd, rel, flags | O_CLOEXEC, mode);
    return fd < 0 ? -errno : fd;
}

static struct pmd *pmd_get(struct engine_job *ej)
{
    struct pmd *s = ej->md_state;
    if (!s) {
        s = xcalloc(1, sizeof *s);
        s->rootfd = s->basefd = s->subfd = -1;
        ej->md_state = s;
    }
    return s;
}

static void pmd_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* path relative to the root ("." for the root itself), or NULL if path is
 * not beneath it. */
static const char *pmd_rel(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0)
        n = 0;
    else if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return NULL;
    while (path[n] == '/')
        n++;
    return path[n] ? path + n : ".";
}

static int pmd_root(struct engine_job *ej, struct pmd *s)
{
    if (s->rootfd >= 0)
        return 0;
    if (!ej->root)
        return -EACCES;        /* no root to be beneath: never a plain path */
    s->rootfd = open(ej->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return s->rootfd < 0 ? -errno : 0;
}

static int pmd_base(struct engine_job *ej, struct pmd *s)
{
    const char *rel;
    int fd;
    if (s->basefd >= 0)
        return 0;
    if (!(rel = pmd_rel(ej->root, ej->md_base)))
        return -EXDEV;
    if ((fd = pmd_beneath(s->rootfd, rel, O_PATH | O_DIRECTORY, 0)) < 0)
        return fd;
    s->basefd = fd;
    return 0;
}

static int pmd_name_ok(const char *name)
{
    return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

/* Resolve path to a directory fd and a last name.  cached: the work
 * directory and subdirectory fds may be used (and the latter replaced);
 * self: path may be the work directory itself (name ".").  0 or -errno. */
static int pmd_resolve(struct engine_job *ej, struct pmd *s, const char *path, int cached, int self,
                       struct pmd_at *at)
{
    const char *base = ej->md_base, *rel, *slash;
    char dir[PLAN_PATH_MAX];
    int rc;

    at->dfd = at->tmpfd = -1;
    if ((rc = pmd_root(ej, s)) < 0)
        return rc;
    size_t blen = base ? strlen(base) : 0;
    if (cached && base && strncmp(path, base, blen) == 0 && (path[blen] == '/' || (self && !path[blen]))) {
        const char *rest = path + blen;
        while (*rest == '/')
            rest++;
        if ((rc = pmd_base(ej, s)) < 0)
            return rc;
        if (!*rest) {
            at->dfd = s->basefd;
            at->name = ".";
            return 0;
        }
        slash = strchr(rest, '/');
        if (!slash && !self) {
            at->dfd = s->basefd;
            at->name = rest;
            return pmd_name_ok(rest) ? 0 : -EINVAL;
        }
        /* a name in a subdirectory, or (self) the subdirectory itself */
        size_t sl = slash ? (size_t)(slash - rest) : strlen(rest);
        if ((!slash || !strchr(slash + 1, '/')) && sl < sizeof s->sub) {
            if (s->subfd < 0 || strlen(s->sub) != sl || memcmp(s->sub, rest, sl) != 0) {
                pmd_close(&s->subfd);
                memcpy(s->sub, rest, sl);
                s->sub[sl] = '\0';
                if (!pmd_name_ok(s->sub))
                    return -EINVAL;
                /* beneath the work directory's fd: a symlink there
                 * cannot lead out of it */
                if ((rc = pmd_beneath(s->basefd, s->sub, O_PATH | O_DIRECTORY, 0)) < 0)
                    return rc;
                s->subfd = rc;
            }
            at->dfd = s->subfd;
            at->name = slash ? slash + 1 : ".";
            return !slash || pmd_name_ok(at->name) ? 0 : -EINVAL;
        }
    }
    /* anything else: its directory opened beneath the root for this op */
    if (!(rel = pmd_rel(ej->root, path)) || strcmp(rel, ".") == 0)
        return -EXDEV;
    slash = strrchr(rel, '/');
    if (slash && (size_t)(slash - rel) >= sizeof dir)
        return -ENAMETOOLONG;
    if (slash) {
        memcpy(dir, rel, (size_t)(slash - rel));
        dir[slash - rel] = '\0';
    } else {
        strcpy(dir, ".");
    }
    at->name = slash ? slash + 1 : rel;
    if (!pmd_name_ok(at->name))
        return -EINVAL;
    if ((rc = pmd_beneath(s->rootfd, dir, O_PATH | O_DIRECTORY, 0)) < 0)
        return rc;
    at->dfd = at->tmpfd = rc;
    return 0;
}

static void pmd_done(struct pmd_at *at)
{
    pmd_close(&at->tmpfd);
}

static int pmd_create(const struct pmd_at *at, const char *buf, uint64_t size)
{
    int fd = pmd_beneath(at->dfd, at->name, O_WRONLY | O_CREAT | O_EXCL, 0644), rc = 0;
    if (fd < 0)
        return fd;
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
        unlinkat(at->dfd, at->name, 0);   /* O_EXCL made it ours: no half-written name stays */
    return rc;
}

static int pmd_readdir(const struct pmd_at *at, uint64_t *count)
{
    int fd = pmd_beneath(at->dfd, at->name, O_RDONLY | O_DIRECTORY, 0);
    DIR *d;
    struct dirent *e;
    if (fd < 0)
        return fd;
    if (!(d = fdopendir(fd))) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    *count = 0;
    errno = 0;
    while ((e = readdir(d)) != NULL)
        (*count)++;
    int rc = errno ? -errno : 0;
    closedir(d);
    return rc;
}

/* Rename that never replaces an existing target. */
static int pmd_rename(struct pmd *s, const struct pmd_at *a, const struct pmd_at *b)
{
    struct stat st;
    if (!s->no_noreplace) {
        if (renameat2(a->dfd, a->name, b->dfd, b->name, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno != EINVAL && errno != ENOSYS)
            return -errno;
        s->no_noreplace = 1;    /* e.g. an NFS mount: check, then rename */
    }
    if (fstatat(b->dfd, b->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return -EEXIST;
    if (errno != ENOENT)
        return -errno;
    return renameat(a->dfd, a->name, b->dfd, b->name) < 0 ? -errno : 0;
}

/* Length of path's directory part. */
static size_t pmd_dirlen(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

int posix_md_run(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                 const char *buf, uint64_t size, uint64_t *count)
{
    struct pmd *s = pmd_get(ej);
    struct pmd_at at, at2;
    struct stat st;
    int rc, fd;

    if ((rc = pmd_resolve(ej, s, path, 1, op == OP_READDIR, &at)) < 0)
        return rc;
    switch (op) {
    case OP_CREATE:
        rc = pmd_create(&at, buf, size);
        break;
    case OP_STAT:
        rc = fstatat(at.dfd, at.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
        break;
    case OP_OPEN:
        /* the job's own regular file: never a symlink followed, and a FIFO
         * put in its place cannot block the job */
        if ((fd = pmd_beneath(at.dfd, at.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0)) >= 0)
            close(fd);
        rc = fd < 0 ? fd : 0;
        break;
    case OP_READDIR:
        rc = pmd_readdir(&at, count);
        break;
    case OP_RENAME:
        if (!path2) {
            rc = -EINVAL;
            break;
        }
        if (pmd_dirlen(path) == pmd_dirlen(path2) && memcmp(path, path2, pmd_dirlen(path)) == 0) {
            at2 = at;                   /* the same directory: the same fd */
            at2.tmpfd = -1;
            at2.name = path2 + pmd_dirlen(path2) + 1;
            rc = pmd_name_ok(at2.name) ? 0 : -EINVAL;
        } else {
            rc = pmd_resolve(ej, s, path2, 0, 0, &at2);
        }
        if (rc == 0)
            rc = pmd_rename(s, &at, &at2);
        pmd_done(&at2);
        break;
    case OP_UNLINK:
        rc = unlinkat(at.dfd, at.name, 0) < 0 ? -errno : 0;
        break;
    case OP_MKDIR:
    case OP_RMDIR:
        rc = op == OP_MKDIR ? mkdirat(at.dfd, at.name, 0755) : unlinkat(at.dfd, at.name, AT_REMOVEDIR);
        rc = rc < 0 ? -errno : 0;
        /* the subdirectory kept open was (re)made or removed, perhaps by
         * another job sharing it: the name means another directory now */
        if (at.dfd == s->basefd && s->subfd >= 0 && strcmp(at.name, s->sub) == 0)
            pmd_close(&s->subfd);
        if (op == OP_RMDIR && rc == 0 && ej->md_base && strcmp(path, ej->md_base) == 0) {
            pmd_close(&s->subfd);
            pmd_close(&s->basefd);
        }
        break;
    default:
        rc = -EINVAL;
        break;
    }
    pmd_done(&at);
    return rc;
}

void posix_md_release(struct engine_job *ej)
{
    struct pmd *s = ej->md_state;
    if (!s)
        return;
    pmd_close(&s->subfd);
    pmd_close(&s->basefd);
    pmd_close(&s->rootfd);
    free(s);
    ej->md_state = NULL;
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
