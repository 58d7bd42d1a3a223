/* test_hist_codec: the one histogram form (common/hist_codec.h) round-trips
 * exactly through its JSON and msgpack containers, and every hostile form is
 * refused by all of them with the same reason (one decoder, one set of
 * checks). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/hist_codec.h"
#include "coordinator/report/hist_json.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

/* splitmix64: deterministic */
static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* One histogram as the form carries it. */
struct form {
    uint64_t count, sum, min, max;
    size_t n;
    uint64_t b[HIST_CODEC_MAX_VALUES + 4];
};

static void form_of(const struct hist *h, struct form *f)
{
    struct hist_enc e;
    uint32_t n = hist_enc_begin(&e, h);

    f->count = h->count;
    f->sum = h->sum_ns;
    f->min = hist_enc_min(h);
    f->max = h->max_ns;
    f->n = 0;
    while (hist_enc_next(&e, &f->b[f->n]))
        f->n++;
    assert_int_equal(f->n, n);
    assert_true(f->n <= HIST_CODEC_MAX_VALUES);
}

/* Decode f directly; 0 or -EINVAL with why. */
static int dec_direct(const struct form *f, struct hist *h, char *why, size_t len)
{
    struct hist_dec d;
    int rc = hist_dec_begin(&d, h, f->count, f->sum, f->min, f->max, f->n);

    for (size_t i = 0; rc == 0 && i < f->n; i++)
        rc = hist_dec_value(&d, f->b[i]);
    if (rc == 0)
        rc = hist_dec_end(&d);
    snprintf(why, len, "%s", rc ? d.why : "");
    return rc;
}

/* Through the JSON container (jansson ints are signed: values above
 * INT64_MAX are not representable and not used here). */
static int dec_json(const struct form *f, struct hist *h, char *why, size_t len)
{
    json_t *b = json_array(), *o;
    int rc;

    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(b, json_integer((json_int_t)f->b[i]));
    o = json_pack("{sIsIsIsIso}", "count", (json_int_t)f->count, "sum", (json_int_t)f->sum,
                  "min", (json_int_t)f->min, "max", (json_int_t)f->max, "runs", b);
    assert_non_null(o);
    rc = hist_json_decode(o, h, why, len);
    json_decref(o);
    return rc;
}

static void pack_key(msgpack_packer *pk, const char *k)
{
    msgpack_pack_str(pk, strlen(k));
    msgpack_pack_str_body(pk, k, strlen(k));
}

/* Through the wire: an interval message whose read latency is f. */
static int dec_wire(const struct form *f, struct hist *h, char *why, size_t len)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct msg_interval *m = calloc(1, sizeof *m);
    char err[256] = "";
    const char *colon;
    int rc;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 6);
    pack_key(&pk, "type");
    pack_key(&pk, "interval");
    pack_key(&pk, "phase");
    msgpack_pack_uint32(&pk, 0);
    pack_key(&pk, "index");
    msgpack_pack_uint32(&pk, 0);
    pack_key(&pk, "inflight");
    msgpack_pack_uint32(&pk, 0);
    pack_key(&pk, "oldest_ns");
    msgpack_pack_uint64(&pk, 0);
    pack_key(&pk, "stats");
    msgpack_pack_map(&pk, 1);
    pack_key(&pk, "read");
    msgpack_pack_map(&pk, 4);
    pack_key(&pk, "ops");
    msgpack_pack_uint64(&pk, f->count ? f->count : 1);
    pack_key(&pk, "bytes");
    msgpack_pack_uint64(&pk, 0);
    pack_key(&pk, "errors");
    msgpack_pack_uint64(&pk, 0);
    pack_key(&pk, "lat");
    msgpack_pack_map(&pk, 5);
    pack_key(&pk, "count");
    msgpack_pack_uint64(&pk, f->count);
    pack_key(&pk, "sum");
    msgpack_pack_uint64(&pk, f->sum);
    pack_key(&pk, "min");
    msgpack_pack_uint64(&pk, f->min);
    pack_key(&pk, "max");
    msgpack_pack_uint64(&pk, f->max);
    pack_key(&pk, "runs");
    msgpack_pack_array(&pk, (uint32_t)f->n);
    for (size_t i = 0; i < f->n; i++)
        msgpack_pack_uint64(&pk, f->b[i]);
    rc = DECODE(msg_interval_decode, sb.data, sb.size, m, err, sizeof err);
    if (rc == 0)
        *h = m->stats.op[OP_READ].lat;
    /* "interval: stats.read.lat: <why>": the decoder's reason is the tail */
    colon = strstr(err, "lat: ");
    snprintf(why, len, "%s", rc ? (colon ? colon + 5 : err) : "");
    msgpack_sbuffer_destroy(&sb);
    free(m);
    return rc ? -EINVAL : 0;
}

typedef int (*decode_fn)(const struct form *, struct hist *, char *, size_t);
static const decode_fn decoders[] = { dec_direct, dec_json, dec_wire };
static const char *const decoder_name[] = { "direct", "json", "wire" };

static void test_hist_codec_round_trip_exact(void **state)
{
    uint64_t seed = 13;
    struct hist *h = malloc(sizeof *h), *back = malloc(sizeof *back);
    struct form *f = malloc(sizeof *f);
    char why[160];

    (void)state;
    for (int shape = 0; shape < 7; shape++) {
        hist_init(h);
        /* empty, one sample, a narrow and a wide spread, every bucket, the top
         * bucket, every other bucket */
        if (shape == 1)
            hist_record(h, 1234);
        for (int i = 0; shape == 2 && i < 10000; i++)
            hist_record(h, 100000 + rnd(&seed) % 5000);
        for (int i = 0; shape == 3 && i < 100000; i++)
            hist_record(h, (rnd(&seed) % HIST_MAX_NS) >> (rnd(&seed) % 44));
        for (unsigned i = 0; shape == 4 && i < HIST_NBUCKETS; i++)
            hist_record(h, hist_bucket_low(i));
        if (shape == 5)
            hist_record(h, HIST_MAX_NS * 3);
        for (unsigned i = 0; shape == 6 && i < HIST_NBUCKETS; i += 2)   /* the most runs */
            hist_record(h, hist_bucket_low(i));
        form_of(h, f);
        for (size_t d = 0; d < 3; d++) {
            memset(back, 0xa5, sizeof *back);
            if (decoders[d](f, back, why, sizeof why) != 0)
                fail_msg("shape %d via %s: refused: %s", shape, decoder_name[d], why);
            if (!hist_equal(h, back))
                fail_msg("shape %d via %s: not the same histogram", shape, decoder_name[d]);
        }
    }
    /* the JSON encoder writes exactly the form */
    {
        json_t *o;
        hist_init(h);
        hist_record(h, 5);
        hist_record(h, 5);
        hist_record(h, 1000);
        o = hist_json_encode(h);
        char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(s, "{\"count\":3,\"max\":1000,\"min\":5,\"runs\":[5,1,2,311,1,1],\"sum\":1010}");
        free(s);
        json_decref(o);
        hist_init(h);
        o = hist_json_encode(h);
        s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(s, "{\"count\":0,\"max\":0,\"min\":0,\"runs\":[],\"sum\":0}");
        free(s);
        json_decref(o);
    }
    free(h);
    free(back);
    free(f);
}

/* A valid form of 3 samples (5, 5, 1000), then one change that breaks it. */
static void valid(struct form *f)
{
    static const uint64_t runs[] = { 5, 1, 2, 311, 1, 1 };   /* 317: hist_bucket_of(1000) */

    memset(f, 0, sizeof *f);
    f->count = 3;
    f->sum = 1010;
    f->min = 5;
    f->max = 1000;
    f->n = 6;
    memcpy(f->b, runs, sizeof runs);
}

static void test_hist_codec_hostile_refused_alike(void **state)
{
    struct {
        const char *name, *why;
    } cases[] = {
        { "too many", "at most 3746 allowed" },
        { "start out of range", "a run starts 2496 buckets after bucket 0, past the last (2495)" },
        { "run past the end", "a run of 200 at bucket 2406 ends past the last bucket" },
        { "adjacent runs", "a run starts right where the previous one ended (bucket 6)" },
        { "length 0", "a run at bucket 5 has length 0" },
        { "zero count", "bucket 5 given with count 0" },
        { "overflow", "bucket counts overflow" },
        { "cut off", "'runs' ends inside a run" },
        { "sum", "bucket counts sum to 3, count is 4" },
        { "min above max", "min 2000 > max 1000" },
        { "min elsewhere", "min 6 is not in the first bucket" },
        { "max elsewhere", "max 999 is not in the last bucket" },
        { "empty with buckets", "bucket counts sum to 3, count is 0" },
    };
    struct hist *h = malloc(sizeof *h), empty;
    struct form *f = malloc(sizeof *f);
    char why[160];

    (void)state;
    hist_init(&empty);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        valid(f);
        switch (c) {
        case 0: f->n = HIST_CODEC_MAX_VALUES + 1; break;
        case 1: f->b[0] = HIST_NBUCKETS; break;
        case 2: f->b[3] = 2400; f->b[4] = 200; break;
        case 3: f->b[3] = 0; break;
        case 4: f->b[1] = 0; break;
        case 5: f->b[2] = 0; break;
        /* INT64_MAX three times (representable in JSON): the sum passes 2^64 */
        case 6: f->n = 5; f->b[1] = 3; f->b[2] = f->b[3] = f->b[4] = (uint64_t)INT64_MAX; f->max = 7; break;
        case 7: f->n = 5; break;
        case 8: f->count = 4; break;
        case 9: f->min = 2000; break;
        case 10: f->min = 6; break;
        case 11: f->max = 999; break;
        case 12: f->count = 0; break;
        }
        for (size_t d = 0; d < 3; d++) {
            int rc;

            if (c == 0 && d == 2)
                continue;   /* the wire caps the array before the decoder (get_array) */
            memset(why, 0, sizeof why);
            rc = decoders[d](f, h, why, sizeof why);
            if (rc != -EINVAL || !strstr(why, cases[c].why))
                fail_msg("%s via %s: rc %d, reason '%s', want '%s'", cases[c].name, decoder_name[d], rc,
                         why, cases[c].why);
            /* a refused histogram is left empty, never half filled */
            if (d != 2 && !hist_equal(h, &empty))
                fail_msg("%s via %s: histogram not left empty", cases[c].name, decoder_name[d]);
        }
    }
    free(h);
    free(f);
}

/* An empty histogram decodes to hist_init's form whatever min/sum/max say. */
static void test_hist_codec_empty_canonical(void **state)
{
    struct hist h, empty;
    struct form f = { .count = 0, .sum = 7, .min = 7, .max = 7, .n = 0 };
    char why[160];

    (void)state;
    hist_init(&empty);
    for (size_t d = 0; d < 2; d++) {
        assert_int_equal(decoders[d](&f, &h, why, sizeof why), 0);
        assert_true(hist_equal(&h, &empty));
    }
}

/* The JSON container's own refusals: not an object, keys missing or signed. */
static void test_hist_codec_json_types(void **state)
{
    static const char *const bad[][2] = {
        { "[]", "not an object" },
        { "{\"sum\":0,\"min\":0,\"max\":0,\"runs\":[]}", "'count' missing" },
        { "{\"count\":-1,\"sum\":0,\"min\":0,\"max\":0,\"runs\":[]}", "'count' is not an unsigned integer" },
        { "{\"count\":1,\"sum\":0,\"min\":0,\"max\":0}", "'runs' missing" },
        { "{\"count\":1,\"sum\":0,\"min\":0,\"max\":0,\"runs\":{}}", "'runs' is not an array" },
        { "{\"count\":1,\"sum\":0,\"min\":0,\"max\":0,\"runs\":[0,-1]}", "not an unsigned integer" },
        { "{\"count\":1,\"sum\":0,\"min\":0,\"max\":0,\"runs\":[0,1,1.5]}", "not an unsigned integer" },
        { "{\"count\":1,\"sum\":0,\"min\":0,\"max\":0,\"b\":[0,1]}", "'runs' missing" },
    };
    struct hist h;
    char why[160];

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *o = json_loads(bad[i][0], JSON_DECODE_ANY, NULL);
        assert_non_null(o);
        assert_int_equal(hist_json_decode(o, &h, why, sizeof why), -EINVAL);
        if (!strstr(why, bad[i][1]))
            fail_msg("%s: reason '%s', want '%s'", bad[i][0], why, bad[i][1]);
        json_decref(o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_codec_round_trip_exact),
        cmocka_unit_test(test_hist_codec_hostile_refused_alike),
        cmocka_unit_test(test_hist_codec_empty_canonical),
        cmocka_unit_test(test_hist_codec_json_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
