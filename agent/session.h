/* session: the agent's side of one coordinator connection, accepted
 * (the agent listens) or dialled (session_dial, for dial.c): the same
 * conversation either way, the coordinator speaking first.
 *
 * Runs on the agent's libuv loop: reads frames, answers hello and pings,
 * checks the plan, prepares each phase on a worker thread, starts it at the
 * agreed instant, samples stats every interval and sends them.  One session
 * is active at a time; others are told "busy" (after they authenticated)
 * and closed, except one that comes while the active session winds down
 * (its coordinator gone, its threads stopping): that one waits and is
 * served as soon as the agent is free.  Connections must authenticate within 5 s.  When the
 * connection ends or the coordinator is silent past the lease, any running
 * I/O is stopped and the agent is idle again. */
#ifndef NFSTORM_SESSION_H
#define NFSTORM_SESSION_H

#include <pthread.h>
#include <uv.h>
#include "agent/admit.h"
#include "agent/paths.h"
#include "net/listener.h"
#include "proto/auth.h"

struct agent {
    uv_loop_t *loop;
    /* The sessions not yet authenticated, as strangers of one listener
     * (net/listener.h): accepting coordinators with --listen, and holding
     * the dialled and detached sessions under the same caps. */
    struct listener l;
    struct allow_list allow;
    struct allow_list allow_nfs;
    char host[256];
    struct session *active;       /* the coordinator being served, or NULL */
    struct session *waiting;      /* authenticated while active wound down */
    pthread_t loop_thread;        /* the thread running loop (main's) */
    char active_peer[64];
    struct admit_limits limits;   /* the operator's own caps on a plan (--max-*) */
    const struct auth_secret *secret;   /* NULL: --insecure */
    uint64_t lease_ns;            /* stop I/O when the coordinator is silent this long */
    int control_tos;              /* --control-tos: net/ctlsock.h (CTLSOCK_TOS_NONE: off) */
    int verbose;
    int nsessions;                /* sessions not yet freed (any state) */
    char labels[256];             /* --label list, comma-separated, sent in welcome */
    uint64_t null_capacity_iops;  /* --null-capacity-iops: this agent's model server
                                     capacity, over every plan's (0: the plan's) */
    uint64_t null_swing_ns;       /* --null-capacity-swing: that capacity halved for
                                     every other span of this long (0: steady) */
    /* Called on the loop thread once a session is freed (its threads
     * joined, its handles closed): served says it became the active
     * session (the coordinator authenticated), why is the first reason it
     * ended.  agent/dial.c redials from here.  NULL: nobody cares. */
    void (*session_freed)(void *arg, int served, const char *why);
    void *session_freed_arg;
    /* Transport seam for tests/fuzz/fuzz_session.c: when set, every frame
     * the agent sends goes to send_hook (bytes valid during the call only)
     * instead of a socket.  NULL in the daemon. */
    void (*send_hook)(void *arg, const char *p, size_t n);
    void *send_hook_arg;
};

/* Strangers: connections that have not authenticated yet are few and
 * cheap.  At most this many wait at once, and at most ..._PER_ADDR from one
 * source address; a new connection over either cap evicts the oldest such
 * connection (one that has not even said hello first), so a coordinator
 * that connects always gets its turn.  Each reads frames of at most
 * FRAME_PREAUTH_MAX bytes until it has authenticated. */
#define SESSION_MAX_PENDING 16
#define SESSION_MAX_PENDING_PER_ADDR 4

/* Listen for coordinators on listen ("ADDR:PORT") with a->l: 0, or <0
 * with the one-line reason in err. */
int session_listen(struct agent *a, const char *listen, char *err, size_t errlen);

/* Dial the coordinator at sa (peer: "HOST:PORT" for logs) and serve it
 * as if it had connected to us: same handshake (the coordinator speaks
 * first), same caps and deadlines.  The session is freed as any other; a
 * failed connect ends it at once (a->session_freed says why, with served
 * 0).  Loop thread. */
struct session *session_dial(struct agent *a, const struct sockaddr *sa, const char *peer);

/* The seam without a socket (loop thread, with a->send_hook set): a
 * session as if a connection from peer had been accepted.  Bytes from the
 * "peer" go in through session_feed; session_close ends it as a hang-up
 * would.  The session is freed on the loop, when its handles have closed
 * (a->nsessions drops): until then s stays valid, also after it ended
 * itself; do not use s once a->nsessions says it is gone. */
struct session *session_open_detached(struct agent *a, const char *peer);
void session_feed(struct session *s, const void *p, size_t n);
void session_close(struct session *s);
/* 1 when no prepare or finish is queued and no job thread runs. */
int session_settled(const struct session *s);

#endif
