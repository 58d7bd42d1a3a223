/* session: the agent's side of one coordinator connection.
 *
 * Runs on the agent's libuv loop: reads frames, answers hello and pings,
 * checks the plan, prepares each phase on a worker thread, starts it at the
 * agreed instant, samples stats every interval and sends them.  One session
 * is active at a time; others are told "busy" and closed.  When the
 * connection ends, any running I/O is stopped and the agent is idle again. */
#ifndef NFSTORM_SESSION_H
#define NFSTORM_SESSION_H

#include <uv.h>
#include "agent/paths.h"

struct agent {
    uv_loop_t *loop;
    uv_tcp_t server;
    struct allow_list allow;
    struct allow_list allow_nfs;
    char host[256];
    struct session *active;       /* the coordinator being served, or NULL */
    char active_peer[64];
    int verbose;
};

/* Accept a connection on a->server (its connection callback calls this). */
void session_accept(struct agent *a);

#endif
