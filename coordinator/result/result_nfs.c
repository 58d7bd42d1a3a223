/* result_nfs: per-phase, per-agent and per-interval NFS telemetry.
 *
 * Agent and fleet sets stay dense (a handful of procedures a phase); the
 * interval sets are kept sparse because a long run has thousands of them:
 * adding an agent's interval expands one procedure's histogram at a time
 * into a scratch hist, merges and packs it again, exactly. */
#include "coordinator/result/result_nfs.h"
#include "common/sat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/result.h"

const struct result_nfs *result_nfs_of(const struct run_result *r, uint32_t phase)
{
    return phase < r->nphases ? r->phases[phase].nfs : NULL;
}

static struct result_nfs *nfs_get(struct run_result *r, uint32_t phase)
{
    struct phase_result *ph = &r->phases[phase];
    if (!ph->nfs) {
        ph->nfs = xcalloc(1, sizeof(*ph->nfs));
        ph->nfs->nagents = r->nagents;
        ph->nfs->agent = xcalloc(r->nagents ? r->nagents : 1, sizeof(*ph->nfs->agent));
        ph->nfs->agent_final = xcalloc(r->nagents ? r->nagents : 1, 1);
        nfs_rpc_set_init(&ph->nfs->fleet);
    }
    return ph->nfs;
}

static void iv_add(struct nfs_iv *iv, const struct nfs_rpc_set *s, struct hist *scratch)
{
    iv->retransmits = sat_add_u64(iv->retransmits, s->retransmits);
    iv->timeouts = sat_add_u64(iv->timeouts, s->timeouts);
    iv->reconnects = sat_add_u64(iv->reconnects, s->reconnects);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        if (!iv->proc[i]) {
            iv->proc[i] = xcalloc(1, sizeof(*iv->proc[i]));
            hist_init(scratch);
            hist_sparse_from(&iv->proc[i]->rtt, scratch);
        }
        struct nfs_iv_proc *d = iv->proc[i];
        d->calls = sat_add_u64(d->calls, p->calls);
        d->bytes_out = sat_add_u64(d->bytes_out, p->bytes_out);
        d->bytes_in = sat_add_u64(d->bytes_in, p->bytes_in);
        d->errors = sat_add_u64(d->errors, p->errors);
        hist_sparse_to(&d->rtt, scratch);
        hist_merge(scratch, &p->rtt);
        hist_sparse_free(&d->rtt);
        hist_sparse_from(&d->rtt, scratch);
    }
}

static int add_interval(struct run_result *r, uint32_t phase, int agent, uint32_t k,
                        const struct nfs_rpc_set *s)
{
    if (phase >= r->nphases || (agent >= 0 && (uint32_t)agent >= r->nagents) ||
        k >= RESULT_MAX_INTERVALS)
        return -EINVAL;
    if (nfs_rpc_set_empty(s))
        return 0;
    struct result_nfs *n = nfs_get(r, phase);
    if (k >= n->niv) {
        uint32_t want = k + 1 > n->niv * 2 ? k + 1 : n->niv * 2;
        n->iv = xrealloc(n->iv, (size_t)want * sizeof(*n->iv));
        memset(n->iv + n->niv, 0, (size_t)(want - n->niv) * sizeof(*n->iv));
        n->niv = want;
    }
    struct hist *scratch = xmalloc(sizeof(*scratch));
    iv_add(&n->iv[k], s, scratch);
    free(scratch);
    if (agent >= 0 && !n->agent_final[agent])
        nfs_rpc_set_merge(&n->agent[agent], s);
    return 0;
}

int result_nfs_add_interval(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                            const struct nfs_rpc_set *s)
{
    return agent > INT32_MAX ? -EINVAL : add_interval(r, phase, (int)agent, k, s);
}

int result_nfs_add_fleet_interval(struct run_result *r, uint32_t phase, uint32_t k,
                                  const struct nfs_rpc_set *s)
{
    return add_interval(r, phase, -1, k, s);
}

int result_nfs_set_agent(struct run_result *r, uint32_t phase, uint32_t agent,
                         const struct nfs_rpc_set *s)
{
    if (phase >= r->nphases || agent >= r->nagents)
        return -EINVAL;
    if (nfs_rpc_set_empty(s))
        return 0;
    struct result_nfs *n = nfs_get(r, phase);
    nfs_rpc_set_free(&n->agent[agent]);
    nfs_rpc_set_merge(&n->agent[agent], s);
    n->agent_final[agent] = 1;
    return 0;
}

void result_nfs_finish(struct run_result *r, uint32_t phase)
{
    struct result_nfs *n = phase < r->nphases ? r->phases[phase].nfs : NULL;
    if (!n)
        return;
    nfs_rpc_set_free(&n->fleet);
    for (uint32_t a = 0; a < n->nagents; a++)
        nfs_rpc_set_merge(&n->fleet, &n->agent[a]);
}

void result_nfs_interval(const struct run_result *r, uint32_t phase, uint32_t k,
                         struct nfs_rpc_set *out)
{
    const struct result_nfs *n = result_nfs_of(r, phase);
    nfs_rpc_set_free(out);
    if (!n || k >= n->niv)
        return;
    const struct nfs_iv *iv = &n->iv[k];
    out->retransmits = iv->retransmits;
    out->timeouts = iv->timeouts;
    out->reconnects = iv->reconnects;
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_iv_proc *p = iv->proc[i];
        if (!p)
            continue;
        struct nfs_rpc_proc *d = nfs_rpc_set_proc(out, i);
        d->calls = p->calls;
        d->bytes_out = p->bytes_out;
        d->bytes_in = p->bytes_in;
        d->errors = p->errors;
        hist_sparse_to(&p->rtt, &d->rtt);
    }
}

void result_nfs_free(struct run_result *r)
{
    for (uint32_t ph = 0; ph < r->nphases; ph++) {
        struct result_nfs *n = r->phases[ph].nfs;
        if (!n)
            continue;
        for (uint32_t a = 0; a < n->nagents; a++)
            nfs_rpc_set_free(&n->agent[a]);
        free(n->agent);
        free(n->agent_final);
        nfs_rpc_set_free(&n->fleet);
        for (uint32_t k = 0; k < n->niv; k++) {
            for (unsigned i = 0; i < NFSP__COUNT; i++) {
                if (n->iv[k].proc[i]) {
                    hist_sparse_free(&n->iv[k].proc[i]->rtt);
                    free(n->iv[k].proc[i]);
                }
            }
        }
        free(n->iv);
        free(n);
        r->phases[ph].nfs = NULL;
    }
}
