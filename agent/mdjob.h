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
 * uncounted, so the directory is as clean afterwards as before. */
#ifndef NFSTORM_MDJOB_H
#define NFSTORM_MDJOB_H

#include "agent/job.h"

/* Run the metadata loop in the job's thread; 0 or -errno (text in ej.err). */
int mdjob_run(struct job *j);

#endif
