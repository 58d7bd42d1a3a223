/* nfs_conn: one libnfs context (one TCP connection to an NFS server) driven
 * by the job thread's own poll() loop.
 *
 * This is the libnfs <-> event-loop layer of the nfs engine
 * (agent/engine_nfs.c holds the engine's ops: files, requests, metadata).
 * It owns: creating and mounting the context, waiting for socket events
 * and servicing them, the 100 ms libnfs timeout tick, reconnect detection
 * (the socket's inode), the reconnect backoff, and the server timeout that
 * declares a silent server dead.  The engine tells it when it started an
 * RPC and when one came back (nfs_conn_rpc_sent / nfs_conn_rpc_done); it
 * tells the engine, through two hooks, when the connection was lost
 * (what was in flight on it failed) and when it is dead.  Those three
 * points -- an RPC sent, a reply arrived, the socket changed -- are where
 * per-connection telemetry belongs.
 *
 * Threads: nfs_conn_open() runs on the setup thread; after
 * nfs_conn_start() only the job thread touches the connection.  No
 * allocation and no registration with a kernel event set: nfs_conn_wait()
 * builds a pollfd array on the stack for each wait, so a reconnect that
 * dup2()s a new socket onto the old fd number needs no bookkeeping beyond
 * noticing it. */
#ifndef NFSTORM_NFS_CONN_H
#define NFSTORM_NFS_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nfs_context;
struct nfs_conn;
struct nfs_rpcstat;

#define NFS_CONN_MAX 16        /* nconnect cap: connections per job */

struct nfs_conn_hooks {
    /* The socket changed under libnfs (it reconnected): every request in
     * flight on c must be handed back failed (-ECONNRESET). */
    void (*lost)(struct nfs_conn *c, void *owner);
    /* c is dead from now on (libnfs gave up, the server was silent for
     * server_timeout, or a sync call stranded its RPC): fail everything
     * with err (-ENOTCONN, -ETIMEDOUT); the message is in c->err already
     * (unless it was stranded: then c->err is left alone). */
    void (*dead)(struct nfs_conn *c, void *owner, int err);
};

struct nfs_conn_cfg {
    const char *url;           /* nfs://host/export?args; outlives the conn */
    int v4;                    /* version=4 in the URL */
    const char *client_name;   /* NFSv4 client name (unique per context), or NULL */
    uint64_t server_timeout_ns;
    unsigned index;            /* which connection of the job, for messages */
    char *err;                 /* where one-line messages go (the job's) */
    size_t errlen;
    const struct nfs_conn_hooks *hooks;
    void *owner;
    struct nfs_rpcstat *rpcstat;   /* times every RPC of the context (agent/
                                  nfs_rpcstat.h), or NULL; outlives the conn */
};

struct nfs_conn {
    struct nfs_context *nfs;
    const char *url;
    int v4;
    unsigned index;
    char server[128];          /* host part of the URL, for messages */
    char *err;
    size_t errlen;
    const struct nfs_conn_hooks *hooks;
    void *owner;
    uint64_t server_timeout_ns;
    uint64_t readmax, writemax;    /* split sizes (the server's, else 64 KiB) */

    int started;               /* nfs_conn_start() ran: the loop drives it */
    ino_t sock_ino;            /* identity of the socket; 0 = none seen yet */
    unsigned reconnects;       /* since the last successful RPC */
    uint64_t backoff_until_ns; /* do not service socket events before this */
    uint64_t next_tick_ns;     /* next nfs_service(nfs, 0) */
    uint64_t down_since_ns;    /* when the connection was lost and nothing
                                  succeeded since; 0 = healthy */

    unsigned rpcs_inflight;    /* async RPCs of the engine libnfs holds */
    unsigned unflushed;        /* of those, started since the last flush */
    int dead;                  /* unusable: no new RPCs, no sync calls */
    int stranded;              /* a failed sync call left its RPC queued:
                                  the context must never be destroyed */
    int last_rpc_failed;       /* the latest RPC to complete failed */

    uint64_t rpcs_sent;        /* RPCs started on this connection */
    uint64_t ops;              /* engine requests started on it (nconnect) */
};

/* Create the context and mount cfg->url (sync: setup thread).  0, or
 * -errno with one line in cfg->err; the conn must be closed either way. */
int nfs_conn_open(struct nfs_conn *c, const struct nfs_conn_cfg *cfg);
/* Sync calls are over: the job thread's loop drives c from now on (a lost
 * connection is retried until server_timeout, not a retry count). */
void nfs_conn_start(struct nfs_conn *c);
/* Destroy the context (not if stranded: then it is leaked on purpose).
 * The engine closes its file handles before. Safe on a zeroed conn. */
void nfs_conn_close(struct nfs_conn *c);

/* The engine started one async RPC on c / one of them came back with
 * libnfs's status (<0 failed). */
void nfs_conn_rpc_sent(struct nfs_conn *c);
void nfs_conn_rpc_done(struct nfs_conn *c, int status);
/* An answer, even a refusal, from the server: it is there. */
void nfs_conn_server_ok(struct nfs_conn *c);

/* Before waiting: send the RPCs queued since the last flush now, in this
 * wake-up, when the socket is connected (the qd1 path: no poll round trip
 * before the write), corked when there are several so they leave in as few
 * segments as TCP can make (a batch of small requests is one packet, not
 * one per request, on both ends). */
void nfs_conn_flush(struct nfs_conn *c);
/* One wait: poll the n connections' sockets for at most timeout_ns (0:
 * just look), service what is ready and every due tick.  Never longer
 * than the next tick or backoff end, so callers loop on their own
 * condition. */
void nfs_conn_wait(struct nfs_conn *cs, unsigned n, uint64_t timeout_ns);
/* After a libnfs sync call: notice a changed socket. */
void nfs_conn_check(struct nfs_conn *c);
/* After a failed sync call: detect an RPC it left queued (see .c). */
void nfs_conn_after_sync_failure(struct nfs_conn *c);

/* snprintf for one-line messages that may be cut (a cut URL still says
 * what failed). */
__attribute__((format(printf, 3, 4)))
void nfs_conn_fmt(char *out, size_t outlen, const char *fmt, ...);
/* libnfs's last error text, never NULL. */
const char *nfs_conn_errtext(const struct nfs_conn *c);
/* libnfs sync calls return -errno, async starters -1: a plausible -errno. */
int nfs_conn_errno(int rc);
/* The errno of a failed RPC, read from libnfs's text when it names the
 * NFS status (a full export arrives as -EFAULT "...NFS3ERR_NOSPC..."). */
int nfs_conn_status_errno(const struct nfs_conn *c, int status);
/* Value of a URL query argument ("version" in "...?version=4"): 0 if set. */
int nfs_conn_url_arg(const char *url, const char *key, char *out, size_t outlen);

#endif
