/* listener: accepting peers on libuv, with the caps every listening
 * program of ours needs before a peer has proved anything.
 *
 * `run --listen` (coordinator/fleet/gather.c) and `nfstorm serve`
 * (coordinator/fleet/serve.c) accept strangers on the network: an agent that
 * dials in, a submitter.  Both need the same plumbing, written here once:
 * the accept, the peer's name, the list of open peers, one read buffer,
 * the frame loop with the reader's cap, the bytes a peer may hold, one
 * idempotent close with a reason, and the caps on strangers (at most
 * max_pending peers that have not authenticated wait at once, at most
 * max_pending_per_addr from one IP; a newcomer over a cap evicts the
 * oldest, so a flood cannot keep the real agents out).  What the peers
 * say, and what they are, stays the owner's: it embeds struct peer in its
 * own peer struct and answers through the ops table.
 *
 * Everything runs on the listener's loop thread; nothing here logs. */
#ifndef NFSTORM_LISTENER_H
#define NFSTORM_LISTENER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>
#include "proto/frame.h"

struct listener;

/* One accepted connection; embedded in the owner's struct. */
struct peer {
    uv_tcp_t tcp;                 /* tcp.data is the peer */
    struct listener *l;
    struct peer *next;            /* the listener's list, newest first */
    struct frame_reader rd;
    int closing;                  /* dropped: its handle is closing */
    int stranger;                 /* not authenticated yet: under the caps (the owner clears it) */
    struct sockaddr_storage ss;   /* zeroed when unknown */
    char addr[64];                /* "IP:PORT", "[IP6]:PORT", "?:0" */
    uint64_t accepted_ns, last_rx_ns, last_ping_ns;
};

struct listener_ops {
    /* A new peer's home: the owner's struct (zeroed) holding a struct
     * peer; NULL to refuse the connection (e.g. shutting down). */
    struct peer *(*alloc)(struct listener *l);
    /* Accepted, named and listed: say hello.  May drop p. */
    void (*on_open)(struct peer *p);
    /* One complete frame; nonzero stops reading (p was dropped). */
    int (*on_frame)(struct peer *p, const char *pl, uint32_t n);
    /* p is being dropped for why: the owner's bookkeeping and log line.
     * Called once, before p leaves the list. */
    void (*on_drop)(struct peer *p, const char *why);
    /* p's handle is closed: free the owner's struct. */
    void (*on_free)(struct peer *p);
    /* Bytes p holds besides the reader's (kept frames), or -1 when p is
     * not held to held_max. */
    long (*held)(const struct peer *p);
};

struct listener {
    uv_tcp_t server;
    const struct listener_ops *ops;
    void *owner;
    struct peer *peers;
    uint32_t npeers;
    uint32_t max_peers;           /* 0: no cap but the strangers' */
    uint32_t max_pending, max_pending_per_addr;
    uint32_t preauth_max;         /* a stranger's frame cap (the reader's until the owner raises it) */
    size_t held_max;              /* bytes a held peer may keep unread */
    const char *why_big_stranger; /* drop reasons: a stranger's frame over its cap, */
    const char *why_big;          /* anyone else's, */
    const char *why_held;         /* a held peer over held_max */
    char rbuf[64 << 10];          /* one read buffer: reads are handled whole */
};

/* Bind and listen on ss on loop; l's caps and ops set by the caller.  0,
 * or a libuv error. */
int listener_start(struct listener *l, uv_loop_t *loop, const struct sockaddr_storage *ss);

/* Close the listening socket (the peers stay); cb as for uv_close. */
void listener_close(struct listener *l, uv_close_cb cb);

/* Queue frame b to p (ownership taken; freed unsent when p is closing). */
void peer_send(struct peer *p, struct buf *b);

/* A heartbeat ping to p, stamped now. */
void peer_ping(struct peer *p, uint64_t now);

/* Close p for why (ops->on_drop sees it first); a second call does nothing. */
void peer_drop(struct peer *p, const char *why);

/* The peer of tcp into ss (zeroed when unknown) and addr ("IP:PORT",
 * "[IP6]:PORT", "?:0" when unknown). */
void peer_name(uv_tcp_t *tcp, struct sockaddr_storage *ss, char *addr, size_t addrlen);

/* 1 when a and b are the same IP (ports aside). */
int peer_same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
