/* phase_ctl: exitall and steady state, decided for the fleet (phase_ctl.h).
 *
 * Steady state follows fio's definition (HOWTO, steadystate): over a
 * rolling window of ss_dur, "iops"/"bw" holds when every sample is within
 * the limit of the window's mean, "iops_slope"/"bw_slope" when the
 * least-squares slope is; a limit with '%' is that percentage of the mean.
 * fio samples once a second per job; nfstorm's samples are the merged
 * intervals of the whole fleet (--interval, 1 s by default), so the window
 * holds ceil(ss_dur / interval) of them, and never fewer than two.  IOPS
 * and bandwidth count reads and writes (the data ops), as fio's do. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/plan_ctl.h"
#include "common/xmalloc.h"
#include "coordinator/run/phase_ctl.h"

void phase_ctl_begin(struct phase_result *pr, const struct phase *ph)
{
    struct phase_end_info *c = &pr->ctl;

    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < ph->njobs; i++) {   /* the first job with each */
        const struct job_spec *j = &ph->jobs[i];
        if (j->latency_target_us && !c->lat_target_us) {
            c->lat_target_us = j->latency_target_us;
            c->lat_window_us = j->latency_window_us;
            c->lat_pct = j->latency_pct_milli ? j->latency_pct_milli / 1000.0 : 100.0;
        }
        if (j->ss != PLAN_SS_NONE && j->ss_dur_ns > 0 && c->ss == PLAN_SS_NONE) {
            c->ss = j->ss;
            c->ss_limit = j->ss_limit;
            c->ss_pct = j->ss_pct;
            c->ss_dur_ns = j->ss_dur_ns;
            c->ss_ramp_ns = j->ss_ramp_ns;
        }
    }
}

static const struct job_spec *exitall_job(const struct phase *ph)
{
    for (uint32_t i = 0; i < ph->njobs; i++)
        if (ph->jobs[i].exitall)
            return &ph->jobs[i];
    return NULL;
}

int phase_ctl_agent_done(struct phase_result *pr, const struct phase *ph, uint32_t agent)
{
    const struct job_spec *j = exitall_job(ph);
    uint32_t n = 0;

    if (!j || pr->ctl.ended_early || !pr->agents[agent].participating)
        return 0;
    pr->ctl.ended_early = 1;
    for (uint32_t i = 0; i < ph->njobs; i++)
        n += ph->jobs[i].exitall != 0;
    /* the phase-done does not say which job finished: name it only when
     * one job has exitall (exitall in [global] gives it to every job) */
    if (n > 1)
        snprintf(pr->ctl.why, sizeof pr->ctl.why, "exitall (any of %u jobs): agent %u finished first", n,
                 agent);
    else
        snprintf(pr->ctl.why, sizeof pr->ctl.why, "exitall (job '%s'): agent %u finished first", j->name,
                 agent);
    return 1;
}

int phase_ctl_agent_error(struct phase_result *pr, const struct phase *ph, uint32_t agent,
                          const char *what)
{
    const char *q = strstr(what, "job '"), *e;
    const char *from = what;

    if (pr->ctl.ended_early || !q || !(e = strchr(q + 5, '\'')))
        return 0;
    /* the agent's text is "phase N: job 'NAME': ...": the job must be one
     * with exitall_on_error (another job's error fails the run as ever) */
    for (uint32_t i = 0; i < ph->njobs; i++) {
        const struct job_spec *j = &ph->jobs[i];
        if (!j->exitall_on_error || strlen(j->name) != (size_t)(e - q - 5) ||
            strncmp(j->name, q + 5, (size_t)(e - q - 5)) != 0)
            continue;
        if (strncmp(what, "phase ", 6) == 0 && strstr(what, ": ") && strstr(what, ": ") < q)
            from = q;       /* "phase N: " says nothing the report does not */
        pr->ctl.ended_early = 1;
        snprintf(pr->ctl.why, sizeof pr->ctl.why, "exitall_on_error: agent %u: %s", agent, from);
        return 1;
    }
    return 0;
}

int phase_ctl_end_run(const struct phase_result *pr, const struct phase *ph)
{
    const struct job_spec *j = exitall_job(ph);
    /* the phase ended by exitall, or every agent finished it together */
    return j && j->exit_what == PLAN_EXIT_ALL && pr->ran;
}

double phase_ctl_criterion(uint32_t ss, const double *v, uint32_t n, double dt_s, double *mean)
{
    double sum = 0, dev = 0, xm, sxy = 0, sxx = 0;

    for (uint32_t i = 0; i < n; i++)
        sum += v[i];
    *mean = n ? sum / n : 0;
    if (n == 0)
        return INFINITY;
    if (ss == PLAN_SS_IOPS || ss == PLAN_SS_BW) {
        for (uint32_t i = 0; i < n; i++)
            if (fabs(v[i] - *mean) > dev)
                dev = fabs(v[i] - *mean);
        return dev;
    }
    xm = (double)(n - 1) / 2.0;
    for (uint32_t i = 0; i < n; i++) {
        sxy += ((double)i - xm) * (v[i] - *mean);
        sxx += ((double)i - xm) * ((double)i - xm);
    }
    return sxx > 0 ? fabs(sxy / sxx) / dt_s : INFINITY;
}

uint32_t phase_ctl_ss_window(const struct phase_result *pr)
{
    uint64_t iv_ns = (uint64_t)pr->interval_ms * 1000000ull;
    uint32_t w;

    if (iv_ns == 0)
        return 0;
    w = (uint32_t)((pr->ctl.ss_dur_ns + iv_ns - 1) / iv_ns);
    return w < 2 ? 2 : w;
}

uint32_t phase_ctl_ss_first(const struct phase_result *pr)
{
    uint64_t iv_ns = (uint64_t)pr->interval_ms * 1000000ull;

    return iv_ns ? (uint32_t)((pr->ctl.ss_ramp_ns + iv_ns - 1) / iv_ns) : 0;
}

int phase_ctl_interval(struct phase_result *pr, uint32_t k)
{
    struct phase_end_info *c = &pr->ctl;
    uint64_t iv_ns = (uint64_t)pr->interval_ms * 1000000ull;
    uint32_t w, first;
    double *v, limit, dt = (double)pr->interval_ms / 1000.0;
    int bw = c->ss == PLAN_SS_BW || c->ss == PLAN_SS_BW_SLOPE;

    if (c->ss == PLAN_SS_NONE || c->ss_attained || c->ended_early || iv_ns == 0 || k >= pr->nintervals)
        return 0;
    w = phase_ctl_ss_window(pr);
    /* the window's first interval must start at or after ss_ramp */
    first = phase_ctl_ss_first(pr);
    if ((uint64_t)k + 1 < (uint64_t)first + w)
        return 0;
    v = xmalloc(w * sizeof *v);
    for (uint32_t i = 0; i < w; i++) {
        const struct interval_slot *s = &pr->intervals[k + 1 - w + i];
        uint64_t x = bw ? s->count[OP_READ].bytes + s->count[OP_WRITE].bytes
                        : s->count[OP_READ].ops + s->count[OP_WRITE].ops;
        v[i] = (double)x / dt;
    }
    c->ss_value = phase_ctl_criterion(c->ss, v, w, dt, &c->ss_mean);
    free(v);
    limit = c->ss_pct ? c->ss_limit / 100.0 * c->ss_mean : c->ss_limit;
    if (!(c->ss_mean > 0) || !(c->ss_value <= limit))
        return 0;
    c->ss_attained = 1;
    c->ss_at_s = (double)(k + 1) * dt;
    c->ended_early = 1;
    snprintf(c->why, sizeof c->why, "steady state (%s:%g%s) at %.1f s", plan_ss_name((enum plan_ss)c->ss),
             c->ss_limit, c->ss_pct ? "%" : "", c->ss_at_s);
    return 1;
}

json_t *phase_ctl_json(const struct phase_result *pr, uint32_t nagents)
{
    const struct phase_end_info *c = &pr->ctl;
    json_t *o, *ss;

    if (!c->ended_early && !c->skipped && c->ss == PLAN_SS_NONE && !c->lat_target_us)
        return NULL;
    o = json_object();
    json_object_set_new(o, "ended_early", json_boolean(c->ended_early));
    json_object_set_new(o, "why", json_string(c->why));
    json_object_set_new(o, "skipped", json_boolean(c->skipped));
    if (c->ss != PLAN_SS_NONE) {
        ss = json_object();
        json_object_set_new(ss, "ss", json_string(plan_ss_name((enum plan_ss)c->ss)));
        json_object_set_new(ss, "limit", json_real(c->ss_limit));
        json_object_set_new(ss, "pct", json_boolean(c->ss_pct));
        json_object_set_new(ss, "duration_s", json_real((double)c->ss_dur_ns / 1e9));
        json_object_set_new(ss, "ramp_s", json_real((double)c->ss_ramp_ns / 1e9));
        json_object_set_new(ss, "attained", json_integer(c->ss_attained));
        json_object_set_new(ss, "criterion", json_real(isfinite(c->ss_value) ? c->ss_value : -1));
        json_object_set_new(ss, "mean", json_real(c->ss_mean));
        json_object_set_new(ss, "at_s", json_real(c->ss_at_s));
        json_object_set_new(o, "steadystate", ss);
    }
    if (c->lat_target_us) {
        json_t *lt = json_object(), *depth = json_array();
        uint64_t fleet = 0;
        int all = 1;
        for (uint32_t a = 0; a < nagents; a++) {
            const struct agent_phase *ap = &pr->agents[a];
            if (!ap->participating)
                continue;
            if (ap->lat_depth || ap->lat_unmet)
                json_array_append_new(depth, json_integer(ap->lat_depth));
            else
                json_array_append_new(depth, json_null());
            all &= ap->lat_depth || ap->lat_unmet;
            fleet += ap->lat_depth;
        }
        json_object_set_new(lt, "target_us", json_integer(c->lat_target_us));
        json_object_set_new(lt, "window_us", json_integer(c->lat_window_us));
        json_object_set_new(lt, "percentile", json_real(c->lat_pct));
        json_object_set_new(lt, "depth", depth);
        json_object_set_new(lt, "fleet_depth", all ? json_integer((json_int_t)fleet) : json_null());
        json_object_set_new(o, "latency_target", lt);
    }
    return o;
}

int phase_ctl_lat_reason(const struct phase_result *pr, uint32_t nagents, char *buf, size_t len)
{
    const struct phase_end_info *c = &pr->ctl;
    uint32_t ended = 0, unmet = 0, first_unmet = 0;
    uint64_t fleet = 0;

    if (!c->lat_target_us)
        return 0;
    for (uint32_t a = 0; a < nagents; a++) {
        const struct agent_phase *ap = &pr->agents[a];
        if (!ap->participating || !(ap->lat_depth || ap->lat_unmet))
            continue;
        if (ap->lat_unmet && unmet++ == 0)
            first_unmet = a;
        ended++;
        fleet += ap->lat_depth;
    }
    if (!ended)
        return 0;
    if (unmet)
        snprintf(buf, len, "latency target %llu us (p%g) missed at depth 1 on %u agent%s (first: agent %u): "
                 "their figures are at depth 1, over the target",
                 (unsigned long long)c->lat_target_us, c->lat_pct, unmet, unmet == 1 ? "" : "s",
                 first_unmet);
    else
        snprintf(buf, len, "latency target %llu us (p%g): depth found on %u agent%s (fleet depth %llu), "
                 "the search ended the phase", (unsigned long long)c->lat_target_us, c->lat_pct, ended,
                 ended == 1 ? "" : "s", (unsigned long long)fleet);
    return 1;
}

static int load_num(const json_t *o, const char *key, double lo, double hi, double *out,
                    char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (!v || !json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi)) {
        snprintf(err, errlen, "%s: want a number from %g to %g", key, lo, hi);
        return -EINVAL;
    }
    *out = json_number_value(v);
    return 0;
}

static int load_flag(const json_t *o, const char *key, uint8_t *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (!v || !json_is_boolean(v)) {
        snprintf(err, errlen, "%s: want true or false", key);
        return -EINVAL;
    }
    *out = json_is_true(v);
    return 0;
}

int phase_ctl_load(struct phase_result *pr, uint32_t nagents, const json_t *ctl, char *err,
                   size_t errlen)
{
    struct phase_end_info *c = &pr->ctl;
    const json_t *why, *ss, *lt;
    double x;

    memset(c, 0, sizeof *c);
    if (!ctl)
        return 0;
    why = json_object_get(ctl, "why");
    if (!json_is_object(ctl) || !json_is_string(why) || strlen(json_string_value(why)) >= sizeof c->why) {
        snprintf(err, errlen, "why: want a string of at most %zu bytes", sizeof c->why - 1);
        return -EINVAL;
    }
    snprintf(c->why, sizeof c->why, "%s", json_string_value(why));
    if (load_flag(ctl, "ended_early", &c->ended_early, err, errlen) < 0 ||
        load_flag(ctl, "skipped", &c->skipped, err, errlen) < 0)
        return -EINVAL;
    if ((ss = json_object_get(ctl, "steadystate"))) {
        const json_t *name = json_object_get(ss, "ss");
        uint8_t pct;
        c->ss = PLAN_SS_NONE;
        for (uint32_t i = PLAN_SS_IOPS; i <= PLAN_SS_BW_SLOPE && json_is_string(name); i++)
            if (strcmp(json_string_value(name), plan_ss_name((enum plan_ss)i)) == 0)
                c->ss = i;
        if (c->ss == PLAN_SS_NONE) {
            snprintf(err, errlen, "steadystate.ss: want iops, iops_slope, bw or bw_slope");
            return -EINVAL;
        }
        if (load_num(ss, "limit", 0, 1e300, &c->ss_limit, err, errlen) < 0 ||
            load_flag(ss, "pct", &pct, err, errlen) < 0 ||
            load_num(ss, "duration_s", 0, 1e10, &x, err, errlen) < 0)
            return -EINVAL;
        c->ss_pct = pct;
        c->ss_dur_ns = (uint64_t)(x * 1e9 + 0.5);
        if (load_num(ss, "ramp_s", 0, 1e10, &x, err, errlen) < 0)
            return -EINVAL;
        c->ss_ramp_ns = (uint64_t)(x * 1e9 + 0.5);
        if (load_num(ss, "attained", 0, 1, &x, err, errlen) < 0)
            return -EINVAL;
        c->ss_attained = x != 0;
        if (load_num(ss, "criterion", -1, 1e300, &c->ss_value, err, errlen) < 0 ||
            load_num(ss, "mean", 0, 1e300, &c->ss_mean, err, errlen) < 0 ||
            load_num(ss, "at_s", 0, 1e10, &c->ss_at_s, err, errlen) < 0)
            return -EINVAL;
        if (c->ss_value < 0)
            c->ss_value = INFINITY;
    }
    if ((lt = json_object_get(ctl, "latency_target"))) {
        const json_t *depth = json_object_get(lt, "depth");
        size_t k = 0;
        if (load_num(lt, "target_us", 1, UINT32_MAX, &x, err, errlen) < 0)
            return -EINVAL;
        c->lat_target_us = (uint32_t)x;
        if (load_num(lt, "window_us", 0, UINT32_MAX, &x, err, errlen) < 0 ||
            load_num(lt, "percentile", 0, 100, &c->lat_pct, err, errlen) < 0)
            return -EINVAL;
        c->lat_window_us = (uint32_t)x;
        if (!json_is_array(depth) || json_array_size(depth) > nagents) {
            snprintf(err, errlen, "latency_target.depth: want an array of at most %u depths", nagents);
            return -EINVAL;
        }
        /* one per participating agent, in index order */
        for (uint32_t a = 0; a < nagents; a++) {
            const json_t *d;
            if (!pr->agents[a].participating)
                continue;
            if (k >= json_array_size(depth)) {
                snprintf(err, errlen, "latency_target.depth: fewer depths than agents taking part");
                return -EINVAL;
            }
            d = json_array_get(depth, k++);
            if (json_is_null(d))
                continue;
            if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > PLAN_MAX_IODEPTH) {
                snprintf(err, errlen, "latency_target.depth: want null or 0..%d", PLAN_MAX_IODEPTH);
                return -EINVAL;
            }
            pr->agents[a].lat_depth = (uint32_t)json_integer_value(d);
            pr->agents[a].lat_unmet = json_integer_value(d) == 0;
        }
    }
    return 0;
}
