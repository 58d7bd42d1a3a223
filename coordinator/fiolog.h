/* fiolog: fio's log files (write_bw_log, write_lat_log, write_iops_log,
 * write_hist_log) written by the coordinator from the intervals agents
 * stream, so fio_generate_plots, fio2gnuplot, fiologparser.py and
 * fiologparser_hist.py read nfstorm runs.  Formats and names:
 * docs/reports.md, "fio log files".
 *
 * One set of files per clone of each logging job, as fio writes one per
 * thread (N its thread number: every job's clones counted in plan order),
 * with that clone's figures; a phase of one thread or of more than
 * CLONE_SET_MAX threads an agent has one set (the sum of its jobs, under
 * the first logging job's name, keys and number) instead.  Each set is
 * merged over the fleet (`PREFIX_bw.N.log`) and per agent
 * (`PREFIX_bw.N.agentI`, I its index, no `.log` ending), so fio's globs
 * (`*_bw.*.log`) find the fleet's file once and never an agent's.  Every line is one interval of the run
 * (log_avg_msec is the run's interval: fiolog_plan_interval), hist lines
 * one log_hist_msec window of whole intervals.
 *
 * Single-threaded: the observer runs on the run's loop thread. */
#ifndef NFSTORM_FIOLOG_H
#define NFSTORM_FIOLOG_H

#include <stdint.h>
#include <stdio.h>
#include "common/hist.h"
#include "common/plan.h"
#include "coordinator/run.h"

/* fio 3.33's latency histogram: FIO_IO_U_PLAT_NR bins, the same log-linear
 * layout as nfstorm's (128 exact values, then 64 per power of two), so bin
 * i is nfstorm's bucket i; fio's last bin also holds everything above it. */
#define FIOLOG_PLAT_NR 1856u

/* The run's interval the plan's logs need.  *interval_ms is left alone when
 * no job logs.  With log_avg_msec (every job that sets it must agree) the
 * interval is that period; without it, log_hist_msec's; else the run's
 * interval stays and the logs are averaged over it (fio would log every
 * I/O: see docs/reports.md).  given: the user set --interval, which must then
 * equal the period.  log_hist_msec must be a whole number of intervals.
 * 0, or -EINVAL with a one-line reason naming the job and key in err. */
int fiolog_plan_interval(const struct plan *p, int given, uint32_t *interval_ms, char *err,
                         size_t errlen);
/* 1 when some job of p asks for a log. */
int fiolog_plan_wants(const struct plan *p);
/* 1 when phase ph's logs are one file set per clone of each logging job
 * (fio's file per thread): a job of it logs and it has 2..CLONE_SET_MAX
 * threads an agent, which agents then report one by one; else its logs
 * are one set for the phase (the sum of its jobs). */
int fiolog_phase_per_clone(const struct phase *ph);

/* fio's file name: "PREFIX_TYPE.N.log" (per_job 1) or "PREFIX_TYPE.log";
 * agent >= 0 appends ".agentI" to the prefix. */
void fiolog_name(char *buf, size_t len, const char *prefix, int agent, const char *type,
                 uint32_t n, int per_job);
/* One hist log line ("TIME, DDIR, BS, b0, ..., bLAST\n") of h in fio's bins,
 * 2^coarseness bins summed into one as fio does. */
void fiolog_hist_line(FILE *out, uint64_t time_ms, int ddir, uint64_t bs, const struct hist *h,
                      uint32_t coarseness);

struct fiolog;
/* For plan on nagents agents at the run's interval_ms; NULL when no job of
 * plan logs. */
struct fiolog *fiolog_new(const struct plan *p, uint32_t nagents, uint32_t interval_ms);
/* Create (truncate) every file the run will write, before it starts, as
 * fio does at job setup: a prefix in a missing directory fails here, not
 * after the run.  0, or -errno (fiolog_error names the file). */
int fiolog_create_files(struct fiolog *fl);
/* Frees; 0, or -errno of the first failed open or write (path in the
 * message fiolog_error gives). */
int fiolog_free(struct fiolog *fl);
/* The first failure as a line ("fl_bw.1.log: No space left on device"), "" none. */
const char *fiolog_error(const struct fiolog *fl);
/* The first thing the logs lack, as a line (an agent that sent ops of a
 * per-clone phase without its threads' figures), "" none. */
const char *fiolog_warning(const struct fiolog *fl);
/* The observer for run_options.observers; valid while fl lives. */
struct run_observer fiolog_observer(struct fiolog *fl);

#endif
