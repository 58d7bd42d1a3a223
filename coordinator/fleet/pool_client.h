/* pool_client: `nfstorm run --pool ADDR:PORT PLAN`, the submitter.
 *
 * Connects to `nfstorm serve`, proves the secret (and checks the pool's
 * proof first: a submitter does not hand its plan to whoever answers),
 * sends one submission and then prints what the run prints: its stdout
 * on stdout, its stderr (live line, warnings, errors) on stderr, its JSON
 * result and journal into --json F and F.journal, and returns its exit
 * status.  One connection through the peer layer (net/peer.h), on a
 * libuv loop of its own that runs until the submission is over. */
#ifndef NFSTORM_POOL_CLIENT_H
#define NFSTORM_POOL_CLIENT_H

#include "proto/auth.h"
#include "proto/pool_msg.h"

struct pool_client_options {
    const char *pool;                 /* "ADDR:PORT" */
    const struct auth_secret *secret;
    const char *json;                 /* --json F, or NULL */
    uint32_t wait_ms;                 /* --pool-wait: 0 forever */
    int quiet;
    int drop_stdout;                  /* --output F: the report goes there (rendered by the
                                         submitter), stdout stays empty as with fio */
    int *json_written;                /* if not NULL: set to 1 once the pool sent a JSON result
                                         (json was (re)written by this submission) */
};

/* The run's exit status, or 1 (the pool went, network) / 2 (refused,
 * bad submission, busy with --no-wait, wrong secret) with one line on
 * stderr saying why. */
int pool_client_submit(const struct pool_client_options *o, const struct pool_submit *sub);

#endif
