/* serve: the standing pool (see serve.h).
 *
 * Peer life:  HELLO (we sent hello)
 *               -> AGENT (its welcome proved the secret; kept, pinged)
 *                    -> handed to a run (fd dup'ed into the run) | left
 *               -> SUB_AUTH (it sent a hello: a submitter; our welcome
 *                  proved the secret, its auth is due)
 *                    -> SUB (authenticated; its submit is due)
 *                    -> QUEUED (waiting its turn, or for enough agents)
 *                    -> RUNNING (its run's output goes to it) -> DONE
 *
 * The agent handshake and idle keep-alive are gather.c's steps, shared
 * through agent_accept.h, on a loop that never ends. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include "common/stall.h"
#include "common/clock.h"
#include "common/xmalloc.h"
#include "coordinator/fleet/agent_accept.h"
#include "coordinator/fleet/pool_policy.h"
#include "coordinator/result/result.h"
#include "coordinator/fleet/serve.h"
#include "coordinator/fleet/serve_dir.h"
#include "coordinator/fleet/serve_run.h"
#include "net/listener.h"
#include "proto/pool_msg.h"

#define SERVE_TICK_MS    250u
#define SERVE_MAX_PEERS  4096
#define SERVE_STOP_GRACE_NS (15ull * 1000000000ull)
#define SERVE_REJOIN_NS     (2ull * 1000000000ull)   /* a run's agents, back after it */

enum speer_state { S_HELLO, S_AGENT, S_SUB_AUTH, S_SUB, S_QUEUED, S_RUNNING, S_DONE };

struct serve;

struct speer {
    struct peer peer;             /* first: the listener's peer is ours */
    struct serve *s;
    enum speer_state state;
    unsigned char nonce[AUTH_NONCE_LEN];     /* ours, sent in hello */
    unsigned char pnonce[AUTH_NONCE_LEN];    /* a submitter's */
    uint64_t turn_ns, done_ns;
    uint64_t seq;                            /* order of submissions */
    int have_system;
    struct gather_agent a;
    struct pool_submit sub;
};

/* The run holding the pool, if any. */
struct serve_cur {
    struct serve_run proc;        /* proc.pid 0: none */
    struct speer *sub;            /* NULL once the submitter went */
    char from[POOL_ADDR_MAX];
    char since[16];
    int want_json;
    uint64_t kill_ns;             /* when we asked it to stop */
};

struct serve {
    const struct serve_options *o;
    struct agent_accept_loop h;
    uint32_t nagents;
    uint64_t next_seq;
    struct serve_cur run;
    uint32_t last_run_agents;     /* how many the last run took */
    uint64_t last_end_ns;         /* when it ended (0: none yet) */
    int stopping;
};

static volatile sig_atomic_t serve_signal;

static void on_term(int signum)
{
    serve_signal = signum;
}

#define slog(s, ...) agent_accept_log((s)->o->log, "nfstorm serve: ", __VA_ARGS__)

/* The pool peer of a listener's peer (NULL stays NULL). */
static struct speer *sp(struct peer *q)
{
    return (struct speer *)q;
}

static void on_drop(struct peer *q, const char *why)
{
    struct speer *p = sp(q);
    struct serve *s = p->s;

    if (p->state == S_AGENT) {
        s->nagents--;
        slog(s, "agent left: %s (%s): %s  [%u in the pool]", p->a.welcome.host, p->a.addr, why, s->nagents);
    } else if (p->state >= S_SUB && p->state != S_DONE) {
        slog(s, "submitter %s left: %s", p->a.addr, why);
    }
    if (s->run.sub == p)
        s->run.sub = NULL;
}

static void on_free(struct peer *q)
{
    struct speer *p = sp(q);
    buf_free(&p->a.rx);
    pool_submit_free(&p->sub);
    free(p);
}

/* An error message, then (for a submitter) the exit status it should end
 * with; the submitter closes when it has read them. */
static void send_error(struct speer *p, const char *text, int status)
{
    struct msg_error e;
    struct buf b;
    snprintf(e.text, sizeof e.text, "%s", text);
    buf_init(&b);
    msg_error_encode(&b, &e);
    if (status >= 0)
        pool_exit_encode(&b, (uint32_t)status);
    peer_send(&p->peer, &b);
}

/* A submitter is done: its last frames are queued; it closes, or the tick
 * drops it once they are written. */
static void sub_finish(struct speer *p, const char *text, int status)
{
    send_error(p, text, status);
    p->state = S_DONE;
    p->done_ns = clock_now_ns();
}

static void hhmmss(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, len, "%H:%M:%S", &tm);
}

/* ---- agents ------------------------------------------------------------ */

static void handle_welcome(struct speer *p, const struct msg_frame *f)
{
    static const struct agent_accept_role role = { "a pool", "pool", "nfstorm serve: " };
    struct serve *s = p->s;
    struct msg_welcome *w = &p->a.welcome;

    if (agent_accept_peer_welcome(&p->peer, s->o->secret, &role, s->o->log, p->nonce, &p->a, MSG_WELCOME, f,
                                  NULL) < 0)
        return;
    p->state = S_AGENT;
    s->nagents++;
    slog(s, "agent joined: %s (%s) labels=%s  [%u in the pool]", w->host, p->a.addr,
         w->labels[0] ? w->labels : "-", s->nagents);
}

/* ---- submitters ---------------------------------------------------------- */

static void handle_sub_hello(struct speer *p, const struct msg_frame *f)
{
    struct msg_hello h;
    struct msg_welcome w = { .version = PROTO_VERSION, .pid = (uint32_t)getpid(), .auth = 1 };
    char err[256], text[MSG_TEXT_MAX];
    struct buf b;

    if (msg_hello_decode(f, &h, err, sizeof err) < 0) {
        peer_close(&p->peer, "not an nfstorm submitter (bad hello)");
        return;
    }
    if (h.version != PROTO_VERSION) {
        snprintf(text, sizeof text, "protocol version mismatch: pool speaks %u, submitter %u", PROTO_VERSION,
                 h.version);
        agent_accept_peer_refuse(&p->peer, text);
        return;
    }
    memcpy(p->pnonce, h.nonce, sizeof p->pnonce);
    gethostname(w.host, sizeof w.host - 1);
    memcpy(w.nonce, p->nonce, sizeof w.nonce);
    auth_proof(p->s->o->secret, AUTH_POOL, p->pnonce, p->nonce, w.mac);
    buf_init(&b);
    msg_welcome_encode(&b, &w);
    peer_send(&p->peer, &b);
    p->state = S_SUB_AUTH;
}

static void handle_sub_auth(struct speer *p, const struct msg_frame *f)
{
    struct msg_auth am;
    char err[256];

    if (msg_auth_decode(f, &am, err, sizeof err) < 0) {
        peer_close(&p->peer, "bad auth from a submitter");
        return;
    }
    if (!auth_check(p->s->o->secret, AUTH_SUBMITTER, p->pnonce, p->nonce, am.mac)) {
        slog(p->s, "submitter %s refused: its proof does not match the pool's secret", p->a.addr);
        agent_accept_peer_refuse(&p->peer, "authentication failed: the submitter's proof does not match "
                                 "the pool's secret");
        return;
    }
    p->state = S_SUB;
    listener_trust(&p->peer);
    frame_reader_set_max(&p->peer.rd, POOL_FRAME_MAX);
}

static void send_busy(struct speer *p)
{
    struct serve *s = p->s;
    struct pool_busy m;
    struct buf b;
    snprintf(m.from, sizeof m.from, "%s", s->run.from);
    snprintf(m.since, sizeof m.since, "%s", s->run.since);
    buf_init(&b);
    pool_busy_encode(&b, &m);
    peer_send(&p->peer, &b);
}

static void try_start(struct serve *s);

static void handle_submit(struct speer *p, const struct msg_frame *f)
{
    struct serve *s = p->s;
    char err[512], text[MSG_TEXT_MAX];

    if (pool_submit_decode(f, &p->sub, err, sizeof err) < 0) {
        snprintf(text, sizeof text, "bad submission: %s", err);
        slog(s, "submitter %s: %s", p->a.addr, text);
        sub_finish(p, text, 2);
        return;
    }
    if (p->sub.min_agents && p->sub.expect && p->sub.min_agents > p->sub.expect) {
        sub_finish(p, "bad submission: --min-agents is over --expect", 2);
        return;
    }
    /* the pool host decides what a submission may cause (pool_policy.h):
     * the submitter's own checks are its side, which a hand-made one skips */
    if (pool_policy_check(&p->sub, text, sizeof text) < 0) {
        slog(s, "submission from %s refused: %s", p->a.addr, text);
        sub_finish(p, text, 2);
        return;
    }
    p->state = S_QUEUED;
    p->seq = s->next_seq++;
    p->turn_ns = 0;
    slog(s, "submission from %s (%u options%s)", p->a.addr, p->sub.argc, p->sub.plan ? ", a plan" : "");
    if (s->run.proc.pid) {
        send_busy(p);
        if (!p->sub.wait) {
            snprintf(text, sizeof text, "the pool is busy with a run from %s since %s (--no-wait)",
                     s->run.from, s->run.since);
            sub_finish(p, text, 2);
            return;
        }
    }
    try_start(s);
}

static void handle_sub(struct speer *p, const struct msg_frame *f, int type)
{
    if (p->state == S_SUB && type == MSG_SUBMIT) {
        handle_submit(p, f);
        return;
    }
    if (type == MSG_PING || type == MSG_PONG)
        return;
    peer_close(&p->peer, "unexpected message from a submitter");
}

/* ---- frames ---------------------------------------------------------- */

static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct speer *p = arg;

    if (type < 0) {
        peer_close(&p->peer, p->state == S_HELLO ? "not nfstorm (bad first message)" : why);
        return;
    }
    switch (p->state) {
    case S_HELLO:
        if (type == MSG_WELCOME)
            handle_welcome(p, f);
        else if (type == MSG_HELLO)
            handle_sub_hello(p, f);
        else
            peer_close(&p->peer, "not nfstorm (neither an agent's welcome nor a submitter's hello)");
        break;
    case S_AGENT:
        if (agent_accept_peer_idle(&p->peer, &p->a, &p->have_system, type, f) == 0)
            peer_close(&p->peer, "unexpected message in the pool");
        break;
    case S_SUB_AUTH:
        if (type == MSG_AUTH)
            handle_sub_auth(p, f);
        else
            peer_close(&p->peer, "a submitter must send auth");
        break;
    default:
        handle_sub(p, f, type);
        break;
    }
}

static int on_frame(struct peer *q, const char *pl, uint32_t n)
{
    msg_dispatch(pl, n, handle_frame, sp(q));
    return q->closing;
}

/* Only an idle agent's kept bytes count against GATHER_RX_MAX (a
 * submitter's plan is bounded by POOL_FRAME_MAX). */
static long held(const struct peer *q)
{
    const struct speer *p = (const struct speer *)q;
    return p->state == S_AGENT ? (long)p->a.rx.len : -1;
}

static struct peer *alloc_peer(struct listener *l)
{
    struct serve *s = l->owner;
    struct speer *p;

    if (s->stopping)
        return NULL;
    p = xcalloc(1, sizeof *p);
    p->s = s;
    buf_init(&p->a.rx);
    p->a.fd = -1;
    return &p->peer;
}

/* Accepted: hello with our nonce (an agent answers welcome, a submitter hello). */
static void on_open(struct peer *q)
{
    agent_accept_peer_open(q, &sp(q)->a, sp(q)->nonce);
}

static const struct listener_ops serve_ops = {
    .peer = { .on_frame = on_frame, .on_close = on_drop, .on_free = on_free, .held = held },
    .alloc = alloc_peer, .on_open = on_open,
};

/* ---- runs ------------------------------------------------------------- */

static void run_out(void *arg, enum pool_stream st, const char *data, size_t len)
{
    struct serve *s = arg;
    struct buf b;
    if (!s->run.sub)
        return;                         /* its submitter went: dropped */
    buf_init(&b);
    pool_output_encode(&b, st, data, len);
    peer_send(&s->run.sub->peer, &b);
}

/* The submitter's share of agents: the first `expect` in gather order, or all. */
static int cmp_peer(const void *x, const void *y)
{
    const struct speer *a = *(const struct speer *const *)x, *b = *(const struct speer *const *)y;
    return gather_agent_cmp(&a->a, &b->a);
}

static void start_run(struct serve *s, struct speer *sub, struct speer **agents, uint32_t n)
{
    struct gather_fleet f;
    int *fds = xcalloc((size_t)s->h.l.npeers + 1, sizeof *fds);
    size_t nfds = 0;
    char err[256];
    uv_os_fd_t fd;

    memset(&f, 0, sizeof f);
    f.agents = xcalloc(n ? n : 1, sizeof *f.agents);
    for (uint32_t i = 0; i < n; i++)
        /* its system frame, and what it sent after its last whole frame */
        if (agent_accept_take(&agents[i]->peer.tcp, &agents[i]->peer.rd, &agents[i]->a, &f.agents[f.n]) == 0)
            f.n++;
    gather_fleet_names(&f);
    /* the child closes every descriptor of ours but its copies of the agents */
    if (uv_fileno((uv_handle_t *)&s->h.l.server, &fd) == 0)
        fds[nfds++] = fd;
    for (struct speer *p = sp(s->h.l.peers); p; p = sp(p->peer.next))
        if (uv_fileno((uv_handle_t *)&p->peer.tcp, &fd) == 0)
            fds[nfds++] = fd;
    s->run.proc.out_fn = run_out;
    s->run.proc.out_arg = s;
    if (serve_run_start(&s->run.proc, &s->h.loop, &sub->sub, &f, fds, nfds, s->o->run, err, sizeof err) < 0) {
        free(fds);
        slog(s, "run from %s not started: %s", sub->a.addr, err);
        sub_finish(sub, err, 1);
        return;
    }
    free(fds);
    s->run.sub = sub;
    s->run.kill_ns = 0;
    s->run.want_json = sub->sub.want_json;
    snprintf(s->run.from, sizeof s->run.from, "%s", sub->a.addr);
    hhmmss(s->run.since, sizeof s->run.since);
    sub->state = S_RUNNING;
    s->last_run_agents = n;
    slog(s, "run from %s started on %u agent%s (pid %d)", sub->a.addr, n, n == 1 ? "" : "s",
         (int)s->run.proc.pid);
    for (uint32_t i = 0; i < n; i++) {
        agents[i]->state = S_HELLO;        /* not "left": it is in the run */
        s->nagents--;
        peer_close(&agents[i]->peer, "in a run");
    }
    /* the others waiting hear who holds the pool now */
    for (struct speer *p = sp(s->h.l.peers); p; p = sp(p->peer.next))
        if (p->state == S_QUEUED)
            send_busy(p);
}

/* The first queued submission runs once the pool has its agents, or is
 * refused when its --expect-timeout passes without them. */
static void try_start(struct serve *s)
{
    struct speer *head = NULL, **agents;
    uint32_t n = 0, want, need;
    uint64_t now = clock_now_ns();

    if (s->run.proc.pid || s->stopping)
        return;
    for (struct speer *p = sp(s->h.l.peers); p; p = sp(p->peer.next))
        if (p->state == S_QUEUED && !p->peer.closing && (!head || p->seq < head->seq))
            head = p;
    if (!head)
        return;
    if (!head->turn_ns)
        head->turn_ns = now;
    want = head->sub.expect;
    need = head->sub.min_agents ? head->sub.min_agents : want ? want : 1;
    /* the last run's agents dial again as it ends, one by one: a run on
     * all of the pool's waits for them (SERVE_REJOIN_NS at most) instead of
     * starting on the first one back */
    if (!want && s->last_end_ns && s->nagents < s->last_run_agents && now - s->last_end_ns < SERVE_REJOIN_NS)
        return;
    if (s->nagents < (want ? want : 1)) {
        char text[MSG_TEXT_MAX];
        uint64_t to = (uint64_t)(head->sub.expect_timeout_ms ? head->sub.expect_timeout_ms
                                                            : GATHER_DEFAULT_TIMEOUT_MS) * 1000000u;
        if (now - head->turn_ns < to)
            return;                         /* the tick calls again */
        if (s->nagents < need) {
            snprintf(text, sizeof text, "expected %u agent%s, the pool had %u within %.3gs", want ? want : 1,
                     want > 1 ? "s" : "", s->nagents, (double)to / 1e9);
            slog(s, "submission from %s refused: %s", head->a.addr, text);
            sub_finish(head, text, 2);
            try_start(s);
            return;
        }
    }
    agents = xcalloc(s->nagents ? s->nagents : 1, sizeof *agents);
    for (struct speer *p = sp(s->h.l.peers); p; p = sp(p->peer.next))
        if (p->state == S_AGENT && !p->peer.closing)
            agents[n++] = p;
    qsort(agents, n, sizeof *agents, cmp_peer);
    if (want && n > want)
        n = want;
    start_run(s, head, agents, n);
    free(agents);
}

/* The run's process ended and its output is drained: send what it left. */
static void finish_run(struct serve *s)
{
    struct speer *sub = s->run.sub;

    slog(s, "run from %s ended: exit status %d%s", s->run.from, s->run.proc.status,
         sub ? "" : " (its submitter went)");
    if (sub) {
        struct buf b;
        if (s->run.want_json)
            serve_run_send_results(&s->run.proc);
        buf_init(&b);
        /* serve stopping: the run was cut short by us, not by the plan */
        pool_exit_encode(&b, s->stopping ? 1u : (uint32_t)s->run.proc.status);
        peer_send(&sub->peer, &b);
        sub->state = S_DONE;
        sub->done_ns = clock_now_ns();
    }
    if (serve_run_cleanup(&s->run.proc) < 0)
        slog(s, "left %s behind (the run wrote files of its own there)", s->run.proc.dir);
    s->run.sub = NULL;
    s->run.kill_ns = 0;
    s->last_end_ns = clock_now_ns();
}

static void on_tick(uv_timer_t *t)
{
    struct serve *s = t->data;
    uint64_t now = clock_now_ns();
    uint64_t stall = stall_tick(&s->h.last_tick_ns, SERVE_TICK_MS * 1000000ull, now);
    struct speer *p, *next;

    if (serve_signal && !s->stopping) {
        s->stopping = 1;
        slog(s, "SIG%s: stopping%s", sigabbrev_np(serve_signal), s->run.proc.pid ? " the run, then the pool" : "");
        if (s->run.proc.pid) {
            kill(s->run.proc.pid, SIGTERM);
            s->run.kill_ns = now;
            if (s->run.sub)
                send_error(s->run.sub, "nfstorm serve is shutting down: the run was stopped", -1);
        }
        for (p = sp(s->h.l.peers); p; p = sp(p->peer.next))
            if (p->state == S_QUEUED || p->state == S_SUB || p->state == S_SUB_AUTH)
                sub_finish(p, "nfstorm serve is shutting down: no run", 1);
    }
    /* the submitter went mid-run: the run is stopped, its agents come back */
    if (s->run.proc.pid && !s->run.sub && !s->run.kill_ns) {
        kill(s->run.proc.pid, SIGINT);
        s->run.kill_ns = now;
    }
    if (s->run.proc.pid && s->run.kill_ns && now - s->run.kill_ns > SERVE_STOP_GRACE_NS)
        kill(s->run.proc.pid, SIGKILL);
    if (s->run.proc.pid && serve_run_poll(&s->run.proc))
        finish_run(s);
    for (p = sp(s->h.l.peers); p; p = next) {
        next = sp(p->peer.next);
        switch (p->state) {
        case S_HELLO:
        case S_SUB_AUTH:
            if (now - p->peer.accepted_ns > (uint64_t)GATHER_HELLO_TIMEOUT_MS * 1000000u)
                peer_close(&p->peer, "no handshake within 5 s");
            break;
        case S_SUB:
            if (now - p->peer.accepted_ns > 30ull * 1000000000ull)
                peer_close(&p->peer, "no submission within 30 s");
            break;
        case S_AGENT:
            agent_accept_keepalive(&p->peer, now, stall, s->o->agent_timeout_ms);
            break;
        case S_DONE:
            if (uv_stream_get_write_queue_size((uv_stream_t *)&p->peer.tcp) == 0 ||
                now - p->done_ns > 10ull * 1000000000ull) {
                peer_close(&p->peer, "done");     /* S_DONE: no "left" line */
            }
            break;
        default:
            break;
        }
    }
    if (s->stopping && !s->run.proc.pid) {
        int pending = 0;
        for (p = sp(s->h.l.peers); p; p = sp(p->peer.next))
            if (p->state == S_DONE)
                pending = 1;
        if (!pending)
            uv_stop(&s->h.loop);
    }
    try_start(s);
}

int serve_main(const struct serve_options *o, char *err, size_t errlen)
{
    struct serve *s = xcalloc(1, sizeof *s);
    struct sigaction sa;
    int rc;

    s->o = o;
    agent_accept_loop_open(&s->h, &serve_ops, s);
    s->h.l.max_peers = SERVE_MAX_PEERS;
    s->h.l.why_big_stranger = s->h.l.why_big = "frame over the limit";
    s->h.l.why_held = "sent too much while idle in the pool";
    if ((rc = listener_start(&s->h.l, &s->h.loop, o->listen, err, errlen)) < 0)
        goto out;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    slog(s, "pool listening on %s (agents and submitters)", o->listen);
    /* what a serve killed before us left (its runs died with it) */
    serve_dir_sweep(o->log);
    s->h.last_tick_ns = clock_now_ns();      /* a stop before the first tick is a stall too */
    uv_timer_start(&s->h.tick, on_tick, SERVE_TICK_MS, SERVE_TICK_MS);
    uv_run(&s->h.loop, UV_RUN_DEFAULT);
    slog(s, "stopped: its %u idle agent%s and those of the run go back to dialling", s->nagents,
         s->nagents == 1 ? "" : "s");
    for (struct speer *p = sp(s->h.l.peers), *next; p; p = next) {
        next = sp(p->peer.next);
        p->state = S_DONE;
        peer_close(&p->peer, "serve stopped");
    }
    rc = 0;
out:
    agent_accept_loop_close(&s->h);
    free(s);
    return rc;
}
