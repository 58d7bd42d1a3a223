/* coherence_report: rw=coherence results on the coordinator: keeping what
 * each reader agent sent (proto/coh_msg.h) in its phase, and showing it in
 * the JSON result and the text report (docs/results.md, docs/verify.md).
 *
 * JSON, in the phase object, only for phases that measured any:
 *   "coherence": {
 *     "pairs": [{"writer": W, "reader": R, "seen": n, "never_visible": n,
 *                "error_bound_ns": ns, "lag": {min, mean, p50, p90, p99,
 *                p999, max, hist}}, ...],
 *     "merged": {"seen", "never_visible", "lag"},
 *     "error_bound_ns": ns }
 * error_bound_ns of a pair is (rtt(W) + rtt(R)) / 2, the best ping round
 * trips the clock offsets were taken from; the phase's is the largest. */
#ifndef NFSTORM_COHERENCE_REPORT_H
#define NFSTORM_COHERENCE_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include "common/coherence.h"
#include "coordinator/result/result.h"

/* Pairs a run's phase keeps (readers x writers): 20 KB each. */
#define COH_RUN_PAIRS_MAX 1024

/* Add what one reader sent for phase (pairs already carry the reader).
 * 0, or -E2BIG past COH_RUN_PAIRS_MAX pairs (nothing added). */
int coherence_result_add(struct run_result *r, uint32_t phase, const struct coh_set *s);
/* The clock error bound of pair (writer, reader), ns. */
uint64_t coherence_error_bound(const struct run_result *r, uint32_t writer, uint32_t reader);
/* The "coherence" object of phase, or NULL when it measured none. */
json_t *coherence_json(const struct run_result *r, uint32_t phase);
/* The pairs reader measured in phase, as the JSON's "pairs" entries (the
 * journal's phase_done record carries them), or NULL when none. */
json_t *coherence_reader_json(const struct run_result *r, uint32_t phase, uint32_t reader);
/* Read such a "pairs" array (the result file's or a journal record's)
 * into out (initialised by the caller): writer and reader < nagents, each
 * pair once, at most COH_RUN_PAIRS_MAX, lag.hist valid with count == seen.
 * 0, or -EINVAL with why (out then empty). */
int coherence_from_json(json_t *pairs, uint32_t nagents, struct coh_set *out, char *why, size_t whylen);
/* Each pair of phase (which measured some), then their total (pair 0),
 * to row with the lag's p50, p99, max and the clock error bound in q. */
typedef void (*coherence_row_fn)(FILE *out, int pair, const struct coh_pair *p, char q[4][32]);
void coherence_rows(FILE *out, const struct run_result *r, uint32_t phase, coherence_row_fn row);
/* Text lines for phase (nothing when it measured none). */
void coherence_text(FILE *out, const struct run_result *r, uint32_t phase);

#endif
