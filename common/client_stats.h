/* client_stats: what an agent measures about itself while it loads the
 * file system, per interval and per phase: its CPU time, the bytes of the
 * network interface that carries its traffic, and, for a kernel NFS mount,
 * the deltas of /proc/self/mountstats (per NFS operation and for the RPC
 * transport), the way nfsiostat shows them, and, behind a local NFS proxy
 * (efs-proxy, stunnel), the proxy's CPU and connections.
 *
 * One description shared by the agent (agent/client_sampler.c fills it),
 * the wire (proto/msg_client.c: the optional "host", "mountstats" and "proxy" maps
 * of interval and phase-done) and the coordinator's model
 * (coordinator/result/client_result.h), like common/storage.h.  Every counter is a
 * delta over the span it covers (an interval, or the whole phase), so
 * intervals sum to the phase.  Strings are NUL-terminated within their
 * arrays; "" and 0 mean "not known". */
#ifndef NFSTORM_CLIENT_STATS_H
#define NFSTORM_CLIENT_STATS_H

#include <stdint.h>

#define CLIENT_NIC_MAX     16    /* IFNAMSIZ */
#define CLIENT_MOUNT_MAX   256   /* a mount point as reported */
#define CLIENT_NOTE_MAX    256
#define MS_OPNAME_MAX      24    /* "READ", "EXCHANGE_ID", "TEST_STATEID" */
#define MS_OPS_MAX         96    /* NFSv4.2 lists ~70 operations */

struct host_sample {
    uint8_t present;             /* the agent sent it */
    double cpu_user_s;           /* the agent process's user CPU over the span */
    double cpu_sys_s;            /* and system CPU */
    uint32_t cores;              /* CPUs the agent may run on (its affinity mask) */
    uint32_t threads;            /* job threads of the phase */
    char nic[CLIENT_NIC_MAX];    /* the interface carrying its traffic ("lo"), "" unknown */
    uint64_t rx_bytes;           /* /proc/net/dev receive bytes over the span */
    uint64_t tx_bytes;           /* and transmit bytes */
    uint32_t speed_mbps;         /* /sys/class/net/IF/speed, 0 unknown */
    uint32_t nic_route;          /* 1: nic is the interface on the route to the
                                    storage server (a libnfs URL's host, a kernel
                                    NFS mount's addr=), so the phase's data crossed
                                    it; 0: the control connection's, a fallback */
};

/* One "per-op statistics" line: the operation's counters; times are the
 * kernel's cumulative milliseconds. */
struct ms_op {
    char name[MS_OPNAME_MAX];
    uint64_t ops, ntrans, timeouts, bytes_sent, bytes_recv;
    uint64_t queue_ms, rtt_ms, execute_ms;
    uint64_t errors;             /* 0 when the kernel has no such column */
};

/* The "xprt:" line: the RPC transport's counters. */
struct ms_xprt {
    uint64_t connects;           /* connect_count (tcp, rdma; 0 for udp) */
    uint64_t sends, recvs, bad_xids;
    uint64_t req_u;              /* cumulative requests in flight at each send */
    uint64_t backlog_u;          /* cumulative backlog queue length at each send */
};

struct ms_sample {
    uint8_t present;             /* mountstats of an NFS mount were read */
    char mount[CLIENT_MOUNT_MAX];/* the mount point */
    char note[CLIENT_NOTE_MAX];  /* phase only: why there are none ("<dir>: not an
                                    NFS mount (ext4); no mountstats"), or "" */
    struct ms_xprt xprt;
    uint32_t nops;               /* ops[0..nops): operations with any counter
                                    not 0 (a delta), in the kernel's order */
    struct ms_op op[MS_OPS_MAX];
};

/* The local NFS proxy a mount or URL points at (efs-utils' efs-proxy or
 * stunnel: the kernel mounts 127.0.0.1:/ with port=N, and the proxy holds
 * the real connections to the file system).  agent/proxyproc.h finds it
 * and reads these; a loopback port nobody listens on gives none. */
#define CLIENT_PROXY_NAME_MAX    16    /* TASK_COMM_LEN: /proc/PID/stat's name */
#define CLIENT_PROXY_REMOTES_MAX 128   /* "10.0.1.5:2049 [fd00::5]:2049", cut at a whole address */
#define CLIENT_PROXY_HOST_MAX    48    /* an IPv6 address as text */

struct proxy_sample {
    uint8_t present;             /* a proxy was found listening on port */
    uint32_t pid;
    char name[CLIENT_PROXY_NAME_MAX];
    uint32_t port;               /* the loopback port the mount or URL names */
    uint64_t cpu_user_us;        /* its user CPU over the span (/proc/PID/stat) */
    uint64_t cpu_sys_us;         /* and system CPU */
    uint32_t conns;              /* its established TCP connections to the file
                                    system at the end of the span (those not on
                                    port: the accepted ones are the client's) */
    char remotes[CLIENT_PROXY_REMOTES_MAX];  /* their distinct remote addresses,
                                                space-separated */
    uint64_t rx_bytes;           /* bytes its connections to the file system received
                                    over the span (tcp_info bytes_received through
                                    sock_diag, agent/tcpdiag.h; 0 unknown) */
    uint64_t tx_bytes;           /* and sent (bytes_acked) */
    char route_host[CLIENT_PROXY_HOST_MAX];  /* the remote host whose route chose
                                                host.nic, "" when none did */
};

struct client_sample {
    struct host_sample host;
    struct ms_sample ms;
    struct proxy_sample proxy;
};

#endif
