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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/units.h"
#include "common/version.h"
#include "common/xmalloc.h"
#include "coordinator/result/jread.h"
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

/* Unix seconds (a number with milliseconds) as milliseconds; null -> 0
 * when nullable.  sub gets the key's path. */
static int64_t rd_unix_ms(struct jr *c, json_t *o, const char *what, const char *key, int nullable, char *sub,
                          size_t sublen)
{
    json_t *v = jr_get(c, o, what, key, sub, sublen);

    if (!v || (nullable && json_is_null(v)))
        return 0;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0 ||
        json_number_value(v) > 1e12) {
        jr_fail(c, sub, "want unix seconds");
        return 0;
    }
    return (int64_t)llround(json_number_value(v) * 1000.0);
}

/* The readers: a value that is not an object fails on its first key
 * ("record: not an object"), as any wrong key does. */
int run_record_from_json(json_t *o, const char *what, struct run_record *rec, char *err, size_t errlen)
{
    struct jr c = { .where = "", .err = err, .errlen = errlen };
    json_t *plan, *argv, *end;
    char sub[160];

    run_record_free(rec);
    rec->present = 1;
    jr_str(&c, o, what, "target", rec->target, sizeof rec->target);
    jr_str(&c, o, what, "nfstorm_version", rec->version, sizeof rec->version);
    rec->proto_version = (uint32_t)jr_u64(&c, o, what, "protocol_version", UINT32_MAX);
    rec->start_ms = rd_unix_ms(&c, o, what, "start_unix", 0, sub, sizeof sub);
    rec->end_ms = rd_unix_ms(&c, o, what, "end_unix", 1, sub, sizeof sub);
    if (!c.failed && rec->end_ms && rec->end_ms < rec->start_ms)
        jr_fail(&c, sub, "before start_unix");
    if ((end = jr_get(&c, o, what, "end", sub, sizeof sub)) && !json_is_string(end) && !json_is_null(end))
        jr_fail(&c, sub, "want a string or null");
    rec->interrupted = jr_bool(&c, o, what, "interrupted");
    plan = jr_get(&c, o, what, "plan", sub, sizeof sub);
    if (plan && !json_is_null(plan)) {
        if (!json_is_string(plan) || json_string_length(plan) > RECORD_PLAN_MAX)
            jr_fail(&c, sub, "want a string of at most %u bytes or null", RECORD_PLAN_MAX);
        else
            rec->plan_text = dup_capped(json_string_value(plan), RECORD_PLAN_MAX);
    }
    argv = jr_get(&c, o, what, "argv", sub, sizeof sub);
    if (argv && (!json_is_array(argv) || json_array_size(argv) > RECORD_ARGV_MAX)) {
        jr_fail(&c, sub, "want an array of at most %u strings", RECORD_ARGV_MAX);
    } else if (argv && !c.failed) {
        size_t i;
        json_t *a;
        rec->argv = json_array_size(argv) ? xcalloc(json_array_size(argv), sizeof *rec->argv) : NULL;
        json_array_foreach(argv, i, a) {
            if (!json_is_string(a) || json_string_length(a) > RECORD_ARG_MAX) {
                jr_fail(&c, sub, "element %zu: want a string of at most %u bytes", i, RECORD_ARG_MAX);
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
    struct jr c = { .where = "", .err = err, .errlen = errlen };

    memset(sys, 0, sizeof *sys);
    jr_str(&c, o, what, "kernel", sys->kernel, sizeof sys->kernel);
    jr_str(&c, o, what, "cpu_model", sys->cpu_model, sizeof sys->cpu_model);
    sys->mem_bytes = jr_u64(&c, o, what, "mem_bytes", INT64_MAX);
    sys->known = !c.failed;
    return c.failed ? -EINVAL : 0;
}

int run_record_storage_from_json(json_t *arr, const char *what, struct run_result *r, uint32_t phase,
                                 uint32_t agent, char *err, size_t errlen)
{
    size_t i;
    json_t *o;
    char path[160], sub[200];

    if (!json_is_array(arr) || json_array_size(arr) > STORAGE_PER_PHASE_MAX) {
        snprintf(err, errlen, "%s: want an array of at most %d places", what, STORAGE_PER_PHASE_MAX);
        return -EINVAL;
    }
    json_array_foreach(arr, i, o) {
        struct storage_info s;
        char kind[8];
        struct jr c = { .where = "", .err = err, .errlen = errlen };
        snprintf(path, sizeof path, "%s[%zu]", what, i);
        memset(&s, 0, sizeof s);
        jr_str(&c, o, path, "kind", kind, sizeof kind);
        if (jr_opt(&c, o, path, "kind", sub, sizeof sub) && strcmp(kind, "mount") != 0 && strcmp(kind, "nfs") != 0)
            jr_fail(&c, sub, "want mount or nfs");
        s.kind = strcmp(kind, "nfs") == 0 ? STORAGE_NFS : STORAGE_MOUNT;
        jr_str(&c, o, path, "job", s.job, sizeof s.job);
        jr_str(&c, o, path, s.kind == STORAGE_NFS ? "url" : "mount_point", s.where, sizeof s.where);
        jr_str(&c, o, path, "source", s.source, sizeof s.source);
        jr_str(&c, o, path, "fstype", s.fstype, sizeof s.fstype);
        jr_str(&c, o, path, "options", s.options, sizeof s.options);
        jr_str(&c, o, path, "nfsvers", s.nfsvers, sizeof s.nfsvers);
        jr_str(&c, o, path, "mode", s.mode, sizeof s.mode);
        s.rsize = jr_u64(&c, o, path, "rsize", INT64_MAX);
        s.wsize = jr_u64(&c, o, path, "wsize", INT64_MAX);
        s.nconnect = (uint32_t)jr_u64(&c, o, path, "nconnect", UINT32_MAX);
        s.timeo = (uint32_t)jr_u64(&c, o, path, "timeo", UINT32_MAX);
        if (c.failed)
            return -EINVAL;
        if (run_record_add_storage(r, phase, agent, &s) < 0) {
            snprintf(err, errlen, "%s: phase or agent out of range", path);
            return -EINVAL;
        }
    }
    return 0;
}
