/* Unit tests for net/conn: the frame loop (stop, cap, split input), the
 * heartbeat codec, and the write queue over a real socket pair (callbacks
 * counted, the loop closes clean). */
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

#include "net/conn.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

struct seen {
    int frames;
    int stop_after;
    uint32_t lens[8];
};

static int count_frame(void *arg, const char *p, uint32_t n)
{
    struct seen *s = arg;
    (void)p;
    if (s->frames < 8)
        s->lens[s->frames] = n;
    return ++s->frames == s->stop_after;
}

static void put(struct buf *b, uint32_t n)
{
    unsigned char hdr[FRAME_HEADER_LEN];
    frame_put_header(hdr, n);
    buf_append(b, hdr, sizeof hdr);
    for (uint32_t i = 0; i < n; i++)
        buf_append(b, "x", 1);
}

static void test_conn_feed_frames_all_and_split(void **state)
{
    struct frame_reader rd;
    struct seen s = { 0 };
    struct buf b;
    (void)state;
    buf_init(&b);
    put(&b, 3);
    put(&b, 0);
    put(&b, 10);
    frame_reader_init(&rd, 64);
    /* byte by byte: frames come out exactly when complete */
    for (size_t i = 0; i < b.len; i++)
        assert_int_equal(conn_feed_frames(&rd, b.data + i, 1, count_frame, &s), 0);
    assert_int_equal(s.frames, 3);
    assert_int_equal(s.lens[0], 3);
    assert_int_equal(s.lens[1], 0);
    assert_int_equal(s.lens[2], 10);
    frame_reader_free(&rd);
    buf_free(&b);
}

static void test_conn_feed_frames_stop_and_cap(void **state)
{
    struct frame_reader rd;
    struct seen s = { .stop_after = 1 };
    struct buf b;
    (void)state;
    buf_init(&b);
    put(&b, 1);
    put(&b, 2);
    put(&b, 65);          /* over the cap of 64 */
    frame_reader_init(&rd, 64);
    assert_int_equal(conn_feed_frames(&rd, b.data, b.len, count_frame, &s), 1);
    assert_int_equal(s.frames, 1);
    s.stop_after = 0;
    /* the rest: one more frame, then the oversized header */
    assert_int_equal(conn_feed_frames(&rd, NULL, 0, count_frame, &s), -EMSGSIZE);
    assert_int_equal(s.frames, 2);
    assert_int_equal(s.lens[1], 2);
    frame_reader_free(&rd);
    buf_free(&b);
}

static void test_conn_ping_pong(void **state)
{
    struct buf ping, pong;
    struct msg_pong po;
    char err[128];
    (void)state;
    buf_init(&ping);
    buf_init(&pong);
    conn_ping(&ping, 7, 1000);
    assert_int_equal(PONG(ping.data + FRAME_HEADER_LEN, (uint32_t)(ping.len - FRAME_HEADER_LEN), 5000, &pong, err, sizeof err), 0);
    assert_int_equal(DECODE(msg_pong_decode, pong.data + FRAME_HEADER_LEN, pong.len - FRAME_HEADER_LEN, &po, err, sizeof err), 0);
    assert_int_equal(po.seq, 7);
    assert_int_equal(po.t_ping_ns, 1000);
    assert_int_equal(po.t_ns, 5000);
    /* not a ping: refused, nothing appended */
    size_t had = pong.len;
    assert_int_equal(PONG(pong.data + FRAME_HEADER_LEN, (uint32_t)(pong.len - FRAME_HEADER_LEN), 1, &pong, err, sizeof err), -EBADMSG);
    assert_int_equal(pong.len, had);
    buf_free(&ping);
    buf_free(&pong);
}

static void on_pipe_closed(uv_handle_t *h)
{
    ++*(int *)h->data;
}

static void test_conn_write_delivers_and_frees(void **state)
{
    int sv[2], closed = 0;
    uv_loop_t loop;
    uv_pipe_t pipe;
    struct buf b;
    char got[64];
    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_pipe_init(&loop, &pipe, 0), 0);
    assert_int_equal(uv_pipe_open(&pipe, sv[0]), 0);
    pipe.data = &closed;
    for (int i = 0; i < 3; i++) {
        buf_init(&b);
        put(&b, 5);
        assert_int_equal(conn_write((uv_stream_t *)&pipe, &b), 0);
        assert_null(b.data);          /* ownership moved */
    }
    uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(read(sv[1], got, sizeof got), 3 * 9);
    uv_close((uv_handle_t *)&pipe, on_pipe_closed);
    /* a write to a closing stream is refused and its buffer freed */
    buf_init(&b);
    put(&b, 5);
    assert_true(conn_write((uv_stream_t *)&pipe, &b) < 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(closed, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conn_feed_frames_all_and_split),
        cmocka_unit_test(test_conn_feed_frames_stop_and_cap),
        cmocka_unit_test(test_conn_ping_pong),
        cmocka_unit_test(test_conn_write_delivers_and_frees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
