/* test_coherence: the (writer, reader) pair set and its merge, the block
 * stamp, the coherence wire message and its JSON form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <msgpack.h>

#include "common/coherence.h"
#include "coordinator/report/coherence_report.h"
#include "proto/coh_msg.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

static void test_coherence_merge_sums_pairs_exactly(void **state)
{
    struct coh_set a, b;
    struct coh_pair *p, tot;
    (void)state;
    coh_set_init(&a);
    coh_set_init(&b);
    p = coh_set_pair(&a, 0, 1, 4);
    p->seen = 2;
    hist_record(&p->lag, 1000);
    hist_record(&p->lag, 5000);
    assert_ptr_equal(coh_set_pair(&a, 0, 1, 4), p);          /* found, not added */
    p = coh_set_pair(&b, 0, 1, 4);
    p->seen = 1;
    p->never = 3;
    hist_record(&p->lag, 7000);
    p = coh_set_pair(&b, 2, 1, 4);
    p->never = 1;
    assert_int_equal(coh_set_merge(&a, &b, 4), 0);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.pair[0].seen, 3);
    assert_int_equal(a.pair[0].never, 3);
    assert_int_equal(a.pair[0].lag.count, 3);
    assert_int_equal(a.pair[0].lag.sum_ns, 13000);
    assert_int_equal(a.pair[1].writer, 2);
    coh_set_total(&a, &tot);
    assert_int_equal(tot.seen, 3);
    assert_int_equal(tot.never, 4);
    assert_int_equal(tot.lag.max_ns, 7000);
    /* past the cap: refused whole, nothing changed */
    assert_null(coh_set_pair(&b, 5, 1, 2));
    b.pair[0].writer = 9;
    assert_int_equal(coh_set_merge(&a, &b, 2), -E2BIG);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.pair[0].seen, 3);
    coh_set_free(&a);
    coh_set_free(&b);
}

static void test_coherence_stamp_round_trip_and_rejects(void **state)
{
    unsigned char blk[64] = { 0 };
    uint32_t w = 0;
    uint64_t g = 0, t = 0;
    (void)state;
    assert_int_equal(coh_stamp_get(blk, sizeof blk, &w, &g, &t), -EINVAL);   /* zeroes */
    coh_stamp_put(blk, 7, 42, 123456789);
    assert_int_equal(coh_stamp_get(blk, sizeof blk, &w, &g, &t), 0);
    assert_int_equal(w, 7);
    assert_int_equal(g, 42);
    assert_int_equal(t, 123456789);
    assert_int_equal(coh_stamp_get(blk, COH_STAMP_LEN - 1, &w, &g, &t), -EINVAL); /* short read */
    blk[9] ^= 1;                                                /* a torn generation */
    assert_int_equal(coh_stamp_get(blk, sizeof blk, &w, &g, &t), -EINVAL);
}

static const char *payload(const struct buf *b, size_t *n)
{
    *n = b->len - FRAME_HEADER_LEN;
    return b->data + FRAME_HEADER_LEN;
}

static void test_coherence_msg_round_trip(void **state)
{
    struct msg_coherence m = { .phase = 3 }, d;
    struct coh_pair *p;
    struct buf b;
    const char *pl;
    size_t n;
    char err[256];
    (void)state;
    coh_set_init(&m.set);
    p = coh_set_pair(&m.set, 4, 9, COH_PAIRS_MAX);
    p->seen = 2;
    p->never = 5;
    hist_record(&p->lag, 300);
    hist_record(&p->lag, 9000000);
    (void)coh_set_pair(&m.set, 6, 9, COH_PAIRS_MAX);
    buf_init(&b);
    msg_coherence_encode(&b, &m);
    pl = payload(&b, &n);
    assert_int_equal(peek_type(pl, n, err, sizeof err), MSG_COHERENCE);
    assert_int_equal(COH_DECODE(pl, n, 9, &d, err, sizeof err), 0);
    assert_int_equal(d.phase, 3);
    assert_int_equal(d.set.n, 2);
    assert_int_equal(d.set.pair[0].writer, 4);
    assert_int_equal(d.set.pair[0].reader, 9);
    assert_int_equal(d.set.pair[0].never, 5);
    assert_true(hist_equal(&d.set.pair[0].lag, &m.set.pair[0].lag));   /* p moved: the set grew */
    assert_int_equal(d.set.pair[1].seen, 0);
    coh_set_free(&d.set);
    buf_free(&b);
    coh_set_free(&m.set);
}

/* Pack {type: coherence, phase: 0, pairs: [npairs x {writer, seen, never, lag}]}
 * with writer w0 + i (or w0 for all when same), seen as given, an empty lag. */
static void pack_msg(struct buf *b, uint32_t npairs, uint32_t w0, int same, uint64_t seen, int drop_lag)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "type", 4);
    msgpack_pack_str(&pk, 9); msgpack_pack_str_body(&pk, "coherence", 9);
    msgpack_pack_str(&pk, 5); msgpack_pack_str_body(&pk, "phase", 5);
    msgpack_pack_uint32(&pk, 0);
    msgpack_pack_str(&pk, 5); msgpack_pack_str_body(&pk, "pairs", 5);
    msgpack_pack_array(&pk, npairs);
    for (uint32_t i = 0; i < npairs; i++) {
        msgpack_pack_map(&pk, drop_lag ? 3 : 4);
        msgpack_pack_str(&pk, 6); msgpack_pack_str_body(&pk, "writer", 6);
        msgpack_pack_uint32(&pk, same ? w0 : w0 + i);
        msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "seen", 4);
        msgpack_pack_uint64(&pk, seen);
        msgpack_pack_str(&pk, 5); msgpack_pack_str_body(&pk, "never", 5);
        msgpack_pack_uint64(&pk, 0);
        if (!drop_lag) {
            msgpack_pack_str(&pk, 3); msgpack_pack_str_body(&pk, "lag", 3);
            msgpack_pack_map(&pk, 5);
            const char *k[] = { "count", "sum", "min", "max" };
            for (int j = 0; j < 4; j++) {
                msgpack_pack_str(&pk, strlen(k[j])); msgpack_pack_str_body(&pk, k[j], strlen(k[j]));
                msgpack_pack_uint64(&pk, 0);
            }
            msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "runs", 4);
            msgpack_pack_array(&pk, 0);
        }
    }
    buf_init(b);
    buf_append(b, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
}

static void expect_refused(struct buf *b, const char *want)
{
    struct msg_coherence d;
    char err[256] = "";
    assert_int_equal(COH_DECODE(b->data, b->len, 0, &d, err, sizeof err), -EBADMSG);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
    assert_int_equal(d.set.n, 0);
    buf_free(b);
}

static void test_coherence_msg_refusals(void **state)
{
    struct buf b;
    struct msg_coherence d;
    char err[256];
    (void)state;
    pack_msg(&b, 2, 1, 0, 0, 0);                 /* well formed: accepted */
    assert_int_equal(COH_DECODE(b.data, b.len, 0, &d, err, sizeof err), 0);
    assert_int_equal(d.set.n, 2);
    coh_set_free(&d.set);
    buf_free(&b);
    pack_msg(&b, COH_PAIRS_MAX + 1, 0, 0, 0, 0);
    expect_refused(&b, "257 pairs, more than 256");
    pack_msg(&b, 2, 3, 1, 0, 0);
    expect_refused(&b, "writer 3 twice");
    pack_msg(&b, 1, 0, 0, 4, 0);
    expect_refused(&b, "'lag' holds 0 values, 'seen' says 4");
    pack_msg(&b, 1, 0, 0, 0, 1);
    expect_refused(&b, "missing key 'lag'");
    pack_msg(&b, 1, UINT32_MAX, 0, 0, 0);
    expect_refused(&b, "'writer' is not an unsigned integer");
}

static void test_coherence_json_round_trip_and_refusals(void **state)
{
    struct coh_set s, back;
    struct coh_pair *p;
    json_t *a;
    char why[256];
    struct run_result r;
    struct agent_info ag[3];
    struct phase_result ph;
    (void)state;
    memset(&r, 0, sizeof r);
    memset(ag, 0, sizeof ag);
    memset(&ph, 0, sizeof ph);
    ag[0].rtt_ns = 1000;
    ag[2].rtt_ns = 3001;
    r.nagents = 3;
    r.agents = ag;
    r.nphases = 1;
    r.phases = &ph;
    coh_set_init(&s);
    p = coh_set_pair(&s, 0, 2, 8);
    p->seen = 1;
    p->never = 2;
    hist_record(&p->lag, 123456);
    assert_int_equal(coherence_result_add(&r, 0, &s), 0);
    assert_int_equal(coherence_error_bound(&r, 0, 2), 500 + 1500);
    a = coherence_reader_json(&r, 0, 2);
    assert_non_null(a);
    assert_null(coherence_reader_json(&r, 0, 1));
    coh_set_init(&back);
    assert_int_equal(coherence_from_json(a, 3, &back, why, sizeof why), 0);
    assert_int_equal(back.n, 1);
    assert_int_equal(back.pair[0].never, 2);
    assert_true(hist_equal(&back.pair[0].lag, &p->lag));
    coh_set_free(&back);
    /* a reader beyond the run's agents */
    assert_int_equal(coherence_from_json(a, 2, &back, why, sizeof why), -EINVAL);
    assert_non_null(strstr(why, "writer, reader (< 2 agents)"));
    /* seen that the histogram does not hold */
    json_object_set_new(json_array_get(a, 0), "seen", json_integer(5));
    assert_int_equal(coherence_from_json(a, 3, &back, why, sizeof why), -EINVAL);
    assert_non_null(strstr(why, "lag.hist holds 1 values, seen is 5"));
    assert_int_equal(back.n, 0);
    json_decref(a);
    coh_set_free(&s);
    coh_set_free(&ph.coh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coherence_merge_sums_pairs_exactly),
        cmocka_unit_test(test_coherence_stamp_round_trip_and_rejects),
        cmocka_unit_test(test_coherence_msg_round_trip),
        cmocka_unit_test(test_coherence_msg_refusals),
        cmocka_unit_test(test_coherence_json_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
