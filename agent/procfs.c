/* procfs: see procfs.h. */
#include "agent/procfs.h"

#include <errno.h>
#include <stdio.h>
#include "common/xmalloc.h"

/* The buffer starts small and doubles: mountstats is read every interval
 * and is a few KB on most clients, so its 4 MiB bound is a cap, not a
 * size to allocate each time. */
#define PROCFS_FIRST 65536

char *procfs_read(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    size_t cap = max < PROCFS_FIRST ? max : PROCFS_FIRST, n = 0;
    char *buf;

    if (!f)
        return NULL;
    buf = xmalloc(cap + 1);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap == max)
            break;
        cap = cap > max / 2 ? max : cap * 2;
        buf = xrealloc(buf, cap + 1);
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int octal(char c, char top)
{
    return c >= '0' && c <= top;
}

int procfs_unescape(const char *s, const char *e, char *out, size_t len)
{
    size_t n = 0;
    for (; s < e; s++) {
        char c = *s;
        if (c == '\\' && e - s >= 4 && octal(s[1], '3') && octal(s[2], '7') && octal(s[3], '7')) {
            c = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        }
        if (n + 1 >= len)
            return -ENAMETOOLONG;
        out[n++] = c;
    }
    out[n] = '\0';
    return 0;
}
