/* report_matrix: the used part of the summary table (see report_matrix.h).
 *
 * Design: a thin filter over result_block_sizes and result_matrix_phase;
 * the table is at most 4 rows by a few dozen columns, so the cells are
 * simply looked up again rather than cached. */
#include "coordinator/report_matrix.h"


#define SCAN_MAX 64   /* distinct block sizes looked at (a plan has a handful) */

static const char *const row_names[REPORT_MATRIX_ROWS] = { "rand read", "seq read", "rand write",
                                                           "seq write" };

const char *report_matrix_row_name(int row)
{
    return row >= 0 && row < REPORT_MATRIX_ROWS ? row_names[row] : "?";
}

enum op_type report_matrix_row_op(int row)
{
    return row < 2 ? OP_READ : OP_WRITE;
}

int report_matrix_row_random(int row)
{
    return row % 2 == 0;
}

int report_matrix_cell(const struct run_result *r, int row, uint64_t bs)
{
    return result_matrix_phase(r, report_matrix_row_op(row), report_matrix_row_random(row), bs);
}

uint32_t report_matrix_columns(const struct run_result *r, uint64_t *bs, uint32_t max)
{
    uint64_t all[SCAN_MAX];
    uint32_t n = result_block_sizes(r, all, SCAN_MAX), out = 0;

    for (uint32_t j = 0; j < n && out < max; j++) {
        int used = 0;

        for (int row = 0; row < REPORT_MATRIX_ROWS && !used; row++)
            used = report_matrix_cell(r, row, all[j]) >= 0;
        if (used)
            bs[out++] = all[j];
    }
    return out;
}

int report_matrix_row_used(const struct run_result *r, int row, const uint64_t *bs, uint32_t nbs)
{
    for (uint32_t j = 0; j < nbs; j++)
        if (report_matrix_cell(r, row, bs[j]) >= 0)
            return 1;
    return 0;
}
