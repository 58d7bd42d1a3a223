/* changes: the step-downs and step-ups of a phase (a throttle, a cap, a
 * burst that ended), found by common/changepoint.h in the interval series
 * of the fleet and of each agent, and told in text, JSON (changes[]) and
 * on the HTML's time charts.
 *
 * Series (docs/long-runs.md): throughput in bytes/s (IOPS when the phase
 * moved no bytes) for the fleet and for each agent, and the fleet's median
 * latency per interval (agents' intervals keep counters only, no latency;
 * rate-limited ops' service time, issue to completion, not their latency
 * from when they were due, which also holds the client's lag).  The first
 * interval (start-up) and the last (partial) are left out, and so are an
 * agent's intervals past its phase duration (wind-down); the fleet's
 * series ends where the first agent taking part ended.  A fleet change
 * names the agents whose own series stepped the same way within
 * CHANGES_MATCH intervals of it; "fleet-wide" when that is every agent
 * taking part.  Built from the result alone, so `nfstorm report` re-renders
 * what the run reported.  Pure functions over a run_result. */
#ifndef NFSTORM_CHANGES_H
#define NFSTORM_CHANGES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "coordinator/result.h"

/* An agent's step matches the fleet's within this many intervals. */
#define CHANGES_MATCH 2u
/* Latency steps smaller than this are not reported: below it a busy
 * client's scheduler moves latency by more than 20% for seconds,
 * and that says nothing about the storage. */
#define CHANGES_LAT_FLOOR_NS 100000.0
/* ... and each side of a latency step lasts this long at least, whatever
 * the intervals: at short intervals (50 ms) a loaded client's scheduler
 * holds its ops up for a quarter second at a time, and the interval count
 * alone would call that a step. */
#define CHANGES_LAT_MIN_MS 2000u

/* Bounds of --change-min-pct and --change-min-intervals (and of a loaded
 * result's change_detection): min_intervals from CHANGEPOINT_MIN_LEN_FLOOR. */
#define CHANGES_PCT_MAX 1000.0
#define CHANGES_INTERVALS_MAX 86400u

enum change_metric { CHANGE_THROUGHPUT, CHANGE_IOPS, CHANGE_LATENCY };

struct change {
    enum change_metric metric;
    uint8_t fleet;             /* 1: the fleet's series; 0: agent's */
    uint32_t agent;            /* agent index, when !fleet */
    uint32_t k;                /* the phase's first interval at the new level */
    double at_s;               /* seconds into the phase where it starts: the time to throttle */
    double before, after;      /* plateaus (medians): bytes/s, ops/s or ns */
    double pct;                /* 100 * (after - before) / before; 0 when before was 0 */
    uint32_t *agents;          /* fleet: the agents that stepped alike; agent: itself; owned */
    uint32_t nagents;
    uint8_t fleet_wide;        /* fleet: every agent taking part stepped alike */
};

struct change_set {
    struct change *c;          /* [n]: fleet changes first, then per agent; by time in each */
    size_t n;
    uint32_t nseries_agents;   /* agents taking part with a series */
};

/* The thresholds r uses: r->change_min_pct / r->change_min_intervals, or
 * the defaults (CHANGEPOINT_MIN_PCT, CHANGEPOINT_MIN_LEN) where 0. */
double changes_min_pct(const struct run_result *r);
uint32_t changes_min_intervals(const struct run_result *r);

/* The changes of phase (in range, finished).  Free with change_set_free. */
void changes_phase(const struct run_result *r, uint32_t phase, struct change_set *out);
void change_set_free(struct change_set *s);

/* "throughput stepped down from 480MiB/s to 96MiB/s at 41 min 12 s (-80%), fleet-wide" */
void changes_line(char *buf, size_t len, const struct run_result *r, const struct change *c, int unit_base);
/* Every fleet change of phase, then the agents' changes no fleet change
 * covers, one line each (nothing when there are none). */
void changes_text(FILE *out, const struct run_result *r, uint32_t phase, int unit_base);
/* changes[] of phase (docs/results.md); a new array. */
json_t *changes_json(const struct run_result *r, uint32_t phase, const struct change_set *s);
/* "41 min 12 s", "2 h 0 min 5 s", "12 s", "1.5 s" */
char *changes_fmt_secs(char *buf, size_t len, double s);

#endif
