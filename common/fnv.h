/* FNV-1a, 64 bits: a stable, cheap hash of a string (file ids in verify
 * headers, file-system identities in the agent's space check).  A header
 * of its own so that callers need not link more than they use. */
#ifndef NFSTORM_FNV_H
#define NFSTORM_FNV_H

#include <stdint.h>

#define FNV64_BASIS 0xcbf29ce484222325ull

/* The hash of s continued from h (FNV64_BASIS to start). */
static inline uint64_t fnv64_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

#endif
