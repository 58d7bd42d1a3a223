/* sweep: the coordinator's side of a sweep (docs/plans.md, "Sweeps"): it
 * chooses each load point's value as the point starts, judges each point
 * once it is over (valid by SPEC's rules, SLO met), steers a search
 * (doubling, then bisection) from those judgements, and keeps the points
 * for the reports (sweep_report.c).
 *
 * The plan holds every point a sweep may take as a phase (common/
 * plan_sweep.h); the run calls sweep_point_start before it starts a phase
 * and sweep_point_done after the phase's result is final.  Both are no-ops
 * for a phase that is no sweep point.  Loop thread only. */
#ifndef NFSTORM_SWEEP_H
#define NFSTORM_SWEEP_H

#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "proto/msg.h"

struct run_result;

#define SWEEP_REASON_MAX 512

/* One load point that ran. */
struct sweep_point {
    uint32_t phase;
    uint64_t requested;        /* the point's value: fleet IOPS or B/s, or the iodepth,
                                  numjobs, agents it set */
    uint64_t per_thread;       /* rate dims: the rate each thread was sent */
    double achieved;           /* fleet IOPS (B/s for sweep=rate), successful ops */
    double achieved_bw;        /* fleet B/s, whatever the dimension */
    double share;              /* what each running agent should achieve (rate dims:
                                  requested / agents; else the fleet's mean) */
    double *agent;             /* [nagents] each agent's IOPS or B/s; -1 = not running it */
    uint64_t *late_ops, *late_ns;  /* [nagents] schedule debt (agent_phase) */
    double *cpu_pct;           /* [nagents] the agent's CPU (user + sys) over its cores */
    double cv_pct;             /* per-interval fleet throughput; -1 = too few intervals */
    uint64_t lat_p50, lat_p90, lat_p99, lat_p999, lat_max;
    double lat_mean;
    uint64_t slo_lat_ns;       /* the first SLO's statistic (p99 by default): the knee's */
    uint8_t valid, slo_met;
    char reasons[SWEEP_REASON_MAX];   /* "; "-joined, "" when valid */
};

struct sweep_run {
    struct sweep_spec spec;
    uint32_t first_phase;      /* the plan's phase of point 0 */
    uint32_t numjobs;          /* threads per agent */
    uint32_t nrunning;         /* agents running the job */
    char agents[PLAN_AGENTS_MAX];
    uint64_t ramp_ns, runtime_ns;
    uint32_t npoints;          /* that ran, in run order */
    struct sweep_point points[SWEEP_MAX_VALUES];
    /* the search */
    uint64_t good, bad, next;  /* highest passing, lowest failing, the next value */
    uint8_t have_good, have_bad, done;
    char note[160];            /* "" or why the search was narrowed (sweep=agents
                                  capped by the fleet); said once as the run starts */
};

struct sweep_set {
    uint32_t n;
    struct sweep_run *runs;    /* [n] */
    uint32_t nagents;
};

/* The sweeps of plan on nagents agents, or NULL when it has none; -EINVAL
 * with err ("job 'x': sweep=agents value 8 exceeds the 4 agents") when a
 * sweep cannot run on this fleet. */
int sweep_set_new(const struct plan *p, uint32_t nagents, struct sweep_set **out, char *err, size_t errlen);
void sweep_set_free(struct sweep_set *s);
/* Before phase starts: fills m's rate_iops/rate_bps (or skip) and names the
 * phase JOB@VALUE in res. */
void sweep_point_start(struct sweep_set *s, struct run_result *res, uint32_t phase, struct msg_start *m);
/* After sweep_point_start: 1 when agent sits out phase (a searched
 * sweep=agents point runs on its first K agents; the others get a start
 * with skip=1 and are not participating), else 0. */
int sweep_point_skips(const struct sweep_set *s, uint32_t phase, uint32_t agent);
/* After phase_ctl_begin of a point sweep_point_start skipped: not run,
 * skipped, and why (the verdict says it, as planned). */
void sweep_mark_skipped(struct sweep_set *s, struct run_result *res, uint32_t phase);
/* After phase's result is final: judge it, steer the search. */
void sweep_point_done(struct sweep_set *s, struct run_result *res, uint32_t phase);

/* Capacity of a sweep: the value (0 when no point passed), the achieved
 * throughput and SLO latency there, and whether a failing point above
 * brackets it.  Knee: index into points of the knee, or -1. */
struct sweep_outcome {
    int cap_point;             /* index into points, -1 = none passed */
    int bracketed;
    int knee_point;            /* -1 = none */
    uint32_t ninvalid;
};
void sweep_outcome(const struct sweep_run *w, struct sweep_outcome *o);
/* Points in ascending requested order: idx[n] of indices into w->points. */
void sweep_sorted(const struct sweep_run *w, uint32_t *idx);

/* The job of s's sweep that a phase named name ("JOB@VALUE", or
 * "JOB@pointN" for a point the search did not need) is a point of, or
 * NULL: by name, so it serves a loaded result too (whose sweeps keep only
 * the points that ran). */
const char *sweep_point_job(const struct sweep_set *s, const char *name);

/* For the live line of a point starting: "; sweep m point 5: passing 80k,
 * failing 160k" (the bracket so far), or "" when phase is no sweep point. */
void sweep_live_note(const struct sweep_set *s, uint32_t phase, char *buf, size_t len);

/* Reports (sweep_report.c).  The JSON array of every sweep (a jansson
 * json_t *, new reference), the text table and headline, the dry-run plan. */
void *sweep_json(const struct sweep_set *s, const struct run_result *res);
void sweep_text(FILE *f, const struct sweep_set *s, const struct run_result *res);
/* The points as CSV (one row for the fleet, one per running agent). */
void sweep_csv(FILE *f, const struct sweep_set *s, const struct run_result *res);
/* The HTML section: achieved vs requested (with y = x, one line per agent,
 * invalid points marked), latency percentiles vs achieved, the table. */
void sweep_html(FILE *f, const struct sweep_set *s, const struct run_result *res);
/* A result file's sweeps[] (a jansson json_t *) back into a set for the
 * reports (sweep_load.c); points are checked against the result's agents
 * and phases.  0, or -EINVAL with err naming the field. */
int sweep_from_json(void *json, uint32_t nagents, uint32_t nphases, struct sweep_set **out, char *err,
                    size_t errlen);
/* --dry-run: each sweep's planned (doubling) points and worst-case time. */
void sweep_dry_run(FILE *f, const struct plan *p);

#endif
