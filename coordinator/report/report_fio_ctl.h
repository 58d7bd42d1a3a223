/* report_fio_ctl: fio's JSON view of a phase's phase control (phase_ctl.h)
 * in a fio "job" object (report_fio.c): the latency_* fields of a
 * latency_target search and, for a phase with ss=, fio's "steadystate"
 * object {"ss", "duration", "attained", "criterion", "max_deviation",
 * "slope", "data" {"bw_mean", "iops_mean", "iops", "bw"}}. */
#ifndef NFSTORM_REPORT_FIO_CTL_H
#define NFSTORM_REPORT_FIO_CTL_H

#include <stdint.h>
#include "coordinator/result/result.h"

struct json_t;

/* Set job's "latency_target", "latency_percentile", "latency_window" (us,
 * as fio) from ph->ctl when the phase searched a latency target (else
 * leave them), and "latency_depth" to the depth found once every search
 * ended; add "steadystate" when it had ss=.  agent < 0:
 * the fleet's job (data from the merged intervals, depth the fleet's),
 * else that agent's client_stats entry (its own intervals and depth; the
 * decision, attained and criterion, is the fleet's: nfstorm judges steady
 * state on the merged intervals). */
void report_fio_ctl(struct json_t *job, const struct phase_result *ph, uint32_t nagents, int agent);

#endif
