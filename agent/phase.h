/* phase: one phase of a plan as this agent runs it: the job threads, their
 * files and engines.
 *
 * phase_prepare does the slow, blocking part (expanding and confining
 * paths, connecting engines, laying out files) and is meant for a worker
 * thread; the rest is called from the agent's loop thread. */
#ifndef NFSTORM_PHASE_H
#define NFSTORM_PHASE_H

#include <stdatomic.h>
#include <stdint.h>
#include "agent/job.h"
#include "agent/paths.h"
#include "common/plan.h"

#define PHASE_ERR_MAX 768

struct agent_identity {
    uint32_t index;              /* ${agent} */
    uint32_t nagents;
    const char *host;            /* ${host} */
    const struct allow_list *allow;
    const struct allow_list *allow_nfs;  /* URL prefixes in root[] (not paths) */
};

struct phase_run {
    const struct phase *ph;
    struct job *jobs;            /* one per thread: numjobs of each job_spec */
    uint32_t njobs;
    uint64_t ramp_ns;            /* longest ramp of the phase's jobs */
    atomic_uint_fast64_t layout_total;  /* bytes read phases need laid out */
    atomic_uint_fast64_t layout_done;   /* of those, present or written so far */
    atomic_uint running;         /* job threads not yet finished */
    void (*on_all_finished)(void *arg);   /* from the last job thread */
    void *arg;
};

/* Check a whole plan against this agent's allow lists and engines, without
 * touching anything.  0 or -errno with a one-line reason in err. */
int phase_check_plan(const struct plan *p, const struct agent_identity *id,
                     char *err, size_t errlen);

/* The path of file f of thread t (g: its global job number on this agent,
 * counted across the phase's jobs) as the plan names it: expanded, in the
 * agent's default directory when relative, NOT yet confined (nfs: relative
 * to the export).  0 or -errno with err set. */
int phase_file_name(const struct job_spec *js, const struct agent_identity *id,
                    uint32_t t, uint32_t g, uint32_t f, char *out, size_t outlen,
                    char *err, size_t errlen);
/* Call fn(arg, job, path) for every data file of ph this agent would use,
 * path as phase_file_name gives it, in phase_prepare's order (a file shared
 * by threads comes once per thread).  Metadata jobs are skipped.  Stops at
 * the first error (fn's, or a path that cannot be expanded): 0 or -errno. */
int phase_each_file(const struct phase *ph, const struct agent_identity *id,
                    int (*fn)(void *arg, const struct job_spec *js, const char *path), void *arg,
                    char *err, size_t errlen);

/* Build jobs, set up engines and lay out files.  Blocking.  On failure
 * everything is torn down again and err says why. */
int phase_prepare(struct phase_run *pr, const struct phase *ph,
                  const struct agent_identity *id, char *err, size_t errlen);
/* Start all job threads at t0 (agent clock). */
int phase_start(struct phase_run *pr, uint64_t t0_ns);
/* Merge what every job recorded since the last harvest into acc. */
void phase_harvest(struct phase_run *pr, struct op_set *acc);
/* Ops outstanding across the phase's jobs and the age of the oldest. */
void phase_inflight(struct phase_run *pr, uint32_t *n, uint64_t *oldest_age_ns);
/* Ask every job to stop (they finish their in-flight ops first). */
void phase_stop(struct phase_run *pr);
/* Join threads, tear engines down, free.  The first job error, if any, is
 * returned with its text in err. */
int phase_finish(struct phase_run *pr, char *err, size_t errlen);

#endif
