/* nfs_conn: one libnfs context driven by the job thread (see nfs_conn.h).
 *
 * Why poll() and not an event library: the job thread waits on nothing but
 * its own NFS sockets and two kinds of timer (libnfs's timeout tick, the
 * reconnect backoff), both of which are a comparison against the clock
 * before each wait.  A pollfd array built per wait has no registration to
 * keep in sync: libnfs reconnects by dup2()ing a new socket onto the old
 * fd number, which an epoll set silently forgets; with poll() that is a
 * non-event.  And at iodepth 1 every wake-up counts: an op costs one
 * write (sent in the wake-up that queued it, nfs_conn_flush), one poll()
 * and the reads of the reply, like fio's own nfs loop.  At higher depths
 * the requests queued between two waits leave together: with the project's
 * libnfs (rpc_set_batch_io, scripts/libnfs-batch-io.patch) queueing never
 * writes and nfs_conn_flush sends them all in one sendmsg(), and the replies
 * a wake-up finds are read a 64 KiB block at a time, not two reads each.
 * Against a libnfs without it the requests are written under TCP_CORK:
 * libnfs sends every PDU with its own send(), and on TCP_NODELAY each would
 * be a packet of its own, a cost paid per request by the client's and the
 * server's network stacks.
 *
 * Reconnects: we compare the socket's inode after a libnfs call that may
 * have replaced it.  When it changed, TCP_NODELAY is set on the new socket,
 * the engine fails what was in flight on it (hooks->lost: libnfs would
 * re-send those RPCs and hide the outage inside their latency), and events
 * are not serviced for a growing backoff: libnfs retries at once, which
 * against a restarting server would burn its retry budget in
 * microseconds.  The check costs an fstat, so it is skipped where libnfs
 * itself tells: it asks for POLLIN only while connected (POLLOUT alone
 * while a connect is in progress), and a reconnect inside nfs_service()
 * leaves it unconnected.  A service call that found the socket connected
 * and left it connected, with no error event, cannot have replaced it;
 * every other one (and every tick) looks.
 *
 * Outages: when no RPC has succeeded for server_timeout since the
 * connection was lost, the connection is dead, with a message naming the
 * server (hooks->dead). */
#include "agent/nfs_conn.h"
#include "agent/nfs_rpcstat.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>   /* rpc_queue_length, rpc_get_error */

#include "common/clock.h"

#define NFSC_TIMEOUT_MS     10000  /* RPC timeout: a dead server surfaces */
#define NFSC_RECONNECTS     20     /* while connecting in setup() */
#define NFSC_TICK_NS        (100ull * 1000000ull)  /* libnfs timeout scan */
#define NFSC_BACKOFF_MIN_MS 25
#define NFSC_BACKOFF_MAX_MS 1000
#define NFSC_SPLIT_DEFAULT  (64 * 1024)  /* if the server reports no max */

void nfs_conn_fmt(char *out, size_t outlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(out, outlen, fmt, ap);
    va_end(ap);
}

const char *nfs_conn_errtext(const struct nfs_conn *c)
{
    const char *e = c->nfs ? nfs_get_error(c->nfs) : NULL;
    return (e && *e) ? e : "unknown error";
}

int nfs_conn_errno(int rc)
{
    if (rc < 0 && rc > -4096 && rc != -1)
        return rc;
    return -EIO;
}

static const struct { const char *name; int err; } nfsc_status_map[] = {
    { "NOSPC", ENOSPC }, { "DQUOT", EDQUOT }, { "ROFS", EROFS }, { "FBIG", EFBIG },
    { "ACCESS", EACCES }, { "ACCES", EACCES }, { "PERM", EPERM }, { "STALE", ESTALE },
    { "BADHANDLE", ESTALE }, { "FHEXPIRED", ESTALE }, { "NOENT", ENOENT },
    { "EXIST", EEXIST }, { "NOTDIR", ENOTDIR }, { "ISDIR", EISDIR }, { "INVAL", EINVAL },
    { "NAMETOOLONG", ENAMETOOLONG }, { "NOTEMPTY", ENOTEMPTY }, { "IO", EIO },
    { "NXIO", ENXIO }, { "XDEV", EXDEV }, { "MLINK", EMLINK }, { "DELAY", EAGAIN },
    { "JUKEBOX", EAGAIN }, { "GRACE", EAGAIN }, { "NOTSUPP", EOPNOTSUPP },
    { "SERVERFAULT", EREMOTEIO }, { "LOCKED", EAGAIN },
};

int nfs_conn_status_errno(const struct nfs_conn *c, int status)
{
    const char *e = c->nfs ? nfs_get_error(c->nfs) : NULL;
    const char *p = e ? strstr(e, "ERR_") : NULL;
    if (p && p - e >= 4 && strncmp(p - 4, "NFS", 3) == 0) {
        char name[24];
        size_t n = strspn(p + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        if (n < sizeof name) {
            memcpy(name, p + 4, n);
            name[n] = '\0';
            for (size_t i = 0; i < sizeof nfsc_status_map / sizeof nfsc_status_map[0]; i++)
                if (strcmp(name, nfsc_status_map[i].name) == 0)
                    return -nfsc_status_map[i].err;
        }
    }
    return nfs_conn_errno(status);
}

int nfs_conn_url_arg(const char *url, const char *key, char *out, size_t outlen)
{
    const char *q = strchr(url, '?');
    size_t klen = strlen(key);
    while (q) {
        q++;
        if (strncmp(q, key, klen) == 0 && q[klen] == '=') {
            const char *v = q + klen + 1;
            size_t n = strcspn(v, "&");
            if (n >= outlen)
                n = outlen - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return 0;
        }
        q = strchr(q, '&');
    }
    return -ENOENT;
}

/* The host part of "nfs://HOST[:port]/export?..." (a bracketed IPv6
 * address keeps its brackets), for messages and the reachability probe. */
static void nfsc_url_server(const char *url, char *out, size_t outlen)
{
    const char *h = strncmp(url, "nfs://", 6) == 0 ? url + 6 : url;
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, h, n);
    out[n] = '\0';
}

/* libnfs's message is a prefix with nothing after it ("mount_cb: "), as
 * when the portmapper answers for a server whose NFS service is gone. */
static int nfsc_said_nothing(const char *e)
{
    size_t n = strlen(e);
    while (n > 0 && e[n - 1] == ' ')
        n--;
    return n > 0 && e[n - 1] == ':';
}

/* libnfs's sync mount reports a failed connect only as "nfs_service
 * failed".  When it fails, try a plain TCP connect to the port it used
 * (nfsport, else 2049 for v4 and the portmapper for v3) so the message
 * says why: <0 with the reason in why if that port cannot be reached. */
static int nfsc_probe(const struct nfs_conn *c, char *why, size_t whylen)
{
    char port[16], host[128];
    if (nfs_conn_url_arg(c->url, c->v4 ? "nfsport" : "mountport", port, sizeof(port)) != 0 &&
        nfs_conn_url_arg(c->url, "nfsport", port, sizeof(port)) != 0)
        snprintf(port, sizeof(port), "%s", c->v4 ? "2049" : "111");
    snprintf(host, sizeof(host), "%s", c->server);
    if (host[0] == '[') {              /* [::1] -> ::1 */
        size_t n = strlen(host);
        memmove(host, host + 1, n);
        if (n >= 2 && host[n - 2] == ']')
            host[n - 2] = '\0';
    }
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0) {
        nfs_conn_fmt(why, whylen, "cannot resolve %s: %s", host, gai_strerror(rc));
        return -EHOSTUNREACH;
    }
    int err = ECONNREFUSED;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        struct timeval tv = { .tv_sec = 5 };
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        rc = connect(fd, a->ai_addr, a->ai_addrlen);
        err = rc == 0 ? 0 : errno;
        close(fd);
        if (rc == 0)
            break;
    }
    freeaddrinfo(ai);
    if (err == 0)
        return 0;
    nfs_conn_fmt(why, whylen, "server %s unreachable: cannot connect to port %s: %s",
             c->server, port, strerror(err));
    return -err;
}

int nfs_conn_open(struct nfs_conn *c, const struct nfs_conn_cfg *cfg)
{
    memset(c, 0, sizeof(*c));
    c->url = cfg->url;
    c->v4 = cfg->v4;
    c->index = cfg->index;
    c->err = cfg->err;
    c->errlen = cfg->errlen;
    c->hooks = cfg->hooks;
    c->owner = cfg->owner;
    c->server_timeout_ns = cfg->server_timeout_ns;
    nfsc_url_server(c->url, c->server, sizeof(c->server));

    c->nfs = nfs_init_context();
    if (!c->nfs) {
        nfs_conn_fmt(c->err, c->errlen, "%s: cannot create an NFS context", c->url);
        return -ENOMEM;
    }
    /* every RPC of the context is timed, from the mount on */
    nfs_rpcstat_attach(cfg->rpcstat, nfs_get_rpc_context(c->nfs));
#ifdef LIBNFS_RPC_BATCH_IO
    /* the project's libnfs (scripts/libnfs-batch-io.patch): what queue()
     * starts waits for nfs_conn_flush, which sends it all in one sendmsg,
     * and replies are read a block at a time (see the top) */
    rpc_set_batch_io(nfs_get_rpc_context(c->nfs), 1);
#endif
    /* Our defaults first, so arguments in the URL (parsed next) win. */
    nfs_set_timeout(c->nfs, NFSC_TIMEOUT_MS);
    nfs_set_autoreconnect(c->nfs, NFSC_RECONNECTS);
    if (c->v4 && cfg->client_name)
        nfs4_set_client_name(c->nfs, cfg->client_name);

    struct nfs_url *url = nfs_parse_url_dir(c->nfs, c->url);
    if (!url || !url->server || !url->path) {
        if (url)
            nfs_destroy_url(url);
        nfs_conn_fmt(c->err, c->errlen, "%s: bad NFS URL: %s", c->url, nfs_conn_errtext(c));
        return -EINVAL;
    }
    int rc = nfs_mount(c->nfs, url->server, url->path);
    nfs_destroy_url(url);
    if (rc != 0) {
        nfs_conn_after_sync_failure(c);
        rc = nfs_conn_errno(rc);
        char why[256];
        if (nfsc_probe(c, why, sizeof(why)) < 0)
            nfs_conn_fmt(c->err, c->errlen, "%s: mount failed: %s", c->url, why);
        else
            nfs_conn_fmt(c->err, c->errlen, "%s: mount failed: %s%s", c->url, nfs_conn_errtext(c),
                     nfsc_said_nothing(nfs_conn_errtext(c))
                         ? "(no reason given: the server's port answers but its mount or NFS "
                           "service does not; is the NFS server running?)" : "");
        return rc;
    }
    c->readmax = nfs_get_readmax(c->nfs);
    c->writemax = nfs_get_writemax(c->nfs);
    if (c->readmax == 0)
        c->readmax = NFSC_SPLIT_DEFAULT;
    if (c->writemax == 0)
        c->writemax = NFSC_SPLIT_DEFAULT;
    nfs_conn_check(c);
    return 0;
}

void nfs_conn_start(struct nfs_conn *c)
{
    nfs_conn_check(c);         /* a socket replaced during setup is no outage */
    c->started = 1;
    c->next_tick_ns = clock_now_ns() + NFSC_TICK_NS;
    /* From now on a lost connection is retried until server_timeout says
     * otherwise (nfsc_check_timeout), not until a retry count runs out. */
    nfs_set_autoreconnect(c->nfs, -1);
}

void nfs_conn_close(struct nfs_conn *c)
{
    if (c->nfs)                        /* its rpcstat may go before it */
        nfs_rpcstat_attach(NULL, nfs_get_rpc_context(c->nfs));
    if (c->nfs && !c->stranded)
        nfs_destroy_context(c->nfs);   /* fails pending RPCs via callbacks */
    c->nfs = NULL;                     /* stranded: leaked, see after_sync_failure */
    c->started = 0;
}

static void nfsc_kill(struct nfs_conn *c, int err)
{
    if (c->dead)
        return;
    c->dead = 1;
    if (c->hooks && c->hooks->dead)
        c->hooks->dead(c, c->owner, err);
}

void nfs_conn_server_ok(struct nfs_conn *c)
{
    c->reconnects = 0;
    c->down_since_ns = 0;
}

void nfs_conn_rpc_sent(struct nfs_conn *c)
{
    c->rpcs_inflight++;
    c->unflushed++;
    c->rpcs_sent++;
}

void nfs_conn_rpc_done(struct nfs_conn *c, int status)
{
    c->rpcs_inflight--;
    c->last_rpc_failed = status < 0;
    if (status >= 0)
        nfs_conn_server_ok(c);
}

/* The socket libnfs uses now differs from the one we knew: a reconnect. */
static void nfsc_socket_changed(struct nfs_conn *c, int fd, ino_t ino)
{
    int reconnect = c->sock_ino != 0;
    c->sock_ino = ino;
    /* Small RPCs must not wait for Nagle; a new socket needs it again. */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (!reconnect || !c->started)
        return;
    unsigned shift = c->reconnects < 6 ? c->reconnects : 6;
    uint64_t ms = (uint64_t)NFSC_BACKOFF_MIN_MS << shift;
    if (ms > NFSC_BACKOFF_MAX_MS)
        ms = NFSC_BACKOFF_MAX_MS;
    c->reconnects++;
    c->backoff_until_ns = clock_now_ns() + ms * 1000000ull;
    if (c->down_since_ns == 0)
        c->down_since_ns = clock_now_ns();
    if (c->hooks && c->hooks->lost)
        c->hooks->lost(c, c->owner);
}

void nfs_conn_check(struct nfs_conn *c)
{
    if (!c->nfs || c->dead)
        return;
    int fd = nfs_get_fd(c->nfs);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return;                /* no socket right now: the tick services */
    if (st.st_ino != c->sock_ino)
        nfsc_socket_changed(c, fd, st.st_ino);
}

static void nfsc_give_up(struct nfs_conn *c)
{
    const char *e = rpc_get_error(nfs_get_rpc_context(c->nfs));
    nfs_conn_fmt(c->err, c->errlen,
             "NFS server %s did not answer for %.0f s (server_timeout), giving up: %s (%s)",
             c->server, (double)c->server_timeout_ns / 1e9,
             (e && *e) ? e : "connection lost", c->url);
    nfsc_kill(c, -ETIMEDOUT);
}

/* One nfs_service() call and what may follow from it. */
static void nfsc_service(struct nfs_conn *c, int revents)
{
    if (c->dead)
        return;
    int before = nfs_which_events(c->nfs);
    if (nfs_service(c->nfs, revents) < 0) {
        /* libnfs gave up (reconnect budget spent); its RPCs were failed
         * through their callbacks, new ones cannot be started. */
        const char *e = rpc_get_error(nfs_get_rpc_context(c->nfs));
        nfs_conn_fmt(c->err, c->errlen, "%s: connection failed: %s",
                 c->url, (e && *e) ? e : "connection lost");
        nfsc_kill(c, -ENOTCONN);
        return;
    }
    /* See the note at the top: connected before and after, no error. */
    int plain = revents != 0 && (revents & ~(POLLIN | POLLOUT)) == 0 &&
                (before & POLLIN) && (nfs_which_events(c->nfs) & POLLIN);
    if (!plain)
        nfs_conn_check(c);
}

void nfs_conn_flush(struct nfs_conn *c)
{
    unsigned n = c->unflushed;
    c->unflushed = 0;
    if (n == 0 || c->dead || c->backoff_until_ns)
        return;
    /* Connected (it asks for POLLIN) with something to send: write now.
     * Never while connecting: libnfs takes POLLOUT as "connect done". */
    int ev = nfs_which_events(c->nfs);
    if (!(ev & POLLIN) || !(ev & POLLOUT))
        return;
#ifdef LIBNFS_RPC_BATCH_IO
    /* batched: one sendmsg() carries them all, nothing to cork */
    int fd = -1, on = 1, off = 0;
    (void)n;
#else
    int fd = n > 1 ? nfs_get_fd(c->nfs) : -1, on = 1, off = 0;
#endif
    if (fd >= 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
    nfsc_service(c, POLLOUT);
    /* uncorking sends what is left at once; a socket replaced meanwhile
     * is a new one, never corked */
    if (fd >= 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof(off));
}

static void nfsc_tick(struct nfs_conn *c, uint64_t now)
{
    c->next_tick_ns = now + NFSC_TICK_NS;
    nfsc_service(c, 0);
    if (!c->dead && c->down_since_ns && now - c->down_since_ns >= c->server_timeout_ns)
        nfsc_give_up(c);
}

void nfs_conn_wait(struct nfs_conn *cs, unsigned n, uint64_t timeout_ns)
{
    struct pollfd pfd[NFS_CONN_MAX];
    unsigned idx[NFS_CONN_MAX];
    unsigned np = 0;
    uint64_t now = clock_now_ns();
    uint64_t until = timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;

    if (n > NFS_CONN_MAX)
        n = NFS_CONN_MAX;
    for (unsigned i = 0; i < n; i++) {
        struct nfs_conn *c = &cs[i];
        if (c->dead || !c->nfs)
            continue;
        if (c->next_tick_ns < until)
            until = c->next_tick_ns;
        if (c->backoff_until_ns) {
            if (now < c->backoff_until_ns) {
                if (c->backoff_until_ns < until)
                    until = c->backoff_until_ns;
                continue;
            }
            c->backoff_until_ns = 0;
        }
        int fd = nfs_get_fd(c->nfs);
        if (fd < 0)
            continue;
        int want = nfs_which_events(c->nfs);
        pfd[np].fd = fd;
        pfd[np].events = (short)((want & (POLLIN | POLLOUT)) ? want & (POLLIN | POLLOUT) : POLLIN);
        pfd[np].revents = 0;
        idx[np++] = i;
    }
    uint64_t wait = until > now ? until - now : 0;
    struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000ull),
                           .tv_nsec = (long)(wait % 1000000000ull) };
    int rc = ppoll(np ? pfd : NULL, np, &ts, NULL);
    if (rc > 0)
        for (unsigned k = 0; k < np; k++)
            if (pfd[k].revents)
                nfsc_service(&cs[idx[k]], pfd[k].revents);
    now = clock_now_ns();
    for (unsigned i = 0; i < n; i++)
        if (!cs[i].dead && cs[i].nfs && now >= cs[i].next_tick_ns)
            nfsc_tick(&cs[i], now);
}

/* libnfs's sync calls keep their state on the caller's stack.  When the
 * connection dies during one, it returns with its RPC still queued, and
 * nfs_destroy_context() later fails that RPC through a callback that writes
 * into the long-gone stack frame.  So after a failed sync call we compare
 * libnfs's queue with our own RPCs: anything extra is such a stranded RPC,
 * and the context must never be destroyed (we leak it: it is an error path
 * and a leak is better than a corrupted stack). */
void nfs_conn_after_sync_failure(struct nfs_conn *c)
{
    if (!c->nfs || c->stranded)
        return;
    int q = rpc_queue_length(nfs_get_rpc_context(c->nfs));
    if (q > (int)c->rpcs_inflight) {
        c->stranded = 1;
        nfsc_kill(c, -ENOTCONN);
    }
}
