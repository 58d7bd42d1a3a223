/* Unit tests for coordinator/csv (one CSV field, quoted when needed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "coordinator/report/csv.h"

static void check(const char *in, const char *want)
{
    char *got = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&got, &n);

    assert_non_null(f);
    csv_field(f, in);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(got, want);
    free(got);
}

static void test_csv_field_plain(void **state)
{
    (void)state;
    check("", "");
    check("randread", "randread");
    check("a b;c\t'd'", "a b;c\t'd'");
    check("h\xc3\xa9llo", "h\xc3\xa9llo");
}

static void test_csv_field_quoted(void **state)
{
    (void)state;
    check("r,1", "\"r,1\"");
    check("say \"hi\"", "\"say \"\"hi\"\"\"");
    check("\"", "\"\"\"\"");
    check("two\nlines", "\"two\nlines\"");
    check("cr\r", "\"cr\r\"");
    check(",", "\",\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_field_plain),
        cmocka_unit_test(test_csv_field_quoted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
