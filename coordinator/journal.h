/* journal: every measurement the coordinator receives, appended to
 * <json>.journal as JSON lines the moment it arrives, so a coordinator
 * killed with -9 loses nothing it had received; `nfstorm report JOURNAL`
 * rebuilds the full report (percentiles included) from the journal alone.
 *
 * Lines (one JSON object each, "type" first):
 *   header      once the run starts: schema, label, started, interval_ms,
 *               agents [{id, addr, host, ncpus, clock_offset_ns, rtt_ns}],
 *               phases [{name, rw, bs, numjobs, njobs, idle: [agent ids
 *               agents= leaves idle], error_threshold, error_threshold_pct}]
 *   interval    {phase, agent, k, ops: {op: {ops, bytes, errors, lat, svc}}}
 *               lat/svc: {count, sum, min, max, b: [idx, n, ...]} (sparse)
 *   phase_done  {phase, agent, duration_ns, start_ns, cpu_user_s, cpu_sys_s,
 *               cores, nintervals, ops: {...as interval}}
 *   lost        {agent, at_s, why}
 *   error       {phase, agent, text}   an agent's error (verdict.h)
 *   end         {how: interrupted|failed, phase, at_s, text}   the run ended early
 *   phase_end   {phase}   (every live agent finished it) */
#ifndef NFSTORM_JOURNAL_H
#define NFSTORM_JOURNAL_H

#include "coordinator/result.h"
#include "coordinator/run.h"

struct journal;

/* Open (truncate) path for appending. NULL with errno on failure. */
struct journal *journal_open(const char *path, const char *label);
/* Close; 0, or -errno if any write failed. */
int journal_close(struct journal *j);
struct run_observer journal_observer(struct journal *j);

/* Rebuild a result from a journal (a truncated last line is ignored, as
 * after a kill -9).  0 or -errno with a one-line reason naming file:line. */
int journal_load(const char *path, struct run_result *r, char *err, size_t errlen);
/* 1 if the file starts like a journal. */
int journal_detect(const char *path);

#endif
