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
#include <stdio.h>
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

/* The random map's permutation is (a * step + c) mod n, kept by adding a
 * each op instead of a 128-bit division: every op's unit is the closed
 * form's, pass after pass, also where a * step passes 2^64. */
static void test_iogen_random_permutation_matches_closed_form(void **state)
{
    static const uint64_t units[] = { 1, 2, 7, 1000, 12293, (uint64_t)1 << 53 };
    (void)state;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        struct job_spec j = spec(RW_RANDREAD, 512);
        uint64_t n = units[k], ops = n < 4000 ? 3 * n : 20000;
        struct iogen g;
        struct iogen_op op;
        assert_int_equal(iogen_init(&g, &j, 7 + k, 1, 0, n * 512), 0);
        for (uint64_t i = 0; i < ops; i++) {
            iogen_next(&g, &op);
            const struct iogen_file *f = &g.f[0];
            uint64_t want = (uint64_t)(((unsigned __int128)f->a * (f->step - 1) + f->c) % n);
            assert_int_equal(op.offset, want * 512);
            if (n > ((uint64_t)1 << 40) && i == ops - 1)
                assert_true((unsigned __int128)f->a * (f->step - 1) > UINT64_MAX);
        }
        iogen_free(&g);
    }
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

/* bs=4k,64k: reads are 4k, writes 64k, offsets on the 4k grid; the
 * writes' bsrange/bssplit likewise. */
static void test_iogen_block_size_per_direction(void **state)
{
    struct job_spec j = spec(RW_RW, 4096);
    struct iogen g;
    struct iogen_op op;
    uint64_t rbytes = 0, wbytes = 0, reads = 0, writes = 0;
    (void)state;
    j.bs_w = 65536;
    assert_int_equal(iogen_init(&g, &j, 9, 1, 0, 1 << 20), 0);
    assert_int_equal(iogen_max_bs(&g), 65536);
    for (int i = 0; i < 10000; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.len, op.write ? 65536 : 4096);
        assert_int_equal(op.offset % 4096, 0);
        assert_true(op.offset + op.len <= (1u << 20));
        *(op.write ? &wbytes : &rbytes) += op.len;
        *(op.write ? &writes : &reads) += 1;
    }
    assert_int_equal(rbytes, reads * 4096);
    assert_int_equal(wbytes, writes * 65536);
    assert_in_range(writes, 4500, 5500);
    iogen_free(&g);

    /* a forced direction (per-direction rate schedules) */
    assert_int_equal(iogen_init(&g, &j, 9, 1, 0, 1 << 20), 0);
    iogen_next_dir(&g, &op, 1);
    assert_true(op.write);
    assert_int_equal(op.len, 65536);
    iogen_next_dir(&g, &op, 0);
    assert_false(op.write);
    assert_int_equal(op.len, 4096);
    iogen_free(&g);

    /* reads from a bssplit, writes from their own bsrange */
    j = spec(RW_RANDRW, 4096);
    j.nbssplit = 1;
    j.bssplit[0] = (struct bssplit_entry){ 8192, 100 };
    j.nbssplit_w = 0;
    j.bsrange_w_min = 16384;
    j.bsrange_w_max = 32768;
    /* bssplit wins over bsrange in each direction: writes keep the split
     * unless they have their own */
    j.nbssplit_w = 2;
    j.bssplit_w[0] = (struct bssplit_entry){ 16384, 50 };
    j.bssplit_w[1] = (struct bssplit_entry){ 32768, 50 };
    assert_int_equal(iogen_init(&g, &j, 4, 1, 0, 1 << 20), 0);
    for (int i = 0; i < 2000; i++) {
        iogen_next(&g, &op);
        if (op.write)
            assert_true(op.len == 16384 || op.len == 32768);
        else
            assert_int_equal(op.len, 8192);
        assert_int_equal(op.offset % 8192, 0);
    }
    iogen_free(&g);
}

/* rw=write:4k: a 4k hole after each 4k op, wrapping at the region's end
 * (fio's sequential rw_sequencer with a hole). */
static void test_iogen_sequential_holes(void **state)
{
    static const uint64_t want[] = { 0, 8192, 16384, 24576, 0, 8192, 16384, 24576, 0 };
    struct job_spec j = spec(RW_WRITE, 4096);
    struct iogen g;
    struct iogen_op op;
    (void)state;
    j.rw_seq_bytes = 4096;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 4096, 32768), 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.offset, 4096 + want[i]);
        assert_int_equal(op.len, 4096);
    }
    iogen_free(&g);
    /* a hole of 12k with 8k ops in 40k: 0, 20k, then 40k + 8k passes the end */
    j.bs = 8192;
    j.rw_seq_bytes = 12288;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 0, 40960), 0);
    iogen_next(&g, &op);
    assert_int_equal(op.offset, 0);
    iogen_next(&g, &op);
    assert_int_equal(op.offset, 20480);
    iogen_next(&g, &op);
    assert_int_equal(op.offset, 0);
    iogen_free(&g);
}

/* rw=read:-8k (fio's backwards read) with 4k ops in 32k: the first op at
 * the start, then 8k back from each op's end, which passes the start at
 * once and so goes on from the end minus 8k down to 0; then again. */
static void test_iogen_sequential_backwards(void **state)
{
    static const uint64_t want[] = { 0, 24, 20, 16, 12, 8, 4, 0, 24, 20 };
    struct job_spec j = spec(RW_READ, 4096);
    struct iogen g;
    struct iogen_op op;
    (void)state;
    j.rw_seq_bytes = (uint64_t)-8192;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 4096, 32768), 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.offset, 4096 + want[i] * 1024);
        assert_int_equal(op.len, 4096);
    }
    iogen_free(&g);
    /* a step back larger than the region: every op at its start */
    j.rw_seq_bytes = (uint64_t)-65536;
    assert_int_equal(iogen_init(&g, &j, 1, 1, 0, 32768), 0);
    for (int i = 0; i < 3; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.offset, 0);
    }
    iogen_free(&g);
}

/* rw=randread:4: the 1st, 5th, 9th ... op takes the next random offset
 * (the same ones a plain randread job draws); the three between continue
 * from the last op (rw_sequencer=sequential) or repeat it (identical). */
static void test_iogen_random_every_n_ops(void **state)
{
    enum { N = 64, OPS = 400 };
    struct job_spec plain = spec(RW_RANDREAD, 4096), j;
    struct iogen gp, g;
    struct iogen_op op, head;
    (void)state;
    for (int ident = 0; ident < 2; ident++) {
        j = plain;
        j.rw_seq_nr = 4;
        j.rw_sequencer = ident ? RWSEQ_IDENTICAL : RWSEQ_SEQUENTIAL;
        assert_int_equal(iogen_init(&gp, &plain, 77, 1, 0, (uint64_t)N * 4096), 0);
        assert_int_equal(iogen_init(&g, &j, 77, 1, 0, (uint64_t)N * 4096), 0);
        uint64_t prev = 0;
        for (int i = 0; i < OPS; i++) {
            iogen_next(&g, &op);
            if (i % 4 == 0) {
                iogen_next(&gp, &head);
                assert_int_equal(op.offset, head.offset);
            } else if (ident) {
                assert_int_equal(op.offset, prev);
            } else {
                assert_int_equal(op.offset, prev + 4096 >= (uint64_t)N * 4096 ? 0 : prev + 4096);
            }
            prev = op.offset;
        }
        iogen_free(&g);
        iogen_free(&gp);
    }
    /* N = 1 is no modifier: the plain sequence */
    j = plain;
    j.rw_seq_nr = 1;
    assert_int_equal(iogen_init(&gp, &plain, 5, 1, 0, (uint64_t)N * 4096), 0);
    assert_int_equal(iogen_init(&g, &j, 5, 1, 0, (uint64_t)N * 4096), 0);
    for (int i = 0; i < OPS; i++) {
        iogen_next(&g, &op);
        iogen_next(&gp, &head);
        assert_int_equal(op.offset, head.offset);
    }
    iogen_free(&g);
    iogen_free(&gp);
}

/* Share of DRAWS offsets in each of nb byte ranges [edge[i], edge[i+1]). */
static void zone_shares(struct job_spec *j, uint64_t len, int dir, const uint64_t *edge, int nb,
                        double *share)
{
    enum { DRAWS = 100000 };
    struct iogen g;
    struct iogen_op op;
    int count[8] = { 0 };
    assert_int_equal(iogen_init(&g, j, 13, 1, 0, len), 0);
    for (int i = 0; i < DRAWS; i++) {
        if (dir < 0)
            iogen_next(&g, &op);
        else
            iogen_next_dir(&g, &op, dir);
        assert_true(op.offset + op.len <= len);
        for (int b = 0; b < nb; b++)
            if (op.offset >= edge[b] && op.offset < edge[b + 1])
                count[b]++;
    }
    iogen_free(&g);
    for (int b = 0; b < nb; b++)
        share[b] = 100.0 * count[b] / DRAWS;
}

static void test_iogen_zoned(void **state)
{
    struct job_spec j = spec(RW_RANDREAD, 4096);
    const uint64_t len = 4096 * 1000;     /* 1000 blocks: zones of 100, 200, 700 */
    const uint64_t edge[] = { 0, 100 * 4096, 300 * 4096, len };
    double sh[3];
    struct iogen g;
    (void)state;
    j.random_distribution = DIST_ZONED;
    snprintf(j.zones, sizeof j.zones, "60/10:30/20:10/70");
    zone_shares(&j, len, -1, edge, 3, sh);
    assert_true(sh[0] > 59.0 && sh[0] < 61.0);
    assert_true(sh[1] > 29.0 && sh[1] < 31.0);
    assert_true(sh[2] > 9.3 && sh[2] < 10.7);

    /* fio's "10/": the last zone takes the rest of the region */
    snprintf(j.zones, sizeof j.zones, "60/10:30/20:10/");
    zone_shares(&j, len, -1, edge, 3, sh);
    assert_true(sh[0] > 59.0 && sh[0] < 61.0);
    assert_true(sh[2] > 9.3 && sh[2] < 10.7);

    /* zoned_abs: 64k and 192k zones, nothing past them */
    const uint64_t aedge[] = { 0, 65536, 262144, len };
    j.random_distribution = DIST_ZONED_ABS;
    snprintf(j.zones, sizeof j.zones, "75/64k:25/192k");
    zone_shares(&j, len, -1, aedge, 3, sh);
    assert_true(sh[0] > 74.0 && sh[0] < 76.0);
    assert_true(sh[1] > 24.0 && sh[1] < 26.0);
    assert_true(sh[2] == 0.0);

    /* per direction: reads in the first 10%, writes spread half and half */
    j = spec(RW_RANDRW, 4096);
    j.random_distribution = DIST_ZONED;
    snprintf(j.zones, sizeof j.zones, "100/10,50/50:50/50");
    const uint64_t dedge[] = { 0, 100 * 4096, 500 * 4096, len };
    zone_shares(&j, len, 0, dedge, 3, sh);
    assert_true(sh[0] == 100.0);
    zone_shares(&j, len, 1, dedge, 3, sh);
    assert_true(sh[0] > 9.0 && sh[0] < 11.0);         /* 50% x (100 of 500 blocks) */
    assert_true(sh[1] > 39.0 && sh[1] < 41.0);
    assert_true(sh[2] > 49.0 && sh[2] < 51.0);

    /* zoned_abs zones past the region: refused, as fio does */
    j = spec(RW_RANDREAD, 4096);
    j.random_distribution = DIST_ZONED_ABS;
    snprintf(j.zones, sizeof j.zones, "50/1m:50/4m");
    assert_int_equal(iogen_init(&g, &j, 1, 1, 0, 4 << 20), -ERANGE);
}

/* openfiles=2 of 8 files: two files served at once, each for a pass over
 * its region (4 blocks), then the next two. */
static void test_iogen_openfiles_window(void **state)
{
    struct job_spec j = spec(RW_READ, 4096);
    struct iogen g;
    struct iogen_op op;
    (void)state;
    j.openfiles = 2;
    assert_int_equal(iogen_init(&g, &j, 1, 8, 0, 4 * 4096), 0);
    for (int i = 0; i < 80; i++) {            /* 0 1 0 1 ... 2 3 2 3 ... 6 7, 0 1 again */
        iogen_next(&g, &op);
        assert_int_equal(op.file, (uint32_t)((i / 8 * 2) % 8 + i % 2));
    }
    iogen_free(&g);
    /* random service: only the window's files until one finishes its pass */
    j.file_service_type = FSERV_RANDOM;
    j.rw = RW_RANDREAD;
    assert_int_equal(iogen_init(&g, &j, 3, 8, 0, 64 * 4096), 0);
    int used[8] = { 0 };
    for (int i = 0; i < 64; i++) {
        iogen_next(&g, &op);
        assert_true(op.file < 2);
        if (++used[op.file] == 64)
            break;
    }
    iogen_free(&g);
    /* openfiles >= the files: every file, as without it */
    j = spec(RW_READ, 4096);
    j.openfiles = 8;
    assert_int_equal(iogen_init(&g, &j, 1, 3, 0, 4 * 4096), 0);
    for (int i = 0; i < 6; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.file, (uint32_t)(i % 3));
    }
    iogen_free(&g);
}

/* norandommap: offsets drawn one by one, so a pass repeats some blocks and
 * misses others (fio's behaviour without its random map). */
static void test_iogen_norandommap_repeats(void **state)
{
    enum { N = 1000 };
    uint8_t seen[N];
    struct job_spec j = spec(RW_RANDREAD, 4096);
    struct iogen g;
    struct iogen_op op;
    int distinct = 0;
    (void)state;
    j.norandommap = 1;
    memset(seen, 0, sizeof seen);
    assert_int_equal(iogen_init(&g, &j, 42, 1, 0, (uint64_t)N * 4096), 0);
    for (int i = 0; i < N; i++) {
        iogen_next(&g, &op);
        assert_int_equal(op.offset % 4096, 0);
        distinct += !seen[op.offset / 4096];
        seen[op.offset / 4096] = 1;
    }
    iogen_free(&g);
    /* 1 - 1/e of the blocks, about 632 of 1000 */
    assert_in_range(distinct, 590, 675);
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
        cmocka_unit_test(test_iogen_block_size_per_direction),
        cmocka_unit_test(test_iogen_sequential_backwards),
        cmocka_unit_test(test_iogen_sequential_holes),
        cmocka_unit_test(test_iogen_random_every_n_ops),
        cmocka_unit_test(test_iogen_zoned),
        cmocka_unit_test(test_iogen_openfiles_window),
        cmocka_unit_test(test_iogen_norandommap_repeats),
        cmocka_unit_test(test_iogen_random_permutation_matches_closed_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
