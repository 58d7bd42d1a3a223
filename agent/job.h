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
#include "common/stats.h"

struct job {
    /* set before start, read-only afterwards */
    const struct job_spec *spec;
    const struct engine_ops *eng;
    struct engine_job ej;
    uint64_t seed;
    uint64_t region_start;     /* this thread's region in each file (offset, */
    uint64_t region_len;       /* offset_increment x global job number) */
    uint64_t t_start_ns;       /* begin I/O at this monotonic instant */
    uint64_t t_end_ns;         /* stop issuing at this instant; 0 = size-bound */
    char workdir[PLAN_PATH_MAX];  /* rw=metadata: the directory it works in */
    int owns_files;            /* lays out / unlinks its files (not a shared
                                  file another thread or agent owns) */

    /* shared with the sampler: recorded sparsely (only the op types the job
     * produces, histogram chunks by range), drained into the sampler's
     * dense op_set by job_harvest */
    struct op_rec stats[2];
    atomic_uint active;        /* which stats[] the job records into */
    atomic_uint recording;     /* 1 while the job is inside a record */
    atomic_int stop;           /* set by the agent to end the job early */
    atomic_uint inflight;      /* ops outstanding now */
    atomic_uint_fast64_t oldest_issue_ns; /* issue time of the oldest of them */
    atomic_int finished;

    /* results, valid once finished */
    uint64_t t_first_ns;       /* when the first request was issued */
    uint64_t t_last_ns;        /* when the job stopped */
    int error;                 /* fatal engine error, 0 if none */

    pthread_t thread;
    int thread_started;
    void (*on_finish)(void *arg);  /* called from the job thread at the end */
    void *on_finish_arg;
};

/* Initialise everything but ej's files/engine state (the caller fills those). */
void job_init(struct job *j, const struct job_spec *spec, const struct engine_ops *eng, uint64_t seed);
/* Start the thread; it sleeps until t_start_ns. 0 or -errno. */
int job_start(struct job *j);
/* Wait for the thread to end (after it finished or was stopped), then free
 * its stats buffers: call it after the last job_harvest. */
void job_join(struct job *j);
/* Sampler side: move what the job recorded since the last harvest into acc
 * (merged, not overwritten) and reset it.  Any thread but the job's. */
void job_harvest(struct job *j, struct op_set *acc);
/* Ops outstanding and the issue time of the oldest (UINT64_MAX if none). */
void job_inflight(const struct job *j, uint32_t *n, uint64_t *oldest_issue_ns);

/* Lay out the job's files before a phase: every file shorter than its
 * planned size is written fully (read phases) or extended (write phases),
 * through the job's own engine, synchronously. *bytes_written adds up.
 * Files the job does not own are left alone. */
int job_layout(struct job *j, int fill, atomic_uint_fast64_t *done);
/* Delete the job's own files (unlink=1), after the phase. */
void job_unlink_files(struct job *j);

#endif
