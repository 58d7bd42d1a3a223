/* fleet_summary: per-agent throughput distribution (see fleet_summary.h).
 *
 * Sorting is by IOPS with the agent index as tie-break, so the slowest and
 * fastest lists are the same on every render of the same result. */
#include "coordinator/report/fleet_summary.h"
#include "common/sat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"

int fleet_use_view(uint32_t nagents, uint32_t rows)
{
    return nagents > (rows ? rows : FLEET_ROWS_DEFAULT);
}

double fleet_percentile(const double *sorted, size_t n, double p)
{
    double rank;

    if (n == 0)
        return 0.0;
    if (!(p > 0))
        return sorted[0];
    if (p >= 100)
        return sorted[n - 1];
    /* p * n is exact for integer p and n < 2^45; ceil of the quotient */
    rank = ceil(p * (double)n / 100.0);
    if (rank < 1)
        rank = 1;
    if (rank > (double)n)
        rank = (double)n;
    return sorted[(size_t)rank - 1];
}

void fleet_dist_of(const double *sorted, size_t n, struct fleet_dist *d)
{
    d->min = fleet_percentile(sorted, n, 0);
    d->p10 = fleet_percentile(sorted, n, 10);
    d->median = fleet_percentile(sorted, n, 50);
    d->p90 = fleet_percentile(sorted, n, 90);
    d->max = fleet_percentile(sorted, n, 100);
}

static int cmp_agent(const void *pa, const void *pb)
{
    const struct fleet_agent *a = pa, *b = pb;

    if (a->iops != b->iops)
        return a->iops < b->iops ? -1 : 1;
    return a->agent < b->agent ? -1 : a->agent > b->agent;
}

const char *fleet_host(const struct run_result *r, uint32_t a)
{
    return r->agents[a].host[0] ? r->agents[a].host : r->agents[a].addr[0] ? r->agents[a].addr : "?";
}

char *fleet_cpu_text(char *buf, size_t len, const struct agent_phase *ap)
{
    if (ap->cores == 0 || ap->duration_ns == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.0f%%", (ap->cpu_user_s + ap->cpu_sys_s) / ((double)ap->duration_ns / 1e9)
                 / (double)ap->cores * 100.0);
    return buf;
}

int fleet_cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : a > b;
}

static enum fleet_state agent_state(const struct run_result *r, const struct agent_phase *ap, uint32_t a)
{
    if (r->agents[a].lost && (!ap->done || ap->salvaged))
        return FLEET_LOST;
    if (!ap->participating)
        return FLEET_IDLE;
    if (!ap->done)
        return FLEET_NO_RESULT;
    return FLEET_RAN;
}

void fleet_phase_init(struct fleet_phase *f, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t n = r->nagents, k = 0;
    double *v;

    memset(f, 0, sizeof(*f));
    f->nagents = n;
    f->state = xcalloc(n ? n : 1, 1);
    f->ran = xcalloc(n ? n : 1, sizeof(*f->ran));
    for (uint32_t a = 0; a < n; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        enum fleet_state s = agent_state(r, ap, a);
        uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns, ok = 0, bytes = 0;

        f->state[a] = (uint8_t)s;
        f->count[s]++;
        if (s != FLEET_RAN)
            continue;
        for (int t = 0; t < OP__COUNT; t++) {
            if (!op_type_is_load(t))
                continue;
            ok = sat_add_u64(ok, result_ok_count(ap->sealed.count[t].ops, ap->sealed.count[t].errors));
            bytes = sat_add_u64(bytes, ap->sealed.count[t].bytes);
        }
        /* as result_iops and result_bw compute it */
        f->ran[k].agent = a;
        f->ran[k].iops = dur ? (double)ok * 1e9 / (double)dur : 0.0;
        f->ran[k].bw = dur ? (double)bytes * 1e9 / (double)dur : 0.0;
        k++;
    }
    qsort(f->ran, k, sizeof(*f->ran), cmp_agent);
    v = xcalloc(k ? k : 1, sizeof(*v));
    for (uint32_t i = 0; i < k; i++)
        v[i] = f->ran[i].iops;
    fleet_dist_of(v, k, &f->iops);
    for (uint32_t i = 0; i < k; i++)
        v[i] = f->ran[i].bw;
    qsort(v, k, sizeof(*v), fleet_cmp_double);
    fleet_dist_of(v, k, &f->bw);
    free(v);
}

void fleet_phase_free(struct fleet_phase *f)
{
    free(f->state);
    free(f->ran);
    memset(f, 0, sizeof(*f));
}

uint32_t fleet_edge_slow(const struct fleet_phase *f)
{
    uint32_t n = f->count[FLEET_RAN];

    return n < FLEET_EDGE ? n : FLEET_EDGE;
}

uint32_t fleet_edge_fast(const struct fleet_phase *f)
{
    uint32_t n = f->count[FLEET_RAN] - fleet_edge_slow(f);

    return n < FLEET_EDGE ? n : FLEET_EDGE;
}
