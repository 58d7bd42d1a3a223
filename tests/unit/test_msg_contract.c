/* Unit tests for the wire contract of proto/msg (docs/protocol.md, "The
 * contract"): the keys of every message are pinned here, in a table
 * written from docs/protocol.md, so that renaming a C member or a key
 * without a protocol decision fails a test.
 *
 * - golden: every message type, encoded from fixed sample values, has the
 *   SHA-256 its bytes had before the wire keys became explicit string
 *   literals (so the bytes on the wire did not change);
 * - keys: the keys each encoder emits, in order, at every level (message,
 *   phase, job, op entry, histogram) are exactly the pinned lists;
 * - doc: docs/protocol.md's tables name exactly the pinned keys;
 * - missing / unknown: dropping any required key is rejected naming it,
 *   an optional one decodes as its empty value, and an unknown key at any
 *   level is ignored;
 * - version: the version of any hello or welcome, however malformed
 *   otherwise, is read before decoding it (msg_version_peek). */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msgpack.h>
#include <openssl/sha.h>

#include "common/hist.h"
#include "common/nfs_rpc.h"
#include "common/plan.h"
#include "common/stats.h"
#include "common/vblock.h"
#include "common/vstats.h"
#include "proto/msg.h"
#include "common/wbuf.h"
#include "proto/msg_version.h"
#include "proto/coh_msg.h"
#include "proto/pool_msg.h"
#include "tests/unit/msg_frame_util.h"

/* ---- the pinned contract (docs/protocol.md) --------------------------- */

/* Keys in the order the encoder sends them.  "job" is a plan's job,
 * "phase" a plan's phase, "op" one op type's entry of an op_set (with the
 * optional timeouts and svc present), "hist" a histogram. */
static const struct pinned {
    const char *what;
    const char *keys;
} pinned[] = {
    { "hello", "type version nonce" },
    { "welcome", "type version host ncpus pid auth nonce mac labels" },
    { "auth", "type mac" },
    { "system", "type kernel cpu_model mem_bytes" },
    { "storage", "type phase kind job where source fstype options nfsvers rsize wsize nconnect "
                 "timeo mode" },
    { "progress", "type phase done_bytes total_bytes" },
    { "plan", "type agent_index nagents interval_ms phases" },
    { "ready", "type phase" },
    { "start", "type phase t0_ns" },
    { "interval", "type phase index inflight oldest_ns stats nfs host mountstats" },
    { "phase-done", "type phase started_ns duration_ns cpu_user_s cpu_sys_s cores nintervals "
                    "totals nfs host mountstats verify" },
    { "clean", "type agent_index nagents interval_ms phases" },
    { "cleaned", "type files bytes skipped note" },
    { "stop", "type reason" },
    { "phase-end", "type phase reason" },
    { "error", "type text version" },
    { "ping", "type seq t_ns" },
    { "pong", "type seq t_ping_ns t_ns" },
    { "submit", "type argv plan has_plan want_json wait expect min_agents expect_timeout_ms" },
    { "busy", "type from since" },
    { "output", "type stream data" },
    { "exit", "type status" },
    { "coherence", "type phase pairs" },
    { "phase", "name jobs" },
    { "job", "name rw rwmixread bs size filesize nrfiles numjobs runtime_ns ramp_ns time_based "
             "direct fsync end_fsync stonewall group_reporting filename directory ioengine "
             "iodepth nfs_url description buffer_pattern bsrange_min bsrange_max bssplit offset "
             "offset_increment io_size number_ios loops startdelay_ns thinktime_ns rate_bps "
             "rate_iops rate_process randrepeat randseed random_distribution dist_param unlink "
             "sync fdatasync invalidate file_service_type filename_format new_group agents md_ops "
             "files_per_dir shared_dir rotate coherence_writers coherence_close coherence_poll "
             "coherence_period_ns coherence_deadline_ns coherence_poll_interval_ns op_deadline_ns "
             "server_timeout_ns iodepth_batch_submit "
             "iodepth_batch_complete_min iodepth_batch_complete_max nconnect bs_w bsrange_w_min "
             "bsrange_w_max bssplit_w rate_per_dir rate_w_bps rate_w_iops rate_min_bps "
             "rate_min_w_bps rate_min_iops rate_min_w_iops ratecycle_ns rw_seq_nr rw_seq_bytes "
             "rw_sequencer zones no_file_create openfiles norandommap "
             "verify no_do_verify verify_only verify_fatal verify_backlog verify_pattern verify_interval "
             "verify_offset buf_mode zero_buffers buffer_compress_percentage buffer_compress_chunk "
             "fallocate fadvise_hint dedupe_percentage dedupe_mode dedupe_working_set_percentage dedupe_global" },
    /* the job's optional keys: sent only when set, so not in the samples
     * (whose bytes are pinned); test_contract_job_optional_keys sends them */
    { "job+", "exitall exitall_on_error latency_target_us latency_window_us latency_pct_milli flow flow_id flow_sleep_ns overwrite size_pct "
              "verify_written_by coherence_never_visible null_capacity_iops null_latency_ns" },
    /* the run's identity: sent by a coordinator that has one (not in the sample) */
    { "plan+", "run_id run_ms" },
    { "phase-done+", "lat_depth lat_unmet late_ops late_ns errors proxy clones" },
    { "interval+", "proxy clones" },
    /* a sweep point's load and skip: sent only when set */
    { "start+", "rate_iops rate_bps skip clones depth threads" },
    /* phase-done's errors value: per op type, its causes */
    { "eop", "causes other" },
    { "ecause", "kind code count offset size file" },
    { "cleaned+", "others" },
    { "submit+", "command" },
    { "system+", "waiting_for" },
    { "op", "ops bytes errors timeouts lat svc" },
    { "hist", "count sum min max runs" },
    /* the nfs engine's RPC telemetry (interval, phase-done) and one procedure's entry */
    { "nfs", "retransmits timeouts reconnects rpc" },
    { "rpc", "calls bytes_out bytes_in errors rtt status status_other" },
    { "host", "cpu_user_s cpu_sys_s cores threads nic rx_bytes tx_bytes speed_mbps" },
    { "mountstats", "mount note xprt ops" },
    /* the local NFS proxy (agent/proxyproc.h): interval and phase-done */
    { "proxy", "pid name port cpu_user_us cpu_sys_us conns remotes rx_bytes tx_bytes" },
    { "xprt", "connects sends recvs bad_xids req_u backlog_u" },
    { "ms_op", "name ops ntrans timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms errors" },
    /* phase-done's verify value and one of its first offenders */
    { "verify", "checked only runs_more runs ok corrupt_checksum wrong_offset wrong_file stale_generation "
                "torn zeroes wrong_writer first" },
    { "vfirst", "file offset kind reader expected_writer expected_generation found_writer found_job "
                "found_generation found_offset expected_run found_run" },
    /* each thread's figures (interval, phase-done: sent only for phases of
     * at most CLONE_SET_MAX threads on the agent) and one entry's keys */
    { "clone", "job clone runtime_ns stats" },
};

/* Optional keys: absent, they decode as their empty value. */
static const char *const optional_keys[] = {
    "welcome.labels", "error.version", "plan.run_id", "plan.run_ms",
    "job.verify_written_by", "job.coherence_never_visible", "start.rate_iops", "start.rate_bps", "start.skip", "start.depth", "start.threads", "phase-done.late_ops", "phase-done.late_ns", "job.null_capacity_iops", "job.null_latency_ns",
    "job.iodepth_batch_submit", "job.iodepth_batch_complete_min", "job.iodepth_batch_complete_max",
    "job.nconnect", "interval.nfs", "phase-done.nfs",
    "job.flow", "job.flow_id", "job.flow_sleep_ns", "job.size_pct", "job.exitall_on_error",
    /* fio's per-direction values and sequence modifiers: sent only when set */
    "job.bs_w", "job.bsrange_w_min", "job.bsrange_w_max", "job.bssplit_w", "job.rate_per_dir",
    "job.rate_w_bps", "job.rate_w_iops", "job.rw_seq_nr", "job.rw_seq_bytes", "job.rw_sequencer",
    "job.zones", "job.no_file_create", "job.openfiles", "job.norandommap", "job.rate_min_bps",
    "job.rate_min_w_bps", "job.rate_min_iops", "job.rate_min_w_iops", "job.ratecycle_ns",
    /* write buffer contents (common/wbuf.h): sent only when not fio's default */
    "job.buf_mode", "job.zero_buffers", "job.buffer_compress_percentage",
    "job.buffer_compress_chunk", "job.fallocate", "job.fadvise_hint", "job.dedupe_percentage",
    "job.dedupe_mode", "job.dedupe_working_set_percentage", "job.dedupe_global",
    /* the agent's CPU, NIC and mountstats */
    "interval.host", "interval.mountstats", "phase-done.host", "phase-done.mountstats",
    "mountstats.note",
    /* the local NFS proxy an efs-utils mount points at */
    "interval.proxy", "phase-done.proxy", "proxy.route_host",
    /* verification: sent only when set (absent = 0, ""), so a plan without
     * verify= is the same bytes as before these keys existed */
    "phase-done.verify",
    "job.verify", "job.no_do_verify", "job.verify_only", "job.verify_fatal", "job.verify_backlog",
    "job.verify_pattern", "job.verify_interval", "job.verify_offset",
    /* clean's: why nothing matched; a pool submission that is a clean */
    "cleaned.others", "submit.command",
    /* the previous run an agent still winds down */
    "system.waiting_for",
    /* each thread's figures: absent from older agents and larger phases */
    "interval.clones", "phase-done.clones", "start.clones",
};

static const char *pinned_optional(const char *what)
{
    char plus[64];
    snprintf(plus, sizeof plus, "%s+", what);
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        if (strcmp(pinned[i].what, plus) == 0)
            return pinned[i].keys;
    return NULL;
}

static const char *pinned_keys(const char *what)
{
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        if (strcmp(pinned[i].what, what) == 0)
            return pinned[i].keys;
    fail_msg("no pinned keys for '%s'", what);
    return NULL;
}

/* SHA-256 of each sample frame, taken from the encoders before the keys
 * became explicit literals (the pool's four: from proto/pool_msg.c as it
 * was merged).  A change here is a change of the bytes on the
 * wire: it needs a protocol decision (docs/protocol.md, "The contract"),
 * not a new hash.  ("error" is hashed without its optional version, which
 * only a version refusal sends: any other error is the same bytes as
 * before that key existed.  Likewise "plan" without its jobs' optional
 * nconnect, which only a job with nconnect= sends.) */
static uint32_t sample_error_version = PROTO_VERSION;
/* The same goes for "nfs" in interval and phase-done: without NFS
 * telemetry (any engine but nfs) they are the bytes they always were; with
 * it, these are the pinned bytes of the form. */
static int sample_nfs = 1;
static uint32_t sample_nconnect = 4;
/* The job's per-direction keys are hashed unset: a plan that uses none of
 * them is the same bytes as before they existed. */
static int sample_job_dirs = 1;
/* interval and phase-done carry host and mountstats (optional keys added
 * at version 2) except in the golden bytes, which are those of an agent
 * that sends neither: the same bytes as before the keys existed.  The
 * bytes with them are pinned apart (golden_client). */
static int sample_client = 1;

/* ... and the verify keys (optional, sent only when set) are left out of
 * the pinned bytes the same way; test_contract_verify pins them. */
static int sample_verify = 1;
/* ... and the write buffer keys, fallocate and fadvise_hint (optional, sent
 * only when not fio's default), kept out of every pinned hash: a plan without them is the same
 * bytes as before they existed. */
static int sample_buffers = 1;
static const struct golden {
    const char *type;
    const char *sha256;
} golden[] = {
    { "hello", "5663ed68d32520d20bb7ce437af6d60888834a7fe82bb07164aad317285a212f" },
    { "welcome", "e28454f11ce4f298d5ee1aa74ff87bca37f766664288d1335e8713ba0b7f31db" },
    { "auth", "c1e7fc3eb226dda19513f21a9b3b3829d123832d772d51dbfad3200a9fc93df9" },
    { "system", "b47de2530fea8de784ae001ddef297ff312850fa3fa025acfcba20bcde8a97c5" },
    { "storage", "1e6e789fb810dde7229910d9c0dae877835330a17991c7de713977245c7afb08" },
    { "progress", "2ddc309f5a35974cdc3b64cfde25903bd1695acfbaf92d5414e64c20305549e9" },
    { "plan", "541b965ee8d8f6b829bb10d4f569ccb2541ab307562a03dd6d1e61f8539394e5" },
    { "ready", "979aa06d3adc2151cabffba683181507116b07ce4dd48677b6adeedc64894f84" },
    { "start", "505d93aae5b717cc470bd9c044537035e60ae7d412c7b08abc7ca437267b5de8" },
    { "interval", "02b67bf055b9e5d298661c4e1583d7b5cbbf2e2095384afbb64ce38bec48b1ed" },
    { "phase-done", "c16eaa4e107dd34b6eea715dfeec42fbc2a3890539b22c01fb23107fb3a50687" },
    { "clean", "84f0521f2e2eee4aac50ee4d6ab25733cb247afdc5dccb509c461e1c37d5f513" },
    { "cleaned", "0edaa07ba0fa1fda0a7b2eeda9e19651bc855b53ef661213453499946fa248e2" },
    { "stop", "96dab2056282b3986a9f2d5bf7235fa56771a7e0410d3abcf8920c479e19b223" },
    { "error", "e14178f94e846395aadfc3e6a6ace6ee3777d0d034bf4e081724e61c220e4c97" },
    { "ping", "163fc262bfa695b780f53f80d99e2c06868bc3f4323a27d6c10c280c15b4ff27" },
    { "pong", "cf0cfa322d249881005dd46244685dcbdee91cdaaed19dd9ec9ec04187d7d6a6" },
    /* the pool's (proto/pool_msg.c), as first merged */
    { "submit", "d6130f57be6441949e0ea55aa69d23f113d6937199fcb10603176516ae163643" },
    { "busy", "afc5346622a2ec479dd6970715bb97e16ecc6e375e10a6afb9d6b2ba12b25754" },
    { "output", "1329a6721f252675750ce5158638f3028e458956fb788929c77f904aabf0be9f" },
    { "exit", "223a915d21b43a769e841ddb837ce333377695df0a12197fcf22e65c8d6a36ae" },
    /* added with phase control (exitall, steady state) */
    { "phase-end", "77d582d4bc4335e1326a14cfabc271365ea0ed023b1ac3cfad56182922c3b8df" },
    /* rw=coherence's (proto/coh_msg.c) */
    { "coherence", "25635a09cb61c6915d35935f3b45a774bbf91f2e9edc98d3ec61ebda30782408" },
};
static const struct golden golden_nfs[] = {
    { "interval", "a5705ae922ba5119b27160fa31a5adcd5820417b27d4c8edd83db6797afbb054" },
    { "phase-done", "daf8405a2206a12c334bc211c64ec9da5281371f8ef3b99520a96601d35646ed" },
};
/* interval and phase-done with host and mountstats, pinned when added */
static const struct golden golden_client[] = {
    { "interval", "10425169a32d1dc511f100699e2eebd8e4873244ee4d03c80cf0810262ebfa25" },
    { "phase-done", "f6739468fe1dd1e25990b186005fda968d68496594da7344fc046525077c7d47" },
};

/* ---- sample messages --------------------------------------------------- */

static void sample_hist(struct hist *h, uint64_t base)
{
    hist_init(h);
    for (uint64_t i = 1; i <= 40; i++)
        hist_record(h, base * i + i * i * 37);
}

static void sample_op_set(struct op_set *s)
{
    op_set_init(s);
    s->op[OP_READ].ops = 40;
    s->op[OP_READ].bytes = 40 * 4096;
    s->op[OP_READ].errors = 3;
    s->op[OP_READ].timeouts = 2;
    sample_hist(&s->op[OP_READ].lat, 1000);
    sample_hist(&s->op[OP_READ].svc, 700);
    s->op[OP_WRITE].ops = 40;
    s->op[OP_WRITE].bytes = 40 * 65536;
    sample_hist(&s->op[OP_WRITE].lat, 123457);
    s->op[OP_CREATE].ops = 0;
    s->op[OP_CREATE].errors = 0;
}

/* Two procedures, one with errors of two statuses; the counters and the
 * histograms as the agent would send them. */
static void sample_nfs_set(struct nfs_rpc_set *s)
{
    struct nfs_rpc_proc *p;

    nfs_rpc_set_free(s);
    if (!sample_nfs)
        return;
    s->retransmits = 2;
    s->timeouts = 1;
    s->reconnects = 1;
    p = nfs_rpc_set_proc(s, NFSP_WRITE);
    p->calls = 40;
    p->bytes_out = 40 * 65636;
    p->bytes_in = 40 * 160;
    p->errors = 3;
    sample_hist(&p->rtt, 90000);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 28), 2);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 10008), 1);
    p = nfs_rpc_set_proc(s, NFSP_LOOKUP);
    p->calls = 40;
    p->bytes_out = 40 * 120;
    p->bytes_in = 40 * 240;
    sample_hist(&p->rtt, 3000);
}

/* host and mountstats (or nothing, for the golden bytes) */
static void sample_client_stats(struct client_sample *c)
{
    memset(c, 0, sizeof *c);
    if (!sample_client)
        return;
    c->host.present = 1;
    c->host.cpu_user_s = 0.75;
    c->host.cpu_sys_s = 0.125;
    c->host.cores = 4;
    c->host.threads = 8;
    snprintf(c->host.nic, sizeof c->host.nic, "eth0");
    c->host.rx_bytes = 123456789;
    c->host.tx_bytes = 98765;
    c->host.speed_mbps = 10000;
    c->ms.present = 1;
    snprintf(c->ms.mount, sizeof c->ms.mount, "/mnt/efs");
    c->ms.xprt = (struct ms_xprt){ .connects = 1, .sends = 400, .recvs = 399, .bad_xids = 2,
                                   .req_u = 1300, .backlog_u = 4 };
    c->ms.nops = 2;
    c->ms.op[0] = (struct ms_op){ "READ", 250, 252, 2, 34000, 1024000, 8, 2000, 2035, 1 };
    c->ms.op[1] = (struct ms_op){ "WRITE", 130, 130, 0, 549000, 17680, 12, 1100, 1140, 0 };
}

static void sample_job(struct job_spec *j, int k)
{
    job_spec_default(j);
    snprintf(j->name, sizeof j->name, "job%d", k);
    j->rw = k ? RW_RANDRW : RW_WRITE;
    j->rwmixread = 70;
    j->bs = 8192;
    j->size = 1ull << 30;
    j->filesize = 1ull << 20;
    j->nrfiles = 16;
    j->numjobs = 4;
    j->runtime_ns = 30000000000ull;
    j->ramp_ns = 2000000000ull;
    j->time_based = 1;
    j->direct = 1;
    j->fsync = 8;
    j->end_fsync = 1;
    j->stonewall = k;
    snprintf(j->filename, sizeof j->filename, "/mnt/efs/${agent}/f");
    snprintf(j->directory, sizeof j->directory, "/mnt/efs");
    snprintf(j->ioengine, sizeof j->ioengine, "psync");
    j->iodepth = 8;
    snprintf(j->nfs_url, sizeof j->nfs_url, "nfs://127.0.0.1/export");
    snprintf(j->description, sizeof j->description, "a sample job");
    snprintf(j->buffer_pattern, sizeof j->buffer_pattern, "0xdeadbeef");
    j->bsrange_min = 4096;
    j->bsrange_max = 65536;
    j->nbssplit = 2;
    j->bssplit[0].bs = 4096;
    j->bssplit[0].pct = 60;
    j->bssplit[1].bs = 65536;
    j->bssplit[1].pct = 40;
    j->offset = 512;
    j->offset_increment = 1 << 20;
    j->io_size = 1ull << 29;
    j->number_ios = 1000;
    j->loops = 3;
    j->startdelay_ns = 5000000;
    j->thinktime_ns = 1000;
    j->rate_bps = 1 << 24;
    j->rate_iops = 500;
    j->rate_process = RATE_POISSON;
    j->randrepeat = 0;
    j->randseed = 42;
    j->random_distribution = DIST_ZIPF;
    j->dist_param = 1.2;
    j->unlink = 1;
    j->sync = 1;
    j->fdatasync = 4;
    j->invalidate = 0;
    snprintf(j->filename_format, sizeof j->filename_format, "$jobname.$filenum");
    j->new_group = 1;
    snprintf(j->agents, sizeof j->agents, "0-3,7");
    j->n_md_ops = 2;
    j->md_ops[0] = OP_CREATE;
    j->md_ops[1] = OP_STAT;
    j->files_per_dir = 100;
    j->shared_dir = 1;
    j->op_deadline_ns = 60000000000ull;
    j->server_timeout_ns = 30000000000ull;
    j->iodepth_batch_submit = 4;
    j->iodepth_batch_complete_min = 2;
    j->iodepth_batch_complete_max = 8;
    j->nconnect = sample_nconnect;
    if (sample_job_dirs) {
        j->bs_w = 65536;
        j->bsrange_w_min = 8192;
        j->bsrange_w_max = 131072;
        j->nbssplit_w = 1;
        j->bssplit_w[0].bs = 16384;
        j->bssplit_w[0].pct = 100;
        j->rate_per_dir = 1;
        j->rate_w_bps = 1 << 25;
        j->rate_w_iops = 700;
        j->rw_seq_nr = 8;
        j->rw_seq_bytes = 4096;
        j->rw_sequencer = RWSEQ_IDENTICAL;
        snprintf(j->zones, sizeof j->zones, "60/10:40/90");
        j->no_file_create = 1;
        j->openfiles = 4;
        j->norandommap = 1;
        j->rate_min_bps = 1 << 20;
        j->rate_min_w_bps = 1 << 21;
        j->rate_min_iops = 50;
        j->rate_min_w_iops = 60;
        j->ratecycle_ns = 500000000ull;
    }
    if (sample_buffers) {
        j->buf_mode = WBUF_REFILL;
        j->zero_buffers = 1;
        j->buffer_compress_percentage = 25;
        j->buffer_compress_chunk = 4096;
        j->dedupe_percentage = 10;
        j->fallocate = FALLOC_KEEP;
        j->fadvise_hint = FADV_RANDOM_HINT;
        j->dedupe_mode = WBUF_DEDUPE_WORKING_SET;
        j->dedupe_working_set_percentage = 20;
        j->dedupe_global = 1;
    }
    if (sample_verify) {
        j->verify = VB_CSUM_SHA256;
        j->no_do_verify = 1;
        j->verify_only = 1;
        j->verify_fatal = 1;
        j->verify_backlog = 64;
        snprintf(j->verify_pattern, sizeof j->verify_pattern, "0x5aa5");
        j->verify_interval = 4096;
        j->verify_offset = 512;
    }
}

static void sample_vstats(struct vstats *v)
{
    struct vstats_bad b = { .offset = 8192, .reader = 3, .expected_writer = 2, .expected_gen = 1ull << 40,
                            .found_writer = 5, .found_job = 7, .found_gen = 1ull << 39, .found_offset = 8192 };
    vstats_init(v);
    v->on = 1;
    for (int i = 0; i < 100; i++)
        vstats_add(v, VB_OK, NULL);
    snprintf(b.file, sizeof b.file, "/mnt/efs/3/f");
    vstats_add(v, VB_STALE, &b);
    b.offset = 12288;
    b.expected_writer = VBLOCK_ANY_WRITER;
    b.expected_gen = VBLOCK_ANY_GEN;
    vstats_add(v, VB_TORN, &b);
    vstats_add(v, VB_ZEROES, NULL);     /* counted, not kept */
}

static void sample_plan(struct msg_plan *m)
{
    struct job_spec j;

    memset(m, 0, sizeof *m);
    m->agent_index = 3;
    m->nagents = 8;
    m->interval_ms = 1000;
    plan_init(&m->plan);
    sample_job(&j, 0);
    plan_add_job(&m->plan, &j);
    sample_job(&j, 1);
    plan_add_job(&m->plan, &j);
}

/* Encode the sample message of type t into b. */
static void encode_sample(enum msg_type t, struct buf *b)
{
    buf_init(b);
    switch (t) {
    case MSG_HELLO: {
        struct msg_hello m = { .version = PROTO_VERSION };
        memset(m.nonce, 0xa5, sizeof m.nonce);
        msg_hello_encode(b, &m);
        break;
    }
    case MSG_WELCOME: {
        struct msg_welcome m = { .version = PROTO_VERSION, .ncpus = 96, .pid = 31337, .auth = 1 };
        snprintf(m.host, sizeof m.host, "client-17");
        memset(m.nonce, 0x5a, sizeof m.nonce);
        memset(m.mac, 0x3c, sizeof m.mac);
        snprintf(m.labels, sizeof m.labels, "rack1,gpu");
        msg_welcome_encode(b, &m);
        break;
    }
    case MSG_AUTH: {
        struct msg_auth m;
        memset(m.mac, 0xc3, sizeof m.mac);
        msg_auth_encode(b, &m);
        break;
    }
    case MSG_SYSTEM: {
        struct msg_system m = { .mem_bytes = 64ull << 30 };
        snprintf(m.kernel, sizeof m.kernel, "6.1.0-18-amd64");
        snprintf(m.cpu_model, sizeof m.cpu_model, "AMD EPYC 7R13 Processor");
        msg_system_encode(b, &m);
        break;
    }
    case MSG_STORAGE: {
        struct msg_storage m = { .phase = 2 };
        m.info.kind = STORAGE_MOUNT;
        snprintf(m.info.job, sizeof m.info.job, "w");
        snprintf(m.info.where, sizeof m.info.where, "/mnt/efs");
        snprintf(m.info.source, sizeof m.info.source, "fs-1.efs.example:/");
        snprintf(m.info.fstype, sizeof m.info.fstype, "nfs4");
        snprintf(m.info.options, sizeof m.info.options, "rw,relatime");
        snprintf(m.info.nfsvers, sizeof m.info.nfsvers, "4.1");
        m.info.rsize = 1 << 20;
        m.info.wsize = 1 << 20;
        m.info.nconnect = 4;
        m.info.timeo = 600;
        snprintf(m.info.mode, sizeof m.info.mode, "hard");
        msg_storage_encode(b, &m);
        break;
    }
    case MSG_PROGRESS: {
        struct msg_progress m = { .phase = 1, .done_bytes = 12345678, .total_bytes = 1ull << 33 };
        msg_progress_encode(b, &m);
        break;
    }
    case MSG_PLAN:
    case MSG_CLEAN: {
        struct msg_plan m;
        sample_plan(&m);
        if (t == MSG_PLAN)
            msg_plan_encode(b, &m);
        else
            msg_clean_encode(b, &m);
        msg_plan_free(&m);
        break;
    }
    case MSG_READY: {
        struct msg_ready m = { .phase = 5 };
        msg_ready_encode(b, &m);
        break;
    }
    case MSG_START: {
        struct msg_start m = { .phase = 5, .t0_ns = 987654321012345ull };
        msg_start_encode(b, &m);
        break;
    }
    case MSG_INTERVAL: {
        static struct msg_interval m;
        m.phase = 1;
        m.index = 17;
        m.inflight = 6;
        m.oldest_ns = 4500000;
        sample_op_set(&m.stats);
        sample_nfs_set(&m.nfs);
        sample_client_stats(&m.client);
        msg_interval_encode(b, &m);
        nfs_rpc_set_free(&m.nfs);
        break;
    }
    case MSG_PHASE_DONE: {
        static struct msg_phase_done m;
        m.phase = 1;
        m.started_ns = 1000000001;
        m.duration_ns = 30000000007ull;
        m.cpu_user_s = 1.25;
        m.cpu_sys_s = 3.5;
        m.cores = 16;
        m.nintervals = 30;
        sample_op_set(&m.totals);
        sample_nfs_set(&m.nfs);
        sample_client_stats(&m.client);
        if (sample_client)
            snprintf(m.client.ms.note, sizeof m.client.ms.note, "a note");
        if (sample_verify)
            sample_vstats(&m.verify);
        else
            vstats_init(&m.verify);
        msg_phase_done_encode(b, &m);
        nfs_rpc_set_free(&m.nfs);
        break;
    }
    case MSG_CLEANED: {
        struct msg_cleaned m = { .files = 64, .bytes = 1ull << 26, .skipped = 1 };
        snprintf(m.note, sizeof m.note, "kept /mnt/efs/l: a symlink");
        msg_cleaned_encode(b, &m);
        break;
    }
    case MSG_STOP: {
        struct msg_stop m;
        snprintf(m.reason, sizeof m.reason, "interrupted");
        msg_stop_encode(b, &m);
        break;
    }
    case MSG_PHASE_END: {
        struct msg_phase_end m = { .phase = 2 };
        snprintf(m.reason, sizeof m.reason, "steady state (iops_slope:0.1%%) at 30.0 s");
        msg_phase_end_encode(b, &m);
        break;
    }
    case MSG_ERROR: {
        struct msg_error m;
        memset(&m, 0, sizeof m);
        snprintf(m.text, sizeof m.text, "plan refused: no");
        m.version = sample_error_version;
        if (m.version)
            msg_error_refusal_encode(b, &m);
        else
            msg_error_encode(b, &m);
        break;
    }
    case MSG_PING: {
        struct msg_ping m = { .seq = 7, .t_ns = 111222333444ull };
        msg_ping_encode(b, &m);
        break;
    }
    case MSG_PONG: {
        struct msg_pong m = { .seq = 7, .t_ping_ns = 111222333444ull, .t_ns = 555666777888ull };
        msg_pong_encode(b, &m);
        break;
    }
    case MSG_SUBMIT: {
        static char opt0[] = "--output", opt1[] = "r.json", opt2[] = POOL_PLAN_ARG;
        static char *argv[] = { opt0, opt1, opt2 };
        static char plan[] = "[global]\nioengine=null\n[w]\nrw=write\nbs=4k\nsize=1m\n";
        struct pool_submit m = { .argv = argv, .argc = 3, .plan = plan, .plan_len = sizeof plan - 1,
                                 .want_json = 1, .wait = 1, .expect = 4, .min_agents = 2,
                                 .expect_timeout_ms = 15000 };
        pool_submit_encode(b, &m);
        break;
    }
    case MSG_BUSY: {
        struct pool_busy m;
        snprintf(m.from, sizeof m.from, "127.0.0.1:45678");
        snprintf(m.since, sizeof m.since, "18:07:43");
        pool_busy_encode(b, &m);
        break;
    }
    case MSG_OUTPUT: {
        static const char text[] = "phase 0: write  1.00 MiB in 1.00 s\n";
        pool_output_encode(b, POOL_STDERR, text, sizeof text - 1);
        break;
    }
    case MSG_EXIT:
        pool_exit_encode(b, 3);
        break;
    case MSG_COHERENCE: {
        struct msg_coherence m = { .phase = 2 };
        struct coh_pair *cp;
        coh_set_init(&m.set);
        cp = coh_set_pair(&m.set, 0, 1, COH_PAIRS_MAX);
        cp->seen = 2;
        cp->never = 1;
        hist_record(&cp->lag, 250000);
        hist_record(&cp->lag, 2000000);
        msg_coherence_encode(b, &m);
        coh_set_free(&m.set);
        break;
    }
    default:
        fail_msg("no sample for type %d", (int)t);
    }
}

/* Decode payload p (type t) with the message's decoder: 0 or -EBADMSG. */
static int decode_as(enum msg_type t, const char *p, size_t n, char *err, size_t errlen)
{
    union {
        struct msg_hello hello;
        struct msg_welcome welcome;
        struct msg_auth auth;
        struct msg_system system;
        struct msg_storage storage;
        struct msg_progress progress;
        struct msg_plan plan;
        struct msg_ready ready;
        struct msg_start start;
        struct msg_interval interval;
        struct msg_phase_done phase_done;
        struct msg_cleaned cleaned;
        struct msg_stop stop;
        struct msg_phase_end phase_end;
        struct msg_error error;
        struct msg_ping ping;
        struct msg_pong pong;
        struct pool_submit submit;
        struct pool_busy busy;
        struct pool_output output;
        uint32_t exit_status;
        struct msg_coherence coherence;
    } *u = calloc(1, sizeof *u);
    int rc;

    assert_non_null(u);
    switch (t) {
    case MSG_HELLO: rc = DECODE(msg_hello_decode, p, n, &u->hello, err, errlen); break;
    case MSG_WELCOME: rc = DECODE(msg_welcome_decode, p, n, &u->welcome, err, errlen); break;
    case MSG_AUTH: rc = DECODE(msg_auth_decode, p, n, &u->auth, err, errlen); break;
    case MSG_SYSTEM: rc = DECODE(msg_system_decode, p, n, &u->system, err, errlen); break;
    case MSG_STORAGE: rc = DECODE(msg_storage_decode, p, n, &u->storage, err, errlen); break;
    case MSG_PROGRESS: rc = DECODE(msg_progress_decode, p, n, &u->progress, err, errlen); break;
    case MSG_PLAN:
    case MSG_CLEAN:
        rc = t == MSG_PLAN ? DECODE(msg_plan_decode, p, n, &u->plan, err, errlen)
                           : DECODE(msg_clean_decode, p, n, &u->plan, err, errlen);
        if (rc == 0)
            msg_plan_free(&u->plan);
        break;
    case MSG_READY: rc = DECODE(msg_ready_decode, p, n, &u->ready, err, errlen); break;
    case MSG_START: rc = DECODE(msg_start_decode, p, n, &u->start, err, errlen); break;
    case MSG_INTERVAL:
        rc = DECODE(msg_interval_decode, p, n, &u->interval, err, errlen);
        if (rc == 0)
            msg_interval_free(&u->interval);
        break;
    case MSG_COHERENCE:
        rc = COH_DECODE(p, n, 1, &u->coherence, err, errlen);
        coh_set_free(&u->coherence.set);
        break;
    case MSG_PHASE_DONE:
        rc = DECODE(msg_phase_done_decode, p, n, &u->phase_done, err, errlen);
        if (rc == 0)
            msg_phase_done_free(&u->phase_done);
        break;
    case MSG_CLEANED: rc = DECODE(msg_cleaned_decode, p, n, &u->cleaned, err, errlen); break;
    case MSG_STOP: rc = DECODE(msg_stop_decode, p, n, &u->stop, err, errlen); break;
    case MSG_PHASE_END: rc = DECODE(msg_phase_end_decode, p, n, &u->phase_end, err, errlen); break;
    case MSG_ERROR: rc = DECODE(msg_error_decode, p, n, &u->error, err, errlen); break;
    case MSG_PING: rc = DECODE(msg_ping_decode, p, n, &u->ping, err, errlen); break;
    case MSG_PONG: rc = DECODE(msg_pong_decode, p, n, &u->pong, err, errlen); break;
    case MSG_SUBMIT:
        rc = DECODE(pool_submit_decode, p, n, &u->submit, err, errlen);
        if (rc == 0)
            pool_submit_free(&u->submit);
        break;
    case MSG_BUSY: rc = DECODE(pool_busy_decode, p, n, &u->busy, err, errlen); break;
    case MSG_OUTPUT: rc = DECODE(pool_output_decode, p, n, &u->output, err, errlen); break;
    case MSG_EXIT: rc = DECODE(pool_exit_decode, p, n, &u->exit_status, err, errlen); break;
    default: fail_msg("no decoder for type %d", (int)t); rc = -1;
    }
    free(u);
    return rc;
}

static const char *payload_of(const struct buf *b, size_t *n)
{
    assert_true(b->len >= FRAME_HEADER_LEN);
    *n = b->len - FRAME_HEADER_LEN;
    return b->data + FRAME_HEADER_LEN;
}

static enum msg_type type_from_name(const char *name)
{
    for (int t = 1; t < MSG__COUNT; t++)
        if (strcmp(msg_type_name((enum msg_type)t), name) == 0)
            return (enum msg_type)t;
    fail_msg("no type '%s'", name);
    return MSG__COUNT;
}

/* ---- golden bytes ------------------------------------------------------ */

static void sha256_hex(const struct buf *b, char out[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH];

    SHA256((const unsigned char *)b->data, b->len, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void test_contract_golden_bytes(void **state)
{
    int seen[MSG__COUNT] = { 0 };
    (void)state;

    sample_error_version = 0;
    sample_nfs = 0;
    sample_nconnect = 0;
    sample_job_dirs = 0;
    sample_client = 0;
    sample_verify = 0;
    sample_buffers = 0;
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        enum msg_type t = type_from_name(golden[i].type);
        struct buf b;
        char hex[65];

        encode_sample(t, &b);
        sha256_hex(&b, hex);
        if (getenv("CONTRACT_PRINT"))
            printf("    { \"%s\", \"%s\" },\n", golden[i].type, hex);
        else if (strcmp(hex, golden[i].sha256) != 0)
            fail_msg("%s: the bytes on the wire changed: sha256 %s, pinned %s", golden[i].type,
                     hex, golden[i].sha256);
        seen[t] = 1;
        buf_free(&b);
    }

    for (int t = 1; t < MSG__COUNT; t++)
        if (!seen[t])
            fail_msg("no golden bytes for '%s'", msg_type_name((enum msg_type)t));

    sample_nfs = 1;
    for (size_t i = 0; i < sizeof golden_nfs / sizeof golden_nfs[0]; i++) {
        struct buf b;
        char hex[65];

        encode_sample(type_from_name(golden_nfs[i].type), &b);
        sha256_hex(&b, hex);
        if (getenv("CONTRACT_PRINT"))
            printf("    { \"%s\" (nfs), \"%s\" },\n", golden_nfs[i].type, hex);
        else if (strcmp(hex, golden_nfs[i].sha256) != 0)
            fail_msg("%s with nfs: the bytes on the wire changed: sha256 %s, pinned %s",
                     golden_nfs[i].type, hex, golden_nfs[i].sha256);
        buf_free(&b);
    }

    sample_nfs = 0;
    sample_client = 1;
    for (size_t i = 0; i < sizeof golden_client / sizeof golden_client[0]; i++) {
        struct buf b;
        char hex[65];

        encode_sample(type_from_name(golden_client[i].type), &b);
        sha256_hex(&b, hex);
        if (getenv("CONTRACT_PRINT"))
            printf("    { \"%s\", \"%s\" },   (with host, mountstats)\n", golden_client[i].type, hex);
        else if (strcmp(hex, golden_client[i].sha256) != 0)
            fail_msg("%s with host and mountstats: the bytes on the wire changed: sha256 %s, "
                     "pinned %s", golden_client[i].type, hex, golden_client[i].sha256);
        buf_free(&b);
    }
    sample_verify = 1;
}

/* The verify keys, pinned where the pre-verify samples cannot hold them:
 * the bytes of a plan whose jobs set every verify key and of a phase-done
 * carrying verify results, the round trip, and the decoder's checks of
 * what an agent claims (counts that add up, at most 16 offenders, failure
 * kinds only). */
static int decode_edited(enum msg_type t, const char *drop, const char *add, char *err,
                         size_t errlen);

static const struct golden golden_verify[] = {
    { "plan", "13e0eb6ead0e9da68245509264f8c4cae5b90632d442582d00dfc6408bdbec2b" },
    { "phase-done", "f3050045f573707907ebc87363e6babf2ab616b23954555d6a2af628502c8624" },
};

static void test_contract_verify(void **state)
{
    char err[512];
    (void)state;

    sample_verify = 1;
    sample_buffers = 0;
    for (size_t i = 0; i < sizeof golden_verify / sizeof golden_verify[0]; i++) {
        struct buf b;
        char hex[65];
        encode_sample(type_from_name(golden_verify[i].type), &b);
        sha256_hex(&b, hex);
        if (getenv("CONTRACT_PRINT"))
            printf("    { \"%s\", \"%s\" },   (verify)\n", golden_verify[i].type, hex);
        else if (strcmp(hex, golden_verify[i].sha256) != 0)
            fail_msg("%s with verify: the bytes on the wire changed: sha256 %s, pinned %s",
                     golden_verify[i].type, hex, golden_verify[i].sha256);
        buf_free(&b);
    }

    /* round trip */
    {
        struct buf b;
        size_t n;
        const char *p;
        static struct msg_phase_done m;
        struct msg_plan plan;
        struct vstats want;
        const struct job_spec *j;

        encode_sample(MSG_PHASE_DONE, &b);
        p = payload_of(&b, &n);
        assert_int_equal(DECODE(msg_phase_done_decode, p, n, &m, err, sizeof err), 0);
        sample_vstats(&want);
        assert_int_equal(m.verify.on, 1);
        assert_memory_equal(&m.verify, &want, sizeof want);
        buf_free(&b);

        encode_sample(MSG_PLAN, &b);
        p = payload_of(&b, &n);
        assert_int_equal(DECODE(msg_plan_decode, p, n, &plan, err, sizeof err), 0);
        j = &plan.plan.phases[0].jobs[0];
        assert_int_equal(j->verify, VB_CSUM_SHA256);
        assert_int_equal(j->no_do_verify + j->verify_only + j->verify_fatal, 3);
        assert_int_equal(j->verify_backlog, 64);
        assert_string_equal(j->verify_pattern, "0x5aa5");
        assert_int_equal(j->verify_interval, 4096);
        assert_int_equal(j->verify_offset, 512);
        msg_plan_free(&plan);
        buf_free(&b);
    }

    /* what a decoder refuses, naming it */
    assert_int_equal(decode_edited(MSG_PHASE_DONE, "verify.torn", NULL, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "torn"));
    assert_int_equal(decode_edited(MSG_PHASE_DONE, "verify.first.0.kind", NULL, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "kind"));
    assert_int_equal(decode_edited(MSG_PHASE_DONE, "verify.first.1.found_offset", NULL, err, sizeof err),
                     -EBADMSG);
    assert_non_null(strstr(err, "found_offset"));
    /* ok's count gone: checked no longer adds up */
    assert_int_equal(decode_edited(MSG_PHASE_DONE, "verify.ok", NULL, err, sizeof err), -EBADMSG);
    assert_int_equal(decode_edited(MSG_PHASE_DONE, "verify", NULL, err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_PHASE_DONE, NULL, "verify", err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_PHASE_DONE, NULL, "verify.first.0", err, sizeof err), 0);
}

/* ---- keys as sent ------------------------------------------------------ */

static void keys_of(const msgpack_object *map, char *out, size_t size)
{
    size_t len = 0;

    assert_int_equal(map->type, MSGPACK_OBJECT_MAP);
    out[0] = '\0';
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        assert_int_equal(k->type, MSGPACK_OBJECT_STR);
        len += (size_t)snprintf(out + len, size - len, "%s%.*s", i ? " " : "",
                                (int)k->via.str.size, k->via.str.ptr);
        assert_true(len < size);
    }
}

static const msgpack_object *member(const msgpack_object *map, const char *key)
{
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->via.str.size == strlen(key) && memcmp(k->via.str.ptr, key, k->via.str.size) == 0)
            return &map->via.map.ptr[i].val;
    }
    fail_msg("no key '%s'", key);
    return NULL;
}

static void expect_keys(const char *what, const msgpack_object *map)
{
    char got[2048];

    keys_of(map, got, sizeof got);
    if (strcmp(got, pinned_keys(what)) != 0)
        fail_msg("%s: keys on the wire\n  %s\nbut the contract says\n  %s", what, got,
                 pinned_keys(what));
}

static void expect_op_set_keys(const msgpack_object *set)
{
    assert_int_equal(set->type, MSGPACK_OBJECT_MAP);
    assert_int_equal(set->via.map.size, 2);      /* read, write: create has nothing */
    expect_keys("op", member(set, "read"));
    expect_keys("hist", member(member(set, "read"), "lat"));
    expect_keys("hist", member(member(set, "read"), "svc"));
}

static void test_contract_keys_per_message(void **state)
{
    (void)state;
    for (int t = 1; t < MSG__COUNT; t++) {
        const char *name = msg_type_name((enum msg_type)t);
        msgpack_unpacked u;
        struct buf b;
        size_t n, off = 0;
        const char *p;

        encode_sample((enum msg_type)t, &b);
        p = payload_of(&b, &n);
        msgpack_unpacked_init(&u);
        assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
        expect_keys(name, &u.data);
        if (t == MSG_PLAN || t == MSG_CLEAN) {
            const msgpack_object *ph = member(&u.data, "phases");
            assert_int_equal(ph->via.array.size, 2);
            expect_keys("phase", &ph->via.array.ptr[0]);
            expect_keys("job", &member(&ph->via.array.ptr[1], "jobs")->via.array.ptr[0]);
        }
        if (t == MSG_INTERVAL)
            expect_op_set_keys(member(&u.data, "stats"));
        if (t == MSG_PHASE_DONE) {
            const msgpack_object *v = member(&u.data, "verify");
            expect_op_set_keys(member(&u.data, "totals"));
            expect_keys("verify", v);
            assert_int_equal(member(v, "first")->via.array.size, 2);
            expect_keys("vfirst", &member(v, "first")->via.array.ptr[0]);
        }
        if (t == MSG_INTERVAL || t == MSG_PHASE_DONE) {
            const msgpack_object *nfs = member(&u.data, "nfs"), *rpc;
            expect_keys("nfs", nfs);
            rpc = member(nfs, "rpc");
            assert_int_equal(rpc->via.map.size, 2);      /* LOOKUP, WRITE */
            expect_keys("rpc", member(rpc, "WRITE"));
            expect_keys("rpc", member(rpc, "LOOKUP"));
            expect_keys("hist", member(member(rpc, "WRITE"), "rtt"));
            const msgpack_object *ms = member(&u.data, "mountstats");
            expect_keys("host", member(&u.data, "host"));
            if (t == MSG_PHASE_DONE)     /* the note: phase-done only */
                expect_keys("mountstats", ms);
            expect_keys("xprt", member(ms, "xprt"));
            assert_int_equal(member(ms, "ops")->via.array.size, 2);
            expect_keys("ms_op", &member(ms, "ops")->via.array.ptr[1]);
        }
        msgpack_unpacked_destroy(&u);
        buf_free(&b);
    }
}

/* ---- the doc names the same keys -------------------------------------- */

static char *read_doc(void)
{
    const char *path = getenv("NFSTORM_PROTOCOL_DOC") ? getenv("NFSTORM_PROTOCOL_DOC")
                                                      : "docs/protocol.md";
    FILE *f = fopen(path, "r");
    char *s;
    long len;

    if (!f)
        fail_msg("cannot open %s (run from the source tree, or set NFSTORM_PROTOCOL_DOC)", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = calloc(1, (size_t)len + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return s;
}

/* Append the `backticked` words of cell to list (space-separated). */
static void add_ticked(char *list, size_t size, const char *cell, size_t cell_len)
{
    const char *end = cell + cell_len;

    for (const char *p = cell; p < end; p++) {
        const char *q;
        if (*p != '`')
            continue;
        q = memchr(p + 1, '`', (size_t)(end - p - 1));
        if (!q)
            return;
        snprintf(list + strlen(list), size - strlen(list), "%s%.*s", list[0] ? " " : "",
                 (int)(q - p - 1), p + 1);
        p = q;
    }
}

/* Split a markdown table row into cells; returns the count (at most max). */
static int cells_of(const char *line, size_t len, const char **cell, size_t *cell_len, int max)
{
    const char *end = line + len, *p = line;
    int n = 0;

    if (p == end || *p != '|')
        return 0;
    p++;
    while (p < end && n < max) {
        const char *q = memchr(p, '|', (size_t)(end - p));
        if (!q)
            break;
        cell[n] = p;
        cell_len[n] = (size_t)(q - p);
        n++;
        p = q + 1;
    }
    return n;
}

/* The keys of what in the table starting at line (appended to out). */
static void table_keys(const char *line, const char *what, char *out, size_t size)
{
    int in = 0;

    while (*line == '|') {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *cell[8];
        size_t cl[8];
        int n = cells_of(line, len, cell, cl, 8);

        if (strcmp(what, "job") == 0) {
            if (n >= 2 && memchr(cell[0], '`', cl[0]))
                add_ticked(out, size, cell[0], cl[0]);
        } else if (n >= 3) {
            char first[64] = "";
            add_ticked(first, sizeof first, cell[0], cl[0]);
            if (first[0])
                in = strcmp(first, what) == 0;
            if (in)
                add_ticked(out, size, cell[2], cl[2]);
        }
        if (!nl)
            break;
        line = nl + 1;
    }
}

/* The doc's keys of what: from the message tables (what = a type, its rows
 * until the next type; the conversation's and the pool's tables have the
 * same header) or the job table (what = "job"). */
static void doc_keys(const char *doc, const char *what, char *out, size_t size)
{
    const char *head = strcmp(what, "job") == 0 ? "\n| key | type | range"
                                                : "\n| type | direction | key |";
    const char *start = strstr(doc, head);

    assert_non_null(start);
    out[0] = '\0';
    if (strcmp(what, "job") != 0)
        snprintf(out, size, "type");
    for (; start; start = strstr(start + 1, head))
        table_keys(start + 1, what, out, size);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list with its words sorted: the doc groups keys for the reader, the
 * set is what must agree */
static void sorted_words(const char *list, char *out, size_t size)
{
    char copy[2048], *w[128], *save = NULL;
    size_t n = 0, len = 0;

    snprintf(copy, sizeof copy, "%s", list);
    for (char *k = strtok_r(copy, " ", &save); k && n < 128; k = strtok_r(NULL, " ", &save))
        w[n++] = k;
    qsort(w, n, sizeof w[0], cmp_str);
    out[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : "", w[i]);
}

/* the doc's tables list the optional keys ("what+") too */
static void expect_doc_keys(const char *doc_list, const char *what)
{
    char a[2048], b[2048], all[2048];

    snprintf(all, sizeof all, "%s%s%s", pinned_keys(what), pinned_optional(what) ? " " : "",
             pinned_optional(what) ? pinned_optional(what) : "");
    sorted_words(doc_list, a, sizeof a);
    sorted_words(all, b, sizeof b);
    if (strcmp(a, b) != 0)
        fail_msg("docs/protocol.md lists for '%s'\n  %s\nthe contract\n  %s", what, doc_list, all);
}

static void test_contract_doc_lists_every_key(void **state)
{
    char *doc = read_doc();
    char got[2048];
    (void)state;

    for (int t = 1; t < MSG__COUNT; t++) {
        const char *name = msg_type_name((enum msg_type)t);
        doc_keys(doc, name, got, sizeof got);
        expect_doc_keys(got, name);
    }
    doc_keys(doc, "job", got, sizeof got);
    expect_doc_keys(got, "job");
    /* op_set, hist, the nfs telemetry, host, mountstats, xprt, ms_op and
     * verify are shown as code: each key as "key" */
    static const char *const shown[] = { "op", "hist", "nfs", "rpc", "host", "mountstats", "xprt", "ms_op",
                                         "verify", "vfirst", "eop", "ecause", "proxy", "clone" };
    for (size_t w = 0; w < sizeof shown / sizeof shown[0]; w++) {
        const char *what = shown[w];
        char keys[256], *save = NULL;
        snprintf(keys, sizeof keys, "%s", pinned_keys(what));
        for (char *k = strtok_r(keys, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
            char quoted[64];
            snprintf(quoted, sizeof quoted, "\"%s\":", k);
            if (!strstr(doc, quoted))
                fail_msg("docs/protocol.md does not show %s key %s", what, quoted);
        }
    }
    free(doc);
}

/* ---- missing and unknown keys ----------------------------------------- */

/* Pack o again, leaving out the map entry at path drop ("phases.0.jobs.0.bs")
 * and adding an entry "zz_unknown": [1, {"x": "y"}] to the map at path add
 * ("" = the top).  Either may be NULL. */
static void repack(msgpack_packer *pk, const msgpack_object *o, const char *path,
                   const char *drop, const char *add)
{
    char sub[256];

    if (o->type == MSGPACK_OBJECT_MAP) {
        uint32_t n = o->via.map.size, dropped = 0;
        int adding = add && strcmp(add, path) == 0;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            snprintf(sub, sizeof sub, "%s%s%.*s", path, path[0] ? "." : "", (int)k->via.str.size,
                     k->via.str.ptr);
            dropped += drop && strcmp(sub, drop) == 0;
        }
        msgpack_pack_map(pk, n - dropped + (uint32_t)adding);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            snprintf(sub, sizeof sub, "%s%s%.*s", path, path[0] ? "." : "", (int)k->via.str.size,
                     k->via.str.ptr);
            if (drop && strcmp(sub, drop) == 0)
                continue;
            msgpack_pack_object(pk, *k);
            repack(pk, &o->via.map.ptr[i].val, sub, drop, add);
        }
        if (adding) {
            msgpack_pack_str_with_body(pk, "zz_unknown", 10);
            msgpack_pack_array(pk, 2);
            msgpack_pack_uint8(pk, 1);
            msgpack_pack_map(pk, 1);
            msgpack_pack_str_with_body(pk, "x", 1);
            msgpack_pack_str_with_body(pk, "y", 1);
        }
        return;
    }
    if (o->type == MSGPACK_OBJECT_ARRAY) {
        msgpack_pack_array(pk, o->via.array.size);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            snprintf(sub, sizeof sub, "%s%s%" PRIu32, path, path[0] ? "." : "", i);
            repack(pk, &o->via.array.ptr[i], sub, drop, add);
        }
        return;
    }
    msgpack_pack_object(pk, *o);
}

/* Decode the sample of type t edited by repack(drop, add). */
static int decode_edited(enum msg_type t, const char *drop, const char *add, char *err,
                         size_t errlen)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_unpacked u;
    struct buf b;
    size_t n, off = 0;
    const char *p;
    int rc;

    encode_sample(t, &b);
    p = payload_of(&b, &n);
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    repack(&pk, &u.data, "", drop, add);
    err[0] = '\0';
    rc = decode_as(t, sb.data, sb.size, err, errlen);
    msgpack_sbuffer_destroy(&sb);
    msgpack_unpacked_destroy(&u);
    buf_free(&b);
    return rc;
}

static int is_optional(const char *type, const char *key)
{
    char full[128];

    snprintf(full, sizeof full, "%s.%s", type, key);
    for (size_t i = 0; i < sizeof optional_keys / sizeof optional_keys[0]; i++)
        if (strcmp(optional_keys[i], full) == 0)
            return 1;
    return 0;
}

/* Every key of what (at prefix inside a message of type t): dropped, a
 * required one is rejected naming it, an optional one is not. */
static void check_drops(enum msg_type t, const char *what, const char *prefix)
{
    char keys[2048], *save = NULL, err[512], path[256], want[160];

    snprintf(keys, sizeof keys, "%s", pinned_keys(what));
    for (char *k = strtok_r(keys, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
        int rc;
        if (strcmp(k, "type") == 0)
            continue;          /* without it, it is not a message at all */
        snprintf(path, sizeof path, "%s%s", prefix, k);
        rc = decode_edited(t, path, NULL, err, sizeof err);
        if (is_optional(what, k)) {
            if (rc != 0)
                fail_msg("%s without optional '%s': %s", what, path, err);
            continue;
        }
        snprintf(want, sizeof want, "missing key '%s'", k);
        if (rc != -EBADMSG || !strstr(err, want))
            fail_msg("%s without '%s': rc %d, '%s'", msg_type_name(t), path, rc, err);
    }
}

static void test_contract_missing_keys_rejected(void **state)
{
    (void)state;
    for (int t = 1; t < MSG__COUNT; t++)
        check_drops((enum msg_type)t, msg_type_name((enum msg_type)t), "");
    check_drops(MSG_PLAN, "phase", "phases.1.");
    check_drops(MSG_PLAN, "job", "phases.1.jobs.0.");
    check_drops(MSG_CLEAN, "job", "phases.0.jobs.0.");
    check_drops(MSG_INTERVAL, "host", "host.");
    check_drops(MSG_PHASE_DONE, "mountstats", "mountstats.");
    check_drops(MSG_INTERVAL, "xprt", "mountstats.xprt.");
    check_drops(MSG_PHASE_DONE, "ms_op", "mountstats.ops.1.");
    /* in an op entry, timeouts and svc are optional */
    {
        char err[512];
        static const char *const req[] = { "ops", "bytes", "errors", "lat" };
        static const char *const hk[] = { "count", "sum", "min", "max", "runs" };
        for (size_t i = 0; i < 4; i++) {
            char path[64];
            snprintf(path, sizeof path, "stats.read.%s", req[i]);
            assert_int_equal(decode_edited(MSG_INTERVAL, path, NULL, err, sizeof err), -EBADMSG);
            assert_non_null(strstr(err, req[i]));
        }
        assert_int_equal(decode_edited(MSG_INTERVAL, "stats.read.timeouts", NULL, err, sizeof err), 0);
        /* every key of the nfs telemetry is required once it is sent */
        check_drops(MSG_INTERVAL, "nfs", "nfs.");
        check_drops(MSG_PHASE_DONE, "rpc", "nfs.rpc.WRITE.");
        for (size_t i = 0; i < 5; i++) {
            char path[64];
            snprintf(path, sizeof path, "nfs.rpc.LOOKUP.rtt.%s", hk[i]);
            assert_int_equal(decode_edited(MSG_INTERVAL, path, NULL, err, sizeof err), -EBADMSG);
            assert_non_null(strstr(err, hk[i]));
        }
        assert_int_equal(decode_edited(MSG_INTERVAL, "stats.read.svc", NULL, err, sizeof err), 0);
        for (size_t i = 0; i < 5; i++) {
            char path[64];
            snprintf(path, sizeof path, "totals.write.lat.%s", hk[i]);
            assert_int_equal(decode_edited(MSG_PHASE_DONE, path, NULL, err, sizeof err), -EBADMSG);
            assert_non_null(strstr(err, hk[i]));
        }
    }
}

static void test_contract_unknown_keys_ignored(void **state)
{
    static const char *const where[] = { "stats", "stats.read", "stats.read.lat", "nfs", "nfs.rpc",
                                         "nfs.rpc.WRITE", "nfs.rpc.WRITE.rtt" };
    char err[512];
    (void)state;

    for (int t = 1; t < MSG__COUNT; t++) {
        int rc = decode_edited((enum msg_type)t, NULL, "", err, sizeof err);
        if (rc != 0)
            fail_msg("%s with an unknown key: %s", msg_type_name((enum msg_type)t), err);
    }
    assert_int_equal(decode_edited(MSG_PLAN, NULL, "phases.0", err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_PLAN, NULL, "phases.1.jobs.0", err, sizeof err), 0);
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
        assert_int_equal(decode_edited(MSG_INTERVAL, NULL, where[i], err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_INTERVAL, NULL, "host", err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_INTERVAL, NULL, "mountstats", err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_INTERVAL, NULL, "mountstats.xprt", err, sizeof err), 0);
    assert_int_equal(decode_edited(MSG_PHASE_DONE, NULL, "mountstats.ops.0", err, sizeof err), 0);
}

/* ---- values that are words on the wire -------------------------------- */

/* The op_set's keys and md_ops' entries (op names), rw, rate_process,
 * random_distribution and file_service_type travel as these words, taken
 * from common/ (the plan's and the reports' names): renaming one there
 * changes the wire. */
static void expect_words(const char *what, const char *(*name)(unsigned), unsigned n,
                         const char *want)
{
    char got[512];
    size_t len = 0;

    got[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        const char *w = name(i);
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", i ? " " : "", w ? w : "?");
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s words on the wire\n  %s\nthe contract\n  %s", what, got, want);
}

static const char *op_word(unsigned v) { return op_type_name((enum op_type)v); }
static const char *rw_word(unsigned v) { return rw_mode_name((enum rw_mode)v); }
static const char *rate_word(unsigned v) { return rate_process_name((enum rate_process)v); }
static const char *dist_word(unsigned v) { return rand_dist_name((enum rand_dist)v); }
static const char *fserv_word(unsigned v) { return file_service_name((enum file_service)v); }

static void test_contract_words(void **state)
{
    (void)state;
    expect_words("op", op_word, OP__COUNT,
                 "read write create stat open readdir rename unlink mkdir rmdir sync");
    expect_words("rw", rw_word, RW__COUNT, "read write randread randwrite rw randrw metadata coherence");
    expect_words("rate_process", rate_word, 2, "linear poisson");
    expect_words("random_distribution", dist_word, 4, "random zipf pareto normal");
    expect_words("file_service_type", fserv_word, 3, "roundrobin sequential random");
}

/* ---- the version, before anything else -------------------------------- */

static void pack_kv_str(msgpack_packer *pk, const char *k, const char *v)
{
    msgpack_pack_str_with_body(pk, k, strlen(k));
    msgpack_pack_str_with_body(pk, v, strlen(v));
}

static void test_contract_version_peek(void **state)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    uint32_t v = 0;
    char err[256];
    struct buf b;
    size_t n;
    const char *p;
    (void)state;

    /* a welcome from another version, with keys this one does not know and
     * without most it requires: still its version */
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    pack_kv_str(&pk, "type", "welcome");
    pack_kv_str(&pk, "agent_name", "a future key");
    msgpack_pack_str_with_body(&pk, "version", 7);
    msgpack_pack_uint32(&pk, 3);
    assert_int_equal(VERSION_PEEK(sb.data, sb.size, &v, err, sizeof err), 0);
    assert_int_equal(v, 3);
    assert_int_equal(DECODE(msg_welcome_decode, sb.data, sb.size, &(struct msg_welcome){ 0 }, err, sizeof err), -EBADMSG);
    msgpack_sbuffer_destroy(&sb);

    /* ours, from the encoder */
    encode_sample(MSG_HELLO, &b);
    p = payload_of(&b, &n);
    assert_int_equal(VERSION_PEEK(p, n, &v, err, sizeof err), 0);
    assert_int_equal(v, PROTO_VERSION);
    buf_free(&b);

    /* an error from an older peer: no version, 0 */
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    pack_kv_str(&pk, "type", "error");
    pack_kv_str(&pk, "text", "protocol version mismatch: agent speaks 1, coordinator 2");
    v = 99;
    assert_int_equal(VERSION_PEEK(sb.data, sb.size, &v, err, sizeof err), 0);
    assert_int_equal(v, 0);
    msgpack_sbuffer_destroy(&sb);

    /* a version that is not a u32, and garbage */
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    pack_kv_str(&pk, "type", "hello");
    pack_kv_str(&pk, "version", "2");
    assert_int_equal(VERSION_PEEK(sb.data, sb.size, &v, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "'version'"));
    msgpack_sbuffer_destroy(&sb);
    assert_int_equal(VERSION_PEEK("\x93\x01", 2, &v, err, sizeof err), -EBADMSG);
}

static void test_contract_version_refusal_text(void **state)
{
    char line[256];
    (void)state;

    msg_version_refusal(line, sizeof line, "agent", "127.0.0.1:7878", 1, "coordinator");
    assert_string_equal(line, "agent 127.0.0.1:7878 speaks protocol 1, this coordinator "
                              "5: upgrade one of them");
    msg_version_refusal(line, sizeof line, "coordinator", "10.0.0.1:9000", 6, "agent");
    assert_string_equal(line, "coordinator 10.0.0.1:9000 speaks protocol 6, this agent "
                              "5: upgrade one of them");
}

/* The error a refusing peer sends: its version travels with the text, and
 * an error without one (an older peer's) still decodes, as version 0. */
static void test_contract_error_version_optional(void **state)
{
    struct msg_error in, out;
    struct buf b;
    char err[256];
    size_t n;
    const char *p;
    (void)state;

    memset(&in, 0, sizeof in);
    snprintf(in.text, sizeof in.text, "protocol version mismatch: agent speaks 2, coordinator 3");
    in.version = PROTO_VERSION;
    buf_init(&b);
    msg_error_refusal_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_error_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.version, PROTO_VERSION);
    assert_string_equal(out.text, in.text);
    buf_free(&b);
    assert_int_equal(decode_edited(MSG_ERROR, "version", NULL, err, sizeof err), 0);

    /* any other error never carries one, whatever the struct holds */
    in.version = 0xdeadbeef;
    snprintf(in.text, sizeof in.text, "plan refused: no");
    buf_init(&b);
    msg_error_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_error_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.version, 0);
    assert_null(memmem(p, n, "version", 7));
    buf_free(&b);
}

/* exitall: a job key sent only when set (the samples' bytes stay as
 * pinned), after every pinned job key; absent it decodes as 0. */
static void test_contract_job_optional_keys(void **state)
{
    struct msg_plan in, out;
    msgpack_unpacked u;
    struct buf b;
    char err[256], want[2048];
    size_t n, off = 0;
    const char *p;
    (void)state;

    sample_plan(&in);
    in.plan.phases[1].jobs[0].exitall = 1;
    in.plan.phases[1].jobs[0].latency_target_us = 2000;
    in.plan.phases[1].jobs[0].latency_window_us = 500000;
    in.plan.phases[1].jobs[0].latency_pct_milli = 99500;
    in.plan.phases[1].jobs[0].flow = 8;
    in.plan.phases[1].jobs[0].flow_id = 2;
    in.plan.phases[1].jobs[0].flow_sleep_ns = 1000000;
    in.plan.phases[1].jobs[0].overwrite = 1;
    in.plan.phases[1].jobs[0].size_pct = 50;
    in.plan.phases[1].jobs[0].exitall_on_error = 1;
    snprintf(in.plan.phases[1].jobs[0].verify_written_by, sizeof in.plan.phases[1].jobs[0].verify_written_by,
             "0123456789abcdef");
    in.plan.phases[1].jobs[0].coherence_never_warn = 1;
    in.plan.phases[1].jobs[0].null_capacity_iops = 50000;
    in.plan.phases[1].jobs[0].null_latency_ns = 100000;
    buf_init(&b);
    msg_plan_encode(&b, &in);
    p = payload_of(&b, &n);
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
    {
        const msgpack_object *ph = member(&u.data, "phases");
        char got[2048];
        keys_of(&member(&ph->via.array.ptr[1], "jobs")->via.array.ptr[0], got, sizeof got);
        snprintf(want, sizeof want, "%s %s", pinned_keys("job"), pinned_keys("job+"));
        assert_string_equal(got, want);
        expect_keys("job", &member(&ph->via.array.ptr[0], "jobs")->via.array.ptr[0]);
    }
    msgpack_unpacked_destroy(&u);
    assert_int_equal(DECODE(msg_plan_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.plan.phases[1].jobs[0].exitall, 1);
    assert_int_equal(out.plan.phases[1].jobs[0].latency_target_us, 2000);
    assert_int_equal(out.plan.phases[1].jobs[0].latency_window_us, 500000);
    assert_int_equal(out.plan.phases[1].jobs[0].latency_pct_milli, 99500);
    assert_int_equal(out.plan.phases[1].jobs[0].overwrite, 1);
    assert_int_equal(out.plan.phases[1].jobs[0].size_pct, 50);
    assert_int_equal(out.plan.phases[1].jobs[0].exitall_on_error, 1);
    assert_int_equal(out.plan.phases[0].jobs[0].exitall_on_error, 0);
    assert_int_equal(out.plan.phases[0].jobs[0].overwrite, 0);
    assert_string_equal(out.plan.phases[1].jobs[0].verify_written_by, "0123456789abcdef");
    assert_int_equal(out.plan.phases[1].jobs[0].coherence_never_warn, 1);
    assert_string_equal(out.plan.phases[0].jobs[0].verify_written_by, "");
    assert_int_equal(out.plan.phases[0].jobs[0].latency_target_us, 0);
    assert_int_equal(out.plan.phases[0].jobs[0].exitall, 0);
    assert_int_equal(out.plan.phases[1].jobs[0].flow, 8);
    assert_int_equal(out.plan.phases[1].jobs[0].flow_id, 2);
    assert_int_equal(out.plan.phases[1].jobs[0].flow_sleep_ns, 1000000);
    assert_int_equal(out.plan.phases[0].jobs[0].flow, 0);
    msg_plan_free(&out);
    buf_free(&b);
    plan_free(&in.plan);
}

/* phase-done's latency_target answer: sent only when set, after totals. */
static void test_contract_phase_done_optional_keys(void **state)
{
    static struct msg_phase_done in, out;
    msgpack_unpacked u;
    struct buf b;
    char err[256], got[2048], want[2048];
    size_t n, off = 0;
    const char *p;
    (void)state;

    memset(&in, 0, sizeof in);
    in.phase = 1;
    op_set_init(&in.totals);
    in.lat_depth = 12;
    in.lat_unmet = 1;
    in.late_ops = 7;
    in.late_ns = 123456789;
    /* and the local NFS proxy, sent when the agent found one */
    in.client.proxy.present = 1;
    in.client.proxy.pid = 4242;
    in.client.proxy.port = 20049;
    snprintf(in.client.proxy.name, sizeof in.client.proxy.name, "efs-proxy");
    in.client.proxy.conns = 2;
    snprintf(in.client.proxy.remotes, sizeof in.client.proxy.remotes, "10.0.1.5:2049");
    /* and the failed ops' causes, sent when some op failed */
    in.totals.op[OP_READ].ops = in.totals.op[OP_READ].errors = 5;
    errcause_add(&in.errors, OP_READ, ERRC_SHORT_READ, 0, 8192, 0, "f.dat", 3);
    errcause_add(&in.errors, OP_READ, ERRC_NFS, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 5), 0, 0, "f.dat", 2);
    /* and one thread's figures */
    clone_set_add(&in.clones, 0, 1)->runtime_ns = 99;
    in.clones.c[0].stats->op[OP_READ].ops = in.clones.c[0].stats->op[OP_READ].errors = 5;
    buf_init(&b);
    msg_phase_done_encode(&b, &in);
    p = payload_of(&b, &n);
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
    keys_of(&u.data, got, sizeof got);
    snprintf(want, sizeof want, "%s %s", pinned_keys("phase-done"), pinned_optional("phase-done"));
    /* "nfs", "host" and "mountstats" are optional too (pinned with the
     * sample that carries them): this message has none */
    static const char *const absent[] = { " nfs ", " host ", " mountstats ", " verify " };
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        char *w = strstr(want, absent[i]);
        if (w)
            memmove(w, w + strlen(absent[i]) - 1, strlen(w + strlen(absent[i]) - 1) + 1);
    }
    assert_string_equal(got, want);
    msgpack_unpacked_destroy(&u);
    assert_int_equal(DECODE(msg_phase_done_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.lat_depth, 12);
    assert_int_equal(out.lat_unmet, 1);
    assert_int_equal(out.late_ops, 7);
    assert_int_equal(out.late_ns, 123456789);
    assert_int_equal(out.client.proxy.pid, 4242);
    assert_int_equal(out.client.proxy.conns, 2);
    assert_string_equal(out.client.proxy.remotes, "10.0.1.5:2049");
    assert_memory_equal(&out.errors, &in.errors, sizeof in.errors);
    {
        const msgpack_object *e, *rd;
        msgpack_unpacked_init(&u);
        off = 0;
        assert_int_equal(msgpack_unpack_next(&u, p, n, &off), MSGPACK_UNPACK_SUCCESS);
        e = member(&u.data, "errors");
        rd = member(e, "read");
        expect_keys("eop", rd);
        expect_keys("ecause", &member(rd, "causes")->via.array.ptr[0]);
        expect_keys("clone", &member(&u.data, "clones")->via.array.ptr[0]);
        msgpack_unpacked_destroy(&u);
    }
    assert_int_equal(out.clones.n, 1);
    assert_int_equal(out.clones.c[0].clone, 1);
    assert_int_equal(out.clones.c[0].runtime_ns, 99);
    msg_phase_done_free(&out);
    clone_set_free(&in.clones);
    buf_free(&b);
}

/* phase-end carries its phase, bounded like every phase index. */
static void test_contract_phase_end_bounds(void **state)
{
    struct msg_phase_end in = { .phase = PLAN_MAX_PHASES }, out;
    struct buf b;
    char err[256];
    size_t n;
    const char *p;
    (void)state;

    snprintf(in.reason, sizeof in.reason, "exitall");
    buf_init(&b);
    msg_phase_end_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_not_equal(DECODE(msg_phase_end_decode, p, n, &out, err, sizeof err), 0);
    assert_non_null(strstr(err, "phase"));
    buf_free(&b);
    in.phase = PLAN_MAX_PHASES - 1;
    buf_init(&b);
    msg_phase_end_encode(&b, &in);
    p = payload_of(&b, &n);
    assert_int_equal(DECODE(msg_phase_end_decode, p, n, &out, err, sizeof err), 0);
    assert_int_equal(out.phase, PLAN_MAX_PHASES - 1);
    assert_string_equal(out.reason, "exitall");
    buf_free(&b);
}

/* Each test starts from the full samples, whatever the last one left. */
static int reset_samples(void **state)
{
    (void)state;
    sample_error_version = PROTO_VERSION;
    sample_nfs = 1;
    sample_nconnect = 4;
    sample_job_dirs = 1;
    sample_client = 1;
    sample_verify = 1;
    sample_buffers = 1;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_contract_golden_bytes, reset_samples),
        cmocka_unit_test_setup(test_contract_verify, reset_samples),
        cmocka_unit_test_setup(test_contract_keys_per_message, reset_samples),
        cmocka_unit_test_setup(test_contract_doc_lists_every_key, reset_samples),
        cmocka_unit_test_setup(test_contract_missing_keys_rejected, reset_samples),
        cmocka_unit_test_setup(test_contract_unknown_keys_ignored, reset_samples),
        cmocka_unit_test_setup(test_contract_words, reset_samples),
        cmocka_unit_test_setup(test_contract_version_peek, reset_samples),
        cmocka_unit_test_setup(test_contract_version_refusal_text, reset_samples),
        cmocka_unit_test_setup(test_contract_error_version_optional, reset_samples),
        cmocka_unit_test_setup(test_contract_job_optional_keys, reset_samples),
        cmocka_unit_test_setup(test_contract_phase_end_bounds, reset_samples),
        cmocka_unit_test_setup(test_contract_phase_done_optional_keys, reset_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
