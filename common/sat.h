/* sat: saturating unsigned sums and products.
 *
 * Counters merged from many agents (ops, bytes, histogram buckets, latency
 * sums) come from the network: a hostile or broken agent can send values
 * near 2^64 that every decoder bound allows.  A wrapped sum would print as
 * a small, plausible figure; a saturated one stays at UINT64_MAX, which no
 * report mistakes for a measurement. */
#ifndef NFSTORM_SAT_H
#define NFSTORM_SAT_H

#include <stdint.h>

static inline uint64_t sat_add_u64(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static inline uint64_t sat_mul_u64(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

#endif
