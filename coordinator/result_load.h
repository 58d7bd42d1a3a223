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
 * Every histogram (lat_ns.hist, svc_ns.hist of phases, agents and
 * intervals) comes back exact, so every report renders as the run's own
 * did.  -errno when the file cannot be read. */
int result_load(const char *path, struct run_result *r, char *err, size_t errlen);

#endif
