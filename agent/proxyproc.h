/* proxyproc: the local NFS proxy between this client and the file system,
 * seen through.  efs-utils mounts EFS as "127.0.0.1:/" with port=N (its
 * efs-proxy, or stunnel in older versions, listens there and holds the TLS
 * connections to the file system), so the kernel's mountstats round trips
 * end at the local proxy and the route to the mount's address is lo.  This
 * module finds that proxy and what it does:
 *   - which storage points at a loopback port (a kernel mount's source or
 *     addr= and its port=, a libnfs URL's host and nfsport=);
 *   - the process listening there: the socket's inode in /proc/net/tcp{,6},
 *     then the /proc/PID/fd link "socket:[INODE]" (a scan of every process,
 *     bounded, made once per phase and again only when the proxy is gone);
 *   - per interval its CPU (/proc/PID/stat), its established connections
 *     that are not the accepted ones on the port (its connections to the file
 *     system: count and remote addresses) and their bytes (tcp_info through
 *     sock_diag, agent/tcpdiag.h: /proc/PID/io does not count socket
 *     recv/send).
 *
 * The parsers are pure (unit-tested on tests/fixtures/proc/); every line is
 * bounded (PROXYPROC_LINE_MAX, longer ones skipped) and every field checked
 * (hex widths, state, numeric ranges) before use: a hostile or odd /proc
 * (a name with spaces and parentheses, a truncated line) gives no proxy or
 * a skipped line, never a wrong one.  The addresses of /proc/net/tcp are
 * the kernel's words in host byte order, so the parser reads them as this
 * machine does.  NFSTORM_TEST_PROC=DIR (test-only, docs/running.md) reads
 * DIR instead of /proc, so tests drive the whole path with fixtures. */
#ifndef NFSTORM_PROXYPROC_H
#define NFSTORM_PROXYPROC_H

#include <stddef.h>
#include <stdint.h>
#include "common/client_stats.h"

#define PROXYPROC_TEST_ENV "NFSTORM_TEST_PROC"
#define PROXYPROC_LINE_MAX 512       /* a /proc/net/tcp6 line is ~170 bytes */
#define PROXYPROC_SOCKS_MAX 256      /* the proxy's sockets looked at per sample */
#define PROXYPROC_SCAN_MAX 1000000u  /* fd links read in one search, at most */

/* One socket of /proc/net/tcp or tcp6. */
struct proxyproc_sock {
    int v6;
    uint8_t local[16], remote[16];  /* network order; v4 in the first 4 */
    uint32_t local_port, remote_port;
    uint32_t state;                 /* 1 established, 10 listen (include/net/tcp_states.h) */
    uint64_t inode;
};

/* The loopback port a kernel NFS mount points at: its source's host (or
 * addr=) is 127.x.x.x, ::1 or localhost and its options say port=N
 * (1..65535).  0 with *port set, or -ENOENT. */
int proxyproc_mount_port(const char *source, const char *options, uint32_t *port);
/* The same from /proc/self/mountstats text: the section of mount_point
 * (the last, as mounts stack), its device's host and its "opts:" line's
 * port=.  0 with *port set, or -ENOENT. */
int proxyproc_mountstats_port(const char *text, const char *mount_point, uint32_t *port);
/* The same for a libnfs URL ("nfs://127.0.0.1/x?version=4&nfsport=N"). */
int proxyproc_url_port(const char *url, uint32_t *port);
/* The host of "nfs://HOST[:PORT]/..." or "nfs://[V6]/..." into host (len
 * bytes): what follows it in url, or NULL (not such a URL, or too long). */
const char *proxyproc_url_host(const char *url, char *host, size_t len);
/* Option key= of a kernel mount's ','-separated options into out (len
 * bytes): 0, or -ENOENT when it is absent or does not fit. */
int proxyproc_mount_opt(const char *options, const char *key, char *out, size_t len);
/* One line of /proc/net/tcp (v6 = 0) or tcp6 (v6 = 1) into out.  0, or
 * -EINVAL for the header or a malformed line. */
int proxyproc_tcp_line(const char *line, int v6, struct proxyproc_sock *out);
/* /proc/PID/stat's name and utime, stime (clock ticks).  The name is what
 * lies between the first '(' and the last ')', cut to fit, bytes outside
 * printable ASCII as '?'.  0 or -EINVAL. */
int proxyproc_stat_parse(const char *text, char *name, size_t len, uint64_t *utime,
                         uint64_t *stime);
/* "a.b.c.d:port" or "[v6]:port" of s's remote end into out. */
void proxyproc_remote_text(const struct proxyproc_sock *s, char *out, size_t len);

#define PROXYPROC_CONNS_MAX 64       /* connections whose bytes are followed */

/* What one look at the proxy found: cumulative counters. */
struct proxyproc_now {
    uint64_t utime_us, stime_us;
    uint32_t conns;
    uint32_t nconn;                  /* conn_*[0..nconn): the first PROXYPROC_CONNS_MAX */
    uint64_t conn_inode[PROXYPROC_CONNS_MAX];
    uint64_t conn_rx[PROXYPROC_CONNS_MAX], conn_tx[PROXYPROC_CONNS_MAX];  /* since it opened */
    /* every connection this look saw (conns of them, the followed ones
     * and those past PROXYPROC_CONNS_MAX or without a byte count), and
     * whether it may have missed some (more sockets than a look reads):
     * the next look counts a connection not followed here from its
     * opening only when it is sure the connection is new */
    uint64_t seen_inode[PROXYPROC_SOCKS_MAX];
    uint32_t nseen;
    uint8_t partial;
    char remotes[CLIENT_PROXY_REMOTES_MAX];
    char first_host[CLIENT_PROXY_HOST_MAX];  /* the first remote's host, for the route */
    char name[CLIENT_PROXY_NAME_MAX];
};

/* The proc root: NFSTORM_TEST_PROC or "/proc", into out. */
void proxyproc_root(char *out, size_t len);
/* The process listening on TCP port (on a loopback or any address) under
 * root.  0 with *pid set; -ENOENT when nobody listens there or its owner
 * is not visible to this process. */
int proxyproc_find(const char *root, uint32_t port, uint32_t *pid);
/* Read pid's counters and connections (those not on port); their bytes
 * only from the real /proc (not under NFSTORM_TEST_PROC, whose inodes are
 * made up).  0, or -ESRCH when the process is gone (exited, a zombie
 * included, or no longer one we may read). */
int proxyproc_read(const char *root, uint32_t pid, uint32_t port, struct proxyproc_now *out);
/* The bytes its connections moved between two looks: a connection then
 * had counts from its value then, a new one from its opening (one that
 * closed in between loses what it moved since then).  A connection that
 * then saw but did not follow (past PROXYPROC_CONNS_MAX, or no byte count),
 * or that a partial look may have missed, counts from now: its bytes
 * before are not known, and its whole life is not this interval's. */
void proxyproc_bytes_delta(const struct proxyproc_now *now, const struct proxyproc_now *then,
                           uint64_t *rx, uint64_t *tx);

#endif
