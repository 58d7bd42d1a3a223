/* test_iogen: the op generator covers files as fio does: sequential walks,
 * random passes visit every block once, regions from offset and
 * offset_increment, block size mixes in proportion, skewed distributions
 * are skewed, rw mixes hold their ratio, file service orders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agent/iogen.h"

static struct job_spec spec(enum rw_mode rw, uint64_t bs)
{
    struct job_spec j;
    job_spec_default(&j);
    j.rw = rw;
    j.bs = bs;
    j.size = 1 << 20;
    return j;
}

static void test_iogen_sequential_walks_and_wraps(void **state)
{
    struct job_spec j = spec(RW_WRITE, 4096);
    struct iogen g;
    struct iogen_op op;
    (void)state;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 8192, 16384), 0);
    for (int i = 0; i < 9; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.offset, 8192 + (uint64_t)(i % 4) * 4096);   /* region start, 4 blocks */
        assert_int_equal(op.len, 4096);
        assert_true(op.write);
    }
    iogen_free(&g);
}

static void test_iogen_random_pass_visits_every_block_once(void **state)
{
    struct job_spec j = spec(RW_RANDREAD, 4096);
    enum { N = 1000 };
    uint8_t seen[N];
    struct iogen g;
    struct iogen_op op;
    (void)state;
    assert_int_equal(iogen_init(&g, &j, 42, 1, 0, (uint64_t)N * 4096), 0);
    for (int pass = 0; pass < 3; pass++) {
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < N; i++) {
            iogen_next(&g, &op);
            assert_int_equal(op.offset % 4096, 0);
            assert_true(op.offset < (uint64_t)N * 4096);
            assert_int_equal(seen[op.offset / 4096], 0);     /* never twice in a pass */
            seen[op.offset / 4096] = 1;
            assert_false(op.write);
        }
    }
    iogen_free(&g);
}

static void test_iogen_same_seed_same_sequence(void **state)
{
    struct job_spec j = spec(RW_RANDRW, 4096);
    struct iogen a, b;
    struct iogen_op x, y;
    int differs = 0;
    (void)state;
    iogen_init(&a, &j, 7, 2, 0, 1 << 20);
    iogen_init(&b, &j, 7, 2, 0, 1 << 20);
    for (int i = 0; i < 500; i++) {
        iogen_next(&a, &x);
        iogen_next(&b, &y);
        assert_int_equal(x.file, y.file);
        assert_int_equal(x.offset, y.offset);
        assert_int_equal(x.len, y.len);
        assert_int_equal(x.write, y.write);
    }
    iogen_free(&b);
    iogen_init(&b, &j, 8, 2, 0, 1 << 20);
    iogen_free(&a);
    iogen_init(&a, &j, 7, 2, 0, 1 << 20);
    for (int i = 0; i < 50; i++) {
        iogen_next(&a, &x);
        iogen_next(&b, &y);
        differs |= x.offset != y.offset;
    }
    assert_true(differs);
    iogen_free(&a);
    iogen_free(&b);
}

static void test_iogen_rwmix_and_bssplit_proportions(void **state)
{
    struct job_spec j = spec(RW_RANDRW, 4096);
    struct iogen g;
    struct iogen_op op;
    int writes = 0, big = 0;
    (void)state;
    j.rwmixread = 70;
    j.nbssplit = 2;
    j.bssplit[0] = (struct bssplit_entry){ 4096, 80 };
    j.bssplit[1] = (struct bssplit_entry){ 65536, 20 };
    assert_int_equal(iogen_init(&g, &j, 3, 1, 0, 8 << 20), 0);
    assert_int_equal(iogen_max_bs(&g), 65536);
    for (int i = 0; i < 20000; i++) {
        iogen_next(&g, &op);
        writes += op.write;
        big += op.len == 65536;
        assert_true(op.len == 4096 || op.len == 65536);
        assert_true(op.offset + op.len <= (8u << 20));
        assert_int_equal(op.offset % 4096, 0);
    }
    assert_in_range(writes, 5400, 6600);     /* 30% of 20000 */
    assert_in_range(big, 3400, 4600);        /* 20% */
    iogen_free(&g);
}

static void test_iogen_bsrange_multiples(void **state)
{
    struct job_spec j = spec(RW_RANDREAD, 4096);
    struct iogen g;
    struct iogen_op op;
    int seen[5] = { 0 };
    (void)state;
    j.bsrange_min = 4096;
    j.bsrange_max = 16384;
    assert_int_equal(iogen_init(&g, &j, 5, 1, 0, 1 << 20), 0);
    for (int i = 0; i < 4000; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.len % 4096, 0);
        assert_in_range(op.len, 4096, 16384);
        seen[op.len / 4096]++;
    }
    for (int k = 1; k <= 4; k++)
        assert_true(seen[k] > 600);
    iogen_free(&g);
}

/* The hottest 10% of blocks get most of a zipf:1.2 workload, and only
 * about 10% of a uniform one. */
static int hot_share(enum rand_dist d, double param)
{
    enum { N = 4096, OPS = 40000 };
    static int count[N];
    struct job_spec j = spec(RW_RANDREAD, 4096);
    struct iogen g;
    struct iogen_op op;
    int hot = 0;
    j.random_distribution = d;
    j.dist_param = param;
    memset(count, 0, sizeof count);
    iogen_init(&g, &j, 11, 1, 0, (uint64_t)N * 4096);
    for (int i = 0; i < OPS; i++) {
        iogen_next(&g, &op);
        count[op.offset / 4096]++;
    }
    iogen_free(&g);
    /* sum of the N/10 largest counts */
    for (int k = 0; k < N / 10; k++) {
        int best = 0;
        for (int b = 1; b < N; b++)
            if (count[b] > count[best])
                best = b;
        hot += count[best];
        count[best] = -1;
    }
    return hot * 100 / OPS;
}

static void test_iogen_skewed_distributions(void **state)
{
    (void)state;
    assert_true(hot_share(DIST_RANDOM, 0) < 15);
    assert_true(hot_share(DIST_ZIPF, 1.2) > 60);
    assert_true(hot_share(DIST_PARETO, 0.2) > 40);
    assert_true(hot_share(DIST_NORMAL, 5) > 40);
}

static void test_iogen_file_service(void **state)
{
    struct job_spec j = spec(RW_READ, 4096);
    struct iogen g;
    struct iogen_op op;
    (void)state;
    iogen_init(&g, &j, 1, 3, 0, 4 * 4096);
    for (int i = 0; i < 6; i++) {                 /* roundrobin */
        iogen_next(&g, &op);
        assert_int_equal(op.file, (uint32_t)(i % 3));
    }
    iogen_free(&g);
    j.file_service_type = FSERV_SEQUENTIAL;       /* one pass per file */
    iogen_init(&g, &j, 1, 3, 0, 4 * 4096);
    for (int i = 0; i < 12; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.file, (uint32_t)(i / 4));
    }
    iogen_free(&g);
}

static void test_iogen_block_larger_than_region_refused(void **state)
{
    struct job_spec j = spec(RW_READ, 1 << 20);
    struct iogen g;
    (void)state;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 0, 4096), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iogen_sequential_walks_and_wraps),
        cmocka_unit_test(test_iogen_random_pass_visits_every_block_once),
        cmocka_unit_test(test_iogen_same_seed_same_sequence),
        cmocka_unit_test(test_iogen_rwmix_and_bssplit_proportions),
        cmocka_unit_test(test_iogen_bsrange_multiples),
        cmocka_unit_test(test_iogen_skewed_distributions),
        cmocka_unit_test(test_iogen_file_service),
        cmocka_unit_test(test_iogen_block_larger_than_region_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
