/* test_stats: op type names and op_set merging (everything summed). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "common/stats.h"
#include "tests/unit/stats_util.h"

static void test_stats_op_type_names(void **state)
{
    (void)state;
    assert_string_equal(op_type_name(OP_READ), "read");
    assert_string_equal(op_type_name(OP_WRITE), "write");
    assert_int_equal(op_type_from_name("read"), OP_READ);
    assert_int_equal(op_type_from_name("write"), OP_WRITE);
    assert_int_equal(op_type_from_name("trim"), -1);
    assert_int_equal(op_type_from_name(""), -1);
    assert_int_equal(op_type_from_name("reads"), -1);
    assert_int_equal(op_type_from_name(NULL), -1);
    for (int t = 0; t < OP__COUNT; t++)
        assert_int_equal(op_type_from_name(op_type_name((enum op_type)t)), t);
}

static void test_stats_init_is_empty(void **state)
{
    (void)state;
    struct op_set *s = malloc(sizeof(*s));
    assert_non_null(s);
    op_set_init(s);
    assert_true(op_set_empty(s));
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(s->op[t].ops, 0);
        assert_int_equal(s->op[t].bytes, 0);
        assert_int_equal(s->op[t].errors, 0);
        assert_int_equal(s->op[t].lat.count, 0);
        assert_int_equal(s->op[t].lat.min_ns, UINT64_MAX);
    }
    op_stats_record(&s->op[OP_WRITE], 4096, 1000, 1);
    assert_false(op_set_empty(s));
    free(s);
}

static void test_stats_record_counts_errors(void **state)
{
    (void)state;
    struct op_set *s = malloc(sizeof(*s));
    assert_non_null(s);
    op_set_init(s);
    op_stats_record(&s->op[OP_READ], 4096, 1500, 1);
    op_stats_record(&s->op[OP_READ], 4096, 2500, 0);   /* failed: no bytes */
    assert_int_equal(s->op[OP_READ].ops, 2);
    assert_int_equal(s->op[OP_READ].bytes, 4096);
    assert_int_equal(s->op[OP_READ].errors, 1);
    /* a failed op has no latency: only the successful one is in the histogram */
    assert_int_equal(s->op[OP_READ].lat.count, 1);
    assert_int_equal(s->op[OP_READ].lat.sum_ns, 1500);
    assert_int_equal(s->op[OP_WRITE].ops, 0);
    free(s);
}

static void test_stats_merge_sums(void **state)
{
    (void)state;
    struct op_set *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *u = malloc(sizeof(*u));
    assert_true(a && b && u);
    op_set_init(a);
    op_set_init(b);
    op_set_init(u);
    for (uint64_t i = 0; i < 1000; i++) {
        enum op_type t = i % 3 ? OP_READ : OP_WRITE;
        uint64_t bytes = 512 * (1 + i % 16), lat = 1000 + i * 37;
        int ok = i % 17 != 0;
        op_stats_record(&(i % 2 ? a : b)->op[t], bytes, lat, ok);
        op_stats_record(&u->op[t], bytes, lat, ok);
    }
    uint64_t ops[OP__COUNT], bytes[OP__COUNT], errs[OP__COUNT];
    for (int t = 0; t < OP__COUNT; t++) {
        ops[t] = a->op[t].ops + b->op[t].ops;
        bytes[t] = a->op[t].bytes + b->op[t].bytes;
        errs[t] = a->op[t].errors + b->op[t].errors;
    }
    op_set_merge(a, b);
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(a->op[t].ops, ops[t]);
        assert_int_equal(a->op[t].bytes, bytes[t]);
        assert_int_equal(a->op[t].errors, errs[t]);
        assert_int_equal(a->op[t].ops, u->op[t].ops);
        assert_int_equal(a->op[t].bytes, u->op[t].bytes);
        assert_int_equal(a->op[t].errors, u->op[t].errors);
        assert_true(hist_equal(&a->op[t].lat, &u->op[t].lat));
    }
    /* hand-computed totals for the loop above */
    assert_int_equal(a->op[OP_READ].ops + a->op[OP_WRITE].ops, 1000);
    assert_int_equal(a->op[OP_WRITE].ops, 334);               /* i % 3 == 0 */
    assert_int_equal(a->op[OP_READ].errors + a->op[OP_WRITE].errors, 59);  /* i % 17 == 0 */

    /* merging an empty set changes nothing; merging into one copies */
    op_set_init(b);
    op_set_merge(a, b);
    assert_int_equal(a->op[OP_READ].ops, u->op[OP_READ].ops);
    op_set_merge(b, u);
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(b->op[t].ops, u->op[t].ops);
        assert_int_equal(b->op[t].bytes, u->op[t].bytes);
        assert_true(hist_equal(&b->op[t].lat, &u->op[t].lat));
    }
    free(a);
    free(b);
    free(u);
}

/* Counters from the network may sit near 2^64: every sum saturates at
 * UINT64_MAX instead of wrapping to a small, plausible figure. */
static void test_stats_merge_saturates(void **state)
{
    (void)state;
    struct op_set *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    assert_true(a && b);
    op_set_init(a);
    op_set_init(b);
    op_stats_record(&a->op[OP_READ], 4096, 1000, 1);
    op_stats_record(&b->op[OP_READ], 4096, 1000, 1);
    b->op[OP_READ].ops = UINT64_MAX - 10;
    b->op[OP_READ].bytes = UINT64_MAX;
    b->op[OP_READ].lat.count = UINT64_MAX - 1;
    b->op[OP_READ].lat.sum_ns = UINT64_MAX - 5;
    b->op[OP_READ].lat.bucket[hist_bucket_of(1000)] = UINT64_MAX - 1;
    op_set_merge(a, b);
    op_set_merge(a, b);
    assert_true(a->op[OP_READ].ops == UINT64_MAX);
    assert_true(a->op[OP_READ].bytes == UINT64_MAX);
    assert_true(a->op[OP_READ].lat.count == UINT64_MAX);
    assert_true(a->op[OP_READ].lat.sum_ns == UINT64_MAX);
    assert_true(a->op[OP_READ].lat.bucket[hist_bucket_of(1000)] == UINT64_MAX);
    /* small sums are exact still */
    op_set_init(b);
    op_stats_record(&b->op[OP_READ], 4096, 1000, 1);
    op_set_init(a);
    op_stats_record(&a->op[OP_READ], 4096, 1000, 1);
    op_set_merge(a, b);
    assert_int_equal(a->op[OP_READ].ops, 2);
    assert_int_equal(a->op[OP_READ].bytes, 8192);
    free(a);
    free(b);
}

/* op_rec (the job threads' sparse recording form): draining gives exactly
 * what recording into a dense op_set gives, at every bucket boundary, and
 * holds memory only for the op types and ranges used. */
static void test_stats_rec_drain_equals_dense(void **state)
{
    (void)state;
    struct op_set *dense = malloc(sizeof(*dense)), *acc = malloc(sizeof(*acc));
    struct op_rec r;
    uint64_t x = 88172645463325252ull;
    assert_non_null(dense);
    assert_non_null(acc);
    op_set_init(dense);
    op_set_init(acc);
    op_rec_init(&r);
    for (int i = 0; i < 20000; i++) {
        /* values across the whole range, bucket edges and the clamp included */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t v = i < 2496 ? hist_bucket_low((unsigned)i) : i < 4992 ? hist_bucket_high((unsigned)(i - 2496))
                   : x >> (x & 63);
        enum op_type t = (enum op_type)(i % 3 == 0 ? OP_WRITE : OP_STAT);
        int ok = i % 7 != 0;
        op_stats_record(&dense->op[t], 4096, v, ok);
        hist_record(&dense->op[t].svc, v / 2);
        dense->op[t].timeouts += i % 11 == 0;
        struct op_stats_rec *o = op_rec_record(&r, t, 4096, v, ok);
        hist_rec_record(&o->svc, v / 2);
        o->timeouts += i % 11 == 0;
        if (i == 10000)
            op_rec_drain(&r, acc);        /* a harvest half way: sums stay exact */
    }
    op_rec_drain(&r, acc);
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(acc->op[t].ops, dense->op[t].ops);
        assert_int_equal(acc->op[t].bytes, dense->op[t].bytes);
        assert_int_equal(acc->op[t].errors, dense->op[t].errors);
        assert_int_equal(acc->op[t].timeouts, dense->op[t].timeouts);
        assert_true(hist_equal(&acc->op[t].lat, &dense->op[t].lat));
        assert_true(hist_equal(&acc->op[t].svc, &dense->op[t].svc));
    }
    /* only the two op types used were allocated; a drained rec adds nothing */
    for (int t = 0; t < OP__COUNT; t++)
        assert_true((r.op[t] != NULL) == (t == OP_WRITE || t == OP_STAT));
    op_rec_drain(&r, acc);
    assert_int_equal(acc->op[OP_WRITE].ops, dense->op[OP_WRITE].ops);
    assert_true(hist_equal(&acc->op[OP_STAT].lat, &dense->op[OP_STAT].lat));
    op_rec_free(&r);
    for (int t = 0; t < OP__COUNT; t++)
        assert_null(r.op[t]);
    free(dense);
    free(acc);
}

static void test_stats_rec_memory_follows_use(void **state)
{
    (void)state;
    struct op_rec r;
    op_rec_init(&r);
    assert_int_equal(op_rec_bytes(&r), 0);
    /* a read job whose latencies stay within one octave: one entry, one chunk */
    for (uint64_t v = 100000; v < 131072; v += 7)
        op_rec_record(&r, OP_READ, 4096, v, 1);
    assert_int_equal(op_rec_bytes(&r), sizeof(struct op_stats_rec) + HIST_CHUNK * sizeof(uint64_t));
    assert_int_equal(hist_rec_bytes(&r.op[OP_READ]->svc), 0);   /* not rate-limited: no svc */
    /* 20 KB as a dense histogram; here under 1.5 KB */
    assert_true(op_rec_bytes(&r) < 1536);
    assert_true(sizeof(struct hist) > 19000);
    op_rec_free(&r);
}

/* op_rec_add of dense interval sets, then op_rec_sum: exactly op_set_merge
 * of the same sets (the coordinator's per-agent phase sums, run.c), and
 * only the chunks the values fall in are held. */
static void test_stats_rec_add_equals_merge(void **state)
{
    (void)state;
    struct op_set *iv = malloc(sizeof(*iv)), *merged = malloc(sizeof(*merged)), *sum = malloc(sizeof(*sum));
    struct op_rec r;
    uint64_t x = 2463534242ull;
    assert_non_null(iv);
    assert_non_null(merged);
    assert_non_null(sum);
    op_set_init(merged);
    op_set_init(sum);
    op_rec_init(&r);
    for (int k = 0; k < 50; k++) {
        op_set_init(iv);
        for (int i = 0; i < 400; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint64_t v = k == 7 ? hist_bucket_low((unsigned)(i % 200)) : 50000 + (x % 200000);
            op_stats_record(&iv->op[OP_READ], 4096, v, i % 9 != 0);
            hist_record(&iv->op[OP_READ].svc, v / 3);
        }
        iv->op[OP_READ].timeouts = (uint64_t)k % 2;
        op_set_merge(merged, iv);
        op_rec_add(&r, iv);
    }
    op_rec_sum(&r, sum);
    op_rec_sum(&r, sum);        /* r unchanged by a sum: twice is double */
    *iv = *merged;              /* so the reference is the sum taken twice too */
    op_set_merge(merged, iv);
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(sum->op[t].ops, merged->op[t].ops);
        assert_int_equal(sum->op[t].bytes, merged->op[t].bytes);
        assert_int_equal(sum->op[t].errors, merged->op[t].errors);
        assert_int_equal(sum->op[t].timeouts, merged->op[t].timeouts);
        assert_true(hist_equal(&sum->op[t].lat, &merged->op[t].lat));
        assert_true(hist_equal(&sum->op[t].svc, &merged->op[t].svc));
    }
    assert_non_null(r.op[OP_READ]);
    assert_null(r.op[OP_WRITE]);
    assert_true(op_rec_bytes(&r) < sizeof(struct hist));   /* under one dense histogram */
    op_rec_free(&r);
    free(iv);
    free(merged);
    free(sum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_op_type_names),
        cmocka_unit_test(test_stats_init_is_empty),
        cmocka_unit_test(test_stats_record_counts_errors),
        cmocka_unit_test(test_stats_merge_sums),
        cmocka_unit_test(test_stats_merge_saturates),
        cmocka_unit_test(test_stats_rec_drain_equals_dense),
        cmocka_unit_test(test_stats_rec_memory_follows_use),
        cmocka_unit_test(test_stats_rec_add_equals_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
