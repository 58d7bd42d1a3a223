/* compare_md: the comparison as Markdown, ready to paste (see compare.h).
 *
 * First the seeds' table (docs/seeds: `target | r/w | rand/seq | IOPS 4k |
 * 32m | BW 4k | 32m`): rows per input, job (seed_rows below) and (r/w,
 * rand/seq) that some input ran, a column per block size (exact: 4k, 32m)
 * for IOPS then for bandwidth, each cell the mean over the input's
 * repetitions (+-sd when it has several), and a line for each phase it
 * leaves out.  Then one table with every phase's metrics, ratios to the
 * baseline, marks and significance, the same cells as the text view, and
 * the repetitions left out of the statistics. */
#include "coordinator/report/compare.h"

#include <stdlib.h>
#include <string.h>

#include "common/storage.h"
#include "common/xmalloc.h"
#include "coordinator/report/text_table.h"

/* The distinct block sizes of every input's finished phases, ascending,
 * in a fresh array (*n of them): every size a column, none dropped (a cap
 * here once hid the 17th size's phases from the table). */
static uint64_t *all_block_sizes(const struct compare *c, uint32_t *n)
{
    uint64_t *bs = NULL;
    uint32_t cap = 0;

    *n = 0;
    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r = &c->sets[j].reps[0];

        for (uint32_t i = 0; i < r->nphases; i++) {
            if (!r->phases[i].finished)
                continue;
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                bs = xrealloc(bs, cap * sizeof(*bs));
            }
            compare_bs_insert(bs, n, r->phases[i].bs);
        }
    }
    return bs;
}

/* ---- the seeds' table: rows keyed by input, job, r/w, rand/seq ----
 *
 * A plan may run several jobs of one kind: NFS phases at 4k and 32m and a
 * local psync control at 4k and 1m.  Keyed on r/w and rand/seq alone, the
 * control's 1m cell sat beside the NFS cells in one row and its 4k phase
 * had no cell at all.  So a row also has a job: phases are grouped by
 * where they ran (the storage an agent reported: an NFS URL, a mount), and
 * within that a phase goes to the first row of its group whose cell at its
 * block size is free, else to a new row.  The "job" column (the phases'
 * names in the row) is printed when an input has more than one row for one
 * r/w and rand/seq; a phase left out of the table is named below it. */
struct seed_row {
    uint32_t input;
    int q;                        /* 0 read rand, 1 read seq, 2 write rand, 3 write seq */
    char where[PLAN_PATH_MAX + 32];
    int *cell;                    /* [nbs]: compare row, -1 none */
    char job[256];                /* the phases' names, ", " between */
};

/* Where phase i of r ran: the first storage an agent reported for it. */
static void phase_where(const struct run_result *r, uint32_t i, char *buf, size_t len)
{
    const struct phase_result *ph = &r->phases[i];

    buf[0] = '\0';
    for (uint32_t a = 0; a < r->nagents; a++)
        if (ph->agents[a].nstorage) {
            const struct storage_info *s = &ph->agents[a].storage[0];
            snprintf(buf, len, "%u %s %s", s->kind, s->fstype, s->where);
            return;
        }
}

/* The compare row holding phase i of input j, -1 if none. */
static int row_of(const struct compare *c, uint32_t j, uint32_t i)
{
    for (uint32_t r = 0; r < c->nrows; r++)
        if (c->rows[r].idx[j] == (int)i)
            return (int)r;
    return -1;
}

static uint32_t bs_index(const uint64_t *bs, uint32_t nbs, uint64_t b)
{
    uint32_t k = 0;

    while (k < nbs && bs[k] != b)
        k++;
    return k;
}

/* Every seed row of every input, in input, r/w-rand/seq, then plan order. */
static struct seed_row *seed_rows(const struct compare *c, const uint64_t *bs, uint32_t nbs, uint32_t *nrows)
{
    struct seed_row *rows = NULL;
    uint32_t n = 0, cap = 0;
    char where[sizeof rows->where];

    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r = &c->sets[j].reps[0];

        for (int q = 0; q < 4; q++) {
            enum op_type t = q < 2 ? OP_READ : OP_WRITE;
            int random = q % 2 == 0;
            uint32_t first = n;

            for (uint32_t i = 0; i < r->nphases; i++) {
                const struct phase_result *ph = &r->phases[i];
                int cr = row_of(c, j, i);
                uint32_t k = bs_index(bs, nbs, ph->bs), g;

                if (!ph->finished || cr < 0 || k == nbs || ph->totals.op[t].ops == 0 ||
                    !rw_mode_random(ph->rw) != !random)
                    continue;
                phase_where(r, i, where, sizeof where);
                for (g = first; g < n; g++)
                    if (strcmp(rows[g].where, where) == 0 && rows[g].cell[k] < 0)
                        break;
                if (g == n) {
                    if (n == cap) {
                        cap = cap ? cap * 2 : 8;
                        rows = xrealloc(rows, cap * sizeof *rows);
                    }
                    memset(&rows[n], 0, sizeof rows[n]);
                    rows[n].input = j;
                    rows[n].q = q;
                    snprintf(rows[n].where, sizeof rows[n].where, "%s", where);
                    rows[n].cell = xmalloc(nbs * sizeof *rows[n].cell);
                    for (uint32_t b = 0; b < nbs; b++)
                        rows[n].cell[b] = -1;
                    n++;
                }
                rows[g].cell[k] = cr;
                {
                    size_t used = strlen(rows[g].job);
                    snprintf(rows[g].job + used, sizeof rows[g].job - used, "%s%s", used ? ", " : "", ph->name);
                }
            }
        }
    }
    *nrows = n;
    return rows;
}

static void matrix_cell(char *buf, size_t len, const struct compare *c, uint32_t j, enum op_type t, int r,
                        int m, int base)
{
    struct compare_cell cell;

    if (r < 0) {
        snprintf(buf, len, "-");
        return;
    }
    compare_cell(c, (uint32_t)r, j, t, m, &cell);
    compare_fmt_mean(buf, len, &cell, t, m, base);
}

/* The phases of each input that have no cell in the seeds' table, each
 * with why: never dropped silently. */
static void seeds_left_out(FILE *out, const struct compare *c)
{
    int any = 0;

    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r = &c->sets[j].reps[0];

        for (uint32_t i = 0; i < r->nphases; i++) {
            const struct phase_result *ph = &r->phases[i];
            const char *why = NULL;

            if (!ph->finished)
                why = "no results (not run to completion)";
            else if (!ph->totals.op[OP_READ].ops && !ph->totals.op[OP_WRITE].ops)
                why = "no read or write ops (see the table of every phase below)";
            if (!why)
                continue;
            if (!any)
                fprintf(out, "\nNot in this table:\n\n");
            any = 1;
            fprintf(out, "- ");
            text_table_md_text(out, c->labels[j]);
            fprintf(out, ", phase ");
            text_table_md_text(out, ph->name);
            fprintf(out, " (%s): %s\n", rw_mode_name(ph->rw), why);
        }
    }
}

static void seeds_table(FILE *out, const struct compare *c, int base)
{
    static const char *const rw[2] = { "read", "write" }, *const rs[2] = { "rand", "seq" };
    uint32_t nbs, r, nrows, col0;
    uint64_t *bs = all_block_sizes(c, &nbs);
    struct seed_row *rows;
    struct text_table t;
    char buf[112];
    int jobcol = 0, qran[4] = { 0 };

    if (nbs == 0) {
        free(bs);
        seeds_left_out(out, c);
        return;
    }
    rows = seed_rows(c, bs, nbs, &nrows);
    for (uint32_t k = 0; k < nrows; k++) {
        qran[rows[k].q] = 1;
        if (k > 0 && rows[k - 1].input == rows[k].input && rows[k - 1].q == rows[k].q)
            jobcol = 1;           /* two rows for one r/w, rand/seq: say which is which */
    }
    col0 = jobcol ? 4 : 3;
    text_table_init(&t, col0 + 2 * nbs);
    r = text_table_row(&t);
    text_table_set(&t, r, 0, "target");
    if (jobcol)
        text_table_set(&t, r, 1, "job");
    text_table_set(&t, r, col0 - 2, "r/w");
    text_table_set(&t, r, col0 - 1, "rand/seq");
    for (uint32_t k = 0; k < nbs; k++) {
        char b[32];

        snprintf(buf, sizeof(buf), "IOPS %s", compare_fmt_bs(b, sizeof(b), bs[k]));
        text_table_set(&t, r, col0 + k, buf);
        snprintf(buf, sizeof(buf), "BW %s", b);
        text_table_set(&t, r, col0 + nbs + k, buf);
    }
    for (uint32_t j = 0; j < c->nruns; j++)
        for (int q = 0; q < 4; q++) {
            enum op_type op = q < 2 ? OP_READ : OP_WRITE;
            int any = 0;

            if (!qran[q])         /* the (r/w, rand/seq) rows some input ran, for every input */
                continue;
            for (uint32_t k = 0; k <= nrows; k++) {
                const struct seed_row *sr = k < nrows ? &rows[k] : NULL;

                if (sr && (sr->input != j || sr->q != q))
                    continue;
                if (!sr && any)
                    break;
                any = 1;          /* (a "-" row when this input has none) */
                r = text_table_row(&t);
                text_table_set(&t, r, 0, c->labels[j]);
                if (jobcol)
                    text_table_set(&t, r, 1, sr ? sr->job : "-");
                text_table_set(&t, r, col0 - 2, rw[q / 2]);
                text_table_set(&t, r, col0 - 1, rs[q % 2]);
                for (uint32_t b = 0; b < nbs; b++) {
                    matrix_cell(buf, sizeof(buf), c, j, op, sr ? sr->cell[b] : -1, CMP_IOPS, base);
                    text_table_set(&t, r, col0 + b, buf);
                    matrix_cell(buf, sizeof(buf), c, j, op, sr ? sr->cell[b] : -1, CMP_BW, base);
                    text_table_set(&t, r, col0 + nbs + b, buf);
                }
            }
        }
    if (t.nrows > 1)
        text_table_print_md(out, &t);
    else
        fprintf(out, "(no read or write phases)\n");
    text_table_free(&t);
    for (uint32_t k = 0; k < nrows; k++)
        free(rows[k].cell);
    free(rows);
    free(bs);
    seeds_left_out(out, c);
}

static void phases_table(FILE *out, const struct compare *c, int base)
{
    struct text_table t;
    uint32_t r;
    char buf[64];

    compare_cells_phase_table(&t, c);
    for (uint32_t i = 0; i < c->nrows; i++)
        for (int op = -2, m = 0; compare_metric_next(c, i, &op, &m);) {
            r = text_table_row(&t);
            snprintf(buf, sizeof(buf), "%s%s", c->rows[i].name, c->rows[i].nmissing ? " (unmatched)" : "");
            text_table_set(&t, r, 0, buf);
            text_table_set(&t, r, 1, rw_mode_name(c->rows[i].rw));
            text_table_set(&t, r, 2, compare_fmt_bs(buf, sizeof(buf), c->rows[i].bs));
            compare_fmt_metric(buf, sizeof(buf), op, m);
            text_table_set(&t, r, 3, buf);
            compare_cells_fill(&t, r, 4, c, i, op, m, base);
        }
    text_table_print_md(out, &t);
    text_table_free(&t);
}

/* Markdown cell: punctuation escaped (text_table_md_text). */
static void md_cell(FILE *out, const char *v)
{
    fputs(" ", out);
    text_table_md_text(out, v);
    fputs(" |", out);
}

/* A label as a Markdown code span (shown as typed, never interpreted): the
 * fence is one backtick longer than the longest run of them in v, padded
 * with a blank when v holds one, as CommonMark allows. */
static void md_code(FILE *out, const char *v)
{
    size_t run = 0, longest = 0;

    for (const char *p = v; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    for (size_t k = 0; k <= longest; k++)
        fputc('`', out);
    if (longest)
        fputc(' ', out);
    for (; *v; v++)
        fputc(*v == '\n' || *v == '\r' ? ' ' : *v, out);   /* a file name may hold one */
    if (longest)
        fputc(' ', out);
    for (size_t k = 0; k <= longest; k++)
        fputc('`', out);
}

/* What differs between the inputs' records (run_record.h). */
static void differences(FILE *out, const struct compare *c)
{
    const struct record_diff *d = &c->diff;

    fprintf(out, "\n### What differs between the inputs\n\n");
    if (d->nrows == 0) {
        fprintf(out, "The inputs' records agree (target, machines, mounts, plan).\n");
        return;
    }
    fprintf(out, "| field |");
    for (uint32_t j = 0; j < c->nruns; j++)
        md_cell(out, c->labels[j]);
    fprintf(out, "\n|---|");
    for (uint32_t j = 0; j < c->nruns; j++)
        fprintf(out, "---|");
    fputc('\n', out);
    for (uint32_t k = 0; k < d->nrows; k++) {
        fprintf(out, "|");
        md_cell(out, d->rows[k].key);
        for (uint32_t j = 0; j < d->nruns; j++)
            md_cell(out, d->rows[k].values[j]);
        fputc('\n', out);
    }
}

void compare_md(FILE *out, const struct compare *c, const char *const *paths, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;

    fprintf(out, "## nfstorm compare\n\nInputs (the first is the baseline):\n\n");
    for (uint32_t j = 0; j < c->nruns; j++) {
        fprintf(out, "%u. ", j + 1);
        md_code(out, c->labels[j]);
        fprintf(out, ": ");
        md_code(out, paths[j]);
        fprintf(out, ", %u repetition%s\n", c->sets[j].n, c->sets[j].n == 1 ? "" : "s");
    }
    differences(out, c);
    fprintf(out, "\n### IOPS and bandwidth by block size\n\n");
    seeds_table(out, c, base);
    fprintf(out, "\n### Every phase against the baseline\n\n"
            "Ratio = mean / baseline's mean; better/worse by the metric's direction (IOPS, BW, Jain: "
            "up is better; p50, p99: up is worse; same: within 1%%). Significance: Welch's t-test on the "
            "repetitions, significant when p < 0.05; with one repetition on either side, no variance known.\n\n");
    phases_table(out, c, base);
    compare_sweep_md(out, c);
    compare_left_out_list(out, c, base, "\nLeft out of the statistics (the phase's verdict is not ok; "
                          "`--include-failed` keeps those that ran to their end):\n\n", "- ", "\n",
                          text_table_md_text);
}
