/* result_load: read a saved JSON result (docs/results.md) back into a
 * run_result, so every report can be rendered again without re-running. */
#ifndef NFSTORM_RESULT_LOAD_H
#define NFSTORM_RESULT_LOAD_H

#include <stddef.h>
#include <jansson.h>
#include "coordinator/result/result.h"

/* Fill r (caller frees with result_free, also on failure) from the JSON
 * file at path.  Validation is strict: a missing key, a wrong type or an
 * out-of-range value fails with -EINVAL and a one-line reason in err naming
 * the file and the key ("a.json: phases[0].ops.read.lat_ns.p99: missing").
 * Every histogram (lat_ns.hist, svc_ns.hist of phases, agents and
 * intervals) comes back exact, so every report renders as the run's own
 * did.  -errno when the file cannot be read. */
int result_load(const char *path, struct run_result *r, char *err, size_t errlen);

/* The JSON document in the file at path (duplicate keys rejected), the
 * caller's to json_decref; NULL when the file cannot be read or is not
 * valid JSON, with a one-line reason in err ("a.json: cannot read: ...",
 * "a.json:3: not valid JSON: ..."). */
json_t *result_load_file_json(const char *path, char *err, size_t errlen);

/* result_load of a result object inside a larger document (a repeat set's
 * repetitions[k]): errors read "file: where.key: reason".  root stays the
 * caller's; r as for result_load (caller frees, also on failure). */
int result_load_json(json_t *root, const char *file, const char *where, struct run_result *r,
                     char *err, size_t errlen);

/* Runs loaded for comparison and summaries (coordinator/result/result_set.c):
 * a repeat set's repetitions in order, or one run.  requested is the set's
 * "repeat" (0 for a plain result or a journal); n may be below it when the
 * set was interrupted. */
#define RUN_SET_MAX_REPEAT 1000
struct run_set {
    uint32_t n;                   /* >= 1 after a successful load */
    struct run_result *reps;      /* [n] */
    uint32_t requested;           /* --repeat N of the set; 0: not a set */
    uint64_t interval_ns;         /* --repeat-interval */
    int interrupted;              /* the set was cut short before its N repetitions */
    uint32_t not_started;         /* the repetition (1-based) that could not start and so
                                     ended the set (an output it could not open, its agents
                                     not gathered again); 0: none */
    char target[PLAN_NAME_MAX];   /* the set's "target" ("" when none) */
    int include_failed;           /* --include-failed: a repetition whose phase ran to its end
                                     with a verdict other than ok counts in the statistics
                                     (repeat_counts); set by the command, never loaded */
};
/* Load path: a plain result JSON, a journal (a run cut short is marked as
 * `nfstorm report` marks it: result_cut_short), or a repeat set
 * ("nfstorm_repeat_set": 1; docs/results.md), validated like result_load:
 * -EINVAL with one line naming the file and key ("a.json:
 * repetitions[1].phases[0].ops: missing"), -errno when unreadable.  The
 * caller frees with run_set_free, also on failure. */
int result_load_set(const char *path, struct run_set *s, char *err, size_t errlen);
void run_set_free(struct run_set *s);

#endif
