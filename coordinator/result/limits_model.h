/* limits_model: the declared limits (limits.h) applied to a plan before it
 * runs and to a run's result after it.
 *
 * Before: each phase's load is what its rate limits ask (rate=, rate_iops=,
 * per direction), or, for a phase without them (an open load), what the
 * declared caps let through: per-client cap x agents, the file system's cap
 * and the burst rate (both on metered bytes).  A load beyond a cap is cut to
 * it, since the service will not carry more.  Metered bytes are reads x
 * read_metering + writes x write_metering.  The credit balance drains at the
 * plan's mean metered rate less the baseline it earns: drain time =
 * initial / (mean - baseline), none when the mean is at or under the
 * baseline.  A plan shorter than that measures the burst, not the service
 * it settles to.  Cost = GB read x read_per_gb + GB written x write_per_gb
 * + hours x per_hour (GB = 10^9 bytes).
 *
 * After: each agent's throughput over its phase time (all bytes moved)
 * against the per-client cap, the fleet's metered throughput against the
 * file system's cap: at or within LIMITS_AT_CAP_PCT percent below it is
 * "limited by the declared ... cap", more than LIMITS_AT_CAP_PCT above it is
 * "faster than the declared cap: cache?" (the service would not carry it,
 * so something nearer the client answered).  The run's bytes, metered
 * bytes, credits used and cost, as before the run. */
#ifndef NFSTORM_LIMITS_MODEL_H
#define NFSTORM_LIMITS_MODEL_H

#include <stdint.h>
#include "common/plan.h"
#include "coordinator/result/limits.h"

struct run_result;

#define LIMITS_AT_CAP_PCT 5.0

/* What a plan would do against the limits. */
struct limits_forecast {
    int load_known;          /* every phase's load and duration could be told */
    int from_caps;           /* some phase's load is an open one, taken from the caps */
    char unknown_why[256];   /* when !load_known: which phase and why */
    double duration_s;       /* the plan's phases end to end (startdelay, ramp included) */
    double read_bytes, write_bytes, metered_bytes;
    double metered_bps;      /* metered_bytes / duration_s */
    /* credits (limits has_credits) */
    double baseline_bps, burst_bps;
    double drain_s;          /* credits last this long at metered_bps; < 0: they never run out */
    int shorter_than_drain;  /* the plan ends before they run out */
    /* cost (limits has_prices) */
    double cost_read, cost_write, cost_time, cost;
};

/* Forecast plan on nagents agents (agents= lists resolved or not: a label
 * counts as every agent). */
void limits_forecast(const struct limits *l, const struct plan *p, uint32_t nagents, struct limits_forecast *f);

/* How a measured rate compares with a declared cap. */
enum limits_judgement {
    LIMITS_NO_CAP = 0,       /* no cap declared, or nothing measured */
    LIMITS_BELOW,            /* under the cap by more than LIMITS_AT_CAP_PCT */
    LIMITS_AT_CAP,           /* limited by the declared cap */
    LIMITS_ABOVE,            /* faster than the declared cap: cache? */
};
enum limits_judgement limits_judge(double measured, double cap);
/* "below the declared per-client cap", "limited by the declared per-client cap",
 * "faster than the declared cap: cache?"; which: "per-client", "per-file-system". */
const char *limits_judgement_text(enum limits_judgement j, const char *which, char *buf, size_t len);
const char *limits_judgement_name(enum limits_judgement j);   /* "none", "below", "at_cap", "above" */

/* The run's totals against the limits (every phase that ran). */
struct limits_usage {
    double duration_s, read_bytes, write_bytes, metered_bytes, metered_bps;
    double credits_used;     /* metered bytes above what the baseline earned over the run */
    double credits_left;     /* initial - used (negative: they would have run out) */
    double exhausted_at_s;   /* < 0: not within the run; else when, at the run's mean rate */
    double cost_read, cost_write, cost_time, cost;
};
void limits_usage(const struct limits *l, const struct run_result *r, struct limits_usage *u);

/* One agent's (agent < nagents) or the fleet's (agent == UINT32_MAX) rates
 * in a phase: all bytes and ops over the phase time; metered bytes/s for
 * the fleet.  0 when the phase did not run. */
struct limits_rates {
    double bps, iops, metered_bps, duration_s;
};
void limits_rates(const struct limits *l, const struct run_result *r, uint32_t phase, uint32_t agent,
                  struct limits_rates *out);

/* "6.0 h", "41 min", "12 s", "2.1 d": a duration for the warnings. */
char *limits_fmt_duration(char *buf, size_t len, double s);

#endif
