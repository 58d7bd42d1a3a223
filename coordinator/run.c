/* run: the coordinator's state machine (see run.h).
 *
 * Per agent:  CONNECTING -> HELLO -> SYNCING (pings) -> PLANNED
 *             -> per phase: READY -> RUNNING -> DONE
 * The run advances a phase only when every agent reached the same step,
 * so all agents start each phase together.  Start instant: now + a margin
 * of several round trips, expressed in each agent's clock with the offset
 * measured from the ping with the smallest round trip (NTP's rule: that
 * sample bounds the offset's error by half its RTT). */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>
#include "common/clock.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/run.h"
#include "proto/frame.h"
#include "proto/msg.h"

#define NPINGS          8
#define START_MARGIN_NS (200 * 1000000ull)
#define READ_CHUNK      (64 * 1024)

enum conn_state { C_CONNECTING, C_HELLO, C_SYNCING, C_PLANNED, C_READY, C_RUNNING, C_DONE };

struct run;

struct conn {
    struct run *run;
    uint32_t id;
    const char *addr;
    uv_tcp_t tcp;
    uv_connect_t connect;
    int open;
    enum conn_state state;
    struct frame_reader rd;
    char rbuf[READ_CHUNK];
    uint32_t pings;
    uint64_t best_rtt;
    int64_t offset;
    uint32_t phase;            /* the phase this agent is in */
    uint32_t next_k;           /* intervals arrive in order: this bounds what
                                  an agent can make us allocate */
};

struct run {
    const struct plan *plan;
    const struct run_options *opt;
    struct run_result *res;
    uv_loop_t loop;
    uv_timer_t timeout;
    struct conn *c;
    uint32_t n;
    uint32_t phase;
    uint32_t printed;          /* intervals of this phase printed */
    int failed;
    int finished;
    char *err;
    size_t errlen;
};

struct write_req {
    uv_write_t req;
    struct buf b;
};

static void on_written(uv_write_t *req, int status)
{
    struct write_req *w = (struct write_req *)req;
    (void)status;
    buf_free(&w->b);
    free(w);
}

static void conn_send(struct conn *c, struct buf *b)
{
    struct write_req *w = xmalloc(sizeof *w);
    w->b = *b;
    uv_buf_t ub = uv_buf_init(w->b.data, (unsigned)w->b.len);
    if (!c->open || uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, on_written) < 0) {
        buf_free(&w->b);
        free(w);
    }
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

/* Close everything; the loop then runs dry and run_execute returns. */
static void run_shutdown(struct run *r)
{
    if (r->finished)
        return;
    r->finished = 1;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->c[i].open) {
            r->c[i].open = 0;
            uv_read_stop((uv_stream_t *)&r->c[i].tcp);
            uv_close((uv_handle_t *)&r->c[i].tcp, on_closed);
        }
    }
    uv_close((uv_handle_t *)&r->timeout, on_closed);
}

static void run_fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_fail(struct run *r, const char *fmt, ...)
{
    va_list ap;
    if (r->failed || r->finished)
        return;
    r->failed = 1;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    /* tell the others to stop I/O before we hang up */
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->c[i].open && r->c[i].state >= C_PLANNED) {
            struct msg_stop m;
            struct buf b;
            snprintf(m.reason, sizeof m.reason, "%s", r->err);
            buf_init(&b);
            msg_stop_encode(&b, &m);
            conn_send(&r->c[i], &b);
        }
    }
    run_shutdown(r);
}

static int all_in(struct run *r, enum conn_state st)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->c[i].state != st || r->c[i].phase != r->phase)
            return 0;
    return 1;
}

static void send_ping(struct conn *c)
{
    struct msg_ping m = { .seq = c->pings, .t_ns = clock_now_ns() };
    struct buf b;
    buf_init(&b);
    msg_ping_encode(&b, &m);
    conn_send(c, &b);
}

static void send_plans(struct run *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        struct msg_plan m = { .agent_index = i, .nagents = r->n,
                              .interval_ms = r->opt->interval_ms, .plan = *r->plan };
        struct buf b;
        buf_init(&b);
        msg_plan_encode(&b, &m);
        conn_send(&r->c[i], &b);
        r->c[i].state = C_PLANNED;
        r->c[i].phase = 0;
    }
    /* layout may take long; the connect/handshake timeout is over */
    uv_timer_stop(&r->timeout);
}

static void start_phase(struct run *r)
{
    uint64_t max_rtt = 0, t0;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->c[i].best_rtt > max_rtt)
            max_rtt = r->c[i].best_rtt;
    t0 = clock_now_ns() + START_MARGIN_NS + 4 * max_rtt;
    for (uint32_t i = 0; i < r->n; i++) {
        struct msg_start m = { .phase = r->phase, .t0_ns = (uint64_t)((int64_t)t0 + r->c[i].offset) };
        struct buf b;
        buf_init(&b);
        msg_start_encode(&b, &m);
        conn_send(&r->c[i], &b);
        r->c[i].state = C_RUNNING;
        r->c[i].next_k = 0;
    }
    r->printed = 0;
    for (uint32_t i = 0; i < r->opt->nobservers; i++)
        if (r->opt->observers[i].phase_start)
            r->opt->observers[i].phase_start(r->opt->observers[i].arg, r->res, r->phase);
}

/* Tell observers about every interval that all agents have now sent. */
static void notify_intervals(struct run *r)
{
    struct phase_result *ph = &r->res->phases[r->phase];
    while (r->printed < ph->nintervals && ph->intervals[r->printed].nreported == r->n) {
        for (uint32_t i = 0; i < r->opt->nobservers; i++)
            if (r->opt->observers[i].interval)
                r->opt->observers[i].interval(r->opt->observers[i].arg, r->res, r->phase, r->printed);
        r->printed++;
    }
}

static void phase_completed(struct run *r)
{
    result_phase_finish(r->res, r->phase);
    for (uint32_t i = 0; i < r->opt->nobservers; i++)
        if (r->opt->observers[i].phase_done)
            r->opt->observers[i].phase_done(r->opt->observers[i].arg, r->res, r->phase);
    if (++r->phase == r->plan->nphases) {
        run_shutdown(r);
        return;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        r->c[i].state = C_PLANNED;
        r->c[i].phase = r->phase;
    }
}

static void handle_frame(struct conn *c, const char *p, uint32_t n)
{
    struct run *r = c->run;
    char err[256];
    int type = msg_peek_type(p, n, err, sizeof err);

    if (type < 0) {
        run_fail(r, "agent %u (%s): bad message: %s", c->id, c->addr, err);
        return;
    }
    if (type == MSG_ERROR) {
        struct msg_error m;
        if (msg_error_decode(p, n, &m, err, sizeof err) < 0)
            snprintf(m.text, sizeof m.text, "agent %u (%s): unreadable error: %s", c->id, c->addr, err);
        run_fail(r, "%s", m.text);
        return;
    }
    switch (c->state) {
    case C_HELLO: {
        struct msg_welcome w;
        if (type != MSG_WELCOME || msg_welcome_decode(p, n, &w, err, sizeof err) < 0) {
            run_fail(r, "agent %u (%s): bad welcome: %s", c->id, c->addr,
                     type != MSG_WELCOME ? "unexpected message" : err);
            return;
        }
        if (w.version != PROTO_VERSION) {
            run_fail(r, "agent %u (%s): protocol version mismatch: agent speaks %u, coordinator %u",
                     c->id, c->addr, w.version, PROTO_VERSION);
            return;
        }
        struct agent_info *ai = &r->res->agents[c->id];
        snprintf(ai->host, sizeof ai->host, "%s", w.host);
        ai->ncpus = w.ncpus;
        c->state = C_SYNCING;
        send_ping(c);
        return;
    }
    case C_SYNCING: {
        struct msg_pong m;
        uint64_t now = clock_now_ns();
        if (type != MSG_PONG || msg_pong_decode(p, n, &m, err, sizeof err) < 0 || m.t_ping_ns > now) {
            run_fail(r, "agent %u (%s): bad pong", c->id, c->addr);
            return;
        }
        uint64_t rtt = now - m.t_ping_ns;
        if (c->pings == 0 || rtt < c->best_rtt) {
            c->best_rtt = rtt;
            c->offset = (int64_t)m.t_ns - (int64_t)(m.t_ping_ns + rtt / 2);
        }
        if (++c->pings < NPINGS) {
            send_ping(c);
            return;
        }
        r->res->agents[c->id].clock_offset_ns = c->offset;
        r->res->agents[c->id].rtt_ns = c->best_rtt;
        c->state = C_PLANNED;
        c->phase = 0;
        if (all_in(r, C_PLANNED))
            send_plans(r);
        return;
    }
    default:
        break;
    }
    switch (type) {
    case MSG_READY: {
        struct msg_ready m;
        if (msg_ready_decode(p, n, &m, err, sizeof err) < 0 || m.phase != r->phase ||
            c->state != C_PLANNED) {
            run_fail(r, "agent %u (%s): unexpected ready", c->id, c->addr);
            return;
        }
        c->state = C_READY;
        if (all_in(r, C_READY))
            start_phase(r);
        return;
    }
    case MSG_INTERVAL: {
        struct msg_interval *m = xmalloc(sizeof *m);
        err[0] = '\0';
        if (msg_interval_decode(p, n, m, err, sizeof err) < 0 || m->phase != r->phase ||
            c->state != C_RUNNING || m->index != c->next_k++ ||
            result_add_interval(r->res, m->phase, c->id, m->index, &m->stats) < 0) {
            run_fail(r, "agent %u (%s): bad interval: %s", c->id, c->addr, err);
            free(m);
            return;
        }
        free(m);
        notify_intervals(r);
        return;
    }
    case MSG_PHASE_DONE: {
        struct msg_phase_done *m = xmalloc(sizeof *m);
        struct agent_phase *ap = xcalloc(1, sizeof *ap);
        if (msg_phase_done_decode(p, n, m, err, sizeof err) < 0 || m->phase != r->phase ||
            c->state != C_RUNNING) {
            run_fail(r, "agent %u (%s): bad phase-done: %s", c->id, c->addr, err);
            free(m);
            free(ap);
            return;
        }
        ap->done = 1;
        ap->totals = m->totals;
        ap->duration_ns = m->duration_ns;
        ap->start_ns = (uint64_t)((int64_t)m->started_ns - c->offset);
        ap->cpu_user_s = m->cpu_user_s;
        ap->cpu_sys_s = m->cpu_sys_s;
        ap->cores = m->cores;
        ap->nintervals = m->nintervals;
        result_set_agent_phase(r->res, r->phase, c->id, ap);
        free(m);
        free(ap);
        c->state = C_DONE;
        notify_intervals(r);
        if (all_in(r, C_DONE))
            phase_completed(r);
        return;
    }
    case MSG_PONG:
        return;            /* late pong: harmless */
    default:
        run_fail(r, "agent %u (%s): unexpected message '%s'", c->id, c->addr,
                 msg_type_name((enum msg_type)type));
        return;
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    struct conn *c = h->data;
    (void)suggested;
    *b = uv_buf_init(c->rbuf, sizeof c->rbuf);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *ub)
{
    struct conn *c = st->data;
    struct run *r = c->run;
    const char *p;
    uint32_t n;
    int rc;

    if (nread < 0) {
        run_fail(r, "agent %u (%s): connection lost%s%s", c->id, c->addr,
                 nread == UV_EOF ? "" : ": ", nread == UV_EOF ? "" : uv_strerror((int)nread));
        return;
    }
    frame_reader_feed(&c->rd, ub->base, (size_t)nread);
    while (!r->finished && (rc = frame_reader_next(&c->rd, &p, &n)) != 0) {
        if (rc < 0) {
            run_fail(r, "agent %u (%s): frame larger than the limit", c->id, c->addr);
            return;
        }
        handle_frame(c, p, n);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    struct conn *c = req->data;
    struct msg_hello h = { .version = PROTO_VERSION };
    struct buf b;

    if (c->run->finished)
        return;
    if (status < 0) {
        run_fail(c->run, "cannot connect to agent %u (%s): %s", c->id, c->addr, uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    c->state = C_HELLO;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    buf_init(&b);
    msg_hello_encode(&b, &h);
    conn_send(c, &b);
}

static void on_timeout(uv_timer_t *t)
{
    struct run *r = t->data;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->c[i].state < C_PLANNED) {
            run_fail(r, "agent %u (%s): no answer within %u ms", i, r->c[i].addr,
                     r->opt->connect_timeout_ms);
            return;
        }
}

/* Resolve "host:port" (numeric or name, [v6]:port). */
static int resolve(uv_loop_t *loop, const char *addr, struct sockaddr_storage *ss, char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    size_t hl = colon ? (size_t)(colon - addr) : 0;
    uv_getaddrinfo_t gai;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    int rc;

    if (!colon || hl == 0 || hl >= sizeof host || !colon[1]) {
        snprintf(err, errlen, "agent address '%s': want HOST:PORT", addr);
        return -EINVAL;
    }
    memcpy(host, addr[0] == '[' ? addr + 1 : addr, addr[0] == '[' ? hl - 2 : hl);
    host[addr[0] == '[' ? hl - 2 : hl] = '\0';
    rc = uv_getaddrinfo(loop, &gai, NULL, host, colon + 1, &hints);
    if (rc < 0) {
        snprintf(err, errlen, "agent address '%s': %s", addr, uv_strerror(rc));
        return rc;
    }
    memcpy(ss, gai.addrinfo->ai_addr, gai.addrinfo->ai_addrlen);
    uv_freeaddrinfo(gai.addrinfo);
    return 0;
}

int run_execute(const struct plan *plan, const struct run_options *opt,
                struct run_result *result, char *err, size_t errlen)
{
    struct run r;
    int rc = 0;

    memset(&r, 0, sizeof r);
    r.plan = plan;
    r.opt = opt;
    r.res = result;
    r.n = opt->naddrs;
    r.err = err;
    r.errlen = errlen;
    result_init(result, plan, r.n, opt->interval_ms);
    result->started_unix = (int64_t)time(NULL);
    for (uint32_t i = 0; i < r.n; i++)
        snprintf(result->agents[i].addr, sizeof result->agents[i].addr, "%s", opt->addrs[i]);
    uv_loop_init(&r.loop);
    uv_timer_init(&r.loop, &r.timeout);
    r.timeout.data = &r;
    uv_timer_start(&r.timeout, on_timeout, opt->connect_timeout_ms, 0);
    r.c = xcalloc(r.n, sizeof *r.c);
    for (uint32_t i = 0; i < r.n; i++) {
        struct conn *c = &r.c[i];
        struct sockaddr_storage ss;
        c->run = &r;
        c->id = i;
        c->addr = opt->addrs[i];
        frame_reader_init(&c->rd, FRAME_MAX_PAYLOAD);
        if (r.finished)
            continue;
        if ((rc = resolve(&r.loop, c->addr, &ss, err, errlen)) < 0) {
            r.failed = 1;
            run_shutdown(&r);
            continue;
        }
        uv_tcp_init(&r.loop, &c->tcp);
        c->tcp.data = c;
        c->open = 1;
        c->connect.data = c;
        if ((rc = uv_tcp_connect(&c->connect, &c->tcp, (struct sockaddr *)&ss, on_connect)) < 0)
            run_fail(&r, "cannot connect to agent %u (%s): %s", i, c->addr, uv_strerror(rc));
    }
    uv_run(&r.loop, UV_RUN_DEFAULT);
    uv_loop_close(&r.loop);
    for (uint32_t i = 0; i < r.n; i++)
        frame_reader_free(&r.c[i].rd);
    free(r.c);
    if (r.failed)
        return rc < 0 ? rc : -EIO;
    return 0;
}
