/* compare: the same phases side by side across saved runs (targets, EFS
 * modes, agent counts): each run's value and its ratio to the first run.
 *
 * Phases match on (name, rw, bs); the k-th such phase of one run matches
 * the k-th of another.  A phase that is not in every run still gets a row
 * (with "-" where it is missing) and is listed as unmatched, never dropped. */
#ifndef NFSTORM_COMPARE_H
#define NFSTORM_COMPARE_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/result.h"

enum compare_metric {
    CMP_IOPS = 0,     /* per op type */
    CMP_BW,
    CMP_P50,
    CMP_P99,
    CMP__PER_OP,
    CMP_JAIN = 0,     /* per phase (op ignored) */
};

struct compare_row {
    const char *name;         /* points into the first run that has the phase */
    enum rw_mode rw;
    uint64_t bs;
    int *idx;                 /* [nruns]: phase index in each run, -1 if missing */
    uint32_t nmissing;
};

struct compare {
    uint32_t nruns;
    const struct run_result *runs;   /* [nruns], borrowed */
    const char *const *labels;       /* [nruns], borrowed */
    uint32_t nrows;
    struct compare_row *rows;
};

/* Match the phases of runs[0..n).  runs and labels must outlive c. */
void compare_build(struct compare *c, const struct run_result *runs, const char *const *labels, uint32_t n);
void compare_free(struct compare *c);

/* Value of metric m (op type t) for row in run j; NAN if the run lacks the
 * phase or (per op) the phase has no ops of type t.  CMP_JAIN with op < 0. */
double compare_value(const struct compare *c, uint32_t row, uint32_t j, int op, int m);
/* value(j) / value(0); NAN when either is missing or value(0) is 0. */
double compare_ratio(const struct compare *c, uint32_t row, uint32_t j, int op, int m);

void compare_text(FILE *out, const struct compare *c, const char *const *paths, int unit_base);
void compare_html(FILE *out, const struct compare *c, const char *const *paths, int unit_base);

#endif
