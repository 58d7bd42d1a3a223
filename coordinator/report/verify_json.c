/* verify_json: "verify" objects of the JSON result and the journal (see
 * verify_json.h).  One form for both, so a re-rendered report is the
 * run's own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "coordinator/report/verify_json.h"
#include "coordinator/report/jint.h"
#include "common/why.h"

static json_t *run_j(uint64_t run)
{
    char id[17];
    if (!run)
        return json_null();
    vblock_run_format(run, id);
    return json_string(id);
}

void verify_time_text(uint64_t ms, char *buf, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!ms || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
        snprintf(buf, len, "?");
    else
        snprintf(buf + strlen(buf), len - strlen(buf), ".%03uZ", (unsigned)(ms % 1000));
}

json_t *verify_json(const struct vstats *v)
{
    json_t *o = json_object(), *first = json_array(), *runs = json_array();
    json_object_set_new(o, "checked", jint(v->checked));
    json_object_set_new(o, "verify_only", json_boolean(v->only));
    for (uint32_t i = 0; i < v->nruns && i < VSTATS_RUNS_MAX; i++) {
        char when[48];
        verify_time_text(v->runs[i].started_ms, when, sizeof when);
        json_array_append_new(runs, json_pack("{sosossso}", "run", run_j(v->runs[i].run),
                                              "started_ms", jint(v->runs[i].started_ms),
                                              "started", when, "blocks", jint(v->runs[i].blocks)));
    }
    json_object_set_new(o, "runs", runs);
    json_object_set_new(o, "runs_more", jint(v->runs_more));
    for (int k = 0; k < VB__COUNT; k++)
        json_object_set_new(o, vblock_kind_name((enum vblock_kind)k), jint(v->count[k]));
    for (uint32_t i = 0; i < v->nfirst && i < VSTATS_FIRST_MAX; i++) {
        const struct vstats_bad *b = &v->first[i];
        json_t *e = json_object();
        json_object_set_new(e, "file", json_string(b->file));
        json_object_set_new(e, "offset", jint(b->offset));
        json_object_set_new(e, "kind", json_string(vblock_kind_name((enum vblock_kind)b->kind)));
        json_object_set_new(e, "reader", jint(b->reader));
        json_object_set_new(e, "expected_writer",
                            b->expected_writer == VBLOCK_ANY_WRITER ? json_null() : jint(b->expected_writer));
        json_object_set_new(e, "expected_generation",
                            b->expected_gen == VBLOCK_ANY_GEN ? json_null() : jint(b->expected_gen));
        json_object_set_new(e, "found_writer", jint(b->found_writer));
        json_object_set_new(e, "found_job", jint(b->found_job));
        json_object_set_new(e, "found_generation", jint(b->found_gen));
        json_object_set_new(e, "found_offset", jint(b->found_offset));
        json_object_set_new(e, "expected_run", run_j(b->expected_run));
        json_object_set_new(e, "found_run", run_j(b->found_run));
        if (b->found_gen) {
            char when[48];
            verify_time_text(vblock_generation_ms(b->found_gen), when, sizeof when);
            json_object_set_new(e, "found_run_started", json_string(when));
        }
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
    if (jcount(v, max, out) == 0)
        return 0;
    return why_fail(err, errlen, "%s\"%s\" %s", where, key, v ? "is not a count in range" : "is missing");
}

/* A run id: absent or null (0), or 16 hex digits. */
static int get_run(const json_t *o, const char *where, const char *key, uint64_t *out, char *err,
                   size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || vblock_run_parse(json_string_value(v), out) < 0)
        return why_fail(err, errlen, "%s\"%s\" is not a run id (16 hex digits)", where, key);
    return 0;
}

/* "verify_only", "runs" and "runs_more": optional (results older than run ids). */
static int get_runs(const json_t *o, struct vstats *v, char *err, size_t errlen)
{
    const json_t *runs = json_object_get(o, "runs"), *e;
    size_t i;
    v->only = json_is_true(json_object_get(o, "verify_only"));
    if (json_object_get(o, "runs_more") &&
        get_u(o, "verify: ", "runs_more", INT64_MAX, 0, 0, &v->runs_more, err, errlen))
        return -EINVAL;
    if (!runs)
        return 0;
    if (!json_is_array(runs) || json_array_size(runs) > VSTATS_RUNS_MAX)
        return why_fail(err, errlen, "verify: \"runs\" must be an array of at most %d entries", VSTATS_RUNS_MAX);
    json_array_foreach(runs, i, e) {
        struct vstats_run *r = &v->runs[i];
        if (!json_is_object(e) || get_run(e, "verify.runs: ", "run", &r->run, err, errlen) ||
            get_u(e, "verify.runs: ", "started_ms", INT64_MAX, 0, 0, &r->started_ms, err, errlen) ||
            get_u(e, "verify.runs: ", "blocks", INT64_MAX, 0, 0, &r->blocks, err, errlen)) {
            if (!json_is_object(e))
                snprintf(err, errlen, "verify.runs[%zu]: not an object", i);
            return -EINVAL;
        }
    }
    v->nruns = (uint32_t)json_array_size(runs);
    return 0;
}

int verify_from_json(const json_t *o, struct vstats *v, char *err, size_t errlen)
{
    const json_t *first, *e;
    char where[48];
    size_t i;

    vstats_init(v);
    if (!json_is_object(o))
        return why_fail(err, errlen, "verify: not an object");
    if (get_u(o, "verify: ", "checked", INT64_MAX, 0, 0, &v->checked, err, errlen))
        return -EINVAL;
    for (int k = 0; k < VB__COUNT; k++)
        if (get_u(o, "verify: ", vblock_kind_name((enum vblock_kind)k), INT64_MAX, 0, 0, &v->count[k], err, errlen))
            return -EINVAL;
    first = json_object_get(o, "first");
    if (!json_is_array(first) || json_array_size(first) > VSTATS_FIRST_MAX)
        return why_fail(err, errlen, "verify: \"first\" must be an array of at most %d entries", VSTATS_FIRST_MAX);
    json_array_foreach(first, i, e) {
        struct vstats_bad *b = &v->first[i];
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        uint64_t u[5];
        int k;
        snprintf(where, sizeof where, "verify.first[%zu]: ", i);
        if (!json_is_object(e) || !file || strlen(file) >= sizeof b->file || !kind ||
            (k = vblock_kind_from_name(kind)) <= 0) {
            return why_fail(err, errlen, "%sneeds \"file\" (a path under %d bytes) and \"kind\" (a failure kind)",
                            where, VSTATS_PATH_MAX);
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
        if (get_run(e, where, "expected_run", &b->expected_run, err, errlen) ||
            get_run(e, where, "found_run", &b->found_run, err, errlen))
            return -EINVAL;
        snprintf(b->file, sizeof b->file, "%s", file);
        b->kind = (uint32_t)k;
        b->reader = (uint32_t)u[0];
        b->expected_writer = (uint32_t)u[1];
        b->found_writer = (uint32_t)u[2];
        b->found_job = (uint32_t)u[3];
        v->nfirst++;
    }
    if (get_runs(o, v, err, errlen) < 0 || vstats_accept(v, err, errlen) < 0)
        return -EINVAL;
    return 0;
}
