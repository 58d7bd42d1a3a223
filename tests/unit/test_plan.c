/* Unit tests for common/plan.c and common/plan_parse.c.
 *
 * Error messages are checked whole: they are the interface users see, and
 * the line number in them is the part most easily got wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "common/units.h"

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

/* Parse text that must succeed; returns the first job of the first phase. */
static const struct job_spec *parse_ok(const char *text, struct plan *p)
{
    char err[512] = "";
    int rc = plan_parse_string("t.fio", text, p, err, sizeof(err));
    if (rc)
        fail_msg("parse failed (%d): %s", rc, err);
    assert_true(p->nphases >= 1);
    assert_true(p->phases[0].njobs >= 1);
    return &p->phases[0].jobs[0];
}

/* Parse text that must fail with exactly this message. */
static void parse_err(const char *text, const char *want)
{
    struct plan p;
    char err[512] = "";
    int rc = plan_parse_string("t.fio", text, &p, err, sizeof(err));
    assert_int_not_equal(rc, 0);
    assert_string_equal(err, want);
    assert_int_equal(p.nphases, 0);   /* nothing half-built is handed back */
    plan_free(&p);
}

static int args_parse(struct plan *p, char *err, size_t errlen, int argc, ...)
{
    char *argv[32];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return plan_parse_args(argc, argv, p, err, errlen);
}

/* ---- plan.c ----------------------------------------------------------- */

static void test_plan_default_matches_fio(void **state)
{
    (void)state;
    struct job_spec j;
    memset(&j, 0x5a, sizeof(j));
    job_spec_default(&j);
    assert_int_equal(j.rw, RW_READ);
    assert_int_equal(j.bs, 4096);
    assert_int_equal(j.rwmixread, 50);
    assert_int_equal(j.nrfiles, 1);
    assert_int_equal(j.numjobs, 1);
    assert_int_equal(j.iodepth, 1);
    assert_string_equal(j.ioengine, "psync");
    assert_int_equal(j.size, 0);
    assert_int_equal(j.filesize, 0);
    assert_int_equal(j.runtime_ns, 0);
    assert_int_equal(j.ramp_ns, 0);
    assert_int_equal(j.time_based, 0);
    assert_int_equal(j.direct, 0);
    assert_int_equal(j.fsync, 0);
    assert_int_equal(j.end_fsync, 0);
    assert_int_equal(j.stonewall, 0);
    assert_int_equal(j.group_reporting, 0);
    assert_string_equal(j.name, "");
    assert_string_equal(j.filename, "");
    assert_string_equal(j.directory, "");
    assert_string_equal(j.nfs_url, "");
}

static void test_plan_rw_mode_names_round_trip(void **state)
{
    (void)state;
    for (int m = 0; m < RW__COUNT; m++)
        assert_int_equal(rw_mode_from_name(rw_mode_name((enum rw_mode)m)), m);
    assert_string_equal(rw_mode_name(RW_RANDREAD), "randread");
    assert_string_equal(rw_mode_name(RW_RW), "rw");
    assert_int_equal(rw_mode_from_name("readwrite"), RW_RW);
    assert_int_equal(rw_mode_from_name("trim"), -1);
    assert_int_equal(rw_mode_from_name("READ"), -1);
    assert_int_equal(rw_mode_from_name(NULL), -1);
    assert_string_equal(rw_mode_name(RW__COUNT), "?");
}

static void test_plan_rw_mode_predicates(void **state)
{
    (void)state;
    assert_true(rw_mode_reads(RW_READ) && !rw_mode_writes(RW_READ) && !rw_mode_random(RW_READ));
    assert_true(!rw_mode_reads(RW_WRITE) && rw_mode_writes(RW_WRITE) && !rw_mode_random(RW_WRITE));
    assert_true(rw_mode_reads(RW_RANDREAD) && !rw_mode_writes(RW_RANDREAD) && rw_mode_random(RW_RANDREAD));
    assert_true(!rw_mode_reads(RW_RANDWRITE) && rw_mode_writes(RW_RANDWRITE) && rw_mode_random(RW_RANDWRITE));
    assert_true(rw_mode_reads(RW_RW) && rw_mode_writes(RW_RW) && !rw_mode_random(RW_RW));
    assert_true(rw_mode_reads(RW_RANDRW) && rw_mode_writes(RW_RANDRW) && rw_mode_random(RW_RANDRW));
}

/* fio's extend_file: data for any job that reads (whatever rwmixread) and
 * for overwrite=1; a size only for other writers; nothing for verify_only,
 * metadata and coherence. */
static void test_plan_layout_fills_as_fio(void **state)
{
    struct job_spec j;
    (void)state;
    job_spec_default(&j);
    const enum rw_mode fills[] = { RW_READ, RW_RANDREAD, RW_RW, RW_RANDRW };
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++) {
        j.rw = fills[i];
        for (uint32_t mix = 0; mix <= 100; mix += 50) {
            j.rwmixread = mix;
            assert_int_equal(plan_layout_fills(&j), 1);
        }
    }
    j.rw = RW_RANDWRITE;
    assert_int_equal(plan_layout_fills(&j), 0);
    j.overwrite = 1;
    assert_int_equal(plan_layout_fills(&j), 1);
    j.rw = RW_WRITE;
    assert_int_equal(plan_layout_fills(&j), 1);
    j.overwrite = 0;
    j.rw = RW_RANDRW;
    j.verify_only = 1;
    assert_int_equal(plan_layout_fills(&j), 0);
    j.verify_only = 0;
    j.rw = RW_METADATA;
    assert_int_equal(plan_layout_fills(&j), 0);
    j.rw = RW_COHERENCE;
    assert_int_equal(plan_layout_fills(&j), 0);
}

static struct job_spec named_job(const char *name, int stonewall)
{
    struct job_spec j;
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "%s", name);
    j.size = MiB;
    j.stonewall = stonewall;
    return j;
}

static void test_plan_add_job_stonewall_starts_phase(void **state)
{
    (void)state;
    struct plan p;
    plan_init(&p);
    struct job_spec a = named_job("a", 0), b = named_job("b", 0), c = named_job("c", 1),
                    d = named_job("d", 0), e = named_job("e", 1);
    plan_add_job(&p, &a);
    plan_add_job(&p, &b);
    plan_add_job(&p, &c);
    plan_add_job(&p, &d);
    plan_add_job(&p, &e);
    assert_int_equal(p.nphases, 3);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_int_equal(p.phases[1].njobs, 2);
    assert_int_equal(p.phases[2].njobs, 1);
    assert_string_equal(p.phases[0].name, "a");
    assert_string_equal(p.phases[1].name, "c");
    assert_string_equal(p.phases[2].name, "e");
    assert_string_equal(p.phases[1].jobs[1].name, "d");
    plan_free(&p);
    assert_int_equal(p.nphases, 0);
    assert_null(p.phases);
    plan_free(&p);   /* freeing twice is harmless */
}

static void test_plan_copy_is_independent(void **state)
{
    (void)state;
    struct plan src, dst;
    const struct job_spec *j0 = parse_ok("[a]\nsize=1m\n[b]\nsize=2m\n[c]\nstonewall\nsize=3m\n", &src);
    (void)j0;
    plan_copy(&dst, &src);
    assert_int_equal(dst.nphases, 2);
    assert_int_equal(dst.phases[0].njobs, 2);
    assert_int_equal(dst.phases[1].njobs, 1);
    assert_ptr_not_equal(dst.phases, src.phases);
    assert_ptr_not_equal(dst.phases[0].jobs, src.phases[0].jobs);
    assert_memory_equal(dst.phases[0].jobs, src.phases[0].jobs, 2 * sizeof(struct job_spec));

    /* Changing or freeing the source leaves the copy alone. */
    src.phases[0].jobs[1].size = 1;
    snprintf(src.phases[1].jobs[0].name, PLAN_NAME_MAX, "changed");
    plan_free(&src);
    assert_int_equal(dst.phases[0].jobs[1].size, 2 * MiB);
    assert_string_equal(dst.phases[1].jobs[0].name, "c");
    assert_string_equal(dst.phases[1].name, "c");

    struct plan empty, copy;
    plan_init(&empty);
    plan_copy(&copy, &empty);
    assert_int_equal(copy.nphases, 0);
    plan_free(&copy);
    plan_free(&dst);
}

static void test_plan_job_file_size_defaults_to_size_over_nrfiles(void **state)
{
    (void)state;
    struct job_spec j = named_job("j", 0);
    j.size = 10 * MiB;
    j.nrfiles = 4;
    assert_int_equal(job_file_size(&j), 10 * MiB / 4);
    j.filesize = MiB;
    assert_int_equal(job_file_size(&j), MiB);
}

static void expect_invalid(const struct job_spec *j, const char *want)
{
    char err[256] = "";
    assert_int_equal(job_spec_validate(j, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, want);
}

static void test_plan_validate_rules(void **state)
{
    (void)state;
    char err[256];
    struct job_spec j = named_job("v", 0);
    assert_int_equal(job_spec_validate(&j, err, sizeof(err)), 0);

    /* no size: the agents size it from its files (plan_parse refuses a job
     * naming none) */
    j = named_job("v", 0); j.size = 0;
    assert_int_equal(job_spec_validate(&j, err, sizeof(err)), 0);
    j = named_job("v", 0); j.size = 0; j.size_pct = 101;
    expect_invalid(&j, "job 'v': size=101% is not 1..100%");
    j = named_job("v", 0); j.size = 0; j.size_pct = 50; j.filesize = MiB;
    expect_invalid(&j, "job 'v': size=50% is a share of the existing files' size; it does not go with filesize=");
    j = named_job("v", 0); j.bs = 0;
    expect_invalid(&j, "job 'v': bs must be greater than 0");
    j = named_job("v", 0); j.bs = 2 * MiB;
    expect_invalid(&j, "job 'v': bs (2097152) is larger than the per-file size (1048576)");
    j = named_job("v", 0); j.nrfiles = 512;   /* 1m / 512 = 2k per file < bs */
    expect_invalid(&j, "job 'v': bs (4096) is larger than the per-file size (2048)");
    j = named_job("v", 0); j.rwmixread = 101;
    expect_invalid(&j, "job 'v': rwmixread must be 0..100 (got 101)");
    j = named_job("v", 0); j.numjobs = 0;
    expect_invalid(&j, "job 'v': numjobs must be 1..4096 (got 0)");
    j = named_job("v", 0); j.numjobs = PLAN_MAX_NUMJOBS + 1;
    expect_invalid(&j, "job 'v': numjobs must be 1..4096 (got 4097)");
    j = named_job("v", 0); j.nrfiles = 0;
    expect_invalid(&j, "job 'v': nrfiles must be 1..1000000 (got 0)");
    j = named_job("v", 0); j.nrfiles = PLAN_MAX_NRFILES + 1;
    expect_invalid(&j, "job 'v': nrfiles must be 1..1000000 (got 1000001)");
    j = named_job("v", 0); j.iodepth = 0;
    expect_invalid(&j, "job 'v': iodepth must be 1..4096 (got 0)");
    j.iodepth = PLAN_MAX_IODEPTH + 1;
    expect_invalid(&j, "job 'v': iodepth must be 1..4096 (got 4097)");
    j = named_job("v", 0); j.nconnect = PLAN_MAX_NCONNECT + 1;   /* from the wire */
    expect_invalid(&j, "job 'v': nconnect must be 1..16 (got 17)");
    j = named_job("v", 0); j.nconnect = 2;
    expect_invalid(&j, "job 'v': nconnect= requires ioengine=nfs (kernel mounts take it as a mount option)");
    j = named_job("v", 0); snprintf(j.ioengine, sizeof(j.ioengine), "nfs");
    expect_invalid(&j, "job 'v': ioengine=nfs requires nfs_url=");
    snprintf(j.nfs_url, sizeof(j.nfs_url), "nfs://srv/export");
    assert_int_equal(job_spec_validate(&j, err, sizeof(err)), 0);
    snprintf(j.ioengine, sizeof(j.ioengine), "psync");
    expect_invalid(&j, "job 'v': nfs_url= requires ioengine=nfs");
    j = named_job("v", 0); snprintf(j.ioengine, sizeof(j.ioengine), "windowsaio");
    expect_invalid(&j, "job 'v': unknown ioengine 'windowsaio'");
    j = named_job("v", 0); j.time_based = 1;
    expect_invalid(&j, "job 'v': time_based requires runtime=");
    /* runtime counts after the ramp (as in fio), so a long ramp is fine. */
    j = named_job("v", 0); j.runtime_ns = NS_PER_SEC; j.ramp_ns = 5 * NS_PER_SEC;
    assert_int_equal(job_spec_validate(&j, err, sizeof(err)), 0);
    j = named_job("", 0);
    expect_invalid(&j, "job has no name");
    j = named_job("v", 0); j.rw = RW__COUNT;
    expect_invalid(&j, "job 'v': bad rw mode 8");   /* RW__COUNT, after RW_COHERENCE */
    j = named_job("v", 0); memset(j.filename, 'x', sizeof(j.filename));
    expect_invalid(&j, "job has an unterminated string field");
}

/* ---- plan_job_set ------------------------------------------------------ */

static void test_plan_job_set_rejects_bad_values_without_writing(void **state)
{
    (void)state;
    struct job_spec j;
    job_spec_default(&j);
    assert_int_equal(plan_job_set(&j, "bs", "4q"), -EINVAL);
    assert_int_equal(j.bs, 4096);
    assert_int_equal(plan_job_set(&j, "numjobs", "4294967296"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "numjobs", "-1"), -EINVAL);
    assert_int_equal(j.numjobs, 1);
    assert_int_equal(plan_job_set(&j, "rwmixread", "101"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "rwmixwrite", "101"), -EINVAL);
    assert_int_equal(j.rwmixread, 50);
    assert_int_equal(plan_job_set(&j, "rw", "trim"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "ioengine", "rdma"), -EINVAL);
    assert_string_equal(j.ioengine, "psync");
    assert_int_equal(plan_job_set(&j, "name", ""), -EINVAL);
    assert_int_equal(plan_job_set(&j, "direct", "maybe"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "runtime", "10x"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "size", ""), -EINVAL);
    assert_int_equal(plan_job_set(&j, "nosuch", "1"), -ENOENT);

    char big[PLAN_PATH_MAX + 1];
    memset(big, 'a', sizeof(big) - 1);
    big[PLAN_PATH_MAX] = '\0';
    assert_int_equal(plan_job_set(&j, "filename", big), -EINVAL);
    big[PLAN_PATH_MAX - 1] = '\0';
    assert_int_equal(plan_job_set(&j, "filename", big), 0);
    assert_int_equal(strlen(j.filename), PLAN_PATH_MAX - 1);
    char longname[PLAN_NAME_MAX + 1];
    memset(longname, 'n', PLAN_NAME_MAX);
    longname[PLAN_NAME_MAX] = '\0';
    assert_int_equal(plan_job_set(&j, "name", longname), -EINVAL);
}

static void test_plan_job_set_flags_and_bools(void **state)
{
    (void)state;
    struct job_spec j;
    job_spec_default(&j);
    assert_int_equal(plan_job_set(&j, "time_based", NULL), 0);
    assert_int_equal(j.time_based, 1);
    assert_int_equal(plan_job_set(&j, "time_based", "0"), 0);
    assert_int_equal(j.time_based, 0);
    assert_int_equal(plan_job_set(&j, "direct", "true"), 0);
    assert_int_equal(j.direct, 1);
    assert_int_equal(plan_job_set(&j, "end_fsync", ""), 0);
    assert_int_equal(j.end_fsync, 1);
    assert_int_equal(plan_job_set(&j, "wait_for_previous", NULL), 0);
    assert_int_equal(j.stonewall, 1);
}

static void test_plan_is_key_knows_keys_and_aliases(void **state)
{
    (void)state;
    const char *k[] = { "name", "rw", "readwrite", "rwmixread", "rwmixwrite", "bs",
                        "blocksize", "size", "filesize", "nrfiles", "numjobs", "runtime",
                        "time_based", "ramp_time", "direct", "fsync", "end_fsync",
                        "filename", "directory", "stonewall", "wait_for_previous",
                        "group_reporting", "ioengine", "iodepth", "nfs_url" };
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        assert_true(plan_is_key(k[i]));
    assert_false(plan_is_key("blocksizz"));
    assert_true(plan_is_key("agents"));
    assert_true(plan_is_key("matrix"));
    assert_false(plan_is_key("cpus_allowed"));   /* ignored with a warning, not a key */
    assert_false(plan_is_key(""));
    assert_false(plan_is_key(NULL));
}

/* ---- job files ---------------------------------------------------------- */

static void test_plan_parse_every_key(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok(
        "[first]\n"
        "name=renamed\n"
        "rw=randrw\n"
        "rwmixread=70\n"
        "bs=64k\n"
        "size=1g\n"
        "filesize=256m\n"
        "nrfiles=4\n"
        "numjobs=8\n"
        "runtime=2m\n"
        "time_based\n"
        "ramp_time=5\n"
        "direct=1\n"
        "fsync=32\n"
        "end_fsync=1\n"
        "filename=data.${agent}\n"
        "directory=/mnt/nfs/${host}\n"
        "group_reporting\n"
        "ioengine=nfs\n"
        "iodepth=16\n"
        "nfs_url=nfs://server/export?version=4\n", &p);
    assert_string_equal(j->name, "renamed");
    assert_string_equal(p.phases[0].name, "renamed");
    assert_int_equal(j->rw, RW_RANDRW);
    assert_int_equal(j->rwmixread, 70);
    assert_int_equal(j->bs, 64 * KiB);
    assert_int_equal(j->size, GiB);
    assert_int_equal(j->filesize, 256 * MiB);
    assert_int_equal(j->nrfiles, 4);
    assert_int_equal(j->numjobs, 8);
    assert_int_equal(j->runtime_ns, 120 * NS_PER_SEC);
    assert_int_equal(j->time_based, 1);
    assert_int_equal(j->ramp_ns, 5 * NS_PER_SEC);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->fsync, 32);
    assert_int_equal(j->end_fsync, 1);
    assert_string_equal(j->filename, "data.${agent}");
    assert_string_equal(j->directory, "/mnt/nfs/${host}");
    assert_int_equal(j->group_reporting, 1);
    assert_int_equal(j->stonewall, 0);
    assert_string_equal(j->ioengine, "nfs");
    assert_int_equal(j->iodepth, 16);
    assert_string_equal(j->nfs_url, "nfs://server/export?version=4");
    plan_free(&p);
}

static void test_plan_parse_rw_values_and_aliases(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum rw_mode rw;
    } cases[] = {
        { "[j]\nsize=1m\nrw=read\n", RW_READ },
        { "[j]\nsize=1m\nrw=write\n", RW_WRITE },
        { "[j]\nsize=1m\nrw=randread\n", RW_RANDREAD },
        { "[j]\nsize=1m\nrw=randwrite\n", RW_RANDWRITE },
        { "[j]\nsize=1m\nrw=rw\n", RW_RW },
        { "[j]\nsize=1m\nrw=readwrite\n", RW_RW },
        { "[j]\nsize=1m\nrw=randrw\n", RW_RANDRW },
        { "[j]\nsize=1m\nreadwrite=randwrite\n", RW_RANDWRITE },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct plan p;
        assert_int_equal(parse_ok(cases[i].text, &p)->rw, cases[i].rw);
        plan_free(&p);
    }
}

static void test_plan_parse_key_aliases(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok(
        "[j]\nsize=1m\nblocksize=8k\nrw=rw\nrwmixwrite=30\ntimeout=90\n", &p);
    assert_int_equal(j->bs, 8 * KiB);
    assert_int_equal(j->rwmixread, 70);
    assert_int_equal(j->runtime_ns, 90 * NS_PER_SEC);
    plan_free(&p);

    static const char *const psync_aliases[] = { "psync", "sync", "pvsync" };
    for (size_t i = 0; i < 3; i++) {
        char text[128];
        snprintf(text, sizeof(text), "[j]\nsize=1m\nioengine=%s\n", psync_aliases[i]);
        assert_string_equal(parse_ok(text, &p)->ioengine, "psync");
        plan_free(&p);
    }
    assert_string_equal(parse_ok("[j]\nsize=1m\nioengine=null\n", &p)->ioengine, "null");
    plan_free(&p);
}

static void test_plan_parse_runtime_units(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(parse_ok("[j]\nsize=1m\nruntime=30\n", &p)->runtime_ns, 30 * NS_PER_SEC);
    plan_free(&p);
    assert_int_equal(parse_ok("[j]\nsize=1m\nruntime=1h\n", &p)->runtime_ns, 3600 * NS_PER_SEC);
    plan_free(&p);
    assert_int_equal(parse_ok("[j]\nsize=1m\nruntime=1500ms\nramp_time=500ms\n", &p)->ramp_ns,
                     500 * NS_PER_MS);
    plan_free(&p);
}

static void test_plan_parse_global_applies_to_jobs(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\n"
             "rw=randread\n"
             "bs=16k\n"
             "size=4m\n"
             "[a]\n"
             "bs=8k\n"
             "[b]\n"
             "numjobs=2\n", &p);
    assert_int_equal(p.nphases, 1);
    assert_int_equal(p.phases[0].njobs, 2);
    const struct job_spec *a = &p.phases[0].jobs[0], *b = &p.phases[0].jobs[1];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->rw, RW_RANDREAD);
    assert_int_equal(a->bs, 8 * KiB);         /* the job overrides */
    assert_int_equal(a->size, 4 * MiB);
    assert_int_equal(a->numjobs, 1);
    assert_string_equal(b->name, "b");
    assert_int_equal(b->rw, RW_RANDREAD);
    assert_int_equal(b->bs, 16 * KiB);        /* a's override did not leak */
    assert_int_equal(b->numjobs, 2);
    plan_free(&p);
}

static void test_plan_parse_global_after_job_applies_to_later_jobs(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\nsize=1m\n"
             "[a]\n"
             "[global]\nrw=write\n"
             "[b]\n", &p);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_int_equal(p.phases[0].jobs[0].rw, RW_READ);
    assert_int_equal(p.phases[0].jobs[1].rw, RW_WRITE);
    assert_int_equal(p.phases[0].jobs[1].size, MiB);  /* earlier [global] still counts */
    plan_free(&p);
}

static void test_plan_parse_empty_job_section_inherits_global(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\nsize=2m\nrw=write\n[one]\n[two]\n", &p);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_string_equal(p.phases[0].jobs[0].name, "one");
    assert_string_equal(p.phases[0].jobs[1].name, "two");
    assert_int_equal(p.phases[0].jobs[1].size, 2 * MiB);
    assert_int_equal(p.phases[0].jobs[1].rw, RW_WRITE);
    plan_free(&p);
}

static void test_plan_parse_name_defaults_to_section(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[ seq-read ]\nsize=1m\n[b]\nname=other\nsize=1m\n", &p);
    assert_string_equal(p.phases[0].jobs[0].name, "seq-read");
    assert_string_equal(p.phases[0].jobs[1].name, "other");
    plan_free(&p);
}

static void test_plan_parse_stonewall_splits_phases(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\nsize=1m\n"
             "[w1]\nrw=write\n"
             "[w2]\nrw=write\n"
             "[r1]\nstonewall\nrw=read\n"
             "[r2]\n"
             "[r3]\n"
             "[last]\nwait_for_previous\n", &p);
    assert_int_equal(p.nphases, 3);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_int_equal(p.phases[1].njobs, 3);
    assert_int_equal(p.phases[2].njobs, 1);
    assert_string_equal(p.phases[0].name, "w1");
    assert_string_equal(p.phases[1].name, "r1");
    assert_string_equal(p.phases[2].name, "last");
    assert_string_equal(p.phases[1].jobs[2].name, "r3");
    assert_int_equal(p.phases[1].jobs[0].stonewall, 1);
    assert_int_equal(p.phases[1].jobs[1].stonewall, 0);
    plan_free(&p);
}

static void test_plan_parse_stonewall_in_global_gives_one_phase_per_job(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\nsize=1m\nstonewall\n[a]\n[b]\n[c]\n", &p);
    assert_int_equal(p.nphases, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(p.phases[i].njobs, 1);
    plan_free(&p);
}

static void test_plan_parse_filesize_gives_size(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nfilesize=1m\nnrfiles=8\n", &p);
    assert_int_equal(j->size, 8 * MiB);
    assert_int_equal(j->filesize, MiB);
    assert_int_equal(job_file_size(j), MiB);
    plan_free(&p);
}

static void test_plan_parse_comments_blanks_and_crlf(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok(
        "; a comment\r\n"
        "# another\r\n"
        "\r\n"
        "[global]   ; trailing comment\r\n"
        "   bs = 8k   ; indented, spaced, commented\r\n"
        "[j]\r\n"
        "size=1m # hash comment\r\n"
        "time_based ; flag with comment\r\n"
        "runtime=10\r\n"
        "nfs_url=nfs://h/e#frag\r\n"
        "ioengine=nfs\r\n", &p);
    assert_int_equal(j->bs, 8 * KiB);
    assert_int_equal(j->size, MiB);
    assert_int_equal(j->time_based, 1);
    assert_string_equal(j->nfs_url, "nfs://h/e#frag");   /* '#' not after a blank */
    plan_free(&p);
}

static void test_plan_parse_long_lines_are_kept_whole(void **state)
{
    (void)state;
    char path[900];
    memset(path, 'p', sizeof(path) - 1);
    path[0] = '/';
    path[sizeof(path) - 1] = '\0';
    char text[2048];
    snprintf(text, sizeof(text), "[j]\nsize=1m\ndirectory = %s ; c\nbogus\n", path);
    parse_err(text, "t.fio:4: unknown key 'bogus'");   /* line count survives */
    snprintf(text, sizeof(text), "[j]\nsize=1m\ndirectory = %s ; c\n", path);
    struct plan p;
    assert_string_equal(parse_ok(text, &p)->directory, path);
    plan_free(&p);
}

static void test_plan_parse_unknown_key_names_line(void **state)
{
    (void)state;
    parse_err("[global]\nrw=randread\nblocksizz=4k\n[j]\nsize=1m\n",
              "t.fio:3: unknown key 'blocksizz' (did you mean 'blocksize'?)");
    /* Comments, blank lines and bare flags before it do not shift the count. */
    parse_err("# c\n\n[j]\n; c\ntime_based\nruntime=1\nsize=1m\n\n  nosuch = 1\n",
              "t.fio:9: unknown key 'nosuch'");
    parse_err("[j]\nsize=1m\nfrobnicate\n", "t.fio:3: unknown key 'frobnicate'");
}

static void test_plan_parse_bad_value_names_key_and_value(void **state)
{
    (void)state;
    parse_err("[j]\nsize=4q\n", "t.fio:2: bad value for 'size': '4q'");
    parse_err("[global]\n\nbs=4q\n[j]\nsize=1m\n", "t.fio:3: bad value for 'bs': '4q'");
    parse_err("[j]\nsize=1m\nblocksize=x\n", "t.fio:3: bad value for 'blocksize': 'x'");
    parse_err("[j]\nsize=1m\nrw=trim\n",
              "t.fio:3: bad value for 'rw': 'trim' (trim (discard) is for block devices)");
    parse_err("[j]\nsize=1m\nioengine=rdma\n", "t.fio:3: bad value for 'ioengine': 'rdma' "
              "(nfstorm's engines are psync (sync, pvsync, vsync, pvsync2), io_uring, libaio, posixaio, "
              "nfs, null; and fio's filecreate, filestat, filedelete)");
    parse_err("[j]\nsize=1m\nioengine=windowsaio\n", "t.fio:3: bad value for 'ioengine': 'windowsaio' "
              "(fio's windowsaio engine is not implemented by nfstorm; use libaio or io_uring)");
    parse_err("[j]\nsize=1m\nrwmixread=150\n", "t.fio:3: bad value for 'rwmixread': '150'");
    parse_err("[j]\nsize=1m\nnumjobs=many\n", "t.fio:3: bad value for 'numjobs': 'many'");
    parse_err("[j]\nsize=1m\nruntime=5y\n", "t.fio:3: bad value for 'runtime': '5y'");
    parse_err("[j]\nsize=1m\ndirect=perhaps\n", "t.fio:3: bad value for 'direct': 'perhaps'");
    parse_err("[j]\nsize=\n", "t.fio:2: bad value for 'size': ''");
}

static void test_plan_parse_structural_errors(void **state)
{
    (void)state;
    parse_err("\nrw=read\n[j]\nsize=1m\n", "t.fio:2: key 'rw' before any [section]");
    parse_err("[j\nsize=1m\n", "t.fio:1: missing ']' in section header");
    parse_err("[j]\nsize=1m\n[]\n", "t.fio:3: empty section name");
    parse_err("[j] x\nsize=1m\n", "t.fio:1: unexpected text after section header");
    parse_err("[global]\nname=x\n", "t.fio: no job sections");  /* fio: a default name, no job */
    parse_err("[global]\nsize=1m\n", "t.fio: no job sections");
    parse_err("", "t.fio: no job sections");
    parse_err("[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\nsize=1m\n",
              "t.fio:1: section name too long (max 63 characters)");
}

static void test_plan_parse_validates_each_finished_job(void **state)
{
    (void)state;
    parse_err("[global]\nrw=read\n[ok]\nsize=1m\n[nosize]\nbs=4k\n[later]\nsize=1m\n",
              "t.fio: job 'nosize': size is required (set size= or filesize=, or name existing files with "
              "filename=, filename_format= or nrfiles=)");
    parse_err("[j]\nsize=1m\nbs=2m\n",
              "t.fio: job 'j': bs (2097152) is larger than the per-file size (1048576)");
    parse_err("[j]\nsize=1m\nioengine=nfs\n", "t.fio: job 'j': ioengine=nfs requires nfs_url=");
    parse_err("[j]\nsize=1m\nnfs_url=nfs://a/b\n", "t.fio: job 'j': nfs_url= requires ioengine=nfs");
    parse_err("[j]\nsize=1m\nnumjobs=0\n", "t.fio: job 'j': numjobs must be 1..4096 (got 0)");
}

static void test_plan_parse_too_many_jobs_in_phase(void **state)
{
    (void)state;
    size_t cap = 64 + (PLAN_MAX_JOBS + 1) * 16;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(text, cap, "[global]\nsize=1m\n");
    for (int i = 0; i <= PLAN_MAX_JOBS; i++)
        n += (size_t)snprintf(text + n, cap - n, "[j%d]\n", i);
    char want[128];
    snprintf(want, sizeof(want),
             "t.fio:%d: too many jobs in phase 'j0' (max 64; use stonewall to start a new phase)",
             PLAN_MAX_JOBS + 3);
    parse_err(text, want);
    free(text);
}

static void test_plan_parse_file_missing_names_path(void **state)
{
    (void)state;
    struct plan p;
    char err[512] = "";
    const char *path = "/nonexistent/dir/plan.fio";
    assert_int_equal(plan_parse_file(path, &p, err, sizeof(err)), -ENOENT);
    char want[512];
    snprintf(want, sizeof(want), "%s: cannot open: %s", path, strerror(ENOENT));
    assert_string_equal(err, want);
    assert_int_equal(p.nphases, 0);
}

static void test_plan_parse_file_reads_and_reports_path(void **state)
{
    (void)state;
    char path[] = "/tmp/test_plan_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "[global]\nrw=randread\nblocksizz=4k\n[j]\nsize=1m\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);

    struct plan p;
    char err[512] = "";
    assert_int_equal(plan_parse_file(path, &p, err, sizeof(err)), -EINVAL);
    char want[512];
    snprintf(want, sizeof(want), "%s:3: unknown key 'blocksizz' (did you mean 'blocksize'?)", path);
    assert_string_equal(err, want);

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[global]\nrw=randread\nbs=4k\n[j]\nsize=1m\ntime_based\nruntime=10s\n", f);
    fclose(f);
    assert_int_equal(plan_parse_file(path, &p, err, sizeof(err)), 0);
    assert_int_equal(p.phases[0].jobs[0].rw, RW_RANDREAD);
    assert_int_equal(p.phases[0].jobs[0].time_based, 1);
    plan_free(&p);
    unlink(path);
}

/* ---- command line ------------------------------------------------------- */

static void test_plan_parse_args_both_spellings(void **state)
{
    (void)state;
    struct plan p;
    char err[256] = "";
    int rc = args_parse(&p, err, sizeof(err), 9, "--name=t", "-rw=randread", "--bs=4k",
                        "-size=1m", "--time_based", "-runtime=30", "-group_reporting",
                        "-direct=1", "--numjobs=4");
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(p.nphases, 1);
    assert_int_equal(p.phases[0].njobs, 1);
    const struct job_spec *j = &p.phases[0].jobs[0];
    assert_string_equal(j->name, "t");
    assert_int_equal(j->rw, RW_RANDREAD);
    assert_int_equal(j->bs, 4096);
    assert_int_equal(j->size, MiB);
    assert_int_equal(j->time_based, 1);
    assert_int_equal(j->runtime_ns, 30 * NS_PER_SEC);
    assert_int_equal(j->group_reporting, 1);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->numjobs, 4);
    plan_free(&p);
}

static void test_plan_parse_args_without_name_makes_job(void **state)
{
    (void)state;
    struct plan p;
    char err[256] = "";
    assert_int_equal(args_parse(&p, err, sizeof(err), 2, "--size=1m", "-rw=write"), 0);
    assert_string_equal(p.phases[0].jobs[0].name, "job");
    assert_int_equal(p.phases[0].jobs[0].rw, RW_WRITE);
    plan_free(&p);

    /* Options before the first --name belong to that job too. */
    assert_int_equal(args_parse(&p, err, sizeof(err), 3, "--size=1m", "--name=a", "--bs=8k"), 0);
    assert_int_equal(p.phases[0].njobs, 1);
    assert_string_equal(p.phases[0].jobs[0].name, "a");
    assert_int_equal(p.phases[0].jobs[0].size, MiB);
    plan_free(&p);
}

static void test_plan_parse_args_name_starts_new_job(void **state)
{
    (void)state;
    struct plan p;
    char err[256] = "";
    int rc = args_parse(&p, err, sizeof(err), 8, "--size=2m", "--rw=randread",
                        "--name=a", "--bs=8k",
                        "--name=b", "--rw=write",
                        "--name=c", "--stonewall");
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(p.nphases, 2);
    assert_int_equal(p.phases[0].njobs, 2);
    assert_int_equal(p.phases[1].njobs, 1);
    const struct job_spec *a = &p.phases[0].jobs[0], *b = &p.phases[0].jobs[1],
                          *c = &p.phases[1].jobs[0];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->bs, 8 * KiB);
    assert_int_equal(a->rw, RW_RANDREAD);
    assert_string_equal(b->name, "b");
    assert_int_equal(b->bs, 4 * KiB);         /* a's bs stays with a */
    assert_int_equal(b->rw, RW_WRITE);
    assert_int_equal(b->size, 2 * MiB);       /* leading options apply to all */
    assert_string_equal(c->name, "c");
    assert_int_equal(c->rw, RW_RANDREAD);
    plan_free(&p);
}

/* fio 3.33, measured: kb_base=1000 makes k/m/Ki powers of 1000 and only
 * KiB powers of 1024; in a job file it applies to its whole section (and
 * from [global] to the jobs); on the command line from where it stands. */
static void test_plan_kb_base(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j;
    j = parse_ok("[x]\nkb_base=1000\nsize=1m\nbs=4k\nrate=1m\n", &p);
    assert_int_equal(j->size, 1000000);
    assert_int_equal(j->bs, 4000);
    assert_int_equal(j->rate_bps, 1000000);
    plan_free(&p);
    j = parse_ok("[x]\nsize=1m\nbs=4KiB\nbsrange=1k-8Ki\nrw=read:2k\nkb_base=1000\n", &p);
    assert_int_equal(j->size, 1000000);
    assert_int_equal(j->bs, 4096);
    assert_int_equal(j->bsrange_min, 1000);
    assert_int_equal(j->bsrange_max, 8000);
    assert_int_equal(j->rw_seq_bytes, 2000);
    plan_free(&p);
    j = parse_ok("[global]\nkb_base=1000\n[x]\nsize=2m\n", &p);
    assert_int_equal(j->size, 2000000);
    plan_free(&p);
    j = parse_ok("[x]\nkb_base=1024\nsize=1m\nbs=4KiB\n", &p);
    assert_int_equal(j->size, MiB);
    assert_int_equal(j->bs, 4 * KiB);
    assert_int_equal(p.nwarnings, 0);      /* fio's default: accepted silently */
    plan_free(&p);
    parse_err("[x]\nsize=1m\nkb_base=1001\n", "t.fio:3: bad value for 'kb_base': '1001' (want 1000 or 1024)");
    char err[512];
    assert_int_equal(args_parse(&p, err, sizeof(err), 4, "--kb_base=1000", "--name=t", "--size=1m",
                                "--bs=4k"), 0);
    assert_int_equal(p.phases[0].jobs[0].size, 1000000);
    assert_int_equal(p.phases[0].jobs[0].bs, 4000);
    plan_free(&p);
    /* fio's command line reads each option as it comes: a later kb_base
     * leaves the sizes before it as they were */
    assert_int_equal(args_parse(&p, err, sizeof(err), 4, "--name=t", "--size=1m", "--bs=4k",
                                "--kb_base=1000"), 0);
    assert_int_equal(p.phases[0].jobs[0].bs, 4 * KiB);
    plan_free(&p);
}

/* fio's size=N% and sizes taken from existing files named any way. */
static void test_plan_size_from_files(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j;
    j = parse_ok("[x]\nfilename=f\nsize=50%\n", &p);
    assert_int_equal(j->size, 0);
    assert_int_equal(j->size_pct, 50);
    assert_true(job_sized_by_file(j));
    plan_free(&p);
    j = parse_ok("[x]\nsize=1m\nsize=25%\nsize=2m\n", &p);   /* the last one wins */
    assert_int_equal(j->size, 2 * MiB);
    assert_int_equal(j->size_pct, 0);
    plan_free(&p);
    j = parse_ok("[x]\nfilename_format=$jobname.$filenum\nnrfiles=2\n", &p);
    assert_true(job_sized_by_file(j));
    plan_free(&p);
    j = parse_ok("[x]\nnrfiles=3\n", &p);
    assert_true(job_sized_by_file(j));
    plan_free(&p);
    parse_err("[x]\nsize=0%\n", "t.fio:2: bad value for 'size': '0%' (want a percentage from 1% to 100%)");
    parse_err("[x]\nsize=101%\n", "t.fio:2: bad value for 'size': '101%' (want a percentage from 1% to 100%)");
    parse_err("[x]\nsize=50%\nfilesize=1m\n",
              "t.fio: job 'x': size=50% is a share of the existing files' size; it does not go with filesize=");
}

static void test_plan_parse_args_errors(void **state)
{
    (void)state;
    struct plan p;
    char err[256] = "";
    assert_int_equal(plan_parse_args(0, NULL, &p, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "no job given");

    assert_int_equal(args_parse(&p, err, sizeof(err), 2, "--name=t", "--bs=4q"), -EINVAL);
    assert_string_equal(err, "--bs: bad value '4q'");
    assert_int_equal(args_parse(&p, err, sizeof(err), 2, "--name=t", "-size=4q"), -EINVAL);
    assert_string_equal(err, "--size: bad value '4q'");
    assert_int_equal(args_parse(&p, err, sizeof(err), 1, "--name="), -EINVAL);
    assert_string_equal(err, "--name: bad value ''");

    assert_int_equal(args_parse(&p, err, sizeof(err), 2, "--name=t", "--bogus"), -EINVAL);
    assert_string_equal(err, "unknown option '--bogus'");
    assert_int_equal(args_parse(&p, err, sizeof(err), 2, "--name=t", "-blocksizz=4k"), -EINVAL);
    assert_string_equal(err, "unknown option '-blocksizz=4k' (did you mean '-blocksize'?)");
    assert_int_equal(args_parse(&p, err, sizeof(err), 1, "size=1m"), -EINVAL);
    assert_string_equal(err, "unknown option 'size=1m'");

    assert_int_equal(args_parse(&p, err, sizeof(err), 1, "--name=t"), -EINVAL);
    assert_string_equal(err, "job 't': size is required (set size= or filesize=, or name existing "
                        "files with filename=, filename_format= or nrfiles=)");
    assert_int_equal(args_parse(&p, err, sizeof(err), 3, "--name=a", "--name=b", "--size=1m"),
                     -EINVAL);
    assert_string_equal(err, "job 'a': size is required (set size= or filesize=, or name existing "
                        "files with filename=, filename_format= or nrfiles=)");
    assert_int_equal(p.nphases, 0);
}

/* ---- checked arithmetic (issue 9, defect 6): the largest value accepted,
 * one more refused, with the key and value named ---- */

static struct job_spec range_job(void)
{
    struct job_spec j;
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "r");
    j.size = 1048576;
    return j;
}

static void expect_range_err(const struct job_spec *j, uint64_t gmax, const char *want_prefix)
{
    char err[512] = "";
    assert_int_equal(job_spec_check_range(j, gmax, err, sizeof(err)), -EINVAL);
    if (strncmp(err, want_prefix, strlen(want_prefix)) != 0)
        fail_msg("got '%s', want a message starting '%s'", err, want_prefix);
}

static void test_plan_range_offset_boundary(void **state)
{
    (void)state;
    struct job_spec j = range_job();
    char err[512] = "";
    j.offset = PLAN_MAX_FILE_OFFSET - j.size;          /* region ends at 2^63-1 */
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.offset++;
    expect_range_err(&j, 0, "job 'r': offset=9223372036853727232 (8EiB): the region [offset, offset + "
                            "1048576 (1MiB)) exceeds the largest file offset, 9223372036854775807");
    j.offset = UINT64_MAX;                             /* offset + size wraps */
    expect_range_err(&j, 0, "job 'r': offset=18446744073709551615 ");
}

static void test_plan_range_offset_increment_boundary(void **state)
{
    (void)state;
    struct job_spec j = range_job();
    char err[512] = "";
    /* global job 3: offset + 3 x inc + size <= 2^63-1 */
    j.offset = 4096;
    j.offset_increment = (PLAN_MAX_FILE_OFFSET - j.size - j.offset) / 3;
    assert_int_equal(job_spec_check_range(&j, 3, err, sizeof(err)), 0);
    j.offset_increment++;
    expect_range_err(&j, 3, "job 'r': offset_increment=3074457345617907712 (2.67EiB): the region of "
                            "global job 3 (offset + offset_increment x 3 + 1048576 (1MiB)) exceeds");
    /* the plan: 8 EiB x 1 wrapped to 0 */
    j.offset = 0;
    j.offset_increment = UINT64_C(1) << 63;
    expect_range_err(&j, 1, "job 'r': offset_increment=9223372036854775808 (8EiB)");
    j.offset_increment = UINT64_MAX;                   /* the product itself wraps */
    expect_range_err(&j, 2, "job 'r': offset_increment=18446744073709551615 ");
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);   /* job 0 never uses it */
}

static void test_plan_range_sizes_and_loops(void **state)
{
    (void)state;
    struct job_spec j = range_job();
    char err[512] = "";
    j.io_size = UINT64_MAX / 2;          /* x 2 = 2^64 - 2: fits */
    j.loops = 2;
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.io_size++;
    expect_range_err(&j, 0, "job 'r': loops=2: io_size=9223372036854775808 (8EiB) x loops exceeds 2^64 bytes");
    j = range_job();
    j.filesize = UINT64_MAX / 4;          /* x 4 = 2^64 - 4: fits */
    j.nrfiles = 4;
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.nrfiles = 5;
    expect_range_err(&j, 0, "job 'r': filesize=4611686018427387903 (4EiB) x nrfiles=5 exceeds 2^64 bytes");
}

static void test_plan_range_times_and_rates(void **state)
{
    (void)state;
    struct job_spec j = range_job();
    char err[512] = "";
    j.runtime_ns = PLAN_MAX_TIME_NS;
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.startdelay_ns = 1;                 /* startdelay + runtime: one ns too many */
    expect_range_err(&j, 0, "job 'r': runtime=3153600000000000000ns (100 years): startdelay + ramp_time + "
                            "runtime exceeds 3153600000000000000ns (100 years)");
    j.startdelay_ns = UINT64_MAX;        /* the sum would wrap */
    j.runtime_ns = UINT64_MAX;
    expect_range_err(&j, 0, "job 'r': startdelay=18446744073709551615ns ");
    j = range_job();
    j.thinktime_ns = PLAN_MAX_TIME_NS;
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.thinktime_ns++;
    expect_range_err(&j, 0, "job 'r': thinktime=3153600000000000001ns ");
    j = range_job();
    j.op_deadline_ns = PLAN_MAX_TIME_NS + 1;
    expect_range_err(&j, 0, "job 'r': op_deadline=");
    j = range_job();
    j.rate_iops = PLAN_MAX_RATE_IOPS;
    assert_int_equal(job_spec_check_range(&j, 0, err, sizeof(err)), 0);
    j.rate_iops++;
    expect_range_err(&j, 0, "job 'r': rate_iops=1000000001 exceeds 1000000000 ops/s");
}

/* plan_validate: the global job number grows with the agents that run it. */
static void test_plan_validate_counts_agents(void **state)
{
    (void)state;
    struct plan p;
    struct job_spec j = range_job();
    char err[512] = "";
    j.numjobs = 2;
    /* agent a's thread t is global job 2a + t: 3 agents reach job 5 */
    j.offset_increment = (PLAN_MAX_FILE_OFFSET - j.size) / 5;
    plan_init(&p);
    plan_add_job(&p, &j);
    assert_int_equal(plan_validate(&p, 3, err, sizeof(err)), 0);
    assert_int_equal(plan_validate(&p, 4, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "job 'r': offset_increment=1844674407370745446 (1.6EiB): the region of global job 7 "));
    /* agents=0-2 keeps a 4-agent run at job 5 */
    snprintf(p.phases[0].jobs[0].agents, sizeof(p.phases[0].jobs[0].agents), "0-2");
    assert_int_equal(plan_validate(&p, 4, err, sizeof(err)), 0);
    /* the parser's check (one agent) already refuses what overflows there */
    p.phases[0].jobs[0].offset_increment = PLAN_MAX_FILE_OFFSET;
    assert_int_equal(job_spec_validate(&p.phases[0].jobs[0], err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "global job 1 "));
    plan_free(&p);
}

static void test_plan_parse_offset_overflow(void **state)
{
    (void)state;
    parse_err("[o]\nrw=write\nsize=1m\noffset=8388608t\noffset_increment=8388608t\nnumjobs=2\n",
              "t.fio: job 'o': offset=9223372036854775808 (8EiB): the region [offset, offset + 1048576 "
              "(1MiB)) exceeds the largest file offset, 9223372036854775807 (8EiB)");
    parse_err("[o]\nrw=write\nsize=1m\noffset_increment=8388608t\nnumjobs=2\n",
              "t.fio: job 'o': offset_increment=9223372036854775808 (8EiB): the region of global job 1 "
              "(offset + offset_increment x 1 + 1048576 (1MiB)) exceeds the largest file offset, "
              "9223372036854775807 (8EiB)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_default_matches_fio),
        cmocka_unit_test(test_plan_rw_mode_names_round_trip),
        cmocka_unit_test(test_plan_rw_mode_predicates),
        cmocka_unit_test(test_plan_layout_fills_as_fio),
        cmocka_unit_test(test_plan_add_job_stonewall_starts_phase),
        cmocka_unit_test(test_plan_copy_is_independent),
        cmocka_unit_test(test_plan_job_file_size_defaults_to_size_over_nrfiles),
        cmocka_unit_test(test_plan_validate_rules),
        cmocka_unit_test(test_plan_job_set_rejects_bad_values_without_writing),
        cmocka_unit_test(test_plan_job_set_flags_and_bools),
        cmocka_unit_test(test_plan_is_key_knows_keys_and_aliases),
        cmocka_unit_test(test_plan_parse_every_key),
        cmocka_unit_test(test_plan_parse_rw_values_and_aliases),
        cmocka_unit_test(test_plan_parse_key_aliases),
        cmocka_unit_test(test_plan_parse_runtime_units),
        cmocka_unit_test(test_plan_parse_global_applies_to_jobs),
        cmocka_unit_test(test_plan_parse_global_after_job_applies_to_later_jobs),
        cmocka_unit_test(test_plan_parse_empty_job_section_inherits_global),
        cmocka_unit_test(test_plan_parse_name_defaults_to_section),
        cmocka_unit_test(test_plan_parse_stonewall_splits_phases),
        cmocka_unit_test(test_plan_parse_stonewall_in_global_gives_one_phase_per_job),
        cmocka_unit_test(test_plan_parse_filesize_gives_size),
        cmocka_unit_test(test_plan_parse_comments_blanks_and_crlf),
        cmocka_unit_test(test_plan_parse_long_lines_are_kept_whole),
        cmocka_unit_test(test_plan_parse_unknown_key_names_line),
        cmocka_unit_test(test_plan_parse_bad_value_names_key_and_value),
        cmocka_unit_test(test_plan_parse_structural_errors),
        cmocka_unit_test(test_plan_parse_validates_each_finished_job),
        cmocka_unit_test(test_plan_parse_too_many_jobs_in_phase),
        cmocka_unit_test(test_plan_parse_file_missing_names_path),
        cmocka_unit_test(test_plan_parse_file_reads_and_reports_path),
        cmocka_unit_test(test_plan_parse_args_both_spellings),
        cmocka_unit_test(test_plan_parse_args_without_name_makes_job),
        cmocka_unit_test(test_plan_parse_args_name_starts_new_job),
        cmocka_unit_test(test_plan_parse_args_errors),
        cmocka_unit_test(test_plan_kb_base),
        cmocka_unit_test(test_plan_size_from_files),
        cmocka_unit_test(test_plan_range_offset_boundary),
        cmocka_unit_test(test_plan_range_offset_increment_boundary),
        cmocka_unit_test(test_plan_range_sizes_and_loops),
        cmocka_unit_test(test_plan_range_times_and_rates),
        cmocka_unit_test(test_plan_validate_counts_agents),
        cmocka_unit_test(test_plan_parse_offset_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
