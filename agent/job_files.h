/* job_files: fio's rules for a job's files that must already exist, and
 * for the ops a job may do on their region.
 *
 * A job with no size of its own (job_sized_by_file: no size=, no
 * filesize=; its files named by filename=, filename_format= or nrfiles=)
 * takes its size from its files, as fio does, and fio's size=N% takes N
 * percent of it;
 * allow_file_create=0 forbids creating a missing file.  Either way the
 * engine opens the files without creating them (engine_job.no_create), and
 * a missing one is reported naming the key and the file.  The agent calls
 * these around the engine's setup (agent/phase.c).  Then, once the region
 * is known, what the job's ops may be on it: aligned for direct=1, and how
 * many bytes a pass covers. */
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

/* direct=1 (j->ej.dio_align set by the engine): 0 when every op's offset
 * and length is a multiple of the alignment, else -EINVAL with the key
 * and the alignment named in j->ej.err. */
int job_files_check_align(struct job *j);
/* The bytes of one pass over j's region (a tail no whole block fits is
 * left out, as fio). */
uint64_t job_files_pass_bytes(const struct job *j);

#endif
