/* local: the embedded fleet of `--local N`: N agent processes on this
 * machine, on free loopback ports, allowed to a temporary directory and to
 * the directories the plan names, authenticated with a one-time secret
 * (in memory only: a memfd the agents inherit), stopped when the run
 * ends.  A janitor process removes the temporary directory once the
 * coordinator is gone, also when it was killed with -9 (local.c). */
#ifndef NFSTORM_LOCAL_H
#define NFSTORM_LOCAL_H

#include <stdint.h>
#include <sys/types.h>
#include "common/plan.h"
#include "proto/auth.h"

struct local_fleet {
    uint32_t n;
    pid_t *pid;
    char **addr;             /* "127.0.0.1:PORT" */
    char tmpdir[256];        /* the default directory (agent logs in .agentN.log); removed at stop */
    struct auth_secret secret;  /* one-time secret shared with these agents */
    int secret_fd;           /* the memfd holding it */
    pid_t janitor;           /* removes tmpdir when we are gone */
    int janitor_fd;          /* write end of its pipe: agent pids, then end-of-file */
};

#define LOCAL_JANITOR_MAX 4096   /* agents one janitor waits for (--local's cap) */

/* Start n agents (agent_path: the nfstorm-agent binary).  0 or -errno with
 * a reason in err; on failure nothing is left running. */
int local_fleet_start(struct local_fleet *f, uint32_t n, const char *agent_path,
                      const struct plan *plan, int verbose, char *err, size_t errlen);
/* Stop the agents, remove the temporary directory, free.  Bounded: SIGTERM,
 * SIGKILL after LOCAL_STOP_GRACE_MS (2 s) to an agent stuck in a storage
 * call, then at most 0.5 s more; an agent that even SIGKILL cannot end
 * is left to the janitor, which removes the directory once it exits. */
void local_fleet_stop(struct local_fleet *f);

#endif
