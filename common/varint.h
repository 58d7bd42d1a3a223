/* varint: unsigned LEB128, the packing of the coordinator's in-memory
 * forms (sparse histograms, sealed per-agent counters, the agents' host
 * samples).  Only for bytes this process wrote itself: varint_get checks
 * no bound (a uint64 takes at most VARINT_MAX bytes, all written whole).
 * Never for bytes from the network or a file. */
#ifndef NFSTORM_VARINT_H
#define NFSTORM_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10

/* v into p (room for VARINT_MAX bytes); how many bytes. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* The value at *p; *p moves past it. */
static inline uint64_t varint_get(const uint8_t **p)
{
    uint64_t v = 0;
    unsigned shift = 0;

    for (;;) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
        shift += 7;
    }
}

#endif
