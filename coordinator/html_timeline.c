/* html_timeline: stall and lost-agent marks of a phase (see html_timeline.h).
 *
 * Design: one pass over the phase's intervals; a lost agent's end is the
 * last interval that holds anything of it (ops, errors, outstanding ops),
 * which the JSON result keeps, rather than the coordinator's detection time
 * (lost_at_s, seconds since the run started), which lags by the agent
 * timeout and has no phase-relative clock in a loaded result.  lost_at_s
 * is what the labels print, as the text report does. */
#include "coordinator/html_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#define FILL_STALL "#d62728"
#define FILL_AGENT_STALL "#ff7f0e"
#define FILL_LOST "#7f7f7f"

static int agent_has_data(const struct counters *c)
{
    if (c->reported || c->inflight)
        return 1;
    for (int t = 0; t < OP__COUNT; t++)
        if (c->ops[t] || c->errors[t])
            return 1;
    return 0;
}

static void add_band(struct html_timeline *t, size_t *cap, double x0, double x1, const char *kind,
                     const char *label, const char *fill, long id)
{
    if (t->nband && id < 0 && strcmp(t->band[t->nband - 1].kind, kind) == 0 && t->band[t->nband - 1].x1 == x0) {
        t->band[t->nband - 1].x1 = x1;   /* the next interval of the same stall */
        return;
    }
    if (t->nband == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        t->band = xrealloc(t->band, *cap * sizeof(*t->band));
    }
    t->band[t->nband++] = (struct svg_band){ .x0 = x0, .x1 = x1, .kind = kind, .label = label,
                                             .fill = fill, .id = id };
}

void html_timeline_init(struct html_timeline *t, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    double secs = ph->interval_ms / 1000.0, end = ph->nintervals * secs;
    uint32_t na = r->nagents ? r->nagents : 1;
    size_t cap = 0;

    t->band = NULL;
    t->nband = 0;
    t->lost_x = xcalloc(na, sizeof(*t->lost_x));
    t->lost_note = xcalloc(na, sizeof(*t->lost_note));
    t->band_note = xcalloc(na, sizeof(*t->band_note));
    for (uint32_t k = 0; k < ph->nintervals; k++) {
        uint64_t age;

        if (!result_interval_stalled(r, phase, k, &age))
            continue;
        if (result_interval_fleet_stalled(r, phase, k))
            add_band(t, &cap, k * secs, (k + 1) * secs, "stall", "server stalled", FILL_STALL, -1);
        else
            add_band(t, &cap, k * secs, (k + 1) * secs, "agent-stall", "agent stalled", FILL_AGENT_STALL, -1);
    }
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        uint32_t last = 0;   /* intervals up to and including the last with data */

        t->lost_x[a] = -1;
        if (!r->agents[a].lost || (ap->done && !ap->salvaged))
            continue;
        for (uint32_t k = 0; k < ph->nintervals; k++) {
            struct counters c;

            result_slot_agent(&ph->intervals[k], a, &c);
            if (agent_has_data(&c))
                last = k + 1;
        }
        t->lost_x[a] = last * secs;
        snprintf(t->lost_note[a], sizeof(t->lost_note[a]), "lost at %.1f s", r->agents[a].lost_at_s);
        snprintf(t->band_note[a], sizeof(t->band_note[a]), "agent %u %s", r->agents[a].id, t->lost_note[a]);
        if (t->lost_x[a] < end) {
            add_band(t, &cap, t->lost_x[a], end, "lost", "agent lost", FILL_LOST, (long)r->agents[a].id);
            t->band[t->nband - 1].note = t->band_note[a];
        }
    }
}

void html_timeline_free(struct html_timeline *t)
{
    free(t->band);
    free(t->lost_x);
    free(t->lost_note);
    free(t->band_note);
    t->band_note = NULL;
    t->band = NULL;
    t->lost_x = NULL;
    t->lost_note = NULL;
    t->nband = 0;
}
