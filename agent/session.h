/* session: the agent's side of one coordinator connection.
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
#include "agent/paths.h"
#include "proto/auth.h"

struct agent {
    uv_loop_t *loop;
    uv_tcp_t server;
    struct allow_list allow;
    struct allow_list allow_nfs;
    char host[256];
    struct session *active;       /* the coordinator being served, or NULL */
    struct session *waiting;      /* authenticated while active wound down */
    pthread_t loop_thread;        /* the thread running loop (main's) */
    char active_peer[64];
    int npending;                 /* connections not yet authenticated */
    const struct auth_secret *secret;   /* NULL: --insecure */
    uint64_t lease_ns;            /* stop I/O when the coordinator is silent this long */
    int verbose;
};

/* Accept a connection on a->server (its connection callback calls this). */
void session_accept(struct agent *a);

#endif
