/* compare_md: the comparison as Markdown, ready to paste (see compare.h).
 *
 * First the seeds' table (docs/seeds: `target | r/w | rand/seq | IOPS 4k |
 * 32m | BW 4k | 32m`): one row per input per (r/w, rand/seq) that some
 * input ran, a column per block size (exact: 4k, 32m) for IOPS then for
 * bandwidth, each cell the mean over the input's repetitions (+-sd when it
 * has several).  Then one table with every phase's metrics, ratios to the
 * baseline, marks and significance, the same cells as the text view. */
#include "coordinator/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/text_table.h"

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
            uint64_t b = r->phases[i].bs;
            uint32_t p;

            if (!r->phases[i].finished)
                continue;
            for (p = 0; p < *n && bs[p] < b; p++)
                ;
            if (p < *n && bs[p] == b)
                continue;
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                bs = xrealloc(bs, cap * sizeof(*bs));
            }
            memmove(&bs[p + 1], &bs[p], (*n - p) * sizeof(*bs));
            bs[p] = b;
            (*n)++;
        }
    }
    return bs;
}

/* 1 when input j's phase of row r belongs in the seeds' cell (t, random, bs). */
static int matrix_fits(const struct compare *c, uint32_t r, uint32_t j, enum op_type t, int random, uint64_t bs)
{
    const struct run_result *rr = &c->sets[j].reps[0];
    const struct phase_result *ph;
    int i = c->rows[r].idx[j];

    if (i < 0 || (uint32_t)i >= rr->nphases)
        return 0;
    ph = &rr->phases[i];
    return ph->finished && ph->bs == bs && !rw_mode_random(ph->rw) == !random && ph->totals.op[t].ops > 0;
}

/* An input may hold several phases for one cell (two 4k randreads with
 * different names or depths); the cell takes the first row that every
 * input has, so one column compares the same phase across targets, and
 * only without such a row an unmatched one. */
int compare_matrix_row(const struct compare *c, uint32_t j, enum op_type t, int random, uint64_t bs)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t r = 0; r < c->nrows; r++)
            if ((pass == 1 || c->rows[r].nmissing == 0) && matrix_fits(c, r, j, t, random, bs))
                return (int)r;
    return -1;
}

static void matrix_cell(char *buf, size_t len, const struct compare *c, uint32_t j, enum op_type t,
                        int random, uint64_t bs, int m, int base)
{
    int r = compare_matrix_row(c, j, t, random, bs);
    struct compare_cell cell;
    char v[48], sd[48];

    if (r < 0) {
        snprintf(buf, len, "-");
        return;
    }
    compare_cell(c, (uint32_t)r, j, t, m, &cell);
    compare_fmt_value(v, sizeof(v), cell.mean, t, m, base);
    if (cell.n >= 2 && !isnan(cell.sd)) {
        compare_fmt_value(sd, sizeof(sd), cell.sd, t, m, base);
        snprintf(buf, len, "%s \u00b1%s", v, sd);
    } else {
        snprintf(buf, len, "%s", v);
    }
}

static void seeds_table(FILE *out, const struct compare *c, int base)
{
    static const char *const rw[2] = { "read", "write" }, *const rs[2] = { "rand", "seq" };
    uint32_t nbs, r;
    uint64_t *bs = all_block_sizes(c, &nbs);
    struct text_table t;
    char buf[112];

    if (nbs == 0) {
        free(bs);
        return;
    }
    text_table_init(&t, 3 + 2 * nbs);
    r = text_table_row(&t);
    text_table_set(&t, r, 0, "target");
    text_table_set(&t, r, 1, "r/w");
    text_table_set(&t, r, 2, "rand/seq");
    for (uint32_t k = 0; k < nbs; k++) {
        char b[32];

        snprintf(buf, sizeof(buf), "IOPS %s", compare_fmt_bs(b, sizeof(b), bs[k]));
        text_table_set(&t, r, 3 + k, buf);
        snprintf(buf, sizeof(buf), "BW %s", b);
        text_table_set(&t, r, 3 + nbs + k, buf);
    }
    for (uint32_t j = 0; j < c->nruns; j++)
        for (int q = 0; q < 4; q++) {
            enum op_type op = q < 2 ? OP_READ : OP_WRITE;
            int random = q % 2 == 0, any = 0;

            /* the (r/w, rand/seq) rows some input ran, for every input */
            for (uint32_t o = 0; o < c->nruns; o++)
                for (uint32_t k = 0; k < nbs; k++)
                    any |= compare_matrix_row(c, o, op, random, bs[k]) >= 0;
            if (!any)
                continue;
            r = text_table_row(&t);
            text_table_set(&t, r, 0, c->labels[j]);
            text_table_set(&t, r, 1, rw[q / 2]);
            text_table_set(&t, r, 2, rs[q % 2]);
            for (uint32_t k = 0; k < nbs; k++) {
                matrix_cell(buf, sizeof(buf), c, j, op, random, bs[k], CMP_IOPS, base);
                text_table_set(&t, r, 3 + k, buf);
                matrix_cell(buf, sizeof(buf), c, j, op, random, bs[k], CMP_BW, base);
                text_table_set(&t, r, 3 + nbs + k, buf);
            }
        }
    if (t.nrows > 1)
        text_table_print_md(out, &t);
    else
        fprintf(out, "(no read or write phases)\n");
    text_table_free(&t);
    free(bs);
}

static void phases_table(FILE *out, const struct compare *c, int base)
{
    struct text_table t;
    uint32_t r;
    char buf[64];

    compare_cells_phase_table(&t, c);
    for (uint32_t i = 0; i < c->nrows; i++)
        for (int k = 0; k <= OP__COUNT; k++) {
            int op = k == OP__COUNT ? -1 : k;   /* every op type, then Jain */

            if (op >= 0 && !compare_row_has_op(c, i, op))
                continue;
            for (int m = 0; m < (op < 0 ? 1 : CMP__PER_OP); m++) {
                r = text_table_row(&t);
                snprintf(buf, sizeof(buf), "%s%s", c->rows[i].name, c->rows[i].nmissing ? " (unmatched)" : "");
                text_table_set(&t, r, 0, buf);
                text_table_set(&t, r, 1, rw_mode_name(c->rows[i].rw));
                text_table_set(&t, r, 2, compare_fmt_bs(buf, sizeof(buf), c->rows[i].bs));
                if (op < 0)
                    snprintf(buf, sizeof(buf), "Jain");
                else
                    snprintf(buf, sizeof(buf), "%s %s", op_type_name((enum op_type)op), compare_metric_name(op, m));
                text_table_set(&t, r, 3, buf);
                compare_cells_fill(&t, r, 4, c, i, op, m, base);
            }
        }
    text_table_print_md(out, &t);
    text_table_free(&t);
}

/* Markdown cell: punctuation escaped (text_table_md_special), a newline
 * would end the row. */
static void md_cell(FILE *out, const char *v)
{
    fputs(" ", out);
    for (; *v; v++) {
        if (text_table_md_special(*v))
            fputc('\\', out);
        fputc(*v == '\n' || *v == '\r' ? ' ' : *v, out);
    }
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

/* Markdown text: punctuation escaped, line breaks made blanks. */
static void md_text(FILE *out, const char *v)
{
    for (; *v; v++) {
        if (text_table_md_special(*v))
            fputc('\\', out);
        fputc(*v == '\n' || *v == '\r' ? ' ' : *v, out);
    }
}

/* The repetitions left out of the means and the test, each with why. */
static void left_out_md(FILE *out, const struct compare *c, int base)
{
    char bs[32], line[1024];

    if (!compare_left_out_total(c))
        return;
    fprintf(out, "\nLeft out of the statistics (the phase's verdict is not ok; `--include-failed` keeps those "
            "that ran to their end):\n\n");
    for (uint32_t i = 0; i < c->nrows; i++)
        for (uint32_t j = 0; j < c->nruns; j++)
            if (compare_left_out_line(c, i, j, line, sizeof line, base)) {
                fprintf(out, "- ");
                md_text(out, c->rows[i].name);
                fprintf(out, " (%s, %s), ", rw_mode_name(c->rows[i].rw), compare_fmt_bs(bs, sizeof bs, c->rows[i].bs));
                md_text(out, c->labels[j]);
                fprintf(out, ": ");
                md_text(out, line);
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
    left_out_md(out, c, base);
}
