/* nfs_json: NFS RPC telemetry (common/nfs_rpc.h) in the result JSON, the
 * journal and back (docs/results.md, "nfs"):
 *     {"retransmits": N, "timeouts": N, "reconnects": N,
 *      "rpc": {"READ": {"calls": N, "bytes_out": B, "bytes_in": B, "errors": N,
 *                       "rtt_ns": {min, mean, p50, p90, p99, p999, max, hist},
 *                       "status": {"NFS3ERR_NOSPC": N, ...}, "status_other": N}}}
 * "hist" is the lossless histogram form (hist_json.h), so result_load gets
 * the set back exactly; the percentiles are for readers. */
#ifndef NFSTORM_NFS_JSON_H
#define NFSTORM_NFS_JSON_H

#include <jansson.h>
#include <stddef.h>
#include "common/nfs_rpc.h"

/* A new object for s. */
json_t *nfs_json_encode(const struct nfs_rpc_set *s);
/* The time series' short form: the counters, and per procedure calls,
 * bytes, errors and rtt_ns {mean, p50, p99, max} (no histogram). */
json_t *nfs_json_summary(const struct nfs_rpc_set *s);
/* Fill s (initialised by the caller; on failure left for the caller to
 * free) from o.  Unknown procedures are ignored; bad values refused with a
 * one-line reason in why.  0 or -EINVAL. */
int nfs_json_decode(json_t *o, struct nfs_rpc_set *s, char *why, size_t whylen);

#endif
