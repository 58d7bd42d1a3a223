/* test_plan_fio_keys: every option name fio 3.33 has (the fixture that
 * scripts/fio-option-names.sh extracts from fio's source) has an entry in
 * nfstorm's inventory, the entries agree with the plan keys, and the parser
 * does what each status says: aliases set their target, ignored keys warn,
 * refused keys stop the parse with the reason, thread is accepted quietly.
 * Also the parse-level semantics of issue 12: name= in [global], rw=MODE:N,
 * $clientuid.  Run from the source tree's top (make unit does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan_files.h"
#include "common/plan_fio_keys.h"
#include "common/plan_parse.h"

#define FIXTURE "tests/fixtures/fio-3.33-options.txt"

static void test_plan_fio_keys_every_fio_option_has_an_entry(void **state)
{
    (void)state;
    FILE *f = fopen(FIXTURE, "r");
    char line[128], missing[4096] = "";
    unsigned n = 0, nmissing = 0;
    if (!f)
        fail_msg("cannot open %s (run from the source tree's top)", FIXTURE);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        n++;
        if (!plan_fio_key_find(line)) {
            nmissing++;
            if (strlen(missing) + strlen(line) + 2 < sizeof missing)
                strcat(strcat(missing, " "), line);
        }
    }
    fclose(f);
    if (nmissing)
        fail_msg("%u of fio's options have no inventory entry:%s", nmissing, missing);
    assert_int_equal(n, 353);       /* fio 3.33: options.c, its aliases, engines' and profiles' options */
}

static void test_plan_fio_keys_entries_agree_with_plan_keys(void **state)
{
    (void)state;
    unsigned n, seen_alias = 0;
    const struct fio_key *t = plan_fio_keys(&n);
    assert_true(n >= 353);
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = i + 1; k < n; k++)
            if (strcmp(t[i].name, t[k].name) == 0)
                fail_msg("'%s' has two entries", t[i].name);
        switch (t[i].status) {
        case FIO_KEY_IMPLEMENTED:
            if (!plan_is_key(t[i].name))
                fail_msg("'%s' says implemented but is no plan key", t[i].name);
            break;
        case FIO_KEY_ALIAS:
            seen_alias++;
            if (!t[i].note || !plan_fio_key_find(t[i].note))
                fail_msg("alias '%s' points at no entry", t[i].name);
            if (!plan_fio_key_resolve(t[i].name))
                fail_msg("alias '%s' does not resolve", t[i].name);
            /* an alias does what its target does */
            if (plan_is_key(t[i].note) != plan_is_key(t[i].name))
                fail_msg("alias '%s' and its target '%s' disagree", t[i].name, t[i].note);
            break;
        default:
            /* a key implemented since must have its line changed here */
            if (plan_is_key(t[i].name))
                fail_msg("'%s' is a plan key but its entry says %s", t[i].name,
                         plan_fio_key_status_name(t[i].status));
            if (!t[i].note || !t[i].note[0])
                fail_msg("'%s' has no reason", t[i].name);
            break;
        }
    }
    assert_int_equal(seen_alias, 21);   /* fio 3.33's .alias table */
    assert_string_equal(plan_fio_key_alias("nr_files"), "nrfiles");
    assert_null(plan_fio_key_alias("nrfiles"));
    assert_null(plan_fio_key_find("agents"));        /* nfstorm's own */
    assert_int_equal(plan_fio_key_resolve("ratemin")->status, FIO_KEY_IMPLEMENTED);
    assert_string_equal(plan_fio_key_resolve("ss")->name, "steadystate");
    /* a typo of one of fio's other keys is named too; plan keys win ties */
    assert_string_equal(plan_key_suggest("cpus_alowed"), "cpus_allowed");
    assert_string_equal(plan_key_suggest("ratee"), "rate");
}

static const struct job_spec *parse_ok(const char *text, struct plan *p)
{
    char err[512] = "";
    if (plan_parse_string("t.fio", text, p, err, sizeof(err)))
        fail_msg("parse failed: %s", err);
    return &p->phases[0].jobs[0];
}

static void parse_err(const char *text, const char *want)
{
    struct plan p;
    char err[512] = "";
    assert_int_not_equal(plan_parse_string("t.fio", text, &p, err, sizeof(err)), 0);
    assert_string_equal(err, want);
}

static void test_plan_fio_keys_aliases_set_their_target(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nnr_files=4\nfileoffset=8k\n"
                                        "ratemin=1m\nthread\n", &p);
    assert_int_equal(j->nrfiles, 4);
    assert_int_equal(j->offset, 8192);
    assert_int_equal(j->rate_min_bps, 1 << 20);   /* ratemin is rate_min */
    assert_int_equal(p.nwarnings, 0);             /* thread is quiet */
    plan_free(&p);

    char *argv[] = { "--name=c", "--size=1m", "--nr_files=3", "--thread" };
    char err[256];
    assert_int_equal(plan_parse_args(4, argv, &p, err, sizeof(err)), 0);
    assert_int_equal(p.phases[0].jobs[0].nrfiles, 3);
    assert_int_equal(p.nwarnings, 0);
    plan_free(&p);
}

/* A buffer key that verify= defeats is named, not silently dropped:
 * verify=pattern replaces every byte, so all of them; the header modes
 * stamp each block over the buffer, whose bytes stay (zeros stay zeros,
 * t1720 reads them back), so only dedupe_percentage; verify=null and no verify
 * at all, none */
static void test_plan_fio_keys_buffer_keys_under_verify_warn(void **state)
{
    static const char *const keys[] = { "buffer_pattern=0xab", "zero_buffers=1",
                                        "buffer_compress_percentage=50", "dedupe_percentage=20" };
    (void)state;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        static const char *const modes[] = { "pattern\nverify_pattern=0x5a", "crc32c", "null", NULL };
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            struct plan p;
            char text[160], want[96];
            int dedupe = strncmp(keys[i], "dedupe", 6) == 0;
            int warns = modes[m] && (strncmp(modes[m], "pattern", 7) == 0 ||
                                     (strcmp(modes[m], "crc32c") == 0 && dedupe));
            snprintf(text, sizeof text, "[j]\nrw=write\nsize=1m\n%s%s%s%s\n", modes[m] ? "verify=" : "",
                     modes[m] ? modes[m] : "", modes[m] ? "\n" : "", keys[i]);
            parse_ok(text, &p);
            assert_int_equal(p.nwarnings, warns);
            if (warns) {
                snprintf(want, sizeof want, "job 'j': %.*s has no effect with verify=%.*s",
                         (int)strcspn(keys[i], "="), keys[i], (int)strcspn(modes[m], "\n"), modes[m]);
                assert_non_null(strstr(p.warnings[0], want));
            }
            plan_free(&p);
        }
    }
    struct plan p;
    /* every key set is named, and what the mode writes instead */
    parse_ok("[j]\nrw=write\nsize=1m\nverify=pattern\nverify_pattern=0x11\nbuffer_pattern=0x22\n"
             "zero_buffers=1\n", &p);
    assert_int_equal(p.nwarnings, 1);
    assert_non_null(strstr(p.warnings[0], "job 'j': buffer_pattern, zero_buffers have no effect with "
                                          "verify=pattern: each block written is verify_pattern's bytes"));
    plan_free(&p);
    parse_ok("[j]\nrw=write\nsize=1m\nverify=md5\ndedupe_percentage=50\n", &p);
    assert_non_null(strstr(p.warnings[0], "verify=md5: each block written carries its own verify "
                                          "header and sector stamps, so no two are alike; ignored"));
    plan_free(&p);
    /* either key as a matrix dimension: named once per checksum, for the
     * combinations that have both */
    parse_ok("[j]\nrw=write\nsize=1m\nverify=crc32c\nmatrix=dedupe_percentage:0,20,30\n", &p);
    assert_int_equal(p.nwarnings, 1);
    assert_non_null(strstr(p.warnings[0], "job 'j': dedupe_percentage has no effect with verify=crc32c"));
    plan_free(&p);
    parse_ok("[j]\nrw=write\nsize=1m\ndedupe_percentage=10\nmatrix=verify:crc32c,md5\n", &p);
    assert_int_equal(p.nwarnings, 2);
    assert_non_null(strstr(p.warnings[0], "job 'j': dedupe_percentage has no effect with verify=crc32c"));
    assert_non_null(strstr(p.warnings[1], "job 'j': dedupe_percentage has no effect with verify=md5"));
    plan_free(&p);
}

static void test_plan_fio_keys_refused_keys_name_the_reason(void **state)
{
    (void)state;
    parse_err("[a]\nsize=1m\nzonemode=zbd\n",
              "t.fio:3: 'zonemode' is refused by nfstorm (zoned block devices; nfstorm works on files)");
    parse_err("[a]\nsize=1m\nblockalign=4k\n",     /* an alias of a refused key */
              "t.fio:3: 'blockalign' is refused by nfstorm (not yet implemented: random offsets are "
              "aligned to the block size)");
    parse_err("[a]\nsize=1m\nrbdname=x\n", "t.fio:3: 'rbdname' is refused by nfstorm (an option of "
              "fio's rbd engine, which nfstorm does not have)");
    struct plan p;
    char *argv[] = { "--name=c", "--size=1m", "--zonemode=zbd" };
    char err[256];
    assert_int_not_equal(plan_parse_args(3, argv, &p, err, sizeof(err)), 0);
    assert_string_equal(err, "option '--zonemode' is refused by nfstorm (zoned block devices; "
                        "nfstorm works on files)");
}

static void test_plan_fio_keys_global_name_is_a_default(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[global]\nname=dflt\nsize=1m\n[one]\n[two]\nname=mine\n", &p);
    assert_string_equal(j->name, "one");    /* as fio: the section names the job */
    assert_string_equal(p.phases[0].jobs[1].name, "mine");
    plan_free(&p);
}

static void test_plan_fio_keys_rw_modifier_parsed(void **state)
{
    (void)state;
    struct plan p;
    /* set again without one: cleared, as fio's str_rw_cb does */
    const struct job_spec *j = parse_ok("[global]\nrw=randread:8\n[j]\nsize=1m\nrw=randwrite\n", &p);
    assert_true(j->rw_seq_nr <= 1);
    plan_free(&p);
    j = parse_ok("[j]\nsize=1m\nrw=randread:8\n", &p);     /* run by iogen (rw_seq_nr) */
    assert_int_equal(j->rw, RW_RANDREAD);
    assert_int_equal(j->rw_seq_nr, 8);
    plan_free(&p);
    struct job_spec js;
    job_spec_default(&js);
    assert_int_equal(plan_job_set(&js, "rw", "randrw:16"), 0);
    assert_int_equal(js.rw, RW_RANDRW);
    assert_int_equal(js.rw_seq_nr, 16);
    assert_int_equal(plan_job_set(&js, "rw", "write:4k"), 0);
    assert_true(js.rw_seq_nr <= 1);
    assert_int_equal(js.rw_seq_bytes, 4096);
    assert_int_equal(plan_job_set(&js, "rw", "read:-8k"), 0);         /* backwards: the negative step */
    assert_true((int64_t)js.rw_seq_bytes == -8192);
    assert_int_equal(plan_job_set(&js, "rw", "read:-0"), -EINVAL);
    assert_int_equal(plan_job_set(&js, "rw", "read:-x"), -EINVAL);
    assert_int_equal(plan_job_set(&js, "rw", "randread:-1"), -EINVAL);
    assert_int_equal(plan_job_set(&js, "rw", "randread:x"), -EINVAL);
}

static void test_plan_fio_keys_clientuid_is_the_agent(void **state)
{
    (void)state;
    struct job_spec js;
    struct plan_vars v = { .agent = 3, .nagents = 4, .host = "h", .job = 0 };
    char out[256], err[128];
    job_spec_default(&js);
    snprintf(js.name, sizeof js.name, "w");
    snprintf(js.filename_format, sizeof js.filename_format, "$jobname.$CLIENTUID.$jobnum.$filenum");
    assert_int_equal(plan_file_path(&js, &v, 1, 2, "/root", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/root/w.3.1.2");
    v.agent = 0;
    assert_int_equal(plan_file_path(&js, &v, 1, 2, "/root", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/root/w.0.1.2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_fio_keys_every_fio_option_has_an_entry),
        cmocka_unit_test(test_plan_fio_keys_entries_agree_with_plan_keys),
        cmocka_unit_test(test_plan_fio_keys_aliases_set_their_target),
        cmocka_unit_test(test_plan_fio_keys_buffer_keys_under_verify_warn),
        cmocka_unit_test(test_plan_fio_keys_refused_keys_name_the_reason),
        cmocka_unit_test(test_plan_fio_keys_global_name_is_a_default),
        cmocka_unit_test(test_plan_fio_keys_rw_modifier_parsed),
        cmocka_unit_test(test_plan_fio_keys_clientuid_is_the_agent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
