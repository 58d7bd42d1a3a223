/* verify_json: verification results (common/vstats.h) as the JSON result's
 * and the journal's "verify" object, and back (docs/results.md):
 *
 *   {"checked": N, "verify_only": bool,
 *    "runs": [{"run", "started_ms", "started", "blocks"}, ...], "runs_more": N,
 *    "ok": N, "corrupt_checksum": N, "wrong_offset": N,
 *    "wrong_file": N, "stale_generation": N, "torn": N, "zeroes": N,
 *    "wrong_writer": N,
 *    "first": [{"file", "offset", "kind", "reader", "expected_writer",
 *               "expected_generation", "found_writer", "found_job",
 *               "found_generation", "found_offset", "expected_run",
 *               "found_run", "found_run_started"}, ...]}
 *
 * expected_writer, expected_generation and expected_run are null when any
 * was accepted; runs are 16 hex digits; "started" and "found_run_started"
 * are written for people and not read back.  verify_only, runs, runs_more
 * and the run keys may be absent (results older than run ids).
 * The reader checks what it reads as the wire decoder does (vstats_accept). */
#ifndef NFSTORM_VERIFY_JSON_H
#define NFSTORM_VERIFY_JSON_H

#include <jansson.h>
#include <stddef.h>
#include "common/vstats.h"

json_t *verify_json(const struct vstats *v);              /* new reference */
/* ms since the epoch as UTC "2026-12-03T07:55:58.123Z" ("?" for 0). */
void verify_time_text(uint64_t ms, char *buf, size_t len);
/* 0 (v filled, on = 1) or -EINVAL with err naming the key. */
int verify_from_json(const json_t *o, struct vstats *v, char *err, size_t errlen);

#endif
