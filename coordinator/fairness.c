/* fairness: Jain's index and shares (see fairness.h).
 *
 * Design: the arithmetic (fairness_jain, fairness_shares) is separate from
 * where the numbers come from so it can be tested on known values; the two
 * extractors only pick per-agent figures out of a run_result.  Agents
 * without a phase result, marked lost, or not taking part in the phase
 * (agents= / agents=@label left them idle) are left out of its index: they
 * would read as starved when they were simply gone or not asked. */
#include "coordinator/fairness.h"
#include "common/sat.h"

#include <stdlib.h>

#include "common/xmalloc.h"

double fairness_jain(const double *x, size_t n)
{
    double sum = 0, sq = 0;

    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        sq += x[i] * x[i];
    }
    if (n == 0 || sq <= 0)
        return 1.0;
    return sum * sum / ((double)n * sq);
}

void fairness_shares(const double *x, size_t n, double *share)
{
    double sum = 0;

    for (size_t i = 0; i < n; i++)
        sum += x[i];
    for (size_t i = 0; i < n; i++)
        share[i] = sum > 0 ? x[i] / sum : 0.0;
}

static uint64_t set_ops(const struct op_set *s)
{
    uint64_t n = 0;

    for (int t = 0; t < OP__COUNT; t++)
        if (op_type_is_load(t))
            n = sat_add_u64(n, result_ok_ops(&s->op[t]));   /* failed ops are not throughput */
    return n;
}

void fairness_phase(const struct run_result *r, uint32_t phase, double *share, struct fairness *f)
{
    const struct phase_result *ph = &r->phases[phase];
    double *ops = xcalloc(r->nagents ? r->nagents : 1, sizeof(*ops));
    double *rate = xcalloc(r->nagents ? r->nagents : 1, sizeof(*rate));
    size_t n = 0;

    f->ncounted = 0;
    f->slowest = f->fastest = 0;
    f->slowest_iops = f->fastest_iops = 0;
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns;
        double iops;

        if (!ap->done || r->agents[a].lost || !ap->participating)
            continue;
        ops[a] = (double)set_ops(result_agent_totals(r, phase, a));
        iops = dur ? ops[a] * 1e9 / (double)dur : 0.0;
        rate[n++] = iops;
        if (f->ncounted == 0 || iops < f->slowest_iops) {
            f->slowest = a;
            f->slowest_iops = iops;
        }
        if (f->ncounted == 0 || iops > f->fastest_iops) {
            f->fastest = a;
            f->fastest_iops = iops;
        }
        f->ncounted++;
    }
    f->jain = fairness_jain(rate, n);
    fairness_shares(ops, r->nagents, share);
    free(ops);
    free(rate);
}

double fairness_interval(const struct run_result *r, uint32_t phase, uint32_t k, double *share)
{
    const struct interval_slot *s = &r->phases[phase].intervals[k];
    double *ops = xcalloc(r->nagents ? r->nagents : 1, sizeof(*ops));
    double *live = xcalloc(r->nagents ? r->nagents : 1, sizeof(*live));
    struct counters *c = xmalloc((r->nagents ? r->nagents : 1) * sizeof(*c));
    size_t n = 0;
    double j;

    result_slot_agents(s, r->nagents, c);
    for (uint32_t a = 0; a < r->nagents; a++) {
        for (int t = 0; t < OP__COUNT; t++)   /* failed ops are not throughput */
            if (op_type_is_load(t))
                ops[a] += (double)result_ok_count(c[a].ops[t], c[a].errors[t]);
        if ((!r->agents[a].lost || c[a].reported) && r->phases[phase].agents[a].participating)
            live[n++] = ops[a];
    }
    fairness_shares(ops, r->nagents, share);
    j = fairness_jain(live, n);
    free(c);
    free(ops);
    free(live);
    return j;
}
