/* html_verify: the HTML report's verification section of a phase: counts
 * by kind and the first offending blocks (docs/verify.md). */
#ifndef NFSTORM_HTML_VERIFY_H
#define NFSTORM_HTML_VERIFY_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/result/result.h"

/* Nothing when the phase did not verify. */
void html_verify(FILE *out, const struct run_result *r, uint32_t phase);

#endif
