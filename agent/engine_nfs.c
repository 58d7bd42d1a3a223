/* engine_nfs: the "nfs" I/O engine, a user-space NFSv3/v4 client (libnfs).
 *
 * Why libnfs and not a kernel mount: the agent must drive a share without
 * root mounts, with its own TCP connections per job thread (so load spreads
 * like many clients), and see per-RPC latency without the page cache in
 * between.  This file holds the engine's ops (files, requests; metadata
 * calls are agent/engine_nfs_md.c, the job state both share
 * agent/engine_nfs_job.h); agent/nfs_conn.c holds the connection layer
 * under them (context, mount, the job thread's poll loop, reconnects, the
 * server timeout).  libnfs is called from these, agent/nfs_rpcstat.c (the
 * per-RPC observer) and agent/clean_nfs.c (removing a run's files).
 *
 * Threading: each job thread owns its connections.  setup() (serial, setup
 * thread) connects, mounts and opens the files with libnfs's synchronous
 * calls; after that only the job thread touches them.  The I/O path
 * (queue/reap) uses only libnfs's async calls: queue() starts RPCs and
 * reap() sends them (nfs_conn_flush) and waits in nfs_conn_wait().
 *
 * Outages: libnfs (v3) re-sends the RPCs of a lost connection after it
 * reconnects, which would hide a server restart inside the latency of the
 * ops that happened to be in flight.  So when the connection layer reports
 * a new socket (hooks.lost) every op in flight on it is handed back failed
 * (-ECONNRESET, counted as an error) and its late completion is ignored;
 * the job loop goes on issuing and those ops wait for the new connection.
 * When the layer declares a connection dead (server_timeout, libnfs gave
 * up) the job is dead: every op is failed and the job ends with what it
 * measured until then.
 *
 * Transfer sizes: requests larger than the server's rsize/wsize are split
 * into several RPCs and completed once, when all parts are back; the first
 * error wins.
 *
 * libnfs versions: the build always links the project's patched 5.x
 * (scripts/build-libnfs.sh; the Makefile refuses a libnfs without the
 * per-RPC observer, and agent/nfs_rpcstat.c checks it at compile time), so
 * there is no 4.x path here.  libnfs 6 changed pread/pwrite_async to take
 * caller buffers (LIBNFS_API_V2); that is refused at compile time rather
 * than guessed at. */
#include "agent/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "agent/engine_nfs_job.h"
#include "agent/nfs_conn.h"
#include "agent/nfs_rpcstat.h"
#include "common/clock.h"
#include "common/fnv.h"
#include "common/nfs_rpc.h"
#include "common/log.h"

#if defined(LIBNFS_API_V2)
#error "libnfs >= 6 (LIBNFS_API_V2) changed the async read/write calls; engine_nfs.c supports libnfs 5.x"
#endif

#define NFSE_SERVER_TIMEOUT_NS (30ull * 1000000000ull)  /* if the spec has none */

/* One io_req in flight. */
struct nfse_op {
    struct nfse_rec rec;       /* first: its pool's links */
    struct nfse_job *j;
    struct nfs_conn *c;        /* the connection all its RPCs went to */
    struct io_req *r;
    enum io_kind kind;
    unsigned pending;          /* RPCs not back yet, + 1 while queueing */
    int result;                /* first error wins */
    uint32_t status;           /* its NFS status (NFS_STATUS_CODE), 0 none */
    uint32_t file;             /* the request's file, for a size asked after a short read */
    uint64_t eof_size;         /* -ENODATA: the file's size (ERRCAUSE_SIZE_UNKNOWN) */
    uint64_t eof_at;           /* -ENODATA: where the server said the file ends
                                  (the short part's offset + bytes it returned) */
    int abandoned;             /* handed back failed by us (connection lost or
                                  context dead); its parts may still be in libnfs */
    int reaped;                /* an abandoned op was handed to the job loop */
    int untimed;               /* some part's RPC has no times (see nfse_time_part) */
    uint64_t last_reply_ns;    /* the latest part's reply so far, its round */
    uint64_t rtt_ns, queued_ns;  /* trip and wait before send */
    struct nfse_op *next;      /* done list */
    struct nfse_op *iprev, *inext;  /* in-flight list */
};

/* One RPC of an op (a part of a split request). */
struct nfse_part {
    struct nfse_rec rec;
    struct nfse_op *op;
    char *dst;                 /* reads: where this part's bytes go */
    uint64_t len;
    uint32_t xid;              /* its RPC, when timed */
    int timed;
};

static atomic_uint nfse_client_counter;

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
    nfs_conn_fmt(out, outlen, "%.*s%s%s%s", base, url, slash ? "" : "/", path,
             q ? q : "");
}

/* ---- record pools: no malloc per request once warmed up -------------- */

void *nfse_pool_get(struct nfse_pool *p, size_t size)
{
    struct nfse_rec *r = p->free;
    if (r) {
        p->free = r->next_free;
    } else if ((r = calloc(1, size)) != NULL) {
        r->all_next = p->all;
        p->all = r;
    }
    return r;
}

void nfse_pool_put(struct nfse_pool *p, void *rec)
{
    struct nfse_rec *r = rec;
    r->next_free = p->free;
    p->free = r;
}

static void nfse_pool_free(struct nfse_pool *p)
{
    while (p->all) {
        struct nfse_rec *n = p->all->all_next;
        free(p->all);
        p->all = n;
    }
}

static void nfse_op_put(struct nfse_job *j, struct nfse_op *op)
{
    op->r = NULL;
    nfse_pool_put(&j->ops, op);
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
    op->r->status = op->status;
    op->r->eof_size = op->eof_size;
    op->r->split_known = !op->untimed && op->last_reply_ns != 0;
    op->r->rpc_rtt_ns = op->rtt_ns;
    op->r->rpc_queued_ns = op->queued_ns;
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

/* Hand back failed every op in flight (on connection c; NULL: on all).
 * Late callbacks for them only free their parts. */
static void nfse_abandon(struct nfse_job *j, struct nfs_conn *c, int err)
{
    struct nfse_op *op = j->ifl;
    while (op) {
        struct nfse_op *next = op->inext;
        if (!c || op->c == c) {
            nfse_ifl_del(j, op);
            op->abandoned = 1;
            op->reaped = 0;
            if (op->result == 0)
                op->result = err;
            if (!j->tearing_down)
                nfse_done_push(j, op);
        }
        op = next;
    }
    if (j->md_cur && (!c || c == &j->conn[0])) {
        j->md_cur->abandoned = 1;
        j->md_cur->done = 1;
        if (j->md_cur->result == 0)
            j->md_cur->result = err;
        j->md_cur = NULL;
    }
}

/* hooks.lost: what was in flight on c failed, whatever libnfs does with it
 * later. */
static void nfse_on_lost(struct nfs_conn *c, void *owner)
{
    nfse_abandon(owner, c, -ECONNRESET);
}

/* hooks.dead: the job cannot go on; libnfs does not always fail the RPCs
 * it still holds (a dead socket without reconnect just returns an error),
 * so fail every op ourselves.  queue() refuses a dead job. */
static void nfse_on_dead(struct nfs_conn *c, void *owner, int err)
{
    (void)c;
    struct nfse_job *j = owner;
    j->dead = 1;
    nfse_abandon(j, NULL, err);
}

static const struct nfs_conn_hooks nfse_hooks = {
    .lost = nfse_on_lost,
    .dead = nfse_on_dead,
};

/* ---- RPC completion ------------------------------------------------------ */

/* Keep libnfs's words for a failed RPC (they name the NFS status, e.g.
 * "NFS3ERR_NOSPC"), for the job's message if the error ends it. */
void nfse_note_error(struct nfse_job *j, const struct nfs_conn *c)
{
    const char *e = c->nfs ? nfs_get_error(c->nfs) : NULL;
    if (e && *e && !j->tearing_down)
        nfs_conn_fmt(j->ej->detail, sizeof(j->ej->detail), "%s", e);
}

/* The NFS status libnfs's words for the last failed RPC name
 * ("... NFS3ERR_NOSPC(-28)"), as NFS_STATUS_CODE; 0 when they name none. */
static uint32_t nfse_status_code(struct nfse_job *j, const struct nfs_conn *c)
{
    const char *e = c->nfs ? nfs_get_error(c->nfs) : NULL;
    const char *p = e ? strstr(e, "NFS3ERR_") : NULL;
    char name[sizeof j->st_text];
    size_t n;
    int64_t code;
    if (!p && e)
        p = strstr(e, "NFS4ERR_");
    if (!p)
        return 0;
    n = 8 + strspn(p + 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
    if (n >= sizeof name)
        return 0;
    memcpy(name, p, n);
    name[n] = '\0';
    if (strcmp(name, j->st_text) == 0)
        return j->st_code;
    code = nfs_status_from_name(name);
    snprintf(j->st_text, sizeof j->st_text, "%s", name);
    j->st_code = code < 0 ? 0 : (uint32_t)code;
    return j->st_code;
}

/* The GETATTR a short read asked for: the file's size, for the op's cause
 * ("short read at offset X (file is N bytes)") and later short reads. */
static void nfse_size_cb(int status, struct nfs_context *nfs, void *data, void *private_data)
{
    (void)nfs;
    struct nfse_op *op = private_data;
    struct nfse_job *j = op->j;
    nfs_conn_rpc_done(op->c, status);
    /* a size past where the READ said the file ends is a server's stale
     * attribute cache, not the file: not known then */
    if (!op->abandoned && status == 0 && data && ((const struct nfs_stat_64 *)data)->nfs_size <= op->eof_at) {
        const struct nfs_stat_64 *st = data;
        op->eof_size = st->nfs_size;
        if (op->file < j->nfh)
            j->eof_size[op->file] = st->nfs_size;
    }
    nfse_op_release(j, op);
}

/* A read of op met the file's end at byte at (a part's offset plus the
 * bytes it got).  Bytes before the end: the file is exactly at bytes.  None:
 * it ends at or before at, and its size is the last one a GETATTR saw
 * (when not past at), or a GETATTR that holds the op until it is back. */
static void nfse_short_read(struct nfse_job *j, struct nfse_op *op, uint64_t at, uint64_t got)
{
    op->result = -ENODATA;
    op->eof_at = at;
    op->eof_size = got ? at : op->file < j->nfh && j->eof_size[op->file] <= at ? j->eof_size[op->file]
                                                                              : ERRCAUSE_SIZE_UNKNOWN;
    if (op->eof_size != ERRCAUSE_SIZE_UNKNOWN || op->file >= j->nfh)
        return;
    op->pending++;
    if (nfs_fstat64_async(op->c->nfs, j->fh[(size_t)op->c->index * j->ej->nfiles + op->file],
                          nfse_size_cb, op) != 0)
        op->pending--;
    else
        nfs_conn_rpc_sent(op->c);
}

/* The part's RPC's instants, from the observer (it saw the reply just
 * before libnfs called us): the op's time is its slowest part's, the one
 * whose reply came last (nfs_op_split in common/nfs_rpc.h). */
static void nfse_time_part(struct nfse_job *j, struct nfse_op *op, const struct nfse_part *p,
                           struct nfs_context *nfs)
{
    struct nfs_rpc_times t;
    if (!p->timed || nfs_rpcstat_reply_times(j->ej->rpcstat, nfs, p->xid, &t) != 0 ||
        t.sent_ns < t.queued_ns || t.reply_ns < t.sent_ns) {
        op->untimed = 1;
        return;
    }
    if (t.reply_ns >= op->last_reply_ns) {
        op->last_reply_ns = t.reply_ns;
        op->rtt_ns = t.reply_ns - t.sent_ns;
        op->queued_ns = t.sent_ns - t.queued_ns;
    }
}

static void nfse_rpc_cb(int status, struct nfs_context *nfs, void *data, void *private_data)
{
    struct nfse_part *p = private_data;
    struct nfse_op *op = p->op;
    struct nfse_job *j = op->j;

    nfs_conn_rpc_done(op->c, status);
    if (!op->abandoned && status >= 0)
        nfse_time_part(j, op, p, nfs);
    if (op->abandoned) {
        nfse_pool_put(&j->parts, p);
        nfse_op_release(j, op);
        return;
    }

    if (status < 0) {
        if (op->result == 0) {
            op->result = nfs_conn_status_errno(op->c, status);
            op->status = nfse_status_code(j, op->c);
        }
        nfse_note_error(j, op->c);
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
                nfse_short_read(j, op, op->r->offset + (uint64_t)(p->dst - op->r->buf) + got, got);
        } else if (op->kind == IO_WRITE && (uint64_t)status < p->len) {
            /* libnfs re-sends short WRITEs itself; this is not expected. */
            if (op->result == 0)
                op->result = -EIO;
        }
    }
    nfse_pool_put(&j->parts, p);
    nfse_op_release(j, op);
}

/* Sync calls on a dead context would strand their RPC (nfs_conn.c). */
static int nfse_refuse_dead(struct nfse_job *j, uint32_t file, const char *what)
{
    char fu[ENGINE_ERR_MAX];
    nfse_file_url(j->ej, file, fu, sizeof(fu));
    nfs_conn_fmt(j->ej->err, sizeof(j->ej->err), "%s: %s: connection to the server lost",
             fu, what);
    return -ENOTCONN;
}

/* ---- engine ops ---------------------------------------------------------- */

static int nfse_fail(struct nfse_job *j, struct nfs_conn *c, int rc, const char *fmt_url,
                     const char *what)
{
    nfs_conn_fmt(j->ej->err, sizeof(j->ej->err), "%s: %s: %s", fmt_url, what,
             nfs_conn_errtext(c));
    return rc;
}

static void nfse_teardown(struct engine_job *ej);

/* Open (or create) every file of the job on connection c. */
static int nfse_open_files(struct nfse_job *j, unsigned ci)
{
    struct engine_job *ej = j->ej;
    struct nfs_conn *c = &j->conn[ci];
    struct nfsfh **fh = &j->fh[(size_t)ci * ej->nfiles];
    int writes = ej->create || rw_mode_writes(ej->spec->rw);
    for (uint32_t i = 0; i < ej->nfiles; i++) {
        char path[PLAN_PATH_MAX + 2];
        nfs_conn_fmt(path, sizeof(path), "%s%s", ej->files[i].path[0] == '/' ? "" : "/",
                 ej->files[i].path);
        /* Open first and create only if missing: an existing file is
         * never truncated, and libnfs's NFSv4 O_CREAT is always exclusive.
         * EEXIST: another job created it in between; open it then. */
        int rc = nfs_open(c->nfs, path, writes ? O_RDWR : O_RDONLY, &fh[i]);
        if (rc == -ENOENT && ej->create && !ej->no_create) {
            rc = nfs_open2(c->nfs, path, O_RDWR | O_CREAT, 0644, &fh[i]);
            if (rc == 0)
                ej->files[i].created = 1;    /* only these may unlink=1 delete */
            if (rc == -EEXIST)
                rc = nfs_open(c->nfs, path, O_RDWR, &fh[i]);
        }
        if (rc != 0) {
            char fu[ENGINE_ERR_MAX];
            fh[i] = NULL;
            nfs_conn_after_sync_failure(c);
            nfse_file_url(ej, i, fu, sizeof(fu));
            return nfse_fail(j, c, nfs_conn_status_errno(c, rc), fu, "open failed");
        }
    }
    return 0;
}

static int nfse_setup(struct engine_job *ej)
{
    ej->err[0] = '\0';
    if (!ej->nfs_url || !*ej->nfs_url) {
        nfs_conn_fmt(ej->err, sizeof(ej->err), "nfs engine: no nfs_url given");
        return -EINVAL;
    }
    struct nfse_job *j = calloc(1, sizeof(*j));
    if (!j) {
        nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: out of memory", ej->nfs_url);
        return -ENOMEM;
    }
    j->ej = ej;
    ej->priv = j;

    char v[16];
    j->v4 = nfs_conn_url_arg(ej->nfs_url, "version", v, sizeof(v)) == 0 && atoi(v) == 4;
    unsigned nconn = ej->spec && ej->spec->nconnect ? ej->spec->nconnect : 1;
    if (nconn > NFS_CONN_MAX) {     /* plan_validate refused it already */
        nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: nconnect=%u is more than %u", ej->nfs_url,
                 nconn, (unsigned)NFS_CONN_MAX);
        nfse_teardown(ej);
        return -EINVAL;
    }
    j->fh = calloc((size_t)nconn * (ej->nfiles ? ej->nfiles : 1), sizeof(*j->fh));
    if (!j->fh) {
        nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: out of memory", ej->nfs_url);
        nfse_teardown(ej);
        return -ENOMEM;
    }

    for (unsigned ci = 0; ci < nconn; ci++) {
        /* NFSv4 servers key state on the client name: every context must
         * look like its own client or they would steal each other's state. */
        char host[64] = "host", name[192];
        (void)gethostname(host, sizeof(host) - 1);
        host[sizeof(host) - 1] = '\0';
        nfs_conn_fmt(name, sizeof(name), "nfstorm-%s-%ld-%u-%u-%u", host, (long)getpid(),
                 ej->agent_index, ej->job_index,
                 atomic_fetch_add(&nfse_client_counter, 1));
        struct nfs_conn_cfg cfg = {
            .url = ej->nfs_url, .v4 = j->v4, .client_name = name,
            .server_timeout_ns = ej->spec && ej->spec->server_timeout_ns
                               ? ej->spec->server_timeout_ns : NFSE_SERVER_TIMEOUT_NS,
            .index = ci, .err = ej->err, .errlen = sizeof(ej->err),
            .hooks = &nfse_hooks, .owner = j, .rpcstat = ej->rpcstat,
        };
        j->nconn = ci + 1;
        int rc = nfs_conn_open(&j->conn[ci], &cfg);
        if (rc == 0)
            rc = nfse_open_files(j, ci);
        if (rc != 0) {
            nfse_teardown(ej);
            return rc;
        }
    }
    j->eof_size = malloc((ej->nfiles ? ej->nfiles : 1) * sizeof(*j->eof_size));
    if (!j->eof_size) {
        nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: out of memory", ej->nfs_url);
        nfse_teardown(ej);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < ej->nfiles; i++)
        j->eof_size[i] = ERRCAUSE_SIZE_UNKNOWN;
    j->nfh = ej->nfiles;
    j->readmax = j->conn[0].readmax;
    j->writemax = j->conn[0].writemax;
    for (unsigned ci = 0; ci < j->nconn; ci++)
        nfs_conn_start(&j->conn[ci]);
    return 0;
}

/* The connection a new request goes to: the one with the fewest RPCs in
 * flight, ties broken round-robin.  Least in-flight rather than plain
 * round-robin because a connection whose socket is backing off after a
 * reconnect, or whose replies are slow, should not get an equal share of
 * new requests; with equal load (the usual case, and always at iodepth 1)
 * it is round-robin, so every connection carries ops. */
static struct nfs_conn *nfse_pick(struct nfse_job *j)
{
    if (j->nconn == 1)
        return &j->conn[0];
    struct nfs_conn *best = NULL;
    uint64_t best_load = UINT64_MAX;
    unsigned start = j->next_conn;
    for (unsigned k = 0; k < j->nconn; k++) {
        struct nfs_conn *c = &j->conn[(start + k) % j->nconn];
        /* a reconnecting socket only if every one is */
        uint64_t load = c->rpcs_inflight + (c->backoff_until_ns ? 1ull << 32 : 0);
        if (!c->dead && load < best_load) {
            best = c;
            best_load = load;
        }
    }
    if (!best)
        best = &j->conn[0];
    j->next_conn = (best->index + 1) % j->nconn;
    return best;
}

static int nfse_queue(struct engine_job *ej, struct io_req *r)
{
    struct nfse_job *j = ej->priv;
    if (j->dead) {
        if (!ej->err[0])
            nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: not connected", ej->nfs_url);
        return -ENOTCONN;
    }
    if (r->file >= j->nfh)
        return -EINVAL;
    struct nfse_op *op = nfse_pool_get(&j->ops, sizeof(*op));
    if (!op)
        return -ENOMEM;
    op->j = j;
    op->next = NULL;
    struct nfs_conn *c = nfse_pick(j);
    op->c = c;
    op->r = r;
    op->kind = r->kind;
    op->result = 0;
    op->status = 0;
    op->file = r->file;
    op->eof_size = ERRCAUSE_SIZE_UNKNOWN;
    op->abandoned = 0;
    op->reaped = 0;
    op->pending = 1;           /* ours until every part is started */
    op->untimed = 0;
    op->last_reply_ns = op->rtt_ns = op->queued_ns = 0;
    r->result = 0;
    r->split_known = 0;
    nfse_ifl_add(j, op);

    struct nfsfh *fh = j->fh[(size_t)c->index * ej->nfiles + r->file];
    int started = 0, rc = 0;
    if (r->kind == IO_SYNC) {
        struct nfse_part *p = nfse_pool_get(&j->parts, sizeof(*p));
        if (!p) {
            rc = -ENOMEM;
        } else {
            p->op = op;
            p->len = 0;
            op->pending++;
            rc = nfs_fsync_async(c->nfs, fh, nfse_rpc_cb, p);
            if (rc != 0) {
                op->pending--;
                nfse_pool_put(&j->parts, p);
            } else {
                started++;
                nfs_conn_rpc_sent(c);
            }
        }
    } else if (r->kind == IO_READ || r->kind == IO_WRITE) {
        uint64_t max = r->kind == IO_READ ? j->readmax : j->writemax;
        for (uint64_t off = 0; off < r->len; ) {
            uint64_t n = r->len - off < max ? r->len - off : max;
            struct nfse_part *p = nfse_pool_get(&j->parts, sizeof(*p));
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            p->op = op;
            p->dst = r->buf + off;
            p->len = n;
            op->pending++;
            nfs_rpcstat_forget_queued(ej->rpcstat);
            if (r->kind == IO_READ)
                rc = nfs_pread_async(c->nfs, fh, r->offset + off, n, nfse_rpc_cb, p);
            else
                rc = nfs_pwrite_async(c->nfs, fh, r->offset + off, n, r->buf + off,
                                      nfse_rpc_cb, p);
            if (rc != 0) {
                op->pending--;
                nfse_pool_put(&j->parts, p);
                break;
            }
            /* the call just queued is this part's: its xid finds its times */
            p->timed = nfs_rpcstat_last_queued(ej->rpcstat, c->nfs, &p->xid) == 0;
            started++;
            nfs_conn_rpc_sent(c);
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
            nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: cannot start %s: %s", fu,
                     r->kind == IO_READ ? "read" : r->kind == IO_WRITE ? "write" : "commit",
                     nfs_conn_errtext(c));
            nfse_ifl_del(j, op);
            nfse_op_put(j, op);
            return err;
        }
        /* Some parts are in flight: the op completes with the error. */
        op->result = err;
    }
    c->ops++;
    nfse_op_release(j, op);    /* drop the queueing reference; reap() sends */
    return 0;
}

static int nfse_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct nfse_job *j = ej->priv;
    if (min > max)
        min = max;

    /* what queue() started since the last reap leaves now, in one go */
    for (unsigned ci = 0; ci < j->nconn; ci++)
        nfs_conn_flush(&j->conn[ci]);
    if (j->ndone < min && j->inflight > 0 && timeout_ns > 0) {
        uint64_t now = clock_now_ns();
        uint64_t until = timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
        while (j->ndone < min && j->inflight > 0 && !j->dead && now < until) {
            nfs_conn_wait(j->conn, j->nconn, until - now);
            if (j->ndone >= min)
                break;
            now = clock_now_ns();
        }
    } else {
        nfs_conn_wait(j->conn, j->nconn, 0);
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
            nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: connection failed", ej->nfs_url);
        return -ENOTCONN;
    }
    return (int)n;
}

static int nfse_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    struct nfse_job *j = ej->priv;
    struct nfs_conn *c = &j->conn[0];
    if (file >= j->nfh)
        return -EINVAL;
    char path[PLAN_PATH_MAX + 2];
    nfs_conn_fmt(path, sizeof(path), "%s%s", ej->files[file].path[0] == '/' ? "" : "/",
             ej->files[file].path);
    if (j->dead)
        return nfse_refuse_dead(j, file, "stat failed");
    struct nfs_stat_64 st;
    int rc = nfs_stat64(c->nfs, path, &st);
    if (rc != 0)
        nfs_conn_after_sync_failure(c);
    nfs_conn_check(c);
    if (rc == -ENOENT)
        return -ENOENT;
    if (rc != 0) {
        char fu[ENGINE_ERR_MAX];
        nfse_file_url(ej, file, fu, sizeof(fu));
        return nfse_fail(j, c, nfs_conn_status_errno(c, rc), fu, "stat failed");
    }
    *size = st.nfs_size;
    return 0;
}

/* FSSTAT of the export: what the server says is free to us.  Which file
 * system that is: the server's host and the fsid of the export's root
 * (GETATTR; FSSTAT carries no fsid, libnfs leaves its f_fsid 0), so jobs
 * whose URLs differ only in path or options (?nconnect=, ?version=) share
 * one place.  Without the GETATTR, the URL without its options. */
static int nfse_space(struct engine_job *ej, struct engine_space *out)
{
    struct nfse_job *j = ej->priv;
    struct nfs_conn *c = &j->conn[0];
    struct nfs_statvfs_64 sv;
    struct nfs_stat_64 st;
    const char *url = ej->nfs_url ? ej->nfs_url : "";
    char base[PLAN_PATH_MAX];
    if (j->dead)
        return -ENOTCONN;
    int rc = nfs_statvfs64(c->nfs, "/", &sv);
    if (rc != 0) {
        nfs_conn_after_sync_failure(c);
        nfs_conn_check(c);
        return nfs_conn_errno(rc);
    }
    nfs_conn_check(c);
    out->avail = sv.f_bavail * (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
    if (nfs_stat64(c->nfs, "/", &st) == 0) {
        out->fs = fnv64_str(FNV64_BASIS, c->server) ^ st.nfs_dev;
    } else {
        nfs_conn_after_sync_failure(c);
        nfs_conn_fmt(base, sizeof base, "%.*s", (int)strcspn(url, "?"), url);
        out->fs = fnv64_str(FNV64_BASIS, base);
    }
    nfs_conn_check(c);
    out->file = fnv64_str(out->fs, ej->nfiles ? ej->files[0].path : "");
    nfs_conn_fmt(out->where, sizeof out->where, "%s", url);
    return 0;
}

void nfse_noop_cb(int status, struct nfs_context *nfs, void *data, void *private_data)
{
    (void)status; (void)nfs; (void)data; (void)private_data;
}

static void nfse_teardown(struct engine_job *ej)
{
    struct nfse_job *j = ej->priv;
    if (!j)
        return;
    j->tearing_down = 1;
    for (unsigned ci = 0; ci < j->nconn; ci++) {
        struct nfs_conn *c = &j->conn[ci];
        if (c->nfs && c->started)
            log_debug("nfs: agent %u job %u: connection %u of %u: %" PRIu64 " ops, %" PRIu64
                      " RPCs", ej->agent_index, ej->job_index, ci + 1, j->nconn, c->ops,
                      c->rpcs_sent);
        struct nfsfh **fh = j->fh ? &j->fh[(size_t)ci * ej->nfiles] : NULL;
        if (!c->nfs)
            continue;
        /* RPCs the server never answered (the job gave up on them) or
         * that failed last (timed out: a stopped or hung server) mean a
         * sync close could wait the RPC timeout for each file, and the
         * agent would not be idle again for minutes: close as on a dead
         * context.  A stranded context is leaked whole (nfs_conn.c). */
        int silent = c->rpcs_inflight > 0 || c->last_rpc_failed;
        for (uint32_t i = 0; fh && !c->stranded && i < ej->nfiles; i++) {
            if (!fh[i])
                continue;
            if (!c->dead && !silent) {
                int rc = nfs_close(c->nfs, fh[i]);
                if (rc != 0)
                    nfs_conn_after_sync_failure(c);
            } else {
                /* Never a sync call on a dead context (it would strand its
                 * RPC); the async close frees the handle when the context
                 * fails its RPC at destroy.  The server forgets a dead
                 * client's opens by itself. */
                (void)nfs_close_async(c->nfs, fh[i], nfse_noop_cb, NULL);
            }
        }
        nfs_conn_close(c);
    }
    nfse_pool_free(&j->ops);
    nfse_pool_free(&j->parts);
    nfse_pool_free(&j->mds);
    free(j->fh);
    free(j->eof_size);
    free(j);
    ej->priv = NULL;
}

static int nfse_negotiated(struct engine_job *ej, uint32_t *version, uint64_t *rsize, uint64_t *wsize)
{
    struct nfse_job *j = ej->priv;
    *version = 0;
    *rsize = *wsize = 0;
    if (!j || !j->nconn || !j->conn[0].nfs)
        return 0;
    struct nfs_context *nfs = j->conn[0].nfs;
    *version = (uint32_t)nfs_get_version(nfs);
    /* what requests are split at: the server's maxima when it gave them */
    *rsize = j->readmax;
    *wsize = j->writemax;
    return nfs_get_readmax(nfs) != 0 && nfs_get_writemax(nfs) != 0;
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
