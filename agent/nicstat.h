/* nicstat: which network interface carries a connection, and its byte
 * counters and link speed, for the per-interval "host" sample.
 *
 * The interface is found by the local address the kernel picks: of a
 * connected socket (getsockname), or of a UDP socket connect()ed to the
 * server (no packet is sent; the routing table chooses the source), matched
 * against getifaddrs.  Loopback is "lo".  Counters come from /proc/net/dev
 * (this network namespace's), the speed from /sys/class/net/IF/speed
 * (absent or -1 for lo, veth and most virtual links: unknown).
 * nicstat_parse is pure, for unit tests; the rest read the system.  Cheap,
 * non-blocking reads of procfs and sysfs: fine on the loop thread. */
#ifndef NFSTORM_NICSTAT_H
#define NFSTORM_NICSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* rx and tx bytes of ifname in /proc/net/dev text.  0, -ENOENT when no
 * line names it, -EBADMSG when its line is malformed. */
int nicstat_parse(const char *text, const char *ifname, uint64_t *rx, uint64_t *tx);
/* The interface holding the local address sa (AF_INET or AF_INET6) into
 * name (NUL-terminated, cut to len - 1).  0 or -ENOENT. */
int nicstat_iface_of(const struct sockaddr *sa, char *name, size_t len);
/* The interface this host would use to reach host (a numeric IPv4 or IPv6
 * address; names are not resolved: no DNS on the sampling path).  0,
 * -EINVAL for a non-numeric host, or -errno. */
int nicstat_route_to(const char *host, char *name, size_t len);
/* rx and tx bytes of ifname now.  0 or -errno. */
int nicstat_read(const char *ifname, uint64_t *rx, uint64_t *tx);
/* Link speed of ifname in Mbit/s, 0 when unknown.  Test-only: with
 * NICSTAT_TEST_SYSFS_ENV set to a directory, DIR/IF/speed is read instead
 * of /sys/class/net/IF/speed (a veth's speed is a fixed 10000 and this
 * machine has no ethtool to set another: tests give the link the speed
 * they need; docs/running.md says never to set it in production). */
#define NICSTAT_TEST_SYSFS_ENV "NFSTORM_TEST_SYSFS_NET"
uint32_t nicstat_speed_mbps(const char *ifname);

#endif
