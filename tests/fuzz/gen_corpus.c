/* gen_corpus: writes the seed corpora of the fuzz harnesses from the real
 * encoders, so the seeds stay valid as the wire format evolves.
 *
 *   gen_corpus OUTDIR     (make fuzz-corpus: OUTDIR = tests/fuzz/corpus)
 *
 * OUTDIR/frame_msg/: one frame of every message type, and one stream of all
 * of them back to back.  OUTDIR/journal/: a journal written by the journal
 * writer for a two-phase, two-agent run with a lost agent.  (The plan seeds
 * are copies of a few examples/ job files, made by the Makefile.) */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/plan_parse.h"
#include "coordinator/run/journal.h"
#include "coordinator/result/result.h"
#include "proto/coh_msg.h"
#include "coordinator/result/result_verify.h"
#include "proto/msg.h"
#include "tests/unit/stats_util.h"

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void fill_op_set(struct op_set *s, unsigned seed)
{
    op_set_init(s);
    for (unsigned i = 0; i < 40 + seed; i++) {
        op_stats_record(&s->op[OP_READ], 4096, 1000 + 777u * i * (seed + 1), i % 13 != 0);
        if (i % 3 == 0)
            op_stats_record(&s->op[OP_WRITE], 65536, 90000 + 12345u * i, 1);
    }
    s->op[OP_READ].timeouts = 1;
    hist_record(&s->op[OP_WRITE].svc, 80000);   /* a rate-limited job */
    op_stats_record(&s->op[OP_CREATE], 0, 250000, 1);
}

static void gen_frames(const char *dir)
{
    static struct msg_interval iv;
    static struct msg_phase_done pd;
    static struct msg_interval ivn;
    static struct msg_phase_done pdn;
    struct buf all, one;
    struct msg_hello hello = { .version = PROTO_VERSION };
    struct msg_welcome welcome = { .version = PROTO_VERSION, .host = "agent-1", .ncpus = 8,
                                   .pid = 4242, .auth = 1 };
    struct msg_auth auth;
    struct msg_plan plan = { .agent_index = 1, .nagents = 2, .interval_ms = 1000 };
    struct msg_ready ready = { .phase = 1 };
    struct msg_start start = { .phase = 1, .t0_ns = 123456789012ull };
    struct msg_stop stop = { .reason = "interrupted" };
    struct msg_phase_end phase_end = { .phase = 1, .reason = "steady state (iops:5%) at 3.0 s" };
    struct msg_error error = { .text = "protocol version mismatch: agent speaks 2, coordinator 1" };
    struct msg_ping ping = { .seq = 3, .t_ns = 5000000000ull };
    struct msg_pong pong = { .seq = 3, .t_ping_ns = 5000000000ull, .t_ns = 5000100000ull };
    struct msg_progress progress = { .phase = 0, .done_bytes = 1 << 20, .total_bytes = 64 << 20 };
    static struct msg_cleaned cleaned;
    char err[256];
    const char *text =
        "[global]\nsize=1m\ndirectory=/tmp\n"
        "[seq]\nrw=write\nbs=64k\nnumjobs=2\nrate_iops=100\nrate_process=poisson\n"
        "[mix]\nstonewall\nrw=randrw\nrwmixread=70\nbssplit=4k/60:64k/40\n"
        "random_distribution=zipf:1.2\nagents=0-1\n"
        "[dirs]\nstonewall\nrw=randrw:4\nrw_sequencer=identical\nbs=4k,64k\nbssplit=4k/100,8k/50:16k/50\n"
        "rate=1m,2m\nrandom_distribution=zoned:60/10:40/90,100/50\nopenfiles=2\nnrfiles=4\n"
        "allow_file_create=0\nnorandommap\n"
        "[bufs]\nstonewall\nrw=write\nbuffer_compress_percentage=40\nbuffer_compress_chunk=4k\n"
        "dedupe_percentage=20\nzero_buffers=1\nfallocate=keep\n"
        "[md]\nstonewall\nrw=metadata\nnrfiles=10\nmd_ops=create,stat,unlink\n"
        "[aio]\nstonewall\nrw=randread\nioengine=libaio\niodepth=16\niodepth_batch_submit=4\n"
        "iodepth_batch_complete_min=2\niodepth_batch_complete_max=8\n"
        "[nfs]\nstonewall\nrw=randread\nioengine=nfs\nnfs_url=nfs://127.0.0.1/export\nnconnect=4\n";

    for (unsigned i = 0; i < sizeof hello.nonce; i++)
        hello.nonce[i] = welcome.nonce[i] = (unsigned char)(i * 7 + 1);
    for (unsigned i = 0; i < sizeof auth.mac; i++)
        auth.mac[i] = welcome.mac[i] = (unsigned char)(0xa5 ^ i);
    if (plan_parse_string("seed.fio", text, &plan.plan, err, sizeof err)) {
        fprintf(stderr, "gen_corpus: seed plan: %s\n", err);
        exit(1);
    }
    iv.phase = 1;
    iv.index = 7;
    iv.inflight = 3;
    iv.oldest_ns = 2500000;
    fill_op_set(&iv.stats, 1);
    pd.phase = 1;
    pd.started_ns = 1000;
    pd.duration_ns = 10000000000ull;
    pd.cpu_user_s = 1.25;
    pd.cpu_sys_s = 0.5;
    pd.cores = 8;
    pd.nintervals = 10;
    fill_op_set(&pd.totals, 9);
    /* host and mountstats (optional maps): the interval with both, the
     * phase-done with both and a note */
    iv.client.host = (struct host_sample){ .present = 1, .cpu_user_s = 0.5, .cpu_sys_s = 0.25,
                                           .cores = 8, .threads = 16, .nic = "eth0",
                                           .rx_bytes = 1 << 20, .tx_bytes = 4096,
                                           .speed_mbps = 25000 };
    iv.client.ms.present = 1;
    snprintf(iv.client.ms.mount, sizeof iv.client.ms.mount, "/mnt/efs");
    iv.client.ms.xprt = (struct ms_xprt){ 1, 400, 399, 1, 1300, 4 };
    iv.client.ms.nops = 2;
    iv.client.ms.op[0] = (struct ms_op){ "READ", 250, 252, 2, 34000, 1024000, 8, 2000, 2035, 1 };
    iv.client.ms.op[1] = (struct ms_op){ "GETATTR", 10, 10, 0, 1200, 1120, 0, 4, 4, 0 };
    pd.client = iv.client;
    snprintf(pd.client.ms.note, sizeof pd.client.ms.note, "a note");
    {   /* the nfs engine's telemetry rides along (interval-nfs, phase-done-nfs) */
        struct nfs_rpc_proc *np = nfs_rpc_set_proc(&ivn.nfs, NFSP_WRITE);
        np->calls = 12;
        np->bytes_out = 12 * 4200;
        np->bytes_in = 12 * 160;
        np->errors = 2;
        for (uint64_t i = 1; i <= 12; i++)
            hist_record(&np->rtt, 80000 + 977 * i);
        nfs_rpc_proc_error(np, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 28), 2);
        np = nfs_rpc_set_proc(&ivn.nfs, NFSP_OPEN);
        np->calls = 1;
        hist_record(&np->rtt, 4000);
        ivn.nfs.reconnects = 1;
        ivn.nfs.retransmits = 3;
        ivn.phase = iv.phase;
        ivn.index = iv.index;
        ivn.stats = iv.stats;
        pdn = pd;
        nfs_rpc_set_init(&pdn.nfs);
        nfs_rpc_set_merge(&pdn.nfs, &ivn.nfs);
    }

    cleaned.files = 12;
    cleaned.bytes = 5ull << 30;
    cleaned.skipped = 1;
    snprintf(cleaned.note, sizeof cleaned.note, "job 'n': ioengine nfs: not removed here");
    buf_init(&all);
#define ONE(name, call) do { buf_init(&one); call; write_file(dir, name, one.data, one.len); \
                             buf_append(&all, one.data, one.len); buf_free(&one); } while (0)
    ONE("hello", msg_hello_encode(&one, &hello));
    ONE("welcome", msg_welcome_encode(&one, &welcome));
    ONE("auth", msg_auth_encode(&one, &auth));
    ONE("ping", msg_ping_encode(&one, &ping));
    ONE("pong", msg_pong_encode(&one, &pong));
    ONE("plan", msg_plan_encode(&one, &plan));
    ONE("progress", msg_progress_encode(&one, &progress));
    ONE("ready", msg_ready_encode(&one, &ready));
    ONE("start", msg_start_encode(&one, &start));
    ONE("interval", msg_interval_encode(&one, &iv));
    ONE("phase-done", msg_phase_done_encode(&one, &pd));
    ONE("interval-nfs", msg_interval_encode(&one, &ivn));
    ONE("phase-done-nfs", msg_phase_done_encode(&one, &pdn));
    {   /* a phase that verified: counts and two offenders */
        struct vstats_bad bad = { .file = "/mnt/efs/f.1.0", .offset = 8192, .reader = 1, .expected_writer = 1,
                                  .expected_gen = 77, .found_writer = 0, .found_gen = 76, .found_offset = 8192 };
        vstats_init(&pd.verify);
        pd.verify.on = 1;
        vstats_add(&pd.verify, VB_OK, NULL);
        vstats_add(&pd.verify, VB_STALE, &bad);
        bad.offset = 12288;
        vstats_add(&pd.verify, VB_TORN, &bad);
        ONE("phase-done-verify", msg_phase_done_encode(&one, &pd));
        vstats_init(&pd.verify);
    }
    {   /* rw=coherence: a reader's pairs, one writer seen, one never */
        struct msg_coherence coh = { .phase = 1 };
        struct coh_pair *cp;
        coh_set_init(&coh.set);
        cp = coh_set_pair(&coh.set, 0, 2, COH_PAIRS_MAX);
        cp->seen = 3;
        for (int i = 0; i < 3; i++)
            hist_record(&cp->lag, 150000000u + 400000u * (unsigned)i);
        cp = coh_set_pair(&coh.set, 1, 2, COH_PAIRS_MAX);
        cp->never = 3;
        ONE("coherence", msg_coherence_encode(&one, &coh));
        coh_set_free(&coh.set);
    }
    ONE("stop", msg_stop_encode(&one, &stop));
    ONE("phase-end", msg_phase_end_encode(&one, &phase_end));
    ONE("error", msg_error_encode(&one, &error));
    ONE("clean", msg_clean_encode(&one, &plan));
    ONE("cleaned", msg_cleaned_encode(&one, &cleaned));
#undef ONE
    write_file(dir, "stream", all.data, all.len);
    buf_free(&all);
    msg_plan_free(&plan);
    nfs_rpc_set_free(&ivn.nfs);
    nfs_rpc_set_free(&pdn.nfs);
}

static void gen_journal(const char *dir)
{
    static struct run_result r;
    static struct op_set s;
    static struct agent_phase ap;
    struct plan p;
    struct journal *j;
    struct run_observer o;
    char path[512], err[256];

    if (plan_parse_string("seed.fio", "[a]\nrw=randread\nbs=4k\nsize=1m\n"
                          "[b]\nstonewall\nrw=write\nbs=1m\nsize=4m\nnumjobs=2\n", &p, err, sizeof err)) {
        fprintf(stderr, "gen_corpus: journal plan: %s\n", err);
        exit(1);
    }
    result_init(&r, &p, 2, 1000);
    plan_free(&p);
    r.started_unix = 1700000000;
    snprintf(r.agents[0].addr, sizeof r.agents[0].addr, "10.0.0.1:8990");
    snprintf(r.agents[1].addr, sizeof r.agents[1].addr, "10.0.0.2:8990");
    snprintf(r.agents[0].host, sizeof r.agents[0].host, "a1");
    snprintf(r.agents[1].host, sizeof r.agents[1].host, "a2");
    r.agents[0].ncpus = r.agents[1].ncpus = 4;
    r.agents[1].clock_offset_ns = -12345;
    r.agents[1].rtt_ns = 90000;
    result_verify_ask(&r.phases[0], 0, 2);      /* phase 0 verifies: verify_asked, verify lines */
    result_verify_ask(&r.phases[0], 1, 2);
    snprintf(path, sizeof path, "%s/run.journal", dir);
    if (!(j = journal_open(path, "seed"))) {
        perror(path);
        exit(1);
    }
    o = journal_observer(j);
    for (uint32_t ph = 0; ph < 2; ph++) {
        o.phase_start(o.arg, &r, ph);
        for (uint32_t k = 0; k < 2; k++) {
            for (uint32_t a = 0; a < 2; a++) {
                if (ph == 1 && a == 1 && k == 1)
                    continue;
                fill_op_set(&s, ph * 4 + k * 2 + a);
                if (ph == 1) {                      /* a write phase */
                    s.op[OP_WRITE] = s.op[OP_READ];
                    memset(&s.op[OP_READ], 0, sizeof s.op[OP_READ]);
                    hist_init(&s.op[OP_READ].lat);
                    hist_init(&s.op[OP_READ].svc);
                }
                result_add_interval(&r, ph, a, k, &s);
                result_set_interval_inflight(&r, ph, a, k, a + 1, 1000 * (k + 1));
                o.agent_interval(o.arg, &r, ph, a, k, &s);
            }
            o.interval(o.arg, &r, ph, k);   /* complete: its interval_lat line */
            result_interval_seal(&r, ph, k);
        }
        for (uint32_t a = 0; a < 2; a++) {
            if (ph == 1 && a == 1) {
                r.agents[1].lost = 1;
                r.agents[1].lost_at_s = 3.5;
                o.agent_lost(o.arg, &r, 1, "connection reset");
                continue;
            }
            memset(&ap, 0, sizeof ap);
            fill_op_set(&s, ph + a);
            ap.duration_ns = 2000000000ull;
            ap.start_ns = 100;
            ap.cpu_user_s = 0.75;
            ap.cpu_sys_s = 0.25;
            ap.cores = 4;
            ap.nintervals = 2;
            result_set_agent_phase(&r, ph, a, &ap, &s);
            if (ph == 0) {
                struct vstats v;
                struct vstats_bad bad = { .file = "/d/f.0", .offset = 4096, .reader = a,
                                          .expected_writer = a, .expected_gen = 9, .found_gen = 8,
                                          .found_offset = 4096 };
                vstats_init(&v);
                vstats_add(&v, VB_OK, NULL);
                if (a == 0)
                    vstats_add(&v, VB_STALE, &bad);
                result_set_agent_verify(&r, ph, a, &v);
            }
            o.agent_phase_done(o.arg, &r, ph, a, &ap);
        }
        o.phase_done(o.arg, &r, ph);
    }
    if (journal_close(j)) {
        fprintf(stderr, "gen_corpus: writing %s failed\n", path);
        exit(1);
    }
    result_free(&r);
}

int main(int argc, char **argv)
{
    char dir[512];

    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus OUTDIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/frame_msg", argv[1]);
    mkdir(dir, 0755);
    gen_frames(dir);
    snprintf(dir, sizeof dir, "%s/journal", argv[1]);
    mkdir(dir, 0755);
    gen_journal(dir);
    return 0;
}
