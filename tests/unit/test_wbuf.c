/* test_wbuf: fio's buffer keys as the plan parser resolves them, and the
 * bytes each mode puts in a write buffer: unique per write by default,
 * zeros, compressible by the asked share, deduplicable by the asked share. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "common/wbuf.h"

#define BS 4096

/* the first job of a one-job plan whose section body is keys */
static struct job_spec parse_job(const char *keys)
{
    struct plan p;
    struct job_spec j;
    char text[512], err[512] = "";

    snprintf(text, sizeof text, "[j]\nrw=randwrite\nsize=1m\n%s", keys);
    if (plan_parse_string("t.fio", text, &p, err, sizeof err))
        fail_msg("parse failed: %s", err);
    j = p.phases[0].jobs[0];
    plan_free(&p);
    return j;
}

static void parse_refused(const char *keys, const char *want)
{
    struct plan p;
    char text[512], err[512] = "";

    snprintf(text, sizeof text, "[j]\nrw=randwrite\nsize=1m\n%s", keys);
    assert_int_not_equal(plan_parse_string("t.fio", text, &p, err, sizeof err), 0);
    if (!strstr(err, want))
        fail_msg("error '%s' does not say '%s'", err, want);
    plan_free(&p);
}

static void test_resolve(void **state)
{
    struct job_spec j;
    (void)state;

    j = parse_job("");
    assert_int_equal(j.buf_mode, WBUF_SCRAMBLE);            /* fio's default */
    assert_int_equal(parse_job("scramble_buffers=0\n").buf_mode, WBUF_FIXED);
    assert_int_equal(parse_job("refill_buffers\n").buf_mode, WBUF_REFILL);
    j = parse_job("zero_buffers=1\n");
    assert_int_equal(j.buf_mode, WBUF_FIXED);               /* zeros stay zeros */
    assert_int_equal(j.zero_buffers, 1);
    assert_int_equal(parse_job("zero_buffers=1\nscramble_buffers=1\n").buf_mode, WBUF_SCRAMBLE);
    assert_int_equal(parse_job("buffer_compress_percentage=40\n").buf_mode, WBUF_REFILL);
    assert_int_equal(parse_job("buffer_compress_percentage=40\nrefill_buffers=0\n").buf_mode,
                     WBUF_FIXED);                           /* compressing: no scramble */
    j = parse_job("buffer_compress_percentage=100\n");
    assert_int_equal(j.buffer_compress_percentage, 0);
    assert_int_equal(j.zero_buffers, 1);
    assert_int_equal(j.buf_mode, WBUF_FIXED);
    j = parse_job("dedupe_percentage=30\nrefill_buffers=0\n");
    assert_int_equal(j.buf_mode, WBUF_REFILL);              /* dedupe always refills */
    assert_int_equal(j.dedupe_percentage, 30);
    assert_int_equal(parse_job("buffer_pattern=0xab\n").buf_mode, WBUF_FIXED);
    assert_int_equal(parse_job("buffer_pattern=0xab\nrw=randrw\n").buf_mode, WBUF_REFILL);
    j = parse_job("buffer_pattern=0xab\nzero_buffers=1\n");
    assert_int_equal(j.zero_buffers, 0);                    /* the pattern wins */
    assert_int_equal(parse_job("buffer_compress_chunk=4k\n").buffer_compress_chunk, 4096);

    parse_refused("buffer_compress_percentage=101\n", "buffer_compress_percentage must be 0..100 (got 101)");
    parse_refused("dedupe_percentage=200\n", "dedupe_percentage must be 0..100 (got 200)");
    parse_refused("dedupe_mode=sometimes\n",
                  "t.fio:4: bad value for 'dedupe_mode': 'sometimes' (want repeat or working_set)");
    parse_refused("dedupe_mode=working_set\ndedupe_percentage=60\ndedupe_working_set_percentage=50\n",
                  "dedupe_percentage=60 cannot be reached with dedupe_working_set_percentage=50");
    parse_refused("dedupe_mode=working_set\ndedupe_percentage=10\nnrfiles=2\n",
                  "dedupe_mode=working_set works on one file per job (nrfiles=2)");
    parse_refused("dedupe_working_set_percentage=101\n",
                  "t.fio:4: bad value for 'dedupe_working_set_percentage': '101' (want 1 to 100 (percent))");
    parse_refused("dedupe_working_set_percentage=0\n",
                  "t.fio:4: bad value for 'dedupe_working_set_percentage': '0' (want 1 to 100 (percent))");
    parse_refused("buffer_compress_chunk=1\n", "buffer_compress_chunk must be at least 64 bytes (got 1)");
    j = parse_job("dedupe_mode=working_set\ndedupe_percentage=10\ndedupe_global=1\n");
    assert_int_equal(j.dedupe_mode, WBUF_DEDUPE_WORKING_SET);
    assert_int_equal(j.dedupe_global, 1);
    assert_int_equal(parse_job("dedupe_mode=repeat\ndedupe_percentage=5\n").dedupe_percentage, 5);
}

static void init_from(struct wbuf *w, const char *keys, uint64_t seed)
{
    struct job_spec j = parse_job(keys);
    wbuf_init(w, &j, seed);
}

static size_t zero_bytes(const unsigned char *b, size_t n)
{
    size_t z = 0;
    for (size_t i = 0; i < n; i++)
        z += b[i] == 0;
    return z;
}

static void test_scramble_makes_every_write_unique(void **state)
{
    static unsigned char a[BS], b[BS], c[BS];
    struct wbuf w;
    (void)state;

    init_from(&w, "", 7);
    wbuf_fill(&w, a, BS);
    assert_true(zero_bytes(a, BS) < 64);                    /* random, not zeros */
    memcpy(b, a, BS);
    wbuf_before_write(&w, b, BS, 8192);
    assert_memory_not_equal(a, b, BS);
    memcpy(c, b, BS);
    wbuf_before_write(&w, c, BS, 8192);                     /* the same offset again */
    assert_memory_not_equal(b, c, BS);
    /* every 512-byte sector of one write differs from every other */
    for (int i = 0; i < BS / 512; i++)
        for (int k = i + 1; k < BS / 512; k++)
            assert_memory_not_equal(c + i * 512, c + k * 512, 512);
    /* and only a few bytes per sector change: the data stays random */
    size_t changed = 0;
    for (int i = 0; i < BS; i++)
        changed += b[i] != c[i];
    assert_true(changed > 0 && changed <= (BS / 512) * 16);

    /* scramble_buffers=0: the same bytes every time */
    init_from(&w, "scramble_buffers=0\n", 7);
    wbuf_fill(&w, a, BS);
    memcpy(b, a, BS);
    wbuf_before_write(&w, b, BS, 8192);
    assert_memory_equal(a, b, BS);
}

static void test_zero_and_pattern(void **state)
{
    static unsigned char a[BS];
    struct wbuf w;
    (void)state;

    init_from(&w, "zero_buffers=1\n", 3);
    memset(a, 0x55, BS);
    wbuf_fill(&w, a, BS);
    wbuf_before_write(&w, a, BS, 0);
    assert_int_equal(zero_bytes(a, BS), BS);
    init_from(&w, "buffer_pattern='ab'\n", 3);
    wbuf_fill(&w, a, BS);
    wbuf_before_write(&w, a, BS, 0);
    for (int i = 0; i < BS; i++)
        assert_int_equal(a[i], i % 2 ? 'b' : 'a');
    /* a pattern whose length does not divide the buffer's, odd lengths */
    init_from(&w, "buffer_pattern='xyz'\n", 3);
    memset(a, 0, BS);
    wbuf_fill(&w, a, 1001);
    for (int i = 0; i < 1001; i++)
        assert_int_equal(a[i], "xyz"[i % 3]);
    assert_int_equal(a[1001], 0);
    /* dedupe's data is random whatever zero_buffers says (fio's too) */
    init_from(&w, "zero_buffers=1\ndedupe_percentage=50\n", 3);
    wbuf_fill(&w, a, BS);
    assert_true(zero_bytes(a, BS) < 64);
}

static void test_compress_percentage(void **state)
{
    static unsigned char a[BS], b[BS];
    struct wbuf w;
    (void)state;

    init_from(&w, "buffer_compress_percentage=75\n", 11);
    wbuf_fill(&w, a, BS);
    /* each 512-byte chunk: 128 random bytes, then 384 zeros */
    for (int c = 0; c < BS / 512; c++) {
        assert_true(zero_bytes(a + c * 512, 128) < 8);
        assert_int_equal(zero_bytes(a + c * 512 + 128, 384), 384);
    }
    /* no two chunks share their random bytes (a compressor would find them) */
    for (int c = 1; c < BS / 512; c++)
        assert_memory_not_equal(a, a + c * 512, 128);
    memcpy(b, a, BS);
    wbuf_before_write(&w, b, BS, 0);                        /* refilled: new random parts */
    assert_memory_not_equal(a, b, 128);
    for (int c = 0; c < BS / 512; c++)
        assert_int_equal(zero_bytes(b + c * 512 + 128, 384), 384);

    init_from(&w, "buffer_compress_percentage=50\nbuffer_compress_chunk=4k\n", 11);
    wbuf_fill(&w, a, BS);
    assert_int_equal(zero_bytes(a + BS / 2, BS / 2), BS / 2);
    assert_true(zero_bytes(a, BS / 2) < 32);
}

/* dedupe_percentage=N: about N% of writes are a repeat of the last unique
 * buffer, the rest unique */
static void test_dedupe_percentage(void **state)
{
    static unsigned char prev[BS], cur[BS];
    struct wbuf w;
    int repeats = 0, n = 2000;
    (void)state;

    init_from(&w, "dedupe_percentage=30\n", 5);
    wbuf_fill(&w, prev, BS);
    for (int i = 0; i < n; i++) {
        memcpy(cur, prev, BS);
        wbuf_before_write(&w, cur, BS, (uint64_t)i * BS);
        repeats += memcmp(cur, prev, BS) == 0;
        memcpy(prev, cur, BS);
    }
    assert_in_range(repeats, n * 25 / 100, n * 35 / 100);

    init_from(&w, "dedupe_percentage=100\n", 5);
    wbuf_fill(&w, prev, BS);
    for (int i = 0; i < 50; i++) {
        wbuf_before_write(&w, cur, BS, 0);
        assert_memory_equal(cur, prev, BS);
    }
    init_from(&w, "refill_buffers=1\n", 5);
    wbuf_fill(&w, prev, BS);
    for (int i = 0; i < 50; i++) {
        memcpy(cur, prev, BS);
        wbuf_before_write(&w, cur, BS, 0);
        assert_memory_not_equal(cur, prev, BS);
        memcpy(prev, cur, BS);
    }
}

/* Of 400 writes each by two jobs (seeds 1 and 2) with keys: how many of
 * the first's buffers the second also wrote. */
static int pages_in_common(const char *keys)
{
    static unsigned char b[BS];
    uint64_t h[2][400];
    struct wbuf w[2];
    int common = 0;

    for (int k = 0; k < 2; k++) {
        init_from(&w[k], keys, (uint64_t)k + 1);
        for (int i = 0; i < 400; i++) {
            wbuf_before_write(&w[k], b, BS, 0);
            memcpy(&h[k][i], b + 100, 8);     /* random bytes: a fingerprint */
        }
    }
    for (int i = 0; i < 400; i++)
        for (int k = 0; k < 400; k++)
            if (h[0][i] == h[1][k]) {
                common++;
                break;
            }
    return common;
}

/* dedupe_mode=working_set: deduplicable writes are pages of a set of
 * size * dedupe_working_set_percentage / bs pages, which the job's first
 * unique writes are; with dedupe_global two jobs share the set */
static void test_dedupe_working_set(void **state)
{
    static unsigned char b[BS];
    struct wbuf w;
    uint64_t h[4000];
    int n = 4000, repeats = 0;
    (void)state;

    /* 1m / 4k = 256 pages; 10% of them = 25 */
    init_from(&w, "dedupe_mode=working_set\ndedupe_percentage=40\ndedupe_working_set_percentage=10\n", 21);
    assert_int_equal(w.ws_pages, 25);
    for (int i = 0; i < n; i++) {
        wbuf_before_write(&w, b, BS, 0);
        memcpy(&h[i], b + 100, 8);            /* random bytes: a fingerprint */
    }
    /* the first 25 unique writes are the set; every dedupe write is one of
     * them, so a write repeats an earlier one at ~40% plus the set's own */
    for (int i = 25; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < 25 + 20 && !seen; k++)
            seen = h[i] == h[k];
        repeats += seen;
    }
    assert_in_range(repeats, (n - 25) * 34 / 100, (n - 25) * 46 / 100);

    /* two jobs (other seeds) with dedupe_global share pages; without, none */
    assert_true(pages_in_common("dedupe_mode=working_set\ndedupe_percentage=50\ndedupe_global=1\n") > 100);
    assert_int_equal(pages_in_common("dedupe_mode=working_set\ndedupe_percentage=50\n"), 0);
}

/* a laid-out file is never one chunk repeated, even with
 * scramble_buffers=0; zeros the plan asked for stay zeros */
static void test_layout_chunks_unique(void **state)
{
    static unsigned char a[BS], b[BS];
    struct wbuf w;
    (void)state;

    init_from(&w, "scramble_buffers=0\n", 9);
    wbuf_fill(&w, a, BS);
    memcpy(b, a, BS);
    wbuf_layout_chunk(&w, b, BS, 0);
    memcpy(a, b, BS);
    wbuf_layout_chunk(&w, b, BS, BS);
    assert_memory_not_equal(a, b, BS);
    init_from(&w, "zero_buffers=1\n", 9);
    wbuf_fill(&w, a, BS);
    wbuf_layout_chunk(&w, a, BS, BS);
    assert_int_equal(zero_bytes(a, BS), BS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_scramble_makes_every_write_unique),
        cmocka_unit_test(test_zero_and_pattern),
        cmocka_unit_test(test_compress_percentage),
        cmocka_unit_test(test_dedupe_percentage),
        cmocka_unit_test(test_layout_chunks_unique),
        cmocka_unit_test(test_dedupe_working_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
