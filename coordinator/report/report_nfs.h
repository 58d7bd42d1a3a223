/* report_nfs: the NFS section of a phase in the text and HTML reports.
 *
 * From the phase's fleet telemetry (result_nfs.h): RPC totals with
 * retransmits, timeouts and reconnects; the busiest procedures with calls,
 * errors and RTT p50/p99; the failures by NFS status (a LOOKUP answered
 * NOENT is an answer, named apart); and, for reads and writes, where an
 * op's time went (common/nfs_rpc.h, nfs_op_split): its slowest RPC's round
 * trip (server+network), the wait before that RPC was sent, and the
 * client's rest, as means that add up.  Nothing is printed for a phase
 * without telemetry. */
#ifndef NFSTORM_REPORT_NFS_H
#define NFSTORM_REPORT_NFS_H

#include <stdint.h>
#include <stdio.h>

struct run_result;

#define REPORT_NFS_TOP 8      /* procedures listed; the rest are summed */

void report_nfs_text(FILE *out, const struct run_result *r, uint32_t phase);
void report_nfs_html(FILE *out, const struct run_result *r, uint32_t phase);

#endif
