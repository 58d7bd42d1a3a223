/* nfs_allow: does an NFS URL fall under the agent's --allow-nfs rules?
 *
 * A libnfs URL is nfs://SERVER[:PORT]/EXPORT[/PATH][?KEY=VALUE[&...]], and
 * its parameters change more than tuning: uid=, gid= (and, in newer libnfs,
 * auxgids=, sec=, ...) choose the identity the server sees, so a URL that
 * only starts with an allowed export could still act as root on a
 * no_root_squash export.  A rule therefore covers the whole URL:
 *   - the part before '?' must start with the rule's part before '?', at a
 *     path-component boundary, and hold no ".." component;
 *   - every parameter must be one this agent knows, each at most once;
 *   - identity and reach parameters (NFS_ALLOW_BOUND_KEYS) are allowed only
 *     when the rule carries the same key with the same value;
 *   - tuning parameters (ports, version, readahead, ...) are free.
 * Pure string work: no libnfs, no I/O; callable from any thread. */
#ifndef NFSTORM_NFS_ALLOW_H
#define NFSTORM_NFS_ALLOW_H

#include <stddef.h>
#include "agent/paths.h"

/* Check one rule as given to --allow-nfs: nfs://SERVER/EXPORT with only
 * known parameters, each once.  0 or -EINVAL with the reason in err. */
int nfs_allow_rule_check(const char *rule, char *err, size_t errlen);

/* 0 when some rule in rules allows url; -EACCES with a one-line reason
 * naming what was wrong (the server or export, or the parameter) in err. */
int nfs_allow_check(const struct allow_list *rules, const char *url, char *err, size_t errlen);

#endif
