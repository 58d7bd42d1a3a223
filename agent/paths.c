/* paths: confinement of plan paths (see paths.h).
 *
 * Confinement canonicalises the longest existing prefix with realpath(3)
 * (so symlinks there are followed to where they really point) and checks
 * the rest is plain names.  It then compares whole path components against
 * the canonical roots, so /data2 is not "beneath" /data. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "agent/paths.h"
#include "common/xmalloc.h"

void allow_list_init(struct allow_list *a)
{
    memset(a, 0, sizeof *a);
}

void allow_list_free(struct allow_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->root[i]);
    a->n = 0;
}

int allow_list_add(struct allow_list *a, const char *dir, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat st;

    if (a->n == PATHS_MAX_ROOTS) {
        snprintf(err, errlen, "too many --allow directories (max %d)", PATHS_MAX_ROOTS);
        return -E2BIG;
    }
    if (!realpath(dir, real) || stat(real, &st) < 0) {
        int e = errno;
        snprintf(err, errlen, "--allow %s: %s", dir, strerror(e));
        return -e;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--allow %s: not a directory", dir);
        return -ENOTDIR;
    }
    a->root[a->n++] = xstrdup(real);
    return 0;
}

/* Is canonical path p equal to or beneath canonical directory root? */
static int beneath(const char *p, const char *root)
{
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0)
        return 1;
    return strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int paths_confine(const struct allow_list *a, const char *path,
                  char *out, size_t outlen, char *err, size_t errlen)
{
    char head[PATH_MAX], real[PATH_MAX];
    const char *rest = "";
    size_t len;

    if (path[0] != '/') {
        snprintf(err, errlen, "%s: not an absolute path", path);
        return -EINVAL;
    }
    if (strlen(path) >= sizeof head) {
        snprintf(err, errlen, "path too long");
        return -ENAMETOOLONG;
    }
    strcpy(head, path);
    /* Walk back to the longest prefix that exists. */
    int appeared = 0;
    while (!realpath(head, real)) {
        char *slash = strrchr(head, '/');
        struct stat lst;
        if (errno == ENOENT && lstat(head, &lst) == 0) {
            /* created between the two calls (agents sharing a file lay it
             * out at once): resolve it again, a few times at most */
            if (!S_ISLNK(lst.st_mode) && appeared++ < 3)
                continue;
            /* exists but does not resolve: a dangling symlink, which
             * creating the file would follow to wherever it points */
            snprintf(err, errlen, "%s: dangling symlink in the path", path);
            return -EACCES;
        }
        if (errno != ENOENT || !slash || slash == head) {
            if (slash == head) {           /* only "/" is left */
                strcpy(real, "/");
                rest = path + 1;
                break;
            }
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -errno;
        }
        *slash = '\0';
        rest = path + (slash - head) + 1;
    }
    /* The part to be created: plain names only. */
    for (const char *c = rest; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if ((n == 2 && c[0] == '.' && c[1] == '.') || (n == 1 && c[0] == '.')) {
            snprintf(err, errlen, "%s: '.' or '..' in a path that does not exist yet", path);
            return -EACCES;
        }
        c += n + (e ? 1 : 0);
    }
    len = strlen(real);
    if (*rest && snprintf(real + len, sizeof real - len, "%s%s",
                          real[len - 1] == '/' ? "" : "/", rest) >= (int)(sizeof real - len)) {
        snprintf(err, errlen, "path too long");
        return -ENAMETOOLONG;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (beneath(real, a->root[i])) {
            struct stat st;
            /* a block device beneath a root (--local allows the plan's own
             * directories, /dev too): nfstorm's engines write files, and a
             * device's "layout" would overwrite a disk */
            if (!*rest && stat(real, &st) == 0 && S_ISBLK(st.st_mode)) {
                snprintf(err, errlen, "%s is a block device: nfstorm works on files in a file "
                         "system, not on devices", path);
                return -EACCES;
            }
            if (strlen(real) >= outlen) {
                snprintf(err, errlen, "path too long");
                return -ENAMETOOLONG;
            }
            strcpy(out, real);
            return 0;
        }
    }
    len = (size_t)snprintf(err, errlen, "%s is outside the allowed directories (", path);
    for (size_t i = 0; i < a->n && len < errlen; i++)
        len += (size_t)snprintf(err + len, errlen - len, "%s%s", i ? ", " : "", a->root[i]);
    if (len < errlen)
        snprintf(err + len, errlen - len, ")");
    return -EACCES;
}

int paths_make_parents(const char *file)
{
    char p[PATH_MAX];
    if (strlen(file) >= sizeof p)
        return -ENAMETOOLONG;
    strcpy(p, file);
    for (char *s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    return 0;
}

const char *paths_root_of(const struct allow_list *a, const char *path)
{
    const char *best = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (beneath(path, a->root[i]) && (!best || strlen(a->root[i]) > strlen(best)))
            best = a->root[i];
    return best;
}
