/* plan_parse: fio job-file dialect (INI via libinih) and fio-style command
 * line options, both into a struct plan.  The keys themselves live in
 * plan_keys.c.
 *
 * Errors are one line naming what was wrong:
 *   "plan.fio:3: unknown key 'blocksizz' (did you mean 'blocksize'?)"
 *   "plan.fio:5: bad value for 'bs': '4q'"
 *   "--bs: bad value '4q'"
 * Keys set in [global] apply to every later job section; a job section
 * inherits them and overrides what it sets.  fio's keys that are not plan
 * keys follow fio's key inventory (common/plan_fio_keys.h): an alias sets
 * its target, an ignored key becomes a warning in plan->warnings
 * ("plan.fio:7: 'cpus_allowed' is not implemented by nfstorm (...);
 * ignored"), a refused one an error naming the reason.  Job files also take
 * `include FILE` (relative to the including file, nested at most
 * PLAN_INCLUDE_DEPTH deep) and ${VAR} from the environment in values (an
 * unset one expands to nothing, as in fio, with a warning); ${agent},
 * ${host}, ${job} and ${nagents} are left for the agent.
 * matrix= expands a job into one phase per combination of its values. */
#ifndef NFSTORM_PLAN_PARSE_H
#define NFSTORM_PLAN_PARSE_H

#include <stddef.h>
#include "common/plan.h"

/* Parse a job file. 0, or -errno with err filled (file missing: names the file). */
int plan_parse_file(const char *path, struct plan *out, char *err, size_t errlen);
/* plan_parse_file, and *expanded (owned by the caller, free()) gets the
 * plan as read: section headers and key=value lines after includes and
 * ${VAR} expansion (path variables kept), comments and blank lines dropped,
 * at most PLAN_TEXT_MAX bytes (more is left out).  NULL on failure. */
#define PLAN_TEXT_MAX (1u << 20)
int plan_parse_file_expanded(const char *path, struct plan *out, char **expanded, char *err,
                             size_t errlen);
/* plan_parse_file_expanded with base as the defaults beneath the file's
 * [global] (NULL: fio's defaults): how fio applies job options given on
 * the command line together with a job file. */
int plan_parse_file_over(const char *path, const struct job_spec *base, struct plan *out,
                         char **expanded, char *err, size_t errlen);
/* Every key of a job file as the parser reads it (includes followed,
 * ${VAR} expanded, comments dropped), without setting any: visit gets the
 * file and line it came from, its section ("global" or the job's name),
 * the key and the value ("" for a bare flag).  Stops at a syntax error
 * only (0, or -errno with err set); for `--fio-compat-report`. */
typedef void (*plan_key_visit_fn)(void *user, const char *file, unsigned line, const char *section,
                                  const char *key, const char *value);
int plan_visit_keys(const char *path, plan_key_visit_fn visit, void *user, char *err, size_t errlen);
/* plan_visit_keys over text as written, for a policy that must not act on
 * it (nfstorm serve's, coordinator/fleet/pool_policy.h): values keep their
 * ${VAR} verbatim, and an `include NAME` line is visited as the key
 * "include" with value NAME and is not read. */
int plan_visit_string_raw(const char *name, const char *text, plan_key_visit_fn visit, void *user, char *err,
                          size_t errlen);
/* Parse from a string (tests); name is used in messages in place of a path. */
int plan_parse_string(const char *name, const char *text, struct plan *out, char *err, size_t errlen);

/* Parse fio-style options describing one job (and --name starting another,
 * as fio does): each arg is "--key=value", "-key=value", "--flag" or "-flag".
 * Args that are not plan keys make it fail with "unknown option '--x'". */
int plan_parse_args(int argc, char **argv, struct plan *out, char *err, size_t errlen);

#define PLAN_INCLUDE_DEPTH 8

/* Is key a plan key (matrix included), for the CLI to tell plan options
 * from its own? */
int plan_is_key(const char *key);

/* For fio's "--key value" spelling on a command line: 1 when key takes a
 * value (the next word is its value, as fio's getopt reads it), 0 when it
 * is a flag (time_based, direct: a value only as "--key=value"), -1 when
 * the key is not known to take one or the other (fio keys nfstorm ignores
 * or refuses, unknown names). */
int plan_key_takes_value(const char *key);

/* What a good value of key looks like ("want a size such as 4k, 1m or
 * 2g"), for a refusal that gives no reason of its own; NULL if no hint. */
const char *plan_key_value_hint(const char *key);
/* 1 when key's value holds a size (size, bs, rate, rw=read:8k ...), which
 * kb_base changes: a job file's kb_base applies to its whole section, as in
 * fio, so the reader applies these again after it. */
int plan_key_reads_size(const char *key);

/* Set one key on a job: the shared core of both front ends.
 * 0, -ENOENT for an unknown key, -EINVAL for a bad value.  matrix is not a
 * job field: the front ends handle it. */
int plan_job_set(struct job_spec *j, const char *key, const char *value);
/* Same; on -EINVAL why holds a reason when there is more to say than "bad
 * value" (else ""). */
int plan_job_set_why(struct job_spec *j, const char *key, const char *value,
                     char *why, size_t whylen);

/* 1 if key is a fio key nfstorm accepts and ignores (a warning); *note, if
 * note is not NULL, gets a short reason or NULL. */
int plan_key_ignored(const char *key, const char **note);
/* What the front ends do with a key that is not a plan key (nor fio's alias
 * of one), from fio's key inventory (common/plan_fio_keys.h): -1 when it is
 * a plan key or fio has no such key (go on: set it, or "unknown key");
 * else FIO_KEY_SAME (accept, no effect), FIO_KEY_IGNORED (accept with a
 * warning) or FIO_KEY_REFUSED (refuse), *note (if note is not NULL) getting
 * the reason. */
int plan_key_fio_status(const char *key, const char **note);
/* matrix= -----------------------------------------------------------------
 * "key:v1,v2 key:v1,v2 ..." (blank-separated dimensions, any plan key but
 * name).  Combination i (0-based; first dimension outermost, last fastest)
 * is the base job with each key set to its value, named
 * "<name>-<v1>-<v2>..." ('/' and ':' in values become '_'), with stonewall
 * set so every combination is its own phase. */
#define PLAN_MATRIX_MAX 512
/* 0 and *count (may be NULL) = number of combinations, or -EINVAL with why. */
int plan_matrix_check(const char *spec, uint32_t *count, char *why, size_t whylen);
/* Build combination index into out.  0 or -EINVAL with why. */
int plan_matrix_job(const struct job_spec *base, const char *spec, uint32_t index,
                    struct job_spec *out, char *why, size_t whylen);

/* The known key nearest to an unknown one, or NULL when none is close. */
const char *plan_key_suggest(const char *key);

#endif
