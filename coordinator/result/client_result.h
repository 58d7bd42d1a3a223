/* client_result: the agents' own measurements (common/client_stats.h: CPU,
 * NIC bytes, mountstats deltas) kept beside the run's result, per agent
 * and phase and per agent and interval, and the client-bound and
 * NIC-bound judgements made from them.
 *
 * Compact: an interval holds its host sample and, only when its mount
 * moved, the operations that moved (not MS_OPS_MAX of them), and only
 * behind a local NFS proxy, the proxy's sample.  An agent's intervals are
 * kept in blocks of CLIENT_IV_BLOCK; a block the agent has moved past is
 * packed into varints (~8 bytes an interval: CPU, rx, tx, the static
 * fields only where they change) into the run's spill file (spill.h) and
 * unpacked only for late data and readers, so a day of 1 s intervals costs
 * the heap a few KB an agent (the block index), not ~10 MB.
 * Hung off phase_result.client, allocated on first use and freed by
 * result_free (client_result_free).  Single-threaded, like result.h. */
#ifndef NFSTORM_CLIENT_RESULT_H
#define NFSTORM_CLIENT_RESULT_H

#include <stdint.h>
#include "common/client_stats.h"
#include "coordinator/result/result.h"

struct ms_store {                 /* a mountstats delta, its ops only */
    struct ms_xprt xprt;
    uint32_t nops;
    struct ms_op op[];            /* [nops] */
};

struct client_iv {                /* one agent's interval */
    struct host_sample host;      /* present 0: the agent sent none */
    struct ms_store *ms;          /* NULL: no mountstats */
    struct proxy_sample *proxy;   /* NULL: no local NFS proxy sampled */
    uint8_t static_new;           /* its cores, threads, nic or speed differ from the
                                     agent's interval added before it (or it is the
                                     first): the compact forms write them only then */
};

#define CLIENT_IV_BLOCK 64

struct client_iv_block {          /* CLIENT_IV_BLOCK intervals of an agent */
    struct client_iv *dense;      /* [CLIENT_IV_BLOCK] while written, or NULL */
    uint64_t at;                  /* else packed (client_result.c) in the run's */
    uint32_t len;                 /* spill (spill.h) at at, or len 0: none */
};

struct client_agent {             /* one agent in one phase */
    struct host_sample host;      /* the phase's (present 0: none sent) */
    struct ms_store *ms;          /* the phase's mountstats, NULL: none */
    struct proxy_sample proxy;    /* the phase's local NFS proxy (present 0: none) */
    char mount[CLIENT_MOUNT_MAX]; /* "" when no mountstats */
    char note[CLIENT_NOTE_MAX];   /* why there are none, or "" */
    struct client_iv_block *blk;  /* [nblk]: read through client_result_iv */
    uint32_t nblk;
    uint32_t niv;                 /* intervals up to the last one added */
    struct client_iv *cache;      /* one packed block unpacked for readers */
    uint32_t cache_blk;           /* which (UINT32_MAX: none) */
    struct host_sample last;      /* the last interval's host sample added */
};

struct client_phase {
    uint32_t nagents;
    struct client_agent *agent;   /* [nagents] */
    struct spill *spill;          /* the run's (result_spill), for the packed blocks */
};

/* Keep agent's interval k of phase (nothing when s has neither part).
 * -EINVAL when phase, agent or k (RESULT_MAX_INTERVALS) is out of range. */
int client_result_add_interval(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                               const struct client_sample *s);
/* Keep agent's phase sample (host, mountstats, note).  -EINVAL like above. */
int client_result_set_phase(struct run_result *r, uint32_t phase, uint32_t agent,
                            const struct client_sample *s);
/* Fill h's cores, threads, nic and speed from agent's last interval added
 * in phase (unchanged when none): the compact forms leave them out when
 * they did not change. */
void client_result_inherit_static(const struct run_result *r, uint32_t phase, uint32_t agent,
                                  struct host_sample *h);
/* What agent sent for phase, or NULL when it sent nothing of this kind. */
const struct client_agent *client_result_agent(const struct run_result *r, uint32_t phase,
                                               uint32_t agent);
/* Its interval k, or NULL when it sent nothing for it.  Valid until the
 * next call for the same agent and phase (a packed block is unpacked into
 * the agent's one-block cache) or the next change to the result. */
const struct client_iv *client_result_iv(const struct run_result *r, uint32_t phase,
                                         uint32_t agent, uint32_t k);
/* Free what phase_result.client holds and set it NULL. */
void client_result_free(struct phase_result *ph);

/* The CPU rule: an agent is client-bound when its busy time reached 90% of
 * its limit, the fewer of the cores it may use and its job threads (a job
 * thread runs on one core at a time).  *limit the cores of that limit,
 * *rule "cores" or "threads", *busy the cores it kept busy (CPU seconds
 * per second).  h: the phase's host sample, or NULL to use ap's CPU
 * fields with ap->cores alone.  0 when no claim can be made: a phase
 * under a second, or CPU beyond what its cores could give in the phase's
 * time (the sampler's span was longer than the I/O). */
int client_result_cpu_bound(const struct agent_phase *ap, const struct host_sample *h,
                            double *busy, uint32_t *limit, const char **rule);
/* The NIC rule: rx or tx reached 90% of the link speed over the agent's
 * phase duration.  Unknown speed: 0 (no claim).  *pct the busier
 * direction's share of the link. */
int client_result_nic_bound(const struct agent_phase *ap, const struct host_sample *h,
                            double *pct);

#endif
