/* job: one job thread: the loop that turns a job_spec into I/O requests,
 * hands them to an engine, and records what completes.
 *
 * Stats are double-buffered without locks: the job records into
 * stats[active]; the sampler (agent loop thread) flips `active` and waits
 * only while the job is inside a record (a few ns, see job_harvest), so
 * measuring never stalls the workload and the job never takes a lock. */
#ifndef NFSTORM_JOB_H
#define NFSTORM_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "agent/engine.h"
#include "agent/halt.h"
#include "common/errcause.h"
#include "common/stats.h"
#include "common/vstats.h"

/* Data buffers are aligned for direct=1; a reap waits at most this long,
 * so a stop or a deadline is seen (the loop and the layout alike). */
#define JOB_BUF_ALIGN       4096
#define JOB_REAP_WAIT_NS    (100 * 1000000ull)

struct loop;                   /* job.c: the I/O loop's slots and buffers */

struct job {
    /* set before start, read-only afterwards */
    const struct job_spec *spec;
    const struct engine_ops *eng;
    struct engine_job ej;
    uint64_t seed;
    uint64_t region_start;     /* this thread's region in each file (offset, */
    uint64_t region_len;       /* offset_increment x global job number) */
    uint64_t sized_bytes;      /* a job sized by its files (job_files.h): bytes
                                  of I/O per pass, in place of spec->size */
    uint32_t source_agent;     /* whose files and regions it uses: this agent,
                                  or (index + rotate) mod N; the expected
                                  writer of the blocks it reads */
    atomic_uint_fast64_t t_start_ns;  /* begin I/O at this monotonic instant:
                                  HALT_NEVER until the phase starts */
    uint64_t t_end_ns;         /* stop issuing at this instant; 0 = size-bound
                                  (set before t_start_ns is published) */
    struct flow_group *flow;   /* flow=: its group (agent/flow.h), or NULL */
    uint64_t flow_issued;      /* flow=: ops it issued (its own thread only) */
    const atomic_uint *depth_cap;  /* latency_target, or a searched sweep=iodepth
                                    point: ops in flight at most this
                                    (phase_run.depth_cap); NULL: iodepth */
    int benched;               /* a searched sweep=numjobs point left this thread
                                  out: it ends at its start without I/O (set on
                                  the loop thread before phase_start publishes
                                  t_start_ns, read by the thread after it) */
    struct halt *halt;         /* the phase's stop signal: every sleep of the
                                  thread and every layout chunk checks it */
    char workdir[PLAN_PATH_MAX];  /* rw=metadata: the directory it works in */
    uint8_t *md_found;         /* rw=metadata: bit d = subdirectory d existed
                                  before the phase (mdjob_prepare; freed by
                                  mdjob_run or job_release), or NULL */
    struct cohjob *coh;        /* rw=coherence: its state (agent/cohjob.h), or NULL */
    int owns_files;            /* lays out its files when short (not a file
                                  another thread, or for libnfs another
                                  agent, lays out: build_job in phase.c) */
    uint64_t verify_gen;       /* verify=: generation of this phase's writes
                                  (vblock_generation, pass 1; layout: pass 0) */
    uint32_t verify_job;       /* verify=: global job number in its headers */
    uint64_t verify_run;       /* verify=: the run's id, in its headers */
    uint64_t verify_min_gen;   /* verify=: 0, or the generation of the earlier phase
                                  of this run that wrote its files: its reads
                                  expect that run and at least that (phase_prior.h) */
    struct vstats *vstats;     /* verify=: what its reads found; made by
                                  job_prepare, valid once finished, freed by
                                  job_join / job_release; NULL without verify= */

    /* shared with the sampler: recorded sparsely (only the op types the job
     * produces, histogram chunks by range), drained into the sampler's
     * dense op_set by job_harvest */
    struct op_rec stats[2];
    struct errcause_set *causes[2];  /* why its failed ops failed, beside
                                  stats[] (the same flip moves both, so an
                                  interval's causes are its errors'): made
                                  by the job thread at the first failure
                                  recorded into that side, freed by job_join
                                  / job_release */
    atomic_uint active;        /* which stats[] the job records into */
    atomic_uint recording;     /* 1 while the job is inside a record */
    atomic_int stop;           /* set by the agent to end the job early */
    atomic_uint inflight;      /* ops outstanding now */
    atomic_uint_fast64_t oldest_issue_ns; /* issue time of the oldest of them */
    atomic_int finished;

    /* results, valid once finished */
    uint64_t t_first_ns;       /* when the first request was issued;
                                  UINT64_MAX if it never began (stopped before) */
    uint64_t t_last_ns;        /* when the job stopped */
    uint64_t late_ops;         /* schedule debt of a rated job: ops issued later than
                                  due by more than one gap of its rate (after
                                  ramp_time), */
    uint64_t late_ns;          /* and their summed lateness; the job thread's,
                                  read once it ended */
    int error;                 /* fatal engine error, 0 if none */

    struct loop *loop;         /* made by job_prepare, freed by the thread */
    pthread_t thread;
    int thread_started;
    void (*on_finish)(void *arg);  /* called from the job thread at the end */
    void *on_finish_arg;
};

/* Initialise everything but ej's files/engine state (the caller fills those). */
void job_init(struct job *j, const struct job_spec *spec, const struct engine_ops *eng, uint64_t seed);
/* Everything the thread needs before its first op (slots, aligned and
 * filled buffers; direct=1 alignment checked), so the timed window holds
 * only I/O.  After engine setup, before job_spawn.  0 or -errno (text in
 * ej.err). */
int job_prepare(struct job *j);
/* Create the thread (on a small stack).  It waits, doing nothing, until
 * t_start_ns is set and reached (or the halt is raised: then it ends
 * without I/O).  0 or -errno. */
int job_spawn(struct job *j);
/* Wait for the thread to end (after it finished or was stopped), then free
 * its stats buffers: call it after the last job_harvest. */
void job_join(struct job *j);
/* Free what job_prepare made if the thread never ran (idempotent). */
void job_release(struct job *j);
/* Sampler side: move what the job recorded since the last harvest into acc
 * and its failures' causes into causes (merged, not overwritten) and reset
 * them.  Any thread but the job's. */
void job_harvest(struct job *j, struct op_set *acc, struct errcause_set *causes);
/* Ops outstanding and the issue time of the oldest (UINT64_MAX if none). */
void job_inflight(const struct job *j, uint32_t *n, uint64_t *oldest_issue_ns);

/* One op a job thread ran outside the I/O loop (mdjob, cohjob): bytes,
 * its latency from since to now, rc 0 or -errno (a failure counted by its
 * cause, with the op's file and offset).  The job's thread only. */
void job_record_op(struct job *j, enum op_type op, uint64_t bytes, uint64_t since, int rc, const char *path,
                   uint64_t offset);

#endif
