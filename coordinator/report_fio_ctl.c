/* report_fio_ctl: phase control in fio's JSON layout (report_fio_ctl.h).
 *
 * fio writes, per job with ss_dur set, a "steadystate" object: "ss" as
 * "iops:5.000000%" (criterion name, "_slope", the limit, "%" when it is a
 * percentage), "duration" (ss_dur, whole seconds), "attained" (0 or 1),
 * "criterion" as "%f" with "%" (the max deviation or the slope, in percent
 * of the window's mean when the limit is), "max_deviation" and "slope"
 * (the one not judged is 0), and "data": the window's per-second samples
 * "iops" and "bw" (bytes/s, integers) with their integer means.  nfstorm's
 * samples are the phase's intervals (--interval) converted to per-second
 * rates, the window the one phase_ctl judged last: the ceil(ss_dur /
 * interval) intervals ending where steady state was attained, else the last
 * complete ones; missing samples (a phase shorter than the window) are 0,
 * as fio's unfilled slots.  nfstorm's slope is its magnitude, fio's keeps
 * the sign. */
#include "coordinator/report_fio_ctl.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/plan_ctl.h"
#include "common/xmalloc.h"
#include "coordinator/phase_ctl.h"

static void latency_fields(json_t *job, const struct phase_result *ph, uint32_t nagents, int agent)
{
    const struct phase_end_info *c = &ph->ctl;
    uint64_t depth = 0;
    int ended = 1;

    if (!c->lat_target_us)
        return;
    /* the depth found (0: even 1 missed), once every search taking part
     * ended; until then latency_depth stays the job's iodepth */
    for (uint32_t a = 0; a < nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        if ((agent >= 0 && (uint32_t)agent != a) || !ap->participating)
            continue;
        ended &= ap->lat_depth || ap->lat_unmet;
        depth += ap->lat_depth;
    }
    if (ended)
        json_object_set_new(job, "latency_depth", json_integer((json_int_t)depth));
    json_object_set_new(job, "latency_target", json_integer(c->lat_target_us));
    json_object_set_new(job, "latency_percentile", json_real(c->lat_pct));
    json_object_set_new(job, "latency_window", json_integer(c->lat_window_us));
}

/* The window's samples: per-second IOPS and bytes/s of interval k (reads
 * and writes), of the fleet or of one agent. */
static void sample(const struct phase_result *ph, uint32_t k, int agent, double dt, double *iops,
                   double *bw)
{
    const struct interval_slot *s = &ph->intervals[k];
    uint64_t ops, bytes;

    if (agent < 0) {
        ops = s->count[OP_READ].ops + s->count[OP_WRITE].ops;
        bytes = s->count[OP_READ].bytes + s->count[OP_WRITE].bytes;
    } else {
        struct counters c;

        result_slot_agent(s, (uint32_t)agent, &c);
        ops = c.ops[OP_READ] + c.ops[OP_WRITE];
        bytes = c.bytes[OP_READ] + c.bytes[OP_WRITE];
    }
    *iops = (double)ops / dt;
    *bw = (double)bytes / dt;
}

static void steadystate(json_t *job, const struct phase_result *ph, int agent)
{
    const struct phase_end_info *c = &ph->ctl;
    int slope = c->ss == PLAN_SS_IOPS_SLOPE || c->ss == PLAN_SS_BW_SLOPE;
    int bw = c->ss == PLAN_SS_BW || c->ss == PLAN_SS_BW_SLOPE;
    double dt = (double)ph->interval_ms / 1000.0;
    double value = isfinite(c->ss_value) ? c->ss_value : 0, crit;
    uint32_t w = phase_ctl_ss_window(ph), ramp = phase_ctl_ss_first(ph), end, start, got = 0;
    json_t *o = json_object(), *data = json_object(), *ai = json_array(), *ab = json_array();
    uint64_t sum_i = 0, sum_b = 0;
    char buf[96];

    snprintf(buf, sizeof buf, "%s%s:%f%s", bw ? "bw" : "iops", slope ? "_slope" : "", c->ss_limit,
             c->ss_pct ? "%" : "");
    json_object_set_new(o, "ss", json_string(buf));
    json_object_set_new(o, "duration", json_integer((json_int_t)((c->ss_dur_ns + 500000000ull) / 1000000000ull)));
    json_object_set_new(o, "attained", json_integer(c->ss_attained ? 1 : 0));
    crit = c->ss_pct ? (c->ss_mean > 0 ? 100.0 * value / c->ss_mean : 0) : value;
    snprintf(buf, sizeof buf, "%f%s", crit, c->ss_pct ? "%" : "");
    json_object_set_new(o, "criterion", json_string(buf));
    json_object_set_new(o, "max_deviation", json_real(slope ? 0.0 : value));
    json_object_set_new(o, "slope", json_real(slope ? value : 0.0));
    /* the window phase_ctl judged last: ending where it was attained, else
     * at the last complete interval; never before ss_ramp */
    if (c->ss_attained && dt > 0)
        end = (uint32_t)llround(c->ss_at_s / dt);
    else
        end = ph->nintervals > 1 ? ph->nintervals - 1 : ph->nintervals;
    if (end > ph->nintervals)
        end = ph->nintervals;
    start = end > w ? end - w : 0;
    if (start < ramp)
        start = ramp;
    for (uint32_t k = start; k < end && dt > 0 && got < w; k++, got++) {
        double vi, vb;
        sample(ph, k, agent, dt, &vi, &vb);
        json_array_append_new(ai, json_integer((json_int_t)llround(vi)));
        json_array_append_new(ab, json_integer((json_int_t)llround(vb)));
        sum_i += (uint64_t)llround(vi);
        sum_b += (uint64_t)llround(vb);
    }
    for (; got < w; got++) {      /* fio's unfilled slots */
        json_array_append_new(ai, json_integer(0));
        json_array_append_new(ab, json_integer(0));
    }
    json_object_set_new(data, "bw_mean", json_integer((json_int_t)(w ? sum_b / w : 0)));
    json_object_set_new(data, "iops_mean", json_integer((json_int_t)(w ? sum_i / w : 0)));
    json_object_set_new(data, "iops", ai);
    json_object_set_new(data, "bw", ab);
    json_object_set_new(o, "data", data);
    json_object_set_new(job, "steadystate", o);
}

void report_fio_ctl(json_t *job, const struct phase_result *ph, uint32_t nagents, int agent)
{
    latency_fields(job, ph, nagents, agent);
    if (ph->ctl.ss != PLAN_SS_NONE && ph->ctl.ss_dur_ns > 0)
        steadystate(job, ph, agent);
}
