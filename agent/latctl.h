/* latctl: fio's latency_target on one agent: find the highest queue depth
 * whose latency_percentile of latencies stays at or under latency_target
 * over a latency_window.
 *
 * Search (fio's idea, our own steps): start at depth 1; after each window
 * that meets the target, double the depth (up to the job's iodepth) until a
 * window misses, then bisect between the highest depth that met and the
 * lowest that missed.  It ends when they are adjacent (or the top depth
 * met): `found` is the highest depth that met, 0 when even depth 1 missed.
 * As fio with latency_run=0, the phase then ends on this agent.
 *
 * Fed by the session with each interval's op set (loop thread); the job
 * threads read the depth through phase_run.depth_cap (an atomic).  Pure
 * arithmetic: no clock, no threads. */
#ifndef NFSTORM_LATCTL_H
#define NFSTORM_LATCTL_H

#include <stdint.h>
#include "common/hist.h"
#include "common/stats.h"

struct latctl {
    uint64_t target_ns;
    double pct;                /* 0 < pct <= 100 */
    uint64_t window_ns;
    uint32_t max_depth;
    uint32_t cur;              /* the depth being tried */
    uint32_t lo, hi;           /* highest depth that met, lowest that missed (0: none yet) */
    int done;
    uint32_t found;            /* once done: the answer, 0 = not even depth 1 */
    uint64_t acc_ns;           /* window so far */
    struct hist acc;           /* its latencies (reads and writes) */
};

void latctl_init(struct latctl *c, uint64_t target_ns, double pct, uint64_t window_ns, uint32_t max_depth);
/* One interval of iv_ns with the ops of s.  Returns 1 when the depth to
 * use changed or the search ended (read c->cur, c->done, c->found), else 0.
 * A window without ops is not judged (it restarts). */
int latctl_interval(struct latctl *c, const struct op_set *s, uint64_t iv_ns);

#endif
