/* repeat: a repeat set (`nfstorm run --repeat N`): N repetitions of one
 * plan, the summary of each phase metric over them, and the set file.
 *
 * The set is a struct run_set (result_load.h): the repetitions in order,
 * each a complete run_result, so every single-run report still works on
 * any one of them.  The summary is always computed from the repetitions
 * (never stored and read back): per phase and op type, the mean, standard
 * deviation and 95% confidence interval (Student t, sample_stats.h) of
 * IOPS, bandwidth, p50 and p99 latency, over the repetitions in which the
 * phase ran to its end (verdict_phase_finished) with verdict ok.  A
 * repetition whose phase failed (or is partial: an agent lost) would pull
 * the mean towards its failure and widen the interval past zero
 * ("43.8k sd 56.5k, 95% CI -96.6k .. 184k"): it is left out, shown
 * with its values and counted ("left out"), unless the set's
 * include_failed (--include-failed) keeps it.  An interrupted repetition's
 * phase never counts.  Intervals are clamped to the metric's range
 * (sample_clamp_ci) and say so. */
#ifndef NFSTORM_REPEAT_H
#define NFSTORM_REPEAT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include "common/stats.h"
#include "coordinator/result/result_load.h"

enum repeat_metric {
    REPEAT_IOPS = 0,
    REPEAT_BW,          /* bytes/s */
    REPEAT_P50,         /* latency ns */
    REPEAT_P99,
    REPEAT__METRICS
};
/* The summary's JSON key: "iops", "bw_bytes", "lat_p50_ns", "lat_p99_ns". */
const char *repeat_metric_key(enum repeat_metric m);

/* 1 when phase ran to its end in repetition k with verdict ok (or any
 * verdict, with s->include_failed): its figures are averaged. */
int repeat_counts(const struct run_set *s, uint32_t phase, uint32_t k);
/* 1 when phase has figures in repetition k that do not count (failed,
 * partial, interrupted or cut short, or another point of a searched
 * sweep): shown and counted as left out. */
int repeat_left_out(const struct run_set *s, uint32_t phase, uint32_t k);
/* Phase's verdict in repetition k (verdict_phase), its reason replaced by
 * "its sweep searched another point here: q@7, not q@5" where that
 * repetition's search tried another value than the first's. */
struct verdict;
void repeat_verdict(const struct run_set *s, uint32_t phase, uint32_t k, struct verdict *v);
/* The metric's range, for sample_clamp_ci: IOPS, bandwidth and latency
 * are in [0, +inf). */
void repeat_metric_range(enum repeat_metric m, double *min, double *max);
/* 1 when op type t has ops in phase of some repetition, counted or left out. */
int repeat_has_op(const struct run_set *s, uint32_t phase, enum op_type t);
/* The metric of op type t in phase over the repetitions that count, in
 * order: x[j], and rep[j] its repetition's index (rep may be NULL).  x and
 * rep have room for s->n.  Returns how many. */
uint32_t repeat_values(const struct run_set *s, uint32_t phase, enum op_type t, enum repeat_metric m,
                       double *x, uint32_t *rep);
/* The repetitions (indexes into rep, room for s->n) that count but have no
 * value of metric m for op type t: no op of type t completed, so there is
 * no latency; repeat_values leaves them out even with include_failed
 * (a 0 would pull the mean down: p50 (20+20+0)/3).  Returns how many. */
uint32_t repeat_no_sample(const struct run_set *s, uint32_t phase, enum op_type t, enum repeat_metric m,
                          uint32_t *rep);

/* The worse of two exit statuses, by the verdicts' severity (verdict.h):
 * 0 ok < 3 partial < 1 failed < 130 interrupted; anything else (2) is
 * worst. */
int repeat_worse_status(int a, int b);
/* The set's exit status: the worst of its repetitions' verdicts, 1 at
 * least when a repetition could not start (not_started), 130 when a
 * signal ended the set before its N repetitions. */
int repeat_exit_status(const struct run_set *s);

/* The set file's object (docs/results.md, "Repeat sets"): keys
 * nfstorm_repeat_set, repeat, repeat_interval_s, completed, interrupted,
 * label, target, verdict, exit_status, repetitions (each as
 * report_json_build), summary (with include_failed, and per phase
 * left_out).  Caller owns it; NULL when out of memory. */
json_t *repeat_set_json(const struct run_set *s);
/* Write it to path atomically (report_json_write_tree).  0 or -errno. */
int repeat_set_write(const char *path, const struct run_set *s);

/* path with ".repK" inserted before the extension of its last component
 * ("out/a.csv" -> "out/a.rep2.csv"; "a" -> "a.rep2"), into buf: the file of
 * repetition k (1-based).  Returns buf (cut short if len is too small). */
char *repeat_file_name(char *buf, size_t len, const char *path, uint32_t k);

/* The summary as text (columns aligned) and as an HTML page (a table per
 * the same rows). */
void repeat_report_text(FILE *out, const struct run_set *s, int unit_base);
void repeat_report_html(FILE *out, const struct run_set *s, int unit_base);

#endif
