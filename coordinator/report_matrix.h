/* report_matrix: which cells of the seeds' summary table (rows r/w x
 * rand/seq, a column per block size) a run can fill, shared by the text and
 * HTML reports so neither prints an empty table.
 *
 * A metadata phase has a block size (the plan's default) but no read or
 * write ops, so result_block_sizes lists its size; a column or a table
 * made only of such phases would be all dashes.  These helpers keep the
 * columns and rows that have at least one phase. */
#ifndef NFSTORM_REPORT_MATRIX_H
#define NFSTORM_REPORT_MATRIX_H

#include <stdint.h>
#include "coordinator/result.h"

#define REPORT_MATRIX_ROWS 4

/* Row names, in order: "rand read", "seq read", "rand write", "seq write". */
const char *report_matrix_row_name(int row);
/* The op type and randomness of a row. */
enum op_type report_matrix_row_op(int row);
int report_matrix_row_random(int row);
/* The phase of a cell (result_matrix_phase), -1 if none. */
int report_matrix_cell(const struct run_result *r, int row, uint64_t bs);
/* Block sizes of r (ascending, at most max) with at least one cell;
 * 0 when no phase fits the table (a metadata-only run). */
uint32_t report_matrix_columns(const struct run_result *r, uint64_t *bs, uint32_t max);
/* 1 when row has a cell in one of the nbs columns. */
int report_matrix_row_used(const struct run_result *r, int row, const uint64_t *bs, uint32_t nbs);

#endif
