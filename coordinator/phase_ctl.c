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
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/plan_ctl.h"
#include "common/xmalloc.h"
#include "coordinator/phase_ctl.h"

void phase_ctl_begin(struct phase_result *pr, const struct phase *ph)
{
    struct phase_end_info *c = &pr->ctl;

    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < ph->njobs; i++)
        if (ph->jobs[i].latency_target_us && !c->lat_target_us) {
            c->lat_target_us = ph->jobs[i].latency_target_us;
            c->lat_window_us = ph->jobs[i].latency_window_us;
            c->lat_pct = ph->jobs[i].latency_pct_milli ? ph->jobs[i].latency_pct_milli / 1000.0 : 100.0;
        }
    for (uint32_t i = 0; i < ph->njobs; i++) {
        const struct job_spec *j = &ph->jobs[i];
        if (j->ss != PLAN_SS_NONE && j->ss_dur_ns > 0) {
            c->ss = j->ss;
            c->ss_limit = j->ss_limit;
            c->ss_pct = j->ss_pct;
            c->ss_dur_ns = j->ss_dur_ns;
            c->ss_ramp_ns = j->ss_ramp_ns;
            break;
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

    if (!j || pr->ctl.ended_early || !pr->agents[agent].participating)
        return 0;
    pr->ctl.ended_early = 1;
    snprintf(pr->ctl.why, sizeof pr->ctl.why, "exitall (job '%s'): agent %u finished first", j->name,
             agent);
    return 1;
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

int phase_ctl_interval(struct phase_result *pr, uint32_t k)
{
    struct phase_end_info *c = &pr->ctl;
    uint64_t iv_ns = (uint64_t)pr->interval_ms * 1000000ull;
    uint32_t w, first;
    double *v, limit, dt = (double)pr->interval_ms / 1000.0;
    int bw = c->ss == PLAN_SS_BW || c->ss == PLAN_SS_BW_SLOPE;

    if (c->ss == PLAN_SS_NONE || c->ss_attained || c->ended_early || iv_ns == 0 || k >= pr->nintervals)
        return 0;
    w = (uint32_t)((c->ss_dur_ns + iv_ns - 1) / iv_ns);
    if (w < 2)
        w = 2;
    /* the window's first interval must start at or after ss_ramp */
    first = (uint32_t)((c->ss_ramp_ns + iv_ns - 1) / iv_ns);
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
