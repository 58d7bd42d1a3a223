/* live: the status line on stderr while a run goes.
 *
 * On a terminal one line is redrawn in place (at most once a second): phase
 * i/N and name, elapsed/remaining, merged IOPS and bandwidth, p99, agents
 * running/lost and a progress bar when the phase is bound by time or size.
 * Otherwise (a pipe, a log file) one line per interval.  Nothing with quiet.
 * All calls on the run's loop thread. */
#ifndef NFSTORM_LIVE_H
#define NFSTORM_LIVE_H

#include <stdio.h>
#include "common/plan.h"
#include "coordinator/run/run.h"

struct live;

/* plan must outlive l.  tty: 1 redraw in place, 0 a line per interval,
 * -1 decide with isatty(out). */
struct live *live_new_tty(FILE *out, int quiet, const struct plan *plan, int unit_base, int tty);
void live_free(struct live *l);
/* The observer to put in run_options.observers. */
struct run_observer live_observer(struct live *l);

#endif
