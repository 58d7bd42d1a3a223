/* repeat_run: what `nfstorm run --repeat N` does between repetitions (the
 * run itself is cmd_run's, main.c): each repetition's output file names,
 * the interruptible wait, whether another repetition starts, and the end
 * of the set (its summary, set file and HTML).
 *
 * A signal during a repetition ends it as it ends a single run; a signal
 * then, or while waiting between repetitions, ends the set: what was
 * measured is written and the exit status is 130.  main.c's signal handler
 * notes signals in *signalled; these functions only read it.  Called from
 * the coordinator's main thread. */
#ifndef NFSTORM_REPEAT_RUN_H
#define NFSTORM_REPEAT_RUN_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "coordinator/cli/cmd_report.h"
#include "coordinator/result/result_load.h"

struct repeat_run {
    uint32_t repeat;                     /* N; 0 without --repeat (one run) */
    uint64_t interval_ns;                /* --repeat-interval */
    int quiet;
    int unit_base;
    const char *json;                    /* --json SET.json, or NULL */
    const struct report_outputs *out;    /* the run's output options */
    volatile sig_atomic_t *signalled;    /* the signal noted, 0 if none */
};

struct repeat_files {                    /* one repetition's output files */
    char csv[PATH_MAX + 16], timeseries[PATH_MAX + 16], output[PATH_MAX + 16];
};

/* Repetition k's (1-based) outputs in o (a copy of rr->out): --csv,
 * --timeseries and --output with .repK inserted (repeat_file_name, names
 * kept in f); --html is the set's summary, written by repeat_run_finish.
 * Without --repeat (rr->repeat 0) o is left as it is. */
void repeat_run_outputs(const struct repeat_run *rr, uint32_t k, struct repeat_files *f,
                        struct report_outputs *o);
/* The last line of --dry-run: "repeat: the plan would run N times ...". */
void repeat_run_dry_line(FILE *out, const struct repeat_run *rr);
/* After a repetition (set->n done, run_execute returned rc): 1 when the
 * next one is to start, after the interval (waited here, ended at once by
 * a signal); 0 when the set ends (all done, interrupted: set->interrupted
 * set, or a repetition failed with an error). */
int repeat_run_next(const struct repeat_run *rr, struct run_set *set, int rc);
/* The set ended: the summary on stdout, the set file, the HTML summary, and
 * a line saying a signal ended it early.  The exit status: the worst of
 * set_status (the repetitions'), the writes', and 130 when interrupted. */
int repeat_run_finish(const struct repeat_run *rr, struct run_set *set, int set_status);

#endif
