/* journal: every measurement the coordinator receives, appended to
 * <json>.journal as JSON lines the moment it arrives; `nfstorm report
 * JOURNAL` rebuilds the full report (percentiles included) from the
 * journal alone.  Per-agent intervals are journaled as counters, and each
 * interval's merged histograms once, when it is complete (interval_lat):
 * ~100 bytes per agent-interval.  A coordinator killed with -9 therefore
 * loses the latency of intervals not yet complete (their counters stay),
 * nothing else it had received. 
 *
 * Lines (one JSON object each, "type" first):
 *   header      once the run starts: schema, label, started, interval_ms,
 *               agents [{id, addr, host, ncpus, clock_offset_ns, rtt_ns}],
 *               phases [{name, rw, bs, numjobs, njobs, idle: [agent ids
 *               agents= leaves idle], error_threshold, error_threshold_pct}]
 *   phase_start {phase, t0_ns}   the phase's start instant (coordinator clock)
 *   interval    {phase, agent, k, [inflight, oldest_ns],
 *               ops: {op: {ops, bytes, [errors], [timeouts], [lat, [svc]]}}}
 *               counters only, on arrival (errors when not 0); lat/svc
 *               (and errors always) only in a late one
 *               (its interval was already complete) and in journals
 *               written before interval_lat; inflight/oldest_ns when not 0
 *   interval_lat {phase, k, ops: {op: {lat, [svc]}}}  interval k's merged
 *               histograms, once it holds every live agent's data;
 *               lat/svc: {count, sum, min, max, runs: [skip, len, n...]},
 *               the one histogram form (common/hist_codec.h); timeouts and
 *               svc only when non-zero
 *   phase_done  {phase, agent, duration_ns, start_ns, cpu_user_s, cpu_sys_s,
 *               cores, nintervals, ops: {...as interval}}
 *   lost        {agent, at_s, why}
 *   error       {phase, agent, text}   an agent's error (verdict.h)
 *   stopped     {how: interrupted|failed, phase, at_s, text}   the run ended early
 *   record      {record: {...}, systems: [agent's machine or null, ...]}
 *               right after the header when the run has a record
 *               (run_record.h; the same JSON as the result's "record")
 *   storage     {phase, agent, storage: [...]}  where the agent runs phase,
 *               at the phase's start (the result's phases[].agents[].storage)
 *   record_end  {record: {...}, interrupted}  the record with its end time,
 *               just before end (without it the replay says interrupted)
 *   phase_end   {phase, control?}   (every live agent finished it; control:
 *               phase_ctl_json of the phase, when phase control applied)
 *   end         {outcome: "ok"|"partial"|"interrupted"|"failed"}: the
 *               coordinator recorded the run to its end.  A journal
 *               without it was cut short (coordinator killed with -9,
 *               crashed, or its disk filled up): `nfstorm report` says so. */
#ifndef NFSTORM_JOURNAL_H
#define NFSTORM_JOURNAL_H

#include "coordinator/result/result.h"
#include "coordinator/run/run.h"
#include "coordinator/run/journal_replay.h"   /* the reader */

struct journal;

/* Open (truncate) path for appending. NULL with errno on failure. */
struct journal *journal_open(const char *path, const char *label);
/* Close; 0, or -errno if any write failed. */
int journal_close(struct journal *j);
struct run_observer journal_observer(struct journal *j);

/* The record (run_record.h) to write after the header; rec must stay
 * valid until the header is written (the first phase's start). */
void journal_set_record(struct journal *j, const struct run_record *rec);
/* The record with its end: the record_end line.  0 or -errno. */
int journal_record_end(struct journal *j, const struct run_record *rec);

/* The run ended (whatever its outcome, one of the words above): write the
 * end record.  The journal stays open; 0 or -errno. */
int journal_end(struct journal *j, const char *outcome);

#endif
