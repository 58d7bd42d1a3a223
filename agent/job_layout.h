/* job_layout: what a job does to its files outside its timed window:
 * check the room they need, lay them out before the phase, remove the
 * ones it created after it (unlink=1).  Called by the phase's worker
 * (agent/phase.c), never on the job's own thread. */
#ifndef NFSTORM_JOB_LAYOUT_H
#define NFSTORM_JOB_LAYOUT_H

#include "agent/job.h"

/* Lay out the job's files before a phase: in every file shorter than its
 * planned size, the job's region [start, size) is written with data (fill:
 * plan_layout_fills) or the file is extended, never shrunk (other write
 * jobs), through the job's own engine, synchronously, each file under its
 * engine lock where the engine has one (a file shared with other agents
 * or jobs is found long enough by all but the first); *done adds up the
 * bytes present or written.  Files the job does not own are left alone.
 * Checks the halt between chunks and while waiting for a lock:
 * -ECANCELED when it was raised. */
int job_layout(struct job *j, int fill, atomic_uint_fast64_t *done);
/* Bytes job_layout and the phase may add to the job's files beyond what
 * they hold now (0 for files it does not own).  0 or -errno. */
int job_space_needed(struct job *j, uint64_t *bytes);
/* Delete the job's own files (unlink=1), after the phase. */
void job_unlink_files(struct job *j);

#endif
