/* plan_ctl: fio's phase control keys in a plan: wait_for, exitall,
 * exit_what, steadystate (ss, ss_dur, ss_ramp).
 *
 * nfstorm runs a phase on every agent together and the coordinator decides
 * for the fleet, so fio's per-job controls act on phases:
 *   wait_for=NAME  the job starts once job NAME finished.  NAME in the phase
 *                  being built: the job starts a new phase (as stonewall);
 *                  NAME in an earlier phase: already true.  NAME must come
 *                  earlier in the plan (fio allows no forward reference).
 *   exitall        a phase with such a job ends on every agent as soon as
 *                  one of that job's threads finished on any agent.
 *   exitall_on_error  a phase with such a job ends on every agent as soon
 *                  as one of that job's threads ended on an error (a
 *                  persistent engine error: ENOSPC, EROFS, ...) on any
 *                  agent; the report names the job and the error.
 *   exit_what      group (default) and stonewall: then the next phase runs
 *                  (a phase is fio's group and stonewall group at once);
 *                  all: the run ends after this phase.
 *   ss=CRIT:LIMIT  iops, iops_slope, bw, bw_slope; LIMIT absolute or N%
 *                  of the window's mean.  Judged by the coordinator on the
 *                  fleet's merged intervals over a rolling window of ss_dur
 *                  after ss_ramp; when met, the phase ends on every agent.
 *   latency_target=T, latency_window=W, latency_percentile=P
 *                  each agent searches the highest queue depth (up to the
 *                  job's iodepth) whose P-th percentile latency over each
 *                  window W stays at or under T, then ends the phase
 *                  (fio's latency_run=0): agent/latctl.h.
 * Parsing lives here (plan_keys.c hands these keys over); the coordinator's
 * side is coordinator/run/phase_ctl.c. */
#ifndef NFSTORM_PLAN_CTL_H
#define NFSTORM_PLAN_CTL_H

#include <stddef.h>
#include "common/plan.h"

enum plan_exit_what { PLAN_EXIT_GROUP = 0, PLAN_EXIT_STONEWALL, PLAN_EXIT_ALL };
enum plan_ss { PLAN_SS_NONE = 0, PLAN_SS_IOPS, PLAN_SS_IOPS_SLOPE, PLAN_SS_BW, PLAN_SS_BW_SLOPE };

/* 1 if key is one of plan_ctl's (aliases included). */
int plan_ctl_is_key(const char *key);
/* Set one of them on j.  0, -ENOENT (not ours), -EINVAL with why. */
int plan_ctl_set(struct job_spec *j, const char *key, const char *value, char *why, size_t whylen);
/* The words: "iops_slope", "all"; NULL when out of range. */
const char *plan_ss_name(enum plan_ss s);
const char *plan_exit_what_name(enum plan_exit_what w);

/* Before j joins plan p: resolve wait_for (above), setting j->stonewall
 * when the waitee is in p's last phase.  0, or -EINVAL with err naming the
 * job and the waitee (none earlier, or more than one of that name). */
int plan_ctl_wait_for(const struct plan *p, struct job_spec *j, char *err, size_t errlen);

#endif
