/* fairness: how evenly the agents shared the work (Jain's index, shares).
 *
 * Jain's fairness index over n values x_i is (sum x)^2 / (n * sum x^2): 1.0
 * when every x_i is equal, 1/n when one agent did everything.  A phase's
 * index is taken over the agents' rates (ops / own duration), so a
 * size-bound phase where one agent took twice as long reads unfair even
 * though every agent did the same ops; an interval's over the agents' ops
 * in that interval (all intervals have one length).  Shares are ops
 * fractions (0..1) of the whole.  Pure functions over a run_result. */
#ifndef NFSTORM_FAIRNESS_H
#define NFSTORM_FAIRNESS_H

#include <stddef.h>
#include <stdint.h>
#include "coordinator/result/result.h"

/* Jain's index of x[0..n); 1.0 when n == 0 or every x is 0. */
double fairness_jain(const double *x, size_t n);
/* share[i] = x[i] / sum(x); all 0 when the sum is 0. */
void fairness_shares(const double *x, size_t n, double *share);

struct fairness {
    double jain;            /* over the agents counted */
    uint32_t ncounted;      /* agents with a result (done, not lost, taking part) */
    uint32_t slowest;       /* agent index with the lowest rate (valid if ncounted) */
    uint32_t fastest;
    double slowest_iops, fastest_iops;
};

/* Phase fairness; share[r->nagents] receives each agent's share of the
 * phase's ops (all op types; 0 for agents without a result). */
void fairness_phase(const struct run_result *r, uint32_t phase, double *share, struct fairness *f);
/* Interval k of phase: share[r->nagents] of that interval's ops; returns
 * Jain's index over the ops of the agents taking part that were alive then:
 * not lost, or lost later but reporting interval k.  That depends on what
 * the result holds, not on when it is asked, so the run's live time series
 * and a re-rendered one agree (docs/reports.md). */
double fairness_interval(const struct run_result *r, uint32_t phase, uint32_t k, double *share);

#endif
