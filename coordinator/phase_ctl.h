/* phase_ctl: the coordinator's side of fio's phase control (exitall,
 * exit_what, steadystate; the keys: common/plan_ctl.h).
 *
 * The coordinator sees the fleet, so it decides: a phase with an exitall
 * job ends on every agent once one participating agent finished it (its
 * own threads ended it there: agent/job.c); a phase with ss= ends once the
 * fleet's merged intervals, after ss_ramp, hold a window of ss_dur that
 * meets the criterion.  Either way run.c sends phase-end (proto/msg.h) to
 * the agents still running it, once.  What was decided goes into the
 * phase's result (struct phase_end_info) for the reports.
 *
 * Pure functions of the plan and the result: no sockets, no clock. */
#ifndef NFSTORM_PHASE_CTL_H
#define NFSTORM_PHASE_CTL_H

#include <stddef.h>
#include "common/plan.h"
#include "coordinator/result.h"

/* Phase ph starts: copy its steady-state settings (of its first job with
 * ss=) into pr->ctl. */
void phase_ctl_begin(struct phase_result *pr, const struct phase *ph);
/* Agent `agent` sent its phase-done.  1 when the other agents must end the
 * phase now (an exitall job, a participating agent; not yet ended); then
 * pr->ctl says why. */
int phase_ctl_agent_done(struct phase_result *pr, const struct phase *ph, uint32_t agent);
/* Merged interval k of the phase is complete (every live agent sent it).
 * 1 when steady state is attained with it (not yet ended); pr->ctl has
 * the criterion, the window's mean and when. */
int phase_ctl_interval(struct phase_result *pr, uint32_t k);
/* Agent `agent` said a job failed (its error text `what`, "phase N: job
 * 'NAME': ...").  1 when that job has exitall_on_error and the phase was
 * not yet ended: pr->ctl is then ended early, its why naming the agent,
 * the job and the error.  (The run stops the fleet on any job's error
 * anyway: run.c; this says so in the phase's control.) */
int phase_ctl_agent_error(struct phase_result *pr, const struct phase *ph, uint32_t agent,
                          const char *what);
/* The run ends after this phase (exitall with exit_what=all ended it). */
int phase_ctl_end_run(const struct phase_result *pr, const struct phase *ph);

/* Steady state's window, in the phase's intervals: ceil(ss_dur /
 * interval), never fewer than 2; and the first interval it may start at
 * (the first at or after ss_ramp).  0 when the phase has no interval. */
uint32_t phase_ctl_ss_window(const struct phase_result *pr);
uint32_t phase_ctl_ss_first(const struct phase_result *pr);

/* The latency target's outcome as one line for the phase's verdict
 * reasons (the search ends the phase long before its runtime, and a depth
 * of 0 means the figures are those of depth 1, which missed): into buf,
 * 1; 0 when the phase had no latency target or no agent ended its search. */
int phase_ctl_lat_reason(const struct phase_result *pr, uint32_t nagents, char *buf, size_t len);

struct json_t;
/* The result JSON's view of pr->ctl (docs/results.md): NULL when the
 * phase had no phase control to report, else a new object (the caller
 * owns it) with "ended_early", "why", "skipped" and, with ss=, fio's
 * "steadystate" {"ss", "limit", "pct", "duration_s", "ramp_s",
 * "attained", "criterion", "mean", "at_s"}, and with latency_target
 * "latency_target" {"target_us", "window_us", "percentile", "depth" (per
 * participating agent: the depth found, 0 when even 1 missed, null when
 * its search did not end), "fleet_depth" (their sum; null unless all
 * ended)}. */
struct json_t *phase_ctl_json(const struct phase_result *pr, uint32_t nagents);

/* The reverse, for result_load: pr->ctl (and the agents' lat_depth) from
 * a phase's "control" object as phase_ctl_json wrote it (agents already
 * loaded).  0, or -EINVAL with the offending key in err (a wrong type, a
 * string too long, a criterion or a depth list that does not fit). */
int phase_ctl_load(struct phase_result *pr, uint32_t nagents, const struct json_t *ctl,
                   char *err, size_t errlen);

/* The criterion over n values v[] sampled every dt_s: fio's meaning.
 * iops/bw: the largest |v - mean|; _slope: |least-squares slope| per
 * second.  *mean gets the mean.  Exposed for the unit test. */
double phase_ctl_criterion(uint32_t ss, const double *v, uint32_t n, double dt_s, double *mean);

#endif
