/* client_html: the HTML report's short "Client" section per phase: each
 * agent's CPU (busy cores, the limit and its rule), the interface and its
 * bytes against the link, the bound warnings, the notes, and the NFS client
 * operations of its mountstats (RTT next to the whole execute time: what
 * is the server and wire, what is the client's queue). */
#ifndef NFSTORM_CLIENT_HTML_H
#define NFSTORM_CLIENT_HTML_H

#include <stdint.h>
#include <stdio.h>
#include "coordinator/result/result.h"

#define CLIENT_HTML_AGENTS_MAX 64   /* agents given rows; the JSON has all */

/* Nothing when no agent of the phase sent any. */
void client_html_section(FILE *out, const struct run_result *r, uint32_t phase);

#endif
