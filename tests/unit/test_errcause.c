/* test_errcause: failed ops by cause: counting, the cap of distinct causes
 * (the rest in other), merging, validation, the words, the wire form
 * (phase-done's "errors", hostile values refused) and the JSON form. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errcause.h"
#include "common/nfs_rpc.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/result/result_errors.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

#define NOSPC3 NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 28)

static void test_errcause_add_cap_and_other(void **state)
{
    struct errcause_set *s = malloc(sizeof *s);
    char err[160];
    (void)state;
    errcause_set_init(s);
    assert_true(errcause_empty(s));
    errcause_add(s, OP_READ, ERRC_SHORT_READ, 0, 8192, 0, "/d/f.dat", 1);
    errcause_add(s, OP_READ, ERRC_SHORT_READ, 0, 4096, 77, "/d/other", 4);   /* same cause: first kept */
    for (uint32_t e = 1; e <= 10; e++)                 /* 10 more errnos: 7 fit */
        errcause_add(s, OP_READ, ERRC_ERRNO, e, e * 4096, 0, "/d/f.dat", 2);
    assert_int_equal(s->op[OP_READ].n, ERRCAUSE_MAX);
    assert_int_equal(s->op[OP_READ].c[0].count, 5);
    assert_int_equal(s->op[OP_READ].c[0].offset, 8192);
    assert_int_equal(s->op[OP_READ].c[0].size, 0);
    assert_string_equal(s->op[OP_READ].c[0].file, "/d/f.dat");
    assert_int_equal(s->op[OP_READ].other, 6);          /* errnos 8, 9, 10 */
    assert_int_equal(errcause_failed(s, OP_READ), 5 + 7 * 2 + 6);
    assert_int_equal(errcause_check(s, err, sizeof err), 0);
    /* a file name may hold any byte: the set never carries a control byte */
    errcause_add(s, OP_WRITE, ERRC_ERRNO, EIO, 0, 0, "/d/a\nb\x7f", 1);
    assert_string_equal(s->op[OP_WRITE].c[0].file, "/d/a?b?");
    assert_int_equal(errcause_check(s, err, sizeof err), 0);
    free(s);
}

static void test_errcause_merge(void **state)
{
    struct errcause_set *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    (void)state;
    errcause_set_init(a);
    errcause_set_init(b);
    errcause_add(a, OP_WRITE, ERRC_ERRNO, ENOSPC, 65536, 0, "/a", 1);
    errcause_add(b, OP_WRITE, ERRC_ERRNO, ENOSPC, 4096, 0, "/b", 2);
    errcause_add(b, OP_WRITE, ERRC_NFS, NOSPC3, 0, 0, "/b", 3);
    for (uint32_t e = 1; e <= 8; e++)
        errcause_add(b, OP_UNLINK, ERRC_ERRNO, e, 0, 0, "/m", 1);
    errcause_add(a, OP_UNLINK, ERRC_ERRNO, 100, 0, 0, "/m", 1);
    b->op[OP_UNLINK].other = 5;
    errcause_merge(a, b);
    assert_int_equal(a->op[OP_WRITE].n, 2);
    assert_int_equal(a->op[OP_WRITE].c[0].count, 3);
    assert_int_equal(a->op[OP_WRITE].c[0].offset, 65536);     /* dst's first */
    assert_string_equal(a->op[OP_WRITE].c[0].file, "/a");
    assert_int_equal(a->op[OP_WRITE].c[1].kind, ERRC_NFS);
    assert_int_equal(a->op[OP_UNLINK].n, ERRCAUSE_MAX);
    assert_int_equal(a->op[OP_UNLINK].other, 1 + 5);          /* errno 8 and b's other */
    assert_int_equal(errcause_failed(a, OP_UNLINK), 1 + 8 + 5);
    free(a);
    free(b);
}

static void test_errcause_check_refuses(void **state)
{
    struct errcause_set *s = malloc(sizeof *s);
    char err[160];
    (void)state;
#define CASE(i, w, body) do { errcause_set_init(s); errcause_add(s, OP_READ, ERRC_ERRNO, EIO, 0, 0, "f", 1); \
        body; assert_int_equal(errcause_check(s, err, sizeof err), -EINVAL); \
        if (!strstr(err, w)) fail_msg("case %d: '%s' lacks '%s'", i, err, w); } while (0)
    CASE(0, "causes", s->op[OP_READ].n = ERRCAUSE_MAX + 1);
    CASE(1, "unknown kind", s->op[OP_READ].c[0].kind = ERRC__COUNT);
    CASE(2, "errno 0", s->op[OP_READ].c[0].code = 0);
    CASE(3, "errno 5000", s->op[OP_READ].c[0].code = 5000);
    CASE(4, "NFS status", (s->op[OP_READ].c[0].kind = ERRC_NFS, s->op[OP_READ].c[0].code = 9u << 16));
    CASE(5, "timeout with code", (s->op[OP_READ].c[0].kind = ERRC_TIMEOUT, s->op[OP_READ].c[0].code = 1));
    CASE(6, "file size", s->op[OP_READ].c[0].size = 5);
    CASE(7, "count 0", s->op[OP_READ].c[0].count = 0);
    CASE(8, "repeats", (s->op[OP_READ].c[1] = s->op[OP_READ].c[0], s->op[OP_READ].n = 2));
    CASE(9, "control byte", s->op[OP_READ].c[0].file[0] = '\n');
    CASE(10, "not terminated", memset(s->op[OP_READ].c[0].file, 'a', ERRCAUSE_PATH_MAX));
    CASE(11, "overflow", (errcause_add(s, OP_READ, ERRC_TIMEOUT, 0, 0, 0, "", 1),
                          s->op[OP_READ].c[1].count = UINT64_MAX));
#undef CASE
    free(s);
}

static void test_errcause_words(void **state)
{
    struct errcause c = { .kind = ERRC_SHORT_READ, .offset = 8192, .size = 0, .count = 1 };
    char buf[200];
    (void)state;
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "short read at offset 8192 (file is 0 bytes)");
    c.size = ERRCAUSE_SIZE_UNKNOWN;
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "short read at offset 8192 (file size unknown)");
    c = (struct errcause){ .kind = ERRC_ERRNO, .code = ENOSPC, .count = 3, .offset = 65536 };
    snprintf(c.file, sizeof c.file, "/d/f");
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "ENOSPC (No space left on device)");
    assert_string_equal(errcause_name(&c, buf, sizeof buf), "ENOSPC");
    result_errors_cause_line(&c, OP_WRITE, buf, sizeof buf);
    assert_string_equal(buf, "3 x ENOSPC (No space left on device), first at offset 65536 in /d/f");
    result_errors_cause_line(&c, OP_UNLINK, buf, sizeof buf);
    assert_string_equal(buf, "3 x ENOSPC (No space left on device), first on /d/f");
    c = (struct errcause){ .kind = ERRC_NFS, .code = NOSPC3, .count = 1 };
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "NFS3ERR_NOSPC");
    c = (struct errcause){ .kind = ERRC_TIMEOUT, .count = 1 };
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "completed after op_deadline");
    c = (struct errcause){ .kind = ERRC_CUT_OFF, .count = 1 };
    assert_string_equal(errcause_text(&c, buf, sizeof buf), "cut off: still outstanding when the job ended");
}

static void sample(struct errcause_set *s)
{
    errcause_set_init(s);
    errcause_add(s, OP_READ, ERRC_SHORT_READ, 0, 8192, 0, "/d/f.dat", 7);
    errcause_add(s, OP_WRITE, ERRC_NFS, NOSPC3, 1048576, 0, "small/f.0.0.0", 3);
    errcause_add(s, OP_WRITE, ERRC_CUT_OFF, 0, 4096, 0, "small/f.0.0.0", 1);
    errcause_add(s, OP_UNLINK, ERRC_ERRNO, ENOENT, 0, 0, "/m/x.0", 20);
    errcause_add(s, OP_READ, ERRC_TIMEOUT, 0, 12288, 0, "/d/f.dat", 2);
    s->op[OP_READ].c[0].size = ERRCAUSE_SIZE_UNKNOWN;
    s->op[OP_UNLINK].other = 4;
}

static void payload(const struct buf *b, const char **p, size_t *n)
{
    const unsigned char *h = (const unsigned char *)b->data;
    *n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
    *p = b->data + FRAME_HEADER_LEN;
}

static void test_errcause_wire_round_trip(void **state)
{
    struct msg_phase_done *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
    struct buf b;
    const char *p;
    size_t n;
    char err[256];
    (void)state;
    op_set_init(&in->totals);
    sample(&in->errors);
    buf_init(&b);
    msg_phase_done_encode(&b, in);
    payload(&b, &p, &n);
    if (DECODE(msg_phase_done_decode, p, n, out, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_memory_equal(&out->errors, &in->errors, sizeof in->errors);
    msg_phase_done_free(out);
    buf_free(&b);
    /* no failed op: no "errors" key, and it decodes empty */
    errcause_set_init(&in->errors);
    buf_init(&b);
    msg_phase_done_encode(&b, in);
    payload(&b, &p, &n);
    assert_null(memmem(p, n, "errors", 6));
    memset(&out->errors, 0xa5, sizeof out->errors);
    assert_int_equal(DECODE(msg_phase_done_decode, p, n, out, err, sizeof err), 0);
    assert_true(errcause_empty(&out->errors));
    msg_phase_done_free(out);
    buf_free(&b);
    free(in);
    free(out);
}

/* A phase-done whose "errors" value is built by hand: decode must refuse
 * it with err mentioning want. */
static void hostile(void (*build)(msgpack_packer *pk), const char *want)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    struct msg_phase_done *out = calloc(1, sizeof *out);
    char err[256] = "";
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 10);
#define K(s) msgpack_pack_str_with_body(&pk, s, strlen(s))
    K("type"); K("phase-done");
    K("phase"); msgpack_pack_uint32(&pk, 0);
    K("started_ns"); msgpack_pack_uint64(&pk, 1);
    K("duration_ns"); msgpack_pack_uint64(&pk, 1);
    K("cpu_user_s"); msgpack_pack_double(&pk, 0);
    K("cpu_sys_s"); msgpack_pack_double(&pk, 0);
    K("cores"); msgpack_pack_uint32(&pk, 1);
    K("nintervals"); msgpack_pack_uint32(&pk, 1);
    K("totals"); msgpack_pack_map(&pk, 0);
    K("errors"); build(&pk);
#undef K
    assert_int_equal(DECODE(msg_phase_done_decode, sb.data, sb.size, out, err, sizeof err), -EBADMSG);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
    msg_phase_done_free(out);
    free(out);
    msgpack_sbuffer_destroy(&sb);
}

static void pack_cause(msgpack_packer *pk, const char *kind, uint64_t code, uint64_t count)
{
    msgpack_pack_map(pk, 6);
    msgpack_pack_str_with_body(pk, "kind", 4);
    msgpack_pack_str_with_body(pk, kind, strlen(kind));
    msgpack_pack_str_with_body(pk, "code", 4);
    msgpack_pack_uint64(pk, code);
    msgpack_pack_str_with_body(pk, "count", 5);
    msgpack_pack_uint64(pk, count);
    msgpack_pack_str_with_body(pk, "offset", 6);
    msgpack_pack_uint64(pk, 0);
    msgpack_pack_str_with_body(pk, "size", 4);
    msgpack_pack_uint64(pk, 0);
    msgpack_pack_str_with_body(pk, "file", 4);
    msgpack_pack_str_with_body(pk, "f", 1);
}

static void read_with(msgpack_packer *pk, uint32_t ncauses, const char *kind, uint64_t code)
{
    msgpack_pack_map(pk, 1);
    msgpack_pack_str_with_body(pk, "read", 4);
    msgpack_pack_map(pk, 2);
    msgpack_pack_str_with_body(pk, "causes", 6);
    msgpack_pack_array(pk, ncauses);
    for (uint32_t i = 0; i < ncauses; i++)
        pack_cause(pk, kind, code + i, 1);
    msgpack_pack_str_with_body(pk, "other", 5);
    msgpack_pack_uint64(pk, 0);
}

static void b_nine(msgpack_packer *pk) { read_with(pk, ERRCAUSE_MAX + 1, "errno", 1); }
static void b_kind(msgpack_packer *pk) { read_with(pk, 1, "bogus", 1); }
static void b_errno(msgpack_packer *pk) { read_with(pk, 1, "errno", 99999); }
static void b_code(msgpack_packer *pk) { read_with(pk, 2, "timeout", 0); }   /* codes 0, 1: 1 is refused */
static void b_empty(msgpack_packer *pk) { read_with(pk, 0, "errno", 1); }
static void b_op(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    msgpack_pack_str_with_body(pk, "frobnicate", 10);
    msgpack_pack_map(pk, 0);
}
static void b_notmap(msgpack_packer *pk) { msgpack_pack_uint32(pk, 3); }

static void test_errcause_wire_hostile(void **state)
{
    (void)state;
    hostile(b_nine, "at most 8");
    hostile(b_kind, "not a cause");
    hostile(b_errno, "out of range");
    hostile(b_code, "timeout with code");
    hostile(b_empty, "no failed op");
    hostile(b_op, "not an op type");
    hostile(b_notmap, "not a map");
}

static void test_errcause_json_round_trip(void **state)
{
    struct errcause_set *s = malloc(sizeof *s), *back = malloc(sizeof *back);
    struct op_set *tot = malloc(sizeof *tot);
    char err[256];
    json_t *j;
    (void)state;
    sample(s);
    j = errors_json(s, NULL);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "unlink"), "failed")), 24);
    if (errors_from_json(j, back, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_memory_equal(back, s, sizeof *s);
    /* the counts must be the totals' errors */
    op_set_init(tot);
    tot->op[OP_READ].errors = 9;
    tot->op[OP_WRITE].errors = 4;
    tot->op[OP_UNLINK].errors = 24;
    assert_int_equal(result_errors_match(s, tot, err, sizeof err), 0);
    tot->op[OP_WRITE].errors = 5;
    assert_int_equal(result_errors_match(s, tot, err, sizeof err), -EINVAL);
    assert_string_equal(err, "its causes account for 4 of 5 failed write ops");
    /* a file that says otherwise is refused, naming the key */
    json_object_set_new(json_array_get(json_object_get(json_object_get(j, "write"), "causes"), 0), "name",
                        json_string("NFS3ERR_BOGUS"));
    assert_int_equal(errors_from_json(j, back, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "errors.write.causes[0]: \"name\" is not an NFS status"));
    json_decref(j);
    free(s);
    free(back);
    free(tot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errcause_add_cap_and_other),
        cmocka_unit_test(test_errcause_merge),
        cmocka_unit_test(test_errcause_check_refuses),
        cmocka_unit_test(test_errcause_words),
        cmocka_unit_test(test_errcause_wire_round_trip),
        cmocka_unit_test(test_errcause_wire_hostile),
        cmocka_unit_test(test_errcause_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
