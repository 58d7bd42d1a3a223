/* test_vstats: counting, the first-offender cap, merging and validation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/vstats.h"

static void test_vstats_add_and_cap(void **state)
{
    struct vstats v;
    struct vstats_bad b = { .offset = 4096, .found_writer = 3 };
    char err[128];
    (void)state;
    vstats_init(&v);
    snprintf(b.file, sizeof b.file, "/d/f");
    vstats_add(&v, VB_OK, NULL);
    for (int i = 0; i < 20; i++) {
        b.offset = (uint64_t)i * 4096;
        vstats_add(&v, i % 2 ? VB_TORN : VB_ZEROES, &b);
    }
    assert_int_equal(v.checked, 21);
    assert_int_equal(v.count[VB_OK], 1);
    assert_int_equal(v.count[VB_TORN], 10);
    assert_int_equal(v.count[VB_ZEROES], 10);
    assert_int_equal(vstats_bad_total(&v), 20);
    assert_int_equal(v.nfirst, VSTATS_FIRST_MAX);
    assert_int_equal(v.first[0].kind, VB_ZEROES);
    assert_int_equal(v.first[1].kind, VB_TORN);
    assert_int_equal(v.first[1].offset, 4096);
    assert_string_equal(v.first[15].file, "/d/f");
    assert_int_equal(vstats_check(&v, err, sizeof err), 0);
}

static void test_vstats_merge(void **state)
{
    struct vstats a, b;
    struct vstats_bad x = { .offset = 1 };
    (void)state;
    vstats_init(&a);
    vstats_init(&b);
    b.on = 1;
    for (int i = 0; i < 10; i++)
        vstats_add(&a, VB_CORRUPT, &x);
    x.offset = 2;
    for (int i = 0; i < 10; i++)
        vstats_add(&b, VB_STALE, &x);
    vstats_add(&b, VB_OK, NULL);
    vstats_merge(&a, &b);
    assert_int_equal(a.on, 1);
    assert_int_equal(a.checked, 21);
    assert_int_equal(a.count[VB_CORRUPT], 10);
    assert_int_equal(a.count[VB_STALE], 10);
    assert_int_equal(a.nfirst, 16);
    assert_int_equal(a.first[9].offset, 1);
    assert_int_equal(a.first[10].offset, 2);
    assert_int_equal(a.first[10].kind, VB_STALE);
}

static void test_vstats_check_rejects(void **state)
{
    struct vstats v;
    char err[128];
    (void)state;
    vstats_init(&v);
    v.checked = 2;
    v.count[VB_OK] = 1;
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "checked=2"));
    v.count[VB_OK] = 2;
    assert_int_equal(vstats_check(&v, err, sizeof err), 0);
    v.nfirst = 1;                       /* an offender without a bad count */
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    v.count[VB_OK] = 1;
    v.count[VB_TORN] = 1;
    v.first[0].kind = VB_TORN;
    assert_int_equal(vstats_check(&v, err, sizeof err), 0);
    v.first[0].kind = VB_OK;
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    v.first[0].kind = VB__COUNT;
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    v.first[0].kind = VB_TORN;
    memset(v.first[0].file, 'x', sizeof v.first[0].file);
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    memset(v.first[0].file, 0, sizeof v.first[0].file);
    v.nfirst = VSTATS_FIRST_MAX + 1;
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
    v.nfirst = 0;
    v.count[VB_OK] = UINT64_MAX;
    assert_int_equal(vstats_check(&v, err, sizeof err), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vstats_add_and_cap),
        cmocka_unit_test(test_vstats_merge),
        cmocka_unit_test(test_vstats_check_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
