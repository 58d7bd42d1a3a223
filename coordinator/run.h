/* run: the coordinator's side of one run across a fleet of agents.
 *
 * Dials every agent and says hello (or adopts the connections of agents
 * that dialled in, gather.h, already past hello and auth), measures each
 * agent's clock offset with pings, sends the plan, and for each phase waits until every agent is
 * ready, starts them all at one instant (in each agent's own clock), and
 * merges the intervals and totals they stream into a run_result.
 * Single-threaded on a libuv loop of its own. */
#ifndef NFSTORM_RUN_H
#define NFSTORM_RUN_H

#include <stdint.h>
#include <stdio.h>
#include "common/clone_set.h"
#include "common/plan.h"
#include "common/nfs_rpc.h"
#include "coordinator/result.h"
#include "proto/auth.h"

struct gather_agent;

/* Hooks for reporters that follow the run as it goes (live line, time
 * series, journal).  Called on the run's loop thread; any may be NULL. */
struct run_observer {
    void (*phase_start)(void *arg, const struct run_result *r, uint32_t phase);
    /* interval k of phase now holds every agent's data (merged and per agent) */
    void (*interval)(void *arg, const struct run_result *r, uint32_t phase, uint32_t k);
    void (*phase_done)(void *arg, const struct run_result *r, uint32_t phase);
    /* raw arrivals, as they come (the journal records these) */
    void (*agent_interval)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                           uint32_t k, const struct op_set *s);
    void (*agent_phase_done)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                             const struct agent_phase *ap);
    /* an agent's NFS RPC telemetry (common/nfs_rpc.h) of interval k and of
     * its phase-done, right after agent_interval / agent_phase_done */
    void (*agent_interval_nfs)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                               uint32_t k, const struct nfs_rpc_set *s);
    void (*agent_phase_nfs)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                            const struct nfs_rpc_set *s);
    /* an agent's per-thread figures of interval k (msg_interval "clones",
     * sent when the phase logs per clone), right after agent_interval;
     * empty when the message carried none */
    void (*agent_interval_clones)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                                  uint32_t k, const struct clone_set *s);
    void (*agent_lost)(void *arg, const struct run_result *r, uint32_t agent, const char *why);
    /* verdict inputs: an agent's error in phase (its text), and how the run
     * ended early (r->end, end_phase, end_at_s, end_text are set) */
    void (*agent_error)(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                        const char *text);
    void (*run_end)(void *arg, const struct run_result *r);
    /* layout before phase: bytes laid out so far and in all, over all agents */
    void (*layout)(void *arg, const struct run_result *r, uint32_t phase, uint64_t done_bytes,
                   uint64_t total_bytes);
    void *arg;
};

struct run_options {
    char **addrs;            /* "host:port" of each agent, in agent-index order */
    uint32_t naddrs;
    uint32_t interval_ms;    /* default 1000 */
    uint32_t connect_timeout_ms;
    uint32_t agent_timeout_ms;   /* silence after which an agent is lost (default 10 s); also
                                    how long its layout may go without progress */
    uint32_t prepare_timeout_ms; /* a phase's preparation without layout progress may take this
                                    long before the agent is lost (0: RUN_PREPARE_TIMEOUT_MS) */
    const struct client_caps *client_caps;   /* --client-cap (client_cap.h), NULL none:
                                recorded per agent by its labels */
    int control_tos;         /* --control-tos: the TOS byte of the agents' connections
                                (net/ctlsock.h; CTLSOCK_TOS_NONE: left unmarked) */
    const struct auth_secret *secret;  /* NULL: no authentication */
    const struct run_observer *observers;
    uint32_t nobservers;
    /* Agents that dialled in (gather.h), already authenticated: agents
     * ndial..naddrs-1 are joined[0..naddrs-ndial), in agent-index order;
     * the run adopts their sockets (and closes them) instead of dialling.
     * Agents 0..ndial-1 are dialled at addrs (a mixed fleet: the listed
     * agents first).  NULL: dial every agent. */
    struct gather_agent *joined;
    uint32_t ndial;
    /* Each agent's labels, comma-separated, in agent-index order (NULL, or
     * NULL entries: none), recorded in the result (agent_info.labels). */
    char **labels;
};

/* --prepare-timeout's default: preparation (engine connects, the space
 * check, file creation, preallocation, job threads) that reports no layout
 * progress; generous, since a large preallocation reports none either. */
#define RUN_PREPARE_TIMEOUT_MS (300u * 1000u)

enum run_status {
    RUN_OK = 0,
    RUN_PARTIAL = 1,         /* finished, but agents were lost on the way */
    RUN_INTERRUPTED = 2,     /* SIGINT/SIGTERM: agents stopped, partial results */
};

/* Run plan on the agents; fills result (initialised here, caller frees with
 * result_free even on failure), including how the run ended (result->end)
 * for the verdicts.  A run_status, or -errno with a one-line reason in err
 * naming the agent (also when an agent reported an error during a phase:
 * the run then ends after that phase).  On RUN_PARTIAL err names the lost
 * agents.  The exit status is the verdicts' (verdict_run), not this.
 * A second SIGINT/SIGTERM exits the process at once with status 130. */
int run_execute(const struct plan *plan, const struct run_options *opt,
                struct run_result *result, char *err, size_t errlen);

/* Test seam for the fuzzer (tests/fuzz/fuzz_run.c): run plan on
 * opt->naddrs agents whose bytes come from script rather than sockets, on
 * a clock of the script's.  Records, until the script ends or the run does:
 * a byte 0x80|t advances the clock by t*100 ms and runs the heartbeat
 * timer; a byte a < 0x80 and a 2-byte big-endian length L deliver the next
 * L bytes as if agent a % naddrs sent them.  Then every agent hangs up.
 * What the coordinator sends is encoded and dropped.  result as for
 * run_execute (caller frees); returns run_execute's statuses. */
int run_feed_script(const struct plan *plan, const struct run_options *opt, const unsigned char *script,
                    size_t len, struct run_result *result, char *err, size_t errlen);

#endif
