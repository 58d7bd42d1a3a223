/* clean: what a plan's files amount to, and removing them.
 *
 * clean_estimate adds up, before a run, what the plan will write across
 * the agents: the data layout writes for read jobs (files it must fill)
 * and the bytes the write phases write (writes x their share, loops,
 * number_ios; rate x runtime for rate-limited time-based jobs).  A
 * time-based write job without a rate writes as fast as it can until its
 * runtime: it is counted by its files' size and flagged.
 *
 * clean_execute is `nfstorm clean` and `nfstorm run --cleanup`: it dials
 * every agent, authenticates as a run does, and sends a clean message
 * with the plan; each agent removes the files the plan names (agent/
 * clean.c, within its --allow confinement) and says how many and how many
 * bytes.  Single-threaded, on a libuv loop of its own. */
#ifndef NFSTORM_CLEAN_H
#define NFSTORM_CLEAN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "coordinator/fleet/gather.h"
#include "proto/auth.h"
#include "proto/msg.h"

struct clean_estimate {
    uint64_t layout_bytes;     /* read jobs' files, laid out with data if missing */
    uint64_t write_bytes;      /* written by write phases (bounded ones) */
    int unbounded;             /* time-based writes without a rate: counted by file size */
};

/* Sum over the phases, the jobs and the agents that run them
 * (plan_agents_match with nagents); saturates at UINT64_MAX. */
void clean_estimate(const struct plan *p, uint32_t nagents, struct clean_estimate *e);
/* One line, no newline: "about to write 6.0GiB across 2 agents (layout
 * 2.0GiB, write phases 4.0GiB)". */
void clean_estimate_line(const struct clean_estimate *e, uint32_t nagents, char *out, size_t len);

struct clean_result {
    int ok;                    /* the agent answered with what it removed */
    struct msg_cleaned done;
    char err[MSG_TEXT_MAX + 128];   /* else why not, naming the agent */
};

/* Remove the files plan lays out on agents addrs[0..n) (agent index =
 * position), out[i] for agent i: dialled, or, when joined is not NULL,
 * agents ndial..n-1 over joined[0..n-ndial)'s connections (dial-in agents
 * gather.c or serve authenticated, after a mixed fleet's listed ones; their
 * fds are taken and closed here).  timeout_ms bounds the connect and
 * handshake and any silence of an agent afterwards; once *interrupt is
 * non-zero (a signal handler's flag; checked every second) the agents not
 * yet done are given up.  Returns how many agents failed (0: all answered). */
uint32_t clean_execute(const struct plan *plan, char *const *addrs, struct gather_agent *joined, uint32_t ndial,
                       uint32_t n, const struct auth_secret *secret, uint32_t timeout_ms,
                       const volatile sig_atomic_t *interrupt, struct clean_result *out);
/* Why a clean of n agents removed nothing, others being the union of
 * their msg_cleaned.others: "the plan's names expand to agents 0-3; the
 * files there are named for agents 4-7 (...)".  One line, no newline. */
void clean_why_nothing(char *out, size_t len, uint32_t n, uint64_t others);
/* Print one line per agent and a total to f (when nothing matched
 * anywhere, "clean: nothing matched: WHY" instead of the total); the exit status: 0 when every
 * agent answered, else 1. */
int clean_report(FILE *f, char *const *addrs, uint32_t n, const struct clean_result *res);

#endif
