/* result_clones: a phase's figures per job and per clone, summed over the
 * fleet, for fio's reports without group_reporting (one jobs[] entry per
 * job and clone, report_fio.c).
 *
 * Agents send each thread's totals in their phase-done (msg_phase_done
 * "clones", at most CLONE_SET_MAX threads an agent); entry (job, clone)
 * here is the sum of every agent's thread (job, clone), kept sealed like an
 * agent's totals.  An agent that ran ops but sent no clones (an older agent,
 * a phase of more threads than the cap, totals salvaged from intervals)
 * makes the phase's per-clone figures incomplete: the reports then show the
 * phase's totals as before (result_clones_usable).
 *
 * Single-threaded, as the result. */
#ifndef NFSTORM_RESULT_CLONES_H
#define NFSTORM_RESULT_CLONES_H

#include <stddef.h>
#include <stdint.h>
#include "common/clone_set.h"
#include "common/plan.h"
#include "coordinator/result.h"

struct clone_result {
    uint32_t job, clone;          /* the job's index in its phase, the clone's in the job */
    char name[PLAN_NAME_MAX];     /* the job's name */
    uint64_t runtime_ns;          /* the longest of its agents' threads */
    struct op_set_sealed sealed;  /* the fleet's sum */
};

struct result_clones {
    uint8_t grouped;              /* a job of the phase sets group_reporting */
    uint32_t n;
    struct clone_result *c;       /* [n], ordered by job, then clone (fio's order) */
    uint8_t *sent;                /* [nagents]: the agent's clones were added */
};

/* Add agent's clones s of phase (ph: the plan's phase, for the bounds and
 * names; totals: the agent's phase totals they must sum to, counters
 * exactly).  An empty s only records that the agent sent none.  0, or
 * -EINVAL with a one-line reason in err (nothing is added then). */
int result_clones_add(struct run_result *r, uint32_t phase, uint32_t agent, const struct phase *ph,
                      const struct clone_set *s, const struct op_set *totals, char *err, size_t errlen);
/* Set entry (job, clone) of phase as a saved result holds it (result_load):
 * the fleet's figures s and runtime; the phase's clones then count as every
 * agent's.  -EINVAL (err says why) for a job or clone out of the plan's
 * caps or an entry given twice. */
#define RESULT_CLONES_MAX 4096u   /* entries a saved phase may hold */
int result_clones_put(struct run_result *r, uint32_t phase, uint32_t job, uint32_t clone, const char *name,
                      uint64_t runtime_ns, const struct op_set *s, char *err, size_t errlen);
/* 1 when phase's reports can be per job and clone: clones of at least two
 * threads arrived (one thread's entry is the phase's own), no job asks for
 * group_reporting and every agent with ops sent its clones. */
int result_clones_usable(const struct run_result *r, uint32_t phase);
/* Entry i's fleet totals expanded into scratch (blanked first); returns scratch. */
const struct op_set *result_clone_totals(const struct run_result *r, uint32_t phase, uint32_t i,
                                         struct op_set *scratch);
void result_clones_free(struct phase_result *ph);

#endif
