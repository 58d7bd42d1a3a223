/* start_skew: a phase's start skew as a sentence, shared by the text and
 * HTML reports so both say the same true thing.
 *
 * The skew (result_phase_finish) is taken over the agents whose start
 * instant arrived: an agent that issued ops but was lost (its totals
 * salvaged), or a phase re-rendered from a journal cut short, has ops but
 * no start time.  "not measured (0 agents issued ops)" would then be false
 * (2 agents did 350k IOPS): the sentence counts the agents that issued ops
 * and says how many start times did not arrive. */
#ifndef NFSTORM_START_SKEW_H
#define NFSTORM_START_SKEW_H

#include <stddef.h>
#include <stdint.h>
#include "coordinator/result/result.h"

/* Of the agents of phase that issued ops, those whose start time did not arrive (issued - nstarted). */
uint32_t start_skew_agents_unknown(const struct run_result *r, uint32_t phase);
/* Into buf: "measured start skew: 12us over 2 agents (latest minus earliest
 * first op)[, over the 1 ms goal][; the start time of 1 more agent that
 * issued ops did not arrive]", or "start skew: not measured (...)" with the
 * true reason.  Returns buf. */
char *start_skew_text(char *buf, size_t len, const struct run_result *r, uint32_t phase);

#endif
