/* tcpdiag: the byte counters of established TCP sockets of any process,
 * by socket inode, from the kernel's sock_diag netlink interface (what
 * `ss -ti` reads): tcp_info's bytes_received and bytes_acked.
 *
 * For the local NFS proxy (agent/proxyproc.h): /proc/PID/io does not count
 * socket recv/send, and another process's sockets cannot be asked with
 * getsockopt, so this is the one place its traffic to the file system is
 * told.  One dump per address family of the established sockets of this
 * network namespace, answers read into a fixed buffer; kernels before 4.1
 * (no such fields) give 0. */
#ifndef NFSTORM_TCPDIAG_H
#define NFSTORM_TCPDIAG_H

#include <stddef.h>
#include <stdint.h>

/* For each inode[i] found established: rx[i] = bytes received, tx[i] =
 * bytes sent and acknowledged (cumulative over the connection), found[i]
 * = 1; the others 0.  0, or -errno when netlink cannot be asked. */
int tcpdiag_bytes(const uint64_t *inode, size_t n, uint64_t *rx, uint64_t *tx, uint8_t *found);

#endif
