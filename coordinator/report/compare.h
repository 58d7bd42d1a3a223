/* compare: the same phases side by side across saved inputs (targets, EFS
 * modes, agent counts), each input a run or a repeat set of runs: per
 * phase, op type and metric the mean over repetitions (with its sd), the
 * ratio to the first input (the baseline), a direction-aware mark (IOPS up
 * is better, latency up is worse) and whether the difference is larger
 * than the run-to-run noise (Welch's t-test on the repetitions).
 *
 * Phases match on (name, rw, bs), in each input's first repetition; the
 * k-th such phase of one input matches the k-th of another.  A phase that
 * is not in every input still gets a row (with "-" where it is missing) and
 * is listed as unmatched, never dropped.  Later repetitions of an input are
 * read at the same phase index when it holds the same (name, rw, bs), else
 * that repetition counts as missing for the row.
 *
 * A repetition counts only where its phase ran to its end with verdict ok
 * (repeat_counts; an input's include_failed, --include-failed, keeps the
 * failed and partial ones): the others are left out of the means and the
 * test, and every view lists them (compare_left_out_line).  A phase whose
 * op type completed fewer than COMPARE_MIN_OPS_PER_THREAD ops per thread
 * (ops longer than the runtime: one op per thread) is judged "too few ops
 * to judge", never "significant". */
#ifndef NFSTORM_COMPARE_H
#define NFSTORM_COMPARE_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/result/result.h"
#include "coordinator/run/run_record.h"
#include "coordinator/result/result_load.h"

enum compare_metric {
    CMP_IOPS = 0,     /* per op type */
    CMP_BW,
    CMP_P50,
    CMP_P99,
    CMP__PER_OP,
    CMP_JAIN = 0,     /* per phase (op < 0) */
};

/* better/worse knows each metric's direction: IOPS, BW and Jain up is
 * better, p50/p99 up is worse.  SAME: the means differ by less than
 * COMPARE_SAME_FRAC (the latency histograms resolve 0.78%). */
enum compare_mark { CMP_MARK_NONE = 0, CMP_MARK_BETTER, CMP_MARK_WORSE, CMP_MARK_SAME };
#define COMPARE_SAME_FRAC 0.01

enum compare_verdict {
    CMP_V_MISSING = 0,     /* this input (or the baseline) has no value */
    CMP_V_BASELINE,        /* the first input itself */
    CMP_V_SIGNIFICANT,     /* Welch p < SAMPLE_ALPHA */
    CMP_V_NOISE,           /* Welch p >= SAMPLE_ALPHA: "within noise" */
    CMP_V_NO_VARIANCE,     /* this input or the baseline has fewer than 2 repetitions */
    CMP_V_LEFT_OUT,        /* every repetition with figures was left out (not ok) */
    CMP_V_TOO_FEW_OPS,     /* this input or the baseline completed < COMPARE_MIN_OPS_PER_THREAD
                              ops per thread in some repetition */
};
/* Below this many completed ops per thread, a phase's IOPS is the timing of
 * its first op and its edges, not a rate (ops as long as the runtime give
 * one op per thread), and its latency percentiles are a handful of
 * samples: no difference is judged on it. */
#define COMPARE_MIN_OPS_PER_THREAD 10

/* compare_rep_state: what repetition rep of an input holds for a row. */
enum compare_rep_state { CMP_REP_NONE = 0, CMP_REP_COUNTS, CMP_REP_LEFT_OUT };

struct compare_row {
    const char *name;         /* points into the first input that has the phase */
    enum rw_mode rw;
    uint64_t bs;
    int *idx;                 /* [nruns]: phase index in each input's first repetition, -1 if missing */
    uint32_t nmissing;
};

struct compare {
    uint32_t nruns;                  /* inputs */
    const struct run_set *sets;      /* [nruns], borrowed */
    const char *const *labels;       /* [nruns], borrowed */
    uint32_t nrows;
    struct compare_row *rows;
    struct record_diff diff;         /* what differs between the inputs' records
                                        (run_record.h), from each first repetition */
    uint8_t **rep_state;             /* [nruns][rep * nphases of its first repetition + phase]:
                                        enum compare_rep_state, computed once (a verdict
                                        costs a pass over the agents) */
};

/* One input's figure for a row, op type and metric, over its repetitions. */
struct compare_cell {
    uint32_t n;                      /* repetitions with a value */
    double mean, sd;                 /* NAN when n == 0; sd NAN when n < 2 */
    double ci95_lo, ci95_hi;         /* NAN when n < 2 */
    double ratio;                    /* mean / baseline's mean; NAN if either is missing or it is 0 */
    double ratio_lo, ratio_hi;       /* 95% interval of the ratio (compare.c: on log(ratio), Welch's
                                        degrees of freedom); NAN unless both sides have n >= 2 and
                                        positive means.  Always > 0: a ratio's range */
    double p;                        /* Welch's two-sided p against the baseline; NAN if not tested */
    enum compare_mark mark;          /* NONE for the baseline and when missing */
    enum compare_verdict verdict;
    uint32_t nleft;                  /* repetitions with figures left out (not ok) */
    uint8_t ci95_clamped;            /* sample_clamp_ci moved an end of ci95 onto the range */
    uint64_t min_ops;                /* TOO_FEW_OPS: the fewest completed ops of a counted repetition */
    uint32_t threads;                /* ... and its threads (jobs x agents taking part) */
};

/* Match the phases of sets[0..n) (each with n >= 1 repetitions, as
 * result_load_set guarantees).  sets and labels must outlive c. */
void compare_build(struct compare *c, const struct run_set *sets, const char *const *labels, uint32_t n);
void compare_free(struct compare *c);

/* Value of metric m (op type t) for row in input j, repetition rep; NAN if
 * it lacks the phase or (per op) the phase has no ops of type t.  CMP_JAIN
 * with op < 0. */
double compare_rep_value(const struct compare *c, uint32_t row, uint32_t j, uint32_t rep, int op, int m);
/* Everything a report prints about input j: summary, ratio, mark, verdict. */
void compare_cell(const struct compare *c, uint32_t row, uint32_t j, int op, int m, struct compare_cell *out);
/* 1 when some input of row has ops of type t. */
int compare_row_has_op(const struct compare *c, uint32_t row, int t);
/* Whether repetition rep of input j counts for row, is left out, or has no figures. */
enum compare_rep_state compare_rep_state(const struct compare *c, uint32_t row, uint32_t j, uint32_t rep);
/* One line naming input j's repetitions left out of row, with each one's
 * verdict and first reason and its headline IOPS: "repetition 2 left out
 * (failed: agent 0 (h:p): completed no op): read IOPS 0; ...".  0 when
 * none is left out (buf ""), else how many. */
uint32_t compare_left_out_line(const struct compare *c, uint32_t row, uint32_t j, char *buf, size_t len,
                               int base);
/* Repetitions left out over every row and input. */
uint32_t compare_left_out_total(const struct compare *c);
/* The repetitions left out of the means and the test, each with why:
 * nothing when none is, else head and then each row's and input's
 * compare_left_out_line in every view's shape: pre, row name, " (rw, bs), ",
 * label, ": ", the line, post; the names and the line through esc (the
 * view's escaping; NULL: as they are).  Returns how many are left out. */
uint32_t compare_left_out_list(FILE *out, const struct compare *c, int base, const char *head, const char *pre,
                               const char *post, void (*esc)(FILE *out, const char *s));

/* The walk every view makes of row's metrics: each op type it has (in
 * order) with every per-op metric, then Jain (op -1, m CMP_JAIN).  Start
 * with *op = -2; 0 when the walk is over:
 *     for (int op = -2, m = 0; compare_metric_next(c, row, &op, &m);) */
int compare_metric_next(const struct compare *c, uint32_t row, int *op, int *m);

/* Names, for every format: "IOPS"/"BW"/"p50"/"p99" (op >= 0) or "Jain";
 * the lower-case keys "iops", "bw_bytes", "lat_p50_ns", "lat_p99_ns",
 * "jain"; "better"/"worse"/"same"/"" and "baseline"/"significant"/
 * "within noise"/"no variance known"/"missing". */
const char *compare_metric_name(int op, int m);
const char *compare_metric_key(int op, int m);
const char *compare_mark_name(enum compare_mark k);
const char *compare_verdict_name(enum compare_verdict v);
/* 1 when a higher value of metric m is better. */
int compare_higher_is_better(int op, int m);

/* b into the ascending, distinct bs[0..*n) unless it is there (bs has
 * room for one more): the block sizes the views put in columns. */
void compare_bs_insert(uint64_t *bs, uint32_t *n, uint64_t b);
/* A block size exact, fio style: "4k", "32m", "1g", "1536" (never rounded). */
char *compare_fmt_bs(char *buf, size_t len, uint64_t bs);
/* A metric value for people: "12.3k", "96MiB/s", "1.20ms", "0.982"; "-" for NAN. */
void compare_fmt_value(char *buf, size_t len, double v, int op, int m, int base);
/* A metric's row label in the text and Markdown views: "read IOPS", "Jain". */
void compare_fmt_metric(char *buf, size_t len, int op, int m);
/* A cell's mean, with its sd when it has two or more repetitions: "12.3k ±412". */
void compare_fmt_mean(char *buf, size_t len, const struct compare_cell *cell, int op, int m, int base);
/* "2.00x better", "-" when the ratio is unknown; for the baseline "". */
void compare_fmt_change(char *buf, size_t len, const struct compare_cell *cell);
/* "significant (p=0.003)", "within noise (p=0.41)", "no variance known", "baseline",
 * "failed, left out", "too few ops to judge (8 ops on 8 threads)", "-". */
void compare_fmt_verdict(char *buf, size_t len, const struct compare_cell *cell);
/* The headline metric of a row: op type (its main one: the one with the most
 * ops in the first input that has the phase, read before write) and metric
 * (IOPS); -1 op when the row has no ops at all (then Jain). */
int compare_headline_op(const struct compare *c, uint32_t row);

/* Table cells shared by the text and Markdown views: per input its value
 * ("12.3k ±412" with the sd when n >= 2), and after the baseline the change
 * ("2.00x better") and the significance, in compare_cells_ncols columns
 * starting at col of row. */
struct text_table;
uint32_t compare_cells_ncols(const struct compare *c);
void compare_cells_header(struct text_table *t, uint32_t row, uint32_t col, const struct compare *c);
void compare_cells_fill(struct text_table *t, uint32_t row, uint32_t col, const struct compare *c,
                        uint32_t ri, int op, int m, int base);
/* Initialise t (caller frees with text_table_free) as a table of phases:
 * the columns phase, rw, bs, metric and then the compare_cells_ncols
 * cells from column 4, with its header row (row 0) already set. */
void compare_cells_phase_table(struct text_table *t, const struct compare *c);

/* The formats.  paths[j] is input j's file name. */
enum compare_format { CMP_FMT_TEXT = 0, CMP_FMT_MD, CMP_FMT_CSV, CMP_FMT_HTML, CMP_FMT_JSON };
/* "text", "md", "csv", "html", "json" -> 0 and *f; -EINVAL otherwise. */
int compare_parse_format(const char *s, enum compare_format *f);
void compare_text(FILE *out, const struct compare *c, const char *const *paths, int unit_base);
void compare_md(FILE *out, const struct compare *c, const char *const *paths, int unit_base);
void compare_csv(FILE *out, const struct compare *c, const char *const *paths);
void compare_html(FILE *out, const struct compare *c, const char *const *paths, int unit_base);
/* 0, or -ENOMEM when the JSON document could not be built. */
int compare_json(FILE *out, const struct compare *c, const char *const *paths);

/* The inputs' sweeps, by job: capacity and knee per input with sd, ratio
 * and significance (compare_sweep.c); nothing when the baseline has none. */
void compare_sweep_text(FILE *out, const struct compare *c);
/* The same as a JSON array (a jansson json_t *, new reference): per sweep
 * job, per input, capacity and knee {n, mean, sd, ratio, p} and the curve
 * (first repetition: requested, achieved, latency_ns per point). */
void *compare_sweep_json(const struct compare *c);
/* The same as a markdown table (compare --format md). */
void compare_sweep_md(FILE *out, const struct compare *c);
/* The same as rows of compare_csv's long form (metric sweep_capacity,
 * sweep_knee; phase = the sweep's job). */
void compare_sweep_csv(FILE *out, const struct compare *c);
/* The inputs' curves overlaid, per sweep job: achieved vs requested with
 * y = x, latency vs achieved, one line per input, then the text (HTML). */
void compare_sweep_html(FILE *out, const struct compare *c);

#endif
