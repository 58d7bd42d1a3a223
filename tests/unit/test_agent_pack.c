/* test_agent_pack: the packed per-agent interval counters give back every
 * field exactly (all agents, one agent through the index), stay small for
 * the common case, and result.c packs a sealed slot and unpacks it for
 * late data without losing a count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/agent_pack.h"
#include "coordinator/result/spill.h"
#include "coordinator/result/result.h"

static void fill(struct counters *c, uint32_t a)
{
    memset(c, 0, sizeof(*c));
    c->reported = a % 7 != 3;              /* some agents missed the interval */
    c->ops[OP_READ] = a * 3;               /* agent 0: nothing at all */
    c->bytes[OP_READ] = (uint64_t)a * 3 * 4096;
    if (a % 5 == 1) {                      /* writes with errors */
        c->ops[OP_WRITE] = 100 + a;
        c->bytes[OP_WRITE] = (uint64_t)(100 + a) * 1048576;
        c->errors[OP_WRITE] = 2;
    }
    if (a % 11 == 2)                       /* the last op type, the high mask bit */
        c->ops[OP_SYNC] = 9;
    if (a % 13 == 4) {
        c->inflight = 8;
        c->oldest_ns = 12345678901ull;
    }
    if (a == 37) {                         /* extremes of every width */
        c->ops[OP_STAT] = UINT64_MAX;
        c->bytes[OP_STAT] = (uint64_t)INT64_MAX;
        c->errors[OP_STAT] = UINT64_MAX - 1;
        c->inflight = UINT32_MAX;
        c->oldest_ns = UINT64_MAX;
    }
}

static int same(const struct counters *x, const struct counters *y)
{
    if (x->reported != y->reported || x->inflight != y->inflight || x->oldest_ns != y->oldest_ns)
        return 0;
    for (int t = 0; t < OP__COUNT; t++)
        if (x->ops[t] != y->ops[t] || x->bytes[t] != y->bytes[t] || x->errors[t] != y->errors[t])
            return 0;
    return 1;
}

static void test_agent_pack_round_trip(void **state)
{
    /* counts around the index stride: a partial last group, one exact,
     * one agent, and none */
    static const uint32_t ns[] = { 0, 1, AGENT_PACK_STRIDE, AGENT_PACK_STRIDE + 1, 100, 1000 };

    (void)state;
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        uint32_t n = ns[i];
        struct counters *c = xcalloc(n + 1, sizeof(*c)), *back = xcalloc(n + 1, sizeof(*back)), one;
        struct spill_buf p = { 0 };

        spill_buf_byte(&p, 0xee);                 /* packs follow other bytes */
        for (uint32_t a = 0; a < n; a++)
            fill(&c[a], a);
        agent_pack_encode(&p, c, n);
        agent_pack_decode(p.b + 1, back, n);
        for (uint32_t a = 0; a < n; a++) {
            assert_true(same(&c[a], &back[a]));
            memset(&one, 0xa5, sizeof(one));
            agent_pack_get(p.b + 1, a, &one);
            assert_true(same(&c[a], &one));
        }
        free(p.b);
        free(c);
        free(back);
    }
}

/* The common interval: every agent read a few ops and reported. */
static void test_agent_pack_small(void **state)
{
    enum { N = 1000 };
    struct counters *c = xcalloc(N, sizeof(*c));
    struct spill_buf p = { 0 };

    (void)state;
    for (uint32_t a = 0; a < N; a++) {
        c[a].reported = 1;
        c[a].ops[OP_READ] = 10;
        c[a].bytes[OP_READ] = 40960;
    }
    agent_pack_encode(&p, c, N);
    /* flags 1 + mask 1 + ops 1 + bytes 3, and the index's 4 per stride */
    assert_int_equal(p.len, N * 6 + (N + AGENT_PACK_STRIDE - 1) / AGENT_PACK_STRIDE * 4);
    assert_true(p.len < N * 8);
    free(p.b);
    free(c);
}

/* result.c: a sealed slot holds its agents packed; late data (a report,
 * ops in flight) unpacks, adds and packs again, exactly. */
static void test_agent_pack_result_seal_and_late(void **state)
{
    struct plan p;
    struct job_spec j;
    struct run_result r;
    struct op_set *s = xmalloc(sizeof(*s));
    struct counters c;

    (void)state;
    plan_init(&p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "r");
    j.rw = RW_RANDREAD;
    j.bs = 4096;
    j.size = 1 << 20;
    plan_add_job(&p, &j);
    result_init(&r, &p, 40, 1000);
    op_set_init(s);
    s->op[OP_READ].ops = 5;
    s->op[OP_READ].bytes = 5 * 4096;
    for (uint32_t a = 0; a < 39; a++)          /* agent 39 is late */
        assert_int_equal(result_add_interval(&r, 0, a, 0, s), 0);
    result_set_interval_inflight(&r, 0, 17, 0, 3, 999);
    result_interval_seal(&r, 0, 0);
    assert_null(r.phases[0].intervals[0].agent);
    assert_non_null(r.phases[0].intervals[0].spill);     /* packed, spilled */
    result_interval_agent(&r, 0, 0, 17, &c);
    assert_int_equal(c.ops[OP_READ], 5);
    assert_int_equal(c.inflight, 3);
    assert_int_equal(c.oldest_ns, 999);
    result_interval_agent(&r, 0, 0, 39, &c);
    assert_int_equal(c.reported, 0);
    assert_int_equal(c.ops[OP_READ], 0);
    /* late: agent 39's interval 0 after the seal */
    assert_int_equal(result_add_interval(&r, 0, 39, 0, s), 0);
    result_set_interval_inflight(&r, 0, 39, 0, 1, 5);
    assert_null(r.phases[0].intervals[0].agent);     /* packed again */
    assert_non_null(r.phases[0].intervals[0].spill);
    result_interval_agent(&r, 0, 0, 39, &c);
    assert_int_equal(c.reported, 1);
    assert_int_equal(c.ops[OP_READ], 5);
    assert_int_equal(c.bytes[OP_READ], 5 * 4096);
    assert_int_equal(c.inflight, 1);
    result_interval_agent(&r, 0, 0, 17, &c);         /* the others kept */
    assert_int_equal(c.inflight, 3);
    assert_int_equal(r.phases[0].intervals[0].count[OP_READ].ops, 40 * 5);
    result_free(&r);
    plan_free(&p);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_pack_round_trip),
        cmocka_unit_test(test_agent_pack_small),
        cmocka_unit_test(test_agent_pack_result_seal_and_late),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
