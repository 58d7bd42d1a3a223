/* test_plan_files: fio's filename list ("a:b", "\:" for a colon) and the
 * paths it gives each file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/plan_files.h"
#include "common/rotate.h"

static void test_plan_files_list_counts_unescaped_colons(void **state)
{
    (void)state;
    assert_int_equal(plan_filename_count(""), 0);
    assert_int_equal(plan_filename_count("a"), 1);
    assert_int_equal(plan_filename_count("a:b"), 2);
    assert_int_equal(plan_filename_count("a\\:b"), 1);
    assert_int_equal(plan_filename_count("/dev/dsk/foo@3,0\\:c:x"), 2);
    assert_int_equal(plan_filename_count("a::b"), 3);
    assert_int_equal(plan_filename_count("a\\b"), 1);      /* other backslashes are literal */
}

static void test_plan_files_list_names_unescaped(void **state)
{
    char out[64];
    (void)state;
    assert_int_equal(plan_filename_at("a:b\\:c:d", 0, out, sizeof out), 0);
    assert_string_equal(out, "a");
    assert_int_equal(plan_filename_at("a:b\\:c:d", 1, out, sizeof out), 0);
    assert_string_equal(out, "b:c");
    assert_int_equal(plan_filename_at("a:b\\:c:d", 2, out, sizeof out), 0);
    assert_string_equal(out, "d");
    assert_int_equal(plan_filename_at("a::b", 1, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(plan_filename_at("x\\y", 0, out, sizeof out), 0);
    assert_string_equal(out, "x\\y");
    assert_int_equal(plan_filename_at("abcdef", 0, out, 4), -ENAMETOOLONG);
}

static void test_plan_files_path_per_file_of_a_list(void **state)
{
    struct job_spec js;
    struct plan_vars v = { .agent = 1, .nagents = 2, .host = "h", .job = 0 };
    char out[256], err[128];
    (void)state;
    job_spec_default(&js);
    snprintf(js.name, sizeof js.name, "j");
    snprintf(js.filename, sizeof js.filename, "a${agent}:b\\:c");
    js.nrfiles = 2;
    assert_int_equal(plan_files_per_thread(&js), 2);
    assert_int_equal(plan_file_path(&js, &v, 0, 0, "/root", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/root/a1");
    assert_int_equal(plan_file_path(&js, &v, 0, 1, "/root", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/root/b:c");
    snprintf(js.filename, sizeof js.filename, "/abs/one");
    assert_int_equal(plan_files_per_thread(&js), 1);
    assert_int_equal(plan_file_path(&js, &v, 0, 0, "/root", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/abs/one");
}

/* rotate=K names the files of agent (i + K) mod N: default names,
 * filename_format's $agent and ${agent} alike; K mod N == 0 is no shift. */
static void test_plan_files_rotate_names_the_source_agent(void **state)
{
    struct job_spec js;
    struct plan_vars v = { .agent = 2, .nagents = 3, .host = "h", .job = 0 };
    char out[256], err[128];
    (void)state;
    assert_int_equal(rotate_source(0, 1, 3), 1);
    assert_int_equal(rotate_source(2, 1, 3), 0);
    assert_int_equal(rotate_source(1, 5, 3), 0);
    assert_int_equal(rotate_source(1, 3, 3), 1);
    assert_int_equal(rotate_source(1, 7, 0), 1);
    assert_int_equal(rotate_source(UINT32_MAX - 1, ROTATE_MAX, UINT32_MAX), ROTATE_MAX - 1);  /* no overflow */
    job_spec_default(&js);
    snprintf(js.name, sizeof js.name, "j");
    js.rotate = 1;
    assert_int_equal(plan_file_path(&js, &v, 0, 0, "/r", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/r/j.0.0.0");
    snprintf(js.filename_format, sizeof js.filename_format, "f.$agent");
    js.rotate = 2;
    assert_int_equal(plan_file_path(&js, &v, 0, 0, "/r", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/r/f.1");
    snprintf(js.directory, sizeof js.directory, "d${agent}");
    snprintf(js.filename, sizeof js.filename, "x${agent}");
    js.rotate = 3;
    assert_int_equal(plan_file_path(&js, &v, 0, 0, "/r", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/r/d2/x2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_files_list_counts_unescaped_colons),
        cmocka_unit_test(test_plan_files_list_names_unescaped),
        cmocka_unit_test(test_plan_files_path_per_file_of_a_list),
        cmocka_unit_test(test_plan_files_rotate_names_the_source_agent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
