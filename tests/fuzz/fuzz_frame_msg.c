/* fuzz_frame_msg: libFuzzer harness for the wire codec (proto/frame,
 * proto/msg), the parsers every byte from a peer goes through.
 *
 * The input is a byte stream as it would arrive on the socket.  It is fed
 * to a frame_reader in pseudo-random chunk sizes (derived from the input,
 * so a crash reproduces from the file alone and the seed corpus is plain
 * encoder output), and every complete frame goes to msg_parse and the
 * decoder of the type it names.
 *
 * Checks: nothing crashes (ASan/UBSan), every decoder returns 0 or
 * -EBADMSG with a non-empty reason, and anything that decodes survives a
 * differential round trip: encode(decode(x)) decodes again to an equal
 * value (field by field for the small messages, interval and phase-done's
 * host and mountstats; hist_equal for
 * histograms), and encoding that value once more yields the same bytes
 * (for every type, plan and phase-done included).  Every histogram the
 * wire let in also goes through the JSON container of the same form
 * (result and journal, coordinator/report/hist_json.h) and comes back equal: one
 * decoder, the same verdict in every container; so does the nfs engine's
 * RPC telemetry (coordinator/report/nfs_json.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/stats.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/coh_msg.h"
#include "proto/pool_msg.h"
#include "coordinator/report/hist_json.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/result/result.h"
#include "coordinator/report/verify_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__); } while (0)

static void die(const char *what, int line)
{
    fprintf(stderr, "fuzz_frame_msg.c:%d: check failed: %s\n", line, what);
    abort();
}

/* Verification results the wire let in, through the JSON form (result and
 * journal) and back, equal; values from 2^63 up are out of JSON's range. */
static void check_verify_json(const struct vstats *v)
{
    static struct vstats back;
    char why[256];
    json_t *o;

    if (v->checked > INT64_MAX)
        return;
    for (uint32_t i = 0; i < v->nfirst; i++)
        if (v->first[i].offset > INT64_MAX || v->first[i].found_gen > INT64_MAX ||
            v->first[i].found_offset > INT64_MAX ||
            (v->first[i].expected_gen > INT64_MAX))
            return;
    /* as the coordinator stores them (result_set_agent_verify): file names
     * cleaned to UTF-8, which JSON strings must be */
    static struct vstats clean;
    clean = *v;
    for (uint32_t i = 0; i < clean.nfirst; i++)
        result_clean_utf8(clean.first[i].file);
    v = &clean;
    o = verify_json(v);
    CHECK(o != NULL);
    if (verify_from_json(o, &back, why, sizeof why) != 0) {
        fprintf(stderr, "verify JSON form refused: %s\n", why);
        CHECK(0);
    }
    CHECK(back.checked == v->checked && memcmp(back.count, v->count, sizeof back.count) == 0);
    CHECK(back.nfirst == v->nfirst && memcmp(back.first, v->first, sizeof back.first) == 0);
    json_decref(o);
}

/* Each histogram of s, through the JSON form and back, unchanged (JSON
 * integers are signed: counts and sums from 2^63 up are out of its range). */
static void check_json_form(const struct op_set *s)
{
    static struct hist back;
    char why[160];

    for (int t = 0; t < OP__COUNT; t++)
        for (int k = 0; k < 2; k++) {
            const struct hist *h = k ? &s->op[t].svc : &s->op[t].lat;
            json_t *o;

            if (h->count > INT64_MAX || h->sum_ns > INT64_MAX || h->max_ns > INT64_MAX)
                continue;
            o = hist_json_encode(h);
            CHECK(o != NULL);
            CHECK(hist_json_decode(o, &back, why, sizeof why) == 0);
            CHECK(hist_equal(h, &back));
            json_decref(o);
        }
}

/* One message of each type, decoded twice: big (op_set is ~400 KB), so
 * static; libFuzzer runs one input at a time. */
static union msg_any {
    struct msg_hello hello;
    struct msg_welcome welcome;
    struct msg_auth auth;
    struct msg_plan plan;
    struct msg_ready ready;
    struct msg_start start;
    struct msg_interval interval;
    struct msg_phase_done phase_done;
    struct msg_stop stop;
    struct msg_phase_end phase_end;
    struct msg_error error;
    struct msg_ping ping;
    struct msg_pong pong;
    struct msg_progress progress;
    struct msg_cleaned cleaned;
    struct msg_storage storage;
    struct msg_system system;
    struct pool_submit submit;
    struct pool_busy busy;
    struct pool_output output;
    uint32_t exit_status;
    struct msg_coherence coherence;
} m1, m2;

/* A new message type needs its decoder, encoder and equality added below. */
_Static_assert(MSG__COUNT == MSG_COHERENCE + 1, "fuzz_frame_msg.c does not know every message type");

/* The nfs telemetry the wire let in, through the JSON form (result and
 * journal) and back: equal, by the same rule as nfs_equal. */
static int nfs_equal(const struct nfs_rpc_set *a, const struct nfs_rpc_set *b);

static void check_nfs_json_form(const struct nfs_rpc_set *s)
{
    struct nfs_rpc_set back;
    char why[200];

    if (s->retransmits > INT64_MAX || s->timeouts > INT64_MAX || s->reconnects > INT64_MAX)
        return;
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (p && (p->calls > INT64_MAX || p->bytes_out > INT64_MAX || p->bytes_in > INT64_MAX ||
                  p->rtt.count > INT64_MAX || p->rtt.sum_ns > INT64_MAX || p->rtt.max_ns > INT64_MAX))
            return;
        for (uint32_t k = 0; p && k < p->nstatus; k++)
            if (p->status[k].n > INT64_MAX)
                return;
    }
    json_t *o = nfs_json_encode(s);
    CHECK(o != NULL);
    nfs_rpc_set_init(&back);
    CHECK(nfs_json_decode(o, &back, why, sizeof why) == 0);
    CHECK(nfs_equal(s, &back));
    nfs_rpc_set_free(&back);
    json_decref(o);
}

/* Equal as the wire carries them: procedures with calls, and their
 * statuses as a set (the order a merge keeps is the sender's). */
static int nfs_equal(const struct nfs_rpc_set *a, const struct nfs_rpc_set *b)
{
    if (a->retransmits != b->retransmits || a->timeouts != b->timeouts ||
        a->reconnects != b->reconnects)
        return 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *x = a->proc[i], *y = b->proc[i];
        int xs = x && x->calls, ys = y && y->calls;
        if (xs != ys)
            return 0;
        if (!xs)
            continue;
        if (x->calls != y->calls || x->bytes_out != y->bytes_out || x->bytes_in != y->bytes_in ||
            x->errors != y->errors || x->status_other != y->status_other ||
            x->nstatus != y->nstatus || !hist_equal(&x->rtt, &y->rtt))
            return 0;
        for (uint32_t k = 0; k < x->nstatus; k++) {
            uint32_t m = 0;
            while (m < y->nstatus && y->status[m].code != x->status[k].code)
                m++;
            if (m == y->nstatus || y->status[m].n != x->status[k].n)
                return 0;
        }
    }
    return 1;
}

static int op_set_equal(const struct op_set *a, const struct op_set *b)
{
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *x = &a->op[t], *y = &b->op[t];
        if (x->ops != y->ops || x->bytes != y->bytes || x->errors != y->errors ||
            x->timeouts != y->timeouts || !hist_equal(&x->lat, &y->lat) ||
            !hist_equal(&x->svc, &y->svc))
            return 0;
    }
    return 1;
}

/* host and mountstats (common/client_stats.h), field by field. */
static int client_equal(const struct client_sample *a, const struct client_sample *b)
{
    const struct host_sample *x = &a->host, *y = &b->host;
    if (x->present != y->present || x->cpu_user_s != y->cpu_user_s ||
        x->cpu_sys_s != y->cpu_sys_s || x->cores != y->cores || x->threads != y->threads ||
        strcmp(x->nic, y->nic) != 0 || x->rx_bytes != y->rx_bytes || x->tx_bytes != y->tx_bytes ||
        x->speed_mbps != y->speed_mbps)
        return 0;
    if (a->ms.present != b->ms.present || strcmp(a->ms.mount, b->ms.mount) != 0 ||
        strcmp(a->ms.note, b->ms.note) != 0 || memcmp(&a->ms.xprt, &b->ms.xprt, sizeof a->ms.xprt) ||
        a->ms.nops != b->ms.nops || a->ms.nops > MS_OPS_MAX)
        return 0;
    for (uint32_t i = 0; i < a->ms.nops; i++) {
        const struct ms_op *p = &a->ms.op[i], *q = &b->ms.op[i];
        if (strcmp(p->name, q->name) != 0 || p->ops != q->ops || p->ntrans != q->ntrans ||
            p->timeouts != q->timeouts || p->bytes_sent != q->bytes_sent ||
            p->bytes_recv != q->bytes_recv || p->queue_ms != q->queue_ms || p->rtt_ms != q->rtt_ms ||
            p->execute_ms != q->execute_ms || p->errors != q->errors)
            return 0;
    }
    return 1;
}

/* Field-by-field equality where the harness checks it; 1 for the types
 * covered only by the byte-level idempotence check. */
static int msg_equal(enum msg_type t, const union msg_any *a, const union msg_any *b)
{
    switch (t) {
    case MSG_HELLO:
        return a->hello.version == b->hello.version &&
               memcmp(a->hello.nonce, b->hello.nonce, sizeof a->hello.nonce) == 0;
    case MSG_PING:
        return a->ping.seq == b->ping.seq && a->ping.t_ns == b->ping.t_ns;
    case MSG_PONG:
        return a->pong.seq == b->pong.seq && a->pong.t_ping_ns == b->pong.t_ping_ns &&
               a->pong.t_ns == b->pong.t_ns;
    case MSG_START:
        return a->start.phase == b->start.phase && a->start.t0_ns == b->start.t0_ns;
    case MSG_READY:
        return a->ready.phase == b->ready.phase;
    case MSG_ERROR:
        return strcmp(a->error.text, b->error.text) == 0;
    case MSG_STOP:
        return strcmp(a->stop.reason, b->stop.reason) == 0;
    case MSG_PHASE_END:
        return a->phase_end.phase == b->phase_end.phase &&
               strcmp(a->phase_end.reason, b->phase_end.reason) == 0;
    case MSG_AUTH:
        return memcmp(a->auth.mac, b->auth.mac, sizeof a->auth.mac) == 0;
    case MSG_PROGRESS:
        return a->progress.phase == b->progress.phase &&
               a->progress.done_bytes == b->progress.done_bytes &&
               a->progress.total_bytes == b->progress.total_bytes;
    case MSG_INTERVAL:
        return a->interval.phase == b->interval.phase && a->interval.index == b->interval.index &&
               a->interval.inflight == b->interval.inflight &&
               a->interval.oldest_ns == b->interval.oldest_ns &&
               op_set_equal(&a->interval.stats, &b->interval.stats) &&
               nfs_equal(&a->interval.nfs, &b->interval.nfs) &&
               client_equal(&a->interval.client, &b->interval.client);
    case MSG_PHASE_DONE:
        return a->phase_done.phase == b->phase_done.phase &&
               a->phase_done.started_ns == b->phase_done.started_ns &&
               a->phase_done.duration_ns == b->phase_done.duration_ns &&
               a->phase_done.cpu_user_s == b->phase_done.cpu_user_s &&
               a->phase_done.cpu_sys_s == b->phase_done.cpu_sys_s &&
               a->phase_done.cores == b->phase_done.cores &&
               a->phase_done.nintervals == b->phase_done.nintervals &&
               op_set_equal(&a->phase_done.totals, &b->phase_done.totals) &&
               nfs_equal(&a->phase_done.nfs, &b->phase_done.nfs) &&
               client_equal(&a->phase_done.client, &b->phase_done.client) &&
               memcmp(&a->phase_done.verify, &b->phase_done.verify, sizeof a->phase_done.verify) == 0;
    case MSG_WELCOME:
        return a->welcome.version == b->welcome.version &&
               strcmp(a->welcome.host, b->welcome.host) == 0 &&
               a->welcome.ncpus == b->welcome.ncpus && a->welcome.pid == b->welcome.pid &&
               a->welcome.auth == b->welcome.auth &&
               memcmp(a->welcome.nonce, b->welcome.nonce, sizeof a->welcome.nonce) == 0 &&
               memcmp(a->welcome.mac, b->welcome.mac, sizeof a->welcome.mac) == 0;
    case MSG_CLEANED:
        return a->cleaned.files == b->cleaned.files && a->cleaned.bytes == b->cleaned.bytes &&
               a->cleaned.skipped == b->cleaned.skipped && strcmp(a->cleaned.note, b->cleaned.note) == 0;
    case MSG_SYSTEM:
        return strcmp(a->system.kernel, b->system.kernel) == 0 &&
               strcmp(a->system.cpu_model, b->system.cpu_model) == 0 &&
               a->system.mem_bytes == b->system.mem_bytes;
    case MSG_STORAGE:
        return a->storage.phase == b->storage.phase && a->storage.info.kind == b->storage.info.kind &&
               strcmp(a->storage.info.job, b->storage.info.job) == 0 &&
               strcmp(a->storage.info.where, b->storage.info.where) == 0 &&
               strcmp(a->storage.info.source, b->storage.info.source) == 0 &&
               strcmp(a->storage.info.fstype, b->storage.info.fstype) == 0 &&
               strcmp(a->storage.info.options, b->storage.info.options) == 0 &&
               strcmp(a->storage.info.nfsvers, b->storage.info.nfsvers) == 0 &&
               a->storage.info.rsize == b->storage.info.rsize && a->storage.info.wsize == b->storage.info.wsize &&
               a->storage.info.nconnect == b->storage.info.nconnect &&
               a->storage.info.timeo == b->storage.info.timeo &&
               strcmp(a->storage.info.mode, b->storage.info.mode) == 0;
    case MSG_SUBMIT:
        if (a->submit.argc != b->submit.argc || a->submit.plan_len != b->submit.plan_len ||
            !a->submit.plan != !b->submit.plan || a->submit.want_json != b->submit.want_json ||
            a->submit.wait != b->submit.wait || a->submit.expect != b->submit.expect ||
            a->submit.min_agents != b->submit.min_agents ||
            a->submit.expect_timeout_ms != b->submit.expect_timeout_ms)
            return 0;
        for (uint32_t i = 0; i < a->submit.argc; i++)
            if (strcmp(a->submit.argv[i], b->submit.argv[i]) != 0)
                return 0;
        return !a->submit.plan || memcmp(a->submit.plan, b->submit.plan, a->submit.plan_len) == 0;
    case MSG_BUSY:
        return strcmp(a->busy.from, b->busy.from) == 0 && strcmp(a->busy.since, b->busy.since) == 0;
    case MSG_OUTPUT:
        return a->output.stream == b->output.stream && a->output.len == b->output.len &&
               memcmp(a->output.data, b->output.data, a->output.len) == 0;
    case MSG_EXIT:
        return a->exit_status == b->exit_status;
    case MSG_COHERENCE:
        if (a->coherence.phase != b->coherence.phase || a->coherence.set.n != b->coherence.set.n)
            return 0;
        for (uint32_t i = 0; i < a->coherence.set.n; i++) {
            const struct coh_pair *x = &a->coherence.set.pair[i], *y = &b->coherence.set.pair[i];
            if (x->writer != y->writer || x->reader != y->reader || x->seen != y->seen ||
                x->never != y->never || !hist_equal(&x->lag, &y->lag))
                return 0;
        }
        return 1;
    default:
        return 1;   /* plan, clean: compared through their re-encoding */
    }
}

/* Every row of the message table through msg_decode; the pool messages
 * and coherence through their own modules. */
static int decode_as(const struct msg_frame *f, union msg_any *m, char *err, size_t errlen)
{
    switch (f->type) {
    case MSG_SUBMIT:     return pool_submit_decode(f, &m->submit, err, errlen);
    case MSG_BUSY:       return pool_busy_decode(f, &m->busy, err, errlen);
    case MSG_OUTPUT:     return pool_output_decode(f, &m->output, err, errlen);
    case MSG_EXIT:       return pool_exit_decode(f, &m->exit_status, err, errlen);
    case MSG_COHERENCE:  return msg_coherence_decode(f, 1, &m->coherence, err, errlen);
    default:             return msg_decode(f, m, err, errlen);
    }
}

static void encode_as(enum msg_type t, struct buf *out, const union msg_any *m)
{
    switch (t) {
    case MSG_HELLO:      msg_hello_encode(out, &m->hello); break;
    case MSG_WELCOME:    msg_welcome_encode(out, &m->welcome); break;
    case MSG_AUTH:       msg_auth_encode(out, &m->auth); break;
    case MSG_PLAN:       msg_plan_encode(out, &m->plan); break;
    case MSG_READY:      msg_ready_encode(out, &m->ready); break;
    case MSG_START:      msg_start_encode(out, &m->start); break;
    case MSG_INTERVAL:   msg_interval_encode(out, &m->interval); break;
    case MSG_PHASE_DONE: msg_phase_done_encode(out, &m->phase_done); break;
    case MSG_STOP:       msg_stop_encode(out, &m->stop); break;
    case MSG_PHASE_END:  msg_phase_end_encode(out, &m->phase_end); break;
    case MSG_ERROR:      msg_error_encode(out, &m->error); break;
    case MSG_PING:       msg_ping_encode(out, &m->ping); break;
    case MSG_PONG:       msg_pong_encode(out, &m->pong); break;
    case MSG_PROGRESS:   msg_progress_encode(out, &m->progress); break;
    case MSG_CLEAN:      msg_clean_encode(out, &m->plan); break;
    case MSG_CLEANED:    msg_cleaned_encode(out, &m->cleaned); break;
    case MSG_STORAGE:    msg_storage_encode(out, &m->storage); break;
    case MSG_SYSTEM:     msg_system_encode(out, &m->system); break;
    case MSG_SUBMIT:     pool_submit_encode(out, &m->submit); break;
    case MSG_BUSY:       pool_busy_encode(out, &m->busy); break;
    case MSG_OUTPUT:     pool_output_encode(out, m->output.stream, m->output.data, m->output.len); break;
    case MSG_EXIT:       pool_exit_encode(out, m->exit_status); break;
    case MSG_COHERENCE:  msg_coherence_encode(out, &m->coherence); break;
    default:             die("bad type", __LINE__);
    }
}

static void release(enum msg_type t, union msg_any *m)
{
    if (t == MSG_PLAN || t == MSG_CLEAN)
        msg_plan_free(&m->plan);
    if (t == MSG_SUBMIT)
        pool_submit_free(&m->submit);
    if (t == MSG_INTERVAL)
        msg_interval_free(&m->interval);
    if (t == MSG_PHASE_DONE)
        msg_phase_done_free(&m->phase_done);
    if (t == MSG_COHERENCE)
        coh_set_free(&m->coherence.set);
}

/* The payload of the single frame an encoder appended to b. */
static const char *payload_of(const struct buf *b, size_t *n)
{
    const unsigned char *h = (const unsigned char *)b->data;

    CHECK(b->len >= FRAME_HEADER_LEN);
    *n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    CHECK(*n == b->len - FRAME_HEADER_LEN);
    return b->data + FRAME_HEADER_LEN;
}

static void check_frame(const char *p, size_t n)
{
    char err[256];
    struct buf e1, e2;
    struct msg_frame f1, f2;
    const char *q;
    size_t qn, rn;
    int t, rc;

    err[0] = '\0';
    t = msg_parse(p, n, &f1, err, sizeof err);
    if (t < 0) {
        CHECK(t == -EBADMSG && err[0] != '\0');
        msg_frame_free(&f1);
        return;
    }
    CHECK(t > 0 && t < MSG__COUNT);
    memset(&m1, 0, sizeof m1);
    err[0] = '\0';
    rc = decode_as(&f1, &m1, err, sizeof err);
    msg_frame_free(&f1);
    if (rc != 0) {
        CHECK(rc == -EBADMSG && err[0] != '\0');
        if (t == MSG_PLAN)   /* a failed decode leaves nothing to free */
            CHECK(m1.plan.plan.nphases == 0 && m1.plan.plan.phases == NULL);
        return;
    }
    /* differential round trip */
    buf_init(&e1);
    buf_init(&e2);
    encode_as((enum msg_type)t, &e1, &m1);
    q = payload_of(&e1, &qn);
    CHECK(msg_parse(q, qn, &f2, err, sizeof err) == t);
    memset(&m2, 0, sizeof m2);
    rc = decode_as(&f2, &m2, err, sizeof err);
    msg_frame_free(&f2);
    if (rc != 0)
        fprintf(stderr, "re-decode of a '%s' failed: %s\n", msg_type_name((enum msg_type)t), err);
    CHECK(rc == 0);
    CHECK(msg_equal((enum msg_type)t, &m1, &m2));
    if (t == MSG_INTERVAL) {
        check_json_form(&m1.interval.stats);
        check_nfs_json_form(&m1.interval.nfs);
    }
    if (t == MSG_PHASE_DONE) {
        check_json_form(&m1.phase_done.totals);
        check_nfs_json_form(&m1.phase_done.nfs);
        if (m1.phase_done.verify.on)
            check_verify_json(&m1.phase_done.verify);
    }
    encode_as((enum msg_type)t, &e2, &m2);
    (void)payload_of(&e2, &rn);
    CHECK(e1.len == e2.len && memcmp(e1.data, e2.data, e1.len) == 0);
    release((enum msg_type)t, &m1);
    release((enum msg_type)t, &m2);
    buf_free(&e1);
    buf_free(&e2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct frame_reader r;
    uint64_t rng = 0xcbf29ce484222325ull;   /* FNV-1a of the input: chunk sizes */
    size_t off = 0;
    const char *p;
    uint32_t len;
    int rc = 0;

    for (size_t i = 0; i < size; i++)
        rng = (rng ^ data[i]) * 0x100000001b3ull;
    /* a small cap too, so the oversize path is reached without 16 MiB inputs */
    frame_reader_init(&r, (rng & 1) ? 0 : 4096);
    while (off < size && rc >= 0) {
        size_t chunk;
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        chunk = (rng >> 8) % 4 == 0 ? size - off : 1 + (size_t)((rng >> 16) % 17);
        if (chunk > size - off)
            chunk = size - off;
        frame_reader_feed(&r, data + off, chunk);
        off += chunk;
        while ((rc = frame_reader_next(&r, &p, &len)) == 1) {
            /* an exact-size copy, so ASan sees any read past the payload */
            char *copy = malloc(len ? len : 1);
            CHECK(len <= r.max_payload);
            memcpy(copy, p, len);
            check_frame(copy, len);
            free(copy);
        }
        CHECK(rc == 0 || rc == -EMSGSIZE);
    }
    frame_reader_free(&r);
    return 0;
}
