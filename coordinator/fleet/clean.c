/* clean: see clean.h.
 *
 * The client is a small state machine per agent: CONNECTING -> HELLO ->
 * (auth) -> CLEANING -> DONE | FAILED.  The handshake is the one a run
 * makes (docs/protocol.md); the clean message goes right after our proof,
 * and the agent handles frames in order, so it is read once the agent has
 * accepted us.  A timer pings every agent each second (its lease) and
 * gives up on one silent for longer than the timeout. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "common/clock.h"
#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/sat.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "coordinator/fleet/agent_accept.h"
#include "coordinator/fleet/clean.h"
#include "net/addr.h"
#include "net/peer.h"
#include "proto/frame.h"
#include "proto/msg_version.h"

/* ---- the estimate ---- */

/* The extent a thread's file needs: offset, its offset_increment share,
 * its region (agent/phase.c build_job). */
static uint64_t file_extent(const struct job_spec *js, uint64_t gjob)
{
    return sat_add_u64(sat_add_u64(js->offset, sat_mul_u64(js->offset_increment, gjob)), job_file_size(js));
}

/* As agent/phase.c job_file_per_agent: libnfs's URL is part of the name. */
static int name_per_agent(const struct job_spec *js)
{
    return strstr(js->filename, "${agent}") || strstr(js->filename, "${host}") ||
           strstr(js->directory, "${agent}") || strstr(js->directory, "${host}") ||
           strstr(js->nfs_url, "${agent}") || strstr(js->nfs_url, "${host}");
}

/* Bytes one thread of a write job writes; 0 and *unbounded when it writes
 * until its runtime at full speed. */
static uint64_t thread_writes(const struct job_spec *js, int *unbounded)
{
    uint64_t bytes;
    /* a mix with rwmixread=100 writes nothing (before any runtime rule) */
    if ((js->rw == RW_RW || js->rw == RW_RANDRW) && js->rwmixread >= 100)
        return 0;
    /* rate=r,w: the writes have a schedule of their own */
    uint64_t rate = js->rate_per_dir ? js->rate_w_bps : js->rate_bps;
    if (js->time_based && js->runtime_ns) {
        if (!rate) {
            *unbounded = 1;
            return 0;
        }
        bytes = sat_mul_u64(rate, (js->runtime_ns + 999999999ull) / 1000000000ull);
        if (js->rate_per_dir)
            return bytes;
    } else {
        bytes = sat_mul_u64(js->io_size ? js->io_size : js->size, js->loops ? js->loops : 1);
        if (js->number_ios && sat_mul_u64(js->number_ios, job_max_bs(js)) < bytes)
            bytes = sat_mul_u64(js->number_ios, job_max_bs(js));
    }
    if (js->rw == RW_RW || js->rw == RW_RANDRW)
        bytes = bytes > UINT64_MAX / 100 ? bytes / 100 * (100 - js->rwmixread)
                                         : bytes * (100 - js->rwmixread) / 100;
    return bytes;
}

void clean_estimate(const struct plan *p, uint32_t nagents, struct clean_estimate *e)
{
    memset(e, 0, sizeof *e);
    for (uint32_t i = 0; i < p->nphases; i++) {
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            const struct job_spec *js = &p->phases[i].jobs[k];
            int writes = rw_mode_writes(js->rw), shared = js->filename[0] != '\0';
            int counted_shared = 0;
            /* verify_only writes nothing and lays nothing out */
            if (js->rw == RW_METADATA || js->verify_only || !engine_table_has_files(js->ioengine))
                continue;
            for (uint32_t a = 0; a < nagents; a++) {
                if (plan_agents_match(js->agents, a) != 1)
                    continue;
                for (uint32_t t = 0; t < js->numjobs; t++) {
                    uint64_t gjob = (uint64_t)a * js->numjobs + t;
                    int unbounded = 0;
                    uint64_t w = writes ? thread_writes(js, &unbounded) : 0;
                    uint64_t files = shared ? 0 : plan_files_per_thread(js);
                    /* a shared file counts once: per agent, or once in all */
                    if (shared && t == js->numjobs - 1 && (name_per_agent(js) || !counted_shared)) {
                        files = plan_files_per_thread(js);   /* filename=a:b: each name */
                        counted_shared = 1;
                    }
                    uint64_t extent = sat_mul_u64(files, file_extent(js, gjob));
                    uint64_t lay = extent;
                    /* a shared name on a kernel mount may be a file per
                     * agent (--allow roots differ): each agent lays its
                     * own out if it is short (agent/phase.c owns_files) */
                    if (shared && !files && t == js->numjobs - 1 && engine_table_local(js->ioengine))
                        lay = sat_mul_u64(plan_files_per_thread(js), file_extent(js, gjob));
                    if (plan_layout_fills(js))     /* reading jobs, overwrite=1: as the agent */
                        e->layout_bytes = sat_add_u64(e->layout_bytes, lay);
                    e->write_bytes = sat_add_u64(e->write_bytes, unbounded ? extent : w);
                    e->unbounded |= unbounded;
                }
            }
        }
    }
}

void clean_estimate_line(const struct clean_estimate *e, uint32_t nagents, char *out, size_t len)
{
    char t[32], l[32], w[32];
    units_fmt_bytes(t, sizeof t, (double)sat_add_u64(e->layout_bytes, e->write_bytes), 1024);
    units_fmt_bytes(l, sizeof l, (double)e->layout_bytes, 1024);
    units_fmt_bytes(w, sizeof w, (double)e->write_bytes, 1024);
    snprintf(out, len, "about to write %s%s across %u agent%s (layout of missing files up to %s, "
             "write phases %s%s)", e->unbounded ? "at least " : "", t, nagents, nagents == 1 ? "" : "s",
             l, w, e->unbounded ? "; time-based writes without a rate go on until their runtime, "
             "counted once by file size" : "");
}

/* ---- the client ---- */

/* K_BUSY: the agent still serves another coordinator (often: our own run,
 * just ended, whose jobs are stopping); we dial again each second until
 * the connect deadline. */
enum cstate { K_CONNECTING, K_HELLO, K_BUSY, K_CLEANING, K_DONE };

struct clean_run;

struct kconn {
    struct peer peer;          /* first: the peer layer's callbacks get the kconn */
    struct clean_run *run;
    uint32_t id;
    const char *addr;
    struct sockaddr_storage ss;
    int closing;               /* its peer is closing, the handle's callback pending */
    enum cstate state;
    int adopted;               /* a dial-in agent's connection: never dialled again */
    char busy[MSG_TEXT_MAX];   /* the agent's last "busy" answer */
    unsigned char cnonce[AUTH_NONCE_LEN];
    struct clean_result *res;
};

struct clean_run {
    const struct plan *plan;
    const struct auth_secret *secret;
    const volatile sig_atomic_t *interrupt;
    uint64_t timeout_ns;
    uint64_t t_start_ns;
    uint32_t n, pending;
    uv_loop_t loop;
    uv_timer_t timer;
    struct kconn *c;
};

/* This agent is done (answered or failed): close it; the last one stops
 * the timer and the loop runs dry. */
static void kfinish(struct kconn *c)
{
    struct clean_run *r = c->run;
    if (c->state == K_DONE)
        return;
    c->state = K_DONE;
    peer_close(&c->peer, "closed by the coordinator");
    if (--r->pending == 0)
        uv_close((uv_handle_t *)&r->timer, NULL);
}

static void kfail(struct kconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kfail(struct kconn *c, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (c->state == K_DONE)
        return;
    n = snprintf(c->res->err, sizeof c->res->err, "agent %u (%s): ", c->id, c->addr);
    va_start(ap, fmt);
    vsnprintf(c->res->err + n, sizeof c->res->err - (size_t)n, fmt, ap);
    va_end(ap);
    result_clean_text(c->res->err);    /* it may quote what the agent sent */
    kfinish(c);
}

/* c failed for line, which names the agent itself: without kfail's
 * "agent N (ADDR): ". */
static void kfail_named(struct kconn *c, const char *line)
{
    if (c->state == K_DONE)
        return;
    snprintf(c->res->err, sizeof c->res->err, "%s", line);
    kfinish(c);
}

/* The clean message for c, appended to out (the frames c is sent next). */
static void add_clean(struct kconn *c, struct buf *out)
{
    struct msg_plan m = { .agent_index = c->id, .nagents = c->run->n, .interval_ms = 1000,
                          .plan = *c->run->plan };
    msg_clean_encode(out, &m);
    c->state = K_CLEANING;
}

static void handle_welcome(struct kconn *c, const struct msg_frame *f)
{
    struct msg_welcome w;
    char why[MSG_TEXT_MAX];
    struct buf b;
    int named, rc;

    buf_init(&b);
    rc = agent_dial_welcome(c->run->secret, c->cnonce, c->addr, MSG_WELCOME, f, &w, &b, why, sizeof why,
                            &named);
    if (rc == -EACCES)
        buf_free(&b);                      /* a clean does not tell the agent */
    else if (rc == 0)
        add_clean(c, &b);                  /* right after our proof */
    peer_send(&c->peer, &b);
    if (rc < 0 && named)
        kfail_named(c, why);
    else if (rc < 0)
        kfail(c, "%s", why);
}

static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct kconn *c = arg;
    char err[256];

    if (type < 0) {
        kfail(c, "bad message: %s", why);
        return;
    }
    switch (type) {
    case MSG_WELCOME:
        if (c->state != K_HELLO)
            kfail(c, "welcome twice");
        else
            handle_welcome(c, f);
        return;
    case MSG_CLEANED:
        if (c->state != K_CLEANING || msg_cleaned_decode(f, &c->res->done, err, sizeof err) < 0) {
            kfail(c, "bad answer: %s", c->state != K_CLEANING ? "cleaned before clean" : err);
            return;
        }
        result_clean_text(c->res->done.note);
        c->res->ok = 1;
        kfinish(c);
        return;
    case MSG_ERROR: {
        struct msg_error m;
        if (msg_error_decode(f, &m, err, sizeof err) < 0) {
            kfail(c, "bad error message: %s", err);
            return;
        }
        if (c->state == K_HELLO && m.version && m.version != PROTO_VERSION) {
            char line[MSG_TEXT_MAX];       /* it refused our hello's version */
            msg_version_refusal(line, sizeof line, "agent", c->addr, m.version, "coordinator");
            kfail_named(c, line);
            return;
        }
        result_clean_text(m.text);
        if (strstr(m.text, ": busy: ") && c->state == K_CLEANING && !c->adopted) {
            snprintf(c->busy, sizeof c->busy, "%s", m.text);
            c->state = K_BUSY;             /* on_timer dials again */
            peer_close(&c->peer, "closed by the coordinator");
        } else {
            kfail(c, "%s", m.text);
        }
        return;
    }
    case MSG_PING:
        if (peer_pong(&c->peer, f, clock_now_ns(), NULL, err, sizeof err) < 0)
            kfail(c, "bad ping: %s", err);
        return;
    case MSG_PONG:
    case MSG_SYSTEM:        /* the agent's machine: a run records it, clean does not */
        return;
    default:
        kfail(c, "unexpected message '%s'", msg_type_name((enum msg_type)type));
        return;
    }
}

static int on_frame(struct peer *p, const char *pl, uint32_t n)
{
    msg_dispatch(pl, n, handle_frame, p);
    return p->closing;
}

/* The connection closed under us (p->err); our own closes say nothing. */
static void on_close(struct peer *p, const char *why)
{
    struct kconn *c = (struct kconn *)p;

    c->closing = 1;
    if (p->err == -EMSGSIZE)
        kfail(c, "frame larger than the limit");
    else if (p->err)
        kfail(c, "%s before it answered", why);
}

static void on_free(struct peer *p)
{
    ((struct kconn *)p)->closing = 0;
}

static const struct peer_ops kconn_ops = { .on_frame = on_frame, .on_close = on_close, .on_free = on_free };

static void on_connect(uv_connect_t *req, int status)
{
    struct kconn *c = req->data;
    struct buf b;

    if (c->state == K_DONE)
        return;
    if (status < 0) {
        kfail(c, "cannot connect: %s", uv_strerror(status));
        return;
    }
    buf_init(&b);
    if (agent_dial_hello(c->cnonce, &b) < 0) {
        kfail(c, "no randomness for the handshake nonce");
        return;
    }
    c->state = K_HELLO;
    peer_start(&c->peer);
    c->peer.last_rx_ns = clock_now_ns();
    peer_send(&c->peer, &b);
}

/* Connect (again) to c->ss. */
static void kdial(struct kconn *c)
{
    int rc;
    c->state = K_CONNECTING;
    if (c->peer.closing) {             /* a redial: a fresh peer */
        memset(&c->peer, 0, sizeof c->peer);
        peer_init(&c->peer, &c->run->loop, &kconn_ops, FRAME_MAX_PAYLOAD);
    }
    if ((rc = peer_connect(&c->peer, (struct sockaddr *)&c->ss, on_connect)) < 0)
        kfail(c, "cannot connect: %s", uv_strerror(rc));
}

static void on_timer(uv_timer_t *t)
{
    struct clean_run *r = t->data;
    uint64_t now = clock_now_ns();

    for (uint32_t i = 0; i < r->n; i++) {
        struct kconn *c = &r->c[i];
        if (c->state == K_DONE)
            continue;
        if (r->interrupt && *r->interrupt) {
            kfail(c, "interrupted before it answered (its files may be partly removed)");
            continue;
        }
        if (c->state < K_CLEANING && now - r->t_start_ns > r->timeout_ns) {
            if (c->busy[0])
                kfail(c, "still busy after %.1f s: %s", (double)r->timeout_ns / 1e9, c->busy);
            else
                kfail(c, "no answer within %.1f s", (double)r->timeout_ns / 1e9);
            continue;
        }
        if (c->state == K_BUSY && !c->closing) {
            kdial(c);
            continue;
        }
        if (c->state == K_CLEANING && now - c->peer.last_rx_ns > r->timeout_ns) {
            kfail(c, "silent for %.1f s while cleaning", (double)(now - c->peer.last_rx_ns) / 1e9);
            continue;
        }
        if (c->state == K_CLEANING)        /* renews the agent's lease */
            peer_ping(&c->peer, 0, now);
    }
}

/* A connection gather.c (or serve) authenticated: the clean goes at once;
 * what the agent sent after our proof (its system frame) is read first. */
static void kadopt(struct kconn *c, struct gather_agent *g)
{
    struct buf b;
    int rc;
    c->adopted = 1;
    if ((rc = peer_open_fd(&c->peer, g->fd)) < 0) {
        kfail(c, "cannot adopt its connection: %s", uv_strerror(rc));
        return;
    }
    g->fd = -1;                        /* ours now: closed with the handle */
    c->peer.last_rx_ns = clock_now_ns();
    buf_init(&b);
    add_clean(c, &b);
    peer_send(&c->peer, &b);
    if (g->rx.len)
        peer_feed(&c->peer, g->rx.data, g->rx.len);
}

uint32_t clean_execute(const struct plan *plan, char *const *addrs, struct gather_agent *joined, uint32_t ndial,
                       uint32_t n, const struct auth_secret *secret, uint32_t timeout_ms,
                       const volatile sig_atomic_t *interrupt, struct clean_result *out)
{
    struct clean_run r;
    uint32_t failed = 0;

    memset(&r, 0, sizeof r);
    memset(out, 0, n * sizeof *out);
    r.plan = plan;
    r.secret = secret;
    r.interrupt = interrupt;
    r.timeout_ns = (uint64_t)timeout_ms * 1000000u;
    r.t_start_ns = clock_now_ns();
    r.n = r.pending = n;
    r.c = xcalloc(n, sizeof *r.c);
    uv_loop_init(&r.loop);
    uv_timer_init(&r.loop, &r.timer);
    r.timer.data = &r;
    uv_timer_start(&r.timer, on_timer, 1000, 1000);
    for (uint32_t i = 0; i < n; i++) {
        struct kconn *c = &r.c[i];
        int rc;
        c->run = &r;
        c->id = i;
        c->addr = addrs[i];
        c->res = &out[i];
        peer_init(&c->peer, &r.loop, &kconn_ops, FRAME_MAX_PAYLOAD);
        if (joined && i >= ndial) {
            kadopt(c, &joined[i - ndial]);
            continue;
        }
        if ((rc = addr_resolve(&r.loop, c->addr, &c->ss)) < 0) {
            kfail(c, "%s", rc == -EINVAL ? "want HOST:PORT" : uv_strerror(rc));
            continue;
        }
        kdial(c);
    }
    uv_run(&r.loop, UV_RUN_DEFAULT);
    uv_loop_close(&r.loop);
    for (uint32_t i = 0; i < n; i++)
        failed += !out[i].ok;
    free(r.c);
    return failed;
}

/* "0-3,6" for the bits of mask. */
static void fmt_indices(char *out, size_t len, uint64_t mask)
{
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < 64 && o < len; k++) {
        int e = k;
        if (!(mask >> k & 1))
            continue;
        while (e + 1 < 64 && (mask >> (e + 1) & 1))
            e++;
        o += (size_t)snprintf(out + o, len - o, e > k ? "%s%d-%d" : "%s%d", o ? "," : "", k, e);
        k = e;
    }
}

/* Why a clean on every agent removed nothing: one line, no newline. */
void clean_why_nothing(char *out, size_t len, uint32_t n, uint64_t others)
{
    char ours[32], theirs[256];
    if (n == 1)
        snprintf(ours, sizeof ours, "agent 0");
    else
        snprintf(ours, sizeof ours, "agents 0-%u", n - 1);
    if (!others) {
        snprintf(out, len, "none of the files the plan names for %s is there (already removed, or the "
                 "plan names other files than the run's)", ours);
        return;
    }
    fmt_indices(theirs, sizeof theirs, others);
    snprintf(out, len, "the plan's names expand to %s; the files there are named for agent%s %s (a run on "
             "another fleet wrote them, where these agents had other indices: clean with that run's fleet, "
             "or --expect)", ours, strchr(theirs, ',') || strchr(theirs, '-') ? "s" : "", theirs);
}

int clean_report(FILE *f, char *const *addrs, uint32_t n, const struct clean_result *res)
{
    uint64_t others = 0;
    uint64_t files = 0, bytes = 0;
    uint32_t failed = 0;
    char b[32];

    for (uint32_t i = 0; i < n; i++) {
        const struct msg_cleaned *d = &res[i].done;
        if (!res[i].ok) {
            fprintf(f, "nfstorm: clean: %s\n", res[i].err);
            failed++;
            continue;
        }
        files += d->files;
        others |= d->others;
        bytes = sat_add_u64(bytes, d->bytes);
        fprintf(f, "clean: agent %u (%s): removed %llu file%s, %s", i, addrs[i],
                (unsigned long long)d->files, d->files == 1 ? "" : "s",
                units_fmt_bytes(b, sizeof b, (double)d->bytes, 1024));
        if (d->skipped)
            fprintf(f, "; %u job%s skipped", d->skipped, d->skipped == 1 ? "" : "s");
        if (d->note[0])
            fprintf(f, " (%s)", d->note);
        fputc('\n', f);
    }
    if (files == 0 && !failed && n > 0) {
        char why[512];
        clean_why_nothing(why, sizeof why, n, others);
        fprintf(f, "clean: nothing matched: %s\n", why);
        return 0;
    }
    fprintf(f, "clean: removed %llu file%s, %s in all%s\n", (unsigned long long)files, files == 1 ? "" : "s",
            units_fmt_bytes(b, sizeof b, (double)bytes, 1024),
            failed ? "; some agents failed (above)" : "");
    return failed ? 1 : 0;
}
