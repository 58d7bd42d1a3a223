/* peer: one framed connection on libuv, the transport every program of
 * ours speaks through.
 *
 * The coordinator's run (coordinator/run/run.c) and clean
 * (coordinator/fleet/clean.c) dial agents, the submitter
 * (coordinator/fleet/pool_client.c) dials a pool, the agent's session
 * (agent/session.c) is accepted or dials out, and the listeners
 * (net/listener.h, under gather.c, serve.c and the agent's session)
 * accept strangers.  What is
 * the same for all of them lives here once: the read loop (one read buffer
 * per thread: reads are handled whole), the frame reader with its cap
 * checked before anything is buffered, the write queue (a frame is handed
 * over and freed when the kernel took it, or dropped once the peer is
 * closing), the last-heard time, a token bucket for the owners that meter
 * what a peer may send, the heartbeat (ping out, pong for every ping in),
 * and one idempotent close with a reason.  What the frames mean stays the
 * owner's: it embeds struct peer and answers through the ops table.
 *
 * Everything here runs on the loop thread of the peer's loop.  Nothing
 * here logs or makes human text beyond the close reasons the owner gave. */
#ifndef NFSTORM_PEER_H
#define NFSTORM_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>
#include "proto/frame.h"

struct msg_frame;
struct peer;
struct listener;

struct peer_ops {
    /* One complete frame: payload pl of n bytes, valid during the call
     * only.  Nonzero stops reading (the owner closed p, or must not read
     * further). */
    int (*on_frame)(struct peer *p, const char *pl, uint32_t n);
    /* p closes for why: called once, first thing in the close, with
     * p->err saying what closed it (see there).  The owner's bookkeeping;
     * calling peer_close from here does nothing. */
    void (*on_close)(struct peer *p, const char *why);
    /* p's handle is closed: the owner may free its struct.  May be NULL. */
    void (*on_free)(struct peer *p);
    /* Bytes p holds besides its reader's (kept frames), or -1 when p is
     * not held to held_max.  May be NULL (never held). */
    long (*held)(const struct peer *p);
};

/* Embedded in the owner's struct; tcp.data is the peer. */
struct peer {
    uv_tcp_t tcp;
    uv_connect_t connect;
    const struct peer_ops *ops;
    struct frame_reader rd;
    int live;                     /* tcp was initialised and is not closing */
    int closing;                  /* peer_close ran */
    int err;                      /* what closed it: 0 its owner, UV_EOF or a libuv
                                     error on the read side, -EMSGSIZE a frame over the cap,
                                     -ENOBUFS over held_max */
    uint64_t last_rx_ns;          /* when bytes last arrived (a frame crawling in over a
                                     full link is a peer still talking) */
    const char *why_big;          /* close reason for a frame over the reader's cap */
    size_t held_max;              /* bytes a held peer may keep unread */
    const char *why_held;         /* close reason over held_max */
    char first[24];               /* the first bytes it sent, to show a stranger */
    uint32_t nfirst;
    double tokens;                /* the token bucket (peer_take) */
    uint64_t tokens_ns;
    /* set by a listener that accepted the peer (net/listener.h) */
    struct listener *l;
    struct peer *next;            /* the listener's list, newest first */
    int stranger;                 /* not authenticated yet: under the caps */
    struct sockaddr_storage ss;   /* zeroed when unknown */
    char addr[64];                /* "IP:PORT", "[IP6]:PORT", "?:0" */
    uint64_t accepted_ns, last_ping_ns;
};

/* Set p up on loop (its handle initialised: only peer_close frees it)
 * with ops and the reader's cap frame_max.  It sends nothing until
 * peer_start, peer_connect or peer_open_fd; without them (a fuzzer's
 * detached peer) peer_feed works and sends are dropped. */
void peer_init(struct peer *p, uv_loop_t *loop, const struct peer_ops *ops, uint32_t frame_max);

/* Connect p to sa; cb as for uv_tcp_connect (req->data is p).  0, or a
 * libuv error (cb will not run). */
int peer_connect(struct peer *p, const struct sockaddr *sa, uv_connect_cb cb);

/* Take over the connected socket fd (ours now, closed with p) and start
 * reading.  0, or a libuv error (p is closed, fd untouched). */
int peer_open_fd(struct peer *p, int fd);

/* Connected (or accepted into p->tcp): no delay, and start reading. */
void peer_start(struct peer *p);

/* Bytes as if read from p's socket (the fuzzers' way in, and frames kept
 * from before a hand-over): frames go to on_frame; a frame over the cap
 * closes p with why_big. */
void peer_feed(struct peer *p, const void *bytes, size_t len);

/* The first bytes p sent, printable, in out (sizeof p->first + 1). */
void peer_first_said(const struct peer *p, char *out);

/* Queue frame b to p; takes ownership of b (freed once written, or unsent
 * when p is closed or closing, or b is empty). */
void peer_send(struct peer *p, struct buf *b);

/* A heartbeat ping {seq, t_ns = now_ns} to p. */
void peer_ping(struct peer *p, uint32_t seq, uint64_t now_ns);

/* 1 when over 1 MiB waits to be written to p: it does not read, so a
 * ping flood's pongs would grow the write queue without bound; they are
 * skipped (anything else queued tells it we are alive once it reads). */
int peer_backlogged(const struct peer *p);

/* The answer to the ping frame f: a pong echoing its seq and t_ns with
 * our now_ns, sent to p (or appended to out when p is NULL), unless p is
 * backlogged.  0, or -EBADMSG with the reason in err. */
int peer_pong(struct peer *p, const struct msg_frame *f, uint64_t now_ns, struct buf *out, char *err,
              size_t errlen);

/* Close p for why (on_close sees it first); a second call does nothing. */
void peer_close(struct peer *p, const char *why);

/* The token bucket: take one token at now_ns from a bucket refilled at
 * rate a second and holding at most burst (full at the first take).  1,
 * or 0 when it is empty (a flood). */
int peer_take(struct peer *p, uint64_t now_ns, double rate, double burst);

/* The peer of tcp into ss (zeroed when unknown) and addr ("IP:PORT",
 * "[IP6]:PORT", "?:0" when unknown). */
void peer_name(uv_tcp_t *tcp, struct sockaddr_storage *ss, char *addr, size_t addrlen);

/* 1 when a and b are the same IP (ports aside). */
int peer_same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
