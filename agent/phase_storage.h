/* phase_storage: where a prepared phase's jobs do their I/O, for the
 * result's record (common/storage.h): the kernel mount holding each job's
 * files (from /proc/self/mountinfo), or the libnfs URL with the version and
 * transfer sizes the server negotiated.  One entry per distinct place,
 * first job first.  Worker thread only (it reads /proc and resolves paths):
 * phase_prepare calls it once its engines are up. */
#ifndef NFSTORM_PHASE_STORAGE_H
#define NFSTORM_PHASE_STORAGE_H

#include <stdint.h>
#include "agent/phase.h"
#include "common/storage.h"

/* Describe pr's jobs into out[0..max); returns how many entries.  Jobs on
 * the null engine do no I/O and get none; a path no mount holds gets an
 * entry with its directory and an empty fstype. */
uint32_t phase_storage_describe(const struct phase_run *pr, struct storage_info *out, uint32_t max);

#endif
