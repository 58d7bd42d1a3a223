/* le: little-endian integers in byte buffers.
 *
 * Data that other agents read back (verified blocks, coherence stamps) is
 * laid out little-endian whatever the host is, byte by byte so the buffer
 * needs no alignment.  The compiler turns these into single loads and
 * stores on little-endian hosts. */
#ifndef NFSTORM_LE_H
#define NFSTORM_LE_H

#include <stdint.h>

static inline void le_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void le_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t le_get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t le_get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#endif
