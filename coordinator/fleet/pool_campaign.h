/* pool_campaign: what `nfstorm run --pool` makes on the submitter's side
 * from what the pool returns.
 *
 * The pool writes no file a submitter names (pool_policy.h).  So --html,
 * --csv, --timeseries and --output are rendered here, from the JSON result
 * the pool sends back, by the code `nfstorm report` uses (the same files a
 * local run writes); --repeat N submits N runs in turn, keeps each
 * repetition's journal (SET.json.repK.journal), writes each repetition's
 * --csv/--timeseries/--output with .repK as a local set does, and ends
 * with the set's summary, --json set file and --html summary (repeat_run.h).
 * Without any of them the submission is one pool_client_submit, as before.
 * Called from the coordinator's main thread. */
#ifndef NFSTORM_POOL_CAMPAIGN_H
#define NFSTORM_POOL_CAMPAIGN_H

#include <signal.h>
#include <stdint.h>
#include "coordinator/cli/cmd_report.h"
#include "coordinator/fleet/pool_client.h"

struct pool_campaign {
    const struct pool_client_options *po;   /* po->json: the user's --json, or NULL */
    const struct pool_submit *sub;          /* want_json is set here when needed */
    const struct report_outputs *out;       /* rendered locally */
    uint32_t repeat;                        /* --repeat N; 0: one run */
    uint64_t repeat_interval_ns;
    int quiet;
    int unit_base;
    volatile sig_atomic_t *signalled;       /* main.c's noted signal */
};

/* Submit (each repetition) and render.  The exit status: the run's (the
 * set's worst with --repeat), 1 when an output could not be written or the
 * pool went, 2 when the pool refused. */
int pool_campaign_run(const struct pool_campaign *pc);

#endif
