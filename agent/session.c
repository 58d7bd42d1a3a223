/* session: the agent's control connection state machine (see session.h).
 *
 *   HELLO --hello--> IDLE --plan--> PREPARING --(worker done)--> READY
 *   READY --start--> RUNNING --(all jobs finished: phase-done)--> FINISHING
 *   FINISHING --(worker done)--> PREPARING (next phase) | IDLE
 *   (authenticated while the active session winds down: WAITING, then IDLE)
 *   IDLE --clean--> CLEANING --(clean done)--> IDLE
 *
 * That is st.talk; the rest of the state (ending, queued work, the phase
 * held, the plan's run) is in st too, checked as one value after every
 * change (agent/session_state.h).
 *
 * Threads: every libuv call on the agent's loop is made from the loop
 * thread.  The only way in from another thread is uv_async_send (a job
 * thread saying the phase's jobs all ended) and libuv's own thread-pool
 * completion.  The loop thread never does file or NFS I/O: preparing
 * (engine connects, free-space check, layout, job threads) and finishing
 * (joins, unlink=1, engine teardown) run on libuv's thread pool, I/O on the
 * job threads, so heartbeats and the lease never wait for storage.
 *
 * This file keeps the connection's life (agent/session_int.h); the plan and
 * its phases are session_run.c's.  Every path out of a phase (done, failed
 * to prepare, stopped, the coordinator gone) goes through phase_stop and
 * session_finish_phase back to IDLE, and the session is freed only when its
 * handles are closed, no work is queued and no job thread runs, whichever
 * of those ends last. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent/clean.h"
#include "agent/hostinfo.h"
#include "agent/session.h"
#include "agent/session_int.h"
#include "common/stall.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "net/addr.h"
#include "net/ctlsock.h"
#include "proto/msg_version.h"

#define SESSION_HELLO_TIMEOUT_NS (5 * 1000000000ull)
#define SESSION_WAIT_NS (60 * 1000000000ull)  /* behind a winding-down session */
#define TICK_NS (1000 * 1000000ull)       /* on_tick's period */

static void session_authenticated(struct session *s);

/* Send one encoded frame; takes ownership of b. */
void session_send(struct session *s, struct buf *b)
{
    if (s->st.life != LIFE_OPEN) {
        buf_free(b);
        return;
    }
    if (s->agent->send_hook) {
        s->agent->send_hook(s->agent->send_hook_arg, b->data, b->len);
        buf_free(b);
        return;
    }
    peer_send(&s->conn, b);
}

void session_send_active(struct agent *a, const char *peer, struct buf *b)
{
    if (a->active && strcmp(a->active->peer, peer) == 0)
        session_send(a->active, b);    /* drops b when closing */
    else
        buf_free(b);
}

/* An error to the coordinator, and the log: "agent N (HOST): TEXT", N
 * only once a plan named this agent's index. */
static void send_text(struct session *s, int indexed, uint32_t index, const char *text)
{
    struct msg_error m;
    struct buf b;
    if (indexed)
        snprintf(m.text, sizeof m.text, "agent %u (%s): %s", index, s->agent->host, text);
    else
        snprintf(m.text, sizeof m.text, "agent %s: %s", s->agent->host, text);
    log_warn("to %s: %s", s->peer, m.text);
    buf_init(&b);
    msg_error_encode(&b, &m);
    session_send(s, &b);
}

void session_send_error(struct session *s, const char *fmt, ...)
{
    char text[MSG_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    send_text(s, session_state_has_plan(&s->st), s->id.index, text);
}

/* "agent N (HOST): busy: serving coordinator ADDR", N being this agent's
 * index in the run it serves (docs/running.md); without a plan yet there
 * is no index, and the text is "agent HOST: busy: ...". */
static void send_busy(struct session *s)
{
    struct session *act = s->agent->active;
    char text[sizeof s->agent->active_peer + 32];
    snprintf(text, sizeof text, "busy: serving coordinator %s", s->agent->active_peer);
    send_text(s, act && act->indexed, act ? act->id.index : 0, text);
}

static void session_promote(struct session *s);

static void on_handle_closed(uv_handle_t *h)
{
    struct session *s = h->data;
    struct agent *a = s->agent;
    if (--s->open_handles == 0) {
        if (session_state_has_plan(&s->st))
            msg_plan_free(&s->plan);
        free(s->acc);
        free(s->totals);
        free(s->causes_acc);
        free(s->causes);
        nfs_rpc_set_free(&s->nfs_acc);
        nfs_rpc_set_free(&s->nfs_totals);
        free(s->clean_pending);
        if (a->waiting == s)
            a->waiting = NULL;
        log_msg(s->st.link == LINK_DIALLING ? LOG_DEBUG : LOG_INFO, "session with %s ended", s->peer);
        a->nsessions--;
        int served = s->served;
        char why[sizeof s->end_why];
        memcpy(why, s->end_why, sizeof why);
        if (a->active == s) {
            a->active = NULL;
            /* a coordinator that connected while this one was winding
             * down is served now, never told "busy" */
            if (a->waiting) {
                struct session *w = a->waiting;
                a->waiting = NULL;
                session_promote(w);
            }
        }
        free(s);
        if (a->session_freed)
            a->session_freed(a->session_freed_arg, served, why);
    }
}

int session_decoded(struct session *s, int rc, const char *err)
{
    if (rc < 0)
        session_end(s, err);
    return rc >= 0;
}

/* End the session: stop I/O (and a layout in progress), then free once
 * nothing refers to it. */
void session_end(struct session *s, const char *why)
{
    if (s->st.life == LIFE_OPEN) {
        log_msg(s->st.link == LINK_DIALLING ? LOG_DEBUG : LOG_INFO, "closing session with %s: %s", s->peer,
                why);
        snprintf(s->end_why, sizeof s->end_why, "%s", why);
        s->st.life = LIFE_ENDING;
    }
    if (s->st.phase != PH_NONE)
        phase_stop(&s->run);
    if (s->st.talk == S_CLEANING)
        atomic_store(&s->clean_cancel, 1);
    session_maybe_free(s);
    session_state_assert(&s->st);
}

void session_maybe_free(struct session *s)
{
    /* a clean still walking could remove the next run's files: the next
     * coordinator waits for it as for a phase winding down */
    if (s->st.life != LIFE_ENDING || s->st.work != WORK_NONE || s->st.talk == S_RUNNING ||
        s->st.talk == S_CLEANING)
        return;
    if (s->st.phase == PH_PREPARED) {
        session_finish_phase(s);        /* threads and engines go first, off the loop */
        return;
    }
    s->st.life = LIFE_CLOSED;
    uv_timer_stop(&s->sampler);
    client_sampler_stop(&s->cs);
    if (s->agent->waiting == s)
        s->agent->waiting = NULL;
    peer_close(&s->conn, s->end_why);
    uv_close((uv_handle_t *)&s->sampler, on_handle_closed);
    uv_close((uv_handle_t *)&s->tick, on_handle_closed);
    uv_close((uv_handle_t *)&s->finished, on_handle_closed);
}

/* A hello of another PROTO_VERSION, however it decodes otherwise: refuse
 * it naming both versions, here and to the coordinator (proto/msg_version.h).
 * 1 when refused (the session is ending). */
static int refuse_other_version(struct session *s, const struct msg_frame *f)
{
    char err[256], line[MSG_TEXT_MAX];
    uint32_t v = 0;
    struct buf b;

    if (msg_version_peek(f, &v, err, sizeof err) < 0 || v == PROTO_VERSION)
        return 0;               /* the decoder says what is wrong, if anything */
    msg_version_refusal(line, sizeof line, "coordinator", s->peer, v, "agent");
    if (s->st.link == LINK_ACCEPTED)
        log_warn("%s", line);   /* dial.c logs why a dialled session ended */
    buf_init(&b);
    msg_version_error_encode(&b, "agent", "coordinator", v);
    session_send(s, &b);
    session_end(s, line);
    return 1;
}

static void on_hello(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct buf b;
    struct msg_hello h;
    struct msg_welcome w = { .version = PROTO_VERSION, .pid = (uint32_t)getpid(),
                             .ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) };

    buf_init(&b);
    if (s->st.talk == S_HELLO && refuse_other_version(s, f))
        return;
    if (s->st.talk != S_HELLO || msg_hello_decode(f, &h, err, sizeof err) < 0) {
        session_end(s, s->st.talk != S_HELLO ? "hello twice" : err);
        return;
    }
    snprintf(w.host, sizeof w.host, "%s", s->agent->host);
    snprintf(w.labels, sizeof w.labels, "%s", s->agent->labels);
    if (s->agent->secret) {
        memcpy(s->cnonce, h.nonce, sizeof s->cnonce);
        if (auth_nonce(s->anonce) < 0) {
            session_end(s, "no randomness for the handshake nonce");
            return;
        }
        w.auth = 1;
        memcpy(w.nonce, s->anonce, sizeof w.nonce);
        auth_proof(s->agent->secret, AUTH_AGENT, s->cnonce, s->anonce, w.mac);
    }
    msg_welcome_encode(&b, &w);
    session_send(s, &b);
    if (s->agent->secret)
        s->st.talk = S_AUTH;
    else
        session_authenticated(s);
}

static void on_auth(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_auth m;
    if (s->st.talk != S_AUTH || msg_auth_decode(f, &m, err, sizeof err) < 0) {
        session_end(s, s->st.talk != S_AUTH ? "unexpected auth" : err);
        return;
    }
    if (!auth_check(s->agent->secret, AUTH_COORDINATOR, s->cnonce, s->anonce, m.mac)) {
        session_send_error(s, "authentication failed: the coordinator's proof does not match this "
                   "agent's secret (different --secret-file, or a replayed handshake)");
        session_end(s, "authentication failed");
        return;
    }
    session_authenticated(s);
}

static void on_ping(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct buf b;
    if (peer_backlogged(&s->conn))
        return;
    buf_init(&b);
    if (session_decoded(s, peer_pong(NULL, f, clock_now_ns(), &b, err, sizeof err), err))
        session_send(s, &b);
}

/* The answer to our heartbeat: last_rx_ns did its job.  Its round trip
 * says how long the coordinator's messages queue on the way here (a link
 * full of our own load: --control-tos). */
static void on_pong(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_pong m;
    uint64_t now = clock_now_ns();
    if (msg_pong_decode(f, &m, err, sizeof err) == 0 && m.t_ping_ns <= now)
        log_debug("heartbeat round trip to %s: %.2f ms", s->peer, (double)(now - m.t_ping_ns) / 1e6);
}

static void on_error(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_error m;
    if (msg_error_decode(f, &m, err, sizeof err) == 0) {
        char why[sizeof s->end_why];
        if (m.version && m.version != PROTO_VERSION) {
            /* a listening coordinator refused our version */
            msg_version_refusal(why, sizeof why, "coordinator", s->peer, m.version, "agent");
            if (s->st.link == LINK_ACCEPTED)
                log_warn("%s", why);
            session_end(s, why);
            return;
        }
        log_msg(s->st.link == LINK_ACCEPTED ? LOG_WARN : LOG_DEBUG, "error from coordinator %s: %s", s->peer,
                m.text);
        snprintf(why, sizeof why, "coordinator reported an error: %s", m.text);
        session_end(s, why);
        return;
    }
    session_end(s, "coordinator reported an error");
}

/* One handler per message an agent takes, by type. */
typedef void (*frame_handler)(struct session *s, const struct msg_frame *f);
static const frame_handler frame_handlers[MSG__COUNT] = {
    [MSG_HELLO] = on_hello,
    [MSG_AUTH] = on_auth,
    [MSG_PING] = on_ping,
    [MSG_PLAN] = session_on_plan,
    [MSG_START] = session_on_start,
    [MSG_CLEAN] = session_on_clean,
    [MSG_PONG] = on_pong,
    [MSG_STOP] = session_on_stop,
    [MSG_PHASE_END] = session_on_phase_end,
    [MSG_ERROR] = on_error,
};

/* A frame from the coordinator: the handshake first (hello, then auth
 * when the agent has a secret), then one handler per message. */
static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct session *s = arg;
    char err[256];

    if (type < 0) {
        session_end(s, why);
        return;
    }
    if (s->st.talk == S_HELLO && type != MSG_HELLO) {
        session_end(s, "first message is not hello");
        return;
    }
    if (s->st.talk == S_AUTH && type != MSG_AUTH && type != MSG_ERROR) {
        session_end(s, "not authenticated");
        return;
    }
    if (type >= MSG__COUNT || !frame_handlers[type]) {
        snprintf(err, sizeof err, "unexpected message '%s'", msg_type_name((enum msg_type)type));
        session_end(s, err);
        return;
    }
    frame_handlers[type](s, f);
    session_state_assert(&s->st);
}

static int on_frame(struct peer *p, const char *pl, uint32_t n)
{
    struct session *s = (struct session *)p;
    if (s->st.life == LIFE_OPEN)      /* ended meanwhile (a timer): read no further */
        msg_dispatch(pl, n, handle_frame, s);
    return s->st.life != LIFE_OPEN;
}

/* The connection closed under us (p->err says how), or session_maybe_free
 * closes it. */
static void on_peer_close(struct peer *p, const char *why)
{
    struct session *s = (struct session *)p;

    if (s->st.life != LIFE_OPEN)
        return;
    if (p->err == -EMSGSIZE)
        why = s->st.talk <= S_AUTH ? "frame larger than the limit before authentication"
                                   : "frame larger than the limit";
    session_end(s, why);
}

static void on_peer_free(struct peer *p)
{
    on_handle_closed((uv_handle_t *)&p->tcp);
}

/* A stranger that said hello is kept over one that has not. */
static int on_spoke(const struct peer *p)
{
    return ((const struct session *)p)->st.talk != S_HELLO;
}

/* Over the strangers' caps (net/listener.c picks the victim): logged, and
 * ended in the agent's words. */
static void on_evicting(struct peer *victim, uint32_t n, int same_ip)
{
    struct session *v = (struct session *)victim;
    const char *colon = strrchr(v->peer, ':');

    if (same_ip) {
        log_warn("evicted %s: %u connections from %.*s waiting to authenticate", v->peer, n,
                 (int)(colon ? (size_t)(colon - v->peer) : strlen(v->peer)), v->peer);
        session_end(v, "evicted: newer connections from the same address");
    } else {
        log_warn("evicted %s: %u connections waiting to authenticate", v->peer, n);
        session_end(v, "evicted: too many unauthenticated connections");
    }
}

static struct peer *on_alloc(struct listener *l);
static void on_open(struct peer *p);

static const struct listener_ops session_listener_ops = {
    .peer = { .on_frame = on_frame, .on_close = on_peer_close, .on_free = on_peer_free },
    .alloc = on_alloc, .on_open = on_open, .spoke = on_spoke, .evicting = on_evicting,
};

void session_feed(struct session *s, const void *bytes, size_t len)
{
    if (s->st.life != LIFE_OPEN)
        return;
    s->conn.last_rx_ns = clock_now_ns();
    peer_feed(&s->conn, bytes, len);
}

void session_close(struct session *s)
{
    session_end(s, "connection closed");
}

int session_settled(const struct session *s)
{
    return s->st.work == WORK_NONE && s->st.talk != S_RUNNING;
}

/* ---- accepting ---- */

/* Hello deadline before authentication; afterwards a heartbeat to the
 * coordinator every second and the lease: a coordinator silent for longer
 * than the lease is gone, and the I/O it started stops. */
static void on_tick(uv_timer_t *t)
{
    struct session *s = t->data;
    uint64_t now = clock_now_ns();
    char why[96];

    if (s->st.life != LIFE_OPEN)
        return;
    /* this agent's own stall is not the coordinator's silence (common/stall.h) */
    s->conn.last_rx_ns = stall_forgive(s->conn.last_rx_ns, stall_tick(&s->last_tick_ns, TICK_NS, now), now);
    if (s->st.link == LINK_DIALLING) {
        /* a blackholed address would hold a connect for the kernel's
         * minutes: give up as soon as a hello would be late, and redial */
        if (now - s->accepted_ns > SESSION_HELLO_TIMEOUT_NS)
            session_end(s, "cannot connect: no answer within 5 s");
        return;
    }
    if (s->st.talk <= S_AUTH) {
        if (now - s->accepted_ns > SESSION_HELLO_TIMEOUT_NS)
            session_end(s, "no hello and authentication within 5 s");
        return;
    }
    if (s->st.talk == S_WAITING && now - s->waiting_since_ns > SESSION_WAIT_NS) {
        send_busy(s);
        session_end(s, "busy");
        return;
    }
    if (now - s->conn.last_rx_ns > s->agent->lease_ns) {
        snprintf(why, sizeof why, "lease expired: coordinator silent for %.1f s",
                 (double)(now - s->conn.last_rx_ns) / 1e9);
        session_end(s, why);
        return;
    }
    struct msg_ping ping = { .t_ns = now };
    struct buf b;
    buf_init(&b);
    msg_ping_encode(&b, &ping);
    session_send(s, &b);
    if (s->st.talk == S_PREPARING && atomic_load(&s->run.layout_known)) {
        /* layout progress: the worker thread counts, we report (once its
         * total is whole) */
        struct msg_progress pm = { .phase = s->phase,
                                   .done_bytes = atomic_load(&s->run.layout_done),
                                   .total_bytes = atomic_load(&s->run.layout_total) };
        buf_init(&b);
        msg_progress_encode(&b, &pm);
        session_send(s, &b);
    }
}

static void tick_start(struct session *s)
{
    s->last_tick_ns = clock_now_ns();     /* a stop before the first tick is a stall too */
    uv_timer_start(&s->tick, on_tick, TICK_NS / 1000000u, TICK_NS / 1000000u);
}

/* This machine, for the result's record: only to a proven coordinator. */
static void send_system(struct session *s, const char *waiting_for)
{
    struct hostinfo h;
    struct msg_system m;
    struct buf b;
    hostinfo_read(&h);      /* /proc and uname: no storage I/O */
    memset(&m, 0, sizeof m);
    snprintf(m.kernel, sizeof m.kernel, "%s", h.kernel);
    snprintf(m.cpu_model, sizeof m.cpu_model, "%s", h.cpu_model);
    m.mem_bytes = h.mem_bytes;
    if (waiting_for)
        snprintf(m.waiting_for, sizeof m.waiting_for, "%s", waiting_for);
    buf_init(&b);
    msg_system_encode(&b, &m);
    session_send(s, &b);
}

/* Hello (and the coordinator's proof) done: serve it, unless another
 * coordinator holds the agent. */
static void session_authenticated(struct session *s)
{
    struct agent *a = s->agent;
    listener_trust(&s->conn);
    /* proven: frames up to the full size (plans, clean requests) from now on */
    frame_reader_set_max(&s->conn.rd, FRAME_MAX_PAYLOAD);
    s->st.talk = S_IDLE;
    if (a->active && a->active->st.run == RUN_OVER && a->active->st.talk == S_IDLE) {
        /* its coordinator is done and just hasn't hung up yet */
        session_end(a->active, "run complete; a new coordinator connected");
        a->active = NULL;
    }
    if (a->active && a->active->st.life != LIFE_OPEN && !a->waiting) {
        /* its coordinator is gone and its threads are winding down (a
         * stop takes a few seconds at most, a storage call stuck in its
         * preparation longer): this one is next, not busy, and is told
         * why it waits */
        send_system(s, a->active_peer);
        a->waiting = s;
        s->st.talk = S_WAITING;
        s->waiting_since_ns = clock_now_ns();
        log_info("coordinator %s waits for the session with %s to wind down", s->peer,
                 a->active_peer);
        return;
    }
    send_system(s, NULL);
    if (a->active) {
        send_busy(s);
        session_end(s, "busy");
        return;
    }
    session_promote(s);
}

/* The agent serves s from now on (loop thread). */
static void session_promote(struct session *s)
{
    struct agent *a = s->agent;
    a->active = s;
    s->served = 1;
    s->st.talk = S_IDLE;
    snprintf(a->active_peer, sizeof a->active_peer, "%s", s->peer);
    log_info("serving coordinator %s%s", s->peer, a->secret ? " (authenticated)" : " (UNAUTHENTICATED: --insecure)");
    if (s->st.run == RUN_PENDING && s->st.life == LIFE_OPEN)
        session_run_plan(s);
    if (s->clean_pending && s->st.life == LIFE_OPEN) {
        struct msg_frame f;     /* the bytes kept parsed before: a clean */
        msg_parse(s->clean_pending, s->clean_pending_n, &f, NULL, 0);
        session_run_clean(s, &f);
        msg_frame_free(&f);
    }
    free(s->clean_pending);
    s->clean_pending = NULL;
    session_state_assert(&s->st);
}

/* a's listener, set up at its first use (the seam's and the fuzzers'
 * agents are zeroed, and hold their sessions in it too). */
static struct listener *agent_listener(struct agent *a)
{
    if (!a->l.ops) {
        a->l.ops = &session_listener_ops;
        a->l.owner = a;
        a->l.max_pending = SESSION_MAX_PENDING;
        a->l.max_pending_per_addr = SESSION_MAX_PENDING_PER_ADDR;
        a->l.preauth_max = FRAME_PREAUTH_MAX;
        a->l.why_big_stranger = a->l.why_big = "frame larger than the limit";
    }
    return &a->l;
}

/* A session with its handles, not yet connected to anything; alone (not
 * accepted by a->l): its peer set up here and held as a stranger of a->l,
 * counted against the caps by its address ss when known (NULL: none). */
static struct session *session_new(struct agent *a, int alone, const struct sockaddr_storage *ss)
{
    struct session *s = xcalloc(1, sizeof *s);

    s->agent = a;
    s->id.host = a->host;
    s->id.allow = &a->allow;
    s->id.allow_nfs = &a->allow_nfs;
    s->id.loop_thread = a->loop_thread;
    s->acc = xmalloc(sizeof *s->acc);
    s->totals = xmalloc(sizeof *s->totals);
    s->causes_acc = xcalloc(1, sizeof *s->causes_acc);
    s->causes = xcalloc(1, sizeof *s->causes);
    if (alone) {
        peer_init(&s->conn, a->loop, &session_listener_ops.peer, FRAME_PREAUTH_MAX);
        if (ss)
            s->conn.ss = *ss;
        listener_adopt(agent_listener(a), &s->conn);
    }
    uv_timer_init(a->loop, &s->sampler);
    uv_timer_init(a->loop, &s->tick);
    uv_async_init(a->loop, &s->finished, session_on_finished);
    s->sampler.data = s->tick.data = s->finished.data = s;
    s->open_handles = 4;
    s->accepted_ns = s->conn.last_rx_ns = clock_now_ns();
    a->nsessions++;
    return s;
}

struct session *session_open_detached(struct agent *a, const char *peer)
{
    struct sockaddr_storage ss;
    struct session *s = session_new(a, 1, addr_parse_listen(peer, &ss) == 0 ? &ss : NULL);
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    tick_start(s);
    return s;
}

/* The connection is up: ask the network to let it through a link our own
 * load fills (net/ctlsock.h).  A refusal costs only the priority. */
static void mark_control(struct session *s)
{
    int rc = ctlsock_mark(&s->conn.tcp, s->agent->control_tos);
    if (rc < 0)
        log_warn("%s: cannot mark the control connection (--control-tos): %s", s->peer, uv_strerror(rc));
}

static struct peer *on_alloc(struct listener *l)
{
    return &session_new(l->owner, 0, NULL)->conn;
}

/* Accepted (net/listener.c named it, listed it and reads from it). */
static void on_open(struct peer *p)
{
    struct session *s = (struct session *)p;

    snprintf(s->peer, sizeof s->peer, "%s", p->addr);
    mark_control(s);
    log_info("connection from %s", s->peer);
    tick_start(s);
}

int session_listen(struct agent *a, const char *listen, char *err, size_t errlen)
{
    return listener_start(agent_listener(a), a->loop, listen, err, errlen);
}

/* ---- dialling out (agent --coordinator) ---- */

static void on_dialled(uv_connect_t *req, int status)
{
    struct session *s = req->data;

    if (s->st.life != LIFE_OPEN)
        return;                 /* ended meanwhile (the close cancels us) */
    if (status < 0) {
        char why[96];
        snprintf(why, sizeof why, "cannot connect: %s", uv_strerror(status));
        session_end(s, why);
        return;
    }
    s->st.link = LINK_DIALLED;
    mark_control(s);
    log_info("connected to coordinator %s", s->peer);
    /* the hello deadline counts from the connection, as for an accepted one */
    s->accepted_ns = s->conn.last_rx_ns = clock_now_ns();
    tick_start(s);
    peer_start(&s->conn);
}

struct session *session_dial(struct agent *a, const struct sockaddr *sa, const char *peer)
{
    struct sockaddr_storage ss = { 0 };
    struct session *s;

    memcpy(&ss, sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    s = session_new(a, 1, &ss);
    int rc;

    snprintf(s->peer, sizeof s->peer, "%s", peer);
    s->st.link = LINK_DIALLING;
    tick_start(s);     /* the connect's deadline */
    if ((rc = peer_connect(&s->conn, sa, on_dialled)) < 0) {
        char why[96];
        snprintf(why, sizeof why, "cannot connect: %s", uv_strerror(rc));
        session_end(s, why);
    }
    return s;
}
