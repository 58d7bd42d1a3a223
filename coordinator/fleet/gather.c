/* gather: wait for dialling agents (see gather.h).
 *
 * Peer life:  HELLO (we sent hello; its welcome is due)
 *             -> JOINED (its proof matched, we sent auth; pings both ways)
 *             -> handed over (fd dup'ed, the handle closed) | dropped.
 * Dropped peers (refused, evicted, gone) are closed and forgotten; a
 * joined agent that hangs up before the run is "left" and no longer
 * counts: it will dial again and may rejoin. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "common/stall.h"
#include "common/clock.h"
#include "common/xmalloc.h"
#include "coordinator/fleet/agent_accept.h"
#include "coordinator/fleet/gather.h"
#include "coordinator/result/result.h"
#include "net/ctlsock.h"
#include "net/listener.h"
#include "proto/msg_version.h"

#define GATHER_TICK_MS    250u

enum gpeer_state { G_HELLO, G_JOINED };

struct gather;

struct gpeer {
    struct peer peer;             /* first: the listener's peer is ours */
    struct gather *g;
    enum gpeer_state state;
    unsigned char cnonce[AUTH_NONCE_LEN];
    int have_system;
    struct gather_agent a;
};

/* The gather peer of a listener's peer. */
static struct gpeer *gp(struct peer *q)
{
    return (struct gpeer *)q;
}

struct gather {
    const struct gather_options *o;
    struct agent_accept_loop h;
    uint32_t njoined;
    uint64_t t_start_ns;
    int done;                     /* stop waiting: enough, or the timeout */
    int checked;                  /* o->check ended the wait; why in check_why */
    char check_why[1024];
    int rc;
};

#define glog(g, ...) agent_accept_log((g)->o->log, "nfstorm: ", __VA_ARGS__)

static const char *peer_host(const struct gpeer *p)
{
    return p->a.welcome.host[0] ? p->a.welcome.host : "?";
}

/* Dropping p: a joined agent no longer counts. */
static void on_drop(struct peer *q, const char *why)
{
    struct gpeer *p = gp(q);
    struct gather *g = p->g;

    if (p->state == G_JOINED) {
        g->njoined--;
        glog(g, "agent left: %s (%s): %s  [%u/%u]", peer_host(p), p->a.addr, why, g->njoined,
             g->o->expect);
    }
}

static void on_free(struct peer *q)
{
    struct gpeer *p = gp(q);
    buf_free(&p->a.rx);
    free(p);
}

static void stop_waiting(struct gather *g)
{
    if (g->done)
        return;
    g->done = 1;
    uv_stop(&g->h.loop);
}

/* The agent answered our hello with an error: an agent of another version
 * refusing ours (its error names its version), or an older one in its own
 * words.  Logged, so the coordinator's output says why it never joined. */
static void refused_by_agent(struct gpeer *p, const struct msg_frame *f)
{
    char err[256], line[MSG_TEXT_MAX + 64];
    struct msg_error m;

    if (msg_error_decode(f, &m, err, sizeof err) < 0) {
        peer_close(&p->peer, "not an nfstorm agent (bad error)");
        return;
    }
    if (m.version && m.version != PROTO_VERSION) {
        msg_version_refusal(line, sizeof line, "agent", p->a.addr, m.version, "coordinator");
    } else {
        result_clean_text(m.text);
        snprintf(line, sizeof line, "agent %s refused us: %s", p->a.addr, m.text);
    }
    glog(p->g, "refused: %s", line);
    peer_close(&p->peer, line);
}

static void handle_welcome(struct gpeer *p, const struct msg_frame *f, int type)
{
    static const struct agent_accept_role role = { "a listening coordinator", "coordinator", "nfstorm: " };
    struct gather *g = p->g;
    struct msg_welcome *w = &p->a.welcome;
    const char *full = g->done || g->njoined >= g->o->expect
        ? "run in progress: this coordinator has all its agents; dial again for the next run" : NULL;

    if (type == MSG_ERROR) {
        refused_by_agent(p, f);
        return;
    }
    if (agent_accept_peer_welcome(&p->peer, g->o->secret, &role, g->o->log, p->cnonce, &p->a, type, f, full) < 0)
        return;
    p->state = G_JOINED;
    g->njoined++;
    glog(g, "agent joined: %s (%s) labels=%s  [%u/%u]", w->host, p->a.addr,
         w->labels[0] ? w->labels : "-", g->njoined, g->o->expect);
    if (g->njoined == g->o->expect)
        stop_waiting(g);
}

/* After our auth: keep its system frame for the run, answer its pings. */
static void handle_joined(struct gpeer *p, const struct msg_frame *f, int type)
{
    char err[256];

    if (agent_accept_peer_idle(&p->peer, &p->a, &p->have_system, type, f) != 0)
        return;
    switch (type) {
    case MSG_ERROR: {
        struct msg_error m;
        char why[MSG_TEXT_MAX + 32];
        if (msg_error_decode(f, &m, err, sizeof err) < 0)
            snprintf(m.text, sizeof m.text, "(unreadable)");
        result_clean_text(m.text);
        snprintf(why, sizeof why, "the agent refused us: %s", m.text);
        peer_close(&p->peer, why);
        return;
    }
    default:
        peer_close(&p->peer, "unexpected message before the run");
        return;
    }
}

static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct gpeer *p = arg;
    (void)why;                 /* each state words its own drop */
    if (p->state == G_HELLO)
        handle_welcome(p, f, type);
    else
        handle_joined(p, f, type);
}

static int on_frame(struct peer *q, const char *pl, uint32_t n)
{
    msg_dispatch(pl, n, handle_frame, gp(q));
    return q->closing;
}

/* Every peer's kept bytes count against GATHER_RX_MAX. */
static long held(const struct peer *q)
{
    return (long)((const struct gpeer *)q)->a.rx.len;
}

static struct peer *alloc_peer(struct listener *l)
{
    struct gpeer *p = xcalloc(1, sizeof *p);
    p->g = l->owner;
    buf_init(&p->a.rx);
    p->a.fd = -1;
    return &p->peer;
}

/* Accepted: mark the connection, say hello with our nonce. */
static void on_open(struct peer *q)
{
    struct gpeer *p = gp(q);
    struct gather *g = p->g;
    int rc;

    if ((rc = ctlsock_mark(&q->tcp, g->o->control_tos)) < 0 && g->o->log)
        fprintf(g->o->log, "nfstorm: %s: cannot mark the control connection (--control-tos): %s\n",
                q->addr, uv_strerror(rc));
    agent_accept_peer_open(q, &p->a, p->cnonce);
}

static const struct listener_ops gather_ops = {
    .peer = { .on_frame = on_frame, .on_close = on_drop, .on_free = on_free, .held = held },
    .alloc = alloc_peer, .on_open = on_open,
};

static void on_tick(uv_timer_t *t)
{
    struct gather *g = t->data;
    uint64_t now = clock_now_ns();
    uint64_t stall = stall_tick(&g->h.last_tick_ns, GATHER_TICK_MS * 1000000ull, now);
    for (struct peer *q = g->h.l.peers, *next; q; q = next) {
        next = q->next;
        if (gp(q)->state != G_HELLO)
            agent_accept_keepalive(q, now, stall, g->o->agent_timeout_ms);
        else if (now - q->accepted_ns > (uint64_t)GATHER_HELLO_TIMEOUT_MS * 1000000u)
            peer_close(q, "no welcome within 5 s");
    }
    if (now - g->t_start_ns >= (uint64_t)g->o->timeout_ms * 1000000u)
        stop_waiting(g);
    else if (!g->done && g->o->check && g->o->check(g->o->check_arg, g->check_why, sizeof g->check_why)) {
        g->checked = 1;
        stop_waiting(g);
    }
}

/* The address, then the port: in network byte order memcmp orders them
 * as the numbers they are. */
static int cmp_ss(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    const struct sockaddr_in6 *x6 = (const void *)a, *y6 = (const void *)b;
    int c = 0;

    if (a->ss_family != b->ss_family)
        return a->ss_family < b->ss_family ? -1 : 1;
    if (a->ss_family == AF_INET && !(c = memcmp(&x->sin_addr, &y->sin_addr, sizeof x->sin_addr)))
        c = memcmp(&x->sin_port, &y->sin_port, sizeof x->sin_port);
    if (a->ss_family == AF_INET6 && !(c = memcmp(&x6->sin6_addr, &y6->sin6_addr, sizeof x6->sin6_addr)))
        c = memcmp(&x6->sin6_port, &y6->sin6_port, sizeof x6->sin6_port);
    return c;
}

int gather_agent_cmp(const void *pa, const void *pb)
{
    const struct gather_agent *a = pa, *b = pb;
    int c;
    if ((c = strcmp(a->welcome.labels, b->welcome.labels)) != 0)
        return c;
    if ((c = strcmp(a->welcome.host, b->welcome.host)) != 0)
        return c;
    return cmp_ss(&a->ss, &b->ss);
}

/* Hand the joined peers over (fds dup'ed, fleet filled); close the rest. */
static void hand_over(struct gather *g, struct gather_fleet *f)
{
    uint32_t k = 0;

    f->agents = xcalloc(g->njoined ? g->njoined : 1, sizeof *f->agents);
    for (struct peer *q = g->h.l.peers, *next; q; q = next) {
        struct gpeer *p = gp(q);
        next = q->next;
        if (p->state != G_JOINED) {
            peer_close(&p->peer, "the wait is over");
            continue;
        }
        if (agent_accept_take(&q->tcp, &q->rd, &p->a, &f->agents[k]) == 0)
            k++;
        p->state = G_HELLO;      /* leaves without "agent left" */
        g->njoined--;
        peer_close(&p->peer, "handed to the run");
    }
    f->n = k;
    qsort(f->agents, f->n, sizeof *f->agents, gather_agent_cmp);
    gather_fleet_names(f);
}

void gather_fleet_names(struct gather_fleet *f)
{
    f->addrs = xcalloc(f->n ? f->n : 1, sizeof *f->addrs);
    f->labels = xcalloc(f->n ? f->n : 1, sizeof *f->labels);
    for (uint32_t i = 0; i < f->n; i++) {
        f->addrs[i] = xstrdup(f->agents[i].addr);
        f->labels[i] = f->agents[i].welcome.labels[0] ? xstrdup(f->agents[i].welcome.labels) : NULL;
    }
}

static int unflushed(struct gather *g)
{
    for (struct peer *q = g->h.l.peers; q; q = q->next)
        if (gp(q)->state == G_JOINED && uv_stream_get_write_queue_size((uv_stream_t *)&q->tcp) > 0)
            return 1;
    return 0;
}

/* No run: every peer goes, without an "agent left" line each. */
static void drop_all(struct gather *g, const char *why)
{
    for (struct peer *q = g->h.l.peers, *next; q; q = next) {
        next = q->next;
        gp(q)->state = G_HELLO;
        peer_close(q, why);
    }
}

int gather_agents(const struct gather_options *o, struct gather_fleet *f, char *err, size_t errlen)
{
    struct gather *g = xcalloc(1, sizeof *g);
    uint32_t need = o->min_agents ? o->min_agents : o->expect;
    int rc;

    memset(f, 0, sizeof *f);
    g->o = o;
    agent_accept_loop_open(&g->h, &gather_ops, g);
    g->h.l.why_big_stranger = "not an nfstorm agent (frame over the pre-auth cap)";
    g->h.l.why_big = "frame over the limit before the run";
    g->h.l.why_held = "sent too much before the run";
    if ((rc = listener_start(&g->h.l, &g->h.loop, o->listen, err, errlen)) < 0)
        goto out;
    g->t_start_ns = clock_now_ns();
    glog(g, "listening on %s for %u agent%s (up to %.3g s)", o->listen, o->expect,
         o->expect == 1 ? "" : "s", (double)o->timeout_ms / 1000.0);
    g->h.last_tick_ns = clock_now_ns();      /* a stop before the first tick is a stall too */
    uv_timer_start(&g->h.tick, on_tick, GATHER_TICK_MS, GATHER_TICK_MS);
    uv_run(&g->h.loop, UV_RUN_DEFAULT);
    if (g->checked) {
        snprintf(err, errlen, "%s", g->check_why);
        rc = -ECHILD;
        drop_all(g, "the run cannot start");
    } else if (g->njoined < need) {
        size_t len = (size_t)snprintf(err, errlen, "expected %u agent%s, %u joined within %.3gs%s",
                                      o->expect, o->expect == 1 ? "" : "s", g->njoined,
                                      (double)o->timeout_ms / 1000.0, g->njoined ? ":" : "");
        int first = 1;
        for (struct peer *q = g->h.l.peers; q && len < errlen; q = q->next)
            if (gp(q)->state == G_JOINED) {
                len += (size_t)snprintf(err + len, errlen - len, "%s %s (%s)", first ? "" : ",",
                                        peer_host(gp(q)), gp(q)->a.addr);
                first = 0;
            }
        if (o->min_agents && len < errlen)
            snprintf(err + len, errlen - len, " (--min-agents %u)", o->min_agents);
        rc = -ETIMEDOUT;
        drop_all(g, "too few agents");
    } else {
        /* our last auth and pings must be on the wire before the handles go */
        for (int i = 0; i < 100 && unflushed(g); i++) {
            uv_run(&g->h.loop, UV_RUN_NOWAIT);
            usleep(1000);
        }
        if (g->njoined < o->expect)
            glog(g, "%u of %u agents joined within %.3g s: running with them (--min-agents %u)",
                 g->njoined, o->expect, (double)o->timeout_ms / 1000.0, o->min_agents);
        hand_over(g, f);
        rc = 0;
    }
out:
    agent_accept_loop_close(&g->h);
    free(g);
    return rc;
}

void gather_free(struct gather_fleet *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->agents[i].fd >= 0)
            close(f->agents[i].fd);
        buf_free(&f->agents[i].rx);
        if (f->addrs)
            free(f->addrs[i]);
        if (f->labels)
            free(f->labels[i]);
    }
    free(f->agents);
    free(f->addrs);
    free(f->labels);
    memset(f, 0, sizeof *f);
}
