/* phase_clones: each job thread's own figures, for fio's per-job,
 * per-clone reports (jobs[] without group_reporting, a log file per clone).
 *
 * The phase's harvest drains every thread into the interval's op_set as
 * before; for a phase of at most CLONE_SET_MAX threads on this agent it
 * also keeps each thread's totals (compact op_recs) and, when the
 * coordinator writes fio logs of the phase (it says so in the start),
 * each thread's ops of the running interval.  A
 * larger phase keeps nothing per thread: its reports are its totals.
 *
 * Loop thread only (the harvest runs there), apart from setup, which runs
 * in phase_prepare before any job thread starts. */
#ifndef NFSTORM_PHASE_CLONES_H
#define NFSTORM_PHASE_CLONES_H

#include <stdint.h>
#include "common/clone_set.h"
#include "common/errcause.h"
#include "common/stats.h"

struct phase_run;

struct phase_clones {
    uint32_t n;               /* threads tracked: the phase's, or 0 (too many) */
    struct op_rec *tot;       /* [n] each thread's ops since the measurement began */
    struct clone_set iv;      /* [n] entries: each thread's ops of the running
                                 interval, when the phase logs; else empty */
    struct op_set *scratch;   /* one thread's harvest */
};

/* After the phase's threads are built: track them if they are few enough. */
void phase_clones_setup(struct phase_run *pr);
/* The coordinator asks for each thread's intervals (msg_start.clones):
 * before the phase starts, on the loop thread. */
void phase_clones_want_intervals(struct phase_run *pr);
/* Drain every thread into acc (and causes), and into its own figures. */
void phase_clones_harvest(struct phase_run *pr, struct op_set *acc, struct errcause_set *causes);
/* The ramp ended: what was measured so far is dropped. */
void phase_clones_reset(struct phase_run *pr);
/* The interval's per-thread set (borrowed: valid until the next harvest;
 * empty when the phase does not log), and the reset once it was sent. */
const struct clone_set *phase_clones_interval(const struct phase_run *pr);
void phase_clones_interval_sent(struct phase_run *pr);
/* Each thread's totals into out (empty on entry; the caller frees it):
 * runtime from window_ns (the phase's measured start) or the thread's
 * later start, to its last op.  Nothing when the phase is not tracked. */
void phase_clones_totals(const struct phase_run *pr, uint64_t window_ns, struct clone_set *out);
void phase_clones_free(struct phase_run *pr);

#endif
