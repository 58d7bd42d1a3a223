/* Unit tests for coordinator/agent_accept: the handshake and idle steps
 * gather.c and serve.c share.  Real codec, real HMAC, a real socket pair
 * for the hand-over. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <msgpack.h>
#include <uv.h>

#include "coordinator/fleet/agent_accept.h"
#include "net/listener.h"
#include "net/addr.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

static const struct agent_accept_role role = { "a pool", "pool", "nfstorm serve: " };

static void secret_of(struct auth_secret *s, const char *text)
{
    memset(s, 0, sizeof *s);
    s->len = strlen(text);
    memcpy(s->key, text, s->len);
}

/* A welcome answering cnonce, proved with secret (NULL: insecure). */
static void welcome_for(struct msg_welcome *w, const struct auth_secret *secret,
                        const unsigned char cnonce[AUTH_NONCE_LEN])
{
    memset(w, 0, sizeof *w);
    w->version = PROTO_VERSION;
    snprintf(w->host, sizeof w->host, "client\x01-7");
    memset(w->nonce, 0x42, sizeof w->nonce);
    snprintf(w->labels, sizeof w->labels, "rack1,gpu");
    w->auth = secret != NULL;
    if (secret)
        auth_proof(secret, AUTH_AGENT, cnonce, w->nonce, w->mac);
}


/* The frame handlers take a parsed frame: parse p (which may fail: the
 * handler then sees a frame without a root), call, free. */
static int idle_frame(int type, const char *p, size_t n, struct buf *kept, int *have_system, uint64_t now_ns,
                      struct buf *reply, char *why, size_t whylen)
{
    struct msg_frame f;
    char perr[256];
    int rc;

    msg_parse(p, n, &f, perr, sizeof perr);
    rc = agent_accept_idle_frame(type, &f, kept, have_system, now_ns, reply, why, whylen);
    msg_frame_free(&f);
    return rc;
}

static int other_version(const struct agent_accept_role *who, const char *p, size_t n, const char *addr,
                         char *line, size_t linelen, struct buf *out)
{
    struct msg_frame f;
    char perr[256];
    int rc;

    msg_parse(p, n, &f, perr, sizeof perr);
    rc = agent_accept_other_version(who, &f, addr, line, linelen, out);
    msg_frame_free(&f);
    return rc;
}

static void test_peer_same_ip(void **state)
{
    struct sockaddr_storage a, b, c, d;
    (void)state;

    assert_int_equal(addr_parse_listen("10.0.0.1:1", &a), 0);
    assert_int_equal(addr_parse_listen("10.0.0.1:2", &b), 0);
    assert_int_equal(addr_parse_listen("10.0.0.2:1", &c), 0);
    assert_int_equal(addr_parse_listen("[::1]:1", &d), 0);
    assert_int_equal(peer_same_ip(&a, &b), 1);
    assert_int_equal(peer_same_ip(&a, &c), 0);
    assert_int_equal(peer_same_ip(&a, &d), 0);
    assert_int_equal(peer_same_ip(&d, &d), 1);
}

static void test_agent_accept_welcome_checks(void **state)
{
    struct auth_secret secret, other;
    unsigned char cnonce[AUTH_NONCE_LEN];
    struct msg_welcome w;
    char why[MSG_TEXT_MAX];
    struct buf b;
    struct msg_auth am;
    char err[256];
    (void)state;

    secret_of(&secret, "the secret");
    secret_of(&other, "another secret");
    memset(cnonce, 0x17, sizeof cnonce);

    welcome_for(&w, NULL, cnonce);
    assert_int_equal(agent_accept_check_welcome(&secret, &role, cnonce, &w, why, sizeof why), -EACCES);
    assert_string_equal(why, "the agent does not authenticate (--insecure): a pool takes only agents "
                             "that prove the secret");

    welcome_for(&w, &other, cnonce);
    assert_int_equal(agent_accept_check_welcome(&secret, &role, cnonce, &w, why, sizeof why), -EACCES);
    assert_string_equal(why, "authentication failed: the agent's proof does not match the pool's secret");

    /* a proof for another hello's nonce does not do either */
    welcome_for(&w, &secret, cnonce);
    cnonce[0] ^= 1;
    assert_int_equal(agent_accept_check_welcome(&secret, &role, cnonce, &w, why, sizeof why), -EACCES);
    cnonce[0] ^= 1;

    welcome_for(&w, &secret, cnonce);
    snprintf(w.labels, sizeof w.labels, "ok,not ok");
    assert_int_equal(agent_accept_check_welcome(&secret, &role, cnonce, &w, why, sizeof why), -EACCES);
    assert_true(strncmp(why, "bad labels: ", 12) == 0);

    welcome_for(&w, &secret, cnonce);
    assert_int_equal(agent_accept_check_welcome(&secret, &role, cnonce, &w, why, sizeof why), 0);
    assert_string_equal(w.host, "client?-7");          /* cleaned for printing */

    /* our answer proves the secret to the agent, for this pair of nonces */
    buf_init(&b);
    agent_accept_auth_reply(&secret, cnonce, &w, &b);
    assert_true(b.len > FRAME_HEADER_LEN);
    assert_int_equal(DECODE(msg_auth_decode, b.data + FRAME_HEADER_LEN, b.len - FRAME_HEADER_LEN, &am, err, sizeof err), 0);
    assert_true(auth_check(&secret, AUTH_COORDINATOR, cnonce, w.nonce, am.mac));
    assert_false(auth_check(&secret, AUTH_AGENT, cnonce, w.nonce, am.mac));
    assert_false(auth_check(&other, AUTH_COORDINATOR, cnonce, w.nonce, am.mac));
    buf_free(&b);
}

static void test_agent_accept_idle_frames(void **state)
{
    struct buf frame, kept, reply;
    struct msg_system sys = { .mem_bytes = 1ull << 30 };
    struct msg_ping ping = { .seq = 9, .t_ns = 1234 };
    struct msg_pong pong;
    char why[256];
    int have_system = 0;
    (void)state;

    buf_init(&kept);
    buf_init(&reply);
    snprintf(sys.kernel, sizeof sys.kernel, "6.1.0");
    buf_init(&frame);
    msg_system_encode(&frame, &sys);
    /* the system frame is kept as it came, header and all, once */
    assert_int_equal(idle_frame(MSG_SYSTEM, frame.data + FRAME_HEADER_LEN,
                                             (uint32_t)(frame.len - FRAME_HEADER_LEN), &kept,
                                             &have_system, 5, &reply, why, sizeof why), 1);
    assert_int_equal(have_system, 1);
    assert_int_equal(kept.len, frame.len);
    assert_memory_equal(kept.data, frame.data, frame.len);
    assert_int_equal(reply.len, 0);
    assert_int_equal(idle_frame(MSG_SYSTEM, frame.data + FRAME_HEADER_LEN,
                                             (uint32_t)(frame.len - FRAME_HEADER_LEN), &kept,
                                             &have_system, 5, &reply, why, sizeof why), -EBADMSG);
    assert_string_equal(why, "sent system twice");
    assert_int_equal(kept.len, frame.len);
    buf_free(&frame);

    /* a ping is answered with its seq and time, and our clock */
    buf_init(&frame);
    msg_ping_encode(&frame, &ping);
    assert_int_equal(idle_frame(MSG_PING, frame.data + FRAME_HEADER_LEN,
                                             (uint32_t)(frame.len - FRAME_HEADER_LEN), &kept,
                                             &have_system, 777, &reply, why, sizeof why), 1);
    assert_int_equal(DECODE(msg_pong_decode, reply.data + FRAME_HEADER_LEN, reply.len - FRAME_HEADER_LEN, &pong, why, sizeof why), 0);
    assert_int_equal(pong.seq, 9);
    assert_int_equal(pong.t_ping_ns, 1234);
    assert_int_equal(pong.t_ns, 777);
    /* a frame that says ping but is not one: drop */
    assert_int_equal(idle_frame(MSG_PING, "\x81\xa1x\x01", 4, &kept, &have_system, 1,
                                             &reply, why, sizeof why), -EBADMSG);
    assert_true(why[0] != '\0');
    buf_free(&frame);

    /* a pong is taken; anything else is the caller's */
    assert_int_equal(idle_frame(MSG_PONG, "", 0, &kept, &have_system, 1, &reply, why,
                                             sizeof why), 1);
    assert_int_equal(idle_frame(MSG_ERROR, "", 0, &kept, &have_system, 1, &reply, why,
                                             sizeof why), 0);
    assert_int_equal(idle_frame(MSG_INTERVAL, "", 0, &kept, &have_system, 1, &reply, why,
                                             sizeof why), 0);
    buf_free(&kept);
    buf_free(&reply);
}

/* A later version's welcome, lacking what ours requires: refused naming
 * both versions, the error carrying ours; our own version's is not. */
static void test_agent_accept_other_version(void **state)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct msg_welcome w;
    struct msg_error e;
    struct buf out, ours;
    char line[MSG_TEXT_MAX], err[256];
    unsigned char cnonce[AUTH_NONCE_LEN] = { 0 };
    (void)state;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str_with_body(&pk, "type", 4);
    msgpack_pack_str_with_body(&pk, "welcome", 7);
    msgpack_pack_str_with_body(&pk, "version", 7);
    msgpack_pack_uint32(&pk, 99);
    msgpack_pack_str_with_body(&pk, "hostname", 8);
    msgpack_pack_str_with_body(&pk, "future", 6);
    buf_init(&out);
    assert_int_equal(other_version(&role, sb.data, (uint32_t)sb.size, "10.0.0.9:4000", line,
                                                sizeof line, &out), 1);
    snprintf(err, sizeof err, "agent 10.0.0.9:4000 speaks protocol 99, this pool %u: upgrade one of them",
             PROTO_VERSION);
    assert_string_equal(line, err);
    assert_int_equal(DECODE(msg_error_decode, out.data + FRAME_HEADER_LEN, out.len - FRAME_HEADER_LEN, &e, err, sizeof err), 0);
    assert_int_equal(e.version, PROTO_VERSION);
    snprintf(err, sizeof err, "protocol version mismatch: pool speaks %u, agent 99", PROTO_VERSION);
    assert_string_equal(e.text, err);
    buf_free(&out);
    msgpack_sbuffer_destroy(&sb);

    /* ours: not refused, nothing written; nor is garbage (no version) */
    welcome_for(&w, NULL, cnonce);
    buf_init(&ours);
    msg_welcome_encode(&ours, &w);
    buf_init(&out);
    assert_int_equal(other_version(&role, ours.data + FRAME_HEADER_LEN,
                                                (uint32_t)(ours.len - FRAME_HEADER_LEN), "a", line,
                                                sizeof line, &out), 0);
    assert_int_equal(other_version(&role, "\x93\x01", 2, "a", line, sizeof line, &out), 0);
    assert_int_equal(out.len, 0);
    buf_free(&ours);
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

/* The run gets its own socket to the agent and, in order, the kept system
 * frame and the bytes after the last whole frame. */
static void test_agent_accept_take(void **state)
{
    int sv[2];
    uv_loop_t loop;
    uv_tcp_t tcp;
    struct frame_reader rd;
    struct gather_agent src, dst;
    char got[8];
    (void)state;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_tcp_init(&loop, &tcp), 0);
    assert_int_equal(uv_tcp_open(&tcp, sv[0]), 0);

    memset(&src, 0, sizeof src);
    snprintf(src.addr, sizeof src.addr, "10.1.2.3:4567");
    snprintf(src.welcome.host, sizeof src.welcome.host, "client-9");
    buf_init(&src.rx);
    buf_append(&src.rx, "SYS", 3);
    frame_reader_init(&rd, FRAME_PREAUTH_MAX);
    buf_append(&rd.in, "xxTAIL", 6);
    rd.pos = 2;                       /* "xx" was a whole frame, parsed */

    memset(&dst, 0, sizeof dst);
    assert_int_equal(agent_accept_take(&tcp, &rd, &src, &dst), 0);
    assert_true(dst.fd >= 0 && dst.fd != sv[0]);
    assert_string_equal(dst.addr, "10.1.2.3:4567");
    assert_string_equal(dst.welcome.host, "client-9");
    assert_int_equal(dst.rx.len, 7);
    assert_memory_equal(dst.rx.data, "SYSTAIL", 7);

    /* the copy outlives the handle */
    uv_close((uv_handle_t *)&tcp, on_closed);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(write(dst.fd, "hi", 2), 2);
    assert_int_equal(read(sv[1], got, sizeof got), 2);
    assert_memory_equal(got, "hi", 2);

    close(dst.fd);
    close(sv[1]);
    buf_free(&dst.rx);
    buf_free(&src.rx);
    frame_reader_free(&rd);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peer_same_ip),
        cmocka_unit_test(test_agent_accept_welcome_checks),
        cmocka_unit_test(test_agent_accept_idle_frames),
        cmocka_unit_test(test_agent_accept_other_version),
        cmocka_unit_test(test_agent_accept_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
