/* verdict: what a phase, and the run, amount to, and the exit status.
 *
 * A verdict is computed, never stored: a pure function of the run_result
 * (agents' totals, errors, losses, how the run ended, the phase's
 * error_threshold), so the live run, `nfstorm report` on a saved JSON and a
 * replayed journal all give the same answer from the same data.
 *
 * Severity, lowest first: ok < partial < failed < interrupted.  A phase
 * takes the most severe of its reasons; the run takes its most severe phase.
 * Every reason names the agent (index and address) and the cause; the list
 * is in docs/running.md ("Verdicts"). */
#ifndef NFSTORM_VERDICT_H
#define NFSTORM_VERDICT_H

#include <stdint.h>
#include "coordinator/result/result.h"

enum verdict_kind {
    VERDICT_OK = 0,
    VERDICT_PARTIAL,        /* agents lost: their data up to the loss is in */
    VERDICT_FAILED,         /* nothing measured, failed ops, agent errors */
    VERDICT_INTERRUPTED,    /* SIGINT/SIGTERM */
};

#define VERDICT_REASONS_MAX 16   /* the last one summarises any beyond */
#define VERDICT_REASON_LEN  640

struct verdict {
    enum verdict_kind v;
    uint32_t nreasons;
    char reason[VERDICT_REASONS_MAX][VERDICT_REASON_LEN];
    uint8_t severity[VERDICT_REASONS_MAX];   /* each reason's enum verdict_kind */
};

/* "ok", "partial", "failed", "interrupted"; verdict_from_name: -1 if none. */
const char *verdict_name(enum verdict_kind v);
int verdict_from_name(const char *s);

/* The verdict of phase (< r->nphases) with its reasons, most severe first
 * (then run-level causes before agent by agent).  ~10 KB:
 * callers keep one on the heap. */
void verdict_phase(const struct run_result *r, uint32_t phase, struct verdict *out);
/* The run's verdict: its most severe phase (ok for a run without phases). */
enum verdict_kind verdict_run(const struct run_result *r);
/* One line for the run: "failed: phase seq-read: agent 1 (h:p): completed
 * no op (and 2 more reasons)", from the first phase with the run's verdict;
 * "ok" alone when every phase is ok without reasons.  Returns the verdict. */
enum verdict_kind verdict_summary(const struct run_result *r, char *buf, size_t len);
/* Exit status of a run with verdict v: 0 ok, 1 failed, 3 partial,
 * 130 interrupted (2 stays for usage and plan errors). */
int verdict_exit_status(enum verdict_kind v);
/* 1 when phase ran to its end: started, not interrupted, not stopped by a
 * failure.  The JSON's "finished". */
int verdict_phase_finished(const struct run_result *r, uint32_t phase);
/* 1 when phase has figures but did not run to its end (cut short, a kill
 * -9's journal, interrupted, stopped by a failure): every report prints
 * them marked partial, the JSON's "partial". */
int verdict_phase_partial(const struct run_result *r, uint32_t phase);

#endif
