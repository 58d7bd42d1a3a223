/* nfs_rpc: per-procedure NFS RPC telemetry, the unit the nfs engine's
 * observer records (agent/nfs_rpcstat.h) and every report shows.
 *
 * A set holds, per NFS procedure (v3 procedure or the significant op of a
 * v4 COMPOUND; MOUNT and NULL too), calls, bytes sent and received, the
 * round-trip time of each call from the moment its last byte was handed to
 * the socket to its reply (struct hist: exact, mergeable), and errors by NFS
 * status; plus the connection's retransmits, timeouts and reconnects, and
 * where the engine's reads and writes spent their time (nfs_op_split).
 * Everything is summed when merged, so fleet totals are exact sums of the
 * agents'.
 *
 * Names come from fixed tables by number (procedure ids, status codes), so
 * a peer's message never puts a free string into a report.  A procedure's
 * entry is allocated at its first call (a dense histogram is 20 KB; a run
 * touches a handful of procedures); nfs_rpc_set_free releases them. */
#ifndef NFSTORM_NFS_RPC_H
#define NFSTORM_NFS_RPC_H

#include <stdint.h>
#include <stddef.h>
#include "common/hist.h"

/* Procedure ids: one name each, shared by v3 and v4 where the name is the
 * same (READ, WRITE, ...). */
enum nfs_proc {
    NFSP_NULL = 0, NFSP_GETATTR, NFSP_SETATTR, NFSP_LOOKUP, NFSP_ACCESS,
    NFSP_READLINK, NFSP_READ, NFSP_WRITE, NFSP_CREATE, NFSP_MKDIR,
    NFSP_SYMLINK, NFSP_MKNOD, NFSP_REMOVE, NFSP_RMDIR, NFSP_RENAME,
    NFSP_LINK, NFSP_READDIR, NFSP_READDIRPLUS, NFSP_FSSTAT, NFSP_FSINFO,
    NFSP_PATHCONF, NFSP_COMMIT,
    /* v4 ops without a v3 twin */
    NFSP_CLOSE, NFSP_DELEGRETURN, NFSP_GETFH, NFSP_LOCK, NFSP_LOCKT,
    NFSP_LOCKU, NFSP_LOOKUPP, NFSP_OPEN, NFSP_OPEN_CONFIRM,
    NFSP_OPEN_DOWNGRADE, NFSP_PUTFH, NFSP_PUTROOTFH, NFSP_RENEW,
    NFSP_RESTOREFH, NFSP_SAVEFH, NFSP_SECINFO, NFSP_SETCLIENTID,
    NFSP_SETCLIENTID_CONFIRM, NFSP_VERIFY, NFSP_RELEASE_LOCKOWNER,
    NFSP_EXCHANGE_ID, NFSP_CREATE_SESSION, NFSP_DESTROY_SESSION,
    NFSP_SEQUENCE, NFSP_RECLAIM_COMPLETE,
    /* not one procedure */
    NFSP_COMPOUND,       /* a v4 COMPOUND whose op is not known (no reply) */
    NFSP_MOUNT,          /* MOUNT protocol (any procedure) */
    NFSP_PORTMAP,        /* portmapper / rpcbind */
    NFSP_OTHER,          /* any other program or procedure */
    NFSP__COUNT
};

const char *nfs_proc_name(unsigned id);          /* "READ"; "OTHER" when out of range */
int nfs_proc_from_name(const char *name);        /* id or -1 */
unsigned nfs_proc_v3(uint32_t procedure);        /* NFSv3 procedure number -> id */
unsigned nfs_proc_v4op(uint32_t op);             /* NFSv4 op number -> id */

/* Status codes: class << 16 | number.  Class 3 is nfsstat3, 4 nfsstat4,
 * 1 an RPC-level failure (number: accept_stat, or 100 + reject_stat). */
#define NFS_STATUS_CLASS_RPC 1u
#define NFS_STATUS_CLASS_V3  3u
#define NFS_STATUS_CLASS_V4  4u
#define NFS_STATUS_CODE(cls, num) (((uint32_t)(cls) << 16) | ((uint32_t)(num) & 0xffffu))
/* 1 when code is one a set may carry (known class, number < 65536). */
int nfs_status_valid(uint32_t code);
/* "NFS3ERR_NOSPC", "NFS4ERR_DELAY", "RPC_PROG_UNAVAIL"; an unknown number
 * of a known class becomes "NFS3ERR_<n>".  Writes into buf, returns buf. */
const char *nfs_status_name(uint32_t code, char *buf, size_t len);
/* The code of a name nfs_status_name makes, or -1. */
int64_t nfs_status_from_name(const char *name);

#define NFS_RPC_STATUS_MAX 8     /* distinct error statuses kept per procedure */

struct nfs_rpc_status {
    uint32_t code;
    uint64_t n;
};

struct nfs_rpc_proc {
    uint64_t calls;        /* replies, timeouts and drops (each call once) */
    uint64_t bytes_out;    /* call bytes, record mark included, each send */
    uint64_t bytes_in;     /* reply bytes, record mark included */
    uint64_t errors;       /* replies whose status is not OK (and RPC errors) */
    struct hist rtt;       /* send to reply, every replied call */
    uint32_t nstatus;      /* entries of status[], most first seen first */
    struct nfs_rpc_status status[NFS_RPC_STATUS_MAX];
    uint64_t status_other; /* errors whose status did not fit in status[] */
};

/* Where the time of the nfs engine's reads (or writes) went, summed over the
 * ops whose every RPC was timed.  An op split into parts (a 32m read is 32
 * RPCs of rsize) completes when its slowest part does, so its time is that
 * part's: the round trip (last byte handed to the socket to the reply's
 * arrival: server and network), before it the wait in the client's queue
 * until its last byte was handed to the socket (behind the op's other parts
 * and other ops, when the socket's buffer is full), before that, for
 * rate-limited jobs, the time the op was issued after it was due, and the
 * rest is the client's own (the engine, reply processing, the job loop).
 * Every op's parts add up to its latency: lat = rtt + queued + late + client,
 * so the sums do too. */
struct nfs_op_split {
    uint64_t ops;
    uint64_t lat_ns;       /* the ops' latency (as the op's lat_ns) */
    uint64_t rtt_ns;       /* their slowest part's round trip */
    uint64_t queued_ns;    /* ... and its wait before being sent */
    uint64_t late_ns;      /* issued after due (rate-limited jobs) */
};
#define NFS_SPLIT_READ  0
#define NFS_SPLIT_WRITE 1
#define NFS_SPLIT__COUNT 2
/* The client's own time of a split: lat - rtt - queued - late (0 if less). */
uint64_t nfs_op_split_client(const struct nfs_op_split *s);
/* 1 when the parts are consistent (none beyond the latency) */
int nfs_op_split_valid(const struct nfs_op_split *s);
/* "read", "write" */
const char *nfs_op_split_name(unsigned kind);

struct nfs_rpc_set {
    uint64_t retransmits;  /* calls sent again (after a reconnect re-queued them) */
    uint64_t timeouts;     /* calls that timed out without a reply */
    uint64_t reconnects;   /* connections re-established */
    struct nfs_rpc_proc *proc[NFSP__COUNT];   /* NULL until the first call */
    struct nfs_op_split split[NFS_SPLIT__COUNT];   /* the engine's ops (above) */
};

void nfs_rpc_set_init(struct nfs_rpc_set *s);
void nfs_rpc_set_free(struct nfs_rpc_set *s);        /* back to empty */
/* 1 when nothing at all was recorded */
int nfs_rpc_set_empty(const struct nfs_rpc_set *s);
/* dst += src, exactly. */
void nfs_rpc_set_merge(struct nfs_rpc_set *dst, const struct nfs_rpc_set *src);
/* The entry of procedure id (< NFSP__COUNT), allocated on first use. */
struct nfs_rpc_proc *nfs_rpc_set_proc(struct nfs_rpc_set *s, unsigned id);
/* Count one error of status code in p. */
void nfs_rpc_proc_error(struct nfs_rpc_proc *p, uint32_t code, uint64_t n);
/* 1 when status code on procedure id is an answer, not a failure: a
 * LOOKUP of a name that does not exist (NFS3ERR_NOENT, NFS4ERR_NOENT), as
 * every create asks first.  Such replies stay in errors and status (they
 * are what the server said) but are not counted as failed. */
int nfs_rpc_status_expected(unsigned id, uint32_t code);
/* Replies of p whose status is an expected answer (above). */
uint64_t nfs_rpc_proc_expected(unsigned id, const struct nfs_rpc_proc *p);
/* Failed calls of s: errors minus expected answers; *expected gets those. */
uint64_t nfs_rpc_set_failed(const struct nfs_rpc_set *s, uint64_t *expected);

#endif
