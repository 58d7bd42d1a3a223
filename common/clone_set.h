/* clone_set: the figures of a phase's threads one by one, each named by its
 * job (the section's index within the phase) and clone (its index among
 * that job's numjobs threads on the agent), as fio reports a job without
 * group_reporting: one entry per job and per clone.
 *
 * Why a set apart from the phase's op_set: the phase totals stay what they
 * were (byte for byte on the wire), and the per-thread figures are sent
 * only for phases of at most CLONE_SET_MAX threads on an agent, so a phase
 * of 1,000 threads costs the wire nothing more.  Each entry holds a dense
 * op_set (~400 KB) on the heap: a set is made for one message and freed.
 *
 * Ownership: the set owns its entries and their op_sets (clone_set_free). */
#ifndef NFSTORM_CLONE_SET_H
#define NFSTORM_CLONE_SET_H

#include <stdint.h>
#include "common/stats.h"

/* Threads per agent and phase reported one by one; a phase with more is
 * reported as its totals only (fio JSON: one entry for the phase). */
#define CLONE_SET_MAX 64u

struct clone_stats {
    uint32_t job;             /* the job's index within its phase */
    uint32_t clone;           /* the thread's index among the job's numjobs */
    uint64_t runtime_ns;      /* the thread's measured time, first op's window to its last op */
    struct op_set *stats;     /* owned; its ops, bytes, errors and latency */
};

struct clone_set {
    uint32_t n;
    struct clone_stats *c;    /* [n], owned */
};

void clone_set_init(struct clone_set *s);
/* Append an entry with an empty op_set (n must stay <= CLONE_SET_MAX:
 * the caller checks); returns it. */
struct clone_stats *clone_set_add(struct clone_set *s, uint32_t job, uint32_t clone);
/* The entry of (job, clone), or NULL. */
struct clone_stats *clone_set_find(const struct clone_set *s, uint32_t job, uint32_t clone);
void clone_set_free(struct clone_set *s);

#endif
