/* test_admit: what an agent checks on a received plan: the same checked
 * arithmetic as the coordinator (on a plan that went through the wire
 * codec) and the per-phase memory estimate against what is available. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/admit.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

#define GiB (UINT64_C(1) << 30)

static struct job_spec job(const char *name)
{
    struct job_spec j;
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.ioengine, sizeof j.ioengine, "null");
    j.size = 1 << 20;
    return j;
}

static void test_admit_estimate_counts_threads_and_files(void **state)
{
    (void)state;
    struct plan p;
    struct job_spec j = job("big");
    uint64_t threads, files, need;
    j.filesize = 4096;
    j.nrfiles = 1000000;
    j.numjobs = 64;
    plan_init(&p);
    plan_add_job(&p, &j);
    need = admit_phase_bytes(&p.phases[0], 0, &threads, &files);
    assert_int_equal(threads, 64);
    assert_int_equal(files, 64000000);
    assert_true(need > 64000000ull * 1024);     /* a path per file entry */
    /* agents=1 leaves agent 0 idle: only the layout buffer */
    snprintf(p.phases[0].jobs[0].agents, sizeof p.phases[0].jobs[0].agents, "1");
    need = admit_phase_bytes(&p.phases[0], 0, &threads, &files);
    assert_int_equal(threads, 0);
    assert_int_equal(files, 0);
    assert_true(need <= (1u << 20));
    plan_free(&p);
}

/* The goal of issue 9: 1024 null threads fit in 256 MiB, and the estimate
 * (on the high side of the measured ~45 MiB) agrees. */
static void test_admit_estimate_1024_null_threads(void **state)
{
    (void)state;
    struct plan p;
    struct job_spec j = job("n");
    j.numjobs = 1024;
    plan_init(&p);
    plan_add_job(&p, &j);
    assert_true(admit_phase_bytes(&p.phases[0], 0, NULL, NULL) < 256 * (UINT64_C(1) << 20));
    plan_free(&p);
}

static void test_admit_refuses_with_figures(void **state)
{
    (void)state;
    struct plan p;
    struct job_spec a = job("small"), b = job("md");
    char err[512] = "";
    b.rw = RW_METADATA;
    b.n_md_ops = 1;
    b.md_ops[0] = OP_CREATE;
    b.filesize = 1ull << 40;          /* one 1 TiB create buffer */
    b.stonewall = 1;
    plan_init(&p);
    plan_add_job(&p, &a);
    plan_add_job(&p, &b);
    assert_int_equal(admit_plan(&p, 0, 1, 1 * GiB, err, sizeof err), -ENOMEM);
    assert_string_equal(err, "phase 1 ('md') needs ~1TiB for 1 job thread and 1 file, 1GiB available");
    assert_int_equal(admit_plan(&p, 0, 1, 2ull << 40, err, sizeof err), 0);
    assert_int_equal(admit_plan(&p, 0, 1, UINT64_MAX, err, sizeof err), 0);
    plan_free(&p);
}

/* A coordinator that skipped the check: the plan decoded from the wire is
 * refused by the agent, naming the key, with the run's agent count. */
static void test_admit_refuses_decoded_overflow(void **state)
{
    (void)state;
    struct msg_plan in, out;
    struct job_spec j = job("w");
    struct buf b;
    char err[512] = "";
    j.numjobs = 2;
    j.offset_increment = UINT64_C(1) << 62;        /* 4 EiB */
    memset(&in, 0, sizeof in);
    in.agent_index = 0;
    in.nagents = 2;
    in.interval_ms = 1000;
    plan_init(&in.plan);
    plan_add_job(&in.plan, &j);
    buf_init(&b);
    msg_plan_encode(&b, &in);
    if (DECODE(msg_plan_decode, b.data + FRAME_HEADER_LEN, b.len - FRAME_HEADER_LEN, &out, err, sizeof err) != 0)
        fail_msg("%s", err);
    /* one agent: global jobs 0-1 fit; two agents reach global job 3 */
    assert_int_equal(admit_plan(&out.plan, 0, 1, UINT64_MAX, err, sizeof err), 0);
    assert_int_equal(admit_plan(&out.plan, out.agent_index, out.nagents, UINT64_MAX, err, sizeof err), -EINVAL);
    assert_string_equal(err, "job 'w': offset_increment=4611686018427387904 (4EiB): the region of global job 3 "
                             "(offset + offset_increment x 3 + 1048576 (1MiB)) exceeds the largest file "
                             "offset, 9223372036854775807 (8EiB)");
    msg_plan_free(&out);
    plan_free(&in.plan);
    buf_free(&b);
}

static void test_admit_mem_available_reads_meminfo(void **state)
{
    (void)state;
    uint64_t avail = 0;
    assert_int_equal(admit_mem_available(&avail), 0);
    assert_true(avail > (16u << 20));               /* this machine runs the tests */
}

/* The operator's caps: each refused with its figure and flag, at the cap
 * accepted; admit_plan_here refuses an index outside the run first. */
static void test_admit_limits_refuse_with_flags(void **state)
{
    struct plan p;
    struct job_spec j = job("t");
    struct admit_limits l = { .max_threads = 8, .max_files = 100, .max_memory = 64u << 20 };
    char err[256];

    (void)state;
    j.numjobs = 8;
    j.nrfiles = 12;
    j.size = 12 * 4096;
    plan_init(&p);
    plan_add_job(&p, &j);
    assert_int_equal(admit_limits_check(&p, 0, &l, err, sizeof err), 0);
    p.phases[0].jobs[0].numjobs = 9;
    assert_int_equal(admit_limits_check(&p, 0, &l, err, sizeof err), -E2BIG);
    assert_string_equal(err, "phase 0 ('t') has 9 job threads on this agent, more than its --max-threads 8");
    p.phases[0].jobs[0].numjobs = 8;
    p.phases[0].jobs[0].nrfiles = 13;
    assert_int_equal(admit_limits_check(&p, 0, &l, err, sizeof err), -E2BIG);
    assert_string_equal(err, "phase 0 ('t') uses 104 files on this agent, more than its --max-files 100");
    p.phases[0].jobs[0].nrfiles = 1;
    p.phases[0].jobs[0].iodepth = 64;
    p.phases[0].jobs[0].bs = 1 << 20;
    p.phases[0].jobs[0].size = 1 << 20;
    assert_int_equal(admit_limits_check(&p, 0, &l, err, sizeof err), -ENOMEM);
    assert_non_null(strstr(err, "more than its --max-memory 64"));
    assert_int_equal(admit_limits_check(&p, 0, NULL, err, sizeof err), 0);
    assert_int_equal(admit_plan_here(&p, 1, 1, NULL, err, sizeof err), -EINVAL);
    assert_string_equal(err, "agent index 1 is not inside a run of 1 agent");
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admit_estimate_counts_threads_and_files),
        cmocka_unit_test(test_admit_estimate_1024_null_threads),
        cmocka_unit_test(test_admit_refuses_with_figures),
        cmocka_unit_test(test_admit_refuses_decoded_overflow),
        cmocka_unit_test(test_admit_mem_available_reads_meminfo),
        cmocka_unit_test(test_admit_limits_refuse_with_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
