/* mdjob: the metadata workload (rw=metadata): md_ops run in order over the
 * job's nrfiles files, each op type counted and timed on its own.
 *
 * Layout of the names, all beneath the job's directory D:
 *   shared_dir=0: D/<name>.<agent>.<thread>/ is the thread's own directory
 *   shared_dir=1: D itself, shared by every thread of every agent
 *   files_per_dir=F: files i go into the subdirectory d<i/F> of that
 *   file i: <name>.<agent>.<thread>.<i>  (distinct across agents even when
 *   they share a directory); mkdir/rmdir work on <file name>.d
 * Time-based jobs repeat the whole sequence; whatever a pass leaves behind
 * (e.g. md_ops without unlink) is removed between passes and at the end,
 * uncounted, so the directory is as clean afterwards as before.
 *
 * Ownership: a job only ever stats, opens, renames or removes a name it
 * created itself in this run (create and mkdir are exclusive: a name that
 * exists is someone else's).  An op on a name it does not hold is not
 * issued and counts as failed; a create, mkdir or rename that meets an
 * existing name fails with EEXIST, is counted, and ends the job with that
 * error named when its time is up.  Subdirectories d<k> are removed at the
 * end only if they did not exist before the phase (mdjob_prepare). */
#ifndef NFSTORM_MDJOB_H
#define NFSTORM_MDJOB_H

#include "agent/job.h"

/* Before the phase starts (job_prepare, a worker thread, the engine set
 * up): note which of the job's subdirectories exist already, so the job
 * never removes one it did not make.  0 or -errno (text in ej.err). */
int mdjob_prepare(struct job *j);
/* Run the metadata loop in the job's thread; 0 or -errno (text in ej.err):
 * -EEXIST when names the job would have created existed already (counted
 * as failed ops, never touched; the first one named). */
int mdjob_run(struct job *j);

#endif
