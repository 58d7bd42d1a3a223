/* run: the coordinator's side of one run across a fleet of agents.
 *
 * Dials every agent, says hello, measures each agent's clock offset with
 * pings, sends the plan, and for each phase waits until every agent is
 * ready, starts them all at one instant (in each agent's own clock), and
 * merges the intervals and totals they stream into a run_result.
 * Single-threaded on a libuv loop of its own. */
#ifndef NFSTORM_RUN_H
#define NFSTORM_RUN_H

#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "coordinator/result.h"

/* Hooks for reporters that follow the run as it goes (live line, time
 * series, journal).  Called on the run's loop thread; any may be NULL. */
struct run_observer {
    void (*phase_start)(void *arg, const struct run_result *r, uint32_t phase);
    /* interval k of phase now holds every agent's data (merged and per agent) */
    void (*interval)(void *arg, const struct run_result *r, uint32_t phase, uint32_t k);
    void (*phase_done)(void *arg, const struct run_result *r, uint32_t phase);
    void *arg;
};

struct run_options {
    char **addrs;            /* "host:port" of each agent, in agent-index order */
    uint32_t naddrs;
    uint32_t interval_ms;    /* default 1000 */
    uint32_t connect_timeout_ms;
    const struct run_observer *observers;
    uint32_t nobservers;
};

/* Run plan on the agents; fills result (initialised here, caller frees with
 * result_free even on failure).  0, or -errno with a one-line reason in err
 * naming the agent. */
int run_execute(const struct plan *plan, const struct run_options *opt,
                struct run_result *result, char *err, size_t errlen);

#endif
