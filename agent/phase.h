/* phase: one phase of a plan as this agent runs it: the job threads, their
 * files and engines.
 *
 * Life of a phase_run (owner: the session; which thread calls what):
 *   phase_init      loop thread, before anything else; the halt exists from
 *                   here on, so phase_stop may be called at any time
 *   phase_prepare   worker thread: paths, engines, free space, layout, job
 *                   buffers, and the job threads, which wait for the start
 *   phase_start     loop thread: publish the start instant
 *   phase_harvest, phase_inflight, phase_first_error
 *                   loop thread, while running / once all jobs finished
 *   phase_finish    worker thread: join, unlink=1, engine teardown, free
 *   phase_release   loop thread, after phase_finish or a failed
 *                   phase_prepare: the halt goes (no stop after this)
 * The loop thread never does file or NFS work (it keeps heartbeats going):
 * phase_prepare and phase_finish assert they are not called on it. */
#ifndef NFSTORM_PHASE_H
#define NFSTORM_PHASE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "agent/halt.h"
#include "agent/job.h"
#include "agent/latctl.h"
#include "agent/paths.h"
#include "agent/phase_clones.h"
#include "common/nfs_rpc.h"
#include "common/plan.h"
#include "common/storage.h"

#define PHASE_ERR_MAX 768

struct agent_identity {
    uint32_t index;              /* ${agent} */
    uint32_t nagents;
    const char *host;            /* ${host} */
    const struct allow_list *allow;
    const struct allow_list *allow_nfs;  /* URL prefixes in root[] (not paths) */
    pthread_t loop_thread;       /* the agent's libuv loop: no file work there */
    /* verify=: what generations of written blocks are made of
     * (vblock_generation): the wall clock when the plan arrived, ms since
     * the epoch, and the phase being prepared */
    uint64_t run_ms;
    uint32_t phase;
    uint64_t run_id;             /* the run's identity (vblock.h), in every header */
    const struct plan *plan;     /* the whole plan: which earlier phase wrote a file */
};

struct phase_run {
    const struct phase *ph;
    struct job *jobs;            /* one per thread: numjobs of each job_spec */
    uint32_t njobs;
    uint64_t ramp_ns;            /* longest ramp of the phase's jobs */
    atomic_uint_fast64_t layout_total;  /* bytes reading (and overwrite=1) jobs need laid out */
    atomic_uint_fast64_t layout_done;   /* of those, present or written so far */
    atomic_int layout_known;     /* layout_total is whole: progress may be reported */
    atomic_uint running;         /* job threads not yet finished */
    struct halt halt;            /* stop: ends layout, sleeps and I/O */
    struct storage_info *storage;  /* where the jobs do I/O (phase_storage.h),
                                    [nstorage], set by a successful
                                    phase_prepare, freed by phase_release */
    uint32_t nstorage;
    pthread_t loop_thread;
    /* latency_target (latctl.h): the depth its jobs may use, and the search */
    atomic_uint depth_cap;
    int lat_on;
    struct latctl lat;
    struct flow_group *flows;    /* flow= groups of this phase (agent/flow.h) */
    uint32_t nflows;
    struct phase_clones clones;  /* each thread's figures (agent/phase_clones.h),
                                    set by a successful phase_prepare, freed by
                                    phase_release */
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
/* The job's nfs_url expanded for this agent and checked against its
 * --allow-nfs (the whole URL: server, export, path, parameters).  0 or
 * -errno with err set. */
int phase_job_nfs_url(const struct job_spec *js, const struct agent_identity *id, char *out, size_t outlen,
                      char *err, size_t errlen);
/* Call fn(arg, job, path) for every data file of ph this agent would use,
 * path as phase_file_name gives it, in phase_prepare's order (a file shared
 * by threads comes once per thread).  Metadata jobs are skipped.  Stops at
 * the first error (fn's, or a path that cannot be expanded): 0 or -errno. */
int phase_each_file(const struct phase *ph, const struct agent_identity *id,
                    int (*fn)(void *arg, const struct job_spec *js, const char *path), void *arg,
                    char *err, size_t errlen);

/* Empty run with its halt; on_all_finished(arg) will be called from the
 * last job thread to end (possibly before phase_start if stopped). */
void phase_init(struct phase_run *pr, void (*on_all_finished)(void *), void *arg);
/* Build jobs, set up engines, check free space, lay out files, make the
 * job threads (waiting for phase_start).  Blocking; a worker thread.  On
 * failure (or a stop: -ECANCELED) everything is torn down again, threads
 * included, and err says why; the run is then as after phase_finish. */
int phase_prepare(struct phase_run *pr, const struct phase *ph,
                  const struct agent_identity *id, char *err, size_t errlen);
/* A searched sweep point's shape (msg_start.depth / threads, 0 = the
 * plan's): every thread keeps at most depth ops in flight, and each job runs
 * only its first threads threads (the rest end without I/O).  Loop thread,
 * after phase_prepare and before phase_start. */
void phase_sweep_point(struct phase_run *pr, uint32_t depth, uint32_t threads);
/* Let the job threads go at t0 (agent clock).  Loop thread, no blocking. */
void phase_start(struct phase_run *pr, uint64_t t0_ns);
/* Merge what every job recorded since the last harvest into acc, and the
 * causes of its failed ops into causes (job order). */
void phase_harvest(struct phase_run *pr, struct op_set *acc, struct errcause_set *causes);
/* acc += the NFS RPC telemetry the phase's nfs jobs recorded since the last
 * call (agent/nfs_rpcstat.h); same thread rules as phase_harvest. */
void phase_harvest_nfs(struct phase_run *pr, struct nfs_rpc_set *acc);
/* Ops outstanding across the phase's jobs and the age of the oldest. */
void phase_inflight(struct phase_run *pr, uint32_t *n, uint64_t *oldest_age_ns);
/* latency_target: one interval's ops (loop thread, while running).  Steps
 * the search, publishes the depth to the jobs; when it ended, stops the
 * phase as fio's latency_run=0 does.  No-op without latency_target. */
void phase_latency_interval(struct phase_run *pr, const struct op_set *s, uint64_t iv_ns);
/* Ask every job (or the preparing worker) to stop: layout ends between
 * chunks, sleeps end now, jobs finish their in-flight ops.  Any thread. */
void phase_stop(struct phase_run *pr);
/* Once every job thread finished: the first job error (0 if none), its
 * text in err.  No I/O. */
int phase_first_error(struct phase_run *pr, char *err, size_t errlen);
/* Join threads, delete unlink=1 files, tear engines down, free.  Blocking;
 * a worker thread. */
void phase_finish(struct phase_run *pr);
/* The end of what phase_init made (no I/O). */
void phase_release(struct phase_run *pr);

#endif
