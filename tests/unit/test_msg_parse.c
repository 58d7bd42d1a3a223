/* test_msg_parse: a frame is unpacked once per dispatch, and every row of
 * the message table (proto/msg_table.h) round-trips.
 *
 * Unpacks are counted at msgpack-c itself: this binary is linked with
 * -Wl,--wrap=msgpack_unpack_next (Makefile), so every call proto/ makes
 * lands in __wrap_msgpack_unpack_next first.  Before msg_parse a welcome
 * reaching the coordinator was unpacked three times (msg_peek_type, the
 * version, the decoder), a hello reaching an agent as well. */
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
#include <uv.h>

#include "agent/session.h"
#include "common/log.h"
#include "coordinator/run/run.h"
#include "proto/coh_msg.h"
#include "proto/msg.h"
#include "proto/msg_version.h"
#include "proto/pool_msg.h"

static unsigned unpacks;

msgpack_unpack_return __real_msgpack_unpack_next(msgpack_unpacked *r, const char *p, size_t n, size_t *off);
msgpack_unpack_return __wrap_msgpack_unpack_next(msgpack_unpacked *r, const char *p, size_t n, size_t *off);
msgpack_unpack_return __wrap_msgpack_unpack_next(msgpack_unpacked *r, const char *p, size_t n, size_t *off)
{
    unpacks++;
    return __real_msgpack_unpack_next(r, p, n, off);
}

/* One struct of each row. */
union any {
#define MSG_MEMBER(name, st, type, fields, check, enc) struct st name;
    MSG_TABLE(MSG_MEMBER)
#undef MSG_MEMBER
};

/* The smallest valid message of type t (zero is valid but for these). */
static void sample(enum msg_type t, union any *u)
{
    memset(u, 0, sizeof *u);
    if (t == MSG_PLAN || t == MSG_CLEAN) {
        plan_init(&u->plan.plan);
        u->plan.nagents = 3;
        u->plan.agent_index = 2;
        u->plan.interval_ms = 1000;
        u->plan.run_id = 77;
    }
    if (t == MSG_WELCOME)
        snprintf(u->welcome.host, sizeof u->welcome.host, "h1");
    if (t == MSG_ERROR)
        snprintf(u->error.text, sizeof u->error.text, "why");
    if (t == MSG_PING)
        u->ping.seq = 9;
}

static void release(enum msg_type t, union any *u)
{
    if (t == MSG_PLAN || t == MSG_CLEAN)
        msg_plan_free(&u->plan);
    else if (t == MSG_INTERVAL)
        msg_interval_free(&u->interval);
    else if (t == MSG_PHASE_DONE)
        msg_phase_done_free(&u->phase_done);
}

static const char *payload(const struct buf *b, size_t *n)
{
    *n = b->len - FRAME_HEADER_LEN;
    return b->data + FRAME_HEADER_LEN;
}

/* Every row: encode, msg_parse names its type, the typed decoder and
 * msg_decode both decode it from that one unpack, and both re-encode to the
 * same bytes; another row's decoder refuses it. */
static void test_msg_table_every_row_round_trips(void **state)
{
    union any *u = calloc(3, sizeof *u);   /* an interval's op_set is large: not the stack */
    int rows = 0;
    (void)state;
#define MSG_CHECK(name, st, type, fields, check, enc)                                          \
    do {                                                                                       \
        union any *a = &u[0], *b = &u[1], *c = &u[2];                                          \
        struct buf e0, e1, e2;                                                                 \
        struct msg_frame f;                                                                    \
        char err[256];                                                                         \
        size_t n;                                                                              \
        const char *p;                                                                         \
        sample(type, a);                                                                       \
        buf_init(&e0);                                                                         \
        msg_##name##_encode(&e0, &a->name);                                                     \
        p = payload(&e0, &n);                                                                  \
        unpacks = 0;                                                                           \
        assert_int_equal(msg_parse(p, n, &f, err, sizeof err), type);                          \
        assert_int_equal(msg_##name##_decode(&f, &b->name, err, sizeof err), 0);                \
        assert_int_equal(msg_decode(&f, c, err, sizeof err), 0);                              \
        assert_int_equal(unpacks, 1);                                                          \
        assert_int_equal(msg_##name##_decode(&f, &b->name, err, sizeof err), 0);                \
        msg_frame_free(&f);                                                                    \
        buf_init(&e1);                                                                         \
        buf_init(&e2);                                                                         \
        msg_##name##_encode(&e1, &b->name);                                                     \
        msg_##name##_encode(&e2, &c->name);                                                     \
        assert_int_equal(e1.len, e0.len);                                                      \
        assert_memory_equal(e1.data, e0.data, e0.len);                                         \
        assert_int_equal(e2.len, e0.len);                                                      \
        assert_memory_equal(e2.data, e0.data, e0.len);                                         \
        release(type, a);                                                                      \
        release(type, b);                                                                      \
        release(type, c);                                                                      \
        buf_free(&e0);                                                                         \
        buf_free(&e1);                                                                         \
        buf_free(&e2);                                                                         \
        rows++;                                                                                \
    } while (0);
    MSG_TABLE(MSG_CHECK)
#undef MSG_CHECK
    assert_int_equal(rows, 18);
    free(u);
}

/* A frame of one type given to another type's decoder: refused by name. */
static void test_msg_decode_wrong_type(void **state)
{
    struct msg_ping ping = { .seq = 1 };
    struct msg_pong pong;
    struct msg_coherence coh;
    struct pool_busy busy;
    struct msg_frame f;
    struct buf b;
    char err[256];
    size_t n;
    const char *p;

    (void)state;
    buf_init(&b);
    msg_ping_encode(&b, &ping);
    p = payload(&b, &n);
    assert_int_equal(msg_parse(p, n, &f, err, sizeof err), MSG_PING);
    assert_int_equal(msg_pong_decode(&f, &pong, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "pong: got a 'ping' message");
    assert_int_equal(msg_coherence_decode(&f, 0, &coh, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "coherence: got a 'ping' message");
    assert_int_equal(pool_busy_decode(&f, &busy, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "busy: got a 'ping' message");
    msg_frame_free(&f);
    msg_frame_free(&f);            /* idempotent */
    /* a failed parse leaves a frame the decoders refuse and free ignores */
    assert_int_equal(msg_parse("\x93\x01", 2, &f, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "message: truncated msgpack (a count exceeds the payload)");
    assert_int_equal(msg_ping_decode(&f, &ping, err, sizeof err), -EBADMSG);
    msg_frame_free(&f);
    buf_free(&b);
}

/* The modules with codecs of their own read the same one unpack; so does
 * the version check. */
static void test_msg_parse_once_for_every_reader(void **state)
{
    struct pool_submit sub = { 0 }, out;
    struct msg_coherence coh = { .phase = 1 }, back;
    struct msg_welcome w = { .version = PROTO_VERSION };
    char *argv[] = { "--x", NULL };
    struct msg_frame f;
    struct buf b;
    char err[256];
    uint32_t v = 0;
    size_t n;
    const char *p;

    (void)state;
    sub.argv = argv;
    sub.argc = 1;
    buf_init(&b);
    pool_submit_encode(&b, &sub);
    p = payload(&b, &n);
    unpacks = 0;
    assert_int_equal(msg_parse(p, n, &f, err, sizeof err), MSG_SUBMIT);
    assert_int_equal(pool_submit_decode(&f, &out, err, sizeof err), 0);
    assert_int_equal(unpacks, 1);
    assert_string_equal(out.argv[0], "--x");
    pool_submit_free(&out);
    msg_frame_free(&f);
    buf_free(&b);

    coh_set_init(&coh.set);
    buf_init(&b);
    msg_coherence_encode(&b, &coh);
    p = payload(&b, &n);
    unpacks = 0;
    assert_int_equal(msg_parse(p, n, &f, err, sizeof err), MSG_COHERENCE);
    assert_int_equal(msg_coherence_decode(&f, 4, &back, err, sizeof err), 0);
    assert_int_equal(unpacks, 1);
    assert_int_equal(back.phase, 1);
    coh_set_free(&back.set);
    msg_frame_free(&f);
    buf_free(&b);

    buf_init(&b);
    msg_welcome_encode(&b, &w);
    p = payload(&b, &n);
    unpacks = 0;
    assert_int_equal(msg_parse(p, n, &f, err, sizeof err), MSG_WELCOME);
    assert_int_equal(msg_version_peek(&f, &v, err, sizeof err), 0);
    assert_int_equal(v, PROTO_VERSION);
    assert_int_equal(msg_welcome_decode(&f, &w, err, sizeof err), 0);
    assert_int_equal(unpacks, 1);
    msg_frame_free(&f);
    buf_free(&b);
}

/* The coordinator's dispatch (run.c through run_feed_script): an agent's
 * welcome is checked for its version, typed and decoded from one unpack. */
static void test_run_dispatch_unpacks_once(void **state)
{
    static char *addrs[] = { "127.0.0.1:7001" };
    struct msg_welcome w = { .version = PROTO_VERSION, .ncpus = 2 };
    struct run_options opt = { .addrs = addrs, .naddrs = 1, .interval_ms = 1000,
                               .connect_timeout_ms = 10000, .agent_timeout_ms = 10000 };
    struct run_result r;
    struct plan plan;
    struct job_spec j;
    struct buf m, script;
    unsigned char hdr[3];
    char err[1024];

    (void)state;
    plan_init(&plan);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "r");
    j.size = 1 << 20;
    plan_add_job(&plan, &j);
    snprintf(w.host, sizeof w.host, "h");
    buf_init(&m);
    msg_welcome_encode(&m, &w);
    buf_init(&script);
    hdr[0] = 0;
    hdr[1] = (unsigned char)(m.len >> 8);
    hdr[2] = (unsigned char)m.len;
    buf_append(&script, hdr, sizeof hdr);
    buf_append(&script, m.data, m.len);
    unpacks = 0;
    (void)run_feed_script(&plan, &opt, (const unsigned char *)script.data, script.len, &r, err, sizeof err);
    assert_int_equal(unpacks, 1);
    result_free(&r);
    plan_free(&plan);
    buf_free(&m);
    buf_free(&script);
}

/* The agent's dispatch (session.c): a hello is checked for its version,
 * typed and decoded from one unpack. */
static unsigned sent;
static void on_send(void *arg, const char *p, size_t n)
{
    (void)arg;
    (void)p;
    (void)n;
    sent++;
}

static void test_session_dispatch_unpacks_once(void **state)
{
    struct msg_hello h = { .version = PROTO_VERSION };
    struct agent agent;
    uv_loop_t loop;
    struct session *s;
    struct buf b;

    (void)state;
    log_set_level(LOG_ERROR);
    memset(&agent, 0, sizeof agent);
    assert_int_equal(uv_loop_init(&loop), 0);
    agent.loop = &loop;
    agent.loop_thread = pthread_self();
    allow_list_init(&agent.allow);
    allow_list_init(&agent.allow_nfs);
    snprintf(agent.host, sizeof agent.host, "a");
    agent.lease_ns = 10 * 1000000000ull;
    agent.send_hook = on_send;
    s = session_open_detached(&agent, "127.0.0.1:40000");
    buf_init(&b);
    msg_hello_encode(&b, &h);
    unpacks = 0;
    sent = 0;
    session_feed(s, b.data, b.len);
    assert_int_equal(unpacks, 1);
    assert_int_equal(sent, 2);   /* the hello taken: its welcome, and (no secret) its system */
    session_close(s);
    for (int i = 0; i < 1000 && (agent.nsessions > 0 || uv_loop_alive(&loop)); i++)
        uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(agent.nsessions, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    allow_list_free(&agent.allow);
    allow_list_free(&agent.allow_nfs);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msg_table_every_row_round_trips),
        cmocka_unit_test(test_msg_decode_wrong_type),
        cmocka_unit_test(test_msg_parse_once_for_every_reader),
        cmocka_unit_test(test_run_dispatch_unpacks_once),
        cmocka_unit_test(test_session_dispatch_unpacks_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
