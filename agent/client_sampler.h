/* client_sampler: the agent's view of itself per interval and per phase
 * (common/client_stats.h): its CPU time, the bytes of the interface that
 * carries its traffic, and for a kernel NFS mount the deltas of
 * /proc/self/mountstats.
 *
 * Loop thread only: session.c starts it with the phase, samples it when an
 * interval closes and once more for the phase's totals.  Every read is of
 * procfs/sysfs text the kernel makes from in-memory counters (mountstats
 * prints the NFS client's per-op and transport counters without any RPC;
 * /proc/net/dev and getrusage likewise), so a slow or dead NFS server
 * cannot block the loop here, unlike a stat() of the mount.  The mount
 * point comes from the phase's storage (resolved on the worker thread).
 *
 * NFSTORM_TEST_MOUNTSTATS=FILE (test-only, docs/running.md) reads FILE
 * instead of /proc/self/mountstats, and takes the mount's type from it, so
 * tests without a kernel NFS client can drive the whole path.
 *
 * A storage that points at a loopback port (efs-utils' efs-proxy or
 * stunnel, agent/proxyproc.h) also gets its proxy sampled: CPU, I/O bytes
 * and connections to the file system per interval, and the interface is
 * then the one on the route to the proxy's first remote address (found at
 * the start, or at the first interval that sees a connection), not lo.
 * While the proxy is not found, intervals look for it again (a bounded
 * scan of /proc), after 1, 2, 4 ... 64 intervals. */
#ifndef NFSTORM_CLIENT_SAMPLER_H
#define NFSTORM_CLIENT_SAMPLER_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "agent/mountstats.h"
#include "agent/phase.h"
#include "agent/proxyproc.h"
#include "common/client_stats.h"

struct client_sampler {
    int running;
    uint32_t cores, threads;
    struct rusage ru_base, ru_prev;
    char nic[CLIENT_NIC_MAX];
    uint32_t speed_mbps;
    uint32_t nic_route;       /* nic was found by the route to the storage server */
    uint64_t rx_base, tx_base, rx_prev, tx_prev;
    char ms_path[256];                 /* the mountstats file, "" when none */
    char mount[CLIENT_MOUNT_MAX];      /* the mount point sampled */
    char note[CLIENT_NOTE_MAX];        /* why no mountstats, or "" */
    struct mountstats *ms_base, *ms_prev, *ms_now;   /* owned while ms_path[0] */
    char proc_root[256];               /* /proc, or NFSTORM_TEST_PROC */
    uint32_t proxy_port;               /* the loopback port of the storage, 0 none */
    uint32_t proxy_pid;                /* its listener, 0 not found (yet) */
    uint32_t px_wait, px_backoff;      /* intervals until the next search, and the
                                          last wait (doubling to 64: a search
                                          scans /proc on the loop thread) */
    struct proxyproc_now px_prev;      /* the proxy at the last look */
    struct proxy_sample px_total;      /* the phase's sum of intervals */
    char route_host[CLIENT_PROXY_HOST_MAX];  /* the proxy remote that chose nic */
};

/* Begin a phase: pick the interface (the route to the first libnfs job's
 * or kernel NFS mount's server when the address is numeric, else the one
 * holding ctl_local, the control connection's local address; NULL: none),
 * the mount (the first kernel-mount storage of pr) and read the base. */
void client_sampler_start(struct client_sampler *c, const struct phase_run *pr,
                          const struct sockaddr *ctl_local);
/* The interval that just closed (since the last call or the start). */
void client_sampler_interval(struct client_sampler *c, struct client_sample *out);
/* The phase: from the start (or the last rebase) to the last interval
 * sampled, so it is the exact sum of the intervals; note included. */
void client_sampler_phase(const struct client_sampler *c, struct client_sample *out);
/* The ramp ended: read now as the new start (what came before does not
 * count). */
void client_sampler_rebase(struct client_sampler *c);
/* Release what start took; c may start again. */
void client_sampler_stop(struct client_sampler *c);

#endif
