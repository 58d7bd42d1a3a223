/* start_skew: the sentence of a phase's start skew (start_skew.h).
 *
 * Design: the agents that issued ops are counted from the agents' own
 * totals (present in a live run, a --json result and a journal alike), so
 * the reason does not depend on where the result came from. */
#include "coordinator/run/start_skew.h"

#include <stdio.h>

#include "common/units.h"

#define START_SKEW_GOAL_NS 1000000u   /* the design's 1 ms goal (docs/architecture.md) */

/* Agents of phase that issued ops (any op, done or salvaged). */
static uint32_t agents_issued(const struct run_result *r, uint32_t phase)
{
    uint32_t n = 0;

    if (phase >= r->nphases)
        return 0;
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &r->phases[phase].agents[a];

        n += ap->done && !result_agent_empty(ap);
    }
    return n;
}

uint32_t start_skew_agents_unknown(const struct run_result *r, uint32_t phase)
{
    uint32_t issued = agents_issued(r, phase);

    if (phase >= r->nphases || issued <= r->phases[phase].nstarted)
        return 0;
    return issued - r->phases[phase].nstarted;
}

char *start_skew_text(char *buf, size_t len, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t issued = agents_issued(r, phase), unknown = start_skew_agents_unknown(r, phase);
    char d[32];

    if (ph->nstarted < 2 && unknown == 0) {
        snprintf(buf, len, "start skew: not measured (%u agent%s issued ops)", ph->nstarted,
                 ph->nstarted == 1 ? "" : "s");
    } else if (ph->nstarted < 2 && ph->nstarted == 0) {
        snprintf(buf, len, "start skew: not measured (the start time%s of %u agent%s that issued ops did not "
                 "arrive)", unknown == 1 ? "" : "s", unknown, unknown == 1 ? "" : "s");
    } else if (ph->nstarted < 2) {
        snprintf(buf, len, "start skew: not measured (the start time%s of %u of %u agents that issued ops did "
                 "not arrive)", unknown == 1 ? "" : "s", unknown, issued);
    } else {
        units_fmt_ns(d, sizeof d, (double)ph->start_skew_ns);
        int n = snprintf(buf, len, "measured start skew: %s over %u agents (latest minus earliest first op)%s", d,
                         ph->nstarted, ph->start_skew_ns > START_SKEW_GOAL_NS ? ", over the 1 ms goal" : "");
        if (unknown && n >= 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, "; the start time%s of %u more agent%s that issued ops did not "
                     "arrive", unknown == 1 ? "" : "s", unknown, unknown == 1 ? "" : "s");
    }
    return buf;
}
