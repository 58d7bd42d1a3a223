/* sweep: choosing, judging and searching load points (see sweep.h).
 *
 * A point is judged on the phase's final result: throughput from the
 * successful ops over the measured time (the fleet's over the longest
 * agent's, each agent's over its own), latency from the merged histogram of
 * every op type (never an average of percentiles), and the coefficient of
 * variation over the complete intervals after ramp_time.  SPEC's validity
 * rules are sweep_valid=: achieved >= X% of the request, every agent >= Y%
 * of its share, CV <= Z%.  A search takes a point as passing when it is
 * valid and meets the SLO. */
#include "coordinator/run/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "coordinator/result/result.h"

static const struct job_spec *phase_sweep_job(const struct plan *p, uint32_t i)
{
    return p->phases[i].njobs == 1 && p->phases[i].jobs[0].sweep.dim ? &p->phases[i].jobs[0] : NULL;
}

int sweep_set_new(const struct plan *p, uint32_t nagents, struct sweep_set **out, char *err, size_t errlen)
{
    struct sweep_set *s = NULL;
    *out = NULL;
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct job_spec *j = phase_sweep_job(p, i);
        if (!j || j->sweep.point != 0)
            continue;
        if (!s) {
            s = xcalloc(1, sizeof *s);
            s->nagents = nagents;
        }
        s->runs = xrealloc(s->runs, (s->n + 1) * sizeof *s->runs);
        struct sweep_run *w = &s->runs[s->n++];
        memset(w, 0, sizeof *w);
        w->spec = j->sweep;
        w->first_phase = i;
        w->numjobs = j->numjobs ? j->numjobs : 1;
        w->ramp_ns = j->ramp_ns;
        w->runtime_ns = j->runtime_ns;
        snprintf(w->agents, sizeof w->agents, "%s", j->agents);
        for (uint32_t a = 0; a < nagents; a++)
            w->nrunning += plan_agents_match(j->agents, a) == 1;
        if (w->spec.dim == SWEEP_AGENTS && !w->spec.nvalues && w->spec.max > nagents) {
            /* a search cannot add agents the fleet lacks: it ends at all of them */
            if (w->spec.start > nagents) {
                snprintf(err, errlen, "job '%s': sweep=agents sweep_start=%llu exceeds the fleet's %u agent%s",
                         w->spec.base, (unsigned long long)w->spec.start, nagents, nagents == 1 ? "" : "s");
                sweep_set_free(s);
                return -EINVAL;
            }
            snprintf(w->note, sizeof w->note, "sweep %s: sweep_max=%llu agents capped to the fleet's %u agent%s",
                     w->spec.base, (unsigned long long)w->spec.max, nagents, nagents == 1 ? "" : "s");
            w->spec.max = nagents;
        }
        w->next = w->spec.nvalues ? w->spec.values[0] : w->spec.start;
        if (w->spec.dim == SWEEP_AGENTS)
            for (uint32_t v = 0; v < w->spec.nvalues; v++)
                if (w->spec.values[v] > nagents) {
                    snprintf(err, errlen, "job '%s': sweep=agents point %llu exceeds the fleet's %u agent%s",
                             w->spec.base, (unsigned long long)w->spec.values[v], nagents,
                             nagents == 1 ? "" : "s");
                    sweep_set_free(s);
                    return -EINVAL;
                }
    }
    *out = s;
    return 0;
}

void sweep_set_free(struct sweep_set *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < s->runs[i].npoints; k++) {
            free(s->runs[i].points[k].agent);
            free(s->runs[i].points[k].late_ops);
            free(s->runs[i].points[k].late_ns);
            free(s->runs[i].points[k].cpu_pct);
        }
    free(s->runs);
    free(s);
}

static struct sweep_run *run_of(const struct sweep_set *s, uint32_t phase)
{
    for (uint32_t i = 0; s && i < s->n; i++)
        if (phase >= s->runs[i].first_phase && phase < s->runs[i].first_phase + s->runs[i].spec.npoints)
            return &s->runs[i];
    return NULL;
}

const char *sweep_point_job(const struct sweep_set *s, const char *name)
{
    const char *at = strrchr(name, '@');

    for (uint32_t i = 0; s && at && i < s->n; i++)
        if (strlen(s->runs[i].spec.base) == (size_t)(at - name) && !strncmp(name, s->runs[i].spec.base, at - name))
            return s->runs[i].spec.base;
    return NULL;
}

static int is_rate(const struct sweep_run *w)
{
    return w->spec.dim == SWEEP_RATE_IOPS || w->spec.dim == SWEEP_RATE;
}

void sweep_point_start(struct sweep_set *s, struct run_result *res, uint32_t phase, struct msg_start *m)
{
    struct sweep_run *w = run_of(s, phase);
    struct phase_result *ph = &res->phases[phase];
    uint32_t i;
    if (!w)
        return;
    i = phase - w->first_phase;
    if (w->done || (w->spec.nvalues && i >= w->spec.nvalues)) {
        m->skip = 1;
        return;
    }
    uint64_t v = w->spec.nvalues ? w->spec.values[i] : w->next;
    snprintf(ph->name, sizeof ph->name, "%.40s@%llu", w->spec.base, (unsigned long long)v);
    if (is_rate(w)) {
        uint64_t threads = (uint64_t)w->numjobs * (w->nrunning ? w->nrunning : 1);
        uint64_t per = (uint64_t)llround((double)v / (double)threads);
        if (per == 0)
            per = 1;          /* 0 would mean unlimited */
        if (w->spec.dim == SWEEP_RATE_IOPS)
            m->rate_iops = per;
        else
            m->rate_bps = per;
        /* the phase's asked load (sched_debt.h): what the threads run at */
        ph->asked_iops = w->spec.dim == SWEEP_RATE_IOPS ? (double)per * (double)threads : 0;
        ph->asked_bps = w->spec.dim == SWEEP_RATE ? (double)per * (double)threads : 0;
    }
    if (!w->spec.nvalues && w->spec.dim == SWEEP_IODEPTH)
        m->depth = (uint32_t)v;     /* laid out at sweep_max: each thread keeps v in flight */
    if (!w->spec.nvalues && w->spec.dim == SWEEP_NUMJOBS) {
        m->threads = (uint32_t)v;   /* laid out at sweep_max: the first v threads run */
        ph->numjobs = (uint32_t)v;  /* the reports' threads per agent: those that run */
    }
    if (!w->spec.nvalues && w->spec.dim == SWEEP_AGENTS)
        for (uint32_t a = 0; a < s->nagents; a++)   /* the first v agents run (sweep_point_skips) */
            ph->agents[a].participating = a < v;     /* the plan's agents= is 0..sweep_max-1 */
    w->next = v;              /* what sweep_point_done judges */
}

int sweep_point_skips(const struct sweep_set *s, uint32_t phase, uint32_t agent)
{
    const struct sweep_run *w = run_of(s, phase);
    return w && !w->spec.nvalues && w->spec.dim == SWEEP_AGENTS && !w->done && agent >= w->next;
}

void sweep_mark_skipped(struct sweep_set *s, struct run_result *res, uint32_t phase)
{
    struct sweep_run *w = run_of(s, phase);
    struct phase_result *ph = &res->phases[phase];
    if (!w)
        return;
    ph->ran = 0;
    ph->ctl.skipped = 1;
    snprintf(ph->ctl.why, sizeof ph->ctl.why, "sweep '%s': the search ended before this point", w->spec.base);
}

static void reason(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(char *out, const char *fmt, ...)
{
    size_t n = strlen(out);
    va_list ap;
    if (n && n + 2 < SWEEP_REASON_MAX) {
        memcpy(out + n, "; ", 3);
        n += 2;
    }
    va_start(ap, fmt);
    vsnprintf(out + n, SWEEP_REASON_MAX - n, fmt, ap);
    va_end(ap);
}

/* Per-interval fleet throughput's CV over the complete intervals after ramp. */
static double interval_cv(const struct sweep_run *w, const struct phase_result *ph)
{
    uint64_t int_ns = (uint64_t)ph->interval_ms * 1000000ull;
    uint64_t span = w->ramp_ns + (w->runtime_ns ? w->runtime_ns : ph->duration_ns);
    uint32_t ncomplete, n = 0;
    double sum = 0, sum2 = 0;
    if (!int_ns)
        return -1;
    ncomplete = (uint32_t)(span / int_ns);
    for (uint32_t k = 0; k < ncomplete && k < ph->nintervals; k++) {
        double x = 0;
        if ((uint64_t)k * int_ns < w->ramp_ns)
            continue;
        for (int t = 0; t < OP__COUNT; t++)
            x += w->spec.dim == SWEEP_RATE ? (double)ph->intervals[k].count[t].bytes
                                           : (double)result_ok_count(ph->intervals[k].count[t].ops,
                                                                     ph->intervals[k].count[t].errors);
        sum += x;
        sum2 += x * x;
        n++;
    }
    if (n < 2 || sum <= 0)
        return -1;
    double mean = sum / n, var = sum2 / n - mean * mean;
    return 100.0 * sqrt(var > 0 ? var : 0) / mean;
}

static void judge(struct sweep_set *s, struct sweep_run *w, const struct run_result *res, uint32_t phase,
                  struct sweep_point *pt)
{
    const struct phase_result *ph = &res->phases[phase];
    struct op_stats all;
    uint32_t nrun = 0;
    int bytes = w->spec.dim == SWEEP_RATE;

    pt->agent = xcalloc(s->nagents ? s->nagents : 1, sizeof *pt->agent);
    pt->late_ops = xcalloc(s->nagents ? s->nagents : 1, sizeof *pt->late_ops);
    pt->late_ns = xcalloc(s->nagents ? s->nagents : 1, sizeof *pt->late_ns);
    pt->cpu_pct = xcalloc(s->nagents ? s->nagents : 1, sizeof *pt->cpu_pct);
    result_all_ops(&ph->totals, &all);
    pt->achieved = bytes ? result_bw(&all, ph->duration_ns) : result_iops(&all, ph->duration_ns);
    pt->achieved_bw = result_bw(&all, ph->duration_ns);
    for (uint32_t a = 0; a < s->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        double x = 0;
        pt->agent[a] = -1;
        if (!ap->participating)
            continue;
        for (int t = 0; t < OP__COUNT; t++)
            x += bytes ? (double)ap->sealed.count[t].bytes
                       : (double)result_ok_count(ap->sealed.count[t].ops, ap->sealed.count[t].errors);
        pt->agent[a] = ap->duration_ns ? x * 1e9 / (double)ap->duration_ns : 0;
        pt->late_ops[a] = ap->late_ops;
        pt->late_ns[a] = ap->late_ns;
        pt->cpu_pct[a] = ap->duration_ns && ap->cores
                         ? 100.0 * (ap->cpu_user_s + ap->cpu_sys_s) * 1e9 / (double)ap->duration_ns / ap->cores : 0;
        nrun++;
    }
    pt->share = is_rate(w) ? (double)pt->requested / (nrun ? nrun : 1) : pt->achieved / (nrun ? nrun : 1);
    pt->lat_p50 = hist_percentile(&all.lat, 50);
    pt->lat_p90 = hist_percentile(&all.lat, 90);
    pt->lat_p99 = hist_percentile(&all.lat, 99);
    pt->lat_p999 = hist_percentile(&all.lat, 99.9);
    pt->lat_max = all.lat.count ? all.lat.max_ns : 0;
    pt->lat_mean = hist_mean(&all.lat);
    pt->cv_pct = interval_cv(w, ph);

    /* validity: SPEC's rules */
    pt->reasons[0] = '\0';
    if (all.ops == 0)
        reason(pt->reasons, "no op completed");
    if (is_rate(w) && pt->achieved < w->spec.achieved_pct / 100.0 * (double)pt->requested)
        reason(pt->reasons, "achieved %.1f%% of the requested load", 100.0 * pt->achieved / (double)pt->requested);
    for (uint32_t a = 0; a < s->nagents; a++)
        if (pt->agent[a] >= 0 && pt->share > 0 && pt->agent[a] < w->spec.agent_pct / 100.0 * pt->share)
            reason(pt->reasons, "agent %u achieved %.0f%% of its share", a, 100.0 * pt->agent[a] / pt->share);
    if (pt->cv_pct > w->spec.cv_pct)
        reason(pt->reasons, "throughput CV %.1f%% over its intervals", pt->cv_pct);
    pt->valid = pt->reasons[0] == '\0';

    /* the SLO: every condition holds */
    pt->slo_met = all.ops > 0;
    for (uint32_t k = 0; k < w->spec.nslo; k++) {
        const struct sweep_slo *c = &w->spec.slo[k];
        uint64_t v = c->pct_milli ? hist_percentile(&all.lat, c->pct_milli / 1000.0) : (uint64_t)pt->lat_mean;
        if (k == 0)
            pt->slo_lat_ns = v;
        if (v > c->limit_ns)
            pt->slo_met = 0;
    }
    if (!w->spec.nslo)
        pt->slo_lat_ns = pt->lat_p99;
}

/* The search's next value after the point just judged, or done. */
static void steer(struct sweep_run *w, uint64_t v, int pass)
{
    if (w->spec.nvalues) {
        w->done = w->npoints >= w->spec.nvalues;
        return;
    }
    if (pass && (!w->have_good || v > w->good)) {
        w->good = v;
        w->have_good = 1;
    }
    if (!pass && (!w->have_bad || v < w->bad)) {
        w->bad = v;
        w->have_bad = 1;
    }
    if (!w->have_bad) {                       /* doubling */
        if (v >= w->spec.max)
            w->done = 1;                      /* the top still passes: capacity >= max */
        else
            w->next = v > w->spec.max / 2 ? w->spec.max : v * 2;
    } else if (!w->have_good) {
        w->done = 1;                          /* the first point already fails */
    } else if ((double)(w->bad - w->good) * 100.0 <= w->spec.resolution_pct * (double)w->good) {
        w->done = 1;                          /* bracketed within the resolution */
    } else {
        w->next = w->good + (w->bad - w->good) / 2;
        if (w->next == w->good || w->next == w->bad)
            w->done = 1;
    }
    if (w->npoints >= w->spec.npoints)
        w->done = 1;
}

void sweep_point_done(struct sweep_set *s, struct run_result *res, uint32_t phase)
{
    struct sweep_run *w = run_of(s, phase);
    if (w && res->phases[phase].ctl.skipped) {
        res->phases[phase].ran = 0;   /* its empty phase-done made it look run */
        return;
    }
    if (!w || !res->phases[phase].ran || w->npoints >= SWEEP_MAX_VALUES)
        return;
    struct sweep_point *pt = &w->points[w->npoints];
    uint32_t i = phase - w->first_phase;
    memset(pt, 0, sizeof *pt);
    pt->phase = phase;
    pt->requested = w->spec.nvalues ? w->spec.values[i] : w->next;
    if (is_rate(w)) {
        uint64_t threads = (uint64_t)w->numjobs * (w->nrunning ? w->nrunning : 1);
        pt->per_thread = (uint64_t)llround((double)pt->requested / (double)threads);
    }
    judge(s, w, res, phase, pt);
    w->npoints++;
    steer(w, pt->requested, pt->valid && pt->slo_met);
}

void sweep_sorted(const struct sweep_run *w, uint32_t *idx)
{
    for (uint32_t i = 0; i < w->npoints; i++)
        idx[i] = i;
    for (uint32_t i = 1; i < w->npoints; i++)
        for (uint32_t k = i; k > 0 && w->points[idx[k - 1]].requested > w->points[idx[k]].requested; k--) {
            uint32_t t = idx[k];
            idx[k] = idx[k - 1];
            idx[k - 1] = t;
        }
}

void sweep_outcome(const struct sweep_run *w, struct sweep_outcome *o)
{
    uint32_t idx[SWEEP_MAX_VALUES];
    memset(o, 0, sizeof *o);
    o->cap_point = o->knee_point = -1;
    sweep_sorted(w, idx);
    for (uint32_t k = 0; k < w->npoints; k++) {
        const struct sweep_point *pt = &w->points[idx[k]];
        o->ninvalid += !pt->valid;
        if (pt->valid && (pt->slo_met || !w->spec.nslo))
            o->cap_point = (int)idx[k];
    }
    /* bracketed: a point above the capacity failed */
    for (uint32_t k = 0; k < w->npoints; k++) {
        const struct sweep_point *pt = &w->points[k];
        if (o->cap_point >= 0 && pt->requested > w->points[o->cap_point].requested)
            o->bracketed = 1;
        if (o->cap_point < 0)
            o->bracketed = 1;   /* every point failed: the capacity is below them all */
    }
    /* knee: the first point whose SLO statistic exceeds twice the lowest point's */
    if (w->npoints > 1) {
        uint64_t base = w->points[idx[0]].slo_lat_ns;
        for (uint32_t k = 1; k < w->npoints; k++)
            if (w->points[idx[k]].slo_lat_ns > 2 * base) {
                o->knee_point = (int)idx[k];
                break;
            }
    }
}

void sweep_live_note(const struct sweep_set *s, uint32_t phase, char *buf, size_t len)
{
    const struct sweep_run *w = NULL;
    char g[32] = "none yet", b[32] = "none yet";
    if (len)
        buf[0] = '\0';
    for (uint32_t i = 0; s && i < s->n; i++)
        if (phase >= s->runs[i].first_phase && phase < s->runs[i].first_phase + s->runs[i].spec.npoints)
            w = &s->runs[i];
    if (!w || !len)
        return;
    if (w->spec.nvalues) {
        snprintf(buf, len, "; sweep %s point %u of %u", w->spec.base, w->npoints + 1, w->spec.nvalues);
        return;
    }
    if (w->have_good)
        snprintf(g, sizeof g, "%llu", (unsigned long long)w->good);
    if (w->have_bad)
        snprintf(b, sizeof b, "%llu", (unsigned long long)w->bad);
    snprintf(buf, len, "; sweep %s point %u: passing %s, failing %s", w->spec.base, w->npoints + 1, g, b);
}
