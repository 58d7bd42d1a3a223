/* xmalloc: allocation that aborts on failure, so callers need no NULL checks.
 * Buffers sized from network input must be capped before they get here. */
#ifndef NFSTORM_XMALLOC_H
#define NFSTORM_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
