/* result_verify: verification results (common/vstats.h) in a run_result:
 * per phase, which agents were asked to verify, what each found and the
 * fleet's merge; plus what that means for the verdict and the one-line
 * text every report prints.
 *
 * Owned by the phase_result (its `verify`, NULL when no job of the phase
 * verifies); single-threaded like the rest of the result. */
#ifndef NFSTORM_RESULT_VERIFY_H
#define NFSTORM_RESULT_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "common/vstats.h"
#include "coordinator/result/result.h"

struct result_verify {
    uint32_t nagents;
    uint8_t *asked;            /* [nagents]: runs a job of the phase with verify= */
    struct vstats **agent;     /* [nagents]: what it sent, NULL until then */
    struct vstats fleet;       /* merge of agent[] in index order */
};

/* From the plan (result_init): ph->verify made when a job of src checks
 * blocks (plan_verify_checks); its agents= say which agents are asked. */
void result_verify_init(struct phase_result *ph, const struct phase *src, uint32_t nagents);
/* Loaders (JSON, journal) that rebuild a phase without its plan. */
void result_verify_ask(struct phase_result *ph, uint32_t agent, uint32_t nagents);
void result_verify_free(struct phase_result *ph);
/* Record agent's results for phase (copied; the fleet merge redone).
 * -EINVAL when out of range or the phase did not ask for verification. */
int result_set_agent_verify(struct run_result *r, uint32_t phase, uint32_t agent, const struct vstats *v);
/* The fleet's / one agent's results: NULL when not asked (agent: or
 * nothing arrived yet). */
const struct vstats *result_phase_verify(const struct run_result *r, uint32_t phase);
const struct vstats *result_agent_verify(const struct run_result *r, uint32_t phase, uint32_t agent);
int result_agent_verify_asked(const struct run_result *r, uint32_t phase, uint32_t agent);
/* "run X (started T): N blocks; ..." of the runs that wrote v's blocks. */
void result_verify_runs(const struct vstats *v, char *buf, size_t len);
/* The phase-level verify reason (1, buf set) or 0: a verify_only phase
 * whose blocks were written by more than one run. */
int result_verify_phase_reason(const struct run_result *r, uint32_t phase, char *buf, size_t len);
/* Does agent's verification fail the phase?  1 with the reason in buf
 * ("verify: 2 of 64 blocks bad (1 torn, 1 zeroes); first: FILE offset N
 * torn: expected writer 0 generation G, found writer 1 generation H", or
 * "verify: asked, but verified nothing"), else 0. */
int result_verify_reason(const struct run_result *r, uint32_t phase, uint32_t agent, char *buf, size_t len);
/* "64 checked, 62 ok, 1 torn, 1 zeroes" (kinds with a count only). */
void result_verify_counts(const struct vstats *v, char *buf, size_t len);
/* The text report's lines for phase: "verify: COUNTS" and one line per
 * first offender; nothing when the phase did not verify. */
void result_verify_text(FILE *out, const struct run_result *r, uint32_t phase);

#endif
