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
#include "coordinator/run.h"

struct live;

/* plan must outlive l.  tty: 1 redraw in place, 0 a line per interval,
 * -1 decide with isatty(out). */
struct live *live_new_tty(FILE *out, int quiet, const struct plan *plan, int unit_base, int tty);
void live_free(struct live *l);
/* The observer to put in run_options.observers. */
struct run_observer live_observer(struct live *l);

/* Layout progress before a phase: done_bytes of total_bytes laid out over
 * the fleet.  Matches the proposed run_observer.layout hook:
 *   void (*layout)(void *arg, const struct run_result *r, uint32_t phase,
 *                  uint64_t done_bytes, uint64_t total_bytes);
 * (arg is the struct live). */
void live_layout(void *arg, const struct run_result *r, uint32_t phase,
                 uint64_t done_bytes, uint64_t total_bytes);

#endif
