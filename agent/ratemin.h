/* ratemin: fio's rate_min / rate_iops_min over ratecycle.
 *
 * A job with a minimum rate fails when, over a whole cycle (ratecycle,
 * default 1 s) after its ramp, a direction it issues completed fewer bytes
 * or ops per second than the minimum: fio's "do whatever it can to maintain
 * at least this rate; failing that, the job exits".  Counted from
 * completions, per direction.  Owned by the job loop; one thread. */
#ifndef NFSTORM_RATEMIN_H
#define NFSTORM_RATEMIN_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

struct ratemin {
    int active;                /* the job has a minimum for a direction it issues */
    uint64_t cycle_ns;
    uint64_t window_start_ns;  /* start of the current cycle */
    uint64_t bytes[2], ops[2]; /* completed in it: reads [0], writes [1] */
};

/* Start counting at start_ns (the job's first op; the ramp is skipped). */
void ratemin_init(struct ratemin *r, const struct job_spec *sp, uint64_t start_ns);

/* One op of len bytes completed successfully at now_ns. */
static inline void ratemin_add(struct ratemin *r, int write, uint64_t len, uint64_t now_ns)
{
    if (r->active && now_ns >= r->window_start_ns) {
        r->bytes[write != 0] += len;
        r->ops[write != 0]++;
    }
}

/* At now_ns: once a cycle is over, its rates against the minimums.  0, or
 * -ETIME with err naming the direction, the key, the rate and the cycle. */
int ratemin_check(struct ratemin *r, const struct job_spec *sp, uint64_t now_ns,
                  char *err, size_t errlen);

#endif
