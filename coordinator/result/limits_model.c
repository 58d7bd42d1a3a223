/* limits_model: forecast and judgement against declared limits
 * (limits_model.h says the rules; this file applies them). */
#include "coordinator/result/limits_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "coordinator/result/result.h"

/* Share of a job's bytes that are reads. */
static double read_share(const struct job_spec *j)
{
    switch (j->rw) {
    case RW_READ: case RW_RANDREAD:
        return 1;
    case RW_WRITE: case RW_RANDWRITE:
        return 0;
    case RW_RW: case RW_RANDRW:
        return j->rwmixread / 100.0;
    default:
        return -1;           /* metadata, coherence: no bulk bytes to forecast */
    }
}

static uint32_t agents_running(const struct job_spec *j, uint32_t nagents)
{
    uint32_t n = 0;
    if (!j->agents[0] || j->agents[0] == '@')
        return nagents;
    for (uint32_t a = 0; a < nagents; a++)
        n += plan_agents_match(j->agents, a) != 0;
    return n;
}

/* A job's asked rate per thread, reads and writes (bytes/s); a direction
 * it moves bytes in without a limit is INFINITY. */
static void job_rate(const struct job_spec *j, double share, double *r, double *w)
{
    double bs_w = j->bs_w ? (double)j->bs_w : (double)j->bs;
    if (j->rate_per_dir) {
        double rr = j->rate_bps ? (double)j->rate_bps : j->rate_iops ? (double)j->rate_iops * (double)j->bs : INFINITY;
        double ww = j->rate_w_bps ? (double)j->rate_w_bps : j->rate_w_iops ? (double)j->rate_w_iops * bs_w : INFINITY;
        *r = share > 0 ? rr : 0;
        *w = share < 1 ? ww : 0;
        return;
    }
    double t = j->rate_bps ? (double)j->rate_bps : j->rate_iops ? (double)j->rate_iops * (double)j->bs : INFINITY;
    *r = share > 0 ? t * share : 0;
    *w = share < 1 ? t * (1 - share) : 0;
}

void limits_forecast(const struct limits *l, const struct plan *p, uint32_t nagents, struct limits_forecast *f)
{
    memset(f, 0, sizeof *f);
    f->load_known = 1;
    f->drain_s = -1;
    for (uint32_t i = 0; i < p->nphases && f->load_known; i++) {
        const struct phase *ph = &p->phases[i];
        double rsum = 0, wsum = 0, dur = 0, share_r = 0, share_n = 0, nag_max = 0;
        int open = 0;

        for (uint32_t k = 0; k < ph->njobs; k++) {
            const struct job_spec *j = &ph->jobs[k];
            double share = read_share(j), r, w, threads, per_thread, bytes, jd;
            uint32_t nag = agents_running(j, nagents);

            if (share < 0 || nag == 0)
                continue;
            if (nag > nag_max)
                nag_max = nag;
            threads = (double)j->numjobs * nag;
            job_rate(j, share, &r, &w);
            share_r += share * threads;
            share_n += threads;
            per_thread = r + w;
            bytes = (double)(j->io_size ? j->io_size : j->size) * (j->loops ? j->loops : 1);
            if (isinf(r) || isinf(w))
                open = 1;
            /* how long the job runs: its runtime, or its bytes at its rate */
            if (j->runtime_ns && (j->time_based || isinf(per_thread) || bytes / per_thread >= j->runtime_ns / 1e9))
                jd = j->runtime_ns / 1e9;
            else if (!isinf(per_thread) && per_thread > 0)
                jd = bytes / per_thread;
            else
                jd = -1;
            if (jd < 0) {
                snprintf(f->unknown_why, sizeof f->unknown_why,
                         "phase %s: no runtime and no rate limit: how long it runs is not known", ph->name);
                f->load_known = 0;
                break;
            }
            jd += (j->startdelay_ns + j->ramp_ns) / 1e9;
            if (jd > dur)
                dur = jd;
            if (!isinf(r))
                rsum += r * threads;
            if (!isinf(w))
                wsum += w * threads;
        }
        if (!f->load_known)
            break;
        double sr = share_n > 0 ? share_r / share_n : 0;     /* the phase's read share */
        double meter = sr * l->read_metering + (1 - sr) * l->write_metering;
        double raw = open ? INFINITY : rsum + wsum;
        /* the service carries no more than its caps: per client x agents
         * (raw bytes), the file system and the burst rate (metered bytes) */
        double cap = INFINITY;
        if (l->client_bps > 0 && nag_max > 0)
            cap = fmin(cap, l->client_bps * nag_max);
        if (l->fs_bps > 0 && meter > 0)
            cap = fmin(cap, l->fs_bps / meter);
        if (l->has_credits && limits_burst_bps(l) > 0 && meter > 0)
            cap = fmin(cap, limits_burst_bps(l) / meter);
        if (open) {
            if (isinf(cap)) {
                snprintf(f->unknown_why, sizeof f->unknown_why,
                         "phase %s: no rate limit and no declared cap: its load is not known", ph->name);
                f->load_known = 0;
                break;
            }
            f->from_caps = 1;
        }
        if (raw > cap) {
            /* keep the phase's read/write mix, cut to the cap */
            rsum = cap * sr;
            wsum = cap * (1 - sr);
        }
        f->read_bytes += rsum * dur;
        f->write_bytes += wsum * dur;
        f->duration_s += dur;
    }
    if (!f->load_known)
        return;
    f->metered_bytes = f->read_bytes * l->read_metering + f->write_bytes * l->write_metering;
    f->metered_bps = f->duration_s > 0 ? f->metered_bytes / f->duration_s : 0;
    if (l->has_credits) {
        f->baseline_bps = limits_baseline_bps(l);
        f->burst_bps = limits_burst_bps(l);
        if (f->metered_bps > f->baseline_bps)
            f->drain_s = l->credits_initial / (f->metered_bps - f->baseline_bps);
        f->shorter_than_drain = f->drain_s < 0 || f->duration_s < f->drain_s;
    }
    f->cost_read = f->read_bytes / 1e9 * l->read_per_gb;
    f->cost_write = f->write_bytes / 1e9 * l->write_per_gb;
    f->cost_time = f->duration_s / 3600 * l->per_hour;
    f->cost = f->cost_read + f->cost_write + f->cost_time;
}

enum limits_judgement limits_judge(double measured, double cap)
{
    if (cap <= 0 || measured <= 0)
        return LIMITS_NO_CAP;
    if (measured > cap * (1 + LIMITS_AT_CAP_PCT / 100))
        return LIMITS_ABOVE;
    if (measured >= cap * (1 - LIMITS_AT_CAP_PCT / 100))
        return LIMITS_AT_CAP;
    return LIMITS_BELOW;
}

const char *limits_judgement_text(enum limits_judgement j, const char *which, char *buf, size_t len)
{
    static const char *const lead[] = { "no declared", "below the declared", "limited by the declared" };

    if (j == LIMITS_ABOVE)
        snprintf(buf, len, "faster than the declared cap: cache?");
    else
        snprintf(buf, len, "%s %s cap", lead[(unsigned)j <= LIMITS_AT_CAP ? j : LIMITS_NO_CAP], which);
    return buf;
}

const char *limits_judgement_name(enum limits_judgement j)
{
    static const char *const n[] = { "none", "below", "at_cap", "above" };
    return n[j];
}

void limits_rates(const struct limits *l, const struct run_result *r, uint32_t phase, uint32_t agent,
                  struct limits_rates *out)
{
    const struct phase_result *ph = &r->phases[phase];
    double rb = 0, wb = 0, ops = 0, dur;

    memset(out, 0, sizeof *out);
    if (!ph->ran && !ph->finished)
        return;
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct op_set_sealed *s = &ph->agents[a].sealed;
        if (agent != UINT32_MAX && a != agent)
            continue;
        rb += (double)s->count[OP_READ].bytes;
        wb += (double)s->count[OP_WRITE].bytes;
        for (int t = 0; t < OP__COUNT; t++)
            ops += (double)s->count[t].ops;
    }
    dur = (agent == UINT32_MAX ? ph->duration_ns : ph->agents[agent].duration_ns) / 1e9;
    if (dur <= 0)
        return;
    out->duration_s = dur;
    out->bps = (rb + wb) / dur;
    out->iops = ops / dur;
    out->metered_bps = (rb * l->read_metering + wb * l->write_metering) / dur;
}

void limits_usage(const struct limits *l, const struct run_result *r, struct limits_usage *u)
{
    memset(u, 0, sizeof *u);
    u->exhausted_at_s = -1;
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];
        for (uint32_t a = 0; a < r->nagents; a++) {
            u->read_bytes += (double)ph->agents[a].sealed.count[OP_READ].bytes;
            u->write_bytes += (double)ph->agents[a].sealed.count[OP_WRITE].bytes;
        }
        u->duration_s += ph->duration_ns / 1e9;
    }
    u->metered_bytes = u->read_bytes * l->read_metering + u->write_bytes * l->write_metering;
    u->metered_bps = u->duration_s > 0 ? u->metered_bytes / u->duration_s : 0;
    if (l->has_credits) {
        double base = limits_baseline_bps(l);
        u->credits_used = u->metered_bytes - base * u->duration_s;
        u->credits_left = l->credits_initial - u->credits_used;
        if (u->credits_left < 0 && u->metered_bps > base)
            u->exhausted_at_s = l->credits_initial / (u->metered_bps - base);
    }
    u->cost_read = u->read_bytes / 1e9 * l->read_per_gb;
    u->cost_write = u->write_bytes / 1e9 * l->write_per_gb;
    u->cost_time = u->duration_s / 3600 * l->per_hour;
    u->cost = u->cost_read + u->cost_write + u->cost_time;
}

char *limits_fmt_duration(char *buf, size_t len, double s)
{
    if (s < 120)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, len, "%.0f min", s / 60);
    else if (s < 3 * 86400)
        snprintf(buf, len, "%.1f h", s / 3600);
    else
        snprintf(buf, len, "%.1f d", s / 86400);
    return buf;
}
