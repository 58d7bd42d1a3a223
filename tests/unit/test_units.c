/* test_units: values and errors of every parser and formatter. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "common/units.h"

#define KI UINT64_C(1024)

static void expect_size(const char *s, uint64_t want)
{
    uint64_t v = 0xdeadbeef;
    int rc = units_parse_size(s, &v);
    if (rc != 0)
        fail_msg("units_parse_size(\"%s\") = %d, want 0", s, rc);
    if (v != want)
        fail_msg("units_parse_size(\"%s\") gave %llu, want %llu", s,
                 (unsigned long long)v, (unsigned long long)want);
}

static void expect_size_err(const char *s, int want)
{
    uint64_t v = 0xdeadbeef;
    int rc = units_parse_size(s, &v);
    if (rc != want)
        fail_msg("units_parse_size(\"%s\") = %d, want %d", s ? s : "(null)", rc, want);
    assert_int_equal(v, 0xdeadbeef);   /* output untouched on error */
}

static void test_units_parse_size_values(void **state)
{
    (void)state;
    expect_size("0", 0);
    expect_size("1", 1);
    expect_size("4096", 4096);
    expect_size("18446744073709551615", UINT64_MAX);
    expect_size("1b", 1);
    expect_size("4k", 4 * KI);
    expect_size("4K", 4 * KI);
    expect_size("4kb", 4 * KI);
    expect_size("4KB", 4 * KI);
    expect_size("4kib", 4 * KI);
    expect_size("4KiB", 4 * KI);
    expect_size("4Ki", 4 * KI);
    expect_size("1Mi", KI * KI);
    expect_size("2gi", 2 * KI * KI * KI);
    expect_size("1m", KI * KI);
    expect_size("1MB", KI * KI);
    expect_size("1MiB", KI * KI);
    expect_size("2g", 2 * KI * KI * KI);
    expect_size("2GiB", 2 * KI * KI * KI);
    expect_size("3t", 3 * KI * KI * KI * KI);
    expect_size("3TB", 3 * KI * KI * KI * KI);
    expect_size("1p", KI * KI * KI * KI * KI);
    expect_size("1PiB", KI * KI * KI * KI * KI);
    expect_size("16383p", 16383 * KI * KI * KI * KI * KI);
    /* decimals that come out whole */
    expect_size("1.5k", 1536);
    expect_size("0.5k", 512);
    expect_size("1.25M", 1310720);
    expect_size("2.0", 2);
    expect_size("2.000g", 2 * KI * KI * KI);
    expect_size("0.0009765625k", 1);
}

static void test_units_parse_size_kb_base(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(units_parse_size_kb("4k", 1000, &v), 0);
    assert_int_equal(v, 4000);
    assert_int_equal(units_parse_size_kb("4Ki", 1000, &v), 0);
    assert_int_equal(v, 4000);
    assert_int_equal(units_parse_size_kb("4KiB", 1000, &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(units_parse_size_kb("1MB", 1000, &v), 0);
    assert_int_equal(v, 1000000);
    assert_int_equal(units_parse_size_kb("1.5g", 1000, &v), 0);
    assert_int_equal(v, 1500000000);
    assert_int_equal(units_parse_size_kb("4k", 1024, &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(units_parse_size_kb("4k", 1001, &v), -EINVAL);
}

/* Every suffix spelling in both bases, as fio 3.33 reads them (the two
 * tables units.c once held): kmgtp with "", "b", "i" or "ib", any case. */
static void test_units_parse_size_every_suffix(void **state)
{
    static const char *const tails[] = { "", "b", "i", "ib", "B", "I", "iB", "IB" };
    static const char letters[2][6] = { "kmgtp", "KMGTP" };
    (void)state;
    for (int p = 1; p <= 5; p++) {
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
            for (int upper = 0; upper < 2; upper++) {
                char s[8];
                uint64_t v = 0, bin = 1, dec = 1;
                int ib = tails[t][0] && (tails[t][1] == 'b' || tails[t][1] == 'B');
                for (int i = 0; i < p; i++) {
                    bin *= 1024;
                    dec *= 1000;
                }
                snprintf(s, sizeof s, "2%c%s", letters[upper][p - 1], tails[t]);
                assert_int_equal(units_parse_size_kb(s, 1024, &v), 0);
                assert_int_equal(v, 2 * bin);
                assert_int_equal(units_parse_size_kb(s, 1000, &v), 0);
                assert_int_equal(v, 2 * (ib ? bin : dec));
            }
        }
    }
    static const char *const bad[] = { "2bb", "2kbb", "2kibb", "2kx", "2x", "2ib", "2i", "2kk" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 0;
        assert_int_equal(units_parse_size_kb(bad[i], 1000, &v), -EINVAL);
        assert_int_equal(units_parse_size_kb(bad[i], 1024, &v), -EINVAL);
    }
}

static void test_units_parse_size_errors(void **state)
{
    (void)state;
    expect_size_err(NULL, -EINVAL);
    expect_size_err("", -EINVAL);
    expect_size_err("k", -EINVAL);
    expect_size_err("4q", -EINVAL);
    expect_size_err("-1", -EINVAL);
    expect_size_err("+1", -EINVAL);
    expect_size_err(" 4k", -EINVAL);
    expect_size_err("4k ", -EINVAL);
    expect_size_err("4 k", -EINVAL);
    expect_size_err("4kk", -EINVAL);
    expect_size_err("4ib", -EINVAL);
    expect_size_err("4kibb", -EINVAL);
    expect_size_err("0x10", -EINVAL);
    expect_size_err("1.", -EINVAL);
    expect_size_err(".5k", -EINVAL);
    expect_size_err("1.3k", -EINVAL);     /* 1331.2 bytes */
    expect_size_err("0.5", -EINVAL);      /* half a byte */
    expect_size_err("1.00000000000000000000000000001k", -EINVAL);
    /* overflow */
    expect_size_err("18446744073709551616", -ERANGE);
    expect_size_err("99999999999999999999999", -ERANGE);
    expect_size_err("16384p", -ERANGE);   /* 2^64 */
    expect_size_err("17179869184g", -ERANGE);
    /* a bad suffix wins over a big number */
    expect_size_err("99999999999999999999999q", -EINVAL);
}

static void expect_dur(const char *s, uint64_t unit, uint64_t want)
{
    uint64_t v = 0xdeadbeef;
    int rc = units_parse_duration(s, unit, &v);
    if (rc != 0)
        fail_msg("units_parse_duration(\"%s\") = %d, want 0", s, rc);
    if (v != want)
        fail_msg("units_parse_duration(\"%s\") gave %llu, want %llu", s,
                 (unsigned long long)v, (unsigned long long)want);
}

static void expect_dur_err(const char *s, uint64_t unit, int want)
{
    uint64_t v = 0xdeadbeef;
    int rc = units_parse_duration(s, unit, &v);
    if (rc != want)
        fail_msg("units_parse_duration(\"%s\") = %d, want %d", s ? s : "(null)", rc, want);
    assert_int_equal(v, 0xdeadbeef);
}

static void test_units_parse_duration_values(void **state)
{
    (void)state;
    expect_dur("0", NS_PER_SEC, 0);
    expect_dur("30", NS_PER_SEC, 30 * NS_PER_SEC);
    expect_dur("30", NS_PER_MS, 30 * NS_PER_MS);
    expect_dur("30", 1, 30);
    expect_dur("1.5", NS_PER_SEC, 1500 * NS_PER_MS);
    expect_dur("250ns", NS_PER_SEC, 250);
    expect_dur("250us", NS_PER_SEC, 250 * NS_PER_US);
    expect_dur("250usec", NS_PER_SEC, 250 * NS_PER_US);
    expect_dur("250ms", NS_PER_SEC, 250 * NS_PER_MS);
    expect_dur("250MS", NS_PER_SEC, 250 * NS_PER_MS);
    expect_dur("10s", NS_PER_MS, 10 * NS_PER_SEC);
    expect_dur("10sec", NS_PER_MS, 10 * NS_PER_SEC);
    expect_dur("2m", NS_PER_SEC, 120 * NS_PER_SEC);
    expect_dur("2min", NS_PER_SEC, 120 * NS_PER_SEC);
    expect_dur("1.5m", NS_PER_SEC, 90 * NS_PER_SEC);
    expect_dur("3h", NS_PER_SEC, 3 * 3600 * NS_PER_SEC);
    expect_dur("1d", NS_PER_SEC, 86400 * NS_PER_SEC);
    expect_dur("0.5ms", NS_PER_SEC, 500 * NS_PER_US);
    expect_dur("18446744073709551615ns", NS_PER_SEC, UINT64_MAX);
}

static void test_units_parse_duration_errors(void **state)
{
    (void)state;
    expect_dur_err(NULL, NS_PER_SEC, -EINVAL);
    expect_dur_err("", NS_PER_SEC, -EINVAL);
    expect_dur_err("s", NS_PER_SEC, -EINVAL);
    expect_dur_err("-1s", NS_PER_SEC, -EINVAL);
    expect_dur_err("10x", NS_PER_SEC, -EINVAL);
    expect_dur_err("10 s", NS_PER_SEC, -EINVAL);
    expect_dur_err("10ss", NS_PER_SEC, -EINVAL);
    expect_dur_err("1.5ns", NS_PER_SEC, -EINVAL);
    expect_dur_err("1.0000000001s", NS_PER_SEC, -EINVAL);
    expect_dur_err("10", 0, -EINVAL);
    expect_dur_err("18446744073709551616ns", NS_PER_SEC, -ERANGE);
    expect_dur_err("18446744074", NS_PER_SEC, -ERANGE);   /* > 2^64 ns */
    expect_dur_err("213504d", NS_PER_SEC, -ERANGE);
    expect_dur_err("307445734.6m", NS_PER_SEC, -ERANGE);  /* whole part fits, sum does not */
}

static void test_units_parse_u64(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(units_parse_u64("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(units_parse_u64("42", &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(units_parse_u64("18446744073709551615", &v), 0);
    assert_int_equal(v, UINT64_MAX);
    v = 7;
    assert_int_equal(units_parse_u64("18446744073709551616", &v), -EINVAL);
    assert_int_equal(units_parse_u64("", &v), -EINVAL);
    assert_int_equal(units_parse_u64(NULL, &v), -EINVAL);
    assert_int_equal(units_parse_u64("-1", &v), -EINVAL);
    assert_int_equal(units_parse_u64("+1", &v), -EINVAL);
    assert_int_equal(units_parse_u64("4k", &v), -EINVAL);
    assert_int_equal(units_parse_u64("1.0", &v), -EINVAL);
    assert_int_equal(units_parse_u64(" 1", &v), -EINVAL);
    assert_int_equal(v, 7);
}

static void test_units_parse_bool(void **state)
{
    (void)state;
    static const char *const t[] = { "1", "true", "TRUE", "yes", "Yes", "on", "ON", "" };
    static const char *const f[] = { "0", "false", "False", "no", "NO", "off", "Off" };
    static const char *const bad[] = { "2", "y", "n", "tru", "onn", " 1", "1 ", "-1", "enable" };
    int v;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        v = -7;
        assert_int_equal(units_parse_bool(t[i], &v), 0);
        assert_int_equal(v, 1);
    }
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        v = -7;
        assert_int_equal(units_parse_bool(f[i], &v), 0);
        assert_int_equal(v, 0);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = -7;
        assert_int_equal(units_parse_bool(bad[i], &v), -EINVAL);
        assert_int_equal(v, -7);
    }
    v = -7;
    assert_int_equal(units_parse_bool(NULL, &v), 0);    /* no value == empty */
    assert_int_equal(v, 1);
}

static void test_units_fmt_bytes_iec(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 0, 1024), "0B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1, 1024), "1B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 512, 1024), "512B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1000, 1024), "1000B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1023, 1024), "1023B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1024, 1024), "1KiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 4096, 1024), "4KiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1536, 1024), "1.5KiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1.5 * 1048576, 1024), "1.5MiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1.23456 * 1048576, 1024), "1.23MiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 12.3456 * 1048576, 1024), "12.3MiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 123.456 * 1048576, 1024), "123MiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1023.9 * 1024, 1024), "1MiB");   /* rounds up a unit */
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 10.0 * 1073741824, 1024), "10GiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 2.0 * 1099511627776.0, 1024), "2TiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1125899906842624.0, 1024), "1PiB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 0.5, 1024), "0.5B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), -4096, 1024), "-4KiB");
    /* anything but 1000 means IEC */
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 4096, 0), "4KiB");
}

static void test_units_fmt_bytes_si(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 999, 1000), "999B");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1000, 1000), "1kB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 4096, 1000), "4.1kB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 999999, 1000), "1MB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 1.5e9, 1000), "1.5GB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 2.5e12, 1000), "2.5TB");
    assert_string_equal(units_fmt_bytes(b, sizeof(b), 7e15, 1000), "7PB");
}

static void test_units_fmt_rate(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_rate(b, sizeof(b), 120.0 * 1048576, 1024), "120MiB/s");
    assert_string_equal(units_fmt_rate(b, sizeof(b), 125e6, 1000), "125MB/s");
    assert_string_equal(units_fmt_rate(b, sizeof(b), 0, 1024), "0B/s");
    assert_string_equal(units_fmt_rate(b, sizeof(b), 3.25 * 1073741824, 1024), "3.25GiB/s");
}

static void test_units_fmt_count(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_count(b, sizeof(b), 0), "0");
    assert_string_equal(units_fmt_count(b, sizeof(b), 7), "7");
    assert_string_equal(units_fmt_count(b, sizeof(b), 999), "999");
    assert_string_equal(units_fmt_count(b, sizeof(b), 1000), "1k");
    assert_string_equal(units_fmt_count(b, sizeof(b), 12345), "12.3k");
    assert_string_equal(units_fmt_count(b, sizeof(b), 999999), "1M");
    assert_string_equal(units_fmt_count(b, sizeof(b), 2.5e6), "2.5M");
    assert_string_equal(units_fmt_count(b, sizeof(b), 3e9), "3G");
    assert_string_equal(units_fmt_count(b, sizeof(b), 0.25), "0.25");
}

static void test_units_fmt_ns(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_ns(b, sizeof(b), 0), "0ns");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 999), "999ns");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 999.7), "1us");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 1000), "1us");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 812000), "812us");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 1200000), "1.2ms");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 1234567), "1.23ms");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 45.6e6), "45.6ms");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 1e9), "1s");
    assert_string_equal(units_fmt_ns(b, sizeof(b), 2.5e9), "2.5s");
    /* seconds is the largest unit */
    assert_string_equal(units_fmt_ns(b, sizeof(b), 3600e9), "3600s");
}

static void test_units_fmt_small_buffer(void **state)
{
    (void)state;
    char b[8] = "xxxxxxx";
    /* truncated, still terminated, never overrun */
    assert_string_equal(units_fmt_rate(b, 5, 120.0 * 1048576, 1024), "120M");
    assert_int_equal(b[5], 'x');
    /* zero length: buffer untouched, returned as is */
    assert_ptr_equal(units_fmt_ns(b, 0, 5), b);
    assert_string_equal(b, "120M");
    char big[32];
    assert_string_equal(units_fmt_ns(big, sizeof(big), NAN), "nanns");
}

/* Block sizes are exact in every unit base: never "4.1kB" nor "1.5KiB". */
static void test_units_fmt_block_size_exact(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 0), "0B");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 512), "512B");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 1000), "1000B");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 1024), "1KiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 1536), "1536B");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 4096), "4KiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 4097), "4097B");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 128 * 1024), "128KiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 1536 * 1024), "1536KiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), 32u << 20), "32MiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), UINT64_C(1) << 30), "1GiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), UINT64_C(1) << 62), "4EiB");
    assert_string_equal(units_fmt_block_size(b, sizeof(b), UINT64_MAX), "18446744073709551615B");
    assert_string_equal(units_fmt_block_size(b, 4, 4096), "4Ki");   /* truncated, terminated */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_parse_size_values),
        cmocka_unit_test(test_units_parse_size_errors),
        cmocka_unit_test(test_units_parse_size_kb_base),
        cmocka_unit_test(test_units_parse_size_every_suffix),
        cmocka_unit_test(test_units_parse_duration_values),
        cmocka_unit_test(test_units_parse_duration_errors),
        cmocka_unit_test(test_units_parse_u64),
        cmocka_unit_test(test_units_parse_bool),
        cmocka_unit_test(test_units_fmt_bytes_iec),
        cmocka_unit_test(test_units_fmt_bytes_si),
        cmocka_unit_test(test_units_fmt_rate),
        cmocka_unit_test(test_units_fmt_count),
        cmocka_unit_test(test_units_fmt_ns),
        cmocka_unit_test(test_units_fmt_small_buffer),
        cmocka_unit_test(test_units_fmt_block_size_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
