/* html_coherence: a phase's rw=coherence results in the HTML report: one
 * row per (writer, reader) pair and a merged row, with generations seen,
 * never visible, lag percentiles and the clock error bound; data-coh-*
 * attributes carry the exact figures for scripts and tests. */
#ifndef NFSTORM_HTML_COHERENCE_H
#define NFSTORM_HTML_COHERENCE_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/result/result.h"

/* Nothing when the phase measured no coherence. */
void html_coherence(FILE *out, const struct run_result *r, uint32_t phase);

#endif
