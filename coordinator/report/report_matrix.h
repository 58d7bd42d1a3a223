/* report_matrix: the seeds' summary table (rows r/w x rand/seq, a column
 * per block size), laid out once for the text and HTML reports so both
 * show the same cells and say the same about what they leave out.
 *
 * Every phase's read and write figures get a cell of their own: a row is
 * a kind ("rand write", or for a mixed phase "randrw 50/50 read", its
 * directions labelled as the mix), and when two phases of one kind have
 * the same block size the kind is split into a row per phase ("rand write
 * (a)", "rand write (c)"), so two phases never share a cell and none is
 * dropped.  With one phase per kind and block size (the common case) the
 * table is the seeds' four rows.  Figures that no cell can hold honestly
 * (a phase whose jobs differ in rw or block size, more block sizes or
 * rows than the table has room for, a direction its first job does not
 * issue) are listed with what and why (report_matrix_left_text).
 *
 * A metadata phase has a block size but no read or write ops: it has no
 * cell, and a run made only of such phases has no table (ncols 0). */
#ifndef NFSTORM_REPORT_MATRIX_H
#define NFSTORM_REPORT_MATRIX_H

#include <stddef.h>
#include <stdint.h>
#include "coordinator/result/result.h"

#define REPORT_MATRIX_MAX_COLS 32
#define REPORT_MATRIX_MAX_ROWS 32
#define REPORT_MATRIX_MAX_LEFT 64
#define REPORT_MATRIX_LABEL 96

struct report_matrix_row {
    char label[REPORT_MATRIX_LABEL];
    enum op_type op;                      /* OP_READ or OP_WRITE */
    int cell[REPORT_MATRIX_MAX_COLS];     /* phase index per column, -1: none */
};

enum report_matrix_why {
    MATRIX_JOBS_DIFFER = 0,  /* the phase's jobs differ in rw or block size */
    MATRIX_DIRECTION,        /* ops of a direction its first job does not issue */
    MATRIX_NO_COLUMN,        /* more block sizes than max_cols */
    MATRIX_NO_ROW,           /* more rows than REPORT_MATRIX_MAX_ROWS */
};

struct report_matrix_left {
    uint32_t phase;
    enum op_type op;
    enum report_matrix_why why;
};

struct report_matrix {
    uint32_t ncols;
    uint64_t bs[REPORT_MATRIX_MAX_COLS];  /* ascending */
    uint32_t nrows;
    struct report_matrix_row rows[REPORT_MATRIX_MAX_ROWS];
    int label_w;                          /* longest label, at least 10 ("rand write") */
    uint32_t nleft;                       /* figures not in the table (capped) */
    uint32_t nleft_more;                  /* beyond REPORT_MATRIX_MAX_LEFT */
    struct report_matrix_left left[REPORT_MATRIX_MAX_LEFT];
};

/* Lay out r's table with at most max_cols (<= REPORT_MATRIX_MAX_COLS)
 * block-size columns.  Only finished phases' read and write ops are
 * placed.  A new table the caller frees (free()), or NULL when it would
 * hold neither a cell nor a left-out figure (a metadata run): nothing to print. */
struct report_matrix *report_matrix_new(const struct run_result *r, uint32_t max_cols);
/* Into buf, the line of left-out figure k: "phase b's writes (1234 ops,
 * randread 4k): its jobs differ in rw or block size, so no one cell holds
 * its figures (see the phase's own table)".  Returns buf. */
char *report_matrix_left_text(char *buf, size_t len, const struct report_matrix *m, const struct run_result *r,
                              uint32_t k, uint32_t max_cols);
/* Cell j of row, as every view prints it: the IOPS (with a '*' when the
 * phase did not run to completion) and the bandwidth into iops and bw
 * (32 bytes each).  0, 1 when partial, -1 when the cell is empty. */
int report_matrix_cell(const struct run_result *r, const struct report_matrix_row *row, uint32_t j, int base,
                       char *iops, char *bw);

#endif
