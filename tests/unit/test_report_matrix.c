/* test_report_matrix: the summary table's layout on hand-built results:
 * the seeds' four rows when one phase fills each kind and block size; a
 * row per phase where two share a cell; a mixed phase's rows named by its
 * mix; and every figure that no cell holds (jobs that differ, a direction
 * the first job does not issue, no room for a column or a row) listed
 * with why, so nothing is dropped without a line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/report_matrix.h"

static void phases(struct run_result *r, uint32_t n)
{
    memset(r, 0, sizeof *r);
    r->nphases = n;
    r->phases = xcalloc(n, sizeof *r->phases);
}

static void set(struct run_result *r, uint32_t i, const char *name, enum rw_mode rw, uint64_t bs, uint64_t reads,
                uint64_t writes)
{
    struct phase_result *ph = &r->phases[i];

    snprintf(ph->name, sizeof ph->name, "%s", name);
    ph->rw = rw;
    ph->bs = bs;
    ph->rwmixread = RESULT_MIX_UNKNOWN;
    ph->finished = 1;
    ph->totals.op[OP_READ].ops = reads;
    ph->totals.op[OP_WRITE].ops = writes;
}

/* Every placed (phase, op) once, plus the left-out ones: nothing lost. */
static uint32_t figures(const struct report_matrix *m)
{
    uint32_t n = m->nleft + m->nleft_more;

    for (uint32_t k = 0; k < m->nrows; k++)
        for (uint32_t j = 0; j < m->ncols; j++)
            n += m->rows[k].cell[j] >= 0;
    return n;
}

static void test_seeds_form(void **state)
{
    struct run_result r;
    struct report_matrix *m;

    (void)state;
    phases(&r, 3);
    set(&r, 0, "r", RW_RANDREAD, 4096, 10, 0);
    set(&r, 1, "w", RW_WRITE, 65536, 0, 10);
    set(&r, 2, "w4", RW_WRITE, 4096, 0, 10);
    m = report_matrix_new(&r, 8);
    assert_non_null(m);
    assert_int_equal(m->ncols, 2);
    assert_int_equal(m->nrows, 2);
    assert_string_equal(m->rows[0].label, "rand read");
    assert_string_equal(m->rows[1].label, "seq write");
    assert_int_equal(m->rows[1].cell[0], 2);
    assert_int_equal(m->rows[1].cell[1], 1);
    assert_int_equal(m->label_w, 10);
    assert_int_equal(m->nleft, 0);
    free(r.phases);
    free(m);
}

static void test_split_and_mix(void **state)
{
    struct run_result r;
    struct report_matrix *m;

    (void)state;
    phases(&r, 5);
    set(&r, 0, "a", RW_RANDWRITE, 4096, 0, 10);
    set(&r, 1, "b", RW_RANDRW, 4096, 7, 3);
    r.phases[1].rwmixread = 70;
    set(&r, 2, "c", RW_RANDWRITE, 4096, 0, 10);
    set(&r, 3, "d", RW_RANDREAD, 4096, 5, 5);        /* writes its first job does not issue */
    set(&r, 4, "e", RW_RW, 4096, 5, 5);
    m = report_matrix_new(&r, 8);
    assert_non_null(m);
    assert_int_equal(m->nrows, 7);
    assert_string_equal(m->rows[0].label, "rand read");
    assert_string_equal(m->rows[1].label, "rand write (a)");
    assert_string_equal(m->rows[2].label, "rand write (c)");
    assert_string_equal(m->rows[3].label, "randrw 70/30 read");
    assert_string_equal(m->rows[4].label, "randrw 70/30 write");
    assert_string_equal(m->rows[5].label, "rw read");
    assert_string_equal(m->rows[6].label, "rw write");
    assert_int_equal(m->rows[0].cell[0], 3);
    assert_int_equal(m->rows[3].op, OP_READ);
    assert_int_equal(m->rows[4].op, OP_WRITE);
    assert_int_equal(m->rows[2].cell[0], 2);
    assert_int_equal(m->nleft, 1);
    assert_int_equal(m->left[0].phase, 3);
    assert_int_equal(m->left[0].op, OP_WRITE);
    assert_int_equal(m->left[0].why, MATRIX_DIRECTION);
    assert_int_equal(figures(m), 8);
    free(r.phases);
    free(m);
}

static void test_jobs_differ(void **state)
{
    struct run_result r;
    struct report_matrix *m;
    char line[512];

    (void)state;
    phases(&r, 1);
    set(&r, 0, "x", RW_RANDREAD, 4096, 8, 2);
    r.phases[0].jobs_differ = 1;
    m = report_matrix_new(&r, 8);
    assert_non_null(m);
    assert_int_equal(m->ncols, 0);
    assert_int_equal(m->nleft, 2);
    report_matrix_left_text(line, sizeof line, m, &r, 1, 8);
    assert_string_equal(line, "phase x's writes (2 ops; its first job randread 4KiB): its jobs (or its reads and "
                        "writes) differ in rw or block size, so no one cell holds its figures (see the phase's "
                        "own table)");
    free(r.phases);
    free(m);
}

static void test_no_room(void **state)
{
    struct run_result r;
    struct report_matrix *m;
    char line[512];

    (void)state;
    phases(&r, 40);
    for (uint32_t i = 0; i < 40; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%u", i);
        set(&r, i, name, RW_RANDREAD, 4096u * (40 - i), 10, 0);
    }
    m = report_matrix_new(&r, 8);
    assert_non_null(m);
    assert_int_equal(m->ncols, 8);
    assert_int_equal(m->bs[0], 4096);
    assert_int_equal(m->bs[7], 8 * 4096);
    assert_int_equal(m->nleft, 32);
    assert_int_equal(figures(m), 40);
    report_matrix_left_text(line, sizeof line, m, &r, 0, 8);
    assert_string_equal(line, "phase p0's reads (10 ops; its first job randread 160KiB): the table has room for "
                        "8 block sizes (see the phase's own table)");
    free(m);
    /* 40 phases of one kind and size: 32 rows, 8 listed */
    for (uint32_t i = 0; i < 40; i++)
        r.phases[i].bs = 4096;
    m = report_matrix_new(&r, 8);
    assert_non_null(m);
    assert_int_equal(m->nrows, REPORT_MATRIX_MAX_ROWS);
    assert_int_equal(m->nleft, 8);
    assert_int_equal(m->left[0].why, MATRIX_NO_ROW);
    assert_int_equal(figures(m), 40);
    free(r.phases);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeds_form),
        cmocka_unit_test(test_split_and_mix),
        cmocka_unit_test(test_jobs_differ),
        cmocka_unit_test(test_no_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
