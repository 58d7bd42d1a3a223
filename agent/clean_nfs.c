/* clean_nfs: see clean_nfs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <nfsc/libnfs.h>
#include "agent/clean_nfs.h"

#define CLEAN_NFS_TIMEOUT_MS 10000    /* a silent server fails the clean, it does not hold it */

void clean_nfs_close(struct clean_nfs *cn)
{
    if (cn->nfs)
        nfs_destroy_context(cn->nfs);
    cn->nfs = NULL;
    cn->url[0] = '\0';
}

static int mount_url(struct clean_nfs *cn, const char *url, char *err, size_t errlen)
{
    struct nfs_url *u;
    int rc;

    if (cn->nfs && strcmp(cn->url, url) == 0)
        return 0;
    clean_nfs_close(cn);
    if (!(cn->nfs = nfs_init_context())) {
        snprintf(err, errlen, "%s: cannot create an NFS context", url);
        return -ENOMEM;
    }
    nfs_set_timeout(cn->nfs, CLEAN_NFS_TIMEOUT_MS);
    u = nfs_parse_url_dir(cn->nfs, url);
    if (!u || !u->server || !u->path) {
        snprintf(err, errlen, "%s: bad NFS URL: %s", url, nfs_get_error(cn->nfs));
        if (u)
            nfs_destroy_url(u);
        clean_nfs_close(cn);
        return -EINVAL;
    }
    rc = nfs_mount(cn->nfs, u->server, u->path);
    nfs_destroy_url(u);
    if (rc != 0) {
        snprintf(err, errlen, "%s: mount failed: %s", url, nfs_get_error(cn->nfs));
        clean_nfs_close(cn);
        return rc < 0 ? rc : -EIO;
    }
    snprintf(cn->url, sizeof cn->url, "%s", url);
    return 0;
}

/* 1 when a component of p is "..": the job would not name a file there. */
static int has_dotdot(const char *p)
{
    for (const char *s = p; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return 1;
        s += n;
        while (*s == '/')
            s++;
    }
    return 0;
}

int clean_nfs_exists(struct clean_nfs *cn, const char *url, const char *path)
{
    struct nfs_stat_64 st;
    char abs[PLAN_PATH_MAX + 2], err[256];

    if (has_dotdot(path) || mount_url(cn, url, err, sizeof err) < 0)
        return 0;
    snprintf(abs, sizeof abs, "%s%s", path[0] == '/' ? "" : "/", path);
    return nfs_lstat64(cn->nfs, abs, &st) == 0 && S_ISREG(st.nfs_mode);
}

int clean_nfs_remove(struct clean_nfs *cn, const char *url, const char *path, uint64_t *bytes, char *err,
                     size_t errlen)
{
    struct nfs_stat_64 st;
    char abs[PLAN_PATH_MAX + 2];
    int rc;

    *bytes = 0;
    if (has_dotdot(path)) {
        snprintf(err, errlen, "%s: '%s' has a '..' component, left alone", url, path);
        return -EPERM;
    }
    if ((rc = mount_url(cn, url, err, errlen)) < 0)
        return rc;
    snprintf(abs, sizeof abs, "%s%s", path[0] == '/' ? "" : "/", path);
    if ((rc = nfs_lstat64(cn->nfs, abs, &st)) != 0) {
        if (rc == -ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s: %s", url, abs, nfs_get_error(cn->nfs));
        return rc < 0 ? rc : -EIO;
    }
    if (!S_ISREG(st.nfs_mode)) {
        snprintf(err, errlen, "%s: %s: not a regular file, left alone", url, abs);
        return -EISDIR;
    }
    if ((rc = nfs_unlink(cn->nfs, abs)) != 0) {
        if (rc == -ENOENT)             /* another agent sharing it removed it first */
            return 0;
        snprintf(err, errlen, "%s: %s: cannot remove it: %s", url, abs, nfs_get_error(cn->nfs));
        return rc < 0 ? rc : -EIO;
    }
    *bytes = st.nfs_size;
    return 1;
}
