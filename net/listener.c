/* listener: see listener.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/clock.h"
#include "common/xmalloc.h"
#include "net/conn.h"
#include "net/listener.h"

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

void peer_send(struct peer *p, struct buf *b)
{
    if (p->closing) {
        buf_free(b);
        return;
    }
    conn_write((uv_stream_t *)&p->tcp, b);
}

void peer_ping(struct peer *p, uint64_t now)
{
    struct buf b;

    buf_init(&b);
    conn_ping(&b, 0, now);
    peer_send(p, &b);
    p->last_ping_ns = now;
}

static void on_peer_closed(uv_handle_t *h)
{
    struct peer *p = h->data;
    struct listener *l = p->l;

    frame_reader_free(&p->rd);
    l->ops->on_free(p);
}

void peer_drop(struct peer *p, const char *why)
{
    struct listener *l = p->l;
    struct peer **pp = &l->peers;

    if (p->closing)
        return;
    l->ops->on_drop(p, why);
    p->closing = 1;
    while (*pp && *pp != p)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = p->next;
        l->npeers--;
    }
    uv_read_stop((uv_stream_t *)&p->tcp);
    uv_close((uv_handle_t *)&p->tcp, on_peer_closed);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    struct peer *p = h->data;
    (void)suggested;
    *b = uv_buf_init(p->l->rbuf, sizeof p->l->rbuf);
}

static int on_frame(void *arg, const char *pl, uint32_t n)
{
    struct peer *p = arg;
    return p->l->ops->on_frame(p, pl, n) || p->closing;
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *ub)
{
    struct peer *p = st->data;
    const struct listener_ops *ops = p->l->ops;
    long held;

    if (nread < 0) {
        peer_drop(p, nread == UV_EOF ? "connection closed" : uv_strerror((int)nread));
        return;
    }
    p->last_rx_ns = clock_now_ns();
    if (conn_feed_frames(&p->rd, ub->base, (size_t)nread, on_frame, p) < 0) {
        peer_drop(p, p->stranger ? p->l->why_big_stranger : p->l->why_big);
        return;
    }
    if (!p->closing && ops->held && (held = ops->held(p)) >= 0 &&
        p->rd.in.len - p->rd.pos + (size_t)held > p->l->held_max)
        peer_drop(p, p->l->why_held);
}

/* Over a strangers' cap: evict the oldest stranger (from ss's IP, then any). */
static void make_room(struct listener *l, const struct sockaddr_storage *ss)
{
    for (int pass = 0; pass < 2; pass++) {
        uint32_t cap = pass == 0 ? l->max_pending_per_addr : l->max_pending;
        for (;;) {
            struct peer *oldest = NULL;
            uint32_t n = 0;
            for (struct peer *p = l->peers; p; p = p->next) {
                if (!p->stranger || (pass == 0 && !peer_same_ip(&p->ss, ss)))
                    continue;
                n++;
                oldest = p;           /* newest first: the last one seen is the oldest */
            }
            if (n < cap || !oldest)
                break;
            peer_drop(oldest, "evicted: too many connections waiting to authenticate");
        }
    }
}

static void on_refused_closed(uv_handle_t *h)
{
    free(h);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct listener *l = server->data;
    struct peer *p;

    if (status < 0)
        return;
    p = l->max_peers && l->npeers >= l->max_peers ? NULL : l->ops->alloc(l);
    if (!p) {
        /* take it off the backlog and close it: nothing is kept */
        uv_tcp_t *refused = xmalloc(sizeof *refused);
        uv_tcp_init(server->loop, refused);
        (void)uv_accept(server, (uv_stream_t *)refused);
        uv_close((uv_handle_t *)refused, on_refused_closed);
        return;
    }
    p->l = l;
    p->stranger = 1;
    uv_tcp_init(server->loop, &p->tcp);
    p->tcp.data = p;
    frame_reader_init(&p->rd, l->preauth_max);
    if (uv_accept(server, (uv_stream_t *)&p->tcp) < 0) {
        p->closing = 1;
        uv_close((uv_handle_t *)&p->tcp, on_peer_closed);
        return;
    }
    peer_name(&p->tcp, &p->ss, p->addr, sizeof p->addr);
    make_room(l, &p->ss);
    p->next = l->peers;
    l->peers = p;
    l->npeers++;
    p->accepted_ns = p->last_rx_ns = clock_now_ns();
    uv_tcp_nodelay(&p->tcp, 1);
    uv_read_start((uv_stream_t *)&p->tcp, on_alloc, on_read);
    l->ops->on_open(p);
}

int listener_start(struct listener *l, uv_loop_t *loop, const struct sockaddr_storage *ss)
{
    int rc;

    uv_tcp_init(loop, &l->server);
    l->server.data = l;
    if ((rc = uv_tcp_bind(&l->server, (const struct sockaddr *)ss, 0)) < 0)
        return rc;
    return uv_listen((uv_stream_t *)&l->server, 511, on_connection);
}

void listener_close(struct listener *l, uv_close_cb cb)
{
    uv_close((uv_handle_t *)&l->server, cb);
}
