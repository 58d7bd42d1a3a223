/* plan_sweep: the sweep keys (sweep=, sweep_values=, sweep_start=,
 * sweep_max=, sweep_resolution=, sweep_slo=, sweep_point_time=,
 * sweep_valid=), parsed once a job is complete, and the job expanded into
 * one phase per load point.
 *
 * Design: a sweep's points are phases of their own (each with everything a
 * phase has), laid out by the parser like matrix=.  Explicit values
 * (sweep_values=) give one phase each.  A search (sweep_start=/sweep_max=,
 * doubling then bisection) cannot know its values before it runs, so the
 * plan holds the most points the search can take (sweep_max_points) and the
 * coordinator (coordinator/sweep.h) chooses each point's value from the
 * last result as it starts it, sending the rate in the start message, and
 * skips the points it no longer needs.  A rate is a schedule the agent
 * applies at the start; iodepth, numjobs and agents shape what an agent
 * prepares (threads, buffers, files), so a search over them lays every point
 * out at sweep_max (iodepth=, numjobs= or agents 0..max-1) and the start
 * message narrows it to the point's value (the depth each thread may keep in
 * flight, the threads that run, the agents that are not skipped). */
#ifndef NFSTORM_PLAN_SWEEP_H
#define NFSTORM_PLAN_SWEEP_H

#include <stddef.h>
#include <stdint.h>

enum sweep_dim { SWEEP_NONE = 0, SWEEP_RATE_IOPS, SWEEP_RATE, SWEEP_IODEPTH, SWEEP_NUMJOBS, SWEEP_AGENTS };

#define SWEEP_MAX_VALUES 32     /* points of one sweep, explicit or searched */
#define SWEEP_MAX_SLO 4
#define SWEEP_DEFAULT_RESOLUTION 5.0
#define SWEEP_DEFAULT_ACHIEVED 95.0
#define SWEEP_DEFAULT_AGENT 75.0
#define SWEEP_DEFAULT_CV 5.0

struct sweep_slo {
    uint32_t pct_milli;         /* percentile x 1000 (99000 = p99); 0 = the mean */
    uint64_t limit_ns;          /* holds when the latency is <= this */
};

/* A sweep as parsed; plain data, copied into every point's job. */
struct sweep_spec {
    uint32_t dim;               /* enum sweep_dim; SWEEP_NONE: the job is no sweep */
    uint32_t nvalues;           /* explicit points (sweep_values=); 0 = a search */
    uint64_t values[SWEEP_MAX_VALUES];
    uint64_t start, max;        /* the search's range */
    double resolution_pct;      /* the search ends when its bracket is this narrow */
    uint32_t nslo;
    struct sweep_slo slo[SWEEP_MAX_SLO];
    double achieved_pct, agent_pct, cv_pct;   /* sweep_valid= */
    uint32_t npoints;           /* phases the sweep occupies */
    uint32_t point;             /* which of them this job's phase is */
    char base[64];              /* the job's name without "@VALUE" */
};

/* The sweep keys as written, kept as text until the job is complete (the
 * dimension decides how a value reads); coordinator only, never sent. */
struct sweep_text {
    char dim[16];
    char values[256];
    char start[32], max[32];
    char resolution[16];
    char slo[128];
    char valid[64];
    uint64_t point_ns;          /* sweep_point_time; 0 = the job's runtime */
};

/* Parse t into out (out->point = 0).  0, or -EINVAL with why naming the key
 * and what was wrong. */
int plan_sweep_parse(const struct sweep_text *t, struct sweep_spec *out, char *why, size_t whylen);
/* sweep_slo's text ("p99<=5ms,mean<=1ms", bare numbers ms) appended to s's
 * conditions.  0, or -EINVAL with why. */
int plan_sweep_parse_slo(const char *text, struct sweep_spec *s, char *why, size_t whylen);
/* Most points a search from start to max at resolution can take: the
 * doubling points, then the bisections of the last doubling bracket (for an
 * integer dimension, integer: also ended when the bracket is adjacent values). */
uint32_t plan_sweep_max_points(uint64_t start, uint64_t max, double resolution_pct, int integer);
/* The doubling points of a search: start, 2 start, ... up to max (its last
 * point is max).  How many, at most cap, stored in out. */
uint32_t plan_sweep_doubling(uint64_t start, uint64_t max, uint64_t *out, uint32_t cap);
const char *plan_sweep_dim_name(uint32_t dim);   /* "rate_iops", ...; "" for none */
const char *plan_sweep_unit(uint32_t dim);       /* "IOPS", "B/s", "iodepth", ... */
/* "p99<=5ms" back from a spec, into buf. */
char *plan_sweep_slo_text(const struct sweep_spec *s, char *buf, size_t len);

#endif
