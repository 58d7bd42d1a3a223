/* mountinfo: see mountinfo.h.  Each line is split into its fields in a
 * copy (unescaping in place); nothing is kept between calls. */
#include "agent/mountinfo.h"
#include "agent/procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOUNTINFO_READ_MAX (4u << 20)   /* thousands of mounts fit */
#define LINE_FIELDS_MAX 64

/* 1 when mount point mp holds path: equal, "/" or a prefix ending at a '/'. */
static int holds(const char *mp, const char *path)
{
    size_t n = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return path[0] == '/';
    return strncmp(mp, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static uint64_t num_opt(const char *v)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return end != v && (*end == '\0' || *end == ',') ? (uint64_t)x : 0;
}

void mountinfo_nfs_fields(const char *options, struct storage_info *out)
{
    const char *o = options;
    while (o && *o) {
        size_t len = strcspn(o, ",");
        char opt[128];
        snprintf(opt, sizeof opt, "%.*s", (int)(len < sizeof opt ? len : sizeof opt - 1), o);
        if (strncmp(opt, "vers=", 5) == 0)
            snprintf(out->nfsvers, sizeof out->nfsvers, "%s", opt + 5);
        else if (strncmp(opt, "nfsvers=", 8) == 0)
            snprintf(out->nfsvers, sizeof out->nfsvers, "%s", opt + 8);
        else if (strncmp(opt, "rsize=", 6) == 0)
            out->rsize = num_opt(opt + 6);
        else if (strncmp(opt, "wsize=", 6) == 0)
            out->wsize = num_opt(opt + 6);
        else if (strncmp(opt, "nconnect=", 9) == 0)
            out->nconnect = (uint32_t)num_opt(opt + 9);
        else if (strncmp(opt, "timeo=", 6) == 0)
            out->timeo = (uint32_t)num_opt(opt + 6);
        else if (strcmp(opt, "hard") == 0 || strcmp(opt, "soft") == 0)
            snprintf(out->mode, sizeof out->mode, "%s", opt);
        o += len;
        if (*o == ',')
            o++;
    }
}

/* Split line (modified) into fields; the index of "-" in *sep.  The number
 * of fields, or -1 if it is not a mountinfo line. */
static int split(char *line, char **f, int *sep)
{
    int n = 0;
    *sep = -1;
    for (char *t = strtok(line, " "); t && n < LINE_FIELDS_MAX; t = strtok(NULL, " ")) {
        if (*sep < 0 && n >= 6 && strcmp(t, "-") == 0)
            *sep = n;
        f[n++] = t;
    }
    return *sep >= 6 && n >= *sep + 4 ? n : -1;
}

int mountinfo_find(const char *text, const char *abs_path, struct storage_info *out)
{
    size_t best_len = 0;
    int found = 0;
    const char *l = text;

    while (l && *l) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char *line = malloc(len + 1), *f[LINE_FIELDS_MAX];
        int sep;
        if (!line)
            return -ENOMEM;
        memcpy(line, l, len);
        line[len] = '\0';
        l = nl ? nl + 1 : NULL;
        if (split(line, f, &sep) < 0) {
            free(line);
            continue;
        }
        for (int i = 0; i < sep + 4 && i < LINE_FIELDS_MAX; i++) {
            size_t fl = strlen(f[i]);
            (void)procfs_unescape(f[i], f[i] + fl, f[i], fl + 1);   /* in place: it fits */
        }
        /* >=: a later mount on the same point hides the earlier one */
        if (holds(f[4], abs_path) && strlen(f[4]) >= best_len) {
            best_len = strlen(f[4]);
            found = 1;
            memset(out, 0, sizeof *out);
            out->kind = STORAGE_MOUNT;
            snprintf(out->where, sizeof out->where, "%s", f[4]);
            snprintf(out->fstype, sizeof out->fstype, "%s", f[sep + 1]);
            snprintf(out->source, sizeof out->source, "%s", f[sep + 2]);
            snprintf(out->options, sizeof out->options, "%s,%s", f[5], f[sep + 3]);
            if (strncmp(out->fstype, "nfs", 3) == 0)
                mountinfo_nfs_fields(out->options, out);
        }
        free(line);
    }
    return found ? 0 : -ENOENT;
}

char *mountinfo_read(void)
{
    return procfs_read("/proc/self/mountinfo", MOUNTINFO_READ_MAX);
}

int mountinfo_lookup(const char *abs_path, struct storage_info *out)
{
    char *buf = mountinfo_read();
    int rc = buf ? mountinfo_find(buf, abs_path, out) : -errno;
    free(buf);
    return rc;
}
