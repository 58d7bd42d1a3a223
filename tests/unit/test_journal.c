/* test_journal: the journal writer and reader (coordinator/journal.c),
 * on the inputs fuzz_journal found mishandled. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/journal.h"
#include "coordinator/result.h"

/* Write text to a fresh temp file; its path goes to path[64]. */
static void write_tmp(char path[64], const char *text)
{
    int fd;

    snprintf(path, 64, "/tmp/nfstorm-test-journal.XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static int load(const char *text, struct run_result *r, char *err, size_t errlen)
{
    char path[64];
    int rc;

    write_tmp(path, text);
    rc = journal_load(path, r, err, errlen);
    unlink(path);
    return rc;
}

/* Was a NULL dereference when the journal ended: no phase to close. */
static void test_journal_header_without_phases_loads(void **state)
{
    static struct run_result r;
    char err[256] = "";

    (void)state;
    assert_int_equal(load("{\"type\":\"header\",\"schema\":2,\"nagents\":1,\"interval_ms\":1000,\"started\":0,"
                          "\"agents\":[],\"phases\":[]}\n", &r, err, sizeof err), 0);
    assert_int_equal(r.nphases, 0);
    assert_int_equal(r.nagents, 1);
    result_free(&r);
}

/* Was a leak (the result built, then dropped on the error path). */
static void test_journal_more_agents_than_nagents_rejected(void **state)
{
    static struct run_result r;
    char err[256] = "";

    (void)state;
    assert_int_equal(load("{\"type\":\"header\",\"schema\":2,\"nagents\":1,\"interval_ms\":1000,\"started\":0,"
                          "\"agents\":[{},{}],\"phases\":[]}\n", &r, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":1: bad journal entry"));
}

/* An interval number that does not fit 32 bits is not silently cut. */
static void test_journal_interval_k_beyond_32_bits_rejected(void **state)
{
    static struct run_result r;
    char err[256] = "";

    (void)state;
    assert_int_equal(load("{\"type\":\"header\",\"schema\":2,\"nagents\":1,\"interval_ms\":1000,\"started\":0,"
                          "\"agents\":[],\"phases\":[{\"name\":\"a\",\"rw\":\"read\",\"bs\":4096,"
                          "\"numjobs\":1}]}\n"
                          "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":4294967297,\"ops\":{}}\n",
                          &r, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, ":2: bad journal entry"));
}

#define HDR_COMPACT "{\"type\":\"header\",\"schema\":2,\"nagents\":2,\"interval_ms\":1000,\"started\":0," \
             "\"agents\":[],\"phases\":[{\"name\":\"a\",\"rw\":\"randrw\",\"bs\":4096,\"numjobs\":1}]}\n"

/* The compact interval line ("o": {OP: [ops, bytes(, errors(, timeouts))]})
 * reads as the object form does, beside it; malformed arrays are refused. */
static void test_journal_compact_interval_lines(void **state)
{
    static struct run_result r;
    char err[256] = "";
    struct counters c;
    static const char *const bad[] = {
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"read\":[1]}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"read\":[1,2,3,4,5]}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"read\":[1,4096,2]}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"read\":[-1,4096]}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"nope\":[1,4096]}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":{\"read\":{\"ops\":1}}}\n",
        "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,\"o\":[]}\n",
    };

    (void)state;
    assert_int_equal(load(HDR_COMPACT
                          "{\"type\":\"interval\",\"phase\":0,\"agent\":0,\"k\":0,"
                          "\"o\":{\"read\":[10,40960],\"write\":[5,8192,2,1]}}\n"
                          "{\"type\":\"interval\",\"phase\":0,\"agent\":1,\"k\":0,"
                          "\"ops\":{\"read\":{\"ops\":7,\"bytes\":28672}}}\n"
                          "{\"type\":\"interval\",\"phase\":0,\"agent\":1,\"k\":1,\"o\":{}}\n",
                          &r, err, sizeof err), 0);
    result_interval_agent(&r, 0, 0, 0, &c);
    assert_int_equal(c.ops[OP_READ], 10);
    assert_int_equal(c.bytes[OP_READ], 40960);
    assert_int_equal(c.ops[OP_WRITE], 5);
    assert_int_equal(c.bytes[OP_WRITE], 8192);
    assert_int_equal(c.errors[OP_WRITE], 2);
    assert_int_equal(r.phases[0].intervals[0].count[OP_WRITE].timeouts, 1);
    result_interval_agent(&r, 0, 0, 1, &c);
    assert_int_equal(c.ops[OP_READ], 7);
    assert_int_equal(r.phases[0].intervals[0].count[OP_READ].ops, 17);
    result_interval_agent(&r, 0, 1, 1, &c);
    assert_int_equal(c.reported, 1);
    assert_int_equal(c.ops[OP_READ], 0);
    result_free(&r);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[1024];

        snprintf(text, sizeof text, "%s%s", HDR_COMPACT, bad[i]);
        err[0] = 0;
        assert_int_equal(load(text, &r, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, ":2: bad journal entry"));
    }
}

/* The header's agents were always written as [] (a bad json_pack format);
 * they must survive a write and a load. */
static void test_journal_header_keeps_agents(void **state)
{
    static struct run_result r, back;
    struct plan p;
    struct job_spec js;
    struct journal *j;
    struct run_observer o;
    char path[64], err[256] = "";

    (void)state;
    plan_init(&p);
    job_spec_default(&js);
    snprintf(js.name, sizeof js.name, "a");
    plan_add_job(&p, &js);
    result_init(&r, &p, 2, 1000);
    plan_free(&p);
    snprintf(r.agents[1].addr, sizeof r.agents[1].addr, "10.0.0.2:7878");
    snprintf(r.agents[1].host, sizeof r.agents[1].host, "client2");
    r.agents[1].ncpus = 16;
    r.agents[1].rtt_ns = 90000;
    write_tmp(path, "");
    j = journal_open(path, "t");
    assert_non_null(j);
    o = journal_observer(j);
    o.phase_start(o.arg, &r, 0);
    assert_int_equal(journal_close(j), 0);
    assert_int_equal(journal_load(path, &back, err, sizeof err), 0);
    unlink(path);
    assert_string_equal(back.agents[1].addr, "10.0.0.2:7878");
    assert_string_equal(back.agents[1].host, "client2");
    assert_int_equal(back.agents[1].ncpus, 16);
    assert_int_equal(back.agents[1].rtt_ns, 90000);
    result_free(&back);
    result_free(&r);
}

static int replay(const char *text, struct run_result *r, struct journal_gaps *g)
{
    char path[64], err[256] = "";
    int rc;

    write_tmp(path, text);
    rc = journal_replay(path, r, g, err, sizeof err);
    unlink(path);
    return rc;
}

#define HDR2 "{\"type\":\"header\",\"schema\":2,\"nagents\":1,\"interval_ms\":1000,\"started\":0,\"agents\":[]," \
             "\"phases\":[{\"name\":\"a\",\"rw\":\"read\",\"bs\":4096,\"numjobs\":1,\"njobs\":1}," \
             "{\"name\":\"b\",\"rw\":\"read\",\"bs\":4096,\"numjobs\":1,\"njobs\":1}]}\n"
#define IV(p) "{\"type\":\"interval\",\"phase\":" #p ",\"agent\":0,\"k\":0,\"ops\":{}}\n"

/* No end record: cut short; the phase without phase_end keeps what arrived
 * (summed, finished = 1) but is marked interrupted, so every report prints
 * it as partial (verdict_phase_partial) and the JSON's "finished" is
 * false; the one that never started is named, a torn last line too. */
static void test_journal_without_end_is_cut_short(void **state)
{
    static struct run_result r;
    struct journal_gaps g;

    (void)state;
    assert_int_equal(replay(HDR2 IV(0) "{\"type\":\"phase_end\",\"phase\":0}\n" IV(1) "{\"type\":\"inter",
                            &r, &g), 0);
    assert_int_equal(g.cut_short, 1);
    assert_int_equal(g.torn_line, 5);
    assert_int_equal(g.unfinished, 1);
    assert_int_equal(r.phases[0].finished, 1);
    assert_int_equal(r.phases[0].interrupted, 0);
    assert_int_equal(r.phases[1].finished, 1);
    assert_int_equal(r.phases[1].interrupted, 1);
    assert_non_null(strstr(g.what, "phase 'b' cut short (0 of 1 agents"));
    result_free(&r);

    assert_int_equal(replay(HDR2 IV(0), &r, &g), 0);
    assert_int_equal(g.cut_short, 1);
    assert_non_null(strstr(g.what, "phase 'b' never started"));
    result_free(&r);
}

/* With the end record: not cut short, phases with data finished. */
static void test_journal_with_end_is_whole(void **state)
{
    static struct run_result r;
    struct journal_gaps g;

    (void)state;
    assert_int_equal(replay(HDR2 IV(0) "{\"type\":\"phase_end\",\"phase\":0}\n" IV(1)
                            "{\"type\":\"end\",\"outcome\":\"interrupted\"}\n", &r, &g), 0);
    assert_int_equal(g.cut_short, 0);
    assert_int_equal(g.what[0], '\0');
    assert_int_equal(r.phases[1].finished, 1);
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_journal_header_without_phases_loads),
        cmocka_unit_test(test_journal_more_agents_than_nagents_rejected),
        cmocka_unit_test(test_journal_interval_k_beyond_32_bits_rejected),
        cmocka_unit_test(test_journal_header_keeps_agents),
        cmocka_unit_test(test_journal_compact_interval_lines),
        cmocka_unit_test(test_journal_without_end_is_cut_short),
        cmocka_unit_test(test_journal_with_end_is_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
