/* pool_policy: what a submitter may cause on the pool host.
 *
 * `nfstorm serve` runs each submission as a child `nfstorm run` (or
 * `nfstorm clean`) in a private directory, as serve's user.  The submitter
 * is authenticated but not trusted with the pool host: the checks its own
 * `run --pool` makes are the submitter's side, which a hand-made
 * submission skips.  So serve decides, here, before anything runs:
 * every argv word and every plan key (in the plan's text and given as
 * --key=value options) is judged against one table (pool_policy.c,
 * documented in docs/fleet.md and docs/security.md), and the first one
 * refused is named in the one-line error the submitter prints (it exits 2).
 *
 * The rule behind the table: a submission may drive the pool's agents
 * (which confine it by their own --allow/--allow-nfs) and choose how the
 * run reports on stdout/stderr; it may not name a file or a directory on
 * the pool host (no output file, no plan path, no include, no secret
 * file), read the pool host's environment (${VAR}), choose other agents or
 * start processes.  Options are an allow list: one the table does not
 * know is refused. */
#ifndef NFSTORM_POOL_POLICY_H
#define NFSTORM_POOL_POLICY_H

#include <stddef.h>
#include "proto/pool_msg.h"

/* The submission's fields, as run --pool's options allow them. */
#define POOL_POLICY_MAX_AGENTS  4096u         /* --expect, --min-agents (main.c's MAX_AGENTS) */
#define POOL_POLICY_MAX_WAIT_MS 86400000u     /* --expect-timeout: 24h */

/* One row: an option (or plan key) and, when refused, why. */
struct pool_policy_rule {
    const char *name;         /* "--html", or a plan key "write_bw_log", "include", "${VAR}" */
    int takes_value;          /* options: "--opt VALUE" or "--opt=VALUE" */
    const char *refused;      /* NULL: allowed; else the reason, said after the name */
};

/* The table of run/clean options, for docs and tests. */
const struct pool_policy_rule *pool_policy_options(size_t *n);

/* 0 when every argv word and plan key of sub is allowed; else -EPERM with
 * err one line "refused by the pool's policy: --html FILE: names a file on
 * the pool host ..." (the first refused word or key), or -EINVAL for a plan
 * whose text cannot be read ("bad submission: plan:3: ..."). */
int pool_policy_check(const struct pool_submit *sub, char *err, size_t errlen);

#endif
