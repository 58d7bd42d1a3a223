/* result_errors: why ops failed, in a run_result: per phase, each agent's
 * failed ops by cause (common/errcause.h) as its phase-done carried them,
 * the fleet's merge, and the report lines that name them.
 *
 * The causes of an agent's op type account for exactly its `errors`
 * counter (run.c checks it on arrival, the loaders on reading); an agent
 * whose totals came without causes (salvaged: lost before its phase-done)
 * has failed ops whose cause is "not reported".
 *
 * Owned by the phase_result (its `errors`, NULL until an agent's causes
 * arrive); single-threaded like the rest of the result. */
#ifndef NFSTORM_RESULT_ERRORS_H
#define NFSTORM_RESULT_ERRORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/errcause.h"
#include "coordinator/result/result.h"

/* Agents' lines in the text report, at most; the rest are counted. */
#define RESULT_ERRORS_AGENTS_MAX 16

void result_errors_free(struct phase_result *ph, uint32_t nagents);
/* Record agent's failed ops by cause for phase (copied, its files made
 * printable UTF-8 by result_clean_utf8; nothing kept when s holds none).
 * -EINVAL when out of range. */
int result_set_agent_errors(struct run_result *r, uint32_t phase, uint32_t agent, const struct errcause_set *s);
/* What agent sent, or NULL (no failed op, or no causes arrived). */
const struct errcause_set *result_agent_errors(const struct run_result *r, uint32_t phase, uint32_t agent);
/* 0 when s accounts for exactly the errors of totals, op type by op type;
 * else -EINVAL with err naming the first op type that differs. */
int result_errors_match(const struct errcause_set *s, const struct op_set *totals, char *err, size_t errlen);
/* The fleet's causes of phase: the agents' merged in index order (each
 * cause's first from the first agent that had it: first_agent[t][i] for
 * out->op[t].c[i]).  first_agent may be NULL. */
void result_phase_errors(const struct run_result *r, uint32_t phase, struct errcause_set *out,
                         uint32_t first_agent[OP__COUNT][ERRCAUSE_MAX]);
/* One cause in a line: "3 x ENOSPC (No space left on device), first at
 * offset 65536 in /d/f.0.0.0" (metadata ops: "first on PATH"). */
void result_errors_cause_line(const struct errcause *c, enum op_type t, char *buf, size_t len);
/* fio's "error" of a phase (agent < 0: the fleet's) or an agent: 0 when no
 * op failed, else the errno of the first cause (op type order): itself for
 * an errno, ENODATA for a short read, EIO for an NFS status or a cause not
 * told, ETIMEDOUT past op_deadline, ECANCELED for a cut-off op. */
int result_errors_fio_error(const struct run_result *r, uint32_t phase, int agent);
/* The text report's lines after "errors:": per agent with failed ops (at
 * most RESULT_ERRORS_AGENTS_MAX), per op type, one line per cause. */
void result_errors_text(FILE *out, const struct run_result *r, uint32_t phase);

#endif
