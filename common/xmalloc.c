/* xmalloc: allocation that aborts on failure.
 *
 * Design: an agent or coordinator out of memory cannot do anything useful
 * (a partial report would be wrong), so failing loudly in one place beats a
 * NULL check at every call site.  Zero-sized requests are bumped to one
 * byte so a NULL return always means failure and never "nothing asked". */
#include "common/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(const char *what, size_t n)
{
    fprintf(stderr, "nfstorm: %s(%zu) failed: out of memory\n", what, n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom("malloc", n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    if (n == 0 || size == 0)
        n = size = 1;
    void *p = calloc(n, size);  /* calloc checks n*size for overflow */
    if (!p)
        oom("calloc", n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom("realloc", n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}
