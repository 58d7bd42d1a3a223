/* client_report: what the text report (and the JSON's client_bound,
 * nic_bound) says about the agents' own measurements: the client-bound
 * and NIC-bound warnings (client_result.h has the rules), the notes
 * ("not an NFS mount"), a line per agent behind a local NFS proxy, and a
 * short per-phase NFS client section from mountstats, one line per agent
 * and operation like nfsiostat's. */
#ifndef NFSTORM_CLIENT_REPORT_H
#define NFSTORM_CLIENT_REPORT_H

#include "coordinator/fleet/client_cap.h"
#include <stdint.h>
#include <stdio.h>
#include "coordinator/result/result.h"

#define CLIENT_REPORT_AGENTS_MAX 8   /* agents given mountstats lines, distinct notes shown,
                                        then "... N more" */

/* 1 when agent a was client-bound (CPU) during phase (client_result_cpu_bound
 * on its phase sample, or its phase-done CPU alone when it sent none). */
int client_report_cpu_bound(const struct run_result *r, uint32_t phase, uint32_t a);
/* 1 when agent a was NIC-bound during phase (link speed known). */
int client_report_nic_bound(const struct run_result *r, uint32_t phase, uint32_t a);
/* 1 with *f filled when agent a's reads in phase were faster than its NIC
 * link or its --client-cap (client_cap.h: a cache answered them). */
int client_report_faster(const struct run_result *r, uint32_t phase, uint32_t a, struct client_fast *f);
/* The warning lines for agent a (named "agent ID (HOST)"): CPU, NIC, then
 * reads faster than the link; how many it printed. */
int client_report_bound_lines(FILE *out, const struct run_result *r, uint32_t phase, uint32_t a,
                              const char *host);
/* The line of a local NFS proxy over secs seconds ("efs-proxy (pid 4242)
 * on port 20049: CPU 0.50 s user 0.20 s sys (7.0% of a core), 2
 * connections to 10.0.1.5:2049 10.0.1.6:2049, received 1.0GiB sent
 * 20MiB, NIC eth0 on the route to 10.0.1.5"), for the text and HTML. */
void client_report_proxy_text(const struct proxy_sample *p, const char *nic, double secs, char *out,
                              size_t len);
/* The phase's notes, local NFS proxies and mountstats section (nothing
 * when no agent sent any). */
void client_report_text(FILE *out, const struct run_result *r, uint32_t phase);

#endif
