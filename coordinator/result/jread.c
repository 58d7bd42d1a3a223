/* jread: see jread.h. */
#include "coordinator/result/jread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "coordinator/report/jint.h"
#include "coordinator/result/result.h"

void jr_fail(struct jr *c, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    if (c->failed)
        return;
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s%s%s%s%s%s%s", c->file ? c->file : "", c->file ? ": " : "", c->where,
             c->where[0] && path[0] ? "." : "", path, c->where[0] || path[0] ? ": " : "", msg);
}

json_t *jr_get(struct jr *c, json_t *obj, const char *path, const char *key, char *sub, size_t sublen)
{
    json_t *v;

    snprintf(sub, sublen, "%s%s%s", path, path[0] ? "." : "", key);
    if (c->failed)
        return NULL;
    if (!json_is_object(obj)) {
        jr_fail(c, path, "not an object");
        return NULL;
    }
    v = json_object_get(obj, key);
    if (!v)
        jr_fail(c, sub, "missing");
    return v;
}

json_t *jr_opt(struct jr *c, json_t *obj, const char *path, const char *key, char *sub, size_t sublen)
{
    json_t *v = c->failed ? NULL : json_object_get(obj, key);

    snprintf(sub, sublen, "%s.%s", path, key);
    return v;
}

uint64_t jr_u64(struct jr *c, json_t *obj, const char *path, const char *key, uint64_t max)
{
    char sub[512];
    json_t *v = jr_get(c, obj, path, key, sub, sizeof(sub));
    uint64_t n = 0;

    if (v && jcount(v, max, &n) < 0)
        jr_fail(c, sub, "want an integer in 0..%llu", (unsigned long long)max);
    return n;
}

/* obj.key when it is there and ok(v); else NULL, with want said. */
static json_t *get_as(struct jr *c, json_t *obj, const char *path, const char *key, int (*ok)(const json_t *v),
                      const char *want)
{
    char sub[512];
    json_t *v = jr_get(c, obj, path, key, sub, sizeof(sub));

    if (v && !ok(v)) {
        jr_fail(c, sub, "%s", want);
        return NULL;
    }
    return v;
}

static int is_int(const json_t *v) { return json_is_integer(v); }
static int is_bool(const json_t *v) { return json_is_boolean(v); }
static int is_num(const json_t *v) { return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0; }

int64_t jr_i64(struct jr *c, json_t *obj, const char *path, const char *key)
{
    json_t *v = get_as(c, obj, path, key, is_int, "want an integer");
    return v ? (int64_t)json_integer_value(v) : 0;
}

double jr_num(struct jr *c, json_t *obj, const char *path, const char *key)
{
    json_t *v = get_as(c, obj, path, key, is_num, "want a number >= 0");
    return v ? json_number_value(v) : 0;
}

int jr_bool(struct jr *c, json_t *obj, const char *path, const char *key)
{
    json_t *v = get_as(c, obj, path, key, is_bool, "want true or false");
    return v ? json_is_true(v) : 0;
}

void jr_str(struct jr *c, json_t *obj, const char *path, const char *key, char *dst, size_t len)
{
    char sub[512];
    json_t *v = jr_get(c, obj, path, key, sub, sizeof(sub));

    dst[0] = '\0';
    if (!v)
        return;
    if (!json_is_string(v) || json_string_length(v) >= len) {
        jr_fail(c, sub, "want a string of at most %zu bytes", len - 1);
        return;
    }
    snprintf(dst, len, "%s", json_string_value(v));
    /* a file may carry what an agent once sent (cleaned to ASCII by the
     * run, so this is a no-op there) or a --label or --target in any script */
    result_clean_utf8(dst);
}

json_t *jr_array(struct jr *c, json_t *obj, const char *path, const char *key, size_t want, size_t max,
                 char *sub, size_t sublen)
{
    json_t *v = jr_get(c, obj, path, key, sub, sublen);

    if (!v)
        return NULL;
    if (!json_is_array(v)) {
        jr_fail(c, sub, "want an array");
        return NULL;
    }
    if (want && json_array_size(v) != want) {
        jr_fail(c, sub, "has %zu elements, want %zu", json_array_size(v), want);
        return NULL;
    }
    if (json_array_size(v) > max) {
        jr_fail(c, sub, "has %zu elements, at most %zu allowed", json_array_size(v), max);
        return NULL;
    }
    return v;
}
