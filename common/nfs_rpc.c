/* nfs_rpc: procedure and status name tables, and the mergeable set.
 *
 * The tables are written from the protocol numbers of RFC 1813 (NFSv3
 * procedures, nfsstat3) and RFC 7530/8881 (NFSv4 ops, nfsstat4); a name
 * exists once, by number, so reports and the wire agree by construction. */
#include "common/nfs_rpc.h"
#include "common/sat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "common/names.h"

static const char *const proc_names[NFSP__COUNT] = {
    [NFSP_NULL] = "NULL", [NFSP_GETATTR] = "GETATTR", [NFSP_SETATTR] = "SETATTR",
    [NFSP_LOOKUP] = "LOOKUP", [NFSP_ACCESS] = "ACCESS", [NFSP_READLINK] = "READLINK",
    [NFSP_READ] = "READ", [NFSP_WRITE] = "WRITE", [NFSP_CREATE] = "CREATE",
    [NFSP_MKDIR] = "MKDIR", [NFSP_SYMLINK] = "SYMLINK", [NFSP_MKNOD] = "MKNOD",
    [NFSP_REMOVE] = "REMOVE", [NFSP_RMDIR] = "RMDIR", [NFSP_RENAME] = "RENAME",
    [NFSP_LINK] = "LINK", [NFSP_READDIR] = "READDIR", [NFSP_READDIRPLUS] = "READDIRPLUS",
    [NFSP_FSSTAT] = "FSSTAT", [NFSP_FSINFO] = "FSINFO", [NFSP_PATHCONF] = "PATHCONF",
    [NFSP_COMMIT] = "COMMIT",
    [NFSP_CLOSE] = "CLOSE", [NFSP_DELEGRETURN] = "DELEGRETURN", [NFSP_GETFH] = "GETFH",
    [NFSP_LOCK] = "LOCK", [NFSP_LOCKT] = "LOCKT", [NFSP_LOCKU] = "LOCKU",
    [NFSP_LOOKUPP] = "LOOKUPP", [NFSP_OPEN] = "OPEN", [NFSP_OPEN_CONFIRM] = "OPEN_CONFIRM",
    [NFSP_OPEN_DOWNGRADE] = "OPEN_DOWNGRADE", [NFSP_PUTFH] = "PUTFH",
    [NFSP_PUTROOTFH] = "PUTROOTFH", [NFSP_RENEW] = "RENEW", [NFSP_RESTOREFH] = "RESTOREFH",
    [NFSP_SAVEFH] = "SAVEFH", [NFSP_SECINFO] = "SECINFO", [NFSP_SETCLIENTID] = "SETCLIENTID",
    [NFSP_SETCLIENTID_CONFIRM] = "SETCLIENTID_CONFIRM", [NFSP_VERIFY] = "VERIFY",
    [NFSP_RELEASE_LOCKOWNER] = "RELEASE_LOCKOWNER", [NFSP_EXCHANGE_ID] = "EXCHANGE_ID",
    [NFSP_CREATE_SESSION] = "CREATE_SESSION", [NFSP_DESTROY_SESSION] = "DESTROY_SESSION",
    [NFSP_SEQUENCE] = "SEQUENCE", [NFSP_RECLAIM_COMPLETE] = "RECLAIM_COMPLETE",
    [NFSP_COMPOUND] = "COMPOUND", [NFSP_MOUNT] = "MOUNT", [NFSP_PORTMAP] = "PORTMAP",
    [NFSP_OTHER] = "OTHER",
};

const char *nfs_proc_name(unsigned id)
{
    return id < NFSP__COUNT ? proc_names[id] : "OTHER";
}

int nfs_proc_from_name(const char *name)
{
    return names_index(proc_names, NFSP__COUNT, name);
}

unsigned nfs_proc_v3(uint32_t procedure)
{
    /* v3 procedures 0..21 are NFSP_NULL..NFSP_COMMIT in order */
    return procedure <= 21 ? procedure : NFSP_OTHER;
}

unsigned nfs_proc_v4op(uint32_t op)
{
    static const unsigned char v4[] = {
        [3] = NFSP_ACCESS, [4] = NFSP_CLOSE, [5] = NFSP_COMMIT, [6] = NFSP_CREATE,
        [8] = NFSP_DELEGRETURN, [9] = NFSP_GETATTR, [10] = NFSP_GETFH, [11] = NFSP_LINK,
        [12] = NFSP_LOCK, [13] = NFSP_LOCKT, [14] = NFSP_LOCKU, [15] = NFSP_LOOKUP,
        [16] = NFSP_LOOKUPP, [17] = NFSP_VERIFY /* NVERIFY */, [18] = NFSP_OPEN,
        [20] = NFSP_OPEN_CONFIRM, [21] = NFSP_OPEN_DOWNGRADE, [22] = NFSP_PUTFH,
        [23] = NFSP_PUTROOTFH /* PUTPUBFH */, [24] = NFSP_PUTROOTFH, [25] = NFSP_READ,
        [26] = NFSP_READDIR, [27] = NFSP_READLINK, [28] = NFSP_REMOVE, [29] = NFSP_RENAME,
        [30] = NFSP_RENEW, [31] = NFSP_RESTOREFH, [32] = NFSP_SAVEFH, [33] = NFSP_SECINFO,
        [34] = NFSP_SETATTR, [35] = NFSP_SETCLIENTID, [36] = NFSP_SETCLIENTID_CONFIRM,
        [37] = NFSP_VERIFY, [38] = NFSP_WRITE, [39] = NFSP_RELEASE_LOCKOWNER,
        [42] = NFSP_EXCHANGE_ID, [43] = NFSP_CREATE_SESSION, [44] = NFSP_DESTROY_SESSION,
        [53] = NFSP_SEQUENCE, [58] = NFSP_RECLAIM_COMPLETE,
    };
    if (op < sizeof(v4) && v4[op] != 0)
        return v4[op];
    return NFSP_OTHER;
}

struct status_name {
    uint16_t num;
    const char *name;     /* without the NFS3ERR_ / NFS4ERR_ prefix */
};

/* Numbers both versions give the same name. */
static const struct status_name st_common[] = {
    {1, "PERM"}, {2, "NOENT"}, {5, "IO"}, {6, "NXIO"}, {17, "EXIST"}, {18, "XDEV"},
    {19, "NODEV"}, {20, "NOTDIR"}, {21, "ISDIR"}, {22, "INVAL"}, {27, "FBIG"},
    {28, "NOSPC"}, {30, "ROFS"}, {31, "MLINK"}, {63, "NAMETOOLONG"}, {66, "NOTEMPTY"},
    {69, "DQUOT"}, {70, "STALE"}, {10001, "BADHANDLE"}, {10003, "BAD_COOKIE"},
    {10004, "NOTSUPP"}, {10005, "TOOSMALL"}, {10006, "SERVERFAULT"}, {10007, "BADTYPE"},
};
static const struct status_name st_v3[] = {
    {13, "ACCES"}, {71, "REMOTE"}, {10002, "NOT_SYNC"}, {10008, "JUKEBOX"},
};
static const struct status_name st_v4[] = {
    {13, "ACCESS"}, {10008, "DELAY"}, {10009, "SAME"}, {10010, "DENIED"},
    {10011, "EXPIRED"}, {10012, "LOCKED"}, {10013, "GRACE"}, {10014, "FHEXPIRED"},
    {10015, "SHARE_DENIED"}, {10016, "WRONGSEC"}, {10017, "CLID_INUSE"},
    {10018, "RESOURCE"}, {10019, "MOVED"}, {10020, "NOFILEHANDLE"},
    {10021, "MINOR_VERS_MISMATCH"}, {10022, "STALE_CLIENTID"}, {10023, "STALE_STATEID"},
    {10024, "OLD_STATEID"}, {10025, "BAD_STATEID"}, {10026, "BAD_SEQID"},
    {10027, "NOT_SAME"}, {10028, "LOCK_RANGE"}, {10029, "SYMLINK"}, {10030, "RESTOREFH"},
    {10031, "LEASE_MOVED"}, {10032, "ATTRNOTSUPP"}, {10033, "NO_GRACE"},
    {10034, "RECLAIM_BAD"}, {10035, "RECLAIM_CONFLICT"}, {10036, "BADXDR"},
    {10037, "LOCKS_HELD"}, {10038, "OPENMODE"}, {10039, "BADOWNER"}, {10040, "BADCHAR"},
    {10041, "BADNAME"}, {10042, "BAD_RANGE"}, {10043, "LOCK_NOTSUPP"},
    {10044, "OP_ILLEGAL"}, {10045, "DEADLOCK"}, {10046, "FILE_OPEN"},
    {10047, "ADMIN_REVOKED"}, {10048, "CB_PATH_DOWN"},
};
/* accept_stat 1..5, and 100 + reject_stat (0 RPC_MISMATCH, 1 AUTH_ERROR) */
static const struct status_name st_rpc[] = {
    {1, "PROG_UNAVAIL"}, {2, "PROG_MISMATCH"}, {3, "PROC_UNAVAIL"},
    {4, "GARBAGE_ARGS"}, {5, "SYSTEM_ERR"}, {100, "MISMATCH"}, {101, "AUTH_ERROR"},
};


/* The three classes of status: their prefix and table (NFSv3 and v4 fall
 * back to the codes they share, st_common). */
static const struct status_class {
    uint32_t cls;
    const char *prefix;
    const struct status_name *t;
    size_t n;
} classes[] = {
    { NFS_STATUS_CLASS_RPC, "RPC_", st_rpc, NELEM(st_rpc) },
    { NFS_STATUS_CLASS_V3, "NFS3ERR_", st_v3, NELEM(st_v3) },
    { NFS_STATUS_CLASS_V4, "NFS4ERR_", st_v4, NELEM(st_v4) },
};

static const struct status_class *st_class(uint32_t cls)
{
    for (size_t c = 0; c < NELEM(classes); c++)
        if (classes[c].cls == cls)
            return &classes[c];
    return NULL;
}

static const char *st_find(const struct status_class *k, uint32_t num)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->t[i].num == num)
            return k->t[i].name;
    for (size_t i = 0; k->cls != NFS_STATUS_CLASS_RPC && i < NELEM(st_common); i++)
        if (st_common[i].num == num)
            return st_common[i].name;
    return NULL;
}

int nfs_status_valid(uint32_t code)
{
    return st_class(code >> 16) != NULL;
}

const char *nfs_status_name(uint32_t code, char *buf, size_t len)
{
    uint32_t num = code & 0xffffu;
    const struct status_class *k = st_class(code >> 16);
    const char *name = k ? st_find(k, num) : NULL;
    if (!k)
        snprintf(buf, len, "STATUS_%u", code);
    else if (name)
        snprintf(buf, len, "%s%s", k->prefix, name);
    else
        snprintf(buf, len, "%s%u", k->prefix, num);
    return buf;
}

int64_t nfs_status_from_name(const char *name)
{
    /* the class by its prefix, then a bare number or a name of its tables
     * (no number is in both a class's table and st_common) */
    for (size_t c = 0; c < NELEM(classes); c++) {
        const struct status_class *k = &classes[c];
        size_t pl = strlen(k->prefix);
        if (strncmp(name, k->prefix, pl) != 0)
            continue;
        const char *rest = name + pl;
        if (*rest >= '0' && *rest <= '9') {
            char *end;
            unsigned long v = strtoul(rest, &end, 10);
            if (*end || v > 0xffff)
                return -1;
            return NFS_STATUS_CODE(k->cls, v);
        }
        for (size_t i = 0; i < k->n + (k->cls != NFS_STATUS_CLASS_RPC ? NELEM(st_common) : 0); i++) {
            const struct status_name *s = i < k->n ? &k->t[i] : &st_common[i - k->n];
            if (strcmp(rest, s->name) == 0)
                return NFS_STATUS_CODE(k->cls, s->num);
        }
        return -1;
    }
    return -1;
}

void nfs_rpc_set_init(struct nfs_rpc_set *s)
{
    memset(s, 0, sizeof(*s));
}

void nfs_rpc_set_free(struct nfs_rpc_set *s)
{
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        free(s->proc[i]);
    nfs_rpc_set_init(s);
}

int nfs_rpc_set_empty(const struct nfs_rpc_set *s)
{
    if (s->retransmits || s->timeouts || s->reconnects)
        return 0;
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++)
        if (s->split[k].ops)
            return 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        if (s->proc[i] && s->proc[i]->calls)
            return 0;
    return 1;
}

struct nfs_rpc_proc *nfs_rpc_set_proc(struct nfs_rpc_set *s, unsigned id)
{
    if (id >= NFSP__COUNT)
        id = NFSP_OTHER;
    if (!s->proc[id]) {
        s->proc[id] = xcalloc(1, sizeof(*s->proc[id]));
        hist_init(&s->proc[id]->rtt);
    }
    return s->proc[id];
}

void nfs_rpc_proc_error(struct nfs_rpc_proc *p, uint32_t code, uint64_t n)
{
    for (uint32_t i = 0; i < p->nstatus; i++) {
        if (p->status[i].code == code) {
            p->status[i].n += n;
            return;
        }
    }
    if (p->nstatus < NFS_RPC_STATUS_MAX) {
        p->status[p->nstatus].code = code;
        p->status[p->nstatus].n = n;
        p->nstatus++;
    } else {
        p->status_other += n;
    }
}

static void proc_merge(struct nfs_rpc_proc *d, const struct nfs_rpc_proc *s)
{
    d->calls = sat_add_u64(d->calls, s->calls);
    d->bytes_out = sat_add_u64(d->bytes_out, s->bytes_out);
    d->bytes_in = sat_add_u64(d->bytes_in, s->bytes_in);
    d->errors = sat_add_u64(d->errors, s->errors);
    d->status_other = sat_add_u64(d->status_other, s->status_other);
    hist_merge(&d->rtt, &s->rtt);
    for (uint32_t i = 0; i < s->nstatus; i++)
        nfs_rpc_proc_error(d, s->status[i].code, s->status[i].n);
}

void nfs_rpc_set_merge(struct nfs_rpc_set *dst, const struct nfs_rpc_set *src)
{
    dst->retransmits = sat_add_u64(dst->retransmits, src->retransmits);
    dst->timeouts = sat_add_u64(dst->timeouts, src->timeouts);
    dst->reconnects = sat_add_u64(dst->reconnects, src->reconnects);
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        if (src->proc[i])
            proc_merge(nfs_rpc_set_proc(dst, i), src->proc[i]);
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        struct nfs_op_split *d = &dst->split[k];
        const struct nfs_op_split *o = &src->split[k];
        d->ops = sat_add_u64(d->ops, o->ops);
        d->lat_ns = sat_add_u64(d->lat_ns, o->lat_ns);
        d->rtt_ns = sat_add_u64(d->rtt_ns, o->rtt_ns);
        d->queued_ns = sat_add_u64(d->queued_ns, o->queued_ns);
        d->late_ns = sat_add_u64(d->late_ns, o->late_ns);
    }
}

uint64_t nfs_op_split_client(const struct nfs_op_split *s)
{
    uint64_t parts = sat_add_u64(sat_add_u64(s->rtt_ns, s->queued_ns), s->late_ns);
    return s->lat_ns > parts ? s->lat_ns - parts : 0;
}

int nfs_op_split_valid(const struct nfs_op_split *s)
{
    uint64_t parts;
    if (__builtin_add_overflow(s->rtt_ns, s->queued_ns, &parts) ||
        __builtin_add_overflow(parts, s->late_ns, &parts))
        return 0;
    return parts <= s->lat_ns && (s->ops > 0 || s->lat_ns == 0);
}

const char *nfs_op_split_name(unsigned kind)
{
    return kind == NFS_SPLIT_WRITE ? "write" : "read";
}

int nfs_rpc_status_expected(unsigned id, uint32_t code)
{
    return id == NFSP_LOOKUP && (code == NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 2) ||
                                 code == NFS_STATUS_CODE(NFS_STATUS_CLASS_V4, 2));
}

uint64_t nfs_rpc_proc_expected(unsigned id, const struct nfs_rpc_proc *p)
{
    uint64_t n = 0;
    for (uint32_t k = 0; p && k < p->nstatus; k++)
        if (nfs_rpc_status_expected(id, p->status[k].code))
            n = sat_add_u64(n, p->status[k].n);
    return n;
}

uint64_t nfs_rpc_set_failed(const struct nfs_rpc_set *s, uint64_t *expected)
{
    uint64_t failed = 0, exp = 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p)
            continue;
        uint64_t e = nfs_rpc_proc_expected(i, p);
        exp = sat_add_u64(exp, e);
        failed = sat_add_u64(failed, p->errors - (e < p->errors ? e : p->errors));
    }
    if (expected)
        *expected = exp;
    return failed;
}
