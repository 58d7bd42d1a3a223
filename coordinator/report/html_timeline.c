/* html_timeline: stall and lost-agent marks of a phase (see html_timeline.h).
 *
 * Design: one pass over the phase's intervals; a lost agent's end is the
 * last interval that holds anything of it (ops, errors, outstanding ops),
 * which the JSON result keeps, rather than the coordinator's detection time
 * (lost_at_s, seconds since the run started), which lags by the agent
 * timeout and has no phase-relative clock in a loaded result.  lost_at_s
 * is what the labels print, as the text report does. */
#include "coordinator/report/html_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/changes.h"

#define FILL_STALL "#d62728"
#define FILL_AGENT_STALL "#ff7f0e"
#define FILL_LOST "#7f7f7f"
#define FILL_CHANGE "#9467bd"

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
    if (t->nband && id < 0 && strcmp(kind, "change") != 0 && strcmp(t->band[t->nband - 1].kind, kind) == 0 && t->band[t->nband - 1].x1 == x0) {
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

/* Whether agent change c is the same step as one of the fleet's (the
 * text report's rule, changes.h). */
static int fleet_has(const struct change_set *s, const struct change *c)
{
    for (size_t i = 0; i < s->n && s->c[i].fleet; i++) {
        const struct change *f = &s->c[i];
        uint32_t d = f->k > c->k ? f->k - c->k : c->k - f->k;

        if (f->metric == c->metric && (f->after < f->before) == (c->after < c->before) && d <= CHANGES_MATCH)
            return 1;
    }
    return 0;
}

static void change_bands(struct html_timeline *t, size_t *cap, const struct run_result *r, uint32_t phase)
{
    static const char *const what[] = { "throughput", "IOPS", "latency" };
    double secs = r->phases[phase].interval_ms / 1000.0;
    struct change_set s;
    size_t n = 0;

    t->change_note = xcalloc(HTML_TIMELINE_CHANGES, sizeof(*t->change_note));
    changes_phase(r, phase, &s);
    for (size_t i = 0; i < s.n && n < HTML_TIMELINE_CHANGES; i++) {
        const struct change *c = &s.c[i];
        char pct[16];

        if (!c->fleet && fleet_has(&s, c))
            continue;
        if (c->before > 0)
            snprintf(pct, sizeof(pct), "%+.0f%%", c->pct);
        else
            snprintf(pct, sizeof(pct), "from 0:");
        if (c->fleet)
            snprintf(t->change_note[n], sizeof(t->change_note[n]), "%s %s", pct, what[c->metric]);
        else
            snprintf(t->change_note[n], sizeof(t->change_note[n]), "agent %u: %s %s", r->agents[c->agent].id,
                     pct, what[c->metric]);
        /* the interval before the first at the new level holds the step */
        add_band(t, cap, (c->k - 1) * secs, c->k * secs, "change",
                 c->after < c->before ? "step down" : "step up", FILL_CHANGE,
                 c->fleet ? -1 : (long)r->agents[c->agent].id);
        t->band[t->nband - 1].note = t->change_note[n++];
    }
    change_set_free(&s);
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
    change_bands(t, &cap, r, phase);
}

void html_timeline_free(struct html_timeline *t)
{
    free(t->band);
    free(t->lost_x);
    free(t->lost_note);
    free(t->band_note);
    free(t->change_note);
    memset(t, 0, sizeof(*t));
}
