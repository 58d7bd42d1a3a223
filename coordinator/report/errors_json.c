/* errors_json: "errors" objects of the JSON result and the journal (see
 * errors_json.h).  One form for both, so a re-rendered report is the run's
 * own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/nfs_rpc.h"
#include "common/why.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/report/jint.h"

static json_t *cause_json(const struct errcause *c)
{
    json_t *e = json_object();
    char buf[160];
    json_object_set_new(e, "kind", json_string(errcause_kind_name((enum errcause_kind)c->kind)));
    json_object_set_new(e, "name", json_string(errcause_name(c, buf, sizeof buf)));
    if (c->kind == ERRC_ERRNO)
        json_object_set_new(e, "errno", jint(c->code));
    json_object_set_new(e, "text", json_string(errcause_text(c, buf, sizeof buf)));
    json_object_set_new(e, "count", jint(c->count));
    json_object_set_new(e, "first_offset", jint(c->offset));
    json_object_set_new(e, "file", json_string(c->file));
    if (c->kind == ERRC_SHORT_READ)
        json_object_set_new(e, "file_size", c->size == ERRCAUSE_SIZE_UNKNOWN ? json_null() : jint(c->size));
    return e;
}

json_t *errors_json(const struct errcause_set *s, uint32_t (*first_agent)[ERRCAUSE_MAX])
{
    json_t *o = json_object();
    for (int t = 0; t < OP__COUNT; t++) {
        const struct errcause_op *eo = &s->op[t];
        json_t *v, *causes;
        if (!eo->n && !eo->other)
            continue;
        v = json_object();
        causes = json_array();
        json_object_set_new(v, "failed", jint(errcause_failed(s, (enum op_type)t)));
        for (uint32_t i = 0; i < eo->n && i < ERRCAUSE_MAX; i++) {
            json_t *e = cause_json(&eo->c[i]);
            if (first_agent)
                json_object_set_new(e, "first_agent", json_integer(first_agent[t][i]));
            json_array_append_new(causes, e);
        }
        json_object_set_new(v, "causes", causes);
        json_object_set_new(v, "other", jint(eo->other));
        json_object_set_new(o, op_type_name((enum op_type)t), v);
    }
    return o;
}

static int get_u(const json_t *o, const char *where, const char *key, uint64_t max, uint64_t *out, char *err,
                 size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (jcount(v, max, out) == 0)
        return 0;
    return why_fail(err, errlen, "%s\"%s\" %s", where, key, v ? "is not a count in range" : "is missing");
}

static int cause_from_json(const json_t *e, const char *where, struct errcause *c, char *err, size_t errlen)
{
    const char *kind = json_string_value(json_object_get(e, "kind"));
    const char *file = json_string_value(json_object_get(e, "file"));
    const json_t *size = json_object_get(e, "file_size");
    uint64_t code = 0;
    int k;
    if (!json_is_object(e) || !kind || (k = errcause_kind_from_name(kind)) < 0 || !file ||
        strlen(file) >= sizeof c->file) {
        return why_fail(err, errlen, "%sneeds \"kind\" (a cause kind) and \"file\" (a path under %d bytes)", where,
                        ERRCAUSE_PATH_MAX);
    }
    c->kind = (uint32_t)k;
    snprintf(c->file, sizeof c->file, "%s", file);
    if (get_u(e, where, "count", INT64_MAX, &c->count, err, errlen) ||
        get_u(e, where, "first_offset", INT64_MAX, &c->offset, err, errlen))
        return -EINVAL;
    if (k == ERRC_ERRNO && get_u(e, where, "errno", ERRCAUSE_ERRNO_MAX, &code, err, errlen))
        return -EINVAL;
    if (k == ERRC_NFS) {
        const char *name = json_string_value(json_object_get(e, "name"));
        int64_t v = name ? nfs_status_from_name(name) : -1;
        if (v < 0)
            return why_fail(err, errlen, "%s\"name\" is not an NFS status", where);
        code = (uint64_t)v;
    }
    c->code = (uint32_t)code;
    if (k == ERRC_SHORT_READ) {
        if (json_is_null(size))
            c->size = ERRCAUSE_SIZE_UNKNOWN;
        else if (get_u(e, where, "file_size", INT64_MAX, &c->size, err, errlen))
            return -EINVAL;
    }
    return 0;
}

int errors_from_json(const json_t *o, struct errcause_set *s, char *err, size_t errlen)
{
    const char *name;
    const json_t *v;
    char why[200], where[80];

    errcause_set_init(s);
    if (!json_is_object(o))
        return why_fail(err, errlen, "errors: not an object");
    json_object_foreach((json_t *)o, name, v) {
        int t = op_type_from_name(name);
        const json_t *causes = json_object_get(v, "causes"), *e;
        size_t i;
        if (t < 0)
            return why_fail(err, errlen, "errors: \"%.20s\" is not an op type", name);
        if (!json_is_array(causes) || json_array_size(causes) > ERRCAUSE_MAX)
            return why_fail(err, errlen, "errors.%s: \"causes\" must be an array of at most %d entries", name,
                            ERRCAUSE_MAX);
        json_array_foreach(causes, i, e) {
            snprintf(where, sizeof where, "errors.%s.causes[%zu]: ", name, i);
            if (cause_from_json(e, where, &s->op[t].c[i], err, errlen) < 0)
                return -EINVAL;
        }
        s->op[t].n = (uint32_t)json_array_size(causes);
        snprintf(where, sizeof where, "errors.%s: ", name);
        if (get_u(v, where, "other", INT64_MAX, &s->op[t].other, err, errlen))
            return -EINVAL;
    }
    if (errcause_check(s, why, sizeof why) < 0)
        return why_fail(err, errlen, "%s", why);
    return 0;
}
