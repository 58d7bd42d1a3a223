/* hist_json: the histogram form of common/hist_codec.h in JSON, for the
 * result file (report_json.c, result_load.c) and the journal (journal.c):
 *     {"count": N, "sum": NS, "min": NS, "max": NS, "runs": [skip, len, n...]}
 * the same keys and values as on the wire, checked by the same decoder. */
#ifndef NFSTORM_HIST_JSON_H
#define NFSTORM_HIST_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "common/hist.h"

/* A new object for h; NULL if jansson ran out of memory (nothing leaks). */
json_t *hist_json_encode(const struct hist *h);
/* h as a latency object: min, mean, p50, p90, p99, p999, max (ns; 0 when
 * empty) and the whole histogram under "hist" (the form of the result's
 * latencies, the NFS RTTs and the coherence lags); brief: mean, p50, p99
 * and max alone (the time series' NFS RTTs).  NULL if jansson ran out of
 * memory. */
json_t *hist_json_summary(const struct hist *h, int brief);
/* Fill h from o (overwritten; empty on failure).  0, or -EINVAL with a
 * one-line reason in why ("'runs' ends inside a run"); the caller
 * adds where the object was. */
int hist_json_decode(json_t *o, struct hist *h, char *why, size_t whylen);

#endif
