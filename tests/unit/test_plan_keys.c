/* Unit tests for the wider fio dialect: common/plan_keys.c (every new key's
 * value and error), plan_matrix.c, include and ${VAR} in plan_parse.c, and
 * the agents= helpers of plan.c.  Messages are checked whole where users
 * see them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "common/stats.h"
#include "common/units.h"
#include "common/vblock.h"

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)

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
    assert_int_equal(p.nphases, 0);
    plan_free(&p);
}

/* One job "[j]\nsize=1m\n<line>": the value must be refused with this message. */
static void key_err(const char *line, const char *want)
{
    char text[512];
    snprintf(text, sizeof(text), "[j]\nsize=1m\n%s\n", line);
    parse_err(text, want);
}

static void test_plan_keys_sizes_counts_durations(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok(
        "[j]\nsize=64m\ndescription=the seeds' 4k test\nbsrange=4k-64k\noffset=1m\n"
        "offset_increment=8m\nio_size=32m\nnumber_ios=1000\nloops=3\nstartdelay=2\n"
        "thinktime=250\nrandseed=42\nrandrepeat=0\nunlink=1\nsync=1\nfdatasync=8\n"
        "invalidate=0\nfilename_format=$jobname.$jobnum\nnew_group\nop_deadline=5s\n"
        "server_timeout=2m\n", &p);
    assert_string_equal(j->description, "the seeds' 4k test");
    assert_int_equal(j->bsrange_min, 4 * KiB);
    assert_int_equal(j->bsrange_max, 64 * KiB);
    assert_int_equal(j->offset, MiB);
    assert_int_equal(j->offset_increment, 8 * MiB);
    assert_int_equal(j->io_size, 32 * MiB);
    assert_int_equal(j->number_ios, 1000);
    assert_int_equal(j->loops, 3);
    assert_int_equal(j->startdelay_ns, 2 * NS_PER_SEC);
    assert_int_equal(j->thinktime_ns, 250 * NS_PER_US);   /* fio: microseconds */
    assert_int_equal(j->randseed, 42);
    assert_int_equal(j->randrepeat, 0);
    assert_int_equal(j->unlink, 1);
    assert_int_equal(j->sync, 1);
    assert_int_equal(j->fdatasync, 8);
    assert_int_equal(j->invalidate, 0);
    assert_string_equal(j->filename_format, "$jobname.$jobnum");
    assert_int_equal(j->new_group, 1);
    assert_int_equal(j->op_deadline_ns, 5 * NS_PER_SEC);
    assert_int_equal(j->server_timeout_ns, 120 * NS_PER_SEC);
    plan_free(&p);

    j = parse_ok("[j]\nsize=1m\nioengine=nfs\nnfs_url=nfs://srv/export\nnconnect=16\n", &p);
    assert_int_equal(j->nconnect, 16);
    plan_free(&p);

    j = parse_ok("[j]\nsize=1m\nthinktime=2ms\nio_limit=512k\n", &p);
    assert_int_equal(j->thinktime_ns, 2 * NS_PER_MS);
    assert_int_equal(j->io_size, 512 * KiB);
    /* defaults */
    assert_int_equal(j->loops, 1);
    assert_int_equal(j->randrepeat, 1);
    assert_int_equal(j->invalidate, 1);
    assert_int_equal(j->op_deadline_ns, 60 * NS_PER_SEC);
    assert_int_equal(j->server_timeout_ns, 30 * NS_PER_SEC);
    assert_int_equal(j->nconnect, 0);          /* not set: one connection */
    plan_free(&p);

    key_err("bsrange=64k-4k", "t.fio:3: bad value for 'bsrange': '64k-4k' (want min-max with 0 < min <= max)");
    key_err("bsrange=4k", "t.fio:3: bad value for 'bsrange': '4k' (want min-max, e.g. 4k-64k)");
    key_err("offset=50%", "t.fio:3: bad value for 'offset': '50%'");
    key_err("number_ios=lots", "t.fio:3: bad value for 'number_ios': 'lots'");
    key_err("startdelay=1-5", "t.fio:3: bad value for 'startdelay': '1-5'");
    key_err("thinktime=x", "t.fio:3: bad value for 'thinktime': 'x'");
    key_err("sync=dsync", "t.fio:3: bad value for 'sync': 'dsync' (O_DSYNC is not supported; use fdatasync=1)");
    key_err("nconnect=17", "t.fio:3: bad value for 'nconnect': '17' (want 1 to 16 TCP connections per job)");
    key_err("nconnect=0", "t.fio:3: bad value for 'nconnect': '0' (want 1 to 16 TCP connections per job)");
    key_err("nconnect=2", "t.fio: job 'j': nconnect= requires ioengine=nfs (kernel mounts take it as a mount option)");
    key_err("loops=0", "t.fio: job 'j': loops must be at least 1");
    key_err("op_deadline=0", "t.fio: job 'j': op_deadline must be greater than 0");
    key_err("bsrange=4k-2m", "t.fio: job 'j': bs (2097152) is larger than the per-file size (1048576)");
}

static void test_plan_keys_buffered_is_not_direct(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(parse_ok("[j]\nsize=1m\nbuffered=0\n", &p)->direct, 1);
    plan_free(&p);
    assert_int_equal(parse_ok("[j]\nsize=1m\ndirect=1\nbuffered=1\n", &p)->direct, 0);
    plan_free(&p);
    assert_int_equal(parse_ok("[j]\nsize=1m\nbuffered=0\nsync=none\n", &p)->sync, 0);
    plan_free(&p);
}

static void test_plan_keys_bssplit(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nbssplit=4k/10:64k/50:32k/40\n", &p);
    assert_int_equal(j->nbssplit, 3);
    assert_int_equal(j->bssplit[0].bs, 4 * KiB);
    assert_int_equal(j->bssplit[0].pct, 10);
    assert_int_equal(j->bssplit[1].bs, 64 * KiB);
    assert_int_equal(j->bssplit[2].pct, 40);
    plan_free(&p);
    /* entries without a percentage share what is left, as in fio */
    j = parse_ok("[j]\nsize=1m\nbssplit=4k/10:8k:16k,4k/10:8k:16k\n", &p);
    assert_int_equal(j->nbssplit, 3);
    assert_int_equal(j->bssplit[1].pct + j->bssplit[2].pct, 90);
    assert_int_equal(j->bssplit[1].pct, 45);
    plan_free(&p);
    key_err("bssplit=4k/60:8k/60", "t.fio:3: bad value for 'bssplit': '4k/60:8k/60' (percentages add up to 120, not 100)");
    key_err("bssplit=4k/50", "t.fio:3: bad value for 'bssplit': '4k/50' (percentages add up to 50, not 100)");
    key_err("bssplit=4q/100", "t.fio:3: bad value for 'bssplit': '4q/100' (bad block size '4q')");
    key_err("bssplit=1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1",
            "t.fio:3: bad value for 'bssplit': '1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1' (at most 16 entries)");
}

static void test_plan_keys_rates(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nrate=10m\nrate_iops=200,200\nrate_process=poisson\n", &p);
    assert_int_equal(j->rate_bps, 10 * MiB);
    assert_int_equal(j->rate_iops, 200);
    assert_int_equal(j->rate_process, RATE_POISSON);
    plan_free(&p);
    assert_int_equal(parse_ok("[j]\nsize=1m\nrate_iops=5\n", &p)->rate_process, RATE_LINEAR);
    plan_free(&p);
    key_err("rate_iops=1k", "t.fio:3: bad value for 'rate_iops': '1k'");
    key_err("rate_process=bursty", "t.fio:3: bad value for 'rate_process': 'bursty' (want linear or poisson)");
}

/* fio's "read,write[,trim]" lists: reads' part in the field, writes' in
 * its _w twin; an empty part keeps (bs) or uncaps (rate) that direction. */
static void test_plan_keys_per_direction(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nrw=rw\nbs=4k,64k\nbsrange=4k-8k,16k-32k,1k-2k\n"
                                        "bssplit=4k/100,8k/50:16k/50\nrate=1m,2m\nrate_iops=,300\n", &p);
    assert_int_equal(j->bs, 4 * KiB);
    assert_int_equal(j->bs_w, 64 * KiB);
    assert_int_equal(j->bsrange_min, 4 * KiB);
    assert_int_equal(j->bsrange_max, 8 * KiB);
    assert_int_equal(j->bsrange_w_min, 16 * KiB);
    assert_int_equal(j->bsrange_w_max, 32 * KiB);
    assert_int_equal(j->nbssplit, 1);
    assert_int_equal(j->nbssplit_w, 2);
    assert_int_equal(j->bssplit_w[1].bs, 16 * KiB);
    assert_int_equal(j->bssplit_w[1].pct, 50);
    assert_int_equal(j->rate_per_dir, 1);
    assert_int_equal(j->rate_bps, 1 * MiB);
    assert_int_equal(j->rate_w_bps, 2 * MiB);
    assert_int_equal(j->rate_iops, 0);
    assert_int_equal(j->rate_w_iops, 300);
    plan_free(&p);
    /* one value: both directions, one schedule; "bs=,8k" keeps reads' 4k */
    j = parse_ok("[j]\nsize=1m\nbs=4k,64k\nbs=16k\nrate=1m\n", &p);
    assert_int_equal(j->bs, 16 * KiB);
    assert_int_equal(j->bs_w, 0);
    assert_int_equal(j->rate_per_dir, 0);
    assert_int_equal(j->rate_bps, 1 * MiB);
    plan_free(&p);
    j = parse_ok("[j]\nsize=1m\nbs=,8k\n", &p);
    assert_int_equal(j->bs, 4 * KiB);
    assert_int_equal(j->bs_w, 8 * KiB);
    plan_free(&p);
    key_err("bs=4k,8k,16k,32k", "t.fio:3: bad value for 'bs': '4k,8k,16k,32k' "
            "(at most three values (reads, writes, trims))");
    key_err("bs=4k,8q", "t.fio:3: bad value for 'bs': '4k,8q'");
    /* minimum rates: one value binds each direction (fio) */
    j = parse_ok("[j]\nsize=1m\nrate_min=1m\nrate_iops_min=10,20\nratecycle=250\n", &p);
    assert_int_equal(j->rate_min_bps, 1 * MiB);
    assert_int_equal(j->rate_min_w_bps, 1 * MiB);
    assert_int_equal(j->rate_min_iops, 10);
    assert_int_equal(j->rate_min_w_iops, 20);
    assert_int_equal(j->ratecycle_ns, 250 * NS_PER_MS);
    plan_free(&p);
    j = parse_ok("[j]\nsize=1m\nrate_min=,2m\n", &p);
    assert_int_equal(j->rate_min_bps, 0);
    assert_int_equal(j->rate_min_w_bps, 2 * MiB);
    plan_free(&p);
    key_err("bssplit=4k/100,8k/60", "t.fio:3: bad value for 'bssplit': '4k/100,8k/60' "
            "(percentages add up to 60, not 100)");
    key_err("bs=4k,2m", "t.fio: job 'j': bs (2097152) is larger than the per-file size (1048576)");
}

/* rw=MODE:N and rw_sequencer, parsed as fio: a count for random modes, a
 * hole size for sequential ones. */
static void test_plan_keys_rw_sequence_modifier(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nrw=randread:8\nrw_sequencer=identical\n", &p);
    assert_int_equal(j->rw, RW_RANDREAD);
    assert_int_equal(j->rw_seq_nr, 8);
    assert_int_equal(j->rw_seq_bytes, 0);
    assert_int_equal(j->rw_sequencer, RWSEQ_IDENTICAL);
    plan_free(&p);
    j = parse_ok("[j]\nsize=1m\nrw=write:4k\n", &p);
    assert_int_equal(j->rw, RW_WRITE);
    assert_int_equal(j->rw_seq_nr, 0);
    assert_int_equal(j->rw_seq_bytes, 4 * KiB);
    assert_int_equal(j->rw_sequencer, RWSEQ_SEQUENTIAL);
    plan_free(&p);
    key_err("rw=randread:x", "t.fio:3: bad value for 'rw': 'randread:x' (want randread:N with N >= 1 ops per random offset)");
    j = parse_ok("[j]\nsize=1m\nrw=read:-8k\n", &p);
    assert_int_equal(j->rw, RW_READ);
    assert_true((int64_t)j->rw_seq_bytes == -8 * (int64_t)KiB);
    plan_free(&p);
    key_err("rw=read:-", "t.fio:3: bad value for 'rw': 'read:-' (want read:-SIZE, the step back after each op)");
    key_err("rw=randread:-4k", "t.fio:3: bad value for 'rw': 'randread:-4k' (want randread:N with N >= 1 ops per random offset)");
    key_err("rw_sequencer=random", "t.fio:3: bad value for 'rw_sequencer': 'random' (want sequential or identical)");
}

static void test_plan_keys_zoned(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nrw=randrw\n"
                                        "random_distribution=zoned:60/10:30/20:10/70,100/50\n", &p);
    assert_int_equal(j->random_distribution, DIST_ZONED);
    assert_string_equal(j->zones, "60/10:30/20:10/70,100/50");
    plan_free(&p);
    j = parse_ok("[j]\nsize=1m\nrw=randread\nrandom_distribution=zoned_abs:60/64k:40/128k\n", &p);
    assert_int_equal(j->random_distribution, DIST_ZONED_ABS);
    assert_string_equal(j->zones, "60/64k:40/128k");
    plan_free(&p);
    /* another distribution after it drops the zones */
    j = parse_ok("[j]\nsize=1m\nrandom_distribution=zoned:100/10\nrandom_distribution=zipf\n", &p);
    assert_int_equal(j->random_distribution, DIST_ZIPF);
    assert_string_equal(j->zones, "");
    plan_free(&p);
    /* fio's "20/": the zone takes what the others leave */
    j = parse_ok("[j]\nsize=1m\nrandom_distribution=zoned:50/5:30/15:20/\n", &p);
    assert_string_equal(j->zones, "50/5:30/15:20/");
    plan_free(&p);
    key_err("random_distribution=zoned:50/100:50/", "t.fio:3: bad value for 'random_distribution': "
            "'zoned:50/100:50/' (zone sizes add up to 101% of the region, more than 100)");
    key_err("random_distribution=zoned:100/10,100/10,100/10,100/10", "t.fio:3: bad value for "
            "'random_distribution': 'zoned:100/10,100/10,100/10,100/10' (at most three lists (reads, "
            "writes, trims))");
    key_err("random_distribution=zoned", "t.fio:3: bad value for 'random_distribution': 'zoned' (want zoned:ACCESS/SIZE:...)");
    key_err("random_distribution=zoned:60/70:40/40", "t.fio:3: bad value for 'random_distribution': "
            "'zoned:60/70:40/40' (zone sizes add up to 110% of the region, more than 100)");
    key_err("random_distribution=zoned:60-10", "t.fio:3: bad value for 'random_distribution': "
            "'zoned:60-10' (zone '60-10' is not ACCESS/SIZE)");
    key_err("random_distribution=zoned_abs:100/0", "t.fio:3: bad value for 'random_distribution': "
            "'zoned_abs:100/0' (bad zone size '0')");
}

static void test_plan_keys_random_distribution(void **state)
{
    (void)state;
    static const struct { const char *v; enum rand_dist d; double param; } ok[] = {
        { "random", DIST_RANDOM, 0 }, { "zipf:1.2", DIST_ZIPF, 1.2 }, { "zipf", DIST_ZIPF, 1.1 },
        { "zipf:0.8", DIST_ZIPF, 0.8 }, { "pareto:0.3", DIST_PARETO, 0.3 },
        { "pareto", DIST_PARETO, 0.2 }, { "normal:5", DIST_NORMAL, 5 }, { "gauss:0", DIST_NORMAL, 0 },
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct plan p;
        char text[128];
        snprintf(text, sizeof(text), "[j]\nsize=1m\nrw=randread\nrandom_distribution=%s\n", ok[i].v);
        const struct job_spec *j = parse_ok(text, &p);
        assert_int_equal(j->random_distribution, ok[i].d);
        assert_true(j->dist_param == ok[i].param);
        plan_free(&p);
    }
    key_err("random_distribution=zipf:1", "t.fio:3: bad value for 'random_distribution': 'zipf:1' (zipf theta must be > 0 and not 1.0)");
    key_err("random_distribution=zipf:-2", "t.fio:3: bad value for 'random_distribution': 'zipf:-2' (zipf theta must be > 0 and not 1.0)");
    key_err("random_distribution=pareto:1", "t.fio:3: bad value for 'random_distribution': 'pareto:1' (pareto h must be > 0 and < 1)");
    key_err("random_distribution=normal:100", "t.fio:3: bad value for 'random_distribution': 'normal:100' (normal deviation must be >= 0 and < 100 (percent))");
    key_err("random_distribution=zoned:50/5:40/95", "t.fio:3: bad value for 'random_distribution': 'zoned:50/5:40/95' (access percentages add up to 90, not 100)");
    key_err("random_distribution=random:2", "t.fio:3: bad value for 'random_distribution': 'random:2' (random takes no parameter)");
    key_err("random_distribution=zipf:x", "t.fio:3: bad value for 'random_distribution': 'zipf:x' (bad parameter 'x')");
}

static void test_plan_keys_engines_and_file_service(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[j]\nsize=1m\nioengine=io_uring\niodepth=32\nfile_service_type=random\n", &p);
    assert_string_equal(j->ioengine, "io_uring");
    assert_int_equal(j->iodepth, 32);
    assert_int_equal(j->file_service_type, FSERV_RANDOM);
    plan_free(&p);
    key_err("file_service_type=random:4", "t.fio:3: bad value for 'file_service_type': 'random:4' "
            "(want roundrobin, sequential or random (the ':N' form is not supported))");
}

static void test_plan_keys_metadata_jobs(void **state)
{
    (void)state;
    struct plan p;
    const struct job_spec *j = parse_ok("[md]\nrw=metadata\nnrfiles=1000\nfiles_per_dir=100\nshared_dir=1\n", &p);
    assert_int_equal(j->rw, RW_METADATA);
    assert_int_equal(j->size, 0);                 /* no size needed: empty files */
    assert_int_equal(j->n_md_ops, 3);             /* default create,stat,unlink */
    assert_int_equal(j->md_ops[0], OP_CREATE);
    assert_int_equal(j->md_ops[1], OP_STAT);
    assert_int_equal(j->md_ops[2], OP_UNLINK);
    assert_int_equal(j->files_per_dir, 100);
    assert_int_equal(j->shared_dir, 1);
    plan_free(&p);
    j = parse_ok("[global]\nnrfiles=10\n[md]\nrw=metadata\nfilesize=4k\n"
                 "md_ops=mkdir,create,open,readdir,rename,stat,unlink,rmdir\n", &p);
    assert_int_equal(j->n_md_ops, 8);
    assert_int_equal(j->md_ops[0], OP_MKDIR);
    assert_int_equal(j->md_ops[7], OP_RMDIR);
    assert_int_equal(j->filesize, 4 * KiB);
    plan_free(&p);
    parse_err("[md]\nrw=metadata\n", "t.fio: job 'md': rw=metadata requires nrfiles=");
    parse_err("[md]\nrw=metadata\nnrfiles=2\nmd_ops=create,read\n",
              "t.fio:4: bad value for 'md_ops': 'create,read' ('read' is not one of create, stat, "
              "open, readdir, rename, unlink, mkdir, rmdir)");
    parse_err("[j]\nsize=1m\nmd_ops=stat\n", "t.fio: job 'j': md_ops= requires rw=metadata");
    parse_err("[j]\nsize=1m\nshared_dir=1\n", "t.fio: job 'j': shared_dir= requires rw=metadata");
}

static void test_plan_keys_agents_syntax_match_and_labels(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(plan_agents_check("", err, sizeof(err)), 0);
    assert_int_equal(plan_agents_check("0-3,7", err, sizeof(err)), 0);
    assert_int_equal(plan_agents_check("@fast,2", err, sizeof(err)), 0);
    assert_int_equal(plan_agents_check("3-1", err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "bad entry '3-1' (want N, N-M or @label, comma-separated)");
    assert_int_equal(plan_agents_check("1,,2", err, sizeof(err)), -EINVAL);
    assert_int_equal(plan_agents_check("@", err, sizeof(err)), -EINVAL);
    assert_int_equal(plan_agents_check("x", err, sizeof(err)), -EINVAL);

    assert_true(plan_agents_match("", 99));
    assert_true(plan_agents_match("0-3,7", 0));
    assert_true(plan_agents_match("0-3,7", 3));
    assert_false(plan_agents_match("0-3,7", 4));
    assert_true(plan_agents_match("0-3,7", 7));
    assert_false(plan_agents_match("@fast", 0));   /* unresolved labels match nothing */

    struct plan p;
    parse_ok("[a]\nsize=1m\nagents=@fast\n[b]\nsize=1m\nagents=@slow,0\n[c]\nsize=1m\n", &p);
    const char *labels[] = { "fast", NULL, "slow,fast", "fast" };
    assert_int_equal(plan_resolve_labels(&p, labels, 4, err, sizeof(err)), 0);
    assert_string_equal(p.phases[0].jobs[0].agents, "0,2-3");
    assert_string_equal(p.phases[0].jobs[1].agents, "2,0");
    assert_string_equal(p.phases[0].jobs[2].agents, "");
    /* ${job} numbering skips jobs an agent does not run */
    assert_int_equal(plan_job_base(&p.phases[0], 2, 1), 0);
    assert_int_equal(plan_job_base(&p.phases[0], 2, 0), 2);
    plan_free(&p);

    parse_ok("[a]\nsize=1m\nagents=@nope\n", &p);
    assert_int_equal(plan_resolve_labels(&p, labels, 4, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "job 'a': agents=@nope: no agent has the label 'nope'");
    plan_free(&p);
    parse_ok("[a]\nsize=1m\nagents=5-9\n", &p);
    assert_int_equal(plan_resolve_labels(&p, NULL, 4, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "job 'a': agents=5-9 selects none of the 4 agents");
    plan_free(&p);
    key_err("agents=1-", "t.fio:3: bad value for 'agents': '1-' (bad entry '1-' (want N, N-M or @label, comma-separated))");
}

static void test_plan_keys_matrix_names_and_order(void **state)
{
    (void)state;
    struct plan p;
    parse_ok("[global]\nsize=64m\nruntime=1\n[before]\n[seed]\nmatrix=rw:read,write,randread,randwrite bs:4k,32m\n"
             "[after]\n", &p);
    static const char *const want[] = {
        "seed-read-4k", "seed-read-32m", "seed-write-4k", "seed-write-32m",
        "seed-randread-4k", "seed-randread-32m", "seed-randwrite-4k", "seed-randwrite-32m",
    };
    /* before, 8 combinations, and after joins the last phase (no stonewall) */
    assert_int_equal(p.nphases, 9);
    assert_string_equal(p.phases[0].name, "before");
    for (int i = 0; i < 8; i++) {
        assert_string_equal(p.phases[i + 1].name, want[i]);
        assert_string_equal(p.phases[i + 1].jobs[0].name, want[i]);
        assert_int_equal(p.phases[i + 1].jobs[0].bs, i % 2 ? 32 * MiB : 4 * KiB);
        assert_int_equal(p.phases[i + 1].jobs[0].rw, (enum rw_mode)(i / 2));
    }
    assert_int_equal(p.phases[8].njobs, 2);
    assert_string_equal(p.phases[8].jobs[1].name, "after");
    plan_free(&p);

    /* a [global] matrix applies to every job; other keys as dimensions */
    parse_ok("[global]\nsize=1m\nmatrix=numjobs:1,4\n[a]\n[b]\n", &p);
    assert_int_equal(p.nphases, 4);
    assert_string_equal(p.phases[3].name, "b-4");
    assert_int_equal(p.phases[3].jobs[0].numjobs, 4);
    plan_free(&p);

    parse_err("[j]\nsize=1m\nmatrix=rw:read,sideways\n",
              "t.fio:3: bad value for 'matrix': bad value for 'rw': 'sideways'");
    parse_err("[j]\nsize=1m\nmatrix=bz:4k\n", "t.fio:3: bad value for 'matrix': 'bz' cannot be a matrix dimension");
    parse_err("[j]\nsize=1m\nmatrix=rw\n", "t.fio:3: bad value for 'matrix': 'rw' is not key:value,value,...");
    parse_err("[j]\nsize=1m\nmatrix=bs:4k,2m\n",
              "t.fio: job 'j-2m': bs (2097152) is larger than the per-file size (1048576)");

    /* the command line takes it too */
    char *argv[] = { "--name=c", "--size=1m", "--matrix=rw:read,write" };
    char err[256];
    assert_int_equal(plan_parse_args(3, argv, &p, err, sizeof(err)), 0);
    assert_int_equal(p.nphases, 2);
    assert_string_equal(p.phases[1].name, "c-write");
    plan_free(&p);
}

/* fio's verify keys: values, defaults, and every refusal names the key. */
static void test_plan_keys_verify(void **state)
{
    struct plan p;
    const struct job_spec *j;
    (void)state;

    parse_ok("[j]\nsize=1m\nrw=randwrite\nverify=crc32c-intel\nverify_fatal=1\nverify_backlog=16\n"
             "verify_interval=1k\nverify_offset=100\nbs=8k\n", &p);
    j = &p.phases[0].jobs[0];
    assert_int_equal(j->verify, VB_CSUM_CRC32C);
    assert_int_equal(j->no_do_verify, 0);          /* do_verify defaults to 1 */
    assert_int_equal(j->verify_fatal, 1);
    assert_int_equal(j->verify_backlog, 16);
    assert_int_equal(j->verify_interval, 1024);
    assert_int_equal(j->verify_offset, 100);
    assert_int_equal(p.nwarnings, 0);
    plan_free(&p);
    parse_ok("[j]\nsize=1m\nrw=write\nverify=sha256\ndo_verify=0\n", &p);
    assert_int_equal(p.phases[0].jobs[0].verify, VB_CSUM_SHA256);
    assert_int_equal(p.phases[0].jobs[0].no_do_verify, 1);
    plan_free(&p);
    /* fio: verify_pattern alone means verify=pattern; verify= still wins */
    parse_ok("[j]\nsize=1m\nverify_pattern=0xdeadbeef\n", &p);
    assert_int_equal(p.phases[0].jobs[0].verify, VB_CSUM_PATTERN);
    plan_free(&p);
    parse_ok("[j]\nsize=1m\nverify=md5\nverify_pattern='ab'\n", &p);
    assert_int_equal(p.phases[0].jobs[0].verify, VB_CSUM_MD5);
    plan_free(&p);
    parse_ok("[j]\nsize=1m\nrw=read\nverify=meta\nverify_only=1\n", &p);
    assert_int_equal(p.phases[0].jobs[0].verify, VB_CSUM_META);
    assert_int_equal(p.phases[0].jobs[0].verify_only, 1);
    plan_free(&p);

    parse_err("[j]\nsize=1m\nverify=sha1\n", "t.fio:3: bad value for 'verify': 'sha1' (want crc32c, "
              "crc32c-intel, md5, sha256, meta, pattern or null)");
    parse_err("[j]\nsize=1m\nverify_only=1\n",
              "t.fio: job 'j': verify_only= needs verify= (crc32c, md5, sha256, meta, pattern)");
    parse_err("[j]\nsize=1m\nverify=md5\nbs=64\n",
              "t.fio: job 'j': verify=md5 needs bs of at least 128 bytes (the header is 112): 64 is not");
    parse_err("[j]\nsize=1m\nverify=md5\nverify_interval=3000\n",
              "t.fio: job 'j': verify_interval=3000 must divide every block size (4096 does not)");
    parse_err("[j]\nsize=1m\nverify=md5\nverify_offset=4000\n",
              "t.fio: job 'j': verify_offset=4000 leaves no room for the 112-byte header in a 4096-byte unit");
    parse_err("[j]\nsize=1m\nverify=md5\nbsrange=4k-16k\n",
              "t.fio: job 'j': verify with bsrange needs verify_interval= (a divisor of every block size)");
    parse_err("[j]\nsize=1m\nverify=pattern\n", "t.fio: job 'j': verify=pattern needs verify_pattern=");
    parse_err("[j]\nsize=1m\nverify=crc32c\nioengine=null\n",
              "t.fio: job 'j': verify= needs an engine that moves data, not ioengine=null");
    parse_err("[j]\nsize=1m\nrw=write\nverify=crc32c\nrate_iops=100\nrate_process=poisson\n",
              "t.fio: job 'j': do_verify reads back the write pass's offsets, which rate_process=poisson "
              "draws from; use rate_process=linear or do_verify=0");
    parse_err("[j]\nsize=1m\nverify=crc32c\nverify_only=1\ntime_based\nruntime=1\n",
              "t.fio: job 'j': verify_only does not support time_based (as fio)");
    parse_err("[j]\nsize=1m\nverify=crc32c\nverify_interval=5g\n",
              "t.fio:4: bad value for 'verify_interval': '5g' (want a size below 4g)");
    /* 4g itself is past a 32-bit size: the message must not offer it */
    parse_err("[j]\nsize=1m\nbuffer_compress_chunk=4g\n",
              "t.fio:3: bad value for 'buffer_compress_chunk': '4g' (want a size below 4g)");
}

static void test_plan_keys_unknown_key_suggests_and_ignored_warn(void **state)
{
    (void)state;
    parse_err("[j]\nsize=1m\nrandom_distrbution=zipf\n",
              "t.fio:3: unknown key 'random_distrbution' (did you mean 'random_distribution'?)");
    parse_err("[j]\nsize=1m\nofset=4k\n", "t.fio:3: unknown key 'ofset' (did you mean 'offset'?)");
    parse_err("[j]\nsize=1m\nfrobnicate=1\n", "t.fio:3: unknown key 'frobnicate'");
    assert_string_equal(plan_key_suggest("ratee"), "rate");
    assert_null(plan_key_suggest("zz"));

    struct plan p, copy;
    parse_ok("[global]\ncpus_allowed=0-3\n[j]\nsize=1m\nverify_dump=1\nrandom_generator=tausworthe64\n", &p);
    assert_int_equal(p.nwarnings, 3);
    assert_string_equal(p.warnings[0], "t.fio:2: 'cpus_allowed' is not implemented by nfstorm "
                        "(placement and priority of the load generator's own threads); ignored");
    assert_string_equal(p.warnings[1], "t.fio:5: 'verify_dump' is not implemented by nfstorm "
                        "(the first bad blocks are in the results); ignored");
    plan_copy(&copy, &p);
    plan_free(&p);
    assert_int_equal(copy.nwarnings, 3);
    assert_string_equal(copy.warnings[0], "t.fio:2: 'cpus_allowed' is not implemented by nfstorm "
                        "(placement and priority of the load generator's own threads); ignored");
    plan_free(&copy);

    char *argv[] = { "--name=c", "--size=1m", "-gtod_reduce=1" };
    char err[256];
    assert_int_equal(plan_parse_args(3, argv, &p, err, sizeof(err)), 0);
    assert_int_equal(p.nwarnings, 1);
    assert_string_equal(p.warnings[0], "option '-gtod_reduce' is not implemented by nfstorm "
                        "(nfstorm uses one monotonic clock); ignored");
    plan_free(&p);
}

static void test_plan_keys_env_expansion(void **state)
{
    (void)state;
    struct plan p;
    setenv("NFSTORM_T_SIZE", "2m", 1);
    setenv("NFSTORM_T_DIR", "/mnt/x", 1);
    unsetenv("NFSTORM_T_UNSET");
    const struct job_spec *j = parse_ok("[j]\nsize=${NFSTORM_T_SIZE}\n"
                                        "directory=${NFSTORM_T_DIR}/${host}/${agent}\n"
                                        "filename=f.${job}.${nagents}\n", &p);
    assert_int_equal(j->size, 2 * MiB);
    assert_string_equal(j->directory, "/mnt/x/${host}/${agent}");   /* path variables stay */
    assert_string_equal(j->filename, "f.${job}.${nagents}");
    plan_free(&p);
    /* fio: an unset variable expands to nothing; nfstorm also warns */
    j = parse_ok("[j]\nsize=1m\ndirectory=/a/${NFSTORM_T_UNSET}x\n", &p);
    assert_string_equal(j->directory, "/a/x");
    assert_int_equal(p.nwarnings, 1);
    assert_string_equal(p.warnings[0], "t.fio:3: environment variable 'NFSTORM_T_UNSET' is not set "
                        "(used in 'directory'); it expands to nothing, as in fio");
    plan_free(&p);
    parse_err("[j]\nsize=${NFSTORM_T_UNSET}\n", "t.fio:2: bad value for 'size': '' "
              "(environment variable 'NFSTORM_T_UNSET' is not set)");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_plan_keys_include(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_plan_inc_XXXXXX", a[96], b[96], c[96], sub[96], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(a, sizeof(a), "%s/main.fio", dir);
    snprintf(b, sizeof(b), "%s/sub/common.fio", dir);
    snprintf(c, sizeof(c), "%s/sub/bad.fio", dir);
    /* relative to the including file: sub/common.fio includes bad.fio as "bad.fio" */
    write_file(a, "[global]\ninclude sub/common.fio\n[j]\nrw=write\n");
    write_file(b, "; shared settings\nsize=4m\nbs=64k\n");

    struct plan p;
    assert_int_equal(plan_parse_file(a, &p, err, sizeof(err)), 0);
    assert_int_equal(p.phases[0].jobs[0].size, 4 * MiB);
    assert_int_equal(p.phases[0].jobs[0].bs, 64 * KiB);
    assert_int_equal(p.phases[0].jobs[0].rw, RW_WRITE);
    plan_free(&p);

    /* an error in the included file names it and its line */
    write_file(b, "size=4m\ninclude bad.fio\n");
    write_file(c, "\nbs=4q\n");
    assert_int_not_equal(plan_parse_file(a, &p, err, sizeof(err)), 0);
    char want[512];
    snprintf(want, sizeof(want), "%s:2: bad value for 'bs': '4q'", c);
    assert_string_equal(err, want);

    /* cycles and missing files */
    write_file(c, "include common.fio\n");
    assert_int_not_equal(plan_parse_file(a, &p, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "%s:1: include 'common.fio': cycle (the file is already being read)", c);
    assert_string_equal(err, want);
    write_file(c, "include nosuch.fio\n");
    assert_int_not_equal(plan_parse_file(a, &p, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "%s:1: include '%s/sub/nosuch.fio': cannot open: No such file or directory", c, dir);
    assert_string_equal(err, want);

    unlink(a);
    unlink(b);
    unlink(c);
    rmdir(sub);
    rmdir(dir);
}

static void test_plan_keys_buffer_pattern(void **state)
{
    unsigned char b[16];
    size_t n;
    struct job_spec j;
    (void)state;
    assert_int_equal(plan_pattern_bytes("0xa0", b, sizeof b, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(b[0], 0xa0);
    assert_int_equal(plan_pattern_bytes("0xabc", b, sizeof b, &n), 0);   /* reads as 0x0abc */
    assert_int_equal(n, 2);
    assert_int_equal(b[0], 0x0a);
    assert_int_equal(b[1], 0xbc);
    assert_int_equal(plan_pattern_bytes("'AB'", b, sizeof b, &n), 0);
    assert_int_equal(n, 2);
    assert_memory_equal(b, "AB", 2);
    assert_int_equal(plan_pattern_bytes("258", b, sizeof b, &n), 0);     /* big-endian bytes */
    assert_int_equal(n, 2);
    assert_int_equal(b[0], 1);
    assert_int_equal(b[1], 2);
    assert_int_equal(plan_pattern_bytes("0xZZ", b, sizeof b, &n), -EINVAL);
    assert_int_equal(plan_pattern_bytes("''", b, sizeof b, &n), -EINVAL);
    assert_int_equal(plan_pattern_bytes("0x0102030405060708090a0b0c0d0e0f1011", b, sizeof b, &n), -EINVAL);
    job_spec_default(&j);
    assert_int_equal(plan_job_set(&j, "buffer_pattern", "0xdeadbeef"), 0);
    assert_string_equal(j.buffer_pattern, "0xdeadbeef");
    assert_int_equal(plan_job_set(&j, "buffer_pattern", "nope"), -EINVAL);
    assert_int_equal(plan_job_set(&j, "name", "plain"), 0);   /* not mistaken for a pattern */
    assert_string_equal(j.name, "plain");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_keys_sizes_counts_durations),
        cmocka_unit_test(test_plan_keys_buffered_is_not_direct),
        cmocka_unit_test(test_plan_keys_bssplit),
        cmocka_unit_test(test_plan_keys_rates),
        cmocka_unit_test(test_plan_keys_random_distribution),
        cmocka_unit_test(test_plan_keys_per_direction),
        cmocka_unit_test(test_plan_keys_rw_sequence_modifier),
        cmocka_unit_test(test_plan_keys_zoned),
        cmocka_unit_test(test_plan_keys_engines_and_file_service),
        cmocka_unit_test(test_plan_keys_metadata_jobs),
        cmocka_unit_test(test_plan_keys_agents_syntax_match_and_labels),
        cmocka_unit_test(test_plan_keys_matrix_names_and_order),
        cmocka_unit_test(test_plan_keys_unknown_key_suggests_and_ignored_warn),
        cmocka_unit_test(test_plan_keys_verify),
        cmocka_unit_test(test_plan_keys_env_expansion),
        cmocka_unit_test(test_plan_keys_include),
        cmocka_unit_test(test_plan_keys_buffer_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
