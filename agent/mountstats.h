/* mountstats: the NFS client counters of one kernel mount, from
 * /proc/self/mountstats, and their deltas.
 *
 * The file has one section per mount: "device SRC mounted on DIR with
 * fstype TYPE[ statvers=V]" (space, tab, newline and backslash in SRC and
 * DIR escaped as \040 \011 \012 \134, as in mountinfo), and for NFS mounts
 * indented lines after it: opts:, age:, caps:, sec:, events:, bytes:,
 * "RPC iostats version: 1.1  p/v: 100003/3 (nfs)", one "xprt:" line per
 * transport (nconnect=N gives N; their counters are summed here) and,
 * after "per-op statistics", one "NAME: ops ntrans timeouts bytes_sent
 * bytes_recv queue_ms rtt_ms execute_ms [errors]" line per operation (the
 * errors column came with Linux 5.x; without it errors is 0).
 *
 * A pure parser over the text (unit-tested on fixtures in
 * tests/fixtures/mountstats/), strict inside the section it reports: a
 * truncated or garbled per-op or xprt line makes the mount's counters
 * unusable (-EBADMSG) rather than silently wrong.  Lines it does not know
 * are skipped, as are other mounts' sections. */
#ifndef NFSTORM_MOUNTSTATS_H
#define NFSTORM_MOUNTSTATS_H

#include <stddef.h>
#include <stdint.h>
#include "common/client_stats.h"

#define MOUNTSTATS_FILE_MAX (4u << 20)    /* bytes read of the file, at most */

/* The cumulative counters of one mount, as the kernel shows them. */
struct mountstats {
    char mount[CLIENT_MOUNT_MAX];  /* the mount point, unescaped */
    char fstype[16];               /* "nfs", "nfs4", or the other type */
    char statvers[8];              /* "1.1", "1.0" */
    char xprt_proto[8];            /* "tcp", "udp", "rdma", "" if no xprt line */
    uint32_t nxprt;                /* xprt lines summed */
    uint64_t age_s;                /* age: seconds since mounted */
    struct ms_xprt xprt;
    uint32_t nops;
    struct ms_op op[MS_OPS_MAX];
};

/* The section of the mount mounted on mount_point (the last one, as later
 * mounts stack on earlier ones) into out.  0 for an NFS mount (fstype nfs
 * or nfs4); -EMEDIUMTYPE when the mount is not NFS (out->fstype and
 * out->mount set, no counters); -ENOENT when no section names it; -EBADMSG
 * when its NFS section is malformed (a short, overlong or non-numeric
 * per-op or xprt line, more than MS_OPS_MAX operations). */
int mountstats_find(const char *text, const char *mount_point, struct mountstats *out);
/* out = now - then per counter, for the operations with any counter not 0
 * (then matched by name; an operation then lacks, or a counter that went
 * backwards, counts from 0: a remount resets them).  out->present = 1 and
 * out->mount = now->mount; out->note untouched. */
void mountstats_delta(const struct mountstats *now, const struct mountstats *then,
                      struct ms_sample *out);
/* 1 when a mount's type is NFS ("nfs", "nfs4"): the types with counters. */
int mountstats_is_nfs(const char *fstype);
/* The file at path (up to MOUNTSTATS_FILE_MAX bytes), NUL-terminated; the
 * caller frees it.  NULL with errno set. */
char *mountstats_read(const char *path);

#endif
