/* compare_text: the text view of a comparison (see compare.h).
 *
 * Layout: the inputs, one headline line per phase (its main op type's
 * IOPS: value per input, ratio and mark, significance), then per phase the
 * detail table (every op type's IOPS, BW, p50, p99, and Jain), then the
 * unmatched phases.  Every table goes through text_table, so columns are
 * as wide as their widest cell at any label or number width. */
#include "coordinator/report/compare.h"

#include <stdlib.h>
#include <string.h>

#include "coordinator/report/text_table.h"

uint32_t compare_cells_ncols(const struct compare *c)
{
    return c->nruns ? 1 + 3 * (c->nruns - 1) : 0;
}

void compare_cells_header(struct text_table *t, uint32_t row, uint32_t col, const struct compare *c)
{
    char buf[2 * PLAN_NAME_MAX + 8];

    for (uint32_t j = 0; j < c->nruns; j++) {
        uint32_t k = j ? col + 1 + 3 * (j - 1) : col;

        text_table_set(t, row, k, c->labels[j]);
        if (j == 0)
            continue;
        snprintf(buf, sizeof(buf), "vs %s", c->labels[0]);
        text_table_set(t, row, k + 1, buf);
        text_table_set(t, row, k + 2, "significance");
    }
}

void compare_cells_phase_table(struct text_table *t, const struct compare *c)
{
    uint32_t r;

    text_table_init(t, 4 + compare_cells_ncols(c));
    r = text_table_row(t);
    text_table_set(t, r, 0, "phase");
    text_table_set(t, r, 1, "rw");
    text_table_set(t, r, 2, "bs");
    text_table_set(t, r, 3, "metric");
    compare_cells_header(t, r, 4, c);
}

void compare_cells_fill(struct text_table *t, uint32_t row, uint32_t col, const struct compare *c,
                        uint32_t ri, int op, int m, int base)
{
    char buf[112];

    for (uint32_t j = 0; j < c->nruns; j++) {
        uint32_t k = j ? col + 1 + 3 * (j - 1) : col;
        struct compare_cell cell;

        compare_cell(c, ri, j, op, m, &cell);
        compare_fmt_mean(buf, sizeof(buf), &cell, op, m, base);
        text_table_set(t, row, k, buf);
        if (j == 0)
            continue;
        compare_fmt_change(buf, sizeof(buf), &cell);
        text_table_set(t, row, k + 1, buf);
        compare_fmt_verdict(buf, sizeof(buf), &cell);
        text_table_set(t, row, k + 2, buf);
    }
}

static void missing_list(FILE *out, const struct compare *c, const struct compare_row *rw, int want_missing)
{
    int first = 1;

    for (uint32_t j = 0; j < c->nruns; j++)
        if ((rw->idx[j] < 0) == want_missing) {
            fprintf(out, "%s%s", first ? "" : ", ", c->labels[j]);
            first = 0;
        }
}

static void headlines(FILE *out, const struct compare *c, int base)
{
    struct text_table t;
    uint32_t r;
    char buf[64];

    compare_cells_phase_table(&t, c);
    for (uint32_t i = 0; i < c->nrows; i++) {
        int op = compare_headline_op(c, i);

        r = text_table_row(&t);
        text_table_set(&t, r, 0, c->rows[i].name);
        text_table_set(&t, r, 1, rw_mode_name(c->rows[i].rw));
        text_table_set(&t, r, 2, compare_fmt_bs(buf, sizeof(buf), c->rows[i].bs));
        compare_fmt_metric(buf, sizeof(buf), op, CMP_IOPS);
        text_table_set(&t, r, 3, buf);
        compare_cells_fill(&t, r, 4, c, i, op, CMP_IOPS, base);
    }
    fprintf(out, "\nheadline: one line per phase, its main op type's IOPS\n");
    text_table_print(out, &t, "  ");
    text_table_free(&t);
}

static void detail(FILE *out, const struct compare *c, uint32_t i, int base)
{
    const struct compare_row *row = &c->rows[i];
    struct text_table t;
    uint32_t r;
    char buf[64];

    fprintf(out, "\nphase %s (%s, %s)%s\n", row->name, rw_mode_name(row->rw),
            compare_fmt_bs(buf, sizeof(buf), row->bs), row->nmissing ? "  [unmatched]" : "");
    text_table_init(&t, 1 + compare_cells_ncols(c));
    r = text_table_row(&t);
    text_table_set(&t, r, 0, "metric");
    compare_cells_header(&t, r, 1, c);
    for (int op = -2, m = 0; compare_metric_next(c, i, &op, &m);) {
        r = text_table_row(&t);
        compare_fmt_metric(buf, sizeof(buf), op, m);
        text_table_set(&t, r, 0, buf);
        compare_cells_fill(&t, r, 1, c, i, op, m, base);
    }
    text_table_print(out, &t, "  ");
    text_table_free(&t);
}

void compare_text(FILE *out, const struct compare *c, const char *const *paths, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;
    uint32_t nun = 0;
    char bs[32];

    fprintf(out, "compare: %u inputs; ratio = mean / baseline's mean (baseline: %s)\n", c->nruns,
            c->nruns ? c->labels[0] : "-");
    fprintf(out, "  better/worse by each metric's direction (IOPS, BW, Jain: up is better; p50, p99: up is worse;\n"
            "  same: within 1%%); significance: Welch's t-test on the repetitions, significant when p < 0.05;\n"
            "  an input with one repetition has no variance known; a phase with fewer than %d ops per thread\n"
            "  has too few ops to judge; repetitions whose phase verdict is not ok are left out (listed below)\n",
            COMPARE_MIN_OPS_PER_THREAD);
    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r0 = &c->sets[j].reps[0];

        fprintf(out, "  [%u] %s: %s, ", j + 1, c->labels[j], paths[j]);
        if (c->sets[j].n == 1)
            fprintf(out, "1 run");
        else
            fprintf(out, "%u repetitions", c->sets[j].n);
        fprintf(out, ", %u agent%s, %u phase%s%s\n", r0->nagents, r0->nagents == 1 ? "" : "s", r0->nphases,
                r0->nphases == 1 ? "" : "s", j == 0 ? " (baseline)" : "");
    }
    fputc('\n', out);
    run_record_diff_text(out, &c->diff, c->labels);
    headlines(out, c, base);
    compare_sweep_text(out, c);      /* sweeps by job: their phases differ between runs */
    for (uint32_t i = 0; i < c->nrows; i++) {
        detail(out, c, i, base);
        nun += c->rows[i].nmissing > 0;
    }
    compare_left_out_list(out, c, base, "\nleft out of the statistics (the phase's verdict is not ok; "
                          "--include-failed keeps those that ran to their end):\n", "  ", "\n", NULL);
    if (nun == 0)
        return;
    fprintf(out, "\nunmatched phases (not in every input; matched on name, rw and bs):\n");
    for (uint32_t i = 0; i < c->nrows; i++) {
        const struct compare_row *row = &c->rows[i];

        if (!row->nmissing)
            continue;
        fprintf(out, "  %s (%s, %s): in ", row->name, rw_mode_name(row->rw),
                compare_fmt_bs(bs, sizeof(bs), row->bs));
        missing_list(out, c, row, 0);
        fprintf(out, "; missing from ");
        missing_list(out, c, row, 1);
        fputc('\n', out);
    }
}
