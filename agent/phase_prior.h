/* phase_prior: which earlier phase of this run wrote the files a verifying
 * job reads, so its reads expect that run's blocks of at least that
 * phase's generation instead of "the newest found" (a previous run's
 * blocks are the newest found when every write of this run was lost).
 *
 * The answer is computed from the plan alone (no state, no I/O): a job of
 * an earlier phase that writes (not verify_only) wrote a file when one of
 * its file names, as some agent running it expands it, is one of the
 * reader's.  The agents tried are the reader itself, its rotate= source
 * and the lowest agent running the writer (a file shared by all agents has
 * one name, whoever expands it); ${host} expands to this agent's host.  A
 * plan whose writers name files by another agent's index without rotate=
 * is not recognised, and the reader falls back to the newest generation.
 * The work is bounded (PHASE_PRIOR_MAX_NAMES names per reading thread). */
#ifndef NFSTORM_PHASE_PRIOR_H
#define NFSTORM_PHASE_PRIOR_H

#include <stdint.h>
#include "agent/phase.h"

#define PHASE_PRIOR_MAX_NAMES 65536

/* The generation (vblock_generation, pass 0) of the latest phase before
 * id->phase with a writing job that wrote one of the nfiles files of
 * thread t (global job number g) of js on this agent; 0 when none did or
 * it cannot be told.  Called by phase_prepare on its worker thread. */
uint64_t phase_prior_gen(const struct job_spec *js, const struct agent_identity *id, uint32_t t,
                         uint32_t g, uint32_t nfiles);

#endif
