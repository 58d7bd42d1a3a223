/* agent_accept: see agent_accept.h.  Written once for gather.c and
 * serve.c, which each kept a copy of these steps; the state machines stay
 * theirs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "coordinator/fleet/agent_accept.h"
#include "common/clock.h"
#include "common/stall.h"
#include "coordinator/result/result.h"
#include "net/peer.h"
#include "proto/msg_version.h"

int agent_accept_check_welcome(const struct auth_secret *secret, const struct agent_accept_role *role,
                               const unsigned char cnonce[AUTH_NONCE_LEN], struct msg_welcome *w,
                               char *why, size_t whylen)
{
    char err[256];

    if (!w->auth) {
        snprintf(why, whylen, "the agent does not authenticate (--insecure): %s takes only agents "
                 "that prove the secret", role->taker);
        return -EACCES;
    }
    if (!auth_check(secret, AUTH_AGENT, cnonce, w->nonce, w->mac)) {
        snprintf(why, whylen, "authentication failed: the agent's proof does not match the %s's secret",
                 role->owner);
        return -EACCES;
    }
    result_clean_text(w->host);           /* printed, and kept in the result */
    if (msg_labels_check(w->labels, err, sizeof err) < 0) {
        snprintf(why, whylen, "bad labels: %s", err);
        return -EACCES;
    }
    return 0;
}

int agent_accept_other_version(const struct agent_accept_role *role, const struct msg_frame *f,
                               const char *addr, char *line, size_t linelen, struct buf *out)
{
    char err[256];
    uint32_t v = 0;

    if (msg_version_peek(f, &v, err, sizeof err) < 0 || v == PROTO_VERSION)
        return 0;
    msg_version_refusal(line, linelen, "agent", addr, v, role->owner);
    msg_version_error_encode(out, role->owner, "agent", v);
    return 1;
}

void agent_accept_auth_reply(const struct auth_secret *secret, const unsigned char cnonce[AUTH_NONCE_LEN],
                             const struct msg_welcome *w, struct buf *out)
{
    struct msg_auth am;

    auth_proof(secret, AUTH_COORDINATOR, cnonce, w->nonce, am.mac);
    msg_auth_encode(out, &am);
}

int agent_accept_idle_frame(int type, const struct msg_frame *f, struct buf *kept, int *have_system,
                            uint64_t now_ns, struct buf *reply, char *why, size_t whylen)
{
    unsigned char hdr[FRAME_HEADER_LEN];

    switch (type) {
    case MSG_SYSTEM:
        if (*have_system) {
            snprintf(why, whylen, "sent system twice");
            return -EBADMSG;
        }
        *have_system = 1;
        frame_put_header(hdr, (uint32_t)f->len);
        buf_append(kept, hdr, sizeof hdr);
        buf_append(kept, f->payload, f->len);
        return 1;
    case MSG_PING:
        return peer_pong(NULL, f, now_ns, reply, why, whylen) < 0 ? -EBADMSG : 1;
    case MSG_PONG:
        return 1;
    default:
        return 0;
    }
}

int agent_accept_take(uv_tcp_t *tcp, const struct frame_reader *rd, const struct gather_agent *src,
                      struct gather_agent *dst)
{
    uv_os_fd_t fd;
    int rc = uv_fileno((uv_handle_t *)tcp, &fd), copy;

    if (rc != 0)
        return rc;
    if ((copy = dup(fd)) < 0)
        return -errno;
    dst->fd = copy;
    memcpy(dst->addr, src->addr, sizeof dst->addr);
    dst->ss = src->ss;
    dst->welcome = src->welcome;
    buf_init(&dst->rx);
    buf_append(&dst->rx, src->rx.data, src->rx.len);
    buf_append(&dst->rx, rd->in.data + rd->pos, rd->in.len - rd->pos);
    return 0;
}

int agent_dial_hello(unsigned char cnonce[AUTH_NONCE_LEN], struct buf *out)
{
    struct msg_hello h = { .version = PROTO_VERSION };

    if (auth_nonce(cnonce) < 0)
        return -EIO;
    memcpy(h.nonce, cnonce, sizeof h.nonce);
    msg_hello_encode(out, &h);
    return 0;
}

int agent_dial_welcome(const struct auth_secret *secret, const unsigned char cnonce[AUTH_NONCE_LEN],
                       const char *addr, int type, const struct msg_frame *f, struct msg_welcome *w,
                       struct buf *out, char *why, size_t whylen, int *named)
{
    static const struct agent_accept_role role = { "", "coordinator", "" };
    char err[256];

    *named = 0;
    /* its version first: another version's welcome may not decode here */
    if (type == MSG_WELCOME && agent_accept_other_version(&role, f, addr, why, whylen, out)) {
        *named = 1;
        return -EPROTO;
    }
    if (type != MSG_WELCOME || msg_welcome_decode(f, w, err, sizeof err) < 0) {
        snprintf(why, whylen, "bad welcome: %s", type != MSG_WELCOME ? "unexpected message" : err);
        return -EBADMSG;
    }
    if (w->auth != !!secret) {
        snprintf(why, whylen, "%s", w->auth ? "the agent requires authentication: give --secret-file"
                 : "the agent does not authenticate (is it running --insecure?); refusing it "
                   "because --secret-file was given");
        return -EBADMSG;
    }
    if (!secret)
        return 0;
    if (!auth_check(secret, AUTH_AGENT, cnonce, w->nonce, w->mac)) {
        struct msg_error e;
        snprintf(e.text, sizeof e.text, "authentication failed: the agent's proof does not match the "
                 "coordinator's secret");
        msg_error_encode(out, &e);
        snprintf(why, whylen, "authentication failed: the agent's proof does not match our secret "
                 "(different --secret-file?)");
        return -EACCES;
    }
    agent_accept_auth_reply(secret, cnonce, w, out);
    return 0;
}

void agent_accept_log(FILE *log, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    if (!log)
        return;
    fputs(prefix, log);
    va_start(ap, fmt);
    vfprintf(log, fmt, ap);
    va_end(ap);
    fputc('\n', log);
    fflush(log);
}

void agent_accept_peer_open(struct peer *q, struct gather_agent *a, unsigned char cnonce[AUTH_NONCE_LEN])
{
    struct buf b;

    a->ss = q->ss;
    snprintf(a->addr, sizeof a->addr, "%s", q->addr);
    buf_init(&b);
    if (agent_dial_hello(cnonce, &b) < 0) {
        buf_free(&b);
        peer_close(q, "no randomness for the handshake nonce");
        return;
    }
    peer_send(q, &b);
}

void agent_accept_peer_refuse(struct peer *q, const char *text)
{
    struct msg_error e;
    struct buf b;
    snprintf(e.text, sizeof e.text, "%s", text);
    buf_init(&b);
    msg_error_encode(&b, &e);
    peer_send(q, &b);
    peer_close(q, text);
}

int agent_accept_peer_welcome(struct peer *q, const struct auth_secret *secret, const struct agent_accept_role *role,
                              FILE *log, const unsigned char cnonce[AUTH_NONCE_LEN], struct gather_agent *a,
                              int type, const struct msg_frame *f, const char *full)
{
    char err[256], line[MSG_TEXT_MAX];
    struct buf b;

    /* another version's welcome may lack what ours requires: its version
     * is read first, and the refusal names both */
    buf_init(&b);
    if (type == MSG_WELCOME && agent_accept_other_version(role, f, a->addr, line, sizeof line, &b)) {
        agent_accept_log(log, role->log_prefix, "refused: %s", line);
        peer_send(q, &b);
        peer_close(q, line);
        return -EPROTO;
    }
    if (type != MSG_WELCOME || msg_welcome_decode(f, &a->welcome, err, sizeof err) < 0) {
        peer_close(q, "not an nfstorm agent (bad welcome)");
        return -EBADMSG;
    }
    if (agent_accept_check_welcome(secret, role, cnonce, &a->welcome, line, sizeof line) < 0) {
        agent_accept_peer_refuse(q, line);
        return -EACCES;
    }
    if (full) {
        agent_accept_peer_refuse(q, full);
        return -EACCES;
    }
    agent_accept_auth_reply(secret, cnonce, &a->welcome, &b);
    peer_send(q, &b);
    listener_trust(q);
    q->last_ping_ns = clock_now_ns();
    return 0;
}

int agent_accept_peer_idle(struct peer *q, struct gather_agent *a, int *have_system, int type,
                           const struct msg_frame *f)
{
    char err[256];
    struct buf b;
    int rc;

    buf_init(&b);
    rc = agent_accept_idle_frame(type, f, &a->rx, have_system, clock_now_ns(), &b, err, sizeof err);
    if (rc < 0) {
        buf_free(&b);
        peer_close(q, err);
        return -1;
    }
    if (b.len && !peer_backlogged(q))     /* a pong, unless it does not read */
        peer_send(q, &b);
    else
        buf_free(&b);
    return rc;
}

void agent_accept_keepalive(struct peer *q, uint64_t now_ns, uint64_t stall, uint32_t timeout_ms)
{
    q->last_rx_ns = stall_forgive(q->last_rx_ns, stall, now_ns);   /* our stall is not its silence */
    if (now_ns - q->last_rx_ns > (uint64_t)timeout_ms * 1000000u)
        peer_close(q, "silent");
    else if (now_ns - q->last_ping_ns >= 1000000000ull)
        peer_ping(q, 0, now_ns);
}

void agent_accept_loop_open(struct agent_accept_loop *h, const struct listener_ops *ops, void *owner)
{
    uv_loop_init(&h->loop);
    uv_timer_init(&h->loop, &h->tick);
    h->tick.data = owner;
    h->l.ops = ops;
    h->l.owner = owner;
    h->l.max_pending = GATHER_MAX_PENDING;
    h->l.max_pending_per_addr = GATHER_MAX_PENDING_PER_ADDR;
    h->l.preauth_max = FRAME_PREAUTH_MAX;
    h->l.held_max = GATHER_RX_MAX;
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

void agent_accept_loop_close(struct agent_accept_loop *h)
{
    listener_close(&h->l, on_closed);
    uv_close((uv_handle_t *)&h->tick, on_closed);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    uv_loop_close(&h->loop);
}
