/* cohjob: the job thread of rw=coherence (common/coherence.h for what it
 * measures).  A writer agent writes generation g of its file at
 * t0 + (g-1) x coherence_period; every other agent running the job polls
 * every writer's file until it shows g, and keeps one coh_pair per writer.
 *
 * Files go straight through open(2)/pread/pwrite/stat on the confined path
 * (kernel mounts only: rw=coherence requires ioengine=psync), not through
 * the engine's queue: each poll is a fresh open, read and close (or stat),
 * which is the point of the measurement.  The last component is opened
 * with O_NOFOLLOW; unlike posix_open (openat2 beneath the root) a
 * directory swapped for a symlink after confinement is not caught. */
#ifndef NFSTORM_COHJOB_H
#define NFSTORM_COHJOB_H

#include <stddef.h>
#include "agent/job.h"
#include "agent/phase.h"
#include "common/coherence.h"

/* Fill j's coherence state: the writers, their confined paths, whether
 * this agent writes.  From build_job (phase preparation thread).  0, or
 * -errno with err naming the job. */
int cohjob_build(struct job *j, const struct job_spec *js, const struct agent_identity *id,
                 char *err, size_t errlen);
/* Before the start: remove the files this agent writes or polls (an
 * earlier run's), so no old generation can look visible.  0 or -errno with
 * j->ej.err set. */
int cohjob_prepare(struct job *j);
/* The job thread's work after the start instant.  0 or -errno (ej.err). */
int cohjob_run(struct job *j);
/* out += what the phase's coherence jobs measured (out initialised by the
 * caller).  After every job thread finished. */
void cohjob_collect(const struct phase_run *pr, struct coh_set *out);
/* Free j's coherence state (NULL-safe). */
void cohjob_free(struct job *j);

#endif
