/* ctlsock: how a control connection (coordinator <-> agent) asks the
 * network to let it through a link its own load has filled.
 *
 * A load test saturates links on purpose, and the control connection
 * shares them with the load: pings, intervals and the ACKs of both queue
 * behind (and are dropped with) the bulk traffic.  Three socket options
 * keep it alive, on both ends, because each end's sends cross a different
 * queue:
 *   - the IP TOS byte (IPv6: the traffic class), so that QoS-aware
 *     switches and routers can prioritise it.  Default 0x10 ("lowdelay",
 *     DSCP 4): the one TOS bit Linux's pfifo_fast (and a Linux router,
 *     which sets a forwarded packet's priority from its TOS) maps to its
 *     first band, ahead of everything else; see docs/fleet.md;
 *   - SO_PRIORITY 6 (TC_PRIO_INTERACTIVE), the priority the kernel's own
 *     queues read, so that band 0 holds whatever TOS value was chosen, and
 *     for IPv6 too (IP_TOS sets the priority from the TOS; IPV6_TCLASS
 *     does not);
 *   - TCP_THIN_LINEAR_TIMEOUTS: a connection that sends a few small frames
 *     a second is a "thin stream"; after a loss it retransmits at a fixed
 *     RTO for its first six tries instead of doubling it, so a few dropped
 *     packets cost a second, not the ten seconds of exponential backoff
 *     that used to look like a dead agent.
 * Nothing here logs: callers say what failed. */
#ifndef NFSTORM_CTLSOCK_H
#define NFSTORM_CTLSOCK_H

#include <stddef.h>
#include <uv.h>

#define CTLSOCK_TOS_DEFAULT 0x10   /* IPTOS_LOWDELAY */
#define CTLSOCK_TOS_NONE    (-1)   /* leave the socket as the system made it */

/* Parse a --control-tos value: "none" (CTLSOCK_TOS_NONE), "lowdelay"
 * (0x10), "dscp:N" (N from 0 to 63, the TOS byte N << 2), or the TOS byte
 * as a number from 0 to 255 in decimal or 0x hex whose two low (ECN) bits
 * are 0.  0 with *tos set, or -EINVAL (*tos untouched). */
int ctlsock_parse_tos(const char *s, int *tos);

/* The value as --control-tos would take it back ("none", "0x10"), in out
 * (at least 8 bytes). */
void ctlsock_tos_str(int tos, char *out, size_t outlen);

/* Mark the connected (or accepted) TCP handle t as a control connection
 * with TOS byte tos (see above); CTLSOCK_TOS_NONE changes nothing.  Every
 * option is tried; 0, or the first failure as a negative errno (the
 * connection works regardless, unprioritised).  Loop thread of t. */
int ctlsock_mark(uv_tcp_t *t, int tos);

#endif
