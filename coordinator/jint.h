/* jint: the one way a uint64_t count becomes a JSON integer.
 *
 * JSON integers in jansson are signed 64-bit: a value of 2^63 or more (a
 * saturated sum, or a figure an agent or a forged file claimed) is written
 * as INT64_MAX rather than wrapping negative, so every file the coordinator
 * writes still reads back.  Counts and nanoseconds never get there. */
#ifndef NFSTORM_JINT_H
#define NFSTORM_JINT_H

#include <stdint.h>

#include <jansson.h>

/* A new JSON integer (the caller owns the reference), clamped to INT64_MAX. */
static inline json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

#endif
