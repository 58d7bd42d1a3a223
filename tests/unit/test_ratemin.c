/* test_ratemin: fio's rate_min over ratecycle: judged on whole cycles
 * after the ramp, per direction, only for directions the job issues. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "agent/ratemin.h"

#define MS 1000000ull

static void test_ratemin_whole_cycles_per_direction(void **state)
{
    struct job_spec j;
    struct ratemin r;
    char err[200] = "";
    (void)state;
    job_spec_default(&j);
    j.rw = RW_RANDRW;
    j.rate_min_w_bps = 1000000;          /* writes: 1 MB/s over 100 ms cycles */
    j.ratecycle_ns = 100 * MS;
    ratemin_init(&r, &j, 0);
    assert_true(r.active);
    ratemin_add(&r, 1, 50000, 10 * MS);
    assert_int_equal(ratemin_check(&r, &j, 99 * MS, err, sizeof err), 0);   /* cycle not over */
    ratemin_add(&r, 1, 60000, 90 * MS);
    assert_int_equal(ratemin_check(&r, &j, 100 * MS, err, sizeof err), 0);  /* 1.1 MB/s */
    ratemin_add(&r, 0, 10, 150 * MS);        /* reads have no minimum */
    ratemin_add(&r, 1, 90000, 150 * MS);
    assert_int_equal(ratemin_check(&r, &j, 200 * MS, err, sizeof err), -ETIME);
    assert_string_equal(err, "writes at 900000 bytes/s over 0.100 s, below rate_min=1000000");
}

static void test_ratemin_ramp_and_directions(void **state)
{
    struct job_spec j;
    struct ratemin r;
    char err[200] = "";
    (void)state;
    job_spec_default(&j);
    j.rw = RW_READ;
    j.rate_min_w_iops = 100;                 /* writes' minimum, a read job: inactive */
    ratemin_init(&r, &j, 0);
    assert_false(r.active);
    assert_int_equal(ratemin_check(&r, &j, 5000 * MS, err, sizeof err), 0);
    j.rate_min_iops = 100;
    j.ramp_ns = 1000 * MS;
    ratemin_init(&r, &j, 0);
    ratemin_add(&r, 0, 4096, 500 * MS);       /* in the ramp: not counted */
    assert_int_equal(ratemin_check(&r, &j, 1500 * MS, err, sizeof err), 0);
    for (int i = 0; i < 99; i++)
        ratemin_add(&r, 0, 4096, 1500 * MS);
    assert_int_equal(ratemin_check(&r, &j, 2000 * MS, err, sizeof err), -ETIME);
    assert_string_equal(err, "reads at 99.0 ops/s over 1.000 s, below rate_iops_min=100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratemin_whole_cycles_per_direction),
        cmocka_unit_test(test_ratemin_ramp_and_directions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
