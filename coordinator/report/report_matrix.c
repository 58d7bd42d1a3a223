/* report_matrix: the summary table's layout (see report_matrix.h).
 *
 * Design: the table is small (a few kinds by a few block sizes), so the
 * layout is done in passes over the phases rather than with an index:
 * (1) each finished phase's read and write figures become an entry with a
 * kind label, or a left-out line when no cell can hold them honestly;
 * (2) the columns are the entries' block sizes; (3) a kind with two
 * entries in one column is split into a row per phase.  Rows keep the
 * seeds' order (rand read, seq read, rand write, seq write), then other
 * kinds in the order their phases ran. */
#include "coordinator/report/report_matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/run/verdict.h"

#define CLASSIC_ROWS 4
#define ENTRY_MAX 512   /* a plan's phases x 2 directions looked at */

static const char *const classic_names[CLASSIC_ROWS] = { "rand read", "seq read", "rand write", "seq write" };

struct entry {
    uint32_t phase;
    enum op_type op;
    char kind[REPORT_MATRIX_LABEL];
    int order;          /* 0..3 the seeds' rows; 4+ other kinds, by first phase */
    uint32_t col;
};

static void leave(struct report_matrix *m, uint32_t phase, enum op_type op, enum report_matrix_why why)
{
    if (m->nleft == REPORT_MATRIX_MAX_LEFT) {
        m->nleft_more++;
        return;
    }
    m->left[m->nleft].phase = phase;
    m->left[m->nleft].op = op;
    m->left[m->nleft].why = why;
    m->nleft++;
}

/* The kind of op t of phase ph; -1 when its first job does not issue t. */
static int kind_of(const struct phase_result *ph, enum op_type t, char *kind, size_t len)
{
    int reads = t == OP_READ;

    switch (ph->rw) {
    case RW_READ:
    case RW_RANDREAD:
    case RW_WRITE:
    case RW_RANDWRITE:
        if (!rw_mode_reads(ph->rw) != !reads)
            return -1;
        snprintf(kind, len, "%s", classic_names[(rw_mode_random(ph->rw) ? 0 : 1) + (reads ? 0 : 2)]);
        return (rw_mode_random(ph->rw) ? 0 : 1) + (reads ? 0 : 2);
    case RW_RW:
    case RW_RANDRW:
        if (ph->rwmixread == RESULT_MIX_UNKNOWN || ph->rwmixread > 100)
            snprintf(kind, len, "%s %s", rw_mode_name(ph->rw), op_type_name(t));
        else
            snprintf(kind, len, "%s %u/%u %s", rw_mode_name(ph->rw), ph->rwmixread, 100 - ph->rwmixread,
                     op_type_name(t));
        return CLASSIC_ROWS;
    default:
        snprintf(kind, len, "%s %s", rw_mode_name(ph->rw), op_type_name(t));
        return CLASSIC_ROWS;
    }
}

static uint32_t find_col(const struct report_matrix *m, uint64_t bs)
{
    uint32_t j = 0;

    while (j < m->ncols && m->bs[j] != bs)
        j++;
    return j;
}

/* A new row (label, op), or NULL when the table is full. */
static struct report_matrix_row *add_row(struct report_matrix *m, const char *label, enum op_type op)
{
    struct report_matrix_row *row;

    if (m->nrows == REPORT_MATRIX_MAX_ROWS)
        return NULL;
    row = &m->rows[m->nrows++];
    snprintf(row->label, sizeof row->label, "%s", label);
    row->op = op;
    for (uint32_t j = 0; j < REPORT_MATRIX_MAX_COLS; j++)
        row->cell[j] = -1;
    if ((int)strlen(row->label) > m->label_w)
        m->label_w = (int)strlen(row->label);
    return row;
}

/* 1 when two entries of kind share a column. */
static int kind_collides(const struct entry *e, uint32_t n, const char *kind)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = i + 1; k < n; k++)
            if (!strcmp(e[i].kind, kind) && !strcmp(e[k].kind, kind) && e[i].col == e[k].col)
                return 1;
    return 0;
}

struct report_matrix *report_matrix_new(const struct run_result *r, uint32_t max_cols)
{
    struct entry *e = xcalloc(ENTRY_MAX, sizeof *e);
    struct report_matrix *m = xcalloc(1, sizeof *m);
    uint32_t n = 0, norder = CLASSIC_ROWS;

    m->label_w = (int)strlen("rand write");
    if (max_cols > REPORT_MATRIX_MAX_COLS)
        max_cols = REPORT_MATRIX_MAX_COLS;
    /* (1) entries */
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];

        if (!ph->finished)
            continue;
        for (enum op_type t = OP_READ; t <= OP_WRITE; t++) {
            int order;

            if (ph->totals.op[t].ops == 0)
                continue;
            if (ph->jobs_differ) {
                leave(m, i, t, MATRIX_JOBS_DIFFER);
                continue;
            }
            if (n == ENTRY_MAX) {
                leave(m, i, t, MATRIX_NO_ROW);
                continue;
            }
            order = kind_of(ph, t, e[n].kind, sizeof e[n].kind);
            if (order < 0) {
                leave(m, i, t, MATRIX_DIRECTION);
                continue;
            }
            if (order == CLASSIC_ROWS) {          /* a kind seen before keeps its place */
                order = -1;
                for (uint32_t k = 0; k < n && order < 0; k++)
                    if (!strcmp(e[k].kind, e[n].kind))
                        order = e[k].order;
                if (order < 0)
                    order = (int)norder++;
            }
            e[n].phase = i;
            e[n].op = t;
            e[n].order = order;
            n++;
        }
    }
    /* (2) columns: the smallest max_cols block sizes */
    for (uint32_t k = 0; k < n; k++) {
        uint64_t b = r->phases[e[k].phase].bs;
        uint32_t j;

        if (find_col(m, b) < m->ncols)
            continue;
        for (j = 0; j < m->ncols && m->bs[j] < b; j++)
            ;
        if (m->ncols == max_cols) {
            if (j == m->ncols)
                continue;
            m->ncols--;                           /* the largest gives way */
        }
        memmove(&m->bs[j + 1], &m->bs[j], (m->ncols - j) * sizeof(*m->bs));
        m->bs[j] = b;
        m->ncols++;
    }
    for (uint32_t k = 0; k < n; k++)
        e[k].col = find_col(m, r->phases[e[k].phase].bs);
    /* (3) rows, in order; a kind split per phase where two share a column */
    for (int order = 0; order < (int)norder; order++) {
        struct report_matrix_row *row = NULL;
        int split = -1;

        for (uint32_t k = 0; k < n; k++) {
            char label[REPORT_MATRIX_LABEL + PLAN_NAME_MAX];

            if (e[k].order != order)
                continue;
            if (e[k].col >= m->ncols) {
                leave(m, e[k].phase, e[k].op, MATRIX_NO_COLUMN);
                continue;
            }
            if (split < 0)
                split = kind_collides(e, n, e[k].kind);
            if (split) {
                snprintf(label, sizeof label, "%s (%s)", e[k].kind, r->phases[e[k].phase].name);
                row = add_row(m, label, e[k].op);
            } else if (!row) {
                row = add_row(m, e[k].kind, e[k].op);
            }
            if (!row) {
                leave(m, e[k].phase, e[k].op, MATRIX_NO_ROW);
                continue;
            }
            row->cell[e[k].col] = (int)e[k].phase;
        }
    }
    if (m->ncols && m->nrows == 0)
        m->ncols = 0;
    free(e);
    if (m->ncols || m->nleft)
        return m;
    free(m);
    return NULL;
}

char *report_matrix_left_text(char *buf, size_t len, const struct report_matrix *m, const struct run_result *r,
                              uint32_t k, uint32_t max_cols)
{
    const struct report_matrix_left *l = &m->left[k];
    const struct phase_result *ph = &r->phases[l->phase];
    char bs[32];
    const char *why;
    char room[96];

    switch (l->why) {
    case MATRIX_JOBS_DIFFER:
        why = "its jobs (or its reads and writes) differ in rw or block size, so no one cell holds its figures";
        break;
    case MATRIX_DIRECTION:
        why = "its first job does not issue them (its jobs differ), so no cell of its kind holds them";
        break;
    case MATRIX_NO_COLUMN:
        snprintf(room, sizeof room, "the table has room for %u block sizes", max_cols);
        why = room;
        break;
    default:
        snprintf(room, sizeof room, "the table has room for %u rows", REPORT_MATRIX_MAX_ROWS);
        why = room;
        break;
    }
    snprintf(buf, len, "phase %s's %ss (%llu ops; its first job %s %s): %s (see the phase's own table)", ph->name,
             op_type_name(l->op), (unsigned long long)ph->totals.op[l->op].ops, rw_mode_name(ph->rw),
             units_fmt_block_size(bs, sizeof bs, ph->bs), why);
    return buf;
}

int report_matrix_cell(const struct run_result *r, const struct report_matrix_row *row, uint32_t j, int base,
                       char *iops, char *bw)
{
    int i = row->cell[j];
    const struct phase_result *ph = i >= 0 ? &r->phases[i] : NULL;

    if (!ph)
        return -1;
    units_fmt_count(iops, 32, result_iops(&ph->totals.op[row->op], ph->duration_ns));
    units_fmt_rate(bw, 32, result_bw(&ph->totals.op[row->op], ph->duration_ns), base);
    if (!verdict_phase_partial(r, (uint32_t)i))
        return 0;
    strcat(iops, "*");       /* what arrived, not a whole phase: said below the table */
    return 1;
}
