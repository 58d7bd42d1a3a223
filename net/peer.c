/* peer: see peer.h.  A write owns its buffer in a small request, so owners
 * never track what is in flight: libuv calls back once per write, also
 * with UV_ECANCELED when the stream closes first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/clock.h"
#include "common/xmalloc.h"
#include "net/listener.h"
#include "net/peer.h"
#include "proto/msg.h"

#define PEER_READ_CHUNK (64 * 1024)
#define PEER_BACKLOG_MAX (1u << 20)

struct peer_write {
    uv_write_t req;
    struct buf b;
};

void peer_init(struct peer *p, uv_loop_t *loop, const struct peer_ops *ops, uint32_t frame_max)
{
    p->ops = ops;
    frame_reader_init(&p->rd, frame_max);
    uv_tcp_init(loop, &p->tcp);
    p->tcp.data = p;
    p->connect.data = p;
}

static void on_written(uv_write_t *req, int status)
{
    struct peer_write *w = (struct peer_write *)req;
    (void)status;              /* a failed write shows up as a read error or EOF */
    buf_free(&w->b);
    free(w);
}

void peer_send(struct peer *p, struct buf *b)
{
    struct peer_write *w;
    uv_buf_t ub;

    if (!p->live || !b->len) {
        buf_free(b);
        return;
    }
    w = xmalloc(sizeof *w);
    w->b = *b;
    buf_init(b);
    ub = uv_buf_init(w->b.data, (unsigned)w->b.len);
    if (uv_write(&w->req, (uv_stream_t *)&p->tcp, &ub, 1, on_written) < 0) {
        buf_free(&w->b);
        free(w);
    }
}

void peer_ping(struct peer *p, uint32_t seq, uint64_t now_ns)
{
    struct msg_ping m = { .seq = seq, .t_ns = now_ns };
    struct buf b;

    buf_init(&b);
    msg_ping_encode(&b, &m);
    peer_send(p, &b);
    p->last_ping_ns = now_ns;
}

int peer_pong(struct peer *p, const struct msg_frame *f, uint64_t now_ns, struct buf *out, char *err,
              size_t errlen)
{
    struct msg_ping pi;
    struct msg_pong po;
    struct buf b;

    if (msg_ping_decode(f, &pi, err, errlen) < 0)
        return -EBADMSG;
    po.seq = pi.seq;
    po.t_ping_ns = pi.t_ns;
    po.t_ns = now_ns;
    if (p && peer_backlogged(p))
        return 0;
    buf_init(&b);
    msg_pong_encode(p ? &b : out, &po);
    if (p)
        peer_send(p, &b);
    return 0;
}

int peer_backlogged(const struct peer *p)
{
    return uv_stream_get_write_queue_size((const uv_stream_t *)&p->tcp) > PEER_BACKLOG_MAX;
}

static void on_closed(uv_handle_t *h)
{
    struct peer *p = h->data;

    frame_reader_free(&p->rd);
    if (p->ops->on_free)
        p->ops->on_free(p);
}

void peer_close(struct peer *p, const char *why)
{
    if (p->closing)
        return;
    p->closing = 1;
    p->live = 0;
    p->ops->on_close(p, why);
    if (p->l)
        listener_forget(p->l, p);
    uv_read_stop((uv_stream_t *)&p->tcp);
    uv_close((uv_handle_t *)&p->tcp, on_closed);
}

void peer_first_said(const struct peer *p, char *out)
{
    uint32_t i;

    for (i = 0; i < p->nfirst; i++) {
        unsigned char ch = (unsigned char)p->first[i];
        out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '.';
    }
    out[i] = '\0';
}

static int over_held(struct peer *p)
{
    long held;

    return p->ops->held && (held = p->ops->held(p)) >= 0 &&
           p->rd.in.len - p->rd.pos + (size_t)held > p->held_max;
}

void peer_feed(struct peer *p, const void *bytes, size_t len)
{
    const char *pl;
    uint32_t n;
    int rc;

    if (p->closing)
        return;
    if (p->nfirst < sizeof p->first) {
        size_t k = sizeof p->first - p->nfirst < len ? sizeof p->first - p->nfirst : len;
        memcpy(p->first + p->nfirst, bytes, k);
        p->nfirst += (uint32_t)k;
    }
    frame_reader_feed(&p->rd, bytes, len);
    while ((rc = frame_reader_next(&p->rd, &pl, &n)) != 0) {
        if (rc < 0) {
            /* the stream cannot be resynchronised */
            p->err = -EMSGSIZE;
            peer_close(p, p->why_big ? p->why_big : "frame larger than the limit");
            return;
        }
        if (p->ops->on_frame(p, pl, n) || p->closing) {
            if (p->live)
                uv_read_stop((uv_stream_t *)&p->tcp);
            return;
        }
    }
    if (over_held(p)) {
        p->err = -ENOBUFS;
        peer_close(p, p->why_held);
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    /* Reads are handled whole before the next: one buffer a thread that
     * reads, made on its first read.  Not a _Thread_local array: every
     * thread of the process (an agent's 4,096 job threads) would carry
     * its 64 KiB, zeroed, so resident (t0821). */
    static _Thread_local char *rbuf;
    (void)h;
    (void)suggested;
    if (!rbuf)
        rbuf = xmalloc(PEER_READ_CHUNK);
    *b = uv_buf_init(rbuf, PEER_READ_CHUNK);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *ub)
{
    struct peer *p = st->data;

    if (nread < 0) {
        p->err = (int)nread;
        peer_close(p, nread == UV_EOF ? "connection closed" : uv_strerror((int)nread));
        return;
    }
    if (nread > 0)
        p->last_rx_ns = clock_now_ns();
    peer_feed(p, ub->base, (size_t)nread);
}

void peer_start(struct peer *p)
{
    p->live = 1;
    uv_tcp_nodelay(&p->tcp, 1);
    uv_read_start((uv_stream_t *)&p->tcp, on_alloc, on_read);
}

int peer_connect(struct peer *p, const struct sockaddr *sa, uv_connect_cb cb)
{
    int rc = uv_tcp_connect(&p->connect, &p->tcp, sa, cb);
    p->live = rc == 0;         /* sends before the connect completes wait in the queue */
    return rc;
}

int peer_open_fd(struct peer *p, int fd)
{
    int rc = uv_tcp_open(&p->tcp, fd);

    if (rc < 0) {
        p->closing = 1;
        uv_close((uv_handle_t *)&p->tcp, on_closed);
        return rc;
    }
    uv_read_start((uv_stream_t *)&p->tcp, on_alloc, on_read);
    p->live = 1;
    return 0;
}

int peer_take(struct peer *p, uint64_t now_ns, double rate, double burst)
{
    if (p->tokens_ns == 0) {
        p->tokens = burst;
    } else if (now_ns > p->tokens_ns) {
        p->tokens += (double)(now_ns - p->tokens_ns) / 1e9 * rate;
        if (p->tokens > burst)
            p->tokens = burst;
    }
    p->tokens_ns = now_ns;
    if (p->tokens < 1.0)
        return 0;
    p->tokens -= 1.0;
    return 1;
}

void peer_name(uv_tcp_t *tcp, struct sockaddr_storage *ss, char *addr, size_t addrlen)
{
    int sl = sizeof *ss;
    char ip[48] = "?";
    int port = 0;

    memset(ss, 0, sizeof *ss);
    if (uv_tcp_getpeername(tcp, (struct sockaddr *)ss, &sl) == 0) {
        if (ss->ss_family == AF_INET) {
            uv_ip4_name((struct sockaddr_in *)ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in *)ss)->sin_port);
        } else if (ss->ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in6 *)ss)->sin6_port);
        }
    }
    snprintf(addr, addrlen, ss->ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", ip, port);
}

int peer_same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
    return 0;
}
