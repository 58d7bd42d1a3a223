/* nfs_rpcstat: the nfs engine's per-RPC telemetry, fed by libnfs's
 * observer (rpc_set_observer, scripts/libnfs-observer.patch).
 *
 * Every call is timed from the moment its last byte is handed to the socket
 * (libnfs's clock just before that send(): a send() on a local link can run
 * the server's side and return after the reply came in) to the moment its
 * reply's last byte is read; the reply's first words name the NFS
 * status (nfsstat3, or a v4 COMPOUND's status and its significant op).
 * Calls sent again after a reconnect count as retransmits, calls that time
 * out as timeouts, reconnections as reconnects.
 *
 * Threads: the observer runs on the thread that services the context (the
 * job thread, or the setup thread before it starts); nfs_rpcstat_harvest
 * may run on any other thread: the set is guarded by a mutex held only for
 * a record or a harvest.  The xid table is the observer's alone. */
#ifndef NFSTORM_NFS_RPCSTAT_H
#define NFSTORM_NFS_RPCSTAT_H

#include <stdint.h>
#include <stddef.h>
#include "common/nfs_rpc.h"

struct rpc_context;
struct nfs_context;
struct nfs_rpcstat;

/* What a reply says. */
struct nfs_rpc_reply {
    unsigned proc;      /* enum nfs_proc */
    uint32_t status;    /* 0: OK; else an NFS_STATUS_CODE */
};

/* Parse an RPC reply message (from the xid on, len bytes) to the call
 * (program, version, procedure).  Bounds-checked; never reads past len.
 * 0 with *out filled; -EBADMSG when the message is too short or malformed
 * (out then holds the call's own identity and status 0). */
int nfs_rpcstat_parse_reply(const void *msg, size_t len, uint32_t program, uint32_t version,
                            uint32_t procedure, struct nfs_rpc_reply *out);

struct nfs_rpcstat *nfs_rpcstat_new(void);
void nfs_rpcstat_free(struct nfs_rpcstat *st);      /* NULL is fine */
/* Observe rpc (NULL st: stop observing).  Call nfs_rpcstat_attach(NULL,
 * rpc) before destroying the context's owner or st. */
void nfs_rpcstat_attach(struct nfs_rpcstat *st, struct rpc_context *rpc);
/* acc += what was recorded since the last harvest; then that is empty. */
void nfs_rpcstat_harvest(struct nfs_rpcstat *st, struct nfs_rpc_set *acc);
/* An RPC's instants (CLOCK_MONOTONIC ns): queued in libnfs, its last byte
 * handed to the socket, its reply in. */
struct nfs_rpc_times {
    uint64_t queued_ns, sent_ns, reply_ns;
};
/* The xid of the call queued last on nfs's RPC context (the observer's QUEUED), so a
 * caller that just started an async call knows which xid it is: -ENOENT when
 * none was queued on rpc since nfs_rpcstat_forget_queued.  Observer's
 * thread only, as the two below. */
int nfs_rpcstat_last_queued(const struct nfs_rpcstat *st, struct nfs_context *nfs, uint32_t *xid);
void nfs_rpcstat_forget_queued(struct nfs_rpcstat *st);
/* The instants of the latest reply when it is rpc's call xid (libnfs runs
 * a call's callback right after observing its reply): -ENOENT otherwise. */
int nfs_rpcstat_reply_times(const struct nfs_rpcstat *st, struct nfs_context *nfs, uint32_t xid,
                            struct nfs_rpc_times *out);
/* Count one op of kind (NFS_SPLIT_READ/WRITE) into the set's split:
 * latency, its slowest part's round trip and wait before send, and how late
 * it was issued.  Any thread (takes the set's lock). */
void nfs_rpcstat_op_split(struct nfs_rpcstat *st, unsigned kind, uint64_t lat_ns, uint64_t rtt_ns,
                          uint64_t queued_ns, uint64_t late_ns);

#endif
