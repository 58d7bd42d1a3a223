/* flow: fio's flow control (flow=, flow_id=, flow_sleep=) among the job
 * threads of one phase on one agent.
 *
 * fio 3.33's rule: the job threads that share a flow_id each count the ops
 * they issue, and the group counts them all; a thread whose share of the
 * group's ops is above its share of the group's weight (its flow= over the
 * sum of the members' flow=) waits flow_sleep (fio's default 50 us) before
 * it tries again.  So flow=1 and flow=8 run about 1:8.
 *
 * Across the fleet: each agent regulates its own threads, so jobs that run
 * on every agent keep their ratio on each, and in the sums; two jobs placed
 * on different agents (agents=) are not regulated against each other.
 * Counters are atomics: the check costs two relaxed loads per op. */
#ifndef NFSTORM_FLOW_H
#define NFSTORM_FLOW_H

#include <stdatomic.h>
#include <stdint.h>

#define FLOW_DEFAULT_SLEEP_NS 50000u

struct flow_group {
    uint32_t id;
    uint64_t weight;                 /* sum of the members' flow= */
    atomic_uint_fast64_t issued;     /* ops the members issued */
};

struct job;
struct phase_run;

/* Give every job thread with flow= > 0 its group (groups made in
 * pr->flows, by flow_id).  0, or -ENOMEM never (xmalloc). */
void flow_setup(struct phase_run *pr);
void flow_free(struct phase_run *pr);

/* Is thread j ahead of its weight?  Then it waits before its next op. */
int flow_held(const struct job *j);
/* One op issued by j. */
void flow_note(struct job *j);

#endif
