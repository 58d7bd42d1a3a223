/* Unit tests for proto/msg: round trips of every message with distinctive
 * values, and the decoders' defences (truncation, garbage, mutations, unknown
 * keys, missing keys, wrong types, ranges, caps, lying msgpack counts).
 *
 * Malformed messages are made by decoding a valid frame into a msgpack
 * object tree, editing one node found by a dotted path
 * ("phases.1.jobs.0.numjobs"), and packing it again, so every case differs
 * from a valid message in exactly one place. */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msgpack.h>

#include "common/clone_set.h"
#include "common/hist.h"
#include "common/plan.h"
#include "common/stats.h"
#include "proto/msg.h"
#include "proto/coh_msg.h"
#include "proto/pool_msg.h"
#include "tests/unit/msg_frame_util.h"

/* ---- helpers --------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so a failure reproduces */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* The payload of the single frame in b, after checking its header. */
static const char *payload_of(const struct buf *b, size_t *n)
{
    const unsigned char *h = (const unsigned char *)b->data;
    uint32_t len;

    assert_true(b->len >= FRAME_HEADER_LEN);
    len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    assert_int_equal(len, b->len - FRAME_HEADER_LEN);
    *n = len;
    return b->data + FRAME_HEADER_LEN;
}

static void fill_hist_random(struct hist *h, unsigned nsamples)
{
    hist_init(h);
    for (unsigned i = 0; i < nsamples; i++) {
        uint64_t v = rnd() >> (rnd() % 64);
        if (i % 97 == 0)
            v = HIST_MAX_NS + (rnd() % 1000);   /* the overflow bucket */
        hist_record(h, v);
    }
}

static void fill_job(struct job_spec *j, unsigned k)
{
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "job-%u", k);
    j->rw = (enum rw_mode)(RW_RANDRW - k % 3);
    j->rwmixread = 70 + k;
    j->bs = 65536 + k;
    j->size = (UINT64_C(1) << 40) + k;
    j->filesize = (UINT64_C(3) << 33) + k;
    j->nrfiles = 17 + k;
    j->numjobs = 4000 + k;
    j->runtime_ns = UINT64_MAX - k;
    j->ramp_ns = UINT64_C(5000000000) + k;
    j->time_based = 1;
    j->direct = 1;
    j->fsync = 32 + k;
    j->end_fsync = 1;
    j->stonewall = 1;
    j->group_reporting = 1;
    snprintf(j->filename, sizeof j->filename, "/mnt/nfs/${agent}/file-%u", k);
    memset(j->directory, 'd', sizeof j->directory - 1);   /* longest allowed */
    j->directory[0] = (char)('A' + k);
    snprintf(j->ioengine, sizeof j->ioengine, "%s", k % 2 ? "nfs" : "null");
    j->iodepth = 128 + k;
    snprintf(j->nfs_url, sizeof j->nfs_url, "nfs://server-%u/export?version=3", k);
    /* the wider fio dialect */
    memset(j->description, 'w', sizeof j->description - 1);   /* longest allowed */
    j->bsrange_min = 4096 + k;
    j->bsrange_max = (UINT64_C(1) << 20) + k;
    j->nbssplit = PLAN_MAX_BSSPLIT - k % 2;
    for (uint32_t i = 0; i < j->nbssplit; i++) {
        j->bssplit[i].bs = (UINT64_C(4096) << i) + k;
        j->bssplit[i].pct = i ? 6 : 100 - 6 * (j->nbssplit - 1);
    }
    j->offset = (UINT64_C(1) << 41) + k;
    j->offset_increment = (UINT64_C(1) << 30) + k;
    j->io_size = UINT64_MAX - 7 - k;
    j->number_ios = 1000003 + k;
    j->loops = 9 + k;
    j->startdelay_ns = UINT64_C(2500000000) + k;
    j->thinktime_ns = 1500 + k;
    j->rate_bps = (UINT64_C(100) << 20) + k;
    j->rate_iops = 200 + k;
    j->rate_process = k % 2 ? RATE_LINEAR : RATE_POISSON;
    j->randrepeat = 0;
    j->randseed = UINT64_C(0xdeadbeefcafe) + k;
    j->random_distribution = (enum rand_dist)(1 + k % 3);
    j->dist_param = 0.25 + k;
    j->unlink = 1;
    j->sync = 1;
    j->fdatasync = 5 + k;
    j->invalidate = 0;
    j->file_service_type = (enum file_service)(1 + k % 2);
    snprintf(j->filename_format, sizeof j->filename_format, "$jobname.$agent.$jobnum.%u", k);
    j->new_group = 1;
    snprintf(j->agents, sizeof j->agents, "0-3,%u", 7 + k);
    j->n_md_ops = PLAN_MAX_MD_OPS - k % 2;
    for (uint32_t i = 0; i < j->n_md_ops; i++)
        j->md_ops[i] = OP_CREATE + (i + k) % (OP_RMDIR + 1 - OP_CREATE);   /* the metadata ops */
    j->files_per_dir = 100 + k;
    j->shared_dir = 1;
    j->op_deadline_ns = UINT64_C(61000000000) + k;
    j->server_timeout_ns = UINT64_C(31000000000) + k;
    j->nconnect = 1 + (uint32_t)k;
    if (k % 2) {   /* the per-direction keys, sent only when set: one job has them */
        j->bs_w = 131072 + k;
        j->bsrange_w_min = 8192 + k;
        j->bsrange_w_max = (UINT64_C(2) << 20) + k;
        j->nbssplit_w = 2;
        j->bssplit_w[0].bs = 8192;
        j->bssplit_w[0].pct = 30;
        j->bssplit_w[1].bs = 16384 + k;
        j->bssplit_w[1].pct = 70;
        j->rate_per_dir = 1;
        j->rate_w_bps = (UINT64_C(3) << 20) + k;
        j->rate_w_iops = 400 + k;
        j->rw_seq_nr = 8 + k;
        j->rw_seq_bytes = 4096 + k;
        j->rw_sequencer = RWSEQ_IDENTICAL;
        snprintf(j->zones, sizeof j->zones, "60/10:40/90,100/%u", 50 + k);
        j->no_file_create = 1;
        j->openfiles = 3 + k;
        j->norandommap = 1;
        j->rate_min_bps = (UINT64_C(1) << 20) + k;
        j->rate_min_w_bps = (UINT64_C(2) << 20) + k;
        j->rate_min_iops = 50 + k;
        j->rate_min_w_iops = 60 + k;
        j->ratecycle_ns = 500000000ull + k;
    }
}

static void assert_job_equal(const struct job_spec *a, const struct job_spec *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->rw, b->rw);
    assert_int_equal(a->rwmixread, b->rwmixread);
    assert_int_equal(a->bs, b->bs);
    assert_int_equal(a->size, b->size);
    assert_int_equal(a->filesize, b->filesize);
    assert_int_equal(a->nrfiles, b->nrfiles);
    assert_int_equal(a->numjobs, b->numjobs);
    assert_int_equal(a->runtime_ns, b->runtime_ns);
    assert_int_equal(a->ramp_ns, b->ramp_ns);
    assert_int_equal(a->time_based, b->time_based);
    assert_int_equal(a->direct, b->direct);
    assert_int_equal(a->fsync, b->fsync);
    assert_int_equal(a->end_fsync, b->end_fsync);
    assert_int_equal(a->stonewall, b->stonewall);
    assert_int_equal(a->group_reporting, b->group_reporting);
    assert_string_equal(a->filename, b->filename);
    assert_string_equal(a->directory, b->directory);
    assert_string_equal(a->ioengine, b->ioengine);
    assert_int_equal(a->iodepth, b->iodepth);
    assert_string_equal(a->nfs_url, b->nfs_url);
    assert_string_equal(a->description, b->description);
    assert_int_equal(a->bsrange_min, b->bsrange_min);
    assert_int_equal(a->bsrange_max, b->bsrange_max);
    assert_int_equal(a->nbssplit, b->nbssplit);
    for (uint32_t i = 0; i < a->nbssplit; i++) {
        assert_int_equal(a->bssplit[i].bs, b->bssplit[i].bs);
        assert_int_equal(a->bssplit[i].pct, b->bssplit[i].pct);
    }
    assert_int_equal(a->offset, b->offset);
    assert_int_equal(a->offset_increment, b->offset_increment);
    assert_int_equal(a->io_size, b->io_size);
    assert_int_equal(a->number_ios, b->number_ios);
    assert_int_equal(a->loops, b->loops);
    assert_int_equal(a->startdelay_ns, b->startdelay_ns);
    assert_int_equal(a->thinktime_ns, b->thinktime_ns);
    assert_int_equal(a->rate_bps, b->rate_bps);
    assert_int_equal(a->rate_iops, b->rate_iops);
    assert_int_equal(a->rate_process, b->rate_process);
    assert_int_equal(a->randrepeat, b->randrepeat);
    assert_int_equal(a->randseed, b->randseed);
    assert_int_equal(a->random_distribution, b->random_distribution);
    assert_true(a->dist_param == b->dist_param);
    assert_int_equal(a->unlink, b->unlink);
    assert_int_equal(a->sync, b->sync);
    assert_int_equal(a->fdatasync, b->fdatasync);
    assert_int_equal(a->invalidate, b->invalidate);
    assert_int_equal(a->file_service_type, b->file_service_type);
    assert_string_equal(a->filename_format, b->filename_format);
    assert_int_equal(a->new_group, b->new_group);
    assert_string_equal(a->agents, b->agents);
    assert_int_equal(a->n_md_ops, b->n_md_ops);
    for (uint32_t i = 0; i < a->n_md_ops; i++)
        assert_int_equal(a->md_ops[i], b->md_ops[i]);
    assert_int_equal(a->files_per_dir, b->files_per_dir);
    assert_int_equal(a->shared_dir, b->shared_dir);
    assert_int_equal(a->op_deadline_ns, b->op_deadline_ns);
    assert_int_equal(a->server_timeout_ns, b->server_timeout_ns);
    assert_int_equal(a->nconnect, b->nconnect);
    assert_int_equal(a->bs_w, b->bs_w);
    assert_int_equal(a->bsrange_w_min, b->bsrange_w_min);
    assert_int_equal(a->bsrange_w_max, b->bsrange_w_max);
    assert_int_equal(a->nbssplit_w, b->nbssplit_w);
    for (uint32_t i = 0; i < a->nbssplit_w; i++) {
        assert_int_equal(a->bssplit_w[i].bs, b->bssplit_w[i].bs);
        assert_int_equal(a->bssplit_w[i].pct, b->bssplit_w[i].pct);
    }
    assert_int_equal(a->rate_per_dir, b->rate_per_dir);
    assert_int_equal(a->rate_w_bps, b->rate_w_bps);
    assert_int_equal(a->rate_w_iops, b->rate_w_iops);
    assert_int_equal(a->rw_seq_nr, b->rw_seq_nr);
    assert_int_equal(a->rw_seq_bytes, b->rw_seq_bytes);
    assert_int_equal(a->rw_sequencer, b->rw_sequencer);
    assert_string_equal(a->zones, b->zones);
    assert_int_equal(a->no_file_create, b->no_file_create);
    assert_int_equal(a->openfiles, b->openfiles);
    assert_int_equal(a->norandommap, b->norandommap);
    assert_int_equal(a->rate_min_bps, b->rate_min_bps);
    assert_int_equal(a->rate_min_w_bps, b->rate_min_w_bps);
    assert_int_equal(a->rate_min_iops, b->rate_min_iops);
    assert_int_equal(a->rate_min_w_iops, b->rate_min_w_iops);
    assert_int_equal(a->ratecycle_ns, b->ratecycle_ns);
}

/* A 2-phase x 2-job plan, every field off its default. */
static void make_plan(struct msg_plan *m)
{
    memset(m, 0, sizeof *m);
    m->agent_index = 6;
    m->nagents = 7;
    m->interval_ms = 250;
    m->plan.nphases = 2;
    m->plan.phases = calloc(2, sizeof *m->plan.phases);
    for (unsigned i = 0; i < 2; i++) {
        struct phase *ph = &m->plan.phases[i];
        snprintf(ph->name, sizeof ph->name, "phase-%c", 'A' + i);
        ph->njobs = 2;
        ph->jobs = calloc(2, sizeof *ph->jobs);
        fill_job(&ph->jobs[0], 2 * i);
        fill_job(&ph->jobs[1], 2 * i + 1);
    }
}

static void free_plan(struct msg_plan *m)
{
    for (unsigned i = 0; i < m->plan.nphases; i++)
        free(m->plan.phases[i].jobs);
    free(m->plan.phases);
}

static void make_op_set(struct op_set *s, int with_write)
{
    op_set_init(s);
    s->op[OP_READ].ops = 123456789012ull;
    s->op[OP_READ].bytes = 987654321098765ull;
    s->op[OP_READ].errors = 3;
    fill_hist_random(&s->op[OP_READ].lat, 5000);
    if (with_write) {
        s->op[OP_WRITE].ops = 42;
        s->op[OP_WRITE].bytes = 42 * 4096;
        s->op[OP_WRITE].errors = 0;
        fill_hist_random(&s->op[OP_WRITE].lat, 300);
    }
}

static void assert_op_set_equal(const struct op_set *a, const struct op_set *b)
{
    for (int t = 0; t < OP__COUNT; t++) {
        assert_int_equal(a->op[t].ops, b->op[t].ops);
        assert_int_equal(a->op[t].bytes, b->op[t].bytes);
        assert_int_equal(a->op[t].errors, b->op[t].errors);
        assert_true(hist_equal(&a->op[t].lat, &b->op[t].lat));
    }
}

/* One valid frame of each type, with distinctive values. */
static void encode_sample(enum msg_type t, struct buf *b)
{
    buf_init(b);
    switch (t) {
    case MSG_HELLO: {
        struct msg_hello m = { .version = PROTO_VERSION };
        msg_hello_encode(b, &m);
        break;
    }
    case MSG_WELCOME: {
        struct msg_welcome m = { .version = PROTO_VERSION, .ncpus = 96, .pid = 31337 };
        snprintf(m.host, sizeof m.host, "agent-07.example.net");
        msg_welcome_encode(b, &m);
        break;
    }
    case MSG_PLAN: {
        struct msg_plan m;
        make_plan(&m);
        msg_plan_encode(b, &m);
        free_plan(&m);
        break;
    }
    case MSG_READY: {
        struct msg_ready m = { .phase = 1 };
        msg_ready_encode(b, &m);
        break;
    }
    case MSG_START: {
        struct msg_start m = { .phase = 1, .t0_ns = 0x123456789abcdefull };
        msg_start_encode(b, &m);
        break;
    }
    case MSG_INTERVAL: {
        struct msg_interval *m = calloc(1, sizeof *m);
        m->phase = 1;
        m->index = 77;
        make_op_set(&m->stats, 1);
        msg_interval_encode(b, m);
        free(m);
        break;
    }
    case MSG_PHASE_DONE: {
        struct msg_phase_done *m = calloc(1, sizeof *m);
        m->phase = 1;
        m->started_ns = 1111;
        m->duration_ns = 2222;
        m->cpu_user_s = 1.5;
        m->cpu_sys_s = 0.25;
        m->cores = 8;
        m->nintervals = 40;
        make_op_set(&m->totals, 1);
        msg_phase_done_encode(b, m);
        free(m);
        break;
    }
    case MSG_STOP: {
        struct msg_stop m;
        snprintf(m.reason, sizeof m.reason, "interrupted by user");
        msg_stop_encode(b, &m);
        break;
    }
    case MSG_ERROR: {
        struct msg_error m;
        snprintf(m.text, sizeof m.text, "agent: no space left on /mnt/x");
        msg_error_encode(b, &m);
        break;
    }
    case MSG_PING: {
        struct msg_ping m = { .seq = 5, .t_ns = 6 };
        msg_ping_encode(b, &m);
        break;
    }
    case MSG_PONG: {
        struct msg_pong m = { .seq = 5, .t_ping_ns = 6, .t_ns = 7 };
        msg_pong_encode(b, &m);
        break;
    }
    case MSG_AUTH: {
        struct msg_auth m;
        memset(m.mac, 0xa5, sizeof m.mac);
        msg_auth_encode(b, &m);
        break;
    }
    case MSG_PROGRESS: {
        struct msg_progress m = { .phase = 2, .done_bytes = 3 << 20, .total_bytes = 9 << 20 };
        msg_progress_encode(b, &m);
        break;
    }
    case MSG_CLEAN: {
        struct msg_plan m;
        make_plan(&m);
        msg_clean_encode(b, &m);
        free_plan(&m);
        break;
    }
    case MSG_CLEANED: {
        struct msg_cleaned m = { .files = 12, .bytes = 5ull << 30, .skipped = 1 };
        snprintf(m.note, sizeof m.note, "job 'n': ioengine nfs: not removed");
        msg_cleaned_encode(b, &m);
        break;
    }
    case MSG_SUBMIT: {
        char *argv[] = { "--name=w", "--rw=write", POOL_PLAN_ARG };
        struct pool_submit m = { .argv = argv, .argc = 3, .plan = "[j]\nsize=4k\n", .plan_len = 12,
                                 .want_json = 1, .wait = 1, .expect = 3 };
        pool_submit_encode(b, &m);
        break;
    }
    case MSG_BUSY: {
        struct pool_busy m = { "127.0.0.1:40000", "12:34:56" };
        pool_busy_encode(b, &m);
        break;
    }
    case MSG_OUTPUT:
        pool_output_encode(b, POOL_STDERR, "phase 1/1 w: started\n", 21);
        break;
    case MSG_EXIT:
        pool_exit_encode(b, 3);
        break;
    case MSG_PHASE_END: {
        struct msg_phase_end m = { .phase = 3 };
        snprintf(m.reason, sizeof m.reason, "exitall (job 'short'): agent 0 finished first");
        msg_phase_end_encode(b, &m);
        break;
    }
    case MSG_COHERENCE: {
        struct msg_coherence m = { .phase = 1 };
        struct coh_pair *cp;
        coh_set_init(&m.set);
        cp = coh_set_pair(&m.set, 0, 2, COH_PAIRS_MAX);
        cp->seen = 3;
        cp->never = 1;
        hist_record(&cp->lag, 1500000);
        hist_record(&cp->lag, 1700000);
        hist_record(&cp->lag, 90000000);
        (void)coh_set_pair(&m.set, 1, 2, COH_PAIRS_MAX);   /* a writer it never saw */
        msg_coherence_encode(b, &m);
        coh_set_free(&m.set);
        break;
    }
    case MSG_SYSTEM: {
        struct msg_system m = { .mem_bytes = 8ull << 30 };
        snprintf(m.kernel, sizeof m.kernel, "6.8.0-45-generic");
        snprintf(m.cpu_model, sizeof m.cpu_model, "Example CPU @ 2.20GHz");
        msg_system_encode(b, &m);
        break;
    }
    case MSG_STORAGE: {
        struct msg_storage m = { .phase = 1, .info = { .kind = STORAGE_MOUNT, .rsize = 1 << 20,
                                                       .wsize = 1 << 20, .nconnect = 16, .timeo = 600 } };
        snprintf(m.info.job, sizeof m.info.job, "seqread");
        snprintf(m.info.where, sizeof m.info.where, "/mnt/efs");
        snprintf(m.info.source, sizeof m.info.source, "fs-1.efs.example:/");
        snprintf(m.info.fstype, sizeof m.info.fstype, "nfs4");
        snprintf(m.info.options, sizeof m.info.options, "rw,relatime,vers=4.1,hard");
        snprintf(m.info.nfsvers, sizeof m.info.nfsvers, "4.1");
        snprintf(m.info.mode, sizeof m.info.mode, "hard");
        msg_storage_encode(b, &m);
        break;
    }
    default:
        fail();
    }
}

/* Decode with the decoder of type t, freeing whatever it built. */
static int decode_as(enum msg_type t, const char *p, size_t n, char *err, size_t errlen)
{
    int rc = -1;

    switch (t) {
    case MSG_HELLO: { struct msg_hello m; rc = DECODE(msg_hello_decode, p, n, &m, err, errlen); break; }
    case MSG_WELCOME: { struct msg_welcome m; rc = DECODE(msg_welcome_decode, p, n, &m, err, errlen); break; }
    case MSG_PLAN: {
        struct msg_plan m;
        rc = DECODE(msg_plan_decode, p, n, &m, err, errlen);
        if (rc == 0)
            msg_plan_free(&m);
        else
            assert_int_equal(m.plan.nphases, 0);   /* nothing left to free */
        break;
    }
    case MSG_READY: { struct msg_ready m; rc = DECODE(msg_ready_decode, p, n, &m, err, errlen); break; }
    case MSG_START: { struct msg_start m; rc = DECODE(msg_start_decode, p, n, &m, err, errlen); break; }
    case MSG_INTERVAL: {
        struct msg_interval *m = malloc(sizeof *m);
        rc = DECODE(msg_interval_decode, p, n, m, err, errlen);
        free(m);
        break;
    }
    case MSG_PHASE_DONE: {
        struct msg_phase_done *m = malloc(sizeof *m);
        rc = DECODE(msg_phase_done_decode, p, n, m, err, errlen);
        free(m);
        break;
    }
    case MSG_STOP: { struct msg_stop m; rc = DECODE(msg_stop_decode, p, n, &m, err, errlen); break; }
    case MSG_ERROR: { struct msg_error m; rc = DECODE(msg_error_decode, p, n, &m, err, errlen); break; }
    case MSG_PING: { struct msg_ping m; rc = DECODE(msg_ping_decode, p, n, &m, err, errlen); break; }
    case MSG_PONG: { struct msg_pong m; rc = DECODE(msg_pong_decode, p, n, &m, err, errlen); break; }
    case MSG_AUTH: { struct msg_auth m; rc = DECODE(msg_auth_decode, p, n, &m, err, errlen); break; }
    case MSG_PROGRESS: { struct msg_progress m; rc = DECODE(msg_progress_decode, p, n, &m, err, errlen); break; }
    case MSG_CLEAN: {
        struct msg_plan m;
        rc = DECODE(msg_clean_decode, p, n, &m, err, errlen);
        if (rc == 0)
            msg_plan_free(&m);
        else
            assert_int_equal(m.plan.nphases, 0);
        break;
    }
    case MSG_CLEANED: { struct msg_cleaned m; rc = DECODE(msg_cleaned_decode, p, n, &m, err, errlen); break; }
    case MSG_STORAGE: { struct msg_storage m; rc = DECODE(msg_storage_decode, p, n, &m, err, errlen); break; }
    case MSG_SYSTEM: { struct msg_system m; rc = DECODE(msg_system_decode, p, n, &m, err, errlen); break; }
    case MSG_SUBMIT: {
        struct pool_submit m;
        rc = DECODE(pool_submit_decode, p, n, &m, err, errlen);
        if (rc == 0)
            pool_submit_free(&m);
        break;
    }
    case MSG_BUSY: { struct pool_busy m; rc = DECODE(pool_busy_decode, p, n, &m, err, errlen); break; }
    case MSG_OUTPUT: { struct pool_output m; rc = DECODE(pool_output_decode, p, n, &m, err, errlen); break; }
    case MSG_EXIT: { uint32_t st; rc = DECODE(pool_exit_decode, p, n, &st, err, errlen); break; }
    case MSG_PHASE_END: { struct msg_phase_end m; rc = DECODE(msg_phase_end_decode, p, n, &m, err, errlen); break; }
    case MSG_COHERENCE: {
        struct msg_coherence m;
        rc = COH_DECODE(p, n, 2, &m, err, errlen);
        coh_set_free(&m.set);
        break;
    }
    default:
        fail();
    }
    assert_true(rc == 0 || rc == -EBADMSG);
    if (rc) {
        assert_true(strlen(err) > 0);
        assert_null(strchr(err, '\n'));
    }
    return rc;
}

/* ---- the editor ------------------------------------------------------ */

enum edit_op { E_SET, E_DELETE, E_ADD };

static msgpack_object o_u64(uint64_t v)
{
    msgpack_object o = { .type = MSGPACK_OBJECT_POSITIVE_INTEGER, .via.u64 = v };
    return o;
}

static msgpack_object o_i64(int64_t v)
{
    msgpack_object o = { .type = MSGPACK_OBJECT_NEGATIVE_INTEGER, .via.i64 = v };
    return o;
}

static msgpack_object o_str(const char *s)
{
    msgpack_object o = { .type = MSGPACK_OBJECT_STR };
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)strlen(s);
    return o;
}

static msgpack_object o_nil(void)
{
    msgpack_object o = { .type = MSGPACK_OBJECT_NIL };
    return o;
}

/* Payload of frame f with one edit at path, packed anew into out. */
static void edit(const struct buf *f, const char *path, enum edit_op op, msgpack_object val,
                 struct buf *out)
{
    msgpack_unpacked u;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_object *o;
    char tmp[256], *save = NULL, *tok, *next;
    size_t off = 0, n;
    const char *p = payload_of(f, &n);

    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
    o = &u.data;
    snprintf(tmp, sizeof tmp, "%s", path);
    for (tok = strtok_r(tmp, ".", &save); tok; tok = next) {
        next = strtok_r(NULL, ".", &save);
        if (o->type == MSGPACK_OBJECT_ARRAY) {
            unsigned long i = strtoul(tok, NULL, 10);
            assert_true(i < o->via.array.size);
            if (!next) {
                assert_int_equal(op, E_SET);
                o->via.array.ptr[i] = val;
                break;
            }
            o = &o->via.array.ptr[i];
            continue;
        }
        assert_int_equal(o->type, MSGPACK_OBJECT_MAP);
        if (!next && op == E_ADD) {
            uint32_t sz = o->via.map.size;
            msgpack_object_kv *kv = msgpack_zone_malloc(u.zone, (sz + 1) * sizeof *kv);
            memcpy(kv, o->via.map.ptr, sz * sizeof *kv);
            kv[sz].key = o_str(tok);
            kv[sz].val = val;
            o->via.map.ptr = kv;
            o->via.map.size = sz + 1;
            break;
        }
        uint32_t i;
        for (i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(tok) &&
                memcmp(k->via.str.ptr, tok, k->via.str.size) == 0)
                break;
        }
        assert_true(i < o->via.map.size);
        if (!next) {
            if (op == E_DELETE) {
                memmove(&o->via.map.ptr[i], &o->via.map.ptr[i + 1],
                        (o->via.map.size - i - 1) * sizeof o->via.map.ptr[0]);
                o->via.map.size--;
            } else {
                o->via.map.ptr[i].val = val;
            }
            break;
        }
        o = &o->via.map.ptr[i].val;
    }
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, u.data);
    buf_init(out);
    buf_append(out, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
    msgpack_unpacked_destroy(&u);
}

/* Edit a sample of type t and expect the decoder to reject it with needle
 * in the error text. */
static void expect_rejected(enum msg_type t, const char *path, enum edit_op op,
                            msgpack_object val, const char *needle)
{
    struct buf f, p;
    char err[MSG_TEXT_MAX] = "";

    encode_sample(t, &f);
    edit(&f, path, op, val, &p);
    assert_int_equal(decode_as(t, p.data, p.len, err, sizeof err), -EBADMSG);
    if (!strstr(err, needle))
        fail_msg("%s %s: error '%s' does not mention '%s'", msg_type_name(t), path, err, needle);
    buf_free(&f);
    buf_free(&p);
}

static void expect_accepted(enum msg_type t, const char *path, enum edit_op op,
                            msgpack_object val)
{
    struct buf f, p;
    char err[MSG_TEXT_MAX] = "";

    encode_sample(t, &f);
    edit(&f, path, op, val, &p);
    if (decode_as(t, p.data, p.len, err, sizeof err) != 0)
        fail_msg("%s %s: rejected: %s", msg_type_name(t), path, err);
    buf_free(&f);
    buf_free(&p);
}

/* ---- round trips ----------------------------------------------------- */

static void test_msg_type_names(void **state)
{
    static const char *const want[MSG__COUNT] = {
        [MSG_HELLO] = "hello", [MSG_WELCOME] = "welcome", [MSG_PLAN] = "plan",
        [MSG_READY] = "ready", [MSG_START] = "start", [MSG_INTERVAL] = "interval",
        [MSG_PHASE_DONE] = "phase-done", [MSG_STOP] = "stop", [MSG_ERROR] = "error",
        [MSG_PING] = "ping", [MSG_PONG] = "pong", [MSG_AUTH] = "auth",
        [MSG_PROGRESS] = "progress", [MSG_CLEAN] = "clean", [MSG_CLEANED] = "cleaned",
        [MSG_STORAGE] = "storage", [MSG_SYSTEM] = "system", [MSG_SUBMIT] = "submit",
        [MSG_BUSY] = "busy", [MSG_OUTPUT] = "output", [MSG_EXIT] = "exit",
        [MSG_PHASE_END] = "phase-end",
        [MSG_COHERENCE] = "coherence",
    };

    (void)state;
    for (int t = MSG_HELLO; t < MSG__COUNT; t++)
        assert_string_equal(msg_type_name((enum msg_type)t), want[t]);
    assert_string_equal(msg_type_name((enum msg_type)0), "unknown");
    assert_string_equal(msg_type_name(MSG__COUNT), "unknown");
}

static void test_msg_hello_round_trip_any_version(void **state)
{
    const uint32_t versions[] = { PROTO_VERSION, 0, 999, UINT32_MAX };
    char err[128];

    (void)state;
    for (unsigned i = 0; i < 4; i++) {
        struct msg_hello in = { .version = versions[i] }, out = { 0 };
        struct buf b;
        size_t n;
        const char *p;

        buf_init(&b);
        msg_hello_encode(&b, &in);
        p = payload_of(&b, &n);
        assert_int_equal(peek_type(p, n, err, sizeof err), MSG_HELLO);
        assert_int_equal(DECODE(msg_hello_decode, p, n, &out, err, sizeof err), 0);
        assert_int_equal(out.version, versions[i]);
        buf_free(&b);
    }
}

/* The agent's machine and every storage field survive the wire exactly. */
static void test_msg_storage_and_system_round_trip(void **state)
{
    struct msg_storage in, out;
    struct msg_system w = { .mem_bytes = 8326709248ull }, wo;
    struct buf b;
    size_t n;
    const char *p;
    char err[128];

    (void)state;
    memset(&in, 0, sizeof in);
    in.phase = 3;
    in.info.kind = STORAGE_NFS;
    snprintf(in.info.job, sizeof in.info.job, "j");
    snprintf(in.info.where, sizeof in.info.where, "nfs://127.0.0.1/export?version=4");
    snprintf(in.info.fstype, sizeof in.info.fstype, "nfs");
    snprintf(in.info.nfsvers, sizeof in.info.nfsvers, "4");
    in.info.rsize = 1048576;
    in.info.wsize = 524288;
    in.info.nconnect = 4000000000u;
    buf_init(&b);
    msg_storage_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(peek_type(p, n, err, sizeof err), MSG_STORAGE);
    assert_int_equal(DECODE(msg_storage_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.phase, 3);
    assert_int_equal(out.info.kind, STORAGE_NFS);
    assert_string_equal(out.info.where, in.info.where);
    assert_string_equal(out.info.nfsvers, "4");
    assert_string_equal(out.info.source, "");
    assert_int_equal(out.info.rsize, 1048576);
    assert_int_equal(out.info.wsize, 524288);
    assert_int_equal(out.info.nconnect, 4000000000u);
    buf_free(&b);

    snprintf(w.kernel, sizeof w.kernel, "6.8.0-45-generic");
    memset(w.cpu_model, 'c', sizeof w.cpu_model - 1);      /* longest that fits */
    w.cpu_model[sizeof w.cpu_model - 1] = '\0';
    buf_init(&b);
    msg_system_encode(&b, &w);
    p = payload_of(&b, &n);
    assert_int_equal(peek_type(p, n, err, sizeof err), MSG_SYSTEM);
    assert_int_equal(DECODE(msg_system_decode, p, n, &wo, err, sizeof err), 0);
    assert_string_equal(wo.kernel, "6.8.0-45-generic");
    assert_string_equal(wo.cpu_model, w.cpu_model);
    assert_int_equal(wo.mem_bytes, 8326709248ull);
    buf_free(&b);
}

static void test_msg_welcome_round_trip(void **state)
{
    struct msg_welcome in = { .version = 3, .ncpus = 96, .pid = 4000000000u }, out;
    struct buf b;
    size_t n;
    const char *p;
    char err[128];

    (void)state;
    memset(in.host, 'h', sizeof in.host - 1);    /* longest host that fits */
    in.host[sizeof in.host - 1] = '\0';
    buf_init(&b);
    msg_welcome_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_welcome_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.version, 3);
    assert_string_equal(out.host, in.host);
    assert_int_equal(out.ncpus, 96);
    assert_int_equal(out.pid, 4000000000u);
    buf_free(&b);
}

static void test_msg_plan_round_trip_every_field(void **state)
{
    struct msg_plan in, out;
    struct buf b;
    size_t n;
    const char *p;
    char err[256] = "";

    (void)state;
    make_plan(&in);
    buf_init(&b);
    msg_plan_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(peek_type(p, n, err, sizeof err), MSG_PLAN);
    if (DECODE(msg_plan_decode, p, n, &out, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(out.agent_index, 6);
    assert_int_equal(out.nagents, 7);
    assert_int_equal(out.interval_ms, 250);
    assert_int_equal(out.plan.nphases, 2);
    for (unsigned i = 0; i < 2; i++) {
        assert_string_equal(out.plan.phases[i].name, in.plan.phases[i].name);
        assert_int_equal(out.plan.phases[i].njobs, 2);
        for (unsigned j = 0; j < 2; j++)
            assert_job_equal(&out.plan.phases[i].jobs[j], &in.plan.phases[i].jobs[j]);
    }
    msg_plan_free(&out);
    assert_int_equal(out.plan.nphases, 0);
    msg_plan_free(&out);             /* twice is harmless */
    free_plan(&in);
    buf_free(&b);
}

static void test_msg_plan_rw_every_mode(void **state)
{
    (void)state;
    for (int rw = 0; rw < RW__COUNT; rw++) {
        struct msg_plan in, out;
        struct buf b;
        size_t n;
        const char *p;
        char err[256];

        make_plan(&in);
        in.plan.phases[1].jobs[1].rw = (enum rw_mode)rw;
        buf_init(&b);
        msg_plan_encode(&b, &in);
        p = payload_of(&b, &n);
        assert_int_equal(DECODE(msg_plan_decode, p, n, &out, err, sizeof err), 0);
        assert_int_equal(out.plan.phases[1].jobs[1].rw, rw);
        msg_plan_free(&out);
        free_plan(&in);
        buf_free(&b);
    }
}

static void test_msg_ready_start_round_trip(void **state)
{
    struct msg_ready r = { .phase = PLAN_MAX_PHASES - 1 }, r2;
    struct msg_start s = { .phase = 3, .t0_ns = UINT64_MAX - 5 }, s2;
    struct buf b;
    size_t n;
    const char *p;
    char err[128];

    (void)state;
    buf_init(&b);
    msg_ready_encode(&b, &r);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_ready_decode, p, n, &r2, err, sizeof err), 0);
    assert_int_equal(r2.phase, PLAN_MAX_PHASES - 1);
    buf_free(&b);

    msg_start_encode(&b, &s);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_start_decode, p, n, &s2, err, sizeof err), 0);
    assert_int_equal(s2.phase, 3);
    assert_int_equal(s2.t0_ns, UINT64_MAX - 5);
    buf_free(&b);
}

static void test_msg_interval_round_trip_random_hist(void **state)
{
    struct msg_interval *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
    struct buf b;
    size_t n;
    const char *p;
    char err[256] = "";

    (void)state;
    for (int with_write = 0; with_write < 2; with_write++) {
        in->phase = 2;
        in->index = 123456;
        make_op_set(&in->stats, with_write);
        buf_init(&b);
        msg_interval_encode(&b, in);
        p = payload_of(&b, &n);
        assert_int_equal(peek_type(p, n, err, sizeof err), MSG_INTERVAL);
        if (DECODE(msg_interval_decode, p, n, out, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(out->phase, 2);
        assert_int_equal(out->index, 123456);
        assert_op_set_equal(&in->stats, &out->stats);
        for (int t = 0; t < OP__COUNT; t++)
            assert_true(hist_equal(&in->stats.op[t].lat, &out->stats.op[t].lat));
        buf_free(&b);
    }
    free(in);
    free(out);
}

/* Op types without ops are not sent, and decode as empty. */
static void test_msg_interval_sends_only_op_types_with_ops(void **state)
{
    struct msg_interval *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
    struct buf b;
    size_t n, off = 0;
    const char *p;
    char err[256];
    msgpack_unpacked u;
    struct hist empty;

    (void)state;
    op_set_init(&in->stats);
    in->stats.op[OP_WRITE].errors = 2;     /* errors alone are worth sending */
    in->stats.op[OP_WRITE].ops = 0;
    buf_init(&b);
    msg_interval_encode(&b, in);
    p = payload_of(&b, &n);

    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
    for (uint32_t i = 0; i < u.data.via.map.size; i++) {
        const msgpack_object_kv *kv = &u.data.via.map.ptr[i];
        if (kv->key.via.str.size == 5 && memcmp(kv->key.via.str.ptr, "stats", 5) == 0) {
            assert_int_equal(kv->val.via.map.size, 1);
            assert_memory_equal(kv->val.via.map.ptr[0].key.via.str.ptr, "write", 5);
        }
    }
    msgpack_unpacked_destroy(&u);

    memset(out, 0xa5, sizeof *out);        /* the decoder must initialise */
    assert_int_equal(DECODE(msg_interval_decode, p, n, out, err, sizeof err), 0);
    hist_init(&empty);
    assert_int_equal(out->stats.op[OP_READ].ops, 0);
    assert_int_equal(out->stats.op[OP_READ].bytes, 0);
    assert_int_equal(out->stats.op[OP_READ].errors, 0);
    assert_true(hist_equal(&out->stats.op[OP_READ].lat, &empty));
    assert_int_equal(out->stats.op[OP_WRITE].errors, 2);
    assert_true(hist_equal(&out->stats.op[OP_WRITE].lat, &empty));
    buf_free(&b);
    free(in);
    free(out);
}

static void test_msg_phase_done_round_trip(void **state)
{
    struct msg_phase_done *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
    struct buf b;
    size_t n;
    const char *p;
    char err[256] = "";

    (void)state;
    in->phase = 7;
    in->started_ns = 0xfedcba9876543210ull;
    in->duration_ns = 60000000123ull;
    in->cpu_user_s = 12.625;
    in->cpu_sys_s = 3.0e-9;
    in->cores = 64;
    in->nintervals = 240;
    make_op_set(&in->totals, 1);
    buf_init(&b);
    msg_phase_done_encode(&b, in);
    p = payload_of(&b, &n);
    if (DECODE(msg_phase_done_decode, p, n, out, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(out->phase, 7);
    assert_int_equal(out->started_ns, 0xfedcba9876543210ull);
    assert_int_equal(out->duration_ns, 60000000123ull);
    assert_true(out->cpu_user_s == 12.625);
    assert_true(out->cpu_sys_s == 3.0e-9);
    assert_int_equal(out->cores, 64);
    assert_int_equal(out->nintervals, 240);
    assert_op_set_equal(&in->totals, &out->totals);
    buf_free(&b);
    free(in);
    free(out);
}

/* start's "clones" (fio logs per clone): sent only when 1, decoded back;
 * anything but 0 or 1 is refused naming the key. */
static void test_msg_start_clones(void **state)
{
    struct msg_start in = { .phase = 2, .t0_ns = 77, .clones = 1 }, out;
    struct buf b;
    size_t n;
    const char *p;
    char err[256] = "";

    (void)state;
    buf_init(&b);
    msg_start_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_start_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.clones, 1);
    buf_free(&b);
    in.clones = 0;
    buf_init(&b);
    msg_start_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_null(memmem(p, n, "clones", 6));
    assert_int_equal(DECODE(msg_start_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.clones, 0);
    buf_free(&b);
    in.clones = 2;
    buf_init(&b);
    msg_start_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_start_decode, p, n, &out, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "clones"));
    buf_free(&b);
}

/* A phase-done with its threads' figures: each (job, clone) comes back with
 * its runtime and op_set; an old agent's message (no "clones") decodes with
 * none. */
static void test_msg_phase_done_clones_round_trip(void **state)
{
    struct msg_phase_done *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
    struct clone_stats *c;
    struct buf b;
    size_t n;
    const char *p;
    char err[256] = "";

    (void)state;
    in->phase = 1;
    make_op_set(&in->totals, 1);
    c = clone_set_add(&in->clones, 0, 0);
    c->runtime_ns = 1000000007ull;
    make_op_set(c->stats, 0);
    c = clone_set_add(&in->clones, 1, 3);
    c->runtime_ns = 42;
    make_op_set(c->stats, 1);
    buf_init(&b);
    msg_phase_done_encode(&b, in);
    p = payload_of(&b, &n);
    if (DECODE(msg_phase_done_decode, p, n, out, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(out->clones.n, 2);
    assert_int_equal(out->clones.c[0].job, 0);
    assert_int_equal(out->clones.c[0].clone, 0);
    assert_int_equal(out->clones.c[0].runtime_ns, 1000000007ull);
    assert_op_set_equal(in->clones.c[0].stats, out->clones.c[0].stats);
    assert_int_equal(out->clones.c[1].job, 1);
    assert_int_equal(out->clones.c[1].clone, 3);
    assert_int_equal(out->clones.c[1].runtime_ns, 42);
    assert_op_set_equal(in->clones.c[1].stats, out->clones.c[1].stats);
    assert_op_set_equal(&in->totals, &out->totals);
    msg_phase_done_free(out);
    buf_free(&b);
    /* without clones the message has no "clones" key, and decodes empty */
    clone_set_free(&in->clones);
    buf_init(&b);
    msg_phase_done_encode(&b, in);
    p = payload_of(&b, &n);
    assert_null(memmem(p, n, "clones", 6));
    assert_int_equal(DECODE(msg_phase_done_decode, p, n, out, err, sizeof err), 0);
    assert_int_equal(out->clones.n, 0);
    msg_phase_done_free(out);
    buf_free(&b);
    free(in);
    free(out);
}

/* A phase-done whose "clones" array has n entries made by entry(i). */
static void pack_phase_done_clones(msgpack_sbuffer *sb, uint32_t n, uint64_t job, int same_clone)
{
    msgpack_packer pk;

    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 10);
#define KEY(k) msgpack_pack_str(&pk, strlen(k)), msgpack_pack_str_body(&pk, k, strlen(k))
    KEY("type"); KEY("phase-done");
    KEY("phase"); msgpack_pack_uint32(&pk, 0);
    KEY("started_ns"); msgpack_pack_uint64(&pk, 1);
    KEY("duration_ns"); msgpack_pack_uint64(&pk, 1);
    KEY("cpu_user_s"); msgpack_pack_double(&pk, 0);
    KEY("cpu_sys_s"); msgpack_pack_double(&pk, 0);
    KEY("cores"); msgpack_pack_uint32(&pk, 1);
    KEY("nintervals"); msgpack_pack_uint32(&pk, 1);
    KEY("totals"); msgpack_pack_map(&pk, 0);
    KEY("clones");
    msgpack_pack_array(&pk, n);
    for (uint32_t i = 0; i < n; i++) {
        msgpack_pack_map(&pk, 4);
        KEY("job"); msgpack_pack_uint64(&pk, job);
        KEY("clone"); msgpack_pack_uint64(&pk, same_clone ? 0 : i);
        KEY("runtime_ns"); msgpack_pack_uint64(&pk, 5);
        KEY("stats"); msgpack_pack_map(&pk, 0);
    }
#undef KEY
}

/* Untrusted clones are bounded before use: at most CLONE_SET_MAX entries,
 * job below PLAN_MAX_JOBS, no (job, clone) twice; each failure names the
 * key, and leaves nothing allocated (ASan). */
static void test_msg_phase_done_clones_bounded(void **state)
{
    static const struct { uint32_t n; uint64_t job; int same; const char *want; } bad[] = {
        { CLONE_SET_MAX + 1, 0, 0, "'clones' has 65 entries" },
        { 1, PLAN_MAX_JOBS, 0, "job" },
        { 2, 3, 1, "twice" },
    };
    struct msg_phase_done *out = calloc(1, sizeof *out);
    msgpack_sbuffer sb;
    char err[256];

    (void)state;
    pack_phase_done_clones(&sb, CLONE_SET_MAX, 2, 0);
    assert_int_equal(DECODE(msg_phase_done_decode, sb.data, sb.size, out, err, sizeof err), 0);
    assert_int_equal(out->clones.n, CLONE_SET_MAX);
    msg_phase_done_free(out);
    msgpack_sbuffer_destroy(&sb);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        pack_phase_done_clones(&sb, bad[i].n, bad[i].job, bad[i].same);
        assert_int_equal(DECODE(msg_phase_done_decode, sb.data, sb.size, out, err, sizeof err), -EBADMSG);
        if (!strstr(err, bad[i].want) || !strstr(err, "clones"))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].want);
        assert_int_equal(out->clones.n, 0);
        msgpack_sbuffer_destroy(&sb);
    }
    free(out);
}

static void test_msg_text_messages_round_trip(void **state)
{
    struct msg_stop s, s2;
    struct msg_error e, e2;
    struct buf b;
    size_t n;
    const char *p;
    char err[128];

    (void)state;
    snprintf(s.reason, sizeof s.reason, "SIGINT from the operator");
    buf_init(&b);
    msg_stop_encode(&b, &s);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_stop_decode, p, n, &s2, err, sizeof err), 0);
    assert_string_equal(s2.reason, s.reason);
    buf_free(&b);

    memset(e.text, 'e', sizeof e.text);    /* not terminated: encoder must cap */
    msg_error_encode(&b, &e);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_error_decode, p, n, &e2, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "'text'"));
    buf_free(&b);

    snprintf(e.text, sizeof e.text, "protocol version mismatch: agent speaks 1, coordinator 2");
    msg_error_encode(&b, &e);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_error_decode, p, n, &e2, err, sizeof err), 0);
    assert_string_equal(e2.text, e.text);
    buf_free(&b);

    e.text[0] = '\0';                      /* empty text is still a message */
    msg_error_encode(&b, &e);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_error_decode, p, n, &e2, err, sizeof err), 0);
    assert_string_equal(e2.text, "");
    buf_free(&b);
}

static void test_msg_ping_pong_round_trip(void **state)
{
    struct msg_ping pi = { .seq = 9, .t_ns = UINT64_MAX }, pi2;
    struct msg_pong po = { .seq = 9, .t_ping_ns = UINT64_MAX, .t_ns = 1 }, po2;
    struct buf b;
    size_t n;
    const char *p;
    char err[128];

    (void)state;
    buf_init(&b);
    msg_ping_encode(&b, &pi);
    msg_pong_encode(&b, &po);            /* two frames in one buffer */
    p = b.data + FRAME_HEADER_LEN;
    n = ((unsigned char)b.data[2] << 8) | (unsigned char)b.data[3];
    assert_int_equal(DECODE(msg_ping_decode, p, n, &pi2, err, sizeof err), 0);
    assert_int_equal(pi2.seq, 9);
    assert_int_equal(pi2.t_ns, UINT64_MAX);
    {
        struct frame_reader r;
        uint32_t len;
        frame_reader_init(&r, FRAME_MAX_PAYLOAD);
        frame_reader_feed(&r, b.data, b.len);
        assert_int_equal(frame_reader_next(&r, &p, &len), 1);
        assert_int_equal(peek_type(p, len, err, sizeof err), MSG_PING);
        assert_int_equal(frame_reader_next(&r, &p, &len), 1);
        assert_int_equal(peek_type(p, len, err, sizeof err), MSG_PONG);
        assert_int_equal(DECODE(msg_pong_decode, p, len, &po2, err, sizeof err), 0);
        assert_int_equal(po2.seq, 9);
        assert_int_equal(po2.t_ping_ns, UINT64_MAX);
        assert_int_equal(po2.t_ns, 1);
        frame_reader_free(&r);
    }
    buf_free(&b);
}

static void test_msg_parse_every_type(void **state)
{
    (void)state;
    for (int t = MSG_HELLO; t < MSG__COUNT; t++) {
        struct buf b;
        size_t n;
        const char *p;
        char err[128];

        encode_sample((enum msg_type)t, &b);
        p = payload_of(&b, &n);
        assert_int_equal(peek_type(p, n, err, sizeof err), t);
        assert_int_equal(decode_as((enum msg_type)t, p, n, err, sizeof err), 0);
        /* and every other decoder refuses it */
        for (int u = MSG_HELLO; u < MSG__COUNT; u++) {
            if (u == t)
                continue;
            assert_int_equal(decode_as((enum msg_type)u, p, n, err, sizeof err), -EBADMSG);
            assert_non_null(strstr(err, msg_type_name((enum msg_type)t)));
        }
        buf_free(&b);
    }
}

/* ---- defences -------------------------------------------------------- */

static void test_msg_every_truncation_rejected(void **state)
{
    (void)state;
    for (int t = MSG_HELLO; t < MSG__COUNT; t++) {
        struct buf b;
        size_t n;
        const char *p;

        encode_sample((enum msg_type)t, &b);
        p = payload_of(&b, &n);
        for (size_t k = 0; k < n; k++) {
            /* a private copy of exactly k bytes, so ASan sees any overread */
            char *cut = malloc(k ? k : 1);
            char err[128] = "";
            memcpy(cut, p, k);
            assert_int_equal(peek_type(cut, k, err, sizeof err), -EBADMSG);
            assert_int_equal(decode_as((enum msg_type)t, cut, k, err, sizeof err), -EBADMSG);
            free(cut);
        }
        buf_free(&b);
    }
}

static void test_msg_random_garbage_rejected(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        size_t n = rnd() % 64;
        char *g = malloc(n ? n : 1);
        char err[128] = "";
        int rc;

        for (size_t k = 0; k < n; k++)
            g[k] = (char)rnd();
        if (i % 4 == 0 && n > 0)
            g[0] = (char)(0x80 | (rnd() & 0x0f));   /* start like a map */
        rc = peek_type(g, n, err, sizeof err);
        assert_true(rc == -EBADMSG || (rc > 0 && rc < MSG__COUNT));
        for (int t = MSG_HELLO; t < MSG__COUNT; t++)
            decode_as((enum msg_type)t, g, n, err, sizeof err);
        free(g);
    }
}

/* Valid frames with a few random bytes changed: whatever comes out, no
 * crash, no leak, and a clean 0 or -EBADMSG. */
static void test_msg_random_mutations_no_crash(void **state)
{
    (void)state;
    for (int t = MSG_HELLO; t < MSG__COUNT; t++) {
        struct buf b;
        size_t n;
        const char *p;
        int rounds = t == MSG_PLAN || t == MSG_INTERVAL || t == MSG_PHASE_DONE ? 300 : 2000;

        encode_sample((enum msg_type)t, &b);
        p = payload_of(&b, &n);
        for (int i = 0; i < rounds; i++) {
            char *m = malloc(n);
            char err[128] = "";
            memcpy(m, p, n);
            for (int k = 0, nk = 1 + (int)(rnd() % 4); k < nk; k++)
                m[rnd() % n] = (char)rnd();
            decode_as((enum msg_type)t, m, n, err, sizeof err);
            free(m);
        }
        buf_free(&b);
    }
}

/* A count of 2^32-1 elements in a 10-byte payload must not reach an
 * allocation. */
static void test_msg_lying_counts_rejected(void **state)
{
    static const unsigned char arr[] = { 0x82, 0xa4, 't', 'y', 'p', 'e', 0xa1, 'x',
                                         0xa1, 'p', 0xdd, 0xff, 0xff, 0xff, 0xff };
    static const unsigned char map[] = { 0xdf, 0x7f, 0xff, 0xff, 0xff, 0xc0 };
    static const unsigned char str[] = { 0x81, 0xdb, 0xff, 0xff, 0xff, 0xf0, 'a' };
    static const unsigned char deep[] = {
        0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91,
        0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91,
        0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0xc0 };
    static const unsigned char trailing[] = { 0x81, 0xa4, 't', 'y', 'p', 'e', 0xa4, 'p', 'i',
                                              'n', 'g', 0xc0 };
    char err[128];

    (void)state;
    assert_int_equal(peek_type((const char *)arr, sizeof arr, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "truncated"));
    assert_int_equal(peek_type((const char *)map, sizeof map, err, sizeof err), -EBADMSG);
    assert_int_equal(peek_type((const char *)str, sizeof str, err, sizeof err), -EBADMSG);
    assert_int_equal(peek_type((const char *)deep, sizeof deep, err, sizeof err), -EBADMSG);
    assert_int_equal(peek_type((const char *)trailing, sizeof trailing, err, sizeof err),
                     -EBADMSG);
    assert_non_null(strstr(err, "trailing"));
    assert_int_equal(peek_type(NULL, 0, err, sizeof err), -EBADMSG);
}

static void test_msg_not_a_map_or_bad_type_rejected(void **state)
{
    static const unsigned char arr[] = { 0x91, 0x01 };
    static const unsigned char notype[] = { 0x81, 0xa1, 'x', 0x01 };
    static const unsigned char inttype[] = { 0x81, 0xa4, 't', 'y', 'p', 'e', 0x01 };
    static const unsigned char unknown[] = { 0x81, 0xa4, 't', 'y', 'p', 'e', 0xa3, 'f', 0x01, 'o' };
    char err[128];

    (void)state;
    assert_int_equal(peek_type((const char *)arr, sizeof arr, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "not a map"));
    assert_int_equal(peek_type((const char *)notype, sizeof notype, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "message: missing key 'type'");
    assert_int_equal(peek_type((const char *)inttype, sizeof inttype, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "'type'"));
    assert_int_equal(peek_type((const char *)unknown, sizeof unknown, err, sizeof err), -EBADMSG);
    assert_string_equal(err, "message: unknown type 'f?o'");   /* made printable */
}

static void test_msg_unknown_keys_ignored(void **state)
{
    msgpack_object nested = { .type = MSGPACK_OBJECT_MAP };

    (void)state;
    expect_accepted(MSG_HELLO, "future_feature", E_ADD, o_str("whatever"));
    expect_accepted(MSG_HELLO, "more", E_ADD, nested);
    expect_accepted(MSG_PLAN, "phases.1.jobs.0.blocksize_v2", E_ADD, o_u64(1));
    expect_accepted(MSG_PLAN, "phases.0.comment", E_ADD, o_nil());
    expect_accepted(MSG_INTERVAL, "stats.trim", E_ADD, o_u64(5));      /* unknown op type */
    expect_accepted(MSG_INTERVAL, "stats.read.lat.p99", E_ADD, o_u64(5));
    expect_accepted(MSG_PHASE_DONE, "hostname", E_ADD, o_str("x"));
}

static void test_msg_missing_key_named(void **state)
{
    (void)state;
    expect_rejected(MSG_PLAN, "phases", E_DELETE, o_nil(), "plan: missing key 'phases'");
    expect_rejected(MSG_PLAN, "nagents", E_DELETE, o_nil(), "missing key 'nagents'");
    expect_rejected(MSG_PLAN, "phases.1.jobs.0.size", E_DELETE, o_nil(),
                    "plan: phases[1].jobs[0]: missing key 'size'");
    expect_rejected(MSG_PLAN, "phases.0.name", E_DELETE, o_nil(), "missing key 'name'");
    expect_rejected(MSG_HELLO, "version", E_DELETE, o_nil(), "hello: missing key 'version'");
    expect_rejected(MSG_WELCOME, "host", E_DELETE, o_nil(), "missing key 'host'");
    expect_rejected(MSG_INTERVAL, "stats.read.lat", E_DELETE, o_nil(),
                    "interval: stats.read: missing key 'lat'");
    expect_rejected(MSG_INTERVAL, "stats.write.lat.runs", E_DELETE, o_nil(), "missing key 'runs'");
    expect_rejected(MSG_PHASE_DONE, "totals", E_DELETE, o_nil(), "missing key 'totals'");
    expect_rejected(MSG_PHASE_DONE, "cpu_sys_s", E_DELETE, o_nil(), "missing key 'cpu_sys_s'");
    expect_rejected(MSG_PONG, "t_ping_ns", E_DELETE, o_nil(), "missing key 't_ping_ns'");
    expect_rejected(MSG_PING, "type", E_DELETE, o_nil(), "missing key 'type'");
}

static void test_msg_wrong_types_rejected(void **state)
{
    (void)state;
    expect_rejected(MSG_HELLO, "version", E_SET, o_str("1"), "'version' is not an unsigned integer");
    expect_rejected(MSG_PING, "seq", E_SET, o_i64(-1), "'seq' out of range");
    expect_rejected(MSG_PLAN, "phases", E_SET, o_u64(1), "'phases' is not an array");
    expect_rejected(MSG_PLAN, "phases.0", E_SET, o_u64(1), "phases[0]: not a map");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1", E_SET, o_str("job"), "jobs[1]: not a map");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.direct", E_SET, o_str("yes"), "'direct' is not a boolean");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.rw", E_SET, o_u64(1), "'rw' is not a string");
    expect_rejected(MSG_PHASE_DONE, "cpu_user_s", E_SET, o_str("1.0"), "'cpu_user_s' is not a number");
    expect_rejected(MSG_INTERVAL, "stats", E_SET, o_u64(0), "'stats' is not a map");
    expect_rejected(MSG_INTERVAL, "stats.read", E_SET, o_u64(0), "stats.read: not a map");
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.0", E_SET, o_str("x"), "not an unsigned integer");
    expect_rejected(MSG_STOP, "reason", E_SET, o_nil(), "'reason' is not a string");
    expect_rejected(MSG_ERROR, "type", E_SET, o_str("errors"), "unknown type 'errors'");
    expect_rejected(MSG_ERROR, "type", E_SET, o_str("stop"), "error: got a 'stop' message");
    /* integers where a number is expected, 0/1 where a bool is: tolerated */
    expect_accepted(MSG_PHASE_DONE, "cpu_user_s", E_SET, o_u64(3));
    expect_accepted(MSG_PLAN, "phases.0.jobs.1.direct", E_SET, o_u64(0));
}

static void test_msg_out_of_range_rejected(void **state)
{
    static char longname[PLAN_NAME_MAX + 1];
    static char longengine[PLAN_ENGINE_MAX + 1];

    (void)state;
    memset(longname, 'n', PLAN_NAME_MAX);
    memset(longengine, 'e', PLAN_ENGINE_MAX);
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.numjobs", E_SET, o_u64(0), "'numjobs' = 0 out of range");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.numjobs", E_SET, o_u64(PLAN_MAX_NUMJOBS + 1),
                    "'numjobs' = 4097 out of range");
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.numjobs", E_SET, o_u64(PLAN_MAX_NUMJOBS));
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.rw", E_SET, o_str("sideways"),
                    "'rw' = 'sideways' is not an rw mode");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.rw", E_SET, o_str("?"), "is not an rw mode");
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.rw", E_SET, o_str("readwrite"));  /* fio alias */
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.rwmixread", E_SET, o_u64(101), "'rwmixread'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bs", E_SET, o_u64(0), "'bs'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.nrfiles", E_SET, o_u64(PLAN_MAX_NRFILES + 1), "'nrfiles'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.iodepth", E_SET, o_u64(UINT64_C(1) << 32), "'iodepth'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.name", E_SET, o_str(longname),
                    "'name' is longer than 63 bytes");
    longname[PLAN_NAME_MAX - 1] = '\0';
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.name", E_SET, o_str(longname));
    {
        msgpack_object nul = { .type = MSGPACK_OBJECT_STR };
        nul.via.str.ptr = "a\0b";
        nul.via.str.size = 3;
        expect_rejected(MSG_PLAN, "phases.1.name", E_SET, nul, "'name' contains a NUL byte");
    }
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.ioengine", E_SET, o_str(longengine), "'ioengine' is longer");
    expect_rejected(MSG_PLAN, "agent_index", E_SET, o_u64(7), "'agent_index' = 7 out of range");
    expect_rejected(MSG_PLAN, "nagents", E_SET, o_u64(0), "'nagents'");
    expect_rejected(MSG_PLAN, "interval_ms", E_SET, o_u64(0), "'interval_ms'");
    expect_rejected(MSG_READY, "phase", E_SET, o_u64(PLAN_MAX_PHASES), "'phase'");
    expect_rejected(MSG_INTERVAL, "index", E_SET, o_u64(UINT64_C(1) << 32), "'index'");
    /* the one decoder's checks (common/hist_codec.h; all of them: test_hist_codec) */
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.0", E_SET, o_u64(99999),
                    "interval: stats.read.lat: a run starts 99999 buckets after bucket 0, past the last");
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.0", E_SET, o_u64(HIST_NBUCKETS), "past the last");
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.1", E_SET, o_u64(0), "has length 0");
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.2", E_SET, o_u64(0), "count 0");
    expect_rejected(MSG_INTERVAL, "stats.read.lat.runs.2", E_SET, o_u64(UINT64_MAX), "bucket counts");
    expect_rejected(MSG_INTERVAL, "stats.write.lat.count", E_SET, o_u64(1), "bucket counts sum to 300, count is 1");
    expect_rejected(MSG_INTERVAL, "stats.write.lat.min", E_SET, o_u64(UINT64_MAX), "min");
    expect_rejected(MSG_PHASE_DONE, "totals.write.lat.runs", E_SET, o_nil(), "'runs' is not an array");
}

/* The fields of the wider fio dialect: enums as words, capped arrays,
 * agent lists already resolved. */
static void test_msg_plan_wider_fields_checked(void **state)
{
    static msgpack_object pair[2], entries[PLAN_MAX_BSSPLIT + 1], ops[PLAN_MAX_MD_OPS + 1];
    msgpack_object arr = { .type = MSGPACK_OBJECT_ARRAY };

    (void)state;
    pair[0] = o_u64(4096);
    pair[1] = o_u64(1);
    for (unsigned i = 0; i < PLAN_MAX_BSSPLIT + 1; i++) {
        entries[i].type = MSGPACK_OBJECT_ARRAY;
        entries[i].via.array.size = 2;
        entries[i].via.array.ptr = pair;
    }
    arr.via.array.ptr = entries;
    arr.via.array.size = PLAN_MAX_BSSPLIT + 1;
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bssplit", E_SET, arr, "'bssplit' has 17 entries");
    arr.via.array.size = PLAN_MAX_BSSPLIT;
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.bssplit", E_SET, arr);
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bssplit.0", E_SET, o_u64(4096), "is not [bs, pct]");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bssplit.0.0", E_SET, o_u64(0), "out of range");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bssplit.0.1", E_SET, o_u64(101), "out of range");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.bssplit.0.1", E_SET, o_str("50"), "is not [bs, pct]");

    for (unsigned i = 0; i < PLAN_MAX_MD_OPS + 1; i++)
        ops[i] = o_str("stat");
    arr.via.array.ptr = ops;
    arr.via.array.size = PLAN_MAX_MD_OPS + 1;
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.md_ops", E_SET, arr, "'md_ops' has 17 entries");
    arr.via.array.size = PLAN_MAX_MD_OPS;
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.md_ops", E_SET, arr);
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.md_ops.0", E_SET, o_str("read"),
                    "'md_ops' entry 0 is not a metadata op");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.md_ops.1", E_SET, o_u64(2), "not a metadata op");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.md_ops", E_DELETE, o_nil(), "missing key 'md_ops'");

    expect_rejected(MSG_PLAN, "phases.0.jobs.0.rate_process", E_SET, o_str("bursty"),
                    "'rate_process' = 'bursty' is not a known value");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.rate_process", E_SET, o_u64(1), "is not a string");
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.rate_process", E_SET, o_str("poisson"));
    /* the optional per-direction keys: checked when present */
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.rw_sequencer", E_SET, o_u64(2), "rw_sequencer");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.rate_per_dir", E_SET, o_u64(2), "rate_per_dir");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.bs_w", E_SET, o_str("4k"), "bs_w");
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.bssplit_w.0.1", E_SET, o_u64(101), "out of range");
    expect_accepted(MSG_PLAN, "phases.0.jobs.1.bssplit_w", E_DELETE, o_nil());
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.random_distribution", E_SET, o_str("weibull"),
                    "not a known value");
    expect_accepted(MSG_PLAN, "phases.0.jobs.1.random_distribution", E_SET, o_str("pareto"));
    expect_rejected(MSG_PLAN, "phases.0.jobs.1.file_service_type", E_SET, o_str(""), "not a known value");
    {
        msgpack_object neg = { .type = MSGPACK_OBJECT_FLOAT64, .via.f64 = -0.5 };
        expect_rejected(MSG_PLAN, "phases.0.jobs.0.dist_param", E_SET, neg, "'dist_param' out of range");
        neg.via.f64 = NAN;
        expect_rejected(MSG_PLAN, "phases.0.jobs.0.dist_param", E_SET, neg, "'dist_param' out of range");
    }
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.loops", E_SET, o_u64(0), "'loops' = 0 out of range");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.op_deadline_ns", E_SET, o_u64(0), "'op_deadline_ns'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.server_timeout_ns", E_SET, o_u64(0), "'server_timeout_ns'");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.agents", E_SET, o_str("@fast"),
                    "'agents' is not an agent index list");
    expect_rejected(MSG_PLAN, "phases.0.jobs.0.agents", E_SET, o_str("3-1"), "not an agent index list");
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.agents", E_SET, o_str(""));
    expect_accepted(MSG_PLAN, "phases.0.jobs.0.agents", E_SET, o_str("0,2-5"));
    expect_rejected(MSG_PLAN, "phases.1.jobs.1.description", E_DELETE, o_nil(), "missing key 'description'");
    expect_rejected(MSG_PLAN, "phases.1.jobs.1.thinktime_ns", E_SET, o_str("1"), "not an unsigned integer");
}

/* Found by fuzzing (fuzz_frame_msg's round trip): an op entry with no ops
 * but latency samples decoded, then vanished on re-encoding. */
static void test_msg_latency_without_ops_rejected(void **state)
{
    (void)state;
    expect_rejected(MSG_INTERVAL, "stats.read.ops", E_SET, o_u64(0),
                    "interval: stats.read: latencies recorded for 0 ops");
}

/* Also found by fuzzing: an empty histogram decodes to the canonical empty
 * form whatever min/max/sum it was sent with, so it re-encodes the same. */
static void test_msg_empty_hist_canonical(void **state)
{
    struct msg_interval *m = calloc(1, sizeof *m), *m2 = calloc(1, sizeof *m2);
    struct hist empty;
    struct buf f, p, e;
    char err[256] = "";
    msgpack_object b = { .type = MSGPACK_OBJECT_ARRAY };
    msgpack_object_kv kv[5];
    msgpack_object svc = { .type = MSGPACK_OBJECT_MAP };
    const char *keys[5] = { "count", "sum", "min", "max", "runs" };

    (void)state;
    for (int i = 0; i < 5; i++) {
        kv[i].key = o_str(keys[i]);
        kv[i].val = i == 4 ? b : o_u64(i == 0 ? 0 : 7);   /* count 0, the rest 7 */
    }
    svc.via.map.size = 5;
    svc.via.map.ptr = kv;
    encode_sample(MSG_INTERVAL, &f);
    edit(&f, "stats.read.svc", E_ADD, svc, &p);
    assert_int_equal(DECODE(msg_interval_decode, p.data, p.len, m, err, sizeof err), 0);
    hist_init(&empty);
    assert_true(hist_equal(&m->stats.op[OP_READ].svc, &empty));
    buf_init(&e);
    msg_interval_encode(&e, m);
    assert_int_equal(DECODE(msg_interval_decode, e.data + FRAME_HEADER_LEN, e.len - FRAME_HEADER_LEN, m2, err, sizeof err), 0);
    assert_true(hist_equal(&m2->stats.op[OP_READ].svc, &m->stats.op[OP_READ].svc));
    buf_free(&e);
    buf_free(&f);
    buf_free(&p);
    free(m);
    free(m2);
}

static void test_msg_hist_run_cut_off_rejected(void **state)
{
    struct msg_interval *m = calloc(1, sizeof *m);
    struct buf f, p;
    char err[256];
    msgpack_object arr = { .type = MSGPACK_OBJECT_ARRAY };
    msgpack_object three[3];

    (void)state;
    three[0] = o_u64(1);    /* skip 1 */
    three[1] = o_u64(2);    /* a run of 2 buckets ... */
    three[2] = o_u64(2);    /* ... with one count given */
    arr.via.array.size = 3;
    arr.via.array.ptr = three;
    encode_sample(MSG_INTERVAL, &f);
    edit(&f, "stats.read.lat.runs", E_SET, arr, &p);
    assert_int_equal(DECODE(msg_interval_decode, p.data, p.len, m, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "ends inside a run"));
    buf_free(&f);
    buf_free(&p);
    free(m);
}

static void encode_plan_shape(struct buf *b, uint32_t nphases, uint32_t njobs)
{
    struct msg_plan m = { .agent_index = 0, .nagents = 1, .interval_ms = 1000 };

    m.plan.nphases = nphases;
    m.plan.phases = calloc(nphases ? nphases : 1, sizeof *m.plan.phases);
    for (uint32_t i = 0; i < nphases; i++) {
        m.plan.phases[i].njobs = njobs;
        m.plan.phases[i].jobs = calloc(njobs ? njobs : 1, sizeof(struct job_spec));
        for (uint32_t j = 0; j < njobs; j++)
            job_spec_default(&m.plan.phases[i].jobs[j]);
    }
    buf_init(b);
    msg_plan_encode(b, &m);
    free_plan(&m);
}

static void test_msg_plan_caps_enforced(void **state)
{
    static const struct { uint32_t nphases, njobs; int ok; const char *needle; } cases[] = {
        { PLAN_MAX_PHASES, 1, 1, NULL },
        { 1, PLAN_MAX_JOBS, 1, NULL },
        { PLAN_MAX_PHASES + 1, 1, 0, "'phases' has 257 entries" },
        { 2, PLAN_MAX_JOBS + 1, 0, "phases[0]: 'jobs' has 65 entries" },
        { 0, 0, 1, NULL },                      /* an empty plan is legal */
        { 3, 0, 0, "'jobs' has 0 entries" },
    };

    (void)state;
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct buf b;
        struct msg_plan m;
        size_t n;
        const char *p;
        char err[256] = "";
        int rc;

        encode_plan_shape(&b, cases[i].nphases, cases[i].njobs);
        p = payload_of(&b, &n);
        rc = DECODE(msg_plan_decode, p, n, &m, err, sizeof err);
        if (cases[i].ok) {
            assert_int_equal(rc, 0);
            assert_int_equal(m.plan.nphases, cases[i].nphases);
            if (cases[i].nphases)
                assert_int_equal(m.plan.phases[0].njobs, cases[i].njobs);
            msg_plan_free(&m);
        } else {
            assert_int_equal(rc, -EBADMSG);
            if (!strstr(err, cases[i].needle))
                fail_msg("'%s' lacks '%s'", err, cases[i].needle);
            assert_int_equal(m.plan.nphases, 0);
            assert_null(m.plan.phases);
        }
        buf_free(&b);
    }
}

/* A failure deep in the second phase frees the first: run under ASan/LSan. */
static void test_msg_plan_late_failure_frees_everything(void **state)
{
    (void)state;
    expect_rejected(MSG_PLAN, "phases.1.jobs.1.nfs_url", E_SET, o_u64(0), "phases[1].jobs[1]");
}

static void test_msg_error_text_is_bounded(void **state)
{
    struct buf f, p;
    char small[12];

    (void)state;
    encode_sample(MSG_PLAN, &f);
    edit(&f, "phases.1.jobs.0.size", E_DELETE, o_nil(), &p);
    assert_int_equal(decode_as(MSG_PLAN, p.data, p.len, small, sizeof small), -EBADMSG);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, "plan: phase", sizeof small - 1);
    /* no error buffer at all is fine too */
    {
        struct msg_plan m;
        assert_int_equal(DECODE(msg_plan_decode, p.data, p.len, &m, NULL, 0), -EBADMSG);
    }
    buf_free(&f);
    buf_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msg_type_names),
        cmocka_unit_test(test_msg_plan_wider_fields_checked),
        cmocka_unit_test(test_msg_hello_round_trip_any_version),
        cmocka_unit_test(test_msg_welcome_round_trip),
        cmocka_unit_test(test_msg_storage_and_system_round_trip),
        cmocka_unit_test(test_msg_plan_round_trip_every_field),
        cmocka_unit_test(test_msg_plan_rw_every_mode),
        cmocka_unit_test(test_msg_ready_start_round_trip),
        cmocka_unit_test(test_msg_interval_round_trip_random_hist),
        cmocka_unit_test(test_msg_interval_sends_only_op_types_with_ops),
        cmocka_unit_test(test_msg_phase_done_round_trip),
        cmocka_unit_test(test_msg_phase_done_clones_round_trip),
        cmocka_unit_test(test_msg_phase_done_clones_bounded),
        cmocka_unit_test(test_msg_start_clones),
        cmocka_unit_test(test_msg_text_messages_round_trip),
        cmocka_unit_test(test_msg_ping_pong_round_trip),
        cmocka_unit_test(test_msg_parse_every_type),
        cmocka_unit_test(test_msg_every_truncation_rejected),
        cmocka_unit_test(test_msg_random_garbage_rejected),
        cmocka_unit_test(test_msg_random_mutations_no_crash),
        cmocka_unit_test(test_msg_lying_counts_rejected),
        cmocka_unit_test(test_msg_not_a_map_or_bad_type_rejected),
        cmocka_unit_test(test_msg_unknown_keys_ignored),
        cmocka_unit_test(test_msg_missing_key_named),
        cmocka_unit_test(test_msg_wrong_types_rejected),
        cmocka_unit_test(test_msg_out_of_range_rejected),
        cmocka_unit_test(test_msg_hist_run_cut_off_rejected),
        cmocka_unit_test(test_msg_latency_without_ops_rejected),
        cmocka_unit_test(test_msg_empty_hist_canonical),
        cmocka_unit_test(test_msg_plan_caps_enforced),
        cmocka_unit_test(test_msg_plan_late_failure_frees_everything),
        cmocka_unit_test(test_msg_error_text_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
