/* live: progress on stderr while a run goes: a line per merged interval
 * (phase, elapsed, IOPS, bandwidth, p99), nothing with --quiet. */
#ifndef NFSTORM_LIVE_H
#define NFSTORM_LIVE_H

#include <stdio.h>
#include "common/plan.h"
#include "coordinator/run.h"

struct live;

struct live *live_new(FILE *out, int quiet, const struct plan *plan, int unit_base);
void live_free(struct live *l);
/* The observer to put in run_options.observers. */
struct run_observer live_observer(struct live *l);

#endif
