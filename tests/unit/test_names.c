/* test_names: the word-table lookups (common/names.h) and why_fail
 * (common/why.h) every parser reports through. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "common/names.h"
#include "common/why.h"

static const char *const words[] = { "zero", NULL, "two" };

static void test_names_word_and_index(void **state)
{
    (void)state;
    assert_string_equal(names_word(words, NELEM(words), 0), "zero");
    assert_null(names_word(words, NELEM(words), 1));          /* a hole */
    assert_null(names_word(words, NELEM(words), 3));          /* past the end */
    assert_int_equal(names_index(words, NELEM(words), "two"), 2);
    assert_int_equal(names_index(words, NELEM(words), "one"), -1);
    assert_int_equal(names_index(words, NELEM(words), NULL), -1);
}

static void test_names_list_has_whole_items(void **state)
{
    (void)state;
    assert_true(names_list_has("fast,ssd", ',', "ssd", 3));
    assert_false(names_list_has("fast,ssd", ',', "ss", 2));   /* a prefix is not an item */
    assert_false(names_list_has("fastest", ',', "fast", 4));
    assert_true(names_list_has("posixaio  aio", ' ', "aio", 3));   /* runs of separators */
    assert_false(names_list_has(NULL, ',', "a", 1));
    assert_false(names_list_has("", ',', "a", 1));
}

static void test_why_fail_formats_and_returns_einval(void **state)
{
    char why[8];
    (void)state;
    assert_int_equal(why_fail(why, sizeof why, "bad %d", 12), -EINVAL);
    assert_string_equal(why, "bad 12");
    assert_int_equal(why_fail(why, sizeof why, "%s", "much too long"), -EINVAL);
    assert_string_equal(why, "much to");                      /* truncated, terminated */
    assert_int_equal(why_fail(NULL, 0, "ignored"), -EINVAL);  /* no buffer: just the code */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_word_and_index),
        cmocka_unit_test(test_names_list_has_whole_items),
        cmocka_unit_test(test_why_fail_formats_and_returns_einval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
