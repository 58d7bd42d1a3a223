/* plan_log: fio's log-file keys (see plan_log.h).
 *
 * fio's write_*_log take an optional file prefix; a bare key, an empty
 * value or "1" (what many job files write, meaning "on") log under the
 * job's name, "0" turns the log off.  The millisecond periods are bounded
 * by the run's --interval range, since the run's interval follows them. */
#include "common/plan_log.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "common/why.h"

static const char *const log_keys[PLAN_LOG__COUNT] = {
    "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log",
};

void plan_log_default(struct job_log *l)
{
    *l = (struct job_log){ .per_job_logs = 1, .clat_percentiles = 1 };
}

static int parse_bool(const char *v, uint8_t *out)
{
    if (!*v || !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "yes"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "no"))
        *out = 0;
    else
        return -EINVAL;
    return 0;
}

static int parse_msec(const char *v, uint32_t *out, char *why, size_t whylen)
{
    uint64_t n;

    if (units_parse_u64(v, &n) || n > PLAN_LOG_MSEC_MAX || (n > 0 && n < 10))
        return why_fail(why, whylen, "want milliseconds, 0 or 10..%u", PLAN_LOG_MSEC_MAX);
    *out = (uint32_t)n;
    return 0;
}

int plan_log_set(struct job_log *l, const char *key, const char *value, char *why, size_t whylen)
{
    uint64_t n;
    uint8_t b;

    if (why && whylen)
        why[0] = '\0';
    if (!value)
        value = "";
    for (int t = 0; t < PLAN_LOG__COUNT; t++) {
        char *pfx = l->prefix + (size_t)t * PLAN_LOG_PREFIX_MAX;

        if (strcmp(key, log_keys[t]))
            continue;
        if (!strcmp(value, "0")) {
            l->mask &= (uint8_t)~(1u << t);
            pfx[0] = '\0';
            return 0;
        }
        if (strlen(value) >= PLAN_LOG_PREFIX_MAX)
            return why_fail(why, whylen, "file prefix longer than %d bytes", PLAN_LOG_PREFIX_MAX - 1);
        if (strchr(value, '\n'))
            return why_fail(why, whylen, "file prefix holds a newline");
        snprintf(pfx, PLAN_LOG_PREFIX_MAX, "%s", strcmp(value, "1") ? value : "");
        l->mask |= (uint8_t)(1u << t);
        return 0;
    }
    if (!strcmp(key, "log_avg_msec"))
        return parse_msec(value, &l->avg_msec, why, whylen);
    if (!strcmp(key, "log_hist_msec"))
        return parse_msec(value, &l->hist_msec, why, whylen);
    if (!strcmp(key, "log_hist_coarseness")) {
        if (units_parse_u64(value, &n) || n > 10)
            return why_fail(why, whylen, "want 0..10 (2^N bins merged into one)");
        l->hist_coarseness = (uint32_t)n;
        return 0;
    }
    {
        static const struct { const char *key; size_t off; } flags[] = {
            { "per_job_logs", offsetof(struct job_log, per_job_logs) },
            { "log_offset", offsetof(struct job_log, log_offset) },
            { "log_max_value", offsetof(struct job_log, log_max_value) },
            { "clat_percentiles", offsetof(struct job_log, clat_percentiles) },
            { "lat_percentiles", offsetof(struct job_log, lat_percentiles) },
        };
        for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
            if (strcmp(key, flags[i].key))
                continue;
            if (parse_bool(value, &b))
                return why_fail(why, whylen, "want 0 or 1");
            *((uint8_t *)l + flags[i].off) = b;
            return 0;
        }
    }
    return -ENOENT;
}

const char *plan_log_prefix(const struct job_log *l, enum plan_log_type t, const char *name)
{
    const char *p = l->prefix + (size_t)t * PLAN_LOG_PREFIX_MAX;

    return *p ? p : name;
}
