/* changes: series from a phase's intervals, the detector over each, and
 * the fleet's changes matched to the agents' (changes.h says what and why). */
#include "coordinator/changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/changepoint.h"
#include "common/hist.h"
#include "common/units.h"
#include "common/xmalloc.h"

/* Agents named in a text line before "and N more". */
#define TEXT_AGENTS 8
/* Agent-only lines printed per phase before "and N more" (a fleet view). */
#define TEXT_AGENT_LINES 10

static const char *const metric_name[] = { "throughput", "iops", "latency" };
static const char *const metric_text[] = { "throughput", "IOPS", "latency" };
static const char *const metric_unit[] = { "B/s", "ops/s", "ns" };

double changes_min_pct(const struct run_result *r)
{
    return r->change_min_pct > 0 ? r->change_min_pct : CHANGEPOINT_MIN_PCT;
}

uint32_t changes_min_intervals(const struct run_result *r)
{
    return r->change_min_intervals ? r->change_min_intervals : CHANGEPOINT_MIN_LEN;
}

/* Intervals agent a has: one past the last it sent, at most as many as it
 * counted when it finished and as its phase time covers.  0: it took no
 * part or sent nothing. */
static uint32_t agent_end(const struct phase_result *ph, uint32_t a)
{
    uint32_t end = 0;

    if (!ph->agents[a].participating)
        return 0;
    for (uint32_t k = 0; k < ph->nintervals; k++) {
        struct counters c;

        result_slot_agent(&ph->intervals[k], a, &c);
        if (c.reported)
            end = k + 1;
    }
    if (ph->agents[a].done && ph->agents[a].nintervals && ph->agents[a].nintervals < end)
        end = ph->agents[a].nintervals;
    /* intervals after its phase time ended are its wind-down (threads
     * joining on a busy machine), not a step down to nothing */
    if (ph->agents[a].done && ph->agents[a].duration_ns && ph->interval_ms) {
        uint64_t iv_ns = (uint64_t)ph->interval_ms * 1000000u;
        uint64_t n = (ph->agents[a].duration_ns + iv_ns - 1) / iv_ns;

        if (n < end)
            end = (uint32_t)n;
    }
    return end;
}

static double slot_amount(const struct op_counts *c, int bytes)
{
    double v = 0;

    for (int t = 0; t < OP__COUNT; t++)
        v += (double)(bytes ? c[t].bytes : c[t].ops);
    return v;
}

static double agent_amount(const struct counters *c, int bytes)
{
    double v = 0;

    for (int t = 0; t < OP__COUNT; t++)
        v += (double)(bytes ? c->bytes[t] : c->ops[t]);
    return v;
}

static void push(struct change_set *s, size_t *cap, const struct change *c)
{
    if (s->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        s->c = xrealloc(s->c, *cap * sizeof(*s->c));
    }
    s->c[s->n++] = *c;
}

/* Run the detector over x[0..n), whose x[i] is interval i + 1 of the phase. */
static void detect(const struct run_result *r, const struct phase_result *ph, const double *x, size_t n,
                   enum change_metric m, int fleet, uint32_t agent, struct change_set *s, size_t *cap)
{
    struct changepoint cp[CHANGEPOINT_MAX];
    size_t min_len = changes_min_intervals(r);
    int nc;

    if (m == CHANGE_LATENCY && ph->interval_ms && min_len * ph->interval_ms < CHANGES_LAT_MIN_MS)
        min_len = (CHANGES_LAT_MIN_MS + ph->interval_ms - 1) / ph->interval_ms;
    nc = changepoint_find(x, n, changes_min_pct(r), min_len, cp, CHANGEPOINT_MAX);

    for (int i = 0; i < nc; i++) {
        struct change c = { .metric = m, .fleet = (uint8_t)fleet, .agent = agent, .k = (uint32_t)cp[i].at + 1,
                            .before = cp[i].before, .after = cp[i].after, .pct = cp[i].pct };

        if (m == CHANGE_LATENCY && fabs(c.after - c.before) < CHANGES_LAT_FLOOR_NS)
            continue;
        c.at_s = c.k * (ph->interval_ms / 1000.0);
        if (!fleet) {
            c.agents = xmalloc(sizeof(*c.agents));
            c.agents[0] = r->agents[agent].id;
            c.nagents = 1;
        }
        push(s, cap, &c);
    }
}

static int down(const struct change *c)
{
    return c->after < c->before;
}

/* The agents' change that matches fleet change f, if any. */
static int matches(const struct change *f, const struct change *a)
{
    uint32_t d = f->k > a->k ? f->k - a->k : a->k - f->k;

    return !a->fleet && a->metric == f->metric && down(a) == down(f) && d <= CHANGES_MATCH;
}

static void name_agents(struct change_set *s, size_t nfleet)
{
    for (size_t i = 0; i < nfleet; i++) {
        struct change *f = &s->c[i];
        uint32_t last = UINT32_MAX;

        if (f->metric == CHANGE_LATENCY)
            continue;        /* no per-agent latency series */
        f->agents = xmalloc((s->nseries_agents ? s->nseries_agents : 1) * sizeof(*f->agents));
        for (size_t j = nfleet; j < s->n; j++)
            if (matches(f, &s->c[j]) && s->c[j].agent != last) {
                f->agents[f->nagents++] = s->c[j].agents[0];
                last = s->c[j].agent;     /* one agent's two steps near one fleet step: once */
            }
        f->fleet_wide = s->nseries_agents > 0 && f->nagents == s->nseries_agents;
    }
}

/* Every op of the interval was rate-limited: their latency from the due
 * time also holds the client's own lag behind its schedule (a busy CPU, a
 * slow start), their service time is the storage's alone. */
static int svc_only(const struct op_stats *os)
{
    return os->svc.count && os->svc.count == os->lat.count;
}

void changes_phase(const struct run_result *r, uint32_t phase, struct change_set *out)
{
    const struct phase_result *ph = &r->phases[phase];
    double iv_s = ph->interval_ms / 1000.0;
    uint32_t fleet_end = UINT32_MAX;
    int bytes = 0;
    size_t cap = 0, nfleet;
    double *x;
    struct op_stats *os;

    memset(out, 0, sizeof(*out));
    if (!ph->finished || !ph->nintervals || iv_s <= 0)
        return;
    for (int t = 0; t < OP__COUNT; t++)
        bytes |= ph->totals.op[t].bytes > 0;
    for (uint32_t a = 0; a < r->nagents; a++) {
        uint32_t end = agent_end(ph, a);

        if (end && end < fleet_end)
            fleet_end = end;
        out->nseries_agents += end > 2;
    }
    if (fleet_end == UINT32_MAX || fleet_end <= 2)
        return;
    x = xmalloc(ph->nintervals * sizeof(*x));
    /* fleet: intervals 1 .. fleet_end - 2 */
    for (uint32_t k = 1; k + 1 < fleet_end; k++)
        x[k - 1] = slot_amount(ph->intervals[k].count, bytes) / iv_s;
    detect(r, ph, x, fleet_end - 2, bytes ? CHANGE_THROUGHPUT : CHANGE_IOPS, 1, 0, out, &cap);
    os = xmalloc(sizeof(*os));
    for (uint32_t k = 1; k + 1 < fleet_end; k++) {
        result_interval_all(r, phase, k, os);
        /* the median, not the mean: a few ops a busy client's scheduler
         * held up drag a mean for an interval, a throttle moves the median.
         * No op completed: no latency; keep the last one seen (a stall is
         * the throughput series' to tell) */
        x[k - 1] = os->lat.count ? (double)hist_percentile(svc_only(os) ? &os->svc : &os->lat, 50.0)
                   : k > 1 ? x[k - 2] : 0;
    }
    detect(r, ph, x, fleet_end - 2, CHANGE_LATENCY, 1, 0, out, &cap);
    free(os);
    nfleet = out->n;
    for (uint32_t a = 0; a < r->nagents; a++) {
        uint32_t end = agent_end(ph, a);

        if (end <= 2)
            continue;
        for (uint32_t k = 1; k + 1 < end; k++) {
            struct counters c;

            result_slot_agent(&ph->intervals[k], a, &c);   /* packed once sealed */
            x[k - 1] = agent_amount(&c, bytes) / iv_s;
        }
        detect(r, ph, x, end - 2, bytes ? CHANGE_THROUGHPUT : CHANGE_IOPS, 0, a, out, &cap);
    }
    free(x);
    name_agents(out, nfleet);
}

void change_set_free(struct change_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->c[i].agents);
    free(s->c);
    memset(s, 0, sizeof(*s));
}

char *changes_fmt_secs(char *buf, size_t len, double s)
{
    uint64_t whole = (uint64_t)s;

    if (s < 60 && s != (double)whole)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 60)
        snprintf(buf, len, "%llu s", (unsigned long long)whole);
    else if (s < 3600)
        snprintf(buf, len, "%llu min %llu s", (unsigned long long)(whole / 60), (unsigned long long)(whole % 60));
    else
        snprintf(buf, len, "%llu h %llu min %llu s", (unsigned long long)(whole / 3600),
                 (unsigned long long)(whole % 3600 / 60), (unsigned long long)(whole % 60));
    return buf;
}

static char *fmt_value(char *buf, size_t len, enum change_metric m, double v, int unit_base)
{
    if (m == CHANGE_THROUGHPUT)
        return units_fmt_rate(buf, len, v, unit_base);
    if (m == CHANGE_LATENCY)
        return units_fmt_ns(buf, len, v);
    return units_fmt_count(buf, len, v);
}

/* ", fleet-wide", ", agents 0, 1", ", agent 3", ", fleet" */
static void who(char *buf, size_t len, const struct change *c)
{
    size_t used;

    if (c->fleet && (c->fleet_wide || c->metric == CHANGE_LATENCY)) {
        snprintf(buf, len, ", %s", c->fleet_wide ? "fleet-wide" : "fleet");
        return;
    }
    if (c->fleet && !c->nagents) {
        snprintf(buf, len, ", fleet (no agent alone)");
        return;
    }
    used = (size_t)snprintf(buf, len, ", agent%s ", c->nagents == 1 ? "" : "s");
    for (uint32_t i = 0; i < c->nagents && i < TEXT_AGENTS && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ", " : "", c->agents[i]);
    if (c->nagents > TEXT_AGENTS && used < len)
        snprintf(buf + used, len - used, " and %u more", c->nagents - TEXT_AGENTS);
}

void changes_line(char *buf, size_t len, const struct run_result *r, const struct change *c, int unit_base)
{
    char b[32], a[32], at[48], w[160], pct[32];

    (void)r;
    if (c->before > 0)
        snprintf(pct, sizeof(pct), "%+.0f%%", c->pct);
    else
        snprintf(pct, sizeof(pct), "from none");
    who(w, sizeof(w), c);
    snprintf(buf, len, "%s stepped %s from %s to %s at %s (%s)%s", metric_text[c->metric],
             down(c) ? "down" : "up", fmt_value(b, sizeof(b), c->metric, c->before, unit_base),
             fmt_value(a, sizeof(a), c->metric, c->after, unit_base), changes_fmt_secs(at, sizeof(at), c->at_s),
             pct, w);
}

/* Whether agent change a is told by a fleet line already. */
static int covered(const struct change_set *s, const struct change *a)
{
    for (size_t i = 0; i < s->n && s->c[i].fleet; i++)
        if (matches(&s->c[i], a))
            return 1;
    return 0;
}

void changes_text(FILE *out, const struct run_result *r, uint32_t phase, int unit_base)
{
    struct change_set s;
    char line[512];
    size_t shown = 0, more = 0;

    changes_phase(r, phase, &s);
    for (size_t i = 0; i < s.n; i++) {
        if (!s.c[i].fleet && covered(&s, &s.c[i]))
            continue;
        if (!s.c[i].fleet && shown >= TEXT_AGENT_LINES) {
            more++;
            continue;
        }
        changes_line(line, sizeof(line), r, &s.c[i], unit_base);
        fprintf(out, "%s\n", line);
        shown += !s.c[i].fleet;
    }
    if (more)
        fprintf(out, "... and %zu more agent changes (JSON changes[])\n", more);
    change_set_free(&s);
}

json_t *changes_json(const struct run_result *r, uint32_t phase, const struct change_set *s)
{
    json_t *arr = json_array();
    char at[48];

    (void)phase;
    for (size_t i = 0; i < s->n; i++) {
        const struct change *c = &s->c[i];
        json_t *o = json_object(), *ag = json_array();

        json_object_set_new(o, "scope", json_string(c->fleet ? "fleet" : "agent"));
        if (!c->fleet)
            json_object_set_new(o, "agent", json_integer(r->agents[c->agent].id));
        json_object_set_new(o, "metric", json_string(metric_name[c->metric]));
        json_object_set_new(o, "unit", json_string(metric_unit[c->metric]));
        json_object_set_new(o, "direction", json_string(down(c) ? "down" : "up"));
        json_object_set_new(o, "interval", json_integer(c->k));
        json_object_set_new(o, "at_s", json_real(c->at_s));
        json_object_set_new(o, "at", json_string(changes_fmt_secs(at, sizeof(at), c->at_s)));
        json_object_set_new(o, "before", json_real(c->before));
        json_object_set_new(o, "after", json_real(c->after));
        json_object_set_new(o, "pct", c->before > 0 ? json_real(c->pct) : json_null());
        for (uint32_t j = 0; j < c->nagents; j++)
            json_array_append_new(ag, json_integer(c->agents[j]));
        json_object_set_new(o, "agents", ag);
        if (c->fleet)
            json_object_set_new(o, "fleet_wide", json_boolean(c->fleet_wide));
        json_array_append_new(arr, o);
    }
    return arr;
}
