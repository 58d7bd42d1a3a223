/* Unit tests for net/peer: a frame split across reads, an oversized frame
 * refused with the owner's reason, one close however often it is asked
 * for, the write queue draining, the heartbeat codec and the token bucket.
 * Real sockets (a socketpair: one end is the peer's, the test writes and
 * reads the other); callbacks counted, the loop must close clean. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <uv.h>

#include "net/peer.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

struct owner {
    struct peer peer;             /* first: the callbacks get the owner */
    int frames, closes, frees, stop_after;
    uint32_t lens[8];
    int err;
    char why[128];
};

static int on_frame(struct peer *p, const char *pl, uint32_t n)
{
    struct owner *o = (struct owner *)p;
    (void)pl;
    if (o->frames < 8)
        o->lens[o->frames] = n;
    return ++o->frames == o->stop_after;
}

static void on_close(struct peer *p, const char *why)
{
    struct owner *o = (struct owner *)p;
    o->closes++;
    o->err = p->err;
    snprintf(o->why, sizeof o->why, "%s", why);
    peer_close(p, "again, from on_close");      /* does nothing */
}

static void on_free(struct peer *p)
{
    ((struct owner *)p)->frees++;
}

static const struct peer_ops ops = { .on_frame = on_frame, .on_close = on_close, .on_free = on_free };

static void put(struct buf *b, uint32_t n)
{
    unsigned char hdr[FRAME_HEADER_LEN];
    frame_put_header(hdr, n);
    buf_append(b, hdr, sizeof hdr);
    for (uint32_t i = 0; i < n; i++)
        buf_append(b, "x", 1);
}

/* A peer on one end of a socketpair; the other end in *other. */
static void open_pair(uv_loop_t *loop, struct owner *o, uint32_t cap, int *other)
{
    int sv[2];
    memset(o, 0, sizeof *o);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(uv_loop_init(loop), 0);
    peer_init(&o->peer, loop, &ops, cap);
    assert_int_equal(peer_open_fd(&o->peer, sv[0]), 0);
    *other = sv[1];
}

static void finish(uv_loop_t *loop, struct owner *o, int other)
{
    peer_close(&o->peer, "test over");
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(o->closes, 1);
    assert_int_equal(o->frees, 1);
    assert_int_equal(uv_loop_close(loop), 0);
    close(other);
}

static void test_peer_frame_split_across_reads(void **state)
{
    uv_loop_t loop;
    struct owner o;
    struct buf b;
    int other;
    (void)state;
    open_pair(&loop, &o, 64, &other);
    buf_init(&b);
    put(&b, 3);
    put(&b, 0);
    put(&b, 10);
    /* byte by byte, each byte its own read: frames come out exactly when complete */
    for (size_t i = 0; i < b.len; i++) {
        o.peer.last_rx_ns = 0;
        assert_int_equal(write(other, b.data + i, 1), 1);
        while (o.peer.last_rx_ns == 0)        /* until the peer read it */
            uv_run(&loop, UV_RUN_ONCE);
        assert_int_equal(o.frames, i + 1 < 7 ? 0 : i + 1 < 11 ? 1 : i + 1 < b.len ? 2 : 3);
    }
    assert_int_equal(o.lens[0], 3);
    assert_int_equal(o.lens[1], 0);
    assert_int_equal(o.lens[2], 10);
    assert_int_equal(o.closes, 0);
    assert_true(o.peer.last_rx_ns > 0);
    buf_free(&b);
    finish(&loop, &o, other);
    assert_int_equal(o.err, 0);
    assert_string_equal(o.why, "test over");
}

static void test_peer_oversized_frame_closes_with_reason(void **state)
{
    uv_loop_t loop;
    struct owner o;
    struct buf b;
    int other;
    (void)state;
    open_pair(&loop, &o, 64, &other);
    o.peer.why_big = "not one of ours (frame over the cap)";
    buf_init(&b);
    put(&b, 2);
    put(&b, 65);          /* over the cap of 64 */
    assert_int_equal(write(other, b.data, b.len), (ssize_t)b.len);
    while (!o.closes)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(o.frames, 1);            /* the frame before it was handled */
    assert_int_equal(o.err, -EMSGSIZE);
    assert_string_equal(o.why, "not one of ours (frame over the cap)");
    assert_true(o.peer.rd.in.len <= FRAME_HEADER_LEN + 6);   /* its payload never buffered */
    buf_free(&b);
    finish(&loop, &o, other);
}

static void test_peer_close_idempotent(void **state)
{
    uv_loop_t loop;
    struct owner o;
    struct buf b;
    int other;
    (void)state;
    open_pair(&loop, &o, 64, &other);
    close(other);                             /* EOF is on its way */
    peer_close(&o.peer, "first");
    peer_close(&o.peer, "second");
    buf_init(&b);
    put(&b, 5);
    peer_send(&o.peer, &b);                   /* closing: dropped and freed */
    assert_null(b.data);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(o.closes, 1);
    assert_int_equal(o.frees, 1);
    assert_string_equal(o.why, "first");
    assert_int_equal(o.err, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_peer_eof_closes_once(void **state)
{
    uv_loop_t loop;
    struct owner o;
    int other;
    (void)state;
    open_pair(&loop, &o, 64, &other);
    close(other);
    uv_run(&loop, UV_RUN_DEFAULT);            /* EOF closes it; the loop runs dry */
    assert_int_equal(o.closes, 1);
    assert_int_equal(o.err, UV_EOF);
    assert_string_equal(o.why, "connection closed");
    peer_close(&o.peer, "after the fact");
    assert_int_equal(o.closes, 1);
    assert_int_equal(o.frees, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_peer_write_queue_drains(void **state)
{
    uv_loop_t loop;
    struct owner o;
    struct buf b;
    char got[4096];
    size_t total = 0;
    int other;
    (void)state;
    open_pair(&loop, &o, 64, &other);
    for (int i = 0; i < 100; i++) {
        buf_init(&b);
        put(&b, 20);
        peer_send(&o.peer, &b);
        assert_null(b.data);                  /* ownership moved */
    }
    while (uv_stream_get_write_queue_size((uv_stream_t *)&o.peer.tcp) > 0)
        uv_run(&loop, UV_RUN_ONCE);
    uv_run(&loop, UV_RUN_NOWAIT);
    while (total < 100 * 24) {
        ssize_t n = read(other, got, sizeof got);
        assert_true(n > 0);
        for (ssize_t i = 0; i < n; i++)
            assert_int_equal(got[i], (total + (size_t)i) % 24 == 3 ? 20 : (total + (size_t)i) % 24 < 4 ? 0 : 'x');
        total += (size_t)n;
    }
    assert_int_equal(total, 100 * 24);
    finish(&loop, &o, other);
}

static void test_peer_detached_feeds_and_drops_sends(void **state)
{
    uv_loop_t loop;
    struct owner o;
    struct buf b;
    (void)state;
    memset(&o, 0, sizeof o);
    assert_int_equal(uv_loop_init(&loop), 0);
    peer_init(&o.peer, &loop, &ops, 64);
    buf_init(&b);
    put(&b, 7);
    peer_feed(&o.peer, b.data, b.len);
    assert_int_equal(o.frames, 1);
    assert_int_equal(o.lens[0], 7);
    char said[sizeof o.peer.first + 1];
    peer_first_said(&o.peer, said);
    assert_string_equal(said, "....xxxxxxx");
    peer_send(&o.peer, &b);                   /* never connected: dropped */
    assert_null(b.data);
    peer_close(&o.peer, "done");
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(o.closes, 1);
    assert_int_equal(o.frees, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_peer_ping_pong(void **state)
{
    struct buf ping, pong;
    struct msg_ping pi = { .seq = 7, .t_ns = 1000 };
    struct msg_pong po;
    char err[128];
    (void)state;
    buf_init(&ping);
    buf_init(&pong);
    msg_ping_encode(&ping, &pi);
    assert_int_equal(PONG(ping.data + FRAME_HEADER_LEN, ping.len - FRAME_HEADER_LEN, 5000, &pong, err,
                          sizeof err), 0);
    assert_int_equal(DECODE(msg_pong_decode, pong.data + FRAME_HEADER_LEN, pong.len - FRAME_HEADER_LEN, &po,
                            err, sizeof err), 0);
    assert_int_equal(po.seq, 7);
    assert_int_equal(po.t_ping_ns, 1000);
    assert_int_equal(po.t_ns, 5000);
    /* not a ping: refused, nothing appended */
    size_t had = pong.len;
    assert_int_equal(PONG(pong.data + FRAME_HEADER_LEN, pong.len - FRAME_HEADER_LEN, 1, &pong, err, sizeof err),
                     -EBADMSG);
    assert_int_equal(pong.len, had);
    buf_free(&ping);
    buf_free(&pong);
}

static void test_peer_token_bucket(void **state)
{
    struct peer p;
    uint64_t t = 1000000000ull;
    (void)state;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 5; i++)
        assert_int_equal(peer_take(&p, t, 2.0, 5.0), 1);    /* the burst */
    assert_int_equal(peer_take(&p, t, 2.0, 5.0), 0);        /* spent */
    assert_int_equal(peer_take(&p, t + 500000000ull, 2.0, 5.0), 1);   /* half a second: one more */
    assert_int_equal(peer_take(&p, t + 500000000ull, 2.0, 5.0), 0);
    assert_int_equal(peer_take(&p, t + 100000000000ull, 2.0, 5.0), 1);   /* refilled, capped at 5 */
    for (int i = 0; i < 4; i++)
        assert_int_equal(peer_take(&p, t + 100000000000ull, 2.0, 5.0), 1);
    assert_int_equal(peer_take(&p, t + 100000000000ull, 2.0, 5.0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peer_frame_split_across_reads),
        cmocka_unit_test(test_peer_oversized_frame_closes_with_reason),
        cmocka_unit_test(test_peer_close_idempotent),
        cmocka_unit_test(test_peer_eof_closes_once),
        cmocka_unit_test(test_peer_write_queue_drains),
        cmocka_unit_test(test_peer_detached_feeds_and_drops_sends),
        cmocka_unit_test(test_peer_ping_pong),
        cmocka_unit_test(test_peer_token_bucket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
