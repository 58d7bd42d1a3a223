/* report_fio_status: fio's --status-interval report of a run still going.
 *
 * fio writes, every status interval, the same report it writes at the end
 * (a complete JSON document, the normal text, terse lines), of the run so
 * far, marked no differently from the final one.  nfstorm does the same by
 * rendering a snapshot with report_fio: the finished phases as they are,
 * and the running phase as though it had finished after the intervals
 * received so far.  Its totals are the exact sum of those merged intervals
 * (counters and histograms), its duration their length; its agents count
 * as not done, so it has no per-agent entries (client_stats, the "client"
 * lines of the normal report) and one jobs[] entry, not one per clone,
 * until it ends: an agent's totals and its clones arrive with its
 * phase-done.  The snapshot shares everything else with the live
 * result, read only, and frees only what it made. */
#include "coordinator/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

int report_fio_status(FILE *out, const struct run_result *r, const struct run_record *rec, uint32_t phase,
                      uint32_t k, unsigned mask, int unit_base)
{
    struct run_result snap;
    struct phase_result *phases, *ph;
    struct agent_phase *agents;
    struct op_set *scratch;
    uint32_t n;
    int rc;

    if (phase >= r->nphases)
        return report_fio(out, r, mask, unit_base);
    if (r->nagents)
        (void)result_agent_totals(r, 0, 0);   /* the view cache exists: the snapshot shares it */
    phases = xmalloc(r->nphases * sizeof(*phases));
    memcpy(phases, r->phases, r->nphases * sizeof(*phases));
    ph = &phases[phase];
    agents = xcalloc(r->nagents ? r->nagents : 1, sizeof(*agents));
    if (r->nagents)
        memcpy(agents, ph->agents, r->nagents * sizeof(*agents));
    for (uint32_t a = 0; a < r->nagents; a++)
        agents[a].done = 0;
    ph->agents = agents;
    /* per-clone figures arrive with the phase-done too: one entry till then */
    ph->clones = NULL;
    n = k + 1 < ph->nintervals ? k + 1 : ph->nintervals;
    scratch = xmalloc(sizeof(*scratch));
    op_set_init(&ph->totals);
    for (uint32_t i = 0; i < n; i++)
        op_set_merge(&ph->totals, result_interval_ops(r, phase, i, scratch));
    free(scratch);
    ph->nintervals = n;          /* bw/iops min and max over these only */
    ph->duration_ns = (uint64_t)n * ph->interval_ms * 1000000ull;
    ph->finished = 1;
    snap = *r;
    snap.phases = phases;
    if (rec)
        snap.record = *rec;      /* shared, read only: snap is never freed */
    rc = report_fio(out, &snap, mask, unit_base);
    free(agents);
    free(phases);
    return rc;
}
