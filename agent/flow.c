/* flow: see flow.h. */
#include "agent/flow.h"

#include <stdlib.h>
#include "agent/job.h"
#include "agent/phase.h"
#include "common/xmalloc.h"

void flow_setup(struct phase_run *pr)
{
    pr->flows = NULL;
    pr->nflows = 0;
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        const struct job_spec *js = j->spec;
        struct flow_group *g = NULL;
        j->flow = NULL;
        j->flow_issued = 0;
        if (!js->flow)
            continue;
        if (!pr->flows)
            pr->flows = xcalloc(pr->njobs, sizeof *pr->flows);   /* at most one per thread */
        for (uint32_t k = 0; k < pr->nflows && !g; k++)
            if (pr->flows[k].id == js->flow_id)
                g = &pr->flows[k];
        if (!g) {
            g = &pr->flows[pr->nflows++];
            g->id = js->flow_id;
            atomic_init(&g->issued, 0);
        }
        g->weight += js->flow;
        j->flow = g;
    }
}

void flow_free(struct phase_run *pr)
{
    free(pr->flows);
    pr->flows = NULL;
    pr->nflows = 0;
}

int flow_held(const struct job *j)
{
    const struct flow_group *g = j->flow;
    if (!g)
        return 0;
    uint64_t all = atomic_load_explicit(&g->issued, memory_order_relaxed);
    if (all == 0)
        return 0;
    /* mine / all > flow / weight, without division */
    return (unsigned __int128)j->flow_issued * g->weight > (unsigned __int128)all * j->spec->flow;
}

void flow_note(struct job *j)
{
    if (!j->flow)
        return;
    j->flow_issued++;
    atomic_fetch_add_explicit(&j->flow->issued, 1, memory_order_relaxed);
}
