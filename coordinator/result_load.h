/* result_load: read a saved JSON result (docs/results.md) back into a
 * run_result, so every report can be rendered again without re-running. */
#ifndef NFSTORM_RESULT_LOAD_H
#define NFSTORM_RESULT_LOAD_H

#include <stddef.h>
#include "coordinator/result.h"

/* Fill r (caller frees with result_free, also on failure) from the JSON
 * file at path.  Validation is strict: a missing key, a wrong type or an
 * out-of-range value fails with -EINVAL and a one-line reason in err naming
 * the file and the key ("a.json: phases[0].ops.read.lat_ns.p99: missing").
 * Histograms come back exact when the file has lat_ns.buckets (phase and
 * agent totals); otherwise (intervals, older files) they are rebuilt from
 * the percentiles so that p50/p90/p99/p99.9, min, max and mean read back
 * the same.  -errno when the file cannot be read. */
int result_load(const char *path, struct run_result *r, char *err, size_t errlen);

/* One compare input: a run, or the repetitions of a repeat set (shared
 * contract with H2a, who adds result_load_set/run_set_free here; until then
 * cmd_report.c's compare loads each file into a one-element set). */
struct run_set { uint32_t n; struct run_result *reps; };   /* n >= 1; a plain result gives n == 1 */

#endif
