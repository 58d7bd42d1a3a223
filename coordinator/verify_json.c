/* verify_json: "verify" objects of the JSON result and the journal (see
 * verify_json.h).  One form for both, so a re-rendered report is the
 * run's own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "coordinator/verify_json.h"

/* JSON integers are signed 64-bit: a value from a header someone forged
 * (a generation from 2^63 up) is written as the largest one, so the file
 * still reads back. */
static json_t *u64j(uint64_t v)
{
    return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *verify_json(const struct vstats *v)
{
    json_t *o = json_object(), *first = json_array();
    json_object_set_new(o, "checked", u64j(v->checked));
    for (int k = 0; k < VB__COUNT; k++)
        json_object_set_new(o, vblock_kind_name((enum vblock_kind)k), u64j(v->count[k]));
    for (uint32_t i = 0; i < v->nfirst && i < VSTATS_FIRST_MAX; i++) {
        const struct vstats_bad *b = &v->first[i];
        json_t *e = json_object();
        json_object_set_new(e, "file", json_string(b->file));
        json_object_set_new(e, "offset", u64j(b->offset));
        json_object_set_new(e, "kind", json_string(vblock_kind_name((enum vblock_kind)b->kind)));
        json_object_set_new(e, "reader", u64j(b->reader));
        json_object_set_new(e, "expected_writer",
                            b->expected_writer == VBLOCK_ANY_WRITER ? json_null() : u64j(b->expected_writer));
        json_object_set_new(e, "expected_generation",
                            b->expected_gen == VBLOCK_ANY_GEN ? json_null() : u64j(b->expected_gen));
        json_object_set_new(e, "found_writer", u64j(b->found_writer));
        json_object_set_new(e, "found_job", u64j(b->found_job));
        json_object_set_new(e, "found_generation", u64j(b->found_gen));
        json_object_set_new(e, "found_offset", u64j(b->found_offset));
        json_array_append_new(first, e);
    }
    json_object_set_new(o, "first", first);
    return o;
}

/* A count: an integer >= 0 (JSON integers are signed: 2^63 and up do not
 * come back, nor do we write them). */
static int get_u(const json_t *o, const char *where, const char *key, uint64_t max, int nullable,
                 uint64_t null_value, uint64_t *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (nullable && json_is_null(v)) {
        *out = null_value;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max) {
        snprintf(err, errlen, "%s\"%s\" %s", where, key, v ? "is not a count in range" : "is missing");
        return -EINVAL;
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int verify_from_json(const json_t *o, struct vstats *v, char *err, size_t errlen)
{
    const json_t *first, *e;
    char why[200], where[48];
    size_t i;

    vstats_init(v);
    if (!json_is_object(o)) {
        snprintf(err, errlen, "verify: not an object");
        return -EINVAL;
    }
    if (get_u(o, "verify: ", "checked", INT64_MAX, 0, 0, &v->checked, err, errlen))
        return -EINVAL;
    for (int k = 0; k < VB__COUNT; k++)
        if (get_u(o, "verify: ", vblock_kind_name((enum vblock_kind)k), INT64_MAX, 0, 0, &v->count[k], err, errlen))
            return -EINVAL;
    first = json_object_get(o, "first");
    if (!json_is_array(first) || json_array_size(first) > VSTATS_FIRST_MAX) {
        snprintf(err, errlen, "verify: \"first\" must be an array of at most %d entries", VSTATS_FIRST_MAX);
        return -EINVAL;
    }
    json_array_foreach(first, i, e) {
        struct vstats_bad *b = &v->first[i];
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        uint64_t u[5];
        int k;
        snprintf(where, sizeof where, "verify.first[%zu]: ", i);
        if (!json_is_object(e) || !file || strlen(file) >= sizeof b->file || !kind ||
            (k = vblock_kind_from_name(kind)) <= 0) {
            snprintf(err, errlen, "%sneeds \"file\" (a path under %d bytes) and \"kind\" (a failure kind)", where,
                     VSTATS_PATH_MAX);
            return -EINVAL;
        }
        if (get_u(e, where, "offset", INT64_MAX, 0, 0, &b->offset, err, errlen) ||
            get_u(e, where, "reader", UINT32_MAX, 0, 0, &u[0], err, errlen) ||
            get_u(e, where, "expected_writer", UINT32_MAX, 1, VBLOCK_ANY_WRITER, &u[1], err, errlen) ||
            get_u(e, where, "expected_generation", INT64_MAX, 1, VBLOCK_ANY_GEN, &b->expected_gen, err, errlen) ||
            get_u(e, where, "found_writer", UINT32_MAX, 0, 0, &u[2], err, errlen) ||
            get_u(e, where, "found_job", UINT32_MAX, 0, 0, &u[3], err, errlen) ||
            get_u(e, where, "found_generation", INT64_MAX, 0, 0, &b->found_gen, err, errlen) ||
            get_u(e, where, "found_offset", INT64_MAX, 0, 0, &b->found_offset, err, errlen))
            return -EINVAL;
        snprintf(b->file, sizeof b->file, "%s", file);
        b->kind = (uint32_t)k;
        b->reader = (uint32_t)u[0];
        b->expected_writer = (uint32_t)u[1];
        b->found_writer = (uint32_t)u[2];
        b->found_job = (uint32_t)u[3];
        v->nfirst++;
    }
    if (vstats_check(v, why, sizeof why) < 0) {
        snprintf(err, errlen, "verify: %s", why);
        return -EINVAL;
    }
    v->on = 1;
    return 0;
}
