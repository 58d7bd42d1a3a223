/* gather: the coordinator that waits for agents to dial in.
 *
 * `nfstorm run --listen ADDR:PORT --expect N` listens instead of dialling.
 * Each connection gets the same handshake a dialling coordinator makes
 * (we send hello, the agent's welcome proves the secret, our auth proves
 * it back: the TCP direction is all that changes), and an agent counts as
 * joined once its proof matched.  When N have joined (or the timeout came
 * and at least --min-agents did), the listener closes and the joined
 * connections are handed to run.c as if it had dialled them, sorted by
 * (labels, host, address) so agent indices, hence ${agent}, mean the same
 * thing run after run.
 *
 * Strangers are cheap here as on an agent (docs/security.md): until its
 * welcome proved the secret a peer may send one frame of at most
 * FRAME_PREAUTH_MAX bytes within GATHER_HELLO_TIMEOUT_MS; at most
 * GATHER_MAX_PENDING such peers wait at once, GATHER_MAX_PENDING_PER_ADDR
 * from one address, a newcomer over a cap evicting the oldest.  A peer
 * refused (wrong secret, --insecure agent, wrong version, not nfstorm)
 * never counts and is told why in an error message.
 *
 * While waiting, joined agents get a ping a second (their lease) and their
 * own pings are answered; the bytes they send after our auth (their
 * `system` frame) are kept and replayed into the run.  The wait runs on a
 * libuv loop of its own; run_execute makes another. */
#ifndef NFSTORM_GATHER_H
#define NFSTORM_GATHER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msg.h"

#define GATHER_HELLO_TIMEOUT_MS    5000u
#define GATHER_MAX_PENDING         256
#define GATHER_MAX_PENDING_PER_ADDR 64
#define GATHER_RX_MAX              (16u << 10)   /* kept post-auth bytes per agent */
#define GATHER_DEFAULT_TIMEOUT_MS  60000u

struct gather_options {
    const char *listen;           /* "ADDR:PORT" */
    uint32_t expect;              /* N, >= 1 */
    uint32_t min_agents;          /* 0: N are needed */
    uint32_t timeout_ms;          /* --expect-timeout */
    uint32_t agent_timeout_ms;    /* a joined agent silent this long leaves */
    int control_tos;              /* --control-tos (net/ctlsock.h), set on each accepted agent */
    const struct auth_secret *secret;  /* required */
    FILE *log;                    /* "agent joined: ..." lines; NULL: quiet */
    /* Polled on every tick of the wait (NULL: never): nonzero ends the
     * wait at once and gather_agents fails with -ECHILD, err holding what
     * check wrote (`--spawn ssh`: which host's ssh ended, and why). */
    int (*check)(void *arg, char *err, size_t errlen);
    void *check_arg;
};

/* One joined agent, authenticated, its connection handed over. */
struct gather_agent {
    int fd;                       /* the connected socket (run.c owns it then) */
    char addr[64];                /* "IP:PORT" of the agent's end */
    struct sockaddr_storage ss;
    struct msg_welcome welcome;   /* host, ncpus, labels, ... */
    struct buf rx;                /* bytes it sent after our auth, unparsed by run.c yet */
};

struct gather_fleet {
    struct gather_agent *agents;  /* sorted: labels, host, address */
    uint32_t n;
    char **addrs;                 /* xmalloc'd copies of agents[i].addr */
    char **labels;                /* agents[i].welcome.labels, NULL when none */
};

/* Listen and wait.  0 with fleet filled (caller frees with gather_free,
 * after handing the fds to the run or closing them; addrs and labels may
 * be taken over: set them NULL first).  -ETIMEDOUT when fewer than needed
 * joined by the timeout, -EADDRINUSE etc. when the listener cannot start,
 * -EINVAL for a bad address, -ECHILD when o->check ended the wait: each
 * with a one-line reason in err. */
int gather_agents(const struct gather_options *o, struct gather_fleet *fleet, char *err, size_t errlen);

/* Sort order of joined agents (qsort comparator over struct gather_agent). */
int gather_agent_cmp(const void *a, const void *b);
/* fleet's addrs and labels from its agents[0..n) (serve's runs too). */
void gather_fleet_names(struct gather_fleet *fleet);

void gather_free(struct gather_fleet *fleet);

#endif
