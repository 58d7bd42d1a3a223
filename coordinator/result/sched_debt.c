/* sched_debt: an open-loop phase's schedule debt (see sched_debt.h).
 *
 * What was asked is the plan's (or, for a rate sweep's point, the rate the
 * coordinator chose as it started it: sweep.c writes it here), so every
 * report compares the same two figures: the fleet's successful ops (or
 * bytes) over the phase's time against the fleet's asked rate.  Under 95%
 * (sweep_valid's default achieved rule) the text says it with the debt. */
#include "coordinator/result/sched_debt.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include "common/units.h"
#include "common/why.h"
#include "coordinator/report/client_report.h"
#include "coordinator/result/result.h"
#include "coordinator/report/jint.h"

#define SCHED_DEBT_SHORT_PCT 95.0

void sched_debt_asked(struct phase_result *ph, const struct phase *src, uint32_t nagents)
{
    ph->asked_iops = ph->asked_bps = 0;
    for (uint32_t j = 0; j < src->njobs; j++) {
        const struct job_spec *js = &src->jobs[j];
        uint32_t runs = 0;
        if (js->sweep.dim == SWEEP_RATE_IOPS || js->sweep.dim == SWEEP_RATE)
            continue;           /* a placeholder rate until the point starts (sweep.c) */
        for (uint32_t a = 0; a < nagents; a++)
            runs += plan_agents_match(js->agents, a) == 1;
        double threads = (double)js->numjobs * runs;
        ph->asked_iops += threads * (double)(js->rate_iops + (js->rate_per_dir ? js->rate_w_iops : 0));
        ph->asked_bps += threads * (double)(js->rate_bps + (js->rate_per_dir ? js->rate_w_bps : 0));
    }
}

/* Agent a's CPU (user + sys) over its cores and its phase time, percent. */
static double cpu_pct(const struct agent_phase *ap)
{
    return ap->duration_ns && ap->cores
           ? 100.0 * (ap->cpu_user_s + ap->cpu_sys_s) * 1e9 / (double)ap->duration_ns / ap->cores : 0;
}

/* Achieved against asked, percent: IOPS when ops were asked, else B/s. */
static double achieved_pct(const struct phase_result *ph, double *achieved)
{
    struct op_stats all;
    result_all_ops(&ph->totals, &all);
    if (ph->asked_iops > 0) {
        *achieved = result_iops(&all, ph->duration_ns);
        return 100.0 * *achieved / ph->asked_iops;
    }
    *achieved = result_bw(&all, ph->duration_ns);
    return ph->asked_bps > 0 ? 100.0 * *achieved / ph->asked_bps : 0;
}

void *sched_debt_phase_json(const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    json_t *o;
    uint64_t ops = 0, ns = 0;
    double achieved;
    if (!(ph->asked_iops > 0 || ph->asked_bps > 0))
        return NULL;
    for (uint32_t a = 0; a < r->nagents; a++)
        if (ph->agents[a].participating) {
            ops += ph->agents[a].late_ops;
            ns += ph->agents[a].late_ns;
        }
    o = json_object();
    json_object_set_new(o, "asked_iops", jreal_or_zero(ph->asked_iops));
    json_object_set_new(o, "asked_bps", jreal_or_zero(ph->asked_bps));
    json_object_set_new(o, "achieved_pct", jreal_or_zero(achieved_pct(ph, &achieved)));
    json_object_set_new(o, "late_ops", json_integer((json_int_t)ops));
    json_object_set_new(o, "late_ns", json_integer((json_int_t)ns));
    return o;
}

void *sched_debt_agent_json(const struct run_result *r, uint32_t phase, uint32_t a)
{
    const struct phase_result *ph = &r->phases[phase];
    const struct agent_phase *ap = &ph->agents[a];
    json_t *o;
    if (!(ph->asked_iops > 0 || ph->asked_bps > 0) || !ap->participating)
        return NULL;
    o = json_object();
    json_object_set_new(o, "late_ops", json_integer((json_int_t)ap->late_ops));
    json_object_set_new(o, "late_ns", json_integer((json_int_t)ap->late_ns));
    json_object_set_new(o, "cpu_pct", jreal_or_zero(cpu_pct(ap)));
    return o;
}

static int get_count(const json_t *o, const char *key, double *v, char *why, size_t whylen)
{
    const json_t *x = json_object_get(o, key);
    if (!json_is_number(x) || !(json_number_value(x) >= 0) || json_number_value(x) > 1e18)
        return why_fail(why, whylen, "schedule_debt.%s: want a number from 0 to 1e18", key);
    *v = json_number_value(x);
    return 0;
}

int sched_debt_phase_load(const void *json, struct phase_result *ph, char *why, size_t whylen)
{
    if (!json_is_object((const json_t *)json))
        return why_fail(why, whylen, "schedule_debt: want an object");
    if (get_count(json, "asked_iops", &ph->asked_iops, why, whylen) ||
        get_count(json, "asked_bps", &ph->asked_bps, why, whylen))
        return -EINVAL;
    return 0;
}

int sched_debt_agent_load(const void *json, struct agent_phase *ap, char *why, size_t whylen)
{
    double ops, ns;
    if (!json_is_object((const json_t *)json))
        return why_fail(why, whylen, "schedule_debt: want an object");
    if (get_count(json, "late_ops", &ops, why, whylen) || get_count(json, "late_ns", &ns, why, whylen))
        return -EINVAL;
    ap->late_ops = (uint64_t)ops;
    ap->late_ns = (uint64_t)ns;
    return 0;
}

void sched_debt_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    char asked[48], n[32], d[32];
    double achieved, pct;
    if (!(ph->asked_iops > 0 || ph->asked_bps > 0) || !ph->ran || !ph->finished)
        return;
    pct = achieved_pct(ph, &achieved);
    if (pct >= SCHED_DEBT_SHORT_PCT)
        return;
    if (ph->asked_iops > 0)
        snprintf(asked, sizeof asked, "%s IOPS", units_fmt_count(n, sizeof n, ph->asked_iops));
    else
        units_fmt_rate(asked, sizeof asked, ph->asked_bps, 1024);
    fprintf(out, "  achieved %.1f%% of the %s asked; schedule debt:", pct, asked);
    for (uint32_t a = 0, first = 1; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        if (!ap->participating)
            continue;
        fprintf(out, "%s agent %u %s ops late", first ? "" : ";", r->agents[a].id,
                units_fmt_count(n, sizeof n, (double)ap->late_ops));
        if (ap->late_ops)
            fprintf(out, " (%s in all)", units_fmt_ns(d, sizeof d, (double)ap->late_ns));
        /* busy CPU with debt: the client fell behind; idle: the server held it */
        fprintf(out, " at %.0f%% client CPU%s", cpu_pct(ap),
                !ap->late_ops ? "" : client_report_cpu_bound(r, phase, a) ? " (the client fell behind)"
                                                                          : " (the server fell behind)");
        first = 0;
    }
    fputc('\n', out);
}
