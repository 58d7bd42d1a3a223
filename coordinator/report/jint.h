/* jint: the JSON helpers every writer shares: the one way a uint64_t count
 * becomes a JSON integer, a real that may not be finite, and a builder
 * that notices jansson running out of memory.
 *
 * JSON integers in jansson are signed 64-bit: a value of 2^63 or more (a
 * saturated sum, or a figure an agent or a forged file claimed) is written
 * as INT64_MAX rather than wrapping negative, so every file the coordinator
 * writes still reads back.  Counts and nanoseconds never get there. */
#ifndef NFSTORM_JINT_H
#define NFSTORM_JINT_H

#include <math.h>
#include <stdint.h>

#include <jansson.h>

/* A new JSON integer (the caller owns the reference), clamped to INT64_MAX. */
static inline json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

/* v as a count in 0..max into *out: 0, or -1 when v is absent, not an
 * integer or out of range (*out untouched). */
static inline int jcount(const json_t *v, uint64_t max, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* v, or null where it is not finite (a mean of nothing, a CI of one). */
static inline json_t *jreal_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* v, or 0 where it is not finite (a rate over no time). */
static inline json_t *jreal_or_zero(double v)
{
    return json_real(isfinite(v) ? v : 0);
}

/* jansson reports allocation failure by returning NULL / -1 rather than
 * aborting: jb_put and jb_push fold those into b->failed (a NULL value is
 * rejected and nothing leaks), so a writer fails with -ENOMEM instead of
 * producing a document with keys silently missing. */
struct jb {
    int failed;   /* some jansson allocation failed */
};

static inline void jb_put(struct jb *b, json_t *obj, const char *key, json_t *v)
{
    if (!obj || !v || json_object_set_new(obj, key, v) != 0) {
        b->failed = 1;
        if (!obj)
            json_decref(v);   /* set_new would have taken it; we must drop it */
    }
}

/* jb_put of an optional member: v NULL is "absent", not a failure. */
static inline void jb_put_opt(struct jb *b, json_t *obj, const char *key, json_t *v)
{
    if (v)
        jb_put(b, obj, key, v);
}

static inline void jb_push(struct jb *b, json_t *arr, json_t *v)
{
    if (!arr || !v || json_array_append_new(arr, v) != 0) {
        b->failed = 1;
        if (!arr)
            json_decref(v);
    }
}

#endif
