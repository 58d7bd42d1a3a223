/* listener: see listener.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "net/addr.h"
#include "net/listener.h"

void listener_trust(struct peer *p)
{
    p->stranger = 0;
    p->why_big = p->l->why_big;
}

void listener_forget(struct listener *l, struct peer *p)
{
    struct peer **pp = &l->peers;

    while (*pp && *pp != p)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = p->next;
        l->npeers--;
    }
}

/* Over a strangers' cap: evict the oldest stranger (from ss's IP, then any). */
static void make_room(struct listener *l, const struct sockaddr_storage *ss)
{
    for (int pass = 0; pass < 2; pass++) {
        uint32_t cap = pass == 0 ? l->max_pending_per_addr : l->max_pending;
        for (;;) {
            struct peer *oldest = NULL, *quiet = NULL;
            uint32_t n = 0;
            for (struct peer *p = l->peers; p; p = p->next) {
                if (!p->stranger || (pass == 0 && !peer_same_ip(&p->ss, ss)))
                    continue;
                n++;
                oldest = p;           /* newest first: the last one seen is the oldest */
                if (l->ops->spoke && !l->ops->spoke(p))
                    quiet = p;
            }
            if (n < cap || !oldest)
                break;
            if (quiet)
                oldest = quiet;
            if (l->ops->evicting)
                l->ops->evicting(oldest, n, pass == 0);
            peer_close(oldest, "evicted: too many connections waiting to authenticate");
        }
    }
}

void listener_adopt(struct listener *l, struct peer *p)
{
    p->stranger = 1;
    p->why_big = l->why_big_stranger;
    p->held_max = l->held_max;
    p->why_held = l->why_held;
    make_room(l, &p->ss);
    p->l = l;
    p->next = l->peers;
    l->peers = p;
    l->npeers++;
    p->accepted_ns = p->last_rx_ns = clock_now_ns();
}

static void on_refused_closed(uv_handle_t *h)
{
    free(h);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct listener *l = server->data;
    struct peer *p;

    if (status < 0) {
        log_warn("accept: %s", uv_strerror(status));   /* EMFILE, ENFILE: said, not silent */
        return;
    }
    p = l->max_peers && l->npeers >= l->max_peers ? NULL : l->ops->alloc(l);
    if (!p) {
        /* take it off the backlog and close it: nothing is kept */
        uv_tcp_t *refused = xmalloc(sizeof *refused);
        uv_tcp_init(server->loop, refused);
        (void)uv_accept(server, (uv_stream_t *)refused);
        uv_close((uv_handle_t *)refused, on_refused_closed);
        return;
    }
    peer_init(p, server->loop, &l->ops->peer, l->preauth_max);
    if (uv_accept(server, (uv_stream_t *)&p->tcp) < 0) {
        peer_close(p, "accept failed");
        return;
    }
    peer_name(&p->tcp, &p->ss, p->addr, sizeof p->addr);
    listener_adopt(l, p);
    peer_start(p);
    l->ops->on_open(p);
}

int listener_start(struct listener *l, uv_loop_t *loop, const char *listen, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    int rc;

    uv_tcp_init(loop, &l->server);
    l->server.data = l;
    if (addr_parse_listen(listen, &ss) < 0) {
        snprintf(err, errlen, "--listen %s: want ADDR:PORT (a numeric address)", listen);
        return -EINVAL;
    }
    if ((rc = uv_tcp_bind(&l->server, (const struct sockaddr *)&ss, 0)) < 0 ||
        (rc = uv_listen((uv_stream_t *)&l->server, 511, on_connection)) < 0)
        snprintf(err, errlen, "cannot listen on %s: %s", listen, uv_strerror(rc));
    return rc;
}

void listener_close(struct listener *l, uv_close_cb cb)
{
    uv_close((uv_handle_t *)&l->server, cb);
}
