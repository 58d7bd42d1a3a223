/* test_hist: the histogram's layout, its 1% percentile promise against exact
 * nearest-rank percentiles of sorted samples, and exact merging. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/sat.h"

#define NSAMPLES 100000
/* hist.c's derived bound, 2^-(SUB_BITS+1) = 0.78%: tighter than the 1% promise */
#define MAX_REL_ERR (1.0 / (2 << HIST_SUB_BITS))

/* splitmix64: deterministic, seedable, state passed explicitly */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t rnd_range(uint64_t *s, uint64_t lo, uint64_t hi)  /* [lo, hi] */
{
    return lo + rnd(s) % (hi - lo + 1);
}

static double rnd_unit(uint64_t *s)  /* (0, 1) */
{
    return ((double)(rnd(s) >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Percentiles in hundredths of a percent so the exact rank is integer math. */
static const unsigned q_x100[] = { 100, 5000, 9000, 9900, 9990, 9999, 10000 };
#define NQ (sizeof(q_x100) / sizeof(q_x100[0]))

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, unsigned qx100)
{
    uint64_t rank = ((uint64_t)qx100 * n + 9999) / 10000;  /* ceil */
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

/* Record v[], then check count/min/max/sum/mean exactly and every percentile
 * in q_x100 against the sorted samples within the relative bound `tol`. */
static void check_samples(uint64_t *v, size_t n, double tol)
{
    struct hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    uint64_t sum = 0, mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        hist_record(h, v[i]);
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    qsort(v, n, sizeof(v[0]), cmp_u64);

    assert_int_equal(h->count, n);
    assert_int_equal(h->min_ns, mn);
    assert_int_equal(h->max_ns, mx);
    assert_int_equal(h->sum_ns, sum);
    assert_true(hist_mean(h) == (double)sum / (double)n);
    assert_int_equal(hist_percentile(h, 0), mn);
    assert_int_equal(hist_percentile(h, 100), mx);

    for (size_t k = 0; k < NQ; k++) {
        uint64_t want = exact_percentile(v, n, q_x100[k]);
        uint64_t got = hist_percentile(h, q_x100[k] / 100.0);
        double err = fabs((double)got - (double)want) / (want ? (double)want : 1.0);
        if (err > tol)
            fail_msg("p%.2f: got %llu want %llu (rel err %.5f > %.5f)", q_x100[k] / 100.0,
                     (unsigned long long)got, (unsigned long long)want, err, tol);
    }
    free(h);
}

static void test_hist_percentile_uniform(void **state)
{
    (void)state;
    uint64_t s = 1, *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = rnd_range(&s, 1000, 10000000);          /* 1us .. 10ms */
    check_samples(v, NSAMPLES, MAX_REL_ERR);
    free(v);
}

static void test_hist_percentile_lognormal(void **state)
{
    (void)state;
    uint64_t s = 2, *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++) {
        /* Box-Muller normal, median 500us, wide spread: ~ns to ~minutes */
        double z = sqrt(-2 * log(rnd_unit(&s))) * cos(2 * M_PI * rnd_unit(&s));
        v[i] = (uint64_t)exp(log(500000.0) + 2.0 * z);
    }
    check_samples(v, NSAMPLES, MAX_REL_ERR);
    free(v);
}

static void test_hist_percentile_constant(void **state)
{
    (void)state;
    uint64_t *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = 123457;
    check_samples(v, NSAMPLES, 0.0);   /* clamped to min == max: exact */
    free(v);
}

static void test_hist_percentile_small_values_exact(void **state)
{
    (void)state;
    uint64_t s = 3, *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = rnd_range(&s, 0, 127);                  /* one bucket per value */
    check_samples(v, NSAMPLES, 0.0);
    free(v);
}

static void test_hist_percentile_bucket_edges(void **state)
{
    (void)state;
    uint64_t s = 4, *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++) {
        unsigned b = (unsigned)rnd_range(&s, 1, HIST_NBUCKETS - 2);
        switch (rnd(&s) % 4) {
        case 0: v[i] = hist_bucket_low(b); break;
        case 1: v[i] = hist_bucket_high(b); break;
        case 2: v[i] = hist_bucket_low(b) - 1; break;
        default: v[i] = hist_bucket_high(b) + 1; break;
        }
    }
    check_samples(v, NSAMPLES, MAX_REL_ERR);
    free(v);
}

/* A few samples past HIST_MAX_NS above the p99.99 rank: every percentile
 * still meets the bound and p100 is the exact max. */
static void test_hist_percentile_rare_overflow(void **state)
{
    (void)state;
    uint64_t s = 5, *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = i % 25000 == 7 ? HIST_MAX_NS + rnd(&s) % HIST_MAX_NS
                              : rnd_range(&s, 1000, 10000000);
    check_samples(v, NSAMPLES, MAX_REL_ERR);
    free(v);
}

/* All samples >= HIST_MAX_NS share the last bucket: the resolution is gone,
 * so the documented promise is only exact min/max/count/mean and percentiles
 * clamped into [min, max] (they report max). */
static void test_hist_percentile_all_overflow(void **state)
{
    (void)state;
    uint64_t s = 6;
    struct hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    uint64_t sum = 0, mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < NSAMPLES; i++) {
        uint64_t x = HIST_MAX_NS + rnd(&s) % (63 * HIST_MAX_NS);
        hist_record(h, x);
        sum = sat_add_u64(sum, x);   /* 10^5 samples near 2^49 pass 2^64: the sum saturates */
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    assert_int_equal(h->count, NSAMPLES);
    assert_int_equal(h->bucket[HIST_NBUCKETS - 1], NSAMPLES);
    assert_int_equal(h->min_ns, mn);
    assert_int_equal(h->max_ns, mx);
    assert_true(hist_mean(h) == (double)sum / NSAMPLES);
    assert_int_equal(hist_percentile(h, 0), mn);
    for (size_t k = 0; k < NQ; k++)
        assert_int_equal(hist_percentile(h, q_x100[k] / 100.0), mx);
    hist_record(h, UINT64_MAX);
    assert_int_equal(h->bucket[HIST_NBUCKETS - 1], NSAMPLES + 1);
    assert_int_equal(hist_percentile(h, 100), UINT64_MAX);
    free(h);
}

static void test_hist_empty(void **state)
{
    (void)state;
    struct hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    assert_int_equal(h->count, 0);
    assert_int_equal(h->min_ns, UINT64_MAX);
    assert_int_equal(h->max_ns, 0);
    assert_int_equal(hist_percentile(h, 0), 0);
    assert_int_equal(hist_percentile(h, 50), 0);
    assert_int_equal(hist_percentile(h, 100), 0);
    assert_true(hist_mean(h) == 0.0);
    free(h);
}

/* Small hand-checked case: ranks and the midpoint rule. */
static void test_hist_percentile_nearest_rank(void **state)
{
    (void)state;
    struct hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    for (uint64_t x = 1; x <= 100; x++)
        hist_record(h, x);                         /* exact buckets */
    assert_int_equal(hist_percentile(h, 1), 1);
    assert_int_equal(hist_percentile(h, 50), 50);
    assert_int_equal(hist_percentile(h, 50.5), 51);
    assert_int_equal(hist_percentile(h, 99), 99);
    assert_int_equal(hist_percentile(h, 99.01), 100);
    assert_int_equal(hist_percentile(h, 0.001), 1);
    assert_true(hist_mean(h) == 50.5);
    /* 7/100*100 is 7.000000000000001 in doubles: still rank 7, not 8 */
    assert_int_equal(hist_percentile(h, 7), 7);
    for (unsigned qx = 1; qx <= 10000; qx++)   /* every q in 0.01 steps */
        assert_int_equal(hist_percentile(h, qx / 100.0), (qx * 100 + 9999) / 10000);

    hist_init(h);
    hist_record(h, 1004);      /* bucket [1000, 1007]: midpoint 1003 */
    hist_record(h, 5000);
    assert_int_equal(hist_bucket_low(hist_bucket_of(1004)), 1000);
    assert_int_equal(hist_bucket_high(hist_bucket_of(1004)), 1007);
    assert_int_equal(hist_percentile(h, 50), 1004);   /* midpoint clamped to min */
    hist_record(h, 1001);
    assert_int_equal(hist_percentile(h, 50), 1003);   /* rank 2 -> midpoint */
    free(h);
}

static void test_hist_merge_equals_union(void **state)
{
    (void)state;
    uint64_t s = 7;
    struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *u = malloc(sizeof(*u));
    struct hist *e = malloc(sizeof(*e));
    assert_true(a && b && u && e);
    hist_init(a);
    hist_init(b);
    hist_init(u);
    hist_init(e);
    for (size_t i = 0; i < NSAMPLES; i++) {
        uint64_t x = rnd(&s) >> (rnd(&s) % 64);   /* every magnitude, overflow too */
        hist_record(rnd(&s) & 1 ? a : b, x);
        hist_record(u, x);
    }
    assert_false(hist_equal(a, u));
    hist_merge(a, b);
    assert_true(hist_equal(a, u));

    /* empty is the identity on both sides */
    hist_merge(a, e);
    assert_true(hist_equal(a, u));
    hist_merge(e, u);
    assert_true(hist_equal(e, u));

    /* hist_equal notices a single-bucket difference */
    e->bucket[hist_bucket_of(12345)]++;
    assert_false(hist_equal(e, u));
    free(a);
    free(b);
    free(u);
    free(e);
}

/* The sparse form round-trips exactly: random histograms of every shape
 * (few and many buckets, overflow, all buckets), one-sample and empty ones;
 * and merging sparse into dense equals merging dense. */
static void test_hist_sparse_roundtrip(void **state)
{
    (void)state;
    uint64_t s = 99;
    struct hist *h = malloc(sizeof(*h)), *back = malloc(sizeof(*back));
    struct hist *m1 = malloc(sizeof(*m1)), *m2 = malloc(sizeof(*m2));
    struct hist_sparse sp;
    assert_true(h && back && m1 && m2);

    /* empty */
    hist_init(h);
    hist_sparse_from(&sp, h);
    assert_int_equal(sp.n, 0);
    assert_null(sp.buckets);
    assert_int_equal(sp.len, 0);
    assert_true(hist_sparse_empty(&sp));
    memset(back, 0xa5, sizeof(*back));   /* to() overwrites everything */
    hist_sparse_to(&sp, back);
    assert_true(hist_equal(back, h));
    assert_int_equal(back->min_ns, UINT64_MAX);
    hist_sparse_free(&sp);

    hist_init(m1);
    hist_init(m2);
    for (int round = 0; round < 60; round++) {
        size_t n = round == 0 ? 1 : (size_t)rnd_range(&s, 1, round < 50 ? 2000 : 200000);
        unsigned spread = (unsigned)rnd_range(&s, 0, 63);

        hist_init(h);
        for (size_t i = 0; i < n; i++)
            hist_record(h, (rnd(&s) >> spread) + (round % 3 ? 50000 : 0));
        if (round == 59)   /* every bucket used */
            for (unsigned i = 0; i < HIST_NBUCKETS; i++)
                hist_record(h, hist_bucket_low(i));
        hist_sparse_from(&sp, h);
        assert_false(hist_sparse_empty(&sp));
        {
            uint32_t used = 0;

            for (unsigned i = 0; i < HIST_NBUCKETS; i++)
                used += h->bucket[i] != 0;
            assert_int_equal(sp.n, used);
            /* packed: at least 2 bytes a bucket (gap, count), at most 2 + 10 */
            assert_true(sp.len >= 2 * sp.n && sp.len <= 12 * sp.n);
        }
        if (round == 59)
            assert_int_equal(sp.n, HIST_NBUCKETS);
        memset(back, 0xa5, sizeof(*back));
        hist_sparse_to(&sp, back);
        assert_true(hist_equal(back, h));
        hist_merge(m1, h);
        hist_sparse_merge(m2, &sp);
        assert_true(hist_equal(m1, m2));
        hist_sparse_free(&sp);
        assert_true(hist_sparse_empty(&sp));
    }
    /* the widest varints: a count of 2^64 - 1, the largest index gap */
    hist_init(h);
    h->bucket[0] = UINT64_MAX;
    h->bucket[HIST_NBUCKETS - 1] = 1ull << 63;
    h->count = UINT64_MAX;
    hist_sparse_from(&sp, h);
    assert_int_equal(sp.n, 2);
    memset(back, 0xa5, sizeof(*back));
    hist_sparse_to(&sp, back);
    assert_true(hist_equal(back, h));
    hist_sparse_free(&sp);
    free(h);
    free(back);
    free(m1);
    free(m2);
}

static void test_hist_bucket_layout(void **state)
{
    (void)state;
    uint64_t s = 8;
    assert_int_equal(hist_bucket_low(0), 0);
    assert_int_equal(hist_bucket_high(HIST_NBUCKETS - 1), UINT64_MAX);
    assert_int_equal(hist_bucket_of(UINT64_MAX), HIST_NBUCKETS - 1);
    assert_int_equal(hist_bucket_of(HIST_MAX_NS), HIST_NBUCKETS - 1);
    assert_int_equal(hist_bucket_of(HIST_MAX_NS - 1), HIST_NBUCKETS - 1);
    assert_true(hist_bucket_of(HIST_MAX_NS - (HIST_MAX_NS >> (HIST_SUB_BITS + 1)) - 1) <
                HIST_NBUCKETS - 1);
    for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
        uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
        assert_true(lo <= hi);
        assert_int_equal(hist_bucket_of(lo), i);
        assert_int_equal(hist_bucket_of(hi), i);
        assert_int_equal(hist_bucket_of(lo + (hi - lo) / 2), i);
        assert_int_equal(hist_bucket_of(rnd_range(&s, lo, hi)), i);
        if (i + 1 < HIST_NBUCKETS)
            assert_int_equal(hist_bucket_low(i + 1), hi + 1);   /* contiguous */
        if (i < 2u << HIST_SUB_BITS) {
            assert_int_equal(lo, i);                             /* exact */
            assert_int_equal(hi, i);
        } else if (i + 1 < HIST_NBUCKETS) {
            /* the premise of the error bound: width <= low / 2^SUB_BITS */
            assert_true((hi - lo + 1) << HIST_SUB_BITS <= lo);
        }
    }
    /* and from the value side, across all magnitudes */
    for (int i = 0; i < 200000; i++) {
        uint64_t x = rnd(&s) >> (rnd(&s) % 64);
        unsigned b = hist_bucket_of(x);
        assert_true(b < HIST_NBUCKETS);
        assert_true(hist_bucket_low(b) <= x && x <= hist_bucket_high(b));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_bucket_layout),
        cmocka_unit_test(test_hist_empty),
        cmocka_unit_test(test_hist_percentile_nearest_rank),
        cmocka_unit_test(test_hist_percentile_uniform),
        cmocka_unit_test(test_hist_percentile_lognormal),
        cmocka_unit_test(test_hist_percentile_constant),
        cmocka_unit_test(test_hist_percentile_small_values_exact),
        cmocka_unit_test(test_hist_percentile_bucket_edges),
        cmocka_unit_test(test_hist_percentile_rare_overflow),
        cmocka_unit_test(test_hist_percentile_all_overflow),
        cmocka_unit_test(test_hist_merge_equals_union),
        cmocka_unit_test(test_hist_sparse_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
