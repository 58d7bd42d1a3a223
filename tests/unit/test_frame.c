/* Unit tests for proto/frame: buffers, headers, and the incremental reader
 * (whole streams, byte-at-a-time streams, the size cap, many small frames). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/frame.h"

/* Append one frame whose payload is n bytes of (seed + i). */
static void put_frame(struct buf *b, uint32_t n, unsigned seed)
{
    unsigned char hdr[FRAME_HEADER_LEN];

    frame_put_header(hdr, n);
    buf_append(b, hdr, sizeof hdr);
    for (uint32_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)(seed + i);
        buf_append(b, &ch, 1);
    }
}

static void check_payload(const char *p, uint32_t n, unsigned seed)
{
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal((unsigned char)p[i], (unsigned char)(seed + i));
}

/* Sizes of the test stream's frames: empty, tiny, across a header, big. */
static const uint32_t sizes[] = { 0, 1, 3, 4, 5, 100, 0, 70000, 2, 1000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void make_stream(struct buf *b)
{
    buf_init(b);
    for (unsigned i = 0; i < NSIZES; i++)
        put_frame(b, sizes[i], i * 7);
}

static void test_frame_header_is_big_endian(void **state)
{
    unsigned char h[FRAME_HEADER_LEN];

    (void)state;
    frame_put_header(h, 0x01020304u);
    assert_int_equal(h[0], 1);
    assert_int_equal(h[1], 2);
    assert_int_equal(h[2], 3);
    assert_int_equal(h[3], 4);
    frame_put_header(h, 0xfffffffeu);
    assert_int_equal(h[0], 0xff);
    assert_int_equal(h[3], 0xfe);
}

static void test_buf_append_and_consume(void **state)
{
    struct buf b;

    (void)state;
    buf_init(&b);
    assert_int_equal(b.len, 0);
    buf_append(&b, "hello", 5);
    buf_append(&b, NULL, 0);
    for (int i = 0; i < 1000; i++)
        buf_append(&b, "x", 1);
    assert_int_equal(b.len, 1005);
    assert_memory_equal(b.data, "hellox", 6);
    buf_consume(&b, 3);
    assert_int_equal(b.len, 1002);
    assert_memory_equal(b.data, "loxx", 4);
    buf_consume(&b, 5000);
    assert_int_equal(b.len, 0);
    buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    buf_free(&b);              /* twice is harmless */
}

static void test_frame_reader_whole_stream(void **state)
{
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;

    (void)state;
    make_stream(&s);
    frame_reader_init(&r, FRAME_MAX_PAYLOAD);
    frame_reader_feed(&r, s.data, s.len);
    for (unsigned i = 0; i < NSIZES; i++) {
        assert_int_equal(frame_reader_next(&r, &p, &n), 1);
        assert_int_equal(n, sizes[i]);
        check_payload(p, n, i * 7);
    }
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    frame_reader_free(&r);
    buf_free(&s);
}

static void test_frame_reader_one_byte_at_a_time(void **state)
{
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;
    unsigned got = 0;

    (void)state;
    make_stream(&s);
    frame_reader_init(&r, FRAME_MAX_PAYLOAD);
    for (size_t i = 0; i < s.len; i++) {
        int rc;
        frame_reader_feed(&r, s.data + i, 1);
        while ((rc = frame_reader_next(&r, &p, &n)) == 1) {
            assert_true(got < NSIZES);
            assert_int_equal(n, sizes[got]);
            check_payload(p, n, got * 7);
            got++;
        }
        assert_int_equal(rc, 0);
    }
    assert_int_equal(got, NSIZES);
    frame_reader_free(&r);
    buf_free(&s);
}

/* Chunks of every size from 1 to 17: frames come out the same. */
static void test_frame_reader_odd_chunks(void **state)
{
    struct buf s;

    (void)state;
    make_stream(&s);
    for (size_t chunk = 1; chunk <= 17; chunk++) {
        struct frame_reader r;
        const char *p;
        uint32_t n;
        unsigned got = 0;

        frame_reader_init(&r, 0);     /* 0: the default cap */
        for (size_t i = 0; i < s.len; i += chunk) {
            frame_reader_feed(&r, s.data + i, i + chunk <= s.len ? chunk : s.len - i);
            while (frame_reader_next(&r, &p, &n) == 1) {
                assert_int_equal(n, sizes[got]);
                check_payload(p, n, got * 7);
                got++;
            }
        }
        assert_int_equal(got, NSIZES);
        frame_reader_free(&r);
    }
    buf_free(&s);
}

static void test_frame_reader_partial_header_needs_more(void **state)
{
    struct frame_reader r;
    const char *p;
    uint32_t n;
    unsigned char h[FRAME_HEADER_LEN];

    (void)state;
    frame_reader_init(&r, 100);
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    frame_put_header(h, 2);
    frame_reader_feed(&r, h, 3);
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    frame_reader_feed(&r, h + 3, 1);
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    frame_reader_feed(&r, "a", 1);
    assert_int_equal(frame_reader_next(&r, &p, &n), 0);
    frame_reader_feed(&r, "b", 1);
    assert_int_equal(frame_reader_next(&r, &p, &n), 1);
    assert_int_equal(n, 2);
    assert_memory_equal(p, "ab", 2);
    frame_reader_free(&r);
}

static void test_frame_reader_oversized_is_emsgsize(void **state)
{
    struct frame_reader r;
    const char *p;
    uint32_t n;
    unsigned char h[FRAME_HEADER_LEN];
    static char junk[65536];

    (void)state;
    frame_reader_init(&r, 1000);
    frame_put_header(h, 1001);
    frame_reader_feed(&r, h, sizeof h);
    assert_int_equal(frame_reader_next(&r, &p, &n), -EMSGSIZE);
    /* nothing more is buffered once the stream is known to be bad */
    frame_reader_feed(&r, junk, sizeof junk);
    assert_true(r.in.len <= FRAME_HEADER_LEN);
    assert_int_equal(frame_reader_next(&r, &p, &n), -EMSGSIZE);
    frame_reader_free(&r);

    /* header and a big payload in one feed: the payload is not kept */
    frame_reader_init(&r, FRAME_MAX_PAYLOAD);
    frame_put_header(h, FRAME_MAX_PAYLOAD + 1);
    {
        char *big = calloc(1, 1 << 20);
        memcpy(big, h, sizeof h);
        frame_reader_feed(&r, big, 1 << 20);
        free(big);
    }
    assert_true(r.in.len <= FRAME_HEADER_LEN);
    assert_int_equal(frame_reader_next(&r, &p, &n), -EMSGSIZE);
    frame_reader_free(&r);

    /* a huge declared length after a good frame */
    frame_reader_init(&r, 1000);
    {
        struct buf s;
        buf_init(&s);
        put_frame(&s, 10, 1);
        frame_put_header(h, 0xffffffffu);
        buf_append(&s, h, sizeof h);
        frame_reader_feed(&r, s.data, s.len);
        buf_free(&s);
    }
    assert_int_equal(frame_reader_next(&r, &p, &n), 1);
    assert_int_equal(n, 10);
    assert_int_equal(frame_reader_next(&r, &p, &n), -EMSGSIZE);
    frame_reader_free(&r);
}

static void test_frame_reader_exact_cap_is_accepted(void **state)
{
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;

    (void)state;
    buf_init(&s);
    put_frame(&s, 500, 3);
    frame_reader_init(&r, 500);
    frame_reader_feed(&r, s.data, s.len);
    assert_int_equal(frame_reader_next(&r, &p, &n), 1);
    assert_int_equal(n, 500);
    check_payload(p, n, 3);
    frame_reader_free(&r);
    buf_free(&s);
}

/* Before authentication the cap is FRAME_PREAUTH_MAX: one byte more is
 * refused on the header alone, with nothing of the payload buffered; after
 * frame_reader_set_max a frame of the full size comes through. */
static void test_frame_reader_preauth_cap_then_raised(void **state)
{
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;

    (void)state;
    buf_init(&s);
    put_frame(&s, FRAME_PREAUTH_MAX + 1, 5);
    frame_reader_init(&r, FRAME_PREAUTH_MAX);
    frame_reader_feed(&r, s.data, s.len);
    assert_int_equal(frame_reader_next(&r, &p, &n), -EMSGSIZE);
    assert_true(r.in.len <= FRAME_HEADER_LEN);
    frame_reader_free(&r);

    frame_reader_init(&r, FRAME_PREAUTH_MAX);
    put_frame(&s, 10, 6);                  /* s: the big frame, then a small one */
    frame_reader_set_max(&r, FRAME_PREAUTH_MAX);
    frame_reader_feed(&r, s.data + FRAME_HEADER_LEN + FRAME_PREAUTH_MAX + 1, FRAME_HEADER_LEN + 10);
    assert_int_equal(frame_reader_next(&r, &p, &n), 1);
    assert_int_equal(n, 10);
    frame_reader_set_max(&r, 0);           /* authenticated: the default cap */
    frame_reader_feed(&r, s.data, FRAME_HEADER_LEN + FRAME_PREAUTH_MAX + 1);
    assert_int_equal(frame_reader_next(&r, &p, &n), 1);
    assert_int_equal(n, FRAME_PREAUTH_MAX + 1);
    check_payload(p, n, 5);
    frame_reader_free(&r);
    buf_free(&s);
}

/* 200k tiny frames fed in 4 KiB reads: the buffer stays small (lazy
 * compaction happens) and every frame comes out in order.  A quadratic
 * memmove per frame would make this take minutes. */
static void test_frame_reader_many_small_frames(void **state)
{
    enum { NFRAMES = 200000 };
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;
    unsigned got = 0;

    (void)state;
    buf_init(&s);
    for (unsigned i = 0; i < NFRAMES; i++)
        put_frame(&s, 1 + i % 5, i);
    frame_reader_init(&r, FRAME_MAX_PAYLOAD);
    for (size_t off = 0; off < s.len; off += 4096) {
        frame_reader_feed(&r, s.data + off, s.len - off < 4096 ? s.len - off : 4096);
        while (frame_reader_next(&r, &p, &n) == 1) {
            assert_int_equal(n, 1 + got % 5);
            check_payload(p, n, got);
            got++;
        }
        assert_true(r.in.cap <= 4 * 4096);
    }
    assert_int_equal(got, NFRAMES);
    frame_reader_free(&r);
    buf_free(&s);
}

/* Many frames buffered at once, then drained: all come out. */
static void test_frame_reader_drain_after_bulk_feed(void **state)
{
    struct frame_reader r;
    struct buf s;
    const char *p;
    uint32_t n;
    unsigned got = 0;

    (void)state;
    buf_init(&s);
    for (unsigned i = 0; i < 50000; i++)
        put_frame(&s, i % 3, i);
    frame_reader_init(&r, 16);
    frame_reader_feed(&r, s.data, s.len / 2);
    frame_reader_feed(&r, s.data + s.len / 2, s.len - s.len / 2);
    while (frame_reader_next(&r, &p, &n) == 1) {
        assert_int_equal(n, got % 3);
        check_payload(p, n, got);
        got++;
    }
    assert_int_equal(got, 50000);
    frame_reader_free(&r);
    buf_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_header_is_big_endian),
        cmocka_unit_test(test_buf_append_and_consume),
        cmocka_unit_test(test_frame_reader_whole_stream),
        cmocka_unit_test(test_frame_reader_one_byte_at_a_time),
        cmocka_unit_test(test_frame_reader_odd_chunks),
        cmocka_unit_test(test_frame_reader_partial_header_needs_more),
        cmocka_unit_test(test_frame_reader_oversized_is_emsgsize),
        cmocka_unit_test(test_frame_reader_exact_cap_is_accepted),
        cmocka_unit_test(test_frame_reader_preauth_cap_then_raised),
        cmocka_unit_test(test_frame_reader_many_small_frames),
        cmocka_unit_test(test_frame_reader_drain_after_bulk_feed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
