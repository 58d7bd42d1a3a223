/* plan_ctl: parsing fio's phase control keys (see plan_ctl.h).
 *
 * Kept out of plan_keys.c's table so the one concept (how a phase ends
 * early, how jobs wait for each other) is read in one place; plan_keys.c
 * asks plan_ctl_is_key and hands the value over. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/plan_ctl.h"
#include "common/plan_parse.h"
#include "common/units.h"
#include "common/why.h"
#include "common/names.h"

static const char *const ss_names[] = { "none", "iops", "iops_slope", "bw", "bw_slope" };
static const char *const exit_names[] = { "group", "stonewall", "all" };

enum ctl_key { C_EXITALL, C_EXITALL_ERR, C_EXIT_WHAT, C_WAIT_FOR, C_SS, C_SS_DUR, C_SS_RAMP, C_LAT_TARGET,
               C_LAT_WINDOW, C_LAT_PCT };

static const struct {
    const char *name;
    enum ctl_key key;
} ctl_keys[] = {
    { "exitall", C_EXITALL }, { "exitall_on_error", C_EXITALL_ERR }, { "exit_what", C_EXIT_WHAT }, { "wait_for", C_WAIT_FOR },
    { "steadystate", C_SS }, { "ss", C_SS },
    { "steadystate_duration", C_SS_DUR }, { "ss_dur", C_SS_DUR },
    { "steadystate_ramp_time", C_SS_RAMP }, { "ss_ramp", C_SS_RAMP },
    { "latency_target", C_LAT_TARGET }, { "latency_window", C_LAT_WINDOW },
    { "latency_percentile", C_LAT_PCT },
};

static int lookup(const char *key)
{
    for (size_t i = 0; key && i < sizeof ctl_keys / sizeof ctl_keys[0]; i++)
        if (strcmp(ctl_keys[i].name, key) == 0)
            return (int)ctl_keys[i].key;
    return -1;
}

int plan_ctl_is_key(const char *key)
{
    return lookup(key) >= 0;
}

const char *plan_ss_name(enum plan_ss s)
{
    return names_word(ss_names, NELEM(ss_names), s);
}

const char *plan_exit_what_name(enum plan_exit_what w)
{
    return names_word(exit_names, NELEM(exit_names), w);
}

/* "iops_slope:0.1%", "bw:2m" (a bandwidth limit takes a size, bytes/s) */
static int parse_ss(struct job_spec *j, const char *v, char *why, size_t whylen)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    int crit = -1;
    char num[64];
    char *end;
    double limit;
    size_t ln;
    int pct;

    for (int i = 1; i < (int)(sizeof ss_names / sizeof ss_names[0]); i++)
        if (strlen(ss_names[i]) == n && strncmp(ss_names[i], v, n) == 0)
            crit = i;
    if (crit < 0 || !colon)
        return why_fail(why, whylen, "want CRITERION:LIMIT, CRITERION one of iops, iops_slope, bw, "
                        "bw_slope, e.g. iops_slope:0.1%%");
    ln = strlen(colon + 1);
    pct = ln > 0 && colon[ln] == '%';
    if (ln == 0 || ln - (size_t)pct >= sizeof num)
        return why_fail(why, whylen, "want a limit after ':' (a number, or a percentage like 2%%)");
    memcpy(num, colon + 1, ln - (size_t)pct);
    num[ln - (size_t)pct] = '\0';
    errno = 0;
    limit = strtod(num, &end);
    if (*end && !pct && (crit == PLAN_SS_BW || crit == PLAN_SS_BW_SLOPE)) {
        uint64_t bytes;
        if (units_parse_size(num, &bytes) < 0)
            return why_fail(why, whylen, "bad limit '%s'", num);
        limit = (double)bytes;
    } else if (*end || errno || !isfinite(limit) || limit < 0 || (pct && limit > 100)) {
        return why_fail(why, whylen, "bad limit '%s' (want a number >= 0, or 0%%..100%%)", colon + 1);
    }
    j->ss = (uint32_t)crit;
    j->ss_limit = limit;
    j->ss_pct = pct;
    return 0;
}

int plan_ctl_set(struct job_spec *j, const char *key, const char *value, char *why, size_t whylen)
{
    int k = lookup(key), w;
    uint64_t ns;

    if (why && whylen)
        why[0] = '\0';
    if (k < 0)
        return -ENOENT;
    if (!value)
        value = "";
    switch ((enum ctl_key)k) {
    case C_EXITALL:
    case C_EXITALL_ERR: {
        uint32_t *f = k == C_EXITALL ? &j->exitall : &j->exitall_on_error;
        if (!value[0] || strcmp(value, "1") == 0)
            *f = 1;
        else if (strcmp(value, "0") == 0)
            *f = 0;
        else
            return why_fail(why, whylen, "a flag: give it alone, or 0 or 1");
        return 0;
    }
    case C_EXIT_WHAT:
        if ((w = names_index(exit_names, NELEM(exit_names), value)) < 0)
            return why_fail(why, whylen, "want group, stonewall or all");
        j->exit_what = (uint32_t)w;
        return 0;
    case C_WAIT_FOR:
        if (!value[0] || strlen(value) >= sizeof j->wait_for)
            return why_fail(why, whylen, "want the name of an earlier job (at most %zu characters)",
                            sizeof j->wait_for - 1);
        memcpy(j->wait_for, value, strlen(value) + 1);
        return 0;
    case C_SS:
        return parse_ss(j, value, why, whylen);
    case C_SS_DUR:
    case C_SS_RAMP:
        /* fio: a number without a unit is seconds */
        if (units_parse_duration(value, 1000000000ull, &ns) < 0 || ns > PLAN_MAX_TIME_NS)
            return why_fail(why, whylen, "want a duration, e.g. 30s");
        *(k == C_SS_DUR ? &j->ss_dur_ns : &j->ss_ramp_ns) = ns;
        return 0;
    case C_LAT_TARGET:
    case C_LAT_WINDOW:
        /* fio: a number without a unit is microseconds */
        if (units_parse_duration(value, 1000ull, &ns) < 0 || ns < 1000 || ns / 1000 > UINT32_MAX)
            return why_fail(why, whylen, "want a duration from 1us to 71m (a number is microseconds)");
        *(k == C_LAT_TARGET ? &j->latency_target_us : &j->latency_window_us) = (uint32_t)(ns / 1000);
        return 0;
    case C_LAT_PCT: {
        char *end;
        double pct;
        errno = 0;
        pct = strtod(value, &end);
        if (!value[0] || *end || errno || !(pct > 0 && pct <= 100))
            return why_fail(why, whylen, "want a percentage above 0 up to 100");
        j->latency_pct_milli = (uint32_t)llround(pct * 1000);
        return 0;
    }
    }
    return -ENOENT;
}

int plan_ctl_wait_for(const struct plan *p, struct job_spec *j, char *err, size_t errlen)
{
    uint32_t found = 0, in_last = 0;

    if (!j->wait_for[0])
        return 0;
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t k = 0; k < p->phases[i].njobs; k++)
            if (strcmp(p->phases[i].jobs[k].name, j->wait_for) == 0) {
                found++;
                in_last = i + 1 == p->nphases;
            }
    if (found == 0 || found > 1)
        return why_fail(err, errlen, "job '%s': wait_for=%s: %s", j->name, j->wait_for,
                        found ? "more than one earlier job has that name (a waitee's name must be unique)"
                              : strcmp(j->wait_for, j->name) == 0 ? "a job cannot wait for itself"
                              : "no earlier job of that name (the waitee must come first)");
    if (in_last)
        j->stonewall = 1;
    return 0;
}
