/* run_record: see run_record.h.
 *
 * The JSON form is the one source of truth for both files: the result and
 * the journal call the same writers and readers, so nothing can differ
 * between `nfstorm report RESULT.json` and `... RESULT.json.journal`.
 * Times are kept in unix milliseconds (an integer) and written as ISO 8601
 * plus unix seconds with three decimals, which read back to the same
 * milliseconds. */
#include "coordinator/run/run_record.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/units.h"
#include "common/version.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "proto/msg.h"

void run_record_init(struct run_record *rec)
{
    memset(rec, 0, sizeof *rec);
}

void run_record_free(struct run_record *rec)
{
    free(rec->plan_text);
    for (uint32_t i = 0; i < rec->argc; i++)
        free(rec->argv[i]);
    free(rec->argv);
    run_record_init(rec);
}

static char *dup_capped(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void run_record_begin(struct run_record *rec, const char *target, int argc, char **argv,
                      const char *plan_text)
{
    run_record_free(rec);
    rec->present = 1;
    snprintf(rec->target, sizeof rec->target, "%s", target ? target : "");
    result_clean_utf8(rec->target);
    snprintf(rec->version, sizeof rec->version, "%s", NFSTORM_VERSION);
    rec->proto_version = PROTO_VERSION;
    rec->start_ms = now_ms();
    rec->argc = argc > 0 ? (uint32_t)(argc < (int)RECORD_ARGV_MAX ? argc : (int)RECORD_ARGV_MAX) : 0;
    rec->argv = rec->argc ? xcalloc(rec->argc, sizeof *rec->argv) : NULL;
    for (uint32_t i = 0; i < rec->argc; i++) {
        rec->argv[i] = dup_capped(argv[i], RECORD_ARG_MAX);
        result_clean_utf8(rec->argv[i]);
    }
    rec->plan_text = plan_text ? dup_capped(plan_text, RECORD_PLAN_MAX) : NULL;
}

void run_record_finish(struct run_record *rec, int interrupted)
{
    rec->end_ms = now_ms();
    if (rec->end_ms <= rec->start_ms)
        rec->end_ms = rec->start_ms + 1;    /* the clock stepped back: keep start < end */
    rec->interrupted = interrupted ? 1 : 0;
}

void run_record_iso8601(int64_t ms, char *out, size_t outlen)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char day[32];
    if (ms < 0 || !gmtime_r(&t, &tm)) {
        snprintf(out, outlen, "?");
        return;
    }
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, outlen, "%s.%03dZ", day, (int)(ms % 1000));
}

/* ---- model ---- */

static void clean_storage(struct storage_info *s)
{
    char *text[] = { s->job, s->where, s->source, s->fstype, s->options, s->nfsvers, s->mode };

    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        result_clean_text(text[i]);
}

int run_record_add_storage(struct run_result *r, uint32_t phase, uint32_t agent,
                           const struct storage_info *s)
{
    struct agent_phase *ap;
    if (phase >= r->nphases || agent >= r->nagents || s->kind > STORAGE_NFS)
        return -EINVAL;
    ap = &r->phases[phase].agents[agent];
    if (ap->nstorage >= STORAGE_PER_PHASE_MAX)
        return -ENOSPC;
    if (!ap->storage)
        ap->storage = xcalloc(STORAGE_PER_PHASE_MAX, sizeof *ap->storage);
    ap->storage[ap->nstorage] = *s;
    clean_storage(&ap->storage[ap->nstorage++]);
    return 0;
}

int run_record_set_system(struct run_result *r, uint32_t agent, const struct agent_system *sys)
{
    struct agent_system *d;
    if (agent >= r->nagents)
        return -EINVAL;
    d = &r->agents[agent].sys;
    *d = *sys;
    d->known = 1;
    d->kernel[sizeof d->kernel - 1] = '\0';
    d->cpu_model[sizeof d->cpu_model - 1] = '\0';
    result_clean_text(d->kernel);
    result_clean_text(d->cpu_model);
    return 0;
}

/* ---- JSON out ---- */

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *run_record_json(const struct run_record *rec)
{
    json_t *o = json_object(), *argv = json_array();
    char iso[64];
    for (uint32_t i = 0; i < rec->argc; i++)
        json_array_append_new(argv, json_string(rec->argv[i]));
    json_object_set_new(o, "target", json_string(rec->target));
    json_object_set_new(o, "plan", str_or_null(rec->plan_text));
    json_object_set_new(o, "argv", argv);
    json_object_set_new(o, "nfstorm_version", json_string(rec->version));
    json_object_set_new(o, "protocol_version", json_integer(rec->proto_version));
    run_record_iso8601(rec->start_ms, iso, sizeof iso);
    json_object_set_new(o, "start", json_string(iso));
    json_object_set_new(o, "start_unix", json_real((double)rec->start_ms / 1000.0));
    if (rec->end_ms) {
        run_record_iso8601(rec->end_ms, iso, sizeof iso);
        json_object_set_new(o, "end", json_string(iso));
        json_object_set_new(o, "end_unix", json_real((double)rec->end_ms / 1000.0));
    } else {
        json_object_set_new(o, "end", json_null());
        json_object_set_new(o, "end_unix", json_null());
    }
    json_object_set_new(o, "interrupted", json_boolean(rec->interrupted));
    return o;
}

json_t *run_record_system_json(const struct agent_system *sys)
{
    return json_pack("{sssssI}", "kernel", sys->kernel, "cpu_model", sys->cpu_model,
                     "mem_bytes", (json_int_t)sys->mem_bytes);
}

json_t *run_record_storage_json(const struct agent_phase *ap)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; i < ap->nstorage; i++) {
        const struct storage_info *s = &ap->storage[i];
        int nfs = s->kind == STORAGE_NFS;
        json_array_append_new(arr, json_pack("{ssssssssssssssss sIsIsIsI}",
            "kind", nfs ? "nfs" : "mount", "job", s->job, nfs ? "url" : "mount_point", s->where,
            "source", s->source, "fstype", s->fstype, "options", s->options, "nfsvers", s->nfsvers,
            "mode", s->mode, "rsize", (json_int_t)s->rsize, "wsize", (json_int_t)s->wsize,
            "nconnect", (json_int_t)s->nconnect, "timeo", (json_int_t)s->timeo));
    }
    return arr;
}

/* ---- JSON in ---- */

struct rd {
    const char *what;
    char *err;
    size_t errlen;
    int failed;
};

__attribute__((format(printf, 3, 4)))
static void rd_fail(struct rd *c, const char *key, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    if (c->failed)
        return;
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s.%s: %s", c->what, key, msg);
}

static json_t *rd_get(struct rd *c, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        rd_fail(c, key, "missing");
    return v;
}

static void rd_str(struct rd *c, json_t *o, const char *key, char *dst, size_t len)
{
    json_t *v = rd_get(c, o, key);
    dst[0] = '\0';
    if (!v)
        return;
    if (!json_is_string(v) || json_string_length(v) >= len) {
        rd_fail(c, key, "want a string of at most %zu bytes", len - 1);
        return;
    }
    snprintf(dst, len, "%s", json_string_value(v));
    result_clean_utf8(dst);     /* the run kept a --target in any script */
}

static uint64_t rd_u64(struct rd *c, json_t *o, const char *key, uint64_t max)
{
    json_t *v = rd_get(c, o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max) {
        rd_fail(c, key, "want an integer in 0..%llu", (unsigned long long)max);
        return 0;
    }
    return (uint64_t)json_integer_value(v);
}

/* Unix seconds (a number with milliseconds) as milliseconds; null -> 0
 * when nullable. */
static int64_t rd_unix_ms(struct rd *c, json_t *o, const char *key, int nullable)
{
    json_t *v = rd_get(c, o, key);
    if (!v || (nullable && json_is_null(v)))
        return 0;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0 ||
        json_number_value(v) > 1e12) {
        rd_fail(c, key, "want unix seconds");
        return 0;
    }
    return (int64_t)llround(json_number_value(v) * 1000.0);
}

int run_record_from_json(json_t *o, const char *what, struct run_record *rec, char *err, size_t errlen)
{
    struct rd c = { .what = what, .err = err, .errlen = errlen };
    json_t *plan, *argv, *end, *intr;

    run_record_free(rec);
    if (!json_is_object(o)) {
        snprintf(err, errlen, "%s: not an object", what);
        return -EINVAL;
    }
    rec->present = 1;
    rd_str(&c, o, "target", rec->target, sizeof rec->target);
    rd_str(&c, o, "nfstorm_version", rec->version, sizeof rec->version);
    rec->proto_version = (uint32_t)rd_u64(&c, o, "protocol_version", UINT32_MAX);
    rec->start_ms = rd_unix_ms(&c, o, "start_unix", 0);
    rec->end_ms = rd_unix_ms(&c, o, "end_unix", 1);
    if (!c.failed && rec->end_ms && rec->end_ms < rec->start_ms)
        rd_fail(&c, "end_unix", "before start_unix");
    if ((end = rd_get(&c, o, "end")) && !json_is_string(end) && !json_is_null(end))
        rd_fail(&c, "end", "want a string or null");
    if ((intr = rd_get(&c, o, "interrupted")) && !json_is_boolean(intr))
        rd_fail(&c, "interrupted", "want true or false");
    rec->interrupted = intr && json_is_true(intr);
    plan = rd_get(&c, o, "plan");
    if (plan && !json_is_null(plan)) {
        if (!json_is_string(plan) || json_string_length(plan) > RECORD_PLAN_MAX)
            rd_fail(&c, "plan", "want a string of at most %u bytes or null", RECORD_PLAN_MAX);
        else
            rec->plan_text = dup_capped(json_string_value(plan), RECORD_PLAN_MAX);
    }
    argv = rd_get(&c, o, "argv");
    if (argv && (!json_is_array(argv) || json_array_size(argv) > RECORD_ARGV_MAX)) {
        rd_fail(&c, "argv", "want an array of at most %u strings", RECORD_ARGV_MAX);
    } else if (argv && !c.failed) {
        size_t i;
        json_t *a;
        rec->argv = json_array_size(argv) ? xcalloc(json_array_size(argv), sizeof *rec->argv) : NULL;
        json_array_foreach(argv, i, a) {
            if (!json_is_string(a) || json_string_length(a) > RECORD_ARG_MAX) {
                rd_fail(&c, "argv", "element %zu: want a string of at most %u bytes", i, RECORD_ARG_MAX);
                break;
            }
            rec->argv[rec->argc] = xstrdup(json_string_value(a));
            result_clean_utf8(rec->argv[rec->argc++]);
        }
    }
    if (c.failed) {
        run_record_free(rec);
        return -EINVAL;
    }
    return 0;
}

int run_record_system_from_json(json_t *o, const char *what, struct agent_system *sys, char *err,
                                size_t errlen)
{
    struct rd c = { .what = what, .err = err, .errlen = errlen };
    memset(sys, 0, sizeof *sys);
    if (!json_is_object(o)) {
        snprintf(err, errlen, "%s: not an object", what);
        return -EINVAL;
    }
    rd_str(&c, o, "kernel", sys->kernel, sizeof sys->kernel);
    rd_str(&c, o, "cpu_model", sys->cpu_model, sizeof sys->cpu_model);
    sys->mem_bytes = rd_u64(&c, o, "mem_bytes", INT64_MAX);
    sys->known = !c.failed;
    return c.failed ? -EINVAL : 0;
}

int run_record_storage_from_json(json_t *arr, const char *what, struct run_result *r, uint32_t phase,
                                 uint32_t agent, char *err, size_t errlen)
{
    size_t i;
    json_t *o;
    char path[160];

    if (!json_is_array(arr) || json_array_size(arr) > STORAGE_PER_PHASE_MAX) {
        snprintf(err, errlen, "%s: want an array of at most %d places", what, STORAGE_PER_PHASE_MAX);
        return -EINVAL;
    }
    json_array_foreach(arr, i, o) {
        struct storage_info s;
        char kind[8];
        struct rd c = { .what = path, .err = err, .errlen = errlen };
        snprintf(path, sizeof path, "%s[%zu]", what, i);
        memset(&s, 0, sizeof s);
        if (!json_is_object(o)) {
            snprintf(err, errlen, "%s: not an object", path);
            return -EINVAL;
        }
        rd_str(&c, o, "kind", kind, sizeof kind);
        if (!c.failed && strcmp(kind, "mount") != 0 && strcmp(kind, "nfs") != 0)
            rd_fail(&c, "kind", "want mount or nfs");
        s.kind = strcmp(kind, "nfs") == 0 ? STORAGE_NFS : STORAGE_MOUNT;
        rd_str(&c, o, "job", s.job, sizeof s.job);
        rd_str(&c, o, s.kind == STORAGE_NFS ? "url" : "mount_point", s.where, sizeof s.where);
        rd_str(&c, o, "source", s.source, sizeof s.source);
        rd_str(&c, o, "fstype", s.fstype, sizeof s.fstype);
        rd_str(&c, o, "options", s.options, sizeof s.options);
        rd_str(&c, o, "nfsvers", s.nfsvers, sizeof s.nfsvers);
        rd_str(&c, o, "mode", s.mode, sizeof s.mode);
        s.rsize = rd_u64(&c, o, "rsize", INT64_MAX);
        s.wsize = rd_u64(&c, o, "wsize", INT64_MAX);
        s.nconnect = (uint32_t)rd_u64(&c, o, "nconnect", UINT32_MAX);
        s.timeo = (uint32_t)rd_u64(&c, o, "timeo", UINT32_MAX);
        if (c.failed)
            return -EINVAL;
        if (run_record_add_storage(r, phase, agent, &s) < 0) {
            snprintf(err, errlen, "%s: phase or agent out of range", path);
            return -EINVAL;
        }
    }
    return 0;
}
