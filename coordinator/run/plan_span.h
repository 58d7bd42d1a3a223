/* plan_span: whether a plan's phases fit in the intervals a phase keeps.
 *
 * A phase's result holds at most RESULT_MAX_INTERVALS intervals; an agent
 * that sends more is treated as misbehaving.  A time-based phase's length
 * is known before the run (startdelay + ramp_time + runtime of its longest
 * job), so a short --interval or log_avg_msec with a long runtime is
 * refused up front instead of failing the run hours in.  Phases bounded by
 * size alone cannot be told in advance and pass. */
#ifndef NFSTORM_PLAN_SPAN_H
#define NFSTORM_PLAN_SPAN_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

/* 0, or -E2BIG with err naming the phase, its intervals and the cap.
 * interval_ms is the run's interval (after log_avg_msec was applied). */
int plan_span_check(const struct plan *p, uint32_t interval_ms, char *err, size_t errlen);

#endif
