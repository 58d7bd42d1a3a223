/* Unit tests for coordinator/result_load's file errors: a file that cannot
 * be read or is not JSON gets the same one-line reason from result_load
 * (`nfstorm report`) and result_load_set (compare, summaries), both made
 * by result_load_file_json. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "coordinator/result/result_load.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* err for path from all three entry points: they must agree */
static void check_err(const char *path, const char *prefix)
{
    char err[512], err2[512], err3[512];
    struct run_result r;
    struct run_set s;
    json_t *j;

    err[0] = err2[0] = err3[0] = '\0';
    j = result_load_file_json(path, err, sizeof err);
    assert_null(j);
    assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
    assert_null(strchr(err, '\n'));
    assert_int_equal(result_load(path, &r, err2, sizeof err2), -EINVAL);
    result_free(&r);
    assert_string_equal(err2, err);
    assert_int_equal(result_load_set(path, &s, err3, sizeof err3), -EINVAL);
    run_set_free(&s);
    assert_string_equal(err3, err);
}

static void test_result_load_file_errors(void **state)
{
    char dir[] = "/tmp/nfstorm-rl-XXXXXX";
    char bad[64], dup[64], missing[64], ok[64];
    json_t *j;
    char err[256];

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    snprintf(dup, sizeof dup, "%s/dup.json", dir);
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    snprintf(ok, sizeof ok, "%s/ok.json", dir);
    write_file(bad, "{\n  \"a\": 1,\n  oops\n}\n");
    write_file(dup, "{\"a\": 1,\n \"a\": 2}\n");
    write_file(ok, "{\"a\": [1, 2]}");

    char want[128];
    snprintf(want, sizeof want, "%s:3: not valid JSON: ", bad);
    check_err(bad, want);
    snprintf(want, sizeof want, "%s:2: not valid JSON: duplicate object key", dup);
    check_err(dup, want);
    snprintf(want, sizeof want, "%s: cannot read: ", missing);
    check_err(missing, want);

    err[0] = '\0';
    j = result_load_file_json(ok, err, sizeof err);
    assert_non_null(j);
    assert_int_equal(json_array_size(json_object_get(j, "a")), 2);
    assert_string_equal(err, "");
    json_decref(j);

    unlink(bad);
    unlink(dup);
    unlink(ok);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_load_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
