/* plan_span: see plan_span.h. */
#include "coordinator/run/plan_span.h"

#include <errno.h>
#include <stdio.h>
#include "coordinator/result/result.h"

int plan_span_check(const struct plan *p, uint32_t interval_ms, char *err, size_t errlen)
{
    uint64_t iv_ns = (uint64_t)interval_ms * 1000000u;

    if (!iv_ns)
        return 0;
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *ph = &p->phases[i];
        uint64_t longest = 0, n;

        for (uint32_t j = 0; j < ph->njobs; j++) {
            const struct job_spec *js = &ph->jobs[j];
            /* plan_validate keeps the sum under PLAN_MAX_TIME_NS: no wrap */
            uint64_t t = js->runtime_ns ? js->startdelay_ns + js->ramp_ns + js->runtime_ns : 0;
            if (t > longest)
                longest = t;
        }
        n = (longest + iv_ns - 1) / iv_ns;
        if (n > RESULT_MAX_INTERVALS) {
            snprintf(err, errlen, "phase '%s': %.0f s at %u-ms intervals is %llu intervals, more than the "
                     "%u a phase keeps; raise --interval (or log_avg_msec) or shorten the runtime",
                     ph->name, (double)longest / 1e9, interval_ms, (unsigned long long)n,
                     (unsigned)RESULT_MAX_INTERVALS);
            return -E2BIG;
        }
    }
    return 0;
}
