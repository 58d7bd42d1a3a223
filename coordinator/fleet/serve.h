/* serve: `nfstorm serve --listen ADDR:PORT`, a standing pool of agents.
 *
 * Dialling agents (nfstorm-agent --coordinator) are authenticated exactly
 * as by `run --listen` (gather.h) and then kept: pinged a second (their
 * lease), their pings answered, "agent joined/left" logged.  Submitters
 * (`nfstorm run --pool`) come to the same port and are told apart by their
 * first message: an agent answers our hello with its welcome, a submitter
 * with a hello of its own.  A submitter proves the secret as a
 * coordinator does, under roles of its own (AUTH_POOL, AUTH_SUBMITTER).
 *
 * One run at a time.  A run is a child process (fork, no exec) that
 * calls the caller's run function, i.e. the ordinary `nfstorm run` code,
 * on the pool's agents as if it had gathered them (run_options.joined),
 * in a private directory; its stdout and stderr stream back to the
 * submitter, then its JSON result and journal, then its exit status.
 * The run closes the agents' connections when it ends and they dial
 * again, rejoining the pool.  A second submitter waits its turn (told
 * who holds the pool) or, with --no-wait, is refused.
 *
 * serve itself runs on one libuv loop; signals are plain sigaction flags
 * polled on the loop's tick (no uv_signal: a forked run must not inherit
 * libuv's signal plumbing pointing at our loop). */
#ifndef NFSTORM_SERVE_H
#define NFSTORM_SERVE_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/fleet/gather.h"
#include "proto/auth.h"

/* Runs one submission in the child: argv[0..argc) is a whole `nfstorm
 * run ...` command line (argv[0] "nfstorm", argv[1] "run"), fleet the
 * agents it gets (it takes them over).  Returns the exit status. */
typedef int (*serve_run_fn)(int argc, char **argv, struct gather_fleet *fleet);

struct serve_options {
    const char *listen;               /* "ADDR:PORT" */
    const struct auth_secret *secret; /* required */
    uint32_t agent_timeout_ms;        /* a pool agent silent this long leaves */
    FILE *log;                        /* joined/left/run lines; NULL: quiet */
    serve_run_fn run;
};

/* Serve until SIGTERM or SIGINT.  0 then; -EINVAL (bad address) or a libuv
 * error when it cannot listen, with a one-line reason in err. */
int serve_main(const struct serve_options *o, char *err, size_t errlen);

#endif
