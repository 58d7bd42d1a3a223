/* fleet_summary: a phase's agents as a fleet, for the reports at scale.
 *
 * Beyond a handful of agents a row per agent hides the picture: the text
 * and HTML reports then show how the agents' throughput is distributed
 * (min, p10, median, p90, max), the slowest and fastest few, and the lost
 * and idle agents by name.  This module does the sorting and the maths
 * once, for both reporters; it reads only what a result carries (live or
 * loaded from the JSON or the journal), so a re-rendered report is the
 * same as the run's.
 *
 * Percentiles of n values are nearest-rank: the p-th percentile is the
 * value of rank ceil(p/100 * n) (1-based) in ascending order, rank 1 for
 * p = 0.  Always one of the values (never interpolated), so every figure
 * of the distribution line is some agent's own; the median of an even
 * count is the lower middle value.
 *
 * An agent's throughput is its successful ops (all op types, ops -
 * errors) and bytes over its own run time (the phase's when it reported
 * none), as in the agent rows.  Pure functions over a run_result. */
#ifndef NFSTORM_FLEET_SUMMARY_H
#define NFSTORM_FLEET_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "coordinator/result/result.h"

#define FLEET_ROWS_DEFAULT 16        /* --agent-rows default */
#define FLEET_ROWS_ALL UINT32_MAX    /* --agent-rows all */
#define FLEET_EDGE 5                 /* slowest and fastest agents shown */
#define FLEET_NAMES_MAX 20           /* lost/idle agents named before "... and N more" */

/* 1 when a report of nagents agents shows the fleet view instead of a row
 * per agent: more agents than rows (rows 0 means the default). */
int fleet_use_view(uint32_t nagents, uint32_t rows);

/* Agent a's host name as the reports print it: its address without one,
 * "?" without either. */
const char *fleet_host(const struct run_result *r, uint32_t a);
/* An agent's CPU over its run in percent of its cores ("85%"), "-" when
 * unknown (no cores or run time reported); buf returned. */
char *fleet_cpu_text(char *buf, size_t len, const struct agent_phase *ap);
/* qsort's comparison of doubles, ascending. */
int fleet_cmp_double(const void *pa, const void *pb);

/* Nearest-rank p-th percentile (0 <= p <= 100) of sorted[0..n), ascending;
 * 0 when n == 0. */
double fleet_percentile(const double *sorted, size_t n, double p);

struct fleet_dist {
    double min, p10, median, p90, max;
};
/* The distribution of sorted[0..n) (ascending); all 0 when n == 0. */
void fleet_dist_of(const double *sorted, size_t n, struct fleet_dist *d);

enum fleet_state {
    FLEET_RAN = 0,          /* took part and sent its result */
    FLEET_LOST,             /* went away during the phase (lost, no full result) */
    FLEET_IDLE,             /* runs no job of the phase (agents=) */
    FLEET_NO_RESULT,        /* took part, not lost, sent no result */
};

struct fleet_agent {
    uint32_t agent;         /* index into r->agents */
    double iops, bw;        /* successful ops/s, bytes/s */
};

struct fleet_phase {
    uint32_t nagents;
    uint32_t count[4];      /* agents per enum fleet_state */
    uint8_t *state;         /* [nagents] enum fleet_state, owned */
    struct fleet_agent *ran;   /* [count[FLEET_RAN]], ascending IOPS (ties: agent
                                  index), owned */
    struct fleet_dist iops, bw;   /* over the agents that ran */
};

/* Classify and sort the agents of phase (phase < r->nphases).  Free with
 * fleet_phase_free. */
void fleet_phase_init(struct fleet_phase *f, const struct run_result *r, uint32_t phase);
void fleet_phase_free(struct fleet_phase *f);
/* How many slowest (and as many fastest) agents to show: FLEET_EDGE, or
 * fewer so the two groups never overlap (ran < 2 * FLEET_EDGE). */
uint32_t fleet_edge_slow(const struct fleet_phase *f);
uint32_t fleet_edge_fast(const struct fleet_phase *f);

#endif
