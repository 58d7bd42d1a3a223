/* engine_nfs: the "nfs" I/O engine, a user-space NFSv3/v4 client (libnfs).
 *
 * Why libnfs and not a kernel mount: the agent must drive a share without
 * root mounts, with one TCP connection per job thread (so load spreads like
 * many clients), and see per-RPC latency without the page cache in between.
 * Every libnfs call of the project lives in this file.
 *
 * Threading: each job thread owns one nfs_context and one libuv loop.
 * setup() (serial, setup thread) connects, mounts and opens the files with
 * libnfs's synchronous calls, and creates the loop; after that only the job
 * thread touches them.  The I/O path (queue/reap) uses only libnfs's async
 * calls: queue() starts RPCs, reap() runs the loop, whose poll handle feeds
 * socket events to nfs_service() and whose 100 ms tick calls
 * nfs_service(nfs, 0) so libnfs's RPC timeouts fire even when the server is
 * silent.
 *
 * Reconnects: libnfs reconnects by creating a new socket and dup2()ing it
 * onto the old fd number, so the fd number never changes but the socket
 * does.  epoll (under libuv) forgets a socket when it is closed, while libuv
 * still believes it is registered and would abort() on its next
 * EPOLL_CTL_MOD.  So after every libnfs call that may touch the socket we
 * compare the socket's inode; when it changed we stop the poll handle (libuv
 * then re-adds the fd from scratch), set TCP_NODELAY on the new socket and
 * wait a growing backoff before polling it: libnfs retries immediately,
 * which against a restarting server burns its finite retry budget (we set
 * one so a dead server surfaces) in microseconds.
 *
 * Outages: libnfs (v3) re-sends the RPCs of a lost connection after it
 * reconnects, which would hide a server restart inside the latency of the
 * ops that happened to be in flight.  So when the socket changes (see
 * above) every op in flight is handed back failed (-ECONNRESET, counted as
 * an error) and its late completion is ignored; the job loop goes on
 * issuing and those ops wait for the new connection.  When no RPC has
 * succeeded for the job's server_timeout since the connection was lost,
 * the context is declared dead with a message naming the server, and the
 * job ends with what it measured until then.
 *
 * Metadata (rw=metadata): md() starts one async call (or a short chain:
 * create, write, close; lookup, rename) and runs the same loop until it
 * completes, so the reconnect handling and the server timeout above apply
 * to it too.  Creates are exclusive and a rename looks its target up first
 * and fails with EEXIST if it exists: the job never truncates, replaces or
 * removes a name it did not create (NFS has no rename that refuses an
 * existing target, so a name appearing between the lookup and the rename
 * is the one window left).
 *
 * Transfer sizes: requests larger than the server's rsize/wsize are split
 * into several RPCs and completed once, when all parts are back; the first
 * error wins.
 *
 * libnfs versions: the async API is the same in 4.x and 5.x.  4.0 cannot
 * encode NFSv4 WRITEs of ~4000 bytes or more, so when built against it we
 * refuse such jobs in setup() with a message naming the fix.  libnfs 6
 * changed pread/pwrite_async to take caller buffers (LIBNFS_API_V2); that is
 * refused at compile time rather than guessed at. */
#include "agent/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>   /* rpc_queue_length, rpc_get_error */

#if defined(LIBNFS_API_V2)
#error "libnfs >= 6 (LIBNFS_API_V2) changed the async read/write calls; engine_nfs.c supports libnfs 4.x and 5.x"
#endif

/* LIBNFS_FEATURE_MULTITHREADING first appeared in libnfs 5.0 (and is
 * unconditional in its header): without it we are on 4.x, whose NFSv4
 * WRITE encoding fails for writes of ~4000 bytes or more. */
#if defined(LIBNFS_FEATURE_MULTITHREADING)
#define NFSE_V4_WRITE_BUG 0
#else
#define NFSE_V4_WRITE_BUG 1
#endif
#define NFSE_V4_WRITE_LIMIT 4000

#define NFSE_TIMEOUT_MS     10000  /* RPC timeout: a dead server surfaces */
#define NFSE_RECONNECTS     20     /* while connecting in setup() */
#define NFSE_SERVER_TIMEOUT_NS (30ull * 1000000000ull)  /* if the spec has none */
#define NFSE_TICK_MS        100    /* libnfs timeout scan */
#define NFSE_BACKOFF_MIN_MS 25
#define NFSE_BACKOFF_MAX_MS 1000
#define NFSE_SPLIT_DEFAULT  (64 * 1024)  /* if the server reports no max */

/* One io_req in flight. */
struct nfse_op {
    struct nfse_job *j;
    struct io_req *r;
    enum io_kind kind;
    unsigned pending;          /* RPCs not back yet, + 1 while queueing */
    int result;                /* first error wins */
    int abandoned;             /* handed back failed by us (connection lost or
                                  context dead); its parts may still be in libnfs */
    int reaped;                /* an abandoned op was handed to the job loop */
    struct nfse_op *next;      /* free list or done list */
    struct nfse_op *iprev, *inext;  /* in-flight list */
    struct nfse_op *all_next;  /* every op ever allocated, for teardown */
};

/* One RPC of an op (a part of a split request). */
struct nfse_part {
    struct nfse_op *op;
    char *dst;                 /* reads: where this part's bytes go */
    uint64_t len;
    struct nfse_part *next;
    struct nfse_part *all_next;
};

/* The poll handle is bound to one fd, so it is replaced (not reused) when
 * the fd number changes; it lives in its own allocation for uv_close. */
struct nfse_poll {
    uv_poll_t h;
    int fd;
    int events;                /* UV_* events it is started with; 0 = stopped */
};

/* One metadata call (md()); heap-allocated because a late callback after
 * an abandon must find it alive.  Abandoned ones are kept until teardown. */
struct nfse_md {
    struct nfse_job *j;
    enum op_type op;
    int done, result, abandoned;
    const char *buf;           /* create: the data to write */
    uint64_t size, off, count;
    struct nfsfh *fh;
    char path[PLAN_PATH_MAX + 2], path2[PLAN_PATH_MAX + 2];
    struct nfse_md *next;      /* free list */
    struct nfse_md *all_next;
};

struct nfse_job {
    struct engine_job *ej;
    struct nfs_context *nfs;
    struct nfsfh **fh;
    uint32_t nfh;
    int v4;
    int v4_write_bug;          /* built against libnfs 4.x and this is v4 */
    uint64_t readmax, writemax;

    uv_loop_t loop;
    int loop_ok;
    uv_timer_t tick, deadline, backoff;
    int deadline_hit;
    int backing_off;
    unsigned reconnects;       /* since the last successful RPC */
    struct nfse_poll *poll;
    ino_t sock_ino;            /* identity of the socket we poll; 0 = none */

    unsigned inflight;         /* ops started, not yet done */
    struct nfse_op *ifl;       /* those ops, to fail them if the context dies */
    struct nfse_op *done_head, *done_tail;
    unsigned ndone;
    struct nfse_op *op_free, *op_all;
    struct nfse_part *part_free, *part_all;

    unsigned parts_inflight;   /* our async RPCs libnfs still holds */
    int dead;                  /* nfs_service failed: context unusable */
    int last_rpc_failed;       /* the latest RPC to complete failed (a
                                  timeout: the server may not be answering) */
    int stranded;              /* a failed sync call left its RPC queued */
    int tearing_down;          /* io_reqs may be gone: do not touch them */

    uint64_t server_timeout_ns;
    uint64_t down_since_ns;    /* uv_hrtime() when the connection was lost
                                  and nothing succeeded since; 0 = healthy */
    char server[128];          /* host part of the URL, for messages */
    struct nfse_md *md_cur;    /* the md call in flight, if any */
    struct nfse_md *md_free, *md_all;
};

static atomic_uint nfse_client_counter;

/* snprintf for text that may be cut: error lines are bounded by
 * ENGINE_ERR_MAX and a cut URL still says what failed. */
__attribute__((format(printf, 3, 4)))
static void nfse_fmt(char *out, size_t outlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(out, outlen, fmt, ap);
    va_end(ap);
}

static const char *nfse_errtext(struct nfs_context *nfs)
{
    const char *e = nfs ? nfs_get_error(nfs) : NULL;
    return (e && *e) ? e : "unknown error";
}

/* libnfs sync calls return -errno, async starters -1 (or -ENOMEM); keep
 * only plausible errnos so -1 never becomes -EPERM. */
static int nfse_errno(int rc)
{
    if (rc < 0 && rc > -4096 && rc != -1)
        return rc;
    return -EIO;
}

/* libnfs hands some failed RPCs back with an errno that lost the server's
 * answer (a full export arrives as -EFAULT), but its error text names the
 * NFS status: "... failed with NFS3ERR_NOSPC(-28)".  Read the status from
 * there so the job sees the real error. */
static const struct { const char *name; int err; } nfse_status_map[] = {
    { "NOSPC", ENOSPC }, { "DQUOT", EDQUOT }, { "ROFS", EROFS }, { "FBIG", EFBIG },
    { "ACCESS", EACCES }, { "ACCES", EACCES }, { "PERM", EPERM }, { "STALE", ESTALE },
    { "BADHANDLE", ESTALE }, { "FHEXPIRED", ESTALE }, { "NOENT", ENOENT },
    { "EXIST", EEXIST }, { "NOTDIR", ENOTDIR }, { "ISDIR", EISDIR }, { "INVAL", EINVAL },
    { "NAMETOOLONG", ENAMETOOLONG }, { "NOTEMPTY", ENOTEMPTY }, { "IO", EIO },
    { "NXIO", ENXIO }, { "XDEV", EXDEV }, { "MLINK", EMLINK }, { "DELAY", EAGAIN },
    { "JUKEBOX", EAGAIN }, { "GRACE", EAGAIN }, { "NOTSUPP", EOPNOTSUPP },
    { "SERVERFAULT", EREMOTEIO }, { "LOCKED", EAGAIN },
};

static int nfse_status_errno(struct nfs_context *nfs, int status)
{
    const char *e = nfs ? nfs_get_error(nfs) : NULL;
    const char *p = e ? strstr(e, "ERR_") : NULL;
    if (p && p - e >= 4 && strncmp(p - 4, "NFS", 3) == 0) {
        char name[24];
        size_t n = strspn(p + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        if (n < sizeof name) {
            memcpy(name, p + 4, n);
            name[n] = '\0';
            for (size_t i = 0; i < sizeof nfse_status_map / sizeof nfse_status_map[0]; i++)
                if (strcmp(name, nfse_status_map[i].name) == 0)
                    return -nfse_status_map[i].err;
        }
    }
    return nfse_errno(status);
}

/* Value of a URL query argument ("version" in "...?version=4&x=y"), copied
 * into out; 0 if present. */
static int nfse_url_arg(const char *url, const char *key, char *out, size_t outlen)
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
static void nfse_url_server(const char *url, char *out, size_t outlen)
{
    const char *h = strncmp(url, "nfs://", 6) == 0 ? url + 6 : url;
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, h, n);
    out[n] = '\0';
}

/* libnfs's sync mount reports a failed connect only as "nfs_service
 * failed".  When it fails, try a plain TCP connect to the port it used
 * (nfsport, else 2049 for v4 and the portmapper for v3) so the message
 * says why: <0 with the reason in why if that port cannot be reached. */
static int nfse_probe(struct nfse_job *j, char *why, size_t whylen)
{
    char port[16], host[128];
    if (nfse_url_arg(j->ej->nfs_url, j->v4 ? "nfsport" : "mountport", port, sizeof(port)) != 0 &&
        nfse_url_arg(j->ej->nfs_url, "nfsport", port, sizeof(port)) != 0)
        snprintf(port, sizeof(port), "%s", j->v4 ? "2049" : "111");
    snprintf(host, sizeof(host), "%s", j->server);
    if (host[0] == '[') {              /* [::1] -> ::1 */
        size_t n = strlen(host);
        memmove(host, host + 1, n);
        if (n >= 2 && host[n - 2] == ']')
            host[n - 2] = '\0';
    }
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0) {
        nfse_fmt(why, whylen, "cannot resolve %s: %s", host, gai_strerror(rc));
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
    nfse_fmt(why, whylen, "server %s unreachable: cannot connect to port %s: %s",
             j->server, port, strerror(err));
    return -err;
}

/* "<url>/<path>" with the file inserted before the query string, so the
 * text is itself a URL naming the file. */
static void nfse_file_url(const struct engine_job *ej, uint32_t file,
                          char *out, size_t outlen)
{
    const char *url = ej->nfs_url ? ej->nfs_url : "";
    const char *q = strchr(url, '?');
    int base = q ? (int)(q - url) : (int)strlen(url);
    const char *path = ej->files[file].path;
    int slash = (base > 0 && url[base - 1] == '/') || path[0] == '/';
    nfse_fmt(out, outlen, "%.*s%s%s%s", base, url, slash ? "" : "/", path,
             q ? q : "");
}

static int nfse_job_writes(const struct job_spec *s)
{
    switch (s->rw) {
    case RW_WRITE: case RW_RANDWRITE: case RW_RW: case RW_RANDRW:
        return 1;
    default:
        return 0;
    }
}

/* ---- op / part pools: no malloc per request once warmed up ---------- */

static struct nfse_op *nfse_op_get(struct nfse_job *j)
{
    struct nfse_op *op = j->op_free;
    if (op) {
        j->op_free = op->next;
    } else {
        op = calloc(1, sizeof(*op));
        if (!op)
            return NULL;
        op->all_next = j->op_all;
        j->op_all = op;
    }
    op->j = j;
    op->next = NULL;
    return op;
}

static void nfse_op_put(struct nfse_job *j, struct nfse_op *op)
{
    op->r = NULL;
    op->next = j->op_free;
    j->op_free = op;
}

static struct nfse_part *nfse_part_get(struct nfse_job *j)
{
    struct nfse_part *p = j->part_free;
    if (p) {
        j->part_free = p->next;
    } else {
        p = calloc(1, sizeof(*p));
        if (!p)
            return NULL;
        p->all_next = j->part_all;
        j->part_all = p;
    }
    p->next = NULL;
    return p;
}

static void nfse_part_put(struct nfse_job *j, struct nfse_part *p)
{
    p->op = NULL;
    p->next = j->part_free;
    j->part_free = p;
}

static void nfse_ifl_add(struct nfse_job *j, struct nfse_op *op)
{
    op->iprev = NULL;
    op->inext = j->ifl;
    if (j->ifl)
        j->ifl->iprev = op;
    j->ifl = op;
    j->inflight++;
}

static void nfse_ifl_del(struct nfse_job *j, struct nfse_op *op)
{
    if (op->iprev)
        op->iprev->inext = op->inext;
    else
        j->ifl = op->inext;
    if (op->inext)
        op->inext->iprev = op->iprev;
    op->iprev = op->inext = NULL;
    j->inflight--;
}

static void nfse_done_push(struct nfse_job *j, struct nfse_op *op)
{
    op->r->result = op->result;
    op->next = NULL;
    if (j->done_tail)
        j->done_tail->next = op;
    else
        j->done_head = op;
    j->done_tail = op;
    j->ndone++;
}

/* Drop one reference; the last one completes the op onto the done list. */
static void nfse_op_release(struct nfse_job *j, struct nfse_op *op)
{
    if (op->abandoned) {
        /* already handed back failed: free it once the job loop has it
         * and libnfs is done with every part */
        if (--op->pending == 0 && op->reaped)
            nfse_op_put(j, op);
        return;
    }
    if (--op->pending > 0)
        return;
    nfse_ifl_del(j, op);
    if (j->tearing_down) {
        nfse_op_put(j, op);
        return;
    }
    nfse_done_push(j, op);
}

/* The context is dead.  libnfs does not always fail the RPCs it still holds
 * (a dead socket without reconnect just returns an error), so fail every op
 * in flight ourselves.  Late callbacks for them only free their part; the
 * ops are never reused because queue() refuses a dead context. */
static void nfse_abandon_all(struct nfse_job *j, int err)
{
    while (j->ifl) {
        struct nfse_op *op = j->ifl;
        nfse_ifl_del(j, op);
        op->abandoned = 1;
        op->reaped = 0;
        if (op->result == 0)
            op->result = err;
        if (!j->tearing_down)
            nfse_done_push(j, op);
    }
    if (j->md_cur) {
        j->md_cur->abandoned = 1;
        j->md_cur->done = 1;
        if (j->md_cur->result == 0)
            j->md_cur->result = err;
        j->md_cur = NULL;
    }
}

/* The connection was lost (libnfs is reconnecting): what was in flight
 * failed, whatever libnfs does with it later. */
static void nfse_conn_lost(struct nfse_job *j)
{
    if (j->down_since_ns == 0)
        j->down_since_ns = uv_hrtime();
    nfse_abandon_all(j, -ECONNRESET);
}

/* Give up on the server: the context is dead from now on. */
static void nfse_give_up(struct nfse_job *j)
{
    const char *e = rpc_get_error(nfs_get_rpc_context(j->nfs));
    j->dead = 1;
    nfse_fmt(j->ej->err, sizeof(j->ej->err),
             "NFS server %s did not answer for %.0f s (server_timeout), giving up: %s (%s)",
             j->server, (double)j->server_timeout_ns / 1e9,
             (e && *e) ? e : "connection lost", j->ej->nfs_url);
    nfse_abandon_all(j, -ETIMEDOUT);
}

static void nfse_check_timeout(struct nfse_job *j)
{
    if (!j->dead && j->down_since_ns &&
        uv_hrtime() - j->down_since_ns >= j->server_timeout_ns)
        nfse_give_up(j);
}

/* Any RPC answered: the server is there. */
static void nfse_server_ok(struct nfse_job *j)
{
    j->reconnects = 0;
    j->down_since_ns = 0;
}

/* ---- socket / poll bookkeeping ---------------------------------------- */

static void nfse_on_poll(uv_poll_t *h, int status, int uvev);

static void nfse_poll_close_cb(uv_handle_t *h)
{
    free((struct nfse_poll *)(void *)h);   /* h is the first member */
}

static void nfse_poll_stop(struct nfse_job *j)
{
    if (j->poll && j->poll->events) {
        /* uv_poll_stop deletes the fd from epoll right away (EPOLL_CTL_DEL;
         * an ENOENT for an already-replaced socket is ignored), and a
         * later start adds it afresh. */
        uv_poll_stop(&j->poll->h);
        j->poll->events = 0;
    }
}

static void nfse_poll_drop(struct nfse_job *j)
{
    if (!j->poll)
        return;
    nfse_poll_stop(j);
    uv_close((uv_handle_t *)&j->poll->h, nfse_poll_close_cb);
    j->poll = NULL;
}

static void nfse_backoff_cb(uv_timer_t *t)
{
    struct nfse_job *j = t->data;
    j->backing_off = 0;
    /* Re-arm happens in nfse_sync_poll, called by the loop driver. */
}

static void nfse_sync_poll(struct nfse_job *j);

/* Bring the poll handle in line with libnfs's socket and wanted events.
 * Called after every libnfs call that may have touched the socket. */
static void nfse_sync_poll(struct nfse_job *j)
{
    if (!j->loop_ok)
        return;
    int fd = j->dead ? -1 : nfs_get_fd(j->nfs);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        /* No socket right now: the tick keeps libnfs's timeouts going. */
        nfse_poll_stop(j);
        return;
    }
    if (st.st_ino != j->sock_ino || !j->poll || j->poll->fd != fd) {
        int reconnect = j->sock_ino != 0;
        if (j->poll && j->poll->fd != fd)
            nfse_poll_drop(j);
        else
            nfse_poll_stop(j);
        j->sock_ino = st.st_ino;
        /* Small RPCs must not wait for Nagle; a new socket needs it again. */
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (reconnect) {
            unsigned shift = j->reconnects < 6 ? j->reconnects : 6;
            uint64_t ms = (uint64_t)NFSE_BACKOFF_MIN_MS << shift;
            if (ms > NFSE_BACKOFF_MAX_MS)
                ms = NFSE_BACKOFF_MAX_MS;
            j->reconnects++;
            j->backing_off = 1;
            uv_timer_start(&j->backoff, nfse_backoff_cb, ms, 0);
            nfse_conn_lost(j);
        }
    }
    if (j->backing_off)
        return;
    if (!j->poll) {
        struct nfse_poll *p = calloc(1, sizeof(*p));
        if (!p)
            return;            /* the tick still services; retried next time */
        if (uv_poll_init(&j->loop, &p->h, fd) != 0) {
            free(p);
            return;
        }
        p->h.data = j;
        p->fd = fd;
        j->poll = p;
    }
    int want = nfs_which_events(j->nfs);
    int ev = ((want & POLLIN) ? UV_READABLE : 0) | ((want & POLLOUT) ? UV_WRITABLE : 0);
    if (ev == 0)
        ev = UV_READABLE;
    if (ev != j->poll->events) {
        if (uv_poll_start(&j->poll->h, ev | UV_DISCONNECT, nfse_on_poll) == 0)
            j->poll->events = ev;
    }
}

static void nfse_service(struct nfse_job *j, int revents)
{
    if (j->dead)
        return;
    if (nfs_service(j->nfs, revents) < 0) {
        /* libnfs gave up (reconnect budget spent); its RPCs were failed
         * through their callbacks, new ones cannot be started. */
        j->dead = 1;
        const char *e = rpc_get_error(nfs_get_rpc_context(j->nfs));
        nfse_fmt(j->ej->err, sizeof(j->ej->err), "%s: connection failed: %s",
                 j->ej->nfs_url, (e && *e) ? e : "connection lost");
        nfse_abandon_all(j, -ENOTCONN);
    }
    nfse_sync_poll(j);
}

static void nfse_on_poll(uv_poll_t *h, int status, int uvev)
{
    struct nfse_job *j = h->data;
    int revents;
    if (status < 0) {
        /* libuv reports EPOLLERR as an error status and stops the handle;
         * libnfs reads the socket error and reconnects. */
        revents = POLLERR;
        if (j->poll)
            j->poll->events = 0;
    } else {
        revents = ((uvev & UV_READABLE) ? POLLIN : 0) |
                  ((uvev & UV_WRITABLE) ? POLLOUT : 0) |
                  ((uvev & UV_DISCONNECT) ? POLLHUP : 0);
    }
    nfse_service(j, revents);
}

static void nfse_tick_cb(uv_timer_t *t)
{
    struct nfse_job *j = t->data;
    nfse_service(j, 0);
    nfse_check_timeout(j);
}

static void nfse_deadline_cb(uv_timer_t *t)
{
    struct nfse_job *j = t->data;
    j->deadline_hit = 1;
}

/* ---- RPC completion ------------------------------------------------------ */

/* Keep libnfs's words for a failed RPC (they name the NFS status, e.g.
 * "NFS3ERR_NOSPC"), for the job's message if the error ends it. */
static void nfse_note_error(struct nfse_job *j, struct nfs_context *nfs)
{
    const char *e = nfs ? nfs_get_error(nfs) : NULL;
    if (e && *e && !j->tearing_down)
        nfse_fmt(j->ej->detail, sizeof(j->ej->detail), "%s", e);
}

static void nfse_rpc_cb(int status, struct nfs_context *nfs, void *data, void *private_data)
{
    (void)nfs;
    struct nfse_part *p = private_data;
    struct nfse_op *op = p->op;
    struct nfse_job *j = op->j;

    j->parts_inflight--;
    j->last_rpc_failed = status < 0;
    if (status >= 0)
        nfse_server_ok(j);
    if (op->abandoned) {
        nfse_part_put(j, p);
        nfse_op_release(j, op);
        return;
    }

    if (status < 0) {
        if (op->result == 0)
            op->result = nfse_status_errno(nfs, status);
        nfse_note_error(j, nfs);
    } else {
        if (op->kind == IO_READ && !j->tearing_down) {
            uint64_t got = (uint64_t)status;
            if (got > p->len)
                got = p->len;
            if (got > 0 && data)
                memcpy(p->dst, data, got);
            /* A short read means the file is shorter than the layout the
             * job loop relies on: report it, do not count a full op. */
            if (got < p->len && op->result == 0)
                op->result = -ENODATA;
        } else if (op->kind == IO_WRITE && (uint64_t)status < p->len) {
            /* libnfs re-sends short WRITEs itself; this is not expected. */
            if (op->result == 0)
                op->result = -EIO;
        }
    }
    nfse_part_put(j, p);
    nfse_op_release(j, op);
}

/* libnfs's sync calls keep their state on the caller's stack.  When the
 * connection dies during one, it returns with its RPC still queued, and
 * nfs_destroy_context() later fails that RPC through a callback that writes
 * into the long-gone stack frame.  So after a failed sync call we compare
 * libnfs's queue with our own RPCs: anything extra is such a stranded RPC,
 * and the context must never be destroyed (we leak it: it is an error path
 * and a leak is better than a corrupted stack). */
static void nfse_after_sync_failure(struct nfse_job *j)
{
    if (!j->nfs || j->stranded)
        return;
    int q = rpc_queue_length(nfs_get_rpc_context(j->nfs));
    if (q > (int)j->parts_inflight) {
        j->stranded = 1;
        if (!j->dead) {
            j->dead = 1;
            nfse_abandon_all(j, -ENOTCONN);
        }
    }
}

/* Sync calls on a dead context would strand their RPC (see above). */
static int nfse_refuse_dead(struct nfse_job *j, uint32_t file, const char *what)
{
    char fu[ENGINE_ERR_MAX];
    nfse_file_url(j->ej, file, fu, sizeof(fu));
    nfse_fmt(j->ej->err, sizeof(j->ej->err), "%s: %s: connection to the server lost",
             fu, what);
    return -ENOTCONN;
}

/* ---- engine ops ---------------------------------------------------------- */

static int nfse_fail(struct nfse_job *j, int rc, const char *fmt_url, const char *what)
{
    nfse_fmt(j->ej->err, sizeof(j->ej->err), "%s: %s: %s", fmt_url, what,
             nfse_errtext(j->nfs));
    return rc;
}

static void nfse_teardown(struct engine_job *ej);

static int nfse_setup(struct engine_job *ej)
{
    ej->err[0] = '\0';
    if (!ej->nfs_url || !*ej->nfs_url) {
        nfse_fmt(ej->err, sizeof(ej->err), "nfs engine: no nfs_url given");
        return -EINVAL;
    }
    struct nfse_job *j = calloc(1, sizeof(*j));
    if (!j) {
        nfse_fmt(ej->err, sizeof(ej->err), "%s: out of memory", ej->nfs_url);
        return -ENOMEM;
    }
    j->ej = ej;
    ej->priv = j;

    j->server_timeout_ns = ej->spec && ej->spec->server_timeout_ns
                         ? ej->spec->server_timeout_ns : NFSE_SERVER_TIMEOUT_NS;
    nfse_url_server(ej->nfs_url, j->server, sizeof(j->server));

    char v[16];
    j->v4 = nfse_url_arg(ej->nfs_url, "version", v, sizeof(v)) == 0 && atoi(v) == 4;
    j->v4_write_bug = NFSE_V4_WRITE_BUG && j->v4;
    if (j->v4_write_bug && nfse_job_writes(ej->spec) && ej->spec->bs >= NFSE_V4_WRITE_LIMIT) {
        nfse_fmt(ej->err, sizeof(ej->err),
                 "%s: NFSv4 writes of 4000 bytes or more fail with libnfs 4.0 "
                 "(a libnfs bug fixed in 5.0); run scripts/build-libnfs.sh and rebuild",
                 ej->nfs_url);
        nfse_teardown(ej);
        return -ENOTSUP;
    }

    j->nfs = nfs_init_context();
    if (!j->nfs) {
        nfse_fmt(ej->err, sizeof(ej->err), "%s: cannot create an NFS context", ej->nfs_url);
        nfse_teardown(ej);
        return -ENOMEM;
    }
    /* Our defaults first, so arguments in the URL (parsed next) win. */
    nfs_set_timeout(j->nfs, NFSE_TIMEOUT_MS);
    nfs_set_autoreconnect(j->nfs, NFSE_RECONNECTS);
    if (j->v4) {
        /* NFSv4 servers key state on the client name: every context must
         * look like its own client or they would steal each other's state. */
        char host[64] = "host", name[192];
        (void)gethostname(host, sizeof(host) - 1);
        host[sizeof(host) - 1] = '\0';
        nfse_fmt(name, sizeof(name), "nfstorm-%s-%ld-%u-%u-%u", host, (long)getpid(),
                 ej->agent_index, ej->job_index,
                 atomic_fetch_add(&nfse_client_counter, 1));
        nfs4_set_client_name(j->nfs, name);
    }

    struct nfs_url *url = nfs_parse_url_dir(j->nfs, ej->nfs_url);
    if (!url || !url->server || !url->path) {
        if (url)
            nfs_destroy_url(url);
        int rc = nfse_fail(j, -EINVAL, ej->nfs_url, "bad NFS URL");
        nfse_teardown(ej);
        return rc;
    }
    int rc = nfs_mount(j->nfs, url->server, url->path);
    nfs_destroy_url(url);
    if (rc != 0) {
        nfse_after_sync_failure(j);
        rc = nfse_errno(rc);
        char why[256];
        if (nfse_probe(j, why, sizeof(why)) < 0)
            nfse_fmt(ej->err, sizeof(ej->err), "%s: mount failed: %s", ej->nfs_url, why);
        else
            nfse_fail(j, rc, ej->nfs_url, "mount failed");
        nfse_teardown(ej);
        return rc;
    }
    j->readmax = nfs_get_readmax(j->nfs);
    j->writemax = nfs_get_writemax(j->nfs);
    if (j->readmax == 0)
        j->readmax = NFSE_SPLIT_DEFAULT;
    if (j->writemax == 0)
        j->writemax = NFSE_SPLIT_DEFAULT;

    j->fh = calloc(ej->nfiles ? ej->nfiles : 1, sizeof(*j->fh));
    if (!j->fh) {
        nfse_fmt(ej->err, sizeof(ej->err), "%s: out of memory", ej->nfs_url);
        nfse_teardown(ej);
        return -ENOMEM;
    }
    int writes = ej->create || nfse_job_writes(ej->spec);
    for (uint32_t i = 0; i < ej->nfiles; i++) {
        char path[PLAN_PATH_MAX + 2];
        nfse_fmt(path, sizeof(path), "%s%s", ej->files[i].path[0] == '/' ? "" : "/",
                 ej->files[i].path);
        /* Open first and create only if missing: an existing file is
         * never truncated, and libnfs's NFSv4 O_CREAT is always exclusive.
         * EEXIST: another job created it in between; open it then. */
        rc = nfs_open(j->nfs, path, writes ? O_RDWR : O_RDONLY, &j->fh[i]);
        if (rc == -ENOENT && ej->create && !ej->no_create) {
            rc = nfs_open2(j->nfs, path, O_RDWR | O_CREAT, 0644, &j->fh[i]);
            ej->files[i].created = rc == 0;    /* only these may unlink=1 delete */
            if (rc == -EEXIST)
                rc = nfs_open(j->nfs, path, O_RDWR, &j->fh[i]);
        }
        if (rc != 0) {
            char fu[ENGINE_ERR_MAX];
            j->fh[i] = NULL;
            nfse_after_sync_failure(j);
            nfse_file_url(ej, i, fu, sizeof(fu));
            rc = nfse_fail(j, nfse_status_errno(j->nfs, rc), fu, "open failed");
            nfse_teardown(ej);
            return rc;
        }
        j->nfh = i + 1;
    }

    /* The loop is created here, used only by the job thread afterwards. */
    if (uv_loop_init(&j->loop) != 0) {
        nfse_fmt(ej->err, sizeof(ej->err), "%s: cannot create an event loop", ej->nfs_url);
        nfse_teardown(ej);
        return -ENOMEM;
    }
    j->loop_ok = 1;
    uv_timer_init(&j->loop, &j->tick);
    uv_timer_init(&j->loop, &j->deadline);
    uv_timer_init(&j->loop, &j->backoff);
    j->tick.data = j->deadline.data = j->backoff.data = j;
    /* The tick only runs inside reap(), so it costs nothing when idle. */
    uv_timer_start(&j->tick, nfse_tick_cb, NFSE_TICK_MS, NFSE_TICK_MS);
    nfse_sync_poll(j);
    /* From now on a lost connection is retried until server_timeout says
     * otherwise (nfse_check_timeout), not until a retry count runs out. */
    nfs_set_autoreconnect(j->nfs, -1);
    return 0;
}

static int nfse_queue(struct engine_job *ej, struct io_req *r)
{
    struct nfse_job *j = ej->priv;
    if (j->dead) {
        if (!ej->err[0])
            nfse_fmt(ej->err, sizeof(ej->err), "%s: not connected", ej->nfs_url);
        return -ENOTCONN;
    }
    if (r->file >= j->nfh)
        return -EINVAL;
    if (r->kind == IO_WRITE && j->v4_write_bug && r->len >= NFSE_V4_WRITE_LIMIT) {
        nfse_fmt(ej->err, sizeof(ej->err),
                 "%s: NFSv4 writes of 4000 bytes or more fail with libnfs 4.0 "
                 "(a libnfs bug fixed in 5.0); run scripts/build-libnfs.sh and rebuild",
                 ej->nfs_url);
        return -ENOTSUP;
    }
    struct nfse_op *op = nfse_op_get(j);
    if (!op)
        return -ENOMEM;
    op->r = r;
    op->kind = r->kind;
    op->result = 0;
    op->abandoned = 0;
    op->reaped = 0;
    op->pending = 1;           /* ours until every part is started */
    r->result = 0;
    nfse_ifl_add(j, op);

    struct nfsfh *fh = j->fh[r->file];
    int started = 0, rc = 0;
    if (r->kind == IO_SYNC) {
        struct nfse_part *p = nfse_part_get(j);
        if (!p) {
            rc = -ENOMEM;
        } else {
            p->op = op;
            p->len = 0;
            op->pending++;
            rc = nfs_fsync_async(j->nfs, fh, nfse_rpc_cb, p);
            if (rc != 0) {
                op->pending--;
                nfse_part_put(j, p);
            } else {
                started++;
                j->parts_inflight++;
            }
        }
    } else if (r->kind == IO_READ || r->kind == IO_WRITE) {
        uint64_t max = r->kind == IO_READ ? j->readmax : j->writemax;
        for (uint64_t off = 0; off < r->len; ) {
            uint64_t n = r->len - off < max ? r->len - off : max;
            struct nfse_part *p = nfse_part_get(j);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            p->op = op;
            p->dst = r->buf + off;
            p->len = n;
            op->pending++;
            if (r->kind == IO_READ)
                rc = nfs_pread_async(j->nfs, fh, r->offset + off, n, nfse_rpc_cb, p);
            else
                rc = nfs_pwrite_async(j->nfs, fh, r->offset + off, n, r->buf + off,
                                      nfse_rpc_cb, p);
            if (rc != 0) {
                op->pending--;
                nfse_part_put(j, p);
                break;
            }
            started++;
            j->parts_inflight++;
            off += n;
        }
    } else {
        rc = -EINVAL;
    }

    if (rc != 0) {
        int err = rc == -ENOMEM ? -ENOMEM : (rc == -EINVAL ? -EINVAL : -EIO);
        if (started == 0) {
            /* Nothing in flight: refuse; the request is never handed back. */
            char fu[ENGINE_ERR_MAX];
            nfse_file_url(ej, r->file, fu, sizeof(fu));
            nfse_fmt(ej->err, sizeof(ej->err), "%s: cannot start %s: %s", fu,
                     r->kind == IO_READ ? "read" : r->kind == IO_WRITE ? "write" : "commit",
                     nfse_errtext(j->nfs));
            nfse_ifl_del(j, op);
            nfse_op_put(j, op);
            nfse_sync_poll(j);
            return err;
        }
        /* Some parts are in flight: the op completes with the error. */
        op->result = err;
    }
    nfse_op_release(j, op);    /* drop the queueing reference */
    nfse_sync_poll(j);         /* now we want POLLOUT */
    return 0;
}

static int nfse_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct nfse_job *j = ej->priv;
    if (min > max)
        min = max;

    nfse_sync_poll(j);
    if (j->ndone < min && j->inflight > 0 && timeout_ns > 0) {
        /* Timers have ms resolution; round up so we never return early
         * with nothing when the caller asked us to wait. */
        int timed = timeout_ns < (uint64_t)INT64_MAX / 2;
        j->deadline_hit = 0;
        if (timed) {
            uv_update_time(&j->loop);
            uv_timer_start(&j->deadline, nfse_deadline_cb,
                           (timeout_ns + 999999) / 1000000, 0);
        }
        while (j->ndone < min && j->inflight > 0 && !j->deadline_hit && !j->dead)
            uv_run(&j->loop, UV_RUN_ONCE);
        if (timed)
            uv_timer_stop(&j->deadline);
    } else {
        uv_run(&j->loop, UV_RUN_NOWAIT);
    }

    unsigned n = 0;
    while (n < max && j->done_head) {
        struct nfse_op *op = j->done_head;
        j->done_head = op->next;
        if (!j->done_head)
            j->done_tail = NULL;
        j->ndone--;
        done[n++] = op->r;
        if (!op->abandoned)
            nfse_op_put(j, op);
        else if (op->pending == 0)   /* its parts may still be in libnfs */
            nfse_op_put(j, op);
        else
            op->reaped = 1;
    }
    if (n == 0 && j->dead && j->inflight == 0) {
        if (!ej->err[0])
            nfse_fmt(ej->err, sizeof(ej->err), "%s: connection failed", ej->nfs_url);
        return -ENOTCONN;
    }
    return (int)n;
}

static int nfse_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    struct nfse_job *j = ej->priv;
    if (file >= j->nfh)
        return -EINVAL;
    char path[PLAN_PATH_MAX + 2];
    nfse_fmt(path, sizeof(path), "%s%s", ej->files[file].path[0] == '/' ? "" : "/",
             ej->files[file].path);
    if (j->dead)
        return nfse_refuse_dead(j, file, "stat failed");
    struct nfs_stat_64 st;
    int rc = nfs_stat64(j->nfs, path, &st);
    if (rc != 0)
        nfse_after_sync_failure(j);
    nfse_sync_poll(j);
    if (rc == -ENOENT)
        return -ENOENT;
    if (rc != 0) {
        char fu[ENGINE_ERR_MAX];
        nfse_file_url(ej, file, fu, sizeof(fu));
        return nfse_fail(j, nfse_status_errno(j->nfs, rc), fu, "stat failed");
    }
    *size = st.nfs_size;
    return 0;
}

/* FSSTAT of the export: what the server says is free to us. */
static int nfse_space(struct engine_job *ej, uint64_t *avail, char *where, size_t wherelen)
{
    struct nfse_job *j = ej->priv;
    struct nfs_statvfs_64 sv;
    if (j->dead)
        return -ENOTCONN;
    int rc = nfs_statvfs64(j->nfs, "/", &sv);
    if (rc != 0) {
        nfse_after_sync_failure(j);
        nfse_sync_poll(j);
        return nfse_errno(rc);
    }
    nfse_sync_poll(j);
    *avail = sv.f_bavail * (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
    nfse_fmt(where, wherelen, "%s", ej->nfs_url);
    return 0;
}

static void nfse_noop_cb(int status, struct nfs_context *nfs, void *data, void *private_data)
{
    (void)status; (void)nfs; (void)data; (void)private_data;
}

/* ---- metadata ops -------------------------------------------------------- */

static void nfse_md_finish(struct nfse_md *m, int rc)
{
    struct nfse_job *j = m->j;
    if (m->abandoned)
        return;               /* handed back already; kept until teardown */
    if (m->result == 0)
        m->result = rc;
    m->done = 1;
    if (j->md_cur == m)
        j->md_cur = NULL;
}

/* The status of an async call: note the server's answer, 0 or -errno. */
static int nfse_md_status(struct nfse_md *m, int status)
{
    if (status >= 0 || status == -ENOENT || status == -EEXIST || status == -ENOTEMPTY ||
        status == -EACCES || status == -EPERM || status == -ENOTDIR || status == -EISDIR)
        nfse_server_ok(m->j);  /* an answer, even a refusal */
    if (status < 0)
        nfse_note_error(m->j, m->j->nfs);
    return status >= 0 ? 0 : nfse_status_errno(m->j->nfs, status);
}

static void nfse_md_done_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs; (void)data;
    struct nfse_md *m = priv;
    nfse_md_finish(m, nfse_md_status(m, status));
}

/* Close the handle a chain opened, then finish with the chain's result. */
static void nfse_md_close(struct nfse_md *m, int rc)
{
    struct nfse_job *j = m->j;
    struct nfsfh *fh = m->fh;
    m->fh = NULL;
    if (m->result == 0)
        m->result = rc;
    if (m->abandoned || j->dead || j->tearing_down) {
        (void)nfs_close_async(j->nfs, fh, nfse_noop_cb, NULL);
        nfse_md_finish(m, rc);
        return;
    }
    if (nfs_close_async(j->nfs, fh, nfse_md_done_cb, m) != 0)
        nfse_md_finish(m, -EIO);
}

static void nfse_md_write_cb(int status, struct nfs_context *nfs, void *data, void *priv);

static void nfse_md_write_next(struct nfse_md *m)
{
    struct nfse_job *j = m->j;
    if (m->off >= m->size || m->abandoned || j->dead || j->tearing_down) {
        nfse_md_close(m, 0);
        return;
    }
    uint64_t n = m->size - m->off < j->writemax ? m->size - m->off : j->writemax;
    if (nfs_pwrite_async(j->nfs, m->fh, m->off, n, m->buf + m->off, nfse_md_write_cb, m) != 0)
        nfse_md_close(m, -EIO);
}

static void nfse_md_write_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs; (void)data;
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc == 0 && status == 0)
        rc = -EIO;             /* no progress */
    if (rc < 0) {
        nfse_md_close(m, rc);
        return;
    }
    m->off += (uint64_t)status;
    nfse_md_write_next(m);
}

/* create and open: the handle arrives here; write (create) and close. */
static void nfse_md_open_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs;
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc < 0) {
        nfse_md_finish(m, rc);
        return;
    }
    m->fh = data;
    if (m->op == OP_CREATE)
        nfse_md_write_next(m);
    else
        nfse_md_close(m, 0);
}

static void nfse_md_opendir_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc < 0) {
        nfse_md_finish(m, rc);
        return;
    }
    struct nfsdir *d = data;
    uint64_t n = 0;
    while (nfs_readdir(nfs, d))   /* entries are all here already */
        n++;
    nfs_closedir(nfs, d);
    m->count = n;
    nfse_md_finish(m, 0);
}

/* rename: the target was looked up first; only a missing one is replaced
 * by the rename (NFS has no rename that refuses an existing target). */
static void nfse_md_rename_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)data;
    struct nfse_md *m = priv;
    struct nfse_job *j = m->j;
    if (status == 0) {
        nfse_server_ok(j);
        nfse_md_finish(m, -EEXIST);     /* someone else's name: left alone */
        return;
    }
    if (status != -ENOENT) {
        nfse_md_finish(m, nfse_md_status(m, status));
        return;
    }
    nfse_server_ok(j);               /* missing: what we hoped for, no error to note */
    if (m->abandoned || j->dead || j->tearing_down) {
        nfse_md_finish(m, -ENOTCONN);
        return;
    }
    if (nfs_rename_async(nfs, m->path, m->path2, nfse_md_done_cb, m) != 0)
        nfse_md_finish(m, -EIO);
}

static struct nfse_md *nfse_md_get(struct nfse_job *j)
{
    struct nfse_md *m = j->md_free;
    if (m) {
        j->md_free = m->next;
    } else {
        m = calloc(1, sizeof(*m));
        if (!m)
            return NULL;
        m->all_next = j->md_all;
        j->md_all = m;
    }
    m->j = j;
    m->done = m->result = m->abandoned = 0;
    m->off = m->count = 0;
    m->fh = NULL;
    m->next = NULL;
    return m;
}

/* An engine path ("a/b", "/a/b", ".", "") as an absolute export path. */
static void nfse_md_path(const char *in, char *out, size_t outlen)
{
    while (in[0] == '.' && (in[1] == '/' || in[1] == '\0'))
        in += in[1] ? 2 : 1;
    nfse_fmt(out, outlen, "%s%s", in[0] == '/' ? "" : "/", in);
}


static int nfse_md(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                   const char *buf, uint64_t size, uint64_t *count)
{
    struct nfse_job *j = ej->priv;
    if (j->dead) {
        if (!ej->err[0])
            nfse_fmt(ej->err, sizeof(ej->err), "%s: not connected", ej->nfs_url);
        return -ENOTCONN;
    }
    struct nfse_md *m = nfse_md_get(j);
    if (!m)
        return -ENOMEM;
    m->op = op;
    m->buf = buf;
    m->size = buf ? size : 0;
    nfse_md_path(path, m->path, sizeof(m->path));
    nfse_md_path(path2 ? path2 : "", m->path2, sizeof(m->path2));

    int rc;
    switch (op) {
    case OP_CREATE:
        /* exclusive: a name that exists is not this job's (EEXIST), and an
         * existing file is never truncated */
        rc = nfs_create_async(j->nfs, m->path, O_RDWR | O_EXCL, 0644, nfse_md_open_cb, m);
        break;
    case OP_STAT:
        rc = nfs_stat64_async(j->nfs, m->path, nfse_md_done_cb, m);
        break;
    case OP_OPEN:
        rc = nfs_open_async(j->nfs, m->path, O_RDONLY, nfse_md_open_cb, m);
        break;
    case OP_READDIR:
        rc = nfs_opendir_async(j->nfs, m->path, nfse_md_opendir_cb, m);
        break;
    case OP_RENAME:
        rc = path2 ? nfs_stat64_async(j->nfs, m->path2, nfse_md_rename_cb, m) : -EINVAL;
        break;
    case OP_UNLINK:
        rc = nfs_unlink_async(j->nfs, m->path, nfse_md_done_cb, m);
        break;
    case OP_MKDIR:
        rc = nfs_mkdir2_async(j->nfs, m->path, 0755, nfse_md_done_cb, m);
        break;
    case OP_RMDIR:
        rc = nfs_rmdir_async(j->nfs, m->path, nfse_md_done_cb, m);
        break;
    default:
        rc = -EINVAL;
        break;
    }
    if (rc != 0) {
        nfse_fmt(ej->err, sizeof(ej->err), "%s: cannot start %s of %s: %s", ej->nfs_url,
                 op_type_name(op), m->path, nfse_errtext(j->nfs));
        m->next = j->md_free;
        j->md_free = m;
        nfse_sync_poll(j);
        return rc == -EINVAL ? -EINVAL : -EIO;
    }
    j->md_cur = m;
    /* One call at a time, driven like reap(): the tick keeps libnfs's RPC
     * timeouts and our server timeout going; a lost connection abandons
     * the call (nfse_abandon_all marks it done). */
    nfse_sync_poll(j);
    while (!m->done && !j->dead)
        uv_run(&j->loop, UV_RUN_ONCE);
    if (!m->done) {            /* dead without an abandon (cannot happen) */
        m->abandoned = 1;
        m->result = -ENOTCONN;
        j->md_cur = NULL;
    }
    rc = m->result;
    if (count)
        *count = m->count;
    if (!m->abandoned) {
        m->next = j->md_free;
        j->md_free = m;
    }
    return rc;
}

static void nfse_close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) {
        if (h->type == UV_POLL)
            uv_close(h, nfse_poll_close_cb);
        else
            uv_close(h, NULL);
    }
}

static void nfse_teardown(struct engine_job *ej)
{
    struct nfse_job *j = ej->priv;
    if (!j)
        return;
    j->tearing_down = 1;
    /* Stop polling while the fd is still libnfs's (epoll DEL needs it). */
    if (j->loop_ok)
        nfse_poll_stop(j);
    if (j->nfs && j->stranded) {
        /* Deliberately leaked: see nfse_after_sync_failure(). */
        j->nfs = NULL;
    } else if (j->nfs) {
        /* RPCs the server never answered (the job gave up on them) or
         * that failed last (timed out: a stopped or hung server) mean a
         * sync close could wait the RPC timeout for each file, and the
         * agent would not be idle again for minutes: close as on a dead
         * context. */
        int silent = j->parts_inflight > 0 || j->last_rpc_failed;
        for (uint32_t i = 0; i < j->nfh; i++) {
            if (!j->fh[i])
                continue;
            if (!j->dead && !silent) {
                int rc = nfs_close(j->nfs, j->fh[i]);
                if (rc != 0)
                    nfse_after_sync_failure(j);
            } else {
                /* Never a sync call on a dead context (it would strand its
                 * RPC); the async close frees the handle when the context
                 * fails its RPC at destroy.  The server forgets a dead
                 * client's opens by itself. */
                (void)nfs_close_async(j->nfs, j->fh[i], nfse_noop_cb, NULL);
            }
        }
        if (!j->stranded)
            nfs_destroy_context(j->nfs);   /* fails pending RPCs via callbacks */
        j->nfs = NULL;
    }
    if (j->loop_ok) {
        j->poll = NULL;                /* closed by the walk below */
        uv_walk(&j->loop, nfse_close_walk, NULL);
        uv_run(&j->loop, UV_RUN_DEFAULT);
        while (uv_loop_close(&j->loop) == UV_EBUSY)
            uv_run(&j->loop, UV_RUN_NOWAIT);
        j->loop_ok = 0;
    }
    while (j->op_all) {
        struct nfse_op *n = j->op_all->all_next;
        free(j->op_all);
        j->op_all = n;
    }
    while (j->part_all) {
        struct nfse_part *n = j->part_all->all_next;
        free(j->part_all);
        j->part_all = n;
    }
    while (j->md_all) {
        struct nfse_md *n = j->md_all->all_next;
        free(j->md_all);
        j->md_all = n;
    }
    free(j->fh);
    free(j);
    ej->priv = NULL;
}

static int nfse_negotiated(struct engine_job *ej, uint32_t *version, uint64_t *rsize, uint64_t *wsize)
{
    struct nfse_job *j = ej->priv;
    *version = 0;
    *rsize = *wsize = 0;
    if (!j || !j->nfs)
        return 0;
    *version = (uint32_t)nfs_get_version(j->nfs);
    /* what requests are split at: the server's maxima when it gave them */
    *rsize = j->readmax;
    *wsize = j->writemax;
    return nfs_get_readmax(j->nfs) != 0 && nfs_get_writemax(j->nfs) != 0;
}

const struct engine_ops engine_nfs = {
    .name = "nfs",
    .setup = nfse_setup,
    .queue = nfse_queue,
    .reap = nfse_reap,
    .file_size = nfse_file_size,
    .teardown = nfse_teardown,
    .md = nfse_md,
    .space = nfse_space,
    .negotiated = nfse_negotiated,
};
