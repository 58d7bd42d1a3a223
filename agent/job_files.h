/* job_files: fio's rules for a job's files that must already exist.
 *
 * A job with no size of its own (job_sized_by_file: no size=, no
 * filesize=; its files named by filename=, filename_format= or nrfiles=)
 * takes its size from its files, as fio does, and fio's size=N% takes N
 * percent of it;
 * allow_file_create=0 forbids creating a missing file.  Either way the
 * engine opens the files without creating them (engine_job.no_create), and
 * a missing one is reported naming the key and the file.  The agent calls
 * these around the engine's setup (agent/phase.c). */
#ifndef NFSTORM_JOB_FILES_H
#define NFSTORM_JOB_FILES_H

#include <stddef.h>
#include "agent/job.h"

/* Before setup: whether the engine may create j's missing files. */
void job_files_before_setup(struct job *j);

/* After setup returned setup_rc: a missing file gets a message naming the
 * key (allow_file_create=0, or the size= the job lacks) and the file; a job
 * sized by its file gets its region (the smallest file's bytes past the
 * region's start) and its bytes per pass (region x files).  setup_rc, or 0,
 * or -EINVAL (file too small for a block); err set on failure. */
int job_files_after_setup(struct job *j, int setup_rc, char *err, size_t errlen);

#endif
