/* fleet_cli: the CLI's ways of finding agents (--hosts, --listen, a mixed
 * fleet, --spawn ssh) and of handing the run to a pool (--pool), each
 * from struct cli.  Every function returns 0 or the exit status, its
 * one-line error said; the contracts are told at each definition. */
#ifndef NFSTORM_CLI_FLEET_CLI_H
#define NFSTORM_CLI_FLEET_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"
#include "coordinator/cli/options.h"
#include "coordinator/fleet/gather.h"
#include "coordinator/fleet/spawn.h"

/* The secret at path (the caller frees it), or NULL after a one-line error. */
struct auth_secret *fleet_cli_secret(const char *path);
int fleet_cli_hosts(const char *path, char ***addrs, char ***labels, uint32_t *n);
/* the nfstorm-agent beside this binary, else the one on PATH */
void fleet_cli_agent_binary(char *out, size_t len);
int fleet_cli_gather(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                     uint32_t *n);
int fleet_cli_mixed(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                    uint32_t *n);
int fleet_cli_regather(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                       uint32_t *n, uint32_t nlisted, uint32_t repetition);
int fleet_cli_spawn(struct cli *c, const struct plan *plan, struct spawn_fleet *sp, struct gather_fleet *fleet,
                    char ***addrs, char ***labels, uint32_t *n);
/* signalled: a signal noted by the caller ends a --repeat set early */
int fleet_cli_pool(const struct cli *c, int argc, char **argv, const char *plan_text, int clean_only,
                   volatile sig_atomic_t *signalled);

#endif
