/* timeseries: the run's intervals as JSON lines, written as they arrive
 * (--timeseries FILE).  Line formats: docs/results.md. */
#ifndef NFSTORM_TIMESERIES_H
#define NFSTORM_TIMESERIES_H

#include <stdio.h>
#include "coordinator/run/run.h"

struct timeseries;

/* Open path for writing (truncated).  NULL with errno set on failure. */
struct timeseries *timeseries_new(const char *path);
/* Flushes and closes; 0 or -errno of the first write error. */
int timeseries_free(struct timeseries *ts);
/* The observer for run_options.observers; valid while ts lives. */
struct run_observer timeseries_observer(struct timeseries *ts);

/* Every interval of every phase (renders a saved result). */
void timeseries_write_all(FILE *out, const struct run_result *r);

#endif
