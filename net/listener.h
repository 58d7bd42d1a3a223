/* listener: accepting peers on libuv, with the caps every listening
 * program of ours needs before a peer has proved anything.
 *
 * `run --listen` (coordinator/fleet/gather.c), `nfstorm serve`
 * (coordinator/fleet/serve.c) and the listening agent (agent/session.c)
 * accept strangers on the network: an agent that dials in, a submitter, a
 * coordinator.  On top of the peer layer (net/peer.h: reading,
 * framing, writing, closing) both need the same plumbing, written here
 * once: the accept, the peer's name, the list of open peers, the bytes a
 * peer may hold, and the caps on strangers (at most
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
#include "net/peer.h"

struct listener_ops {
    struct peer_ops peer;         /* every accepted peer's */
    /* A new peer's home: the owner's struct (zeroed) holding a struct
     * peer; NULL to refuse the connection (e.g. shutting down). */
    struct peer *(*alloc)(struct listener *l);
    /* Accepted, named and listed: say hello.  May close p. */
    void (*on_open)(struct peer *p);
    /* May be NULL.  Whether stranger p has said something (a stranger
     * that has not is evicted first); victim is about to be evicted, n
     * strangers waiting (from its IP when same_ip): the owner may log it
     * and close it in its own words first. */
    int (*spoke)(const struct peer *p);
    void (*evicting)(struct peer *victim, uint32_t n, int same_ip);
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
    const char *why_big_stranger; /* close reasons: a stranger's frame over its cap, */
    const char *why_big;          /* anyone else's, */
    const char *why_held;         /* a held peer over held_max */
};

/* Listen on listen ("ADDR:PORT", net/addr.h) on loop; l's caps and ops
 * set by the caller.  0, or -EINVAL / a libuv error with the one-line
 * reason in err.  Either way listener_close closes it. */
int listener_start(struct listener *l, uv_loop_t *loop, const char *listen, char *err, size_t errlen);

/* Close the listening socket (the peers stay); cb as for uv_close. */
void listener_close(struct listener *l, uv_close_cb cb);

/* p (peer_init done; p->ss its address, or zeroed) joins l's strangers, as
 * an accepted peer does: under the caps, oldest evicted over them.  For an
 * owner whose peers come some other way too (a dialled one). */
void listener_adopt(struct listener *l, struct peer *p);

/* p proved itself: off the strangers' caps, its frames over the reader's
 * cap closed with why_big from now on. */
void listener_trust(struct peer *p);

/* p (closing) leaves l's list; peer_close calls it. */
void listener_forget(struct listener *l, struct peer *p);

#endif
