/* test_vblock: every class of vblock_check on crafted units, the checksum
 * kinds, header placement (verify_offset) and the crc32c value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/vblock.h"

#define UNIT 4096

static const struct vblock_id id_a = {
    .file_id = 0x1111, .offset = 8192, .writer = 2, .job = 5, .gen = 77, .time_ns = 1000,
};

static void random_fill(unsigned char *b, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16);
    }
}

static struct vblock_expect expect_of(const struct vblock_id *id)
{
    struct vblock_expect e = { .file_id = id->file_id, .offset = id->offset, .writer = id->writer,
                               .gen = id->gen };
    return e;
}

static void make(struct vblock_ctx *c, unsigned char *b, const struct vblock_id *id, uint32_t seed)
{
    random_fill(b, UNIT, seed);
    vblock_fill(c, b, UNIT, id);
}

static void check_kind(enum vblock_csum csum, uint32_t hdr_off)
{
    struct vblock_ctx c;
    unsigned char a[UNIT], b[UNIT];
    struct vblock_id found, id_b = id_a;
    struct vblock_expect e = expect_of(&id_a);

    assert_int_equal(vblock_ctx_init(&c, csum, hdr_off, NULL, 0), 0);
    make(&c, a, &id_a, 1);
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_OK);
    assert_int_equal(found.writer, 2);
    assert_int_equal(found.job, 5);
    assert_int_equal(found.gen, 77);
    assert_int_equal(found.offset, 8192);
    assert_int_equal(found.time_ns, 1000);

    /* a byte flipped in the data (the header's own crc holds) */
    memcpy(b, a, UNIT);
    b[hdr_off ? 10 : 3000] ^= 0x40;
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found),
                     csum == VB_CSUM_META ? VB_OK : VB_CORRUPT);
    /* a byte flipped in the header */
    memcpy(b, a, UNIT);
    b[hdr_off + 40] ^= 1;
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_CORRUPT);
    /* a byte flipped in a sector stamp: corrupt, not torn */
    memcpy(b, a, UNIT);
    b[2 * 512 + 504 + 3] ^= 0x10;
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_CORRUPT);

    /* the same unit expected at another offset / in another file */
    e.offset = 0;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_WRONG_OFFSET);
    assert_int_equal(found.offset, 8192);
    e = expect_of(&id_a);
    e.file_id = 0x2222;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_WRONG_FILE);
    e = expect_of(&id_a);
    e.writer = 3;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_WRONG_WRITER);
    e.writer = VBLOCK_ANY_WRITER;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_OK);
    e = expect_of(&id_a);
    e.gen = 78;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_STALE);
    assert_int_equal(found.gen, 77);
    e.gen = VBLOCK_ANY_GEN;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_OK);
    e = expect_of(&id_a);

    /* torn: the header (and first half) of write A, the rest from write B
     * of the same offset (another generation, other data) */
    id_b.gen = 78;
    id_b.time_ns = 2000;
    make(&c, b, &id_b, 2);
    memcpy(b, a, UNIT / 2);
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_TORN);
    assert_int_equal(found.gen, 77);
    /* and the other way round: B's head, A's tail */
    make(&c, b, &id_b, 2);
    memcpy(b + UNIT / 2, a + UNIT / 2, UNIT / 2);
    e.gen = 78;
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_TORN);
    /* one sector in the middle from B: still torn */
    make(&c, b, &id_b, 2);
    memcpy(a + 1024, b + 1024, 512);
    e.gen = 77;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_TORN);

    /* zeroes: the whole unit, or a sector of it */
    memset(b, 0, UNIT);
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_ZEROES);
    assert_int_equal(found.writer, 0);
    make(&c, a, &id_a, 1);
    memset(a + 2048, 0, 512);
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_ZEROES);
    /* garbage that is not zero and has no header */
    random_fill(b, UNIT, 9);
    assert_int_equal(vblock_check(&c, b, UNIT, &e, &found), VB_CORRUPT);
    vblock_ctx_close(&c);
}

static void test_vblock_classes_crc32c(void **state) { (void)state; check_kind(VB_CSUM_CRC32C, 0); }
static void test_vblock_classes_md5(void **state) { (void)state; check_kind(VB_CSUM_MD5, 0); }
static void test_vblock_classes_sha256(void **state) { (void)state; check_kind(VB_CSUM_SHA256, 0); }
static void test_vblock_classes_meta(void **state) { (void)state; check_kind(VB_CSUM_META, 0); }
static void test_vblock_classes_verify_offset(void **state) { (void)state; check_kind(VB_CSUM_CRC32C, 600); }

static void test_vblock_kind_mismatch_is_corrupt(void **state)
{
    struct vblock_ctx c, d;
    unsigned char a[UNIT];
    struct vblock_id found;
    struct vblock_expect e = expect_of(&id_a);
    (void)state;
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_MD5, 0, NULL, 0), 0);
    assert_int_equal(vblock_ctx_init(&d, VB_CSUM_SHA256, 0, NULL, 0), 0);
    make(&c, a, &id_a, 4);
    assert_int_equal(vblock_check(&d, a, UNIT, &e, &found), VB_CORRUPT);
    /* a unit checked with another length than it was written with */
    assert_int_equal(vblock_check(&c, a, UNIT / 2, &e, &found), VB_CORRUPT);
    vblock_ctx_close(&c);
    vblock_ctx_close(&d);
}

static void test_vblock_pattern(void **state)
{
    struct vblock_ctx c;
    unsigned char a[1000];
    const unsigned char pat[3] = { 0xab, 0xcd, 0xef };
    struct vblock_id found;
    struct vblock_expect e = expect_of(&id_a);
    (void)state;
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_PATTERN, 0, NULL, 0), -22);
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_OFF, 0, NULL, 0), -22);
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_PATTERN, 0, pat, 3), 0);
    memset(a, 0x55, sizeof a);
    vblock_fill(&c, a, sizeof a, &id_a);
    assert_int_equal(a[0], 0xab);
    assert_int_equal(a[997], 0xcd);
    assert_int_equal(a[998], 0xef);
    assert_int_equal(a[999], 0xab);
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_OK);
    a[500] ^= 1;
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_CORRUPT);
    memset(a, 0, sizeof a);
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_ZEROES);
    vblock_ctx_close(&c);
}

static void test_vblock_null_inspects_nothing(void **state)
{
    struct vblock_ctx c;
    unsigned char a[512];
    struct vblock_id found;
    struct vblock_expect e = expect_of(&id_a);
    (void)state;
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_NULL, 0, NULL, 0), 0);
    memset(a, 0x33, sizeof a);
    vblock_fill(&c, a, sizeof a, &id_a);
    assert_int_equal(a[0], 0x33);
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_OK);
    vblock_ctx_close(&c);
}

static void test_vblock_small_units(void **state)
{
    struct vblock_ctx c;
    unsigned char a[VBLOCK_MIN_UNIT + 8];
    struct vblock_id found;
    struct vblock_expect e = expect_of(&id_a);
    (void)state;
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_CRC32C, 0, NULL, 0), 0);
    assert_false(vblock_unit_fits(&c, VBLOCK_MIN_UNIT - 1));
    assert_true(vblock_unit_fits(&c, VBLOCK_MIN_UNIT));
    random_fill(a, sizeof a, 3);
    vblock_fill(&c, a, sizeof a, &id_a);    /* no sector stamp fits: header and sum only */
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_OK);
    a[sizeof a - 1] ^= 0x80;
    assert_int_equal(vblock_check(&c, a, sizeof a, &e, &found), VB_CORRUPT);
    assert_int_equal(vblock_check(&c, a, 64, &e, &found), VB_CORRUPT);
    vblock_ctx_close(&c);
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_CRC32C, 4096, NULL, 0), 0);
    assert_false(vblock_unit_fits(&c, 4096));
    assert_true(vblock_unit_fits(&c, 4096 + VBLOCK_HDR_LEN));
    vblock_ctx_close(&c);
}

static void test_vblock_names_ids_crc(void **state)
{
    (void)state;
    assert_int_equal(vblock_csum_from_name("crc32c"), VB_CSUM_CRC32C);
    assert_int_equal(vblock_csum_from_name("crc32c-intel"), VB_CSUM_CRC32C);
    assert_int_equal(vblock_csum_from_name("sha256"), VB_CSUM_SHA256);
    assert_int_equal(vblock_csum_from_name("md5"), VB_CSUM_MD5);
    assert_int_equal(vblock_csum_from_name("meta"), VB_CSUM_META);
    assert_int_equal(vblock_csum_from_name("pattern"), VB_CSUM_PATTERN);
    assert_int_equal(vblock_csum_from_name("null"), VB_CSUM_NULL);
    assert_int_equal(vblock_csum_from_name("sha1"), -1);
    assert_int_equal(vblock_csum_from_name("off"), -1);
    assert_string_equal(vblock_csum_name(VB_CSUM_OFF), "off");
    assert_string_equal(vblock_kind_name(VB_TORN), "torn");
    assert_string_equal(vblock_kind_name(VB_STALE), "stale_generation");
    assert_int_equal(vblock_kind_from_name("zeroes"), VB_ZEROES);
    assert_null(vblock_kind_name(VB__COUNT));
    assert_int_equal(vblock_crc32c(0, "123456789", 9), 0xe3069283u);
    /* the 3-way sum of long runs equals the byte-wise sum of the parts */
    {
        static unsigned char big[9000];
        random_fill(big, sizeof big, 77);
        for (size_t n = 700; n < sizeof big; n += 997) {
            uint32_t whole = vblock_crc32c(0, big, n), parts = 0;
            for (size_t at = 0; at < n; at += 500)      /* pieces below the 3-way threshold */
                parts = vblock_crc32c(parts, big + at, n - at < 500 ? n - at : 500);
            assert_int_equal(whole, parts);
        }
    }
    /* continuing a crc equals one pass */
    assert_int_equal(vblock_crc32c(vblock_crc32c(0, "12345", 5), "6789", 4), 0xe3069283u);
    assert_int_equal(vblock_file_id("a"), 0xaf63dc4c8601ec8cull);   /* FNV-1a 64 */
    assert_true(vblock_file_id("/d/f.0") != vblock_file_id("/d/f.1"));
    {
        const uint64_t ms = 1764600000000ull;      /* 2025-12 */
        assert_true(vblock_generation(ms + 1, 1, 0) > vblock_generation(ms, 255, 255));
        assert_true(vblock_generation(ms, 2, 0) > vblock_generation(ms, 1, 2));
        assert_int_equal(vblock_generation(1704067200000ull + 1, 2, 3), (1ull << 20) | (2 << 8) | 3);
        assert_int_equal(vblock_generation(5, 0, 1), 1);        /* before 2024: as 2024 */
        assert_true(vblock_generation(ms, 4095, 255) < (1ull << 63));
    }
}

/* Every byte of the header counts, for every kind with a header (meta
 * sums no data: bytes 68..112 were once unchecked). */
static void test_vblock_every_header_byte_checked(void **state)
{
    static const enum vblock_csum kinds[] = { VB_CSUM_META, VB_CSUM_CRC32C, VB_CSUM_MD5, VB_CSUM_SHA256 };
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        struct vblock_ctx c;
        unsigned char a[UNIT], b[UNIT];
        struct vblock_id found, id = id_a;
        struct vblock_expect e = expect_of(&id_a);
        id.run = 0x0123456789abcdefull;
        assert_int_equal(vblock_ctx_init(&c, kinds[k], 0, NULL, 0), 0);
        make(&c, a, &id, 3);
        assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_OK);
        assert_true(found.run == id.run);
        for (unsigned i = 0; i < VBLOCK_HDR_LEN; i++) {
            memcpy(b, a, UNIT);
            b[i] ^= 0x01;
            if (vblock_check(&c, b, UNIT, &e, &found) == VB_OK)
                fail_msg("verify=%s: header byte %u flipped and the unit still checks ok",
                         vblock_csum_name(kinds[k]), i);
        }
        vblock_ctx_close(&c);
    }
}

/* A reader of an earlier phase's writes: another run, or an older
 * generation, is stale; the run and the generation floor each alone. */
static void test_vblock_run_and_min_gen(void **state)
{
    struct vblock_ctx c;
    unsigned char a[UNIT];
    struct vblock_id found, id = id_a;
    struct vblock_expect e = expect_of(&id_a);
    uint64_t run = 0;
    char txt[17];
    (void)state;
    id.run = 42;
    assert_int_equal(vblock_ctx_init(&c, VB_CSUM_CRC32C, 0, NULL, 0), 0);
    make(&c, a, &id, 4);
    e.gen = VBLOCK_ANY_GEN;
    e.run = 42;
    e.min_gen = 77;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_OK);
    e.run = 43;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_STALE);
    assert_true(found.run == 42);
    e.run = 0;
    e.min_gen = 78;
    assert_int_equal(vblock_check(&c, a, UNIT, &e, &found), VB_STALE);
    vblock_ctx_close(&c);

    vblock_run_format(0x00ab00cd00ef0012ull, txt);
    assert_string_equal(txt, "00ab00cd00ef0012");
    assert_int_equal(vblock_run_parse("00AB00cd00ef0012", &run), 0);
    assert_true(run == 0x00ab00cd00ef0012ull);
    assert_int_equal(vblock_run_parse("00ab00cd00ef001", &run), -EINVAL);
    assert_int_equal(vblock_run_parse("00ab00cd00ef00123", &run), -EINVAL);
    assert_int_equal(vblock_run_parse("00ab00cd00ef001g", &run), -EINVAL);
    assert_int_equal(vblock_run_parse("0000000000000000", &run), -EINVAL);
    assert_true(vblock_run_new() != 0 && vblock_run_new() != vblock_run_new());
    /* the generation's clock comes back to the ms */
    assert_true(vblock_generation_ms(vblock_generation(1764748800123ull, 3, 1)) == 1764748800123ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vblock_classes_crc32c),
        cmocka_unit_test(test_vblock_classes_md5),
        cmocka_unit_test(test_vblock_classes_sha256),
        cmocka_unit_test(test_vblock_classes_meta),
        cmocka_unit_test(test_vblock_classes_verify_offset),
        cmocka_unit_test(test_vblock_kind_mismatch_is_corrupt),
        cmocka_unit_test(test_vblock_pattern),
        cmocka_unit_test(test_vblock_null_inspects_nothing),
        cmocka_unit_test(test_vblock_small_units),
        cmocka_unit_test(test_vblock_names_ids_crc),
        cmocka_unit_test(test_vblock_every_header_byte_checked),
        cmocka_unit_test(test_vblock_run_and_min_gen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
