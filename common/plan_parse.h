/* plan_parse: fio job-file dialect (INI via libinih) and fio-style command
 * line options, both into a struct plan.
 *
 * Errors are one line naming what was wrong:
 *   "plan.fio:3: unknown key 'blocksizz'"
 *   "plan.fio:5: bad value for 'bs': '4q'"
 *   "--bs: bad value '4q'"
 * Keys set in [global] apply to every later job section; a job section
 * inherits them and overrides what it sets. */
#ifndef NFSTORM_PLAN_PARSE_H
#define NFSTORM_PLAN_PARSE_H

#include <stddef.h>
#include "common/plan.h"

/* Parse a job file. 0, or -errno with err filled (file missing: names the file). */
int plan_parse_file(const char *path, struct plan *out, char *err, size_t errlen);
/* Parse from a string (tests); name is used in messages in place of a path. */
int plan_parse_string(const char *name, const char *text, struct plan *out, char *err, size_t errlen);

/* Parse fio-style options describing one job (and --name starting another,
 * as fio does): each arg is "--key=value", "-key=value", "--flag" or "-flag".
 * Args that are not plan keys make it fail with "unknown option '--x'". */
int plan_parse_args(int argc, char **argv, struct plan *out, char *err, size_t errlen);

/* Is key a plan key (for the CLI to tell plan options from its own)? */
int plan_is_key(const char *key);

/* Set one key on a job: the shared core of both front ends.
 * 0, -ENOENT for an unknown key, -EINVAL for a bad value. */
int plan_job_set(struct job_spec *j, const char *key, const char *value);

#endif
