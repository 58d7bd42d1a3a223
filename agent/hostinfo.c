/* hostinfo: see hostinfo.h.  /proc files are read whole into a bounded
 * buffer (cpuinfo of a 256-core machine is ~300 KB; only its start is
 * needed, so 64 KiB is kept). */
#include "agent/hostinfo.h"
#include "agent/procfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define PROC_READ_MAX (64u << 10)

/* Value of the first line "key<spaces/tabs>: value" in text, copied with
 * runs of blanks squeezed to one; 0 if found. */
static int field_value(const char *text, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *p = l + klen;
        size_t n = 0;
        int blank = 0;
        if (strncmp(l, key, klen) != 0)
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        for (p++; *p == ' ' || *p == '\t'; p++)
            ;
        for (; *p && *p != '\n' && n + 1 < outlen; p++) {
            if (*p == ' ' || *p == '\t') {
                blank = 1;
                continue;
            }
            if (blank && n > 0 && n + 2 < outlen)
                out[n++] = ' ';
            blank = 0;
            out[n++] = *p;
        }
        out[n] = '\0';
        return 0;
    }
    return -1;
}

void hostinfo_parse_cpu_model(const char *cpuinfo, char *out, size_t outlen)
{
    static const char *const keys[] = { "model name", "Model", "Hardware" };
    if (outlen == 0)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (field_value(cpuinfo, keys[i], out, outlen) == 0 && out[0])
            return;
}

/* The "key: N kB" line of /proc/meminfo text, in bytes: 0 or -EINVAL. */
static int meminfo_field(const char *meminfo, const char *key, uint64_t *bytes)
{
    char v[64], *end;
    unsigned long long kb;
    *bytes = 0;
    if (field_value(meminfo, key, v, sizeof v) < 0)
        return -EINVAL;
    errno = 0;
    kb = strtoull(v, &end, 10);
    if (errno || end == v || strcmp(end, " kB") != 0 || kb > UINT64_MAX / 1024)
        return -EINVAL;
    *bytes = (uint64_t)kb * 1024;
    return 0;
}

int hostinfo_parse_memtotal(const char *meminfo, uint64_t *bytes)
{
    return meminfo_field(meminfo, "MemTotal", bytes);
}

int hostinfo_meminfo(const char *key, uint64_t *bytes)
{
    char *t = procfs_read("/proc/meminfo", PROC_READ_MAX);
    int rc = t ? meminfo_field(t, key, bytes) : -errno;
    free(t);
    return rc;
}

void hostinfo_read(struct hostinfo *h)
{
    struct utsname u;
    char *t;
    memset(h, 0, sizeof *h);
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s", u.release);
    if ((t = procfs_read("/proc/cpuinfo", PROC_READ_MAX)) != NULL) {
        hostinfo_parse_cpu_model(t, h->cpu_model, sizeof h->cpu_model);
        free(t);
    }
    (void)hostinfo_meminfo("MemTotal", &h->mem_bytes);
}
