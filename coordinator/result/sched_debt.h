/* sched_debt: an open-loop phase's schedule debt, so "achieved less than
 * asked" says who fell behind.  A phase is open-loop when its jobs run on a
 * schedule (rate_iops=, rate=, or a rate sweep's point): each agent counts
 * the ops it issued later than due by more than one gap of the rate, and
 * their summed lateness (msg_phase_done late_ops, late_ns).  Debt with the
 * client's CPU busy says the client fell behind; debt with it idle says the
 * server held the client's slots (the ops in flight) too long.
 *
 * Results: phases[].schedule_debt (what was asked, achieved, the fleet's
 * debt) and phases[].agents[].schedule_debt (each agent's, with its CPU);
 * the text's one line per phase that achieved less than asked.  Loop thread
 * or a report's, like the result they read. */
#ifndef NFSTORM_SCHED_DEBT_H
#define NFSTORM_SCHED_DEBT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"

struct run_result;
struct phase_result;
struct agent_phase;

/* The phase's asked load from its plan (result_init): every rated job's
 * rate_iops / rate (both directions' with per-direction lists) x numjobs x
 * the agents it runs on, into ph->asked_iops / asked_bps (0: closed loop). */
void sched_debt_asked(struct phase_result *ph, const struct phase *src, uint32_t nagents);
/* The phase's "schedule_debt" object (a jansson json_t *, new reference),
 * or NULL when the phase is closed-loop. */
void *sched_debt_phase_json(const struct run_result *r, uint32_t phase);
/* Agent a's "schedule_debt" object, or NULL (closed loop, or not taking part). */
void *sched_debt_agent_json(const struct run_result *r, uint32_t phase, uint32_t a);
/* Back from a result file or journal: the phase's asked load from its
 * "schedule_debt" (json_t *), and an agent's late_ops / late_ns from its own.
 * 0, or -EINVAL with why naming the field. */
int sched_debt_phase_load(const void *json, struct phase_result *ph, char *why, size_t whylen);
int sched_debt_agent_load(const void *json, struct agent_phase *ap, char *why, size_t whylen);
/* Text: when the phase achieved under 95% of what it asked, one line with
 * the shortfall and each running agent's debt and CPU. */
void sched_debt_text(FILE *out, const struct run_result *r, uint32_t phase);

#endif
