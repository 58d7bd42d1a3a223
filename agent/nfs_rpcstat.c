/* nfs_rpcstat: libnfs observer -> struct nfs_rpc_set.
 *
 * In-flight calls live in an open-addressing table keyed by context and
 * xid (linear probing, backward-shift deletion, so no tombstones build up
 * over a long run); it doubles when half full, so an iodepth of thousands costs one
 * probe or two per event.  The reply parser reads only the words it needs,
 * each after checking it is there. */
#include "agent/nfs_rpcstat.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#include "common/clock.h"
#include "common/sat.h"
#include "common/xmalloc.h"

#ifndef LIBNFS_RPC_OBSERVER
#error "libnfs lacks the per-RPC observer: build the project's patched libnfs (scripts/build-libnfs.sh)"
#endif
#if LIBNFS_RPC_OBSERVER < 2
#error "deps/libnfs was built from an older scripts/libnfs-observer.patch (no send time, no QUEUED event): run scripts/build-libnfs.sh"
#endif

#define PROG_PORTMAP 100000u
#define PROG_NFS     100003u
#define PROG_MOUNT   100005u
#define V4_COMPOUND  1u
#define VERF_MAX     400u     /* RFC 5531: opaque_auth body <= 400 bytes */
#define TAG_MAX      1024u    /* a sane cap for a COMPOUND4res tag */
#define FH4_MAX      128u     /* NFS4_FHSIZE */
#define BITMAP4_MAX  8u       /* attribute bitmap words (v4.2 uses 3) */
#define ATTRLIST4_MAX 65536u  /* a sane cap for a GETATTR's attributes */

struct slot {
    const void *ctx;                   /* the rpc_context: nconnect gives a job
                                          several, each with its own xids */
    uint32_t xid;
    uint32_t used;
    uint32_t program, version, procedure;
    uint64_t t_queued_ns;              /* 0: not seen queued (attached later) */
    uint64_t t_sent_ns;                /* 0: not sent yet */
    uint64_t bytes_out;
};

struct nfs_rpcstat {
    pthread_mutex_t mu;
    struct nfs_rpc_set set;            /* guarded by mu */
    atomic_uint_fast32_t last_error;
    struct slot *tab;                  /* observer's thread only */
    uint32_t cap, n;                   /* cap: a power of two */
    /* the latest QUEUED and REPLY, for nfs_rpcstat_last_queued and
     * nfs_rpcstat_reply_times (observer's thread only) */
    const void *queued_ctx;
    uint32_t queued_xid;
    const void *reply_ctx;
    uint32_t reply_xid;
    struct nfs_rpc_times reply_times;
};

/* ---- reply parsing ---- */

struct rd {
    const unsigned char *p;
    size_t left;
};

static int rd_u32(struct rd *r, uint32_t *v)
{
    if (r->left < 4)
        return -1;
    uint32_t be;
    memcpy(&be, r->p, 4);
    *v = ntohl(be);
    r->p += 4;
    r->left -= 4;
    return 0;
}

static int rd_skip(struct rd *r, size_t n)
{
    if (r->left < n)
        return -1;
    r->p += n;
    r->left -= n;
    return 0;
}

/* opaque<max>: length, bytes, padding to 4 */
static int rd_opaque(struct rd *r, uint32_t max)
{
    uint32_t len;
    if (rd_u32(r, &len) || len > max)
        return -1;
    return rd_skip(r, ((size_t)len + 3) & ~(size_t)3);
}

static unsigned call_proc(uint32_t program, uint32_t version, uint32_t procedure)
{
    if (program == PROG_NFS) {
        if (procedure == 0)
            return NFSP_NULL;
        if (version == 3)
            return nfs_proc_v3(procedure);
        if (version == 4 && procedure == V4_COMPOUND)
            return NFSP_COMPOUND;
        return NFSP_OTHER;
    }
    if (program == PROG_MOUNT)
        return NFSP_MOUNT;
    if (program == PROG_PORTMAP)
        return NFSP_PORTMAP;
    return NFSP_OTHER;
}

/* How much an op says about its COMPOUND.  A compound sets the scene
 * (PUTFH, PUTROOTFH, SAVEFH, SEQUENCE, GETFH: 1), may look a name up or
 * check attributes or access (LOOKUP, GETATTR, ACCESS: 2), and usually does one thing (READ,
 * WRITE, OPEN, CLOSE, COMMIT, ...: 3).  The compound is named after its
 * first op of the highest rank, or the op that failed. */
static int v4_rank(uint32_t op)
{
    switch (op) {
    case 10: case 22: case 23: case 24: case 31: case 32: case 53:
        return 1;
    case 3: case 9: case 15: case 16:
        return 2;
    default:
        return 3;
    }
}

/* Skip the result body (after its status) of an op of rank < 3 that
 * succeeded.  -1 when it is not there or not an op we can skip. */
static int v4_skip_result(struct rd *r, uint32_t op)
{
    uint32_t n;
    switch (op) {
    case 15: case 16: case 22: case 23: case 24: case 31: case 32:
        return 0;                                  /* status only */
    case 3:
        return rd_skip(r, 8);                      /* ACCESS4resok: supported, access */
    case 10:
        return rd_opaque(r, FH4_MAX);              /* GETFH4resok: nfs_fh4 */
    case 9:                                        /* GETATTR4resok: fattr4 */
        if (rd_u32(r, &n) || n > BITMAP4_MAX || rd_skip(r, (size_t)n * 4))
            return -1;
        return rd_opaque(r, ATTRLIST4_MAX);
    case 53:
        return rd_skip(r, 16 + 5 * 4);             /* SEQUENCE4resok: sessionid + 5 words */
    default:
        return -1;
    }
}

static void parse_compound(struct rd *r, struct nfs_rpc_reply *out)
{
    uint32_t status, count, op, opstatus;
    int best = 0;
    if (rd_u32(r, &status) || rd_opaque(r, TAG_MAX) || rd_u32(r, &count))
        return;
    if (status != 0)
        out->status = NFS_STATUS_CODE(NFS_STATUS_CLASS_V4, status);
    for (uint32_t i = 0; i < count; i++) {
        if (rd_u32(r, &op) || rd_u32(r, &opstatus))
            return;
        int rank = v4_rank(op);
        if (rank > best || opstatus != 0) {
            out->proc = nfs_proc_v4op(op);
            best = rank;
        }
        if (opstatus != 0 || rank == 3 || v4_skip_result(r, op) < 0)
            return;                   /* the op that failed, or did the work */
    }
}

int nfs_rpcstat_parse_reply(const void *msg, size_t len, uint32_t program, uint32_t version,
                            uint32_t procedure, struct nfs_rpc_reply *out)
{
    struct rd r = { msg, msg ? len : 0 };
    uint32_t xid, mtype, rstat, flavor, astat, nfsstat;

    out->proc = call_proc(program, version, procedure);
    out->status = 0;
    if (rd_u32(&r, &xid) || rd_u32(&r, &mtype) || mtype != 1 || rd_u32(&r, &rstat))
        return -EBADMSG;
    if (rstat == 1) {                         /* MSG_DENIED: reject_stat */
        uint32_t rej;
        if (rd_u32(&r, &rej) || rej > 1)
            return -EBADMSG;
        out->status = NFS_STATUS_CODE(NFS_STATUS_CLASS_RPC, 100 + rej);
        return 0;
    }
    if (rstat != 0 || rd_u32(&r, &flavor) || rd_opaque(&r, VERF_MAX) || rd_u32(&r, &astat))
        return -EBADMSG;
    (void)flavor;
    if (astat != 0) {
        if (astat > 5)
            return -EBADMSG;
        out->status = NFS_STATUS_CODE(NFS_STATUS_CLASS_RPC, astat);
        return 0;
    }
    if (program != PROG_NFS || procedure == 0)
        return 0;                             /* MOUNT, portmap, NULL: no NFS status */
    if (version == 3) {
        if (rd_u32(&r, &nfsstat))
            return -EBADMSG;
        if (nfsstat != 0)
            out->status = NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, nfsstat);
        return 0;
    }
    if (version == 4 && procedure == V4_COMPOUND) {
        if (r.left < 12)
            return -EBADMSG;
        parse_compound(&r, out);
    }
    return 0;
}

/* ---- the xid table ---- */

static uint32_t slot_hash(const void *ctx, uint32_t xid, uint32_t mask)
{
    uint64_t k = (uint64_t)(uintptr_t)ctx ^ ((uint64_t)xid << 7);
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static struct slot *tab_find(struct nfs_rpcstat *st, const void *ctx, uint32_t xid)
{
    uint32_t mask = st->cap - 1;
    for (uint32_t i = slot_hash(ctx, xid, mask);; i = (i + 1) & mask) {
        if (!st->tab[i].used)
            return NULL;
        if (st->tab[i].xid == xid && st->tab[i].ctx == ctx)
            return &st->tab[i];
    }
}

static void tab_grow(struct nfs_rpcstat *st);

static struct slot *tab_insert(struct nfs_rpcstat *st, const void *ctx, uint32_t xid)
{
    if ((st->n + 1) * 2 > st->cap)
        tab_grow(st);
    uint32_t mask = st->cap - 1, i = slot_hash(ctx, xid, mask);
    while (st->tab[i].used)
        i = (i + 1) & mask;
    memset(&st->tab[i], 0, sizeof(st->tab[i]));
    st->tab[i].used = 1;
    st->tab[i].ctx = ctx;
    st->tab[i].xid = xid;
    st->n++;
    return &st->tab[i];
}

static void tab_grow(struct nfs_rpcstat *st)
{
    struct slot *old = st->tab;
    uint32_t oldcap = st->cap;
    st->cap = oldcap * 2;
    st->tab = xcalloc(st->cap, sizeof(*st->tab));
    st->n = 0;
    for (uint32_t i = 0; i < oldcap; i++) {
        if (old[i].used) {
            struct slot *s = tab_insert(st, old[i].ctx, old[i].xid);
            *s = old[i];
        }
    }
    free(old);
}

/* Backward-shift deletion: later entries of the probe run move up. */
static void tab_remove(struct nfs_rpcstat *st, struct slot *s)
{
    uint32_t mask = st->cap - 1, i = (uint32_t)(s - st->tab), j = i;
    st->tab[i].used = 0;
    st->n--;
    for (;;) {
        j = (j + 1) & mask;
        if (!st->tab[j].used)
            return;
        uint32_t home = slot_hash(st->tab[j].ctx, st->tab[j].xid, mask);
        /* move j to i when its home is not in (i, j] cyclically */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        st->tab[i] = st->tab[j];
        st->tab[j].used = 0;
        i = j;
    }
}

/* ---- observer ---- */

/* A call seen first (queued, or sent without its queued event): its slot,
 * named by program, version and procedure. */
static struct slot *tab_add(struct nfs_rpcstat *st, const void *rpc, const struct rpc_observation *obs)
{
    struct slot *s = tab_insert(st, rpc, obs->xid);
    s->program = obs->program;
    s->version = obs->version;
    s->procedure = obs->procedure;
    return s;
}

static void on_observe(struct rpc_context *rpc, const struct rpc_observation *obs, void *data)
{
    struct nfs_rpcstat *st = data;
    /* libnfs's own instant (CLOCK_MONOTONIC, as clock_now_ns): for SENT the
     * moment before the send() that handed over the last byte, not after it
     * returned (on a local link that send() may run the server's side and
     * return with the reply already in) */
    uint64_t now = obs->t_ns;
    struct slot *s;

    if (obs->event == RPC_OBSERVE_RECONNECT) {
        pthread_mutex_lock(&st->mu);
        st->set.reconnects++;
        pthread_mutex_unlock(&st->mu);
        return;
    }
    s = tab_find(st, rpc, obs->xid);
    if (obs->event == RPC_OBSERVE_QUEUED) {      /* not an enumerator: see libnfs-raw.h */
        s = s ? s : tab_add(st, rpc, obs);
        s->t_queued_ns = now;
        st->queued_ctx = rpc;
        st->queued_xid = obs->xid;
        return;
    }
    switch (obs->event) {
    case RPC_OBSERVE_SENT: {
        int again = s != NULL && s->t_sent_ns != 0;
        s = s ? s : tab_add(st, rpc, obs);
        s->t_sent_ns = now;
        s->bytes_out += obs->bytes;
        if (again) {
            pthread_mutex_lock(&st->mu);
            st->set.retransmits++;
            pthread_mutex_unlock(&st->mu);
        }
        return;
    }
    case RPC_OBSERVE_REPLY: {
        if (!s)
            return;
        struct nfs_rpc_reply rep;
        nfs_rpcstat_parse_reply(obs->reply, obs->reply_len, s->program, s->version,
                                s->procedure, &rep);
        uint64_t rtt = now > s->t_sent_ns ? now - s->t_sent_ns : 0;
        st->reply_ctx = rpc;
        st->reply_xid = obs->xid;
        st->reply_times.queued_ns = s->t_queued_ns ? s->t_queued_ns : s->t_sent_ns;
        st->reply_times.sent_ns = s->t_sent_ns;
        st->reply_times.reply_ns = now;
        pthread_mutex_lock(&st->mu);
        struct nfs_rpc_proc *p = nfs_rpc_set_proc(&st->set, rep.proc);
        p->calls++;
        p->bytes_out += s->bytes_out;
        p->bytes_in += obs->bytes;
        hist_record(&p->rtt, rtt);
        if (rep.status) {
            p->errors++;
            nfs_rpc_proc_error(p, rep.status, 1);
        }
        pthread_mutex_unlock(&st->mu);
        if (rep.status)
            atomic_store(&st->last_error, rep.status);
        tab_remove(st, s);
        return;
    }
    case RPC_OBSERVE_TIMEOUT: {
        if (!s)
            return;
        pthread_mutex_lock(&st->mu);
        struct nfs_rpc_proc *p = nfs_rpc_set_proc(&st->set,
                                                  call_proc(s->program, s->version, s->procedure));
        p->calls++;
        p->bytes_out += s->bytes_out;
        st->set.timeouts++;
        pthread_mutex_unlock(&st->mu);
        tab_remove(st, s);
        return;
    }
    case RPC_OBSERVE_DROP:
        if (s)
            tab_remove(st, s);
        return;
    case RPC_OBSERVE_REQUEUE:
    case RPC_OBSERVE_RECONNECT:
        return;
    }
}

struct nfs_rpcstat *nfs_rpcstat_new(void)
{
    struct nfs_rpcstat *st = xcalloc(1, sizeof(*st));
    pthread_mutex_init(&st->mu, NULL);
    nfs_rpc_set_init(&st->set);
    atomic_init(&st->last_error, 0);
    st->cap = 64;
    st->tab = xcalloc(st->cap, sizeof(*st->tab));
    return st;
}

void nfs_rpcstat_free(struct nfs_rpcstat *st)
{
    if (!st)
        return;
    nfs_rpc_set_free(&st->set);
    pthread_mutex_destroy(&st->mu);
    free(st->tab);
    free(st);
}

void nfs_rpcstat_attach(struct nfs_rpcstat *st, struct rpc_context *rpc)
{
    if (rpc)
        rpc_set_observer(rpc, st ? on_observe : NULL, st);
}

void nfs_rpcstat_harvest(struct nfs_rpcstat *st, struct nfs_rpc_set *acc)
{
    struct nfs_rpc_set taken;
    if (!st)
        return;
    pthread_mutex_lock(&st->mu);
    taken = st->set;                /* move out: the merge runs unlocked */
    nfs_rpc_set_init(&st->set);
    pthread_mutex_unlock(&st->mu);
    nfs_rpc_set_merge(acc, &taken);
    nfs_rpc_set_free(&taken);
}

int nfs_rpcstat_last_queued(const struct nfs_rpcstat *st, struct nfs_context *nfs, uint32_t *xid)
{
    const struct rpc_context *rpc = nfs ? nfs_get_rpc_context(nfs) : NULL;
    if (!st || !rpc || st->queued_ctx != rpc)
        return -ENOENT;
    *xid = st->queued_xid;
    return 0;
}

void nfs_rpcstat_forget_queued(struct nfs_rpcstat *st)
{
    if (st)
        st->queued_ctx = NULL;
}

int nfs_rpcstat_reply_times(const struct nfs_rpcstat *st, struct nfs_context *nfs, uint32_t xid,
                            struct nfs_rpc_times *out)
{
    const struct rpc_context *rpc = nfs ? nfs_get_rpc_context(nfs) : NULL;
    if (!st || !rpc || st->reply_ctx != rpc || st->reply_xid != xid)
        return -ENOENT;
    *out = st->reply_times;
    return 0;
}

void nfs_rpcstat_op_split(struct nfs_rpcstat *st, unsigned kind, uint64_t lat_ns, uint64_t rtt_ns,
                          uint64_t queued_ns, uint64_t late_ns)
{
    if (!st || kind >= NFS_SPLIT__COUNT)
        return;
    pthread_mutex_lock(&st->mu);
    struct nfs_op_split *sp = &st->set.split[kind];
    sp->ops++;
    sp->lat_ns = sat_add_u64(sp->lat_ns, lat_ns);
    sp->rtt_ns = sat_add_u64(sp->rtt_ns, rtt_ns);
    sp->queued_ns = sat_add_u64(sp->queued_ns, queued_ns);
    sp->late_ns = sat_add_u64(sp->late_ns, late_ns);
    pthread_mutex_unlock(&st->mu);
}
