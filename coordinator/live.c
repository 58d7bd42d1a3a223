/* live: see live.h. */
#include <stdlib.h>
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/live.h"

struct live {
    FILE *out;
    int quiet;
    int unit_base;
    const struct plan *plan;
};

struct live *live_new(FILE *out, int quiet, const struct plan *plan, int unit_base)
{
    struct live *l = xcalloc(1, sizeof *l);
    l->out = out;
    l->quiet = quiet;
    l->plan = plan;
    l->unit_base = unit_base;
    return l;
}

void live_free(struct live *l)
{
    free(l);
}

static void live_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct live *l = arg;
    if (!l->quiet)
        fprintf(l->out, "phase %u/%u '%s': started on %u agents\n", phase + 1, r->nphases,
                r->phases[phase].name, r->nagents);
}

static void live_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct live *l = arg;
    const struct phase_result *ph = &r->phases[phase];
    const struct interval_slot *s = &ph->intervals[k];
    double secs = ph->interval_ms / 1000.0;
    char bw[32], lat[32];
    uint64_t ops = 0, bytes = 0;
    struct hist *all;

    if (l->quiet)
        return;
    all = xmalloc(sizeof *all);
    hist_init(all);
    for (int t = 0; t < OP__COUNT; t++) {
        ops += s->merged.op[t].ops;
        bytes += s->merged.op[t].bytes;
        hist_merge(all, &s->merged.op[t].lat);
    }
    fprintf(l->out, "  [%4.0fs] %10.0f IOPS  %12s  p99 %s\n", (k + 1) * secs, ops / secs,
            units_fmt_rate(bw, sizeof bw, bytes / secs, l->unit_base),
            units_fmt_ns(lat, sizeof lat, (double)hist_percentile(all, 99)));
    free(all);
}

struct run_observer live_observer(struct live *l)
{
    struct run_observer o = { .phase_start = live_phase_start, .interval = live_interval, .arg = l };
    return o;
}
