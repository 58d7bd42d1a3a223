/* ratemin: minimum rates per cycle (see ratemin.h).  Whole cycles only, so
 * a job that ends part-way through one is never judged on a fragment. */
#include "agent/ratemin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define RATEMIN_CYCLE_DEFAULT_NS 1000000000ull   /* fio's ratecycle=1000 (ms) */

void ratemin_init(struct ratemin *r, const struct job_spec *sp, uint64_t start_ns)
{
    memset(r, 0, sizeof *r);
    r->active = (rw_mode_reads(sp->rw) && (sp->rate_min_bps || sp->rate_min_iops)) ||
                (rw_mode_writes(sp->rw) && (sp->rate_min_w_bps || sp->rate_min_w_iops));
    r->cycle_ns = sp->ratecycle_ns ? sp->ratecycle_ns : RATEMIN_CYCLE_DEFAULT_NS;
    r->window_start_ns = start_ns + sp->ramp_ns;
}

int ratemin_check(struct ratemin *r, const struct job_spec *sp, uint64_t now_ns,
                  char *err, size_t errlen)
{
    if (!r->active || now_ns < r->window_start_ns || now_ns - r->window_start_ns < r->cycle_ns)
        return 0;
    double secs = (double)(now_ns - r->window_start_ns) / 1e9;
    for (int w = 0; w < 2; w++) {
        uint64_t min_bps = w ? sp->rate_min_w_bps : sp->rate_min_bps;
        uint64_t min_iops = w ? sp->rate_min_w_iops : sp->rate_min_iops;
        double bps = (double)r->bytes[w] / secs, iops = (double)r->ops[w] / secs;
        if (w ? !rw_mode_writes(sp->rw) : !rw_mode_reads(sp->rw))
            continue;
        if (min_bps && bps < (double)min_bps) {
            snprintf(err, errlen, "%s at %.0f bytes/s over %.3f s, below rate_min=%" PRIu64,
                     w ? "writes" : "reads", bps, secs, min_bps);
            return -ETIME;
        }
        if (min_iops && iops < (double)min_iops) {
            snprintf(err, errlen, "%s at %.1f ops/s over %.3f s, below rate_iops_min=%" PRIu64,
                     w ? "writes" : "reads", iops, secs, min_iops);
            return -ETIME;
        }
    }
    r->window_start_ns = now_ns;
    memset(r->bytes, 0, sizeof r->bytes);
    memset(r->ops, 0, sizeof r->ops);
    return 0;
}
