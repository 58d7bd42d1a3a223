/* Unit tests for proto/pool_msg (the pool's messages) and the pool's
 * authentication roles (proto/auth). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/xmalloc.h"
#include "proto/auth.h"
#include "proto/pool_msg.h"
#include "tests/unit/msg_frame_util.h"

static const char *payload(const struct buf *b, size_t *n)
{
    *n = b->len - FRAME_HEADER_LEN;
    return b->data + FRAME_HEADER_LEN;
}

static void test_pool_submit_round_trip(void **state)
{
    char *argv[] = { "--name=w", "--label", "two words", POOL_PLAN_ARG };
    struct pool_submit in = { .argv = argv, .argc = 4, .plan = "[j]\nrw=write\n\0x", .plan_len = 15,
                              .want_json = 1, .wait = 0, .expect = 3, .min_agents = 2,
                              .expect_timeout_ms = 1500 };
    struct pool_submit out;
    struct buf b;
    size_t n;
    const char *p;
    char err[256];

    (void)state;
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.argc, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(out.argv[i], argv[i]);
    assert_null(out.argv[4]);
    assert_int_equal(out.plan_len, 15);
    assert_memory_equal(out.plan, in.plan, 15);     /* bytes, NUL included */
    assert_int_equal(out.want_json, 1);
    assert_int_equal(out.wait, 0);
    assert_int_equal(out.expect, 3);
    assert_int_equal(out.min_agents, 2);
    assert_int_equal(out.expect_timeout_ms, 1500);
    pool_submit_free(&out);
    buf_free(&b);

    /* command: clean travels (an older submitter sends none: a run) */
    in.clean = 1;
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.clean, 1);
    pool_submit_free(&out);
    buf_free(&b);
    in.clean = 0;

    /* no plan file: options only, and none comes back */
    in.plan = NULL;
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), 0);
    assert_null(out.plan);
    pool_submit_free(&out);
    buf_free(&b);
}

static void test_pool_submit_caps(void **state)
{
    char **argv = xcalloc(POOL_ARGV_MAX + 1, sizeof *argv);
    char *big = xmalloc(POOL_ARG_MAX + 2);
    struct pool_submit in = { .argv = argv, .argc = POOL_ARGV_MAX + 1 }, out;
    struct buf b;
    size_t n;
    const char *p;
    char err[256];

    (void)state;
    for (int i = 0; i <= POOL_ARGV_MAX; i++)
        argv[i] = "-v";
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "submit: 'argv' has too many options");
    assert_null(out.argv);
    buf_free(&b);

    memset(big, 'a', POOL_ARG_MAX + 1);
    big[POOL_ARG_MAX + 1] = '\0';
    argv[0] = big;
    in.argc = 1;
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "'argv' holds a bad option"));
    buf_free(&b);

    in.plan = xcalloc(1, POOL_PLAN_MAX + 1);
    in.plan_len = POOL_PLAN_MAX + 1;
    in.argc = 0;
    buf_init(&b);
    pool_submit_encode(&b, &in);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_submit_decode, p, n, &out, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "submit: 'plan' too long");
    buf_free(&b);
    free(in.plan);
    free(big);
    free(argv);
}

static void test_pool_output_busy_exit(void **state)
{
    struct buf b;
    size_t n;
    const char *p;
    char err[256];
    struct pool_output o;
    struct pool_busy bz = { "127.0.0.1:5", "01:02:03" }, bz2;
    uint32_t st;

    (void)state;
    buf_init(&b);
    pool_output_encode(&b, POOL_JSON, "{\"a\":1}", 7);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_output_decode, p, n, &o, err, sizeof err), 0);
    assert_int_equal(o.stream, POOL_JSON);
    assert_int_equal(o.len, 7);
    assert_memory_equal(o.data, "{\"a\":1}", 7);
    assert_true(o.data >= p && o.data + o.len <= p + n);
    buf_free(&b);

    buf_init(&b);
    pool_busy_encode(&b, &bz);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_busy_decode, p, n, &bz2, err, sizeof err), 0);
    assert_string_equal(bz2.from, "127.0.0.1:5");
    assert_string_equal(bz2.since, "01:02:03");
    buf_free(&b);

    buf_init(&b);
    pool_exit_encode(&b, 130);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_exit_decode, p, n, &st, err, sizeof err), 0);
    assert_int_equal(st, 130);
    buf_free(&b);
    buf_init(&b);
    pool_exit_encode(&b, 256);
    p = payload(&b, &n);
    assert_int_equal(DECODE(pool_exit_decode, p, n, &st, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "exit: 'status' is over 255");
    /* the wrong decoder names what it got */
    assert_int_equal(DECODE(pool_busy_decode, p, n, &bz2, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "busy: got a 'exit' message");
    buf_free(&b);
}

/* The pool's proofs are never good as an agent's or a coordinator's, for
 * the same nonces (no reflection between the two handshakes). */
static void test_pool_auth_roles_distinct(void **state)
{
    struct auth_secret s = { .len = 20 };
    unsigned char c[AUTH_NONCE_LEN], a[AUTH_NONCE_LEN], mac[4][AUTH_MAC_LEN];
    static const enum auth_role roles[4] = { AUTH_AGENT, AUTH_COORDINATOR, AUTH_POOL, AUTH_SUBMITTER };

    (void)state;
    memset(s.key, 'k', s.len);
    memset(c, 1, sizeof c);
    memset(a, 2, sizeof a);
    for (int i = 0; i < 4; i++)
        auth_proof(&s, roles[i], c, a, mac[i]);
    for (int i = 0; i < 4; i++) {
        assert_true(auth_check(&s, roles[i], c, a, mac[i]));
        for (int j = 0; j < 4; j++)
            if (j != i) {
                assert_false(auth_check(&s, roles[j], c, a, mac[i]));
                assert_false(auth_check(&s, roles[j], a, c, mac[i]));   /* nonces swapped */
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_submit_round_trip),
        cmocka_unit_test(test_pool_submit_caps),
        cmocka_unit_test(test_pool_output_busy_exit),
        cmocka_unit_test(test_pool_auth_roles_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
