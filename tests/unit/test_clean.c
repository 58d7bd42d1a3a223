/* test_clean: what a plan will write (coordinator/fleet/clean.c clean_estimate),
 * the figure printed before a run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "coordinator/fleet/clean.h"

#define MiB (1024ull * 1024)

static void one_job(struct plan *p, enum rw_mode rw, uint64_t size, uint32_t numjobs, uint32_t nrfiles)
{
    struct job_spec js;
    job_spec_default(&js);
    snprintf(js.name, sizeof js.name, "j");
    js.rw = rw;
    js.size = size;
    js.numjobs = numjobs;
    js.nrfiles = nrfiles;
    plan_init(p);
    plan_add_job(p, &js);
}

static void test_clean_estimate_write_and_layout(void **state)
{
    struct plan p;
    struct clean_estimate e;
    char line[512];

    (void)state;
    one_job(&p, RW_WRITE, 4 * MiB, 3, 1);          /* 2 agents x 3 threads x 4 MiB */
    clean_estimate(&p, 2, &e);
    assert_int_equal(e.write_bytes, 24 * MiB);
    assert_int_equal(e.layout_bytes, 0);
    assert_int_equal(e.unbounded, 0);
    clean_estimate_line(&e, 2, line, sizeof line);
    assert_string_equal(line, "about to write 24MiB across 2 agents (layout of missing files up to 0B, "
                              "write phases 24MiB)");
    plan_free(&p);

    one_job(&p, RW_RANDREAD, 4 * MiB, 2, 2);       /* reads: layout only, per file */
    clean_estimate(&p, 2, &e);
    assert_int_equal(e.layout_bytes, 16 * MiB);
    assert_int_equal(e.write_bytes, 0);
    plan_free(&p);

    one_job(&p, RW_RANDRW, 4 * MiB, 1, 1);         /* the write share of a mix */
    p.phases[0].jobs[0].rwmixread = 75;
    clean_estimate(&p, 1, &e);
    assert_int_equal(e.write_bytes, 1 * MiB);
    assert_int_equal(e.layout_bytes, 4 * MiB);     /* a mix reads: laid out with data, as in fio */
    plan_free(&p);

    one_job(&p, RW_RANDRW, 4 * MiB, 1, 1);         /* rwmixread=100 writes nothing, time-based too */
    p.phases[0].jobs[0].rwmixread = 100;
    p.phases[0].jobs[0].time_based = 1;
    p.phases[0].jobs[0].runtime_ns = 10ull * 1000000000ull;
    clean_estimate(&p, 1, &e);
    assert_int_equal(e.write_bytes, 0);
    assert_int_equal(e.unbounded, 0);
    assert_int_equal(e.layout_bytes, 4 * MiB);
    plan_free(&p);

    one_job(&p, RW_WRITE, 4 * MiB, 1, 1);          /* overwrite=1: laid out, then written */
    p.phases[0].jobs[0].overwrite = 1;
    clean_estimate(&p, 1, &e);
    assert_int_equal(e.layout_bytes, 4 * MiB);
    assert_int_equal(e.write_bytes, 4 * MiB);
    plan_free(&p);
}

static void test_clean_estimate_shared_and_agents(void **state)
{
    struct plan p;
    struct clean_estimate e;

    (void)state;
    one_job(&p, RW_READ, 8 * MiB, 4, 1);           /* one name for every thread and agent */
    snprintf(p.phases[0].jobs[0].filename, PLAN_PATH_MAX, "/data/f");
    clean_estimate(&p, 3, &e);                     /* a kernel mount: a file per --allow root, up to */
    assert_int_equal(e.layout_bytes, 24 * MiB);
    snprintf(p.phases[0].jobs[0].ioengine, sizeof p.phases[0].jobs[0].ioengine, "nfs");
    clean_estimate(&p, 3, &e);                     /* libnfs: the URL names one file */
    assert_int_equal(e.layout_bytes, 8 * MiB);
    snprintf(p.phases[0].jobs[0].ioengine, sizeof p.phases[0].jobs[0].ioengine, "psync");
    snprintf(p.phases[0].jobs[0].filename, PLAN_PATH_MAX, "/data/f.${agent}");
    clean_estimate(&p, 3, &e);                     /* one per agent */
    assert_int_equal(e.layout_bytes, 24 * MiB);
    plan_free(&p);

    one_job(&p, RW_WRITE, 2 * MiB, 1, 1);          /* agents=0: one agent of three writes */
    snprintf(p.phases[0].jobs[0].agents, sizeof p.phases[0].jobs[0].agents, "0");
    clean_estimate(&p, 3, &e);
    assert_int_equal(e.write_bytes, 2 * MiB);
    plan_free(&p);
}

static void test_clean_estimate_time_based(void **state)
{
    struct plan p;
    struct clean_estimate e;

    (void)state;
    one_job(&p, RW_RANDWRITE, 4 * MiB, 2, 1);
    p.phases[0].jobs[0].time_based = 1;
    p.phases[0].jobs[0].runtime_ns = 10000000000ull;
    clean_estimate(&p, 1, &e);                     /* no rate: counted by file size, flagged */
    assert_int_equal(e.unbounded, 1);
    assert_int_equal(e.write_bytes, 8 * MiB);
    p.phases[0].jobs[0].rate_bps = 1 * MiB;        /* 1 MiB/s x 10 s x 2 threads */
    clean_estimate(&p, 1, &e);
    assert_int_equal(e.unbounded, 0);
    assert_int_equal(e.write_bytes, 20 * MiB);
    plan_free(&p);
}

static void test_clean_estimate_saturates(void **state)
{
    struct plan p;
    struct clean_estimate e;

    (void)state;
    one_job(&p, RW_READ, 4 * MiB, 4096, 1);
    p.phases[0].jobs[0].offset_increment = UINT64_MAX / 2;
    clean_estimate(&p, 4096, &e);
    assert_true(e.layout_bytes == UINT64_MAX);
    plan_free(&p);
}

/* Why nothing matched: the clean's indices, and the other ones found. */
static void test_clean_why_nothing(void **state)
{
    char out[512];

    (void)state;
    clean_why_nothing(out, sizeof out, 4, 0xf0);
    assert_non_null(strstr(out, "the plan's names expand to agents 0-3; the files there are named for agents 4-7 "));
    clean_why_nothing(out, sizeof out, 1, (1ull << 2) | (1ull << 5) | (1ull << 6) | (1ull << 63));
    assert_non_null(strstr(out, "expand to agent 0; the files there are named for agents 2,5-6,63 "));
    clean_why_nothing(out, sizeof out, 2, 1ull << 9);
    assert_non_null(strstr(out, "named for agent 9 "));
    clean_why_nothing(out, sizeof out, 2, 0);
    assert_non_null(strstr(out, "none of the files the plan names for agents 0-1 is there"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_estimate_write_and_layout),
        cmocka_unit_test(test_clean_estimate_shared_and_agents),
        cmocka_unit_test(test_clean_estimate_time_based),
        cmocka_unit_test(test_clean_estimate_saturates),
        cmocka_unit_test(test_clean_why_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
