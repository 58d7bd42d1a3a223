/* dryrun: `nfstorm run --dry-run`, the plan as each agent would run it.
 *
 * Pure printing: no connection, no file system access.  The paths shown
 * are computed by plan_file_path (common/plan_files.h), the same function
 * the agents use, so what is printed is what they would open (before
 * their --allow confinement). */
#ifndef NFSTORM_DRYRUN_H
#define NFSTORM_DRYRUN_H

#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"

struct dryrun_agent {
    const char *host;          /* ${host} */
    const char *label;         /* hosts-file labels, or NULL */
};

/* The whole of `nfstorm run --dry-run` after the plan is read: agents are
 * addrs[0..naddrs) (host part shown as ${host}, labels[i] their hosts-file
 * labels; labels may be NULL), or, when addrs is NULL, nlocal agents on
 * this machine (--local) with "<temp dir>" as their directory.  Resolves
 * the plan's @labels, prints to out.  Returns the exit status: 0, or 2
 * after printing "nfstorm: <reason>" to stderr. */
int dryrun_main(FILE *out, struct plan *p, char *const *addrs, const char *const *labels,
                uint32_t naddrs, uint32_t nlocal);

#endif
