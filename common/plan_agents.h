/* plan_agents: a job's agents= spec.
 * Syntax: "" (every agent), a list of indexes and ranges "0-3,7", or
 * "@LABEL" (several: "@a,@b") naming agents by the labels of the hosts file.
 * Labels are resolved by the coordinator (plan_resolve_labels) before the
 * plan is sent, so agents only ever see index lists. */
#ifndef NFSTORM_PLAN_AGENTS_H
#define NFSTORM_PLAN_AGENTS_H

#include "common/plan.h"

/* 0 if spec is well formed, else -EINVAL (err says why). */
int plan_agents_check(const char *spec, char *err, size_t errlen);
/* 1 if agent `index` runs a job with this agents= spec, 0 if it idles.
 * "" matches every agent; a spec still holding @labels matches none. */
int plan_agents_match(const char *spec, uint32_t index);
/* Replace every "@LABEL" in the plan's agents= by the indexes of the agents
 * carrying that label (labels[i] is agent i's label list, comma-separated,
 * or NULL; labels itself may be NULL).  Then check every job runs on at
 * least one of the nagents agents.  0, or -EINVAL with err naming the job
 * and the unknown label or empty selection. */
int plan_resolve_labels(struct plan *p, const char *const *labels, uint32_t nagents,
                        char *err, size_t errlen);
/* ${job} of thread 0 of job k of phase ph on agent `agent`: the threads of
 * the earlier jobs of the phase that this agent runs come first.  Thread t
 * of job k has number base + t.  Shared by the agent and --dry-run. */
uint32_t plan_job_base(const struct phase *ph, uint32_t k, uint32_t agent);

#endif
