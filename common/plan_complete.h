/* plan_complete: a job section read by a front end (plan_parse.c), made
 * into the plan's jobs. */
#ifndef NFSTORM_PLAN_COMPLETE_H
#define NFSTORM_PLAN_COMPLETE_H

#include <stddef.h>
#include "common/plan.h"

/* The finished job j: fio's derived values filled in, checked, and added
 * to p as one job, one phase per matrix= combination, or one phase per
 * sweep= point.  nrfiles_given: whether the section set nrfiles.  0, or
 * -errno with the reason in err; *about_job tells the caller whether the
 * message is about the job (1) or about plan limits (0), which the front
 * ends prefix differently. */
int plan_job_complete(struct plan *p, const struct job_spec *j, const char *matrix,
                      int nrfiles_given, char *err, size_t errlen, int *about_job);

#endif
