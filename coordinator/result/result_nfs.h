/* result_nfs: the run's NFS RPC telemetry (common/nfs_rpc.h) as the
 * coordinator keeps it, beside the op results of coordinator/result/result.h.
 *
 * Per phase: each agent's set (its phase-done's, or the sum of its
 * intervals when it sent none) and the fleet's (their exact sum, made by
 * result_nfs_finish); per interval the fleet's set with sparse RTT
 * histograms (a few KB an interval, not 20 KB a procedure).  Nothing is
 * allocated for a phase without NFS telemetry (posix jobs).
 *
 * Single-threaded, like result.h. */
#ifndef NFSTORM_RESULT_NFS_H
#define NFSTORM_RESULT_NFS_H

#include <stdint.h>
#include "common/nfs_rpc.h"

struct run_result;

struct nfs_iv_proc {              /* one procedure in one interval */
    uint64_t calls, bytes_out, bytes_in, errors;
    struct hist_sparse rtt;
};
struct nfs_iv {                   /* the fleet's interval k */
    uint64_t retransmits, timeouts, reconnects;
    struct nfs_iv_proc *proc[NFSP__COUNT];   /* NULL: no calls */
};

struct result_nfs {
    uint32_t nagents;
    struct nfs_rpc_set *agent;    /* [nagents] */
    uint8_t *agent_final;         /* [nagents]: 1 once its phase-done's set is in */
    struct nfs_rpc_set fleet;     /* sum over agents (result_nfs_finish) */
    struct nfs_iv *iv;            /* [niv] */
    uint32_t niv;
};

/* The phase's telemetry, NULL when it has none. */
const struct result_nfs *result_nfs_of(const struct run_result *r, uint32_t phase);
/* Agent's interval k: adds s to the fleet's interval k and, until its
 * phase-done arrives, to the agent's phase set.  -EINVAL if out of range. */
int result_nfs_add_interval(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                            const struct nfs_rpc_set *s);
/* The fleet's interval k alone (a saved result's interval, already merged). */
int result_nfs_add_fleet_interval(struct run_result *r, uint32_t phase, uint32_t k,
                                  const struct nfs_rpc_set *s);
/* Agent's phase totals (phase-done): replace what its intervals summed to.
 * An empty s keeps the intervals' sum. */
int result_nfs_set_agent(struct run_result *r, uint32_t phase, uint32_t agent,
                         const struct nfs_rpc_set *s);
/* Recompute the fleet set of phase from its agents'. */
void result_nfs_finish(struct run_result *r, uint32_t phase);
/* Expand interval k of phase into a dense set (out is freed first);
 * empty when out of range. */
void result_nfs_interval(const struct run_result *r, uint32_t phase, uint32_t k,
                         struct nfs_rpc_set *out);
void result_nfs_free(struct run_result *r);

#endif
