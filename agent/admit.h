/* admit: what an agent checks on a plan it received before doing anything
 * with it: the plan is well formed and its arithmetic fits (plan_validate,
 * the same check the coordinator ran, since a plan may come from any
 * coordinator), and every phase fits in the memory this machine has left.
 *
 * The memory figure is an estimate of what the agent allocates for a phase
 * (job threads, per-file tables, I/O buffers, metadata create buffers),
 * deliberately on the high side of what bench/agent-memory.sh measures, so
 * a plan that would be OOM-killed half way is refused with the figures
 * instead ("phase 0 ('m') needs ~66.1GiB: 64 job threads, 64000000 files;
 * 22.9GiB available"). */
#ifndef NFSTORM_ADMIT_H
#define NFSTORM_ADMIT_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

/* Estimated peak bytes agent `index` (of nagents) allocates to run phase ph,
 * saturating at UINT64_MAX; *threads and *files (may be NULL) get its job
 * threads and the files they hold open. */
uint64_t admit_phase_bytes(const struct phase *ph, uint32_t index, uint64_t *threads, uint64_t *files);

/* Memory this agent may still use: MemAvailable, lowered to the cgroup's
 * memory.max minus memory.current when that is smaller.  0 or -errno. */
int admit_mem_available(uint64_t *bytes);

/* The whole check: plan_validate for nagents, then every phase's estimate
 * against avail_bytes (UINT64_MAX: no limit).  0 or -EINVAL / -ENOMEM with a
 * one-line reason naming the phase and the figures in err. */
int admit_plan(const struct plan *p, uint32_t index, uint32_t nagents, uint64_t avail_bytes,
               char *err, size_t errlen);

/* The operator's own caps (nfstorm-agent --max-threads, --max-files,
 * --max-memory); 0 means no cap of that kind. */
struct admit_limits {
    uint64_t max_threads;   /* job threads of one phase on this agent */
    uint64_t max_files;     /* files one phase of this agent holds */
    uint64_t max_memory;    /* bytes one phase may need (admit_phase_bytes) */
};

/* Every phase of p against the caps in l: 0, or -E2BIG / -ENOMEM with a
 * one-line reason naming the phase, the figure, the cap and its flag. */
int admit_limits_check(const struct plan *p, uint32_t index, const struct admit_limits *l,
                       char *err, size_t errlen);

/* The one call the session makes on every plan it receives: the index is
 * inside the run (index < nagents), then admit_limits_check, then
 * admit_plan with admit_mem_available's figure (no limit when unknown),
 * lowered to l->max_memory when that is smaller.  l may be NULL. */
int admit_plan_here(const struct plan *p, uint32_t index, uint32_t nagents,
                    const struct admit_limits *l, char *err, size_t errlen);

#endif
