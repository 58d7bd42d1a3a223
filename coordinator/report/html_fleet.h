/* html_fleet: the run HTML's fleet view (more agents than --agent-rows):
 * per phase a summary of who ran and how their throughput spread, a
 * histogram of agents by IOPS with the slowest, fastest and lost agents
 * marked, and the per-agent detail as a collapsible table sortable without
 * a script (radio buttons and CSS, svg.c's page style); and the list of
 * agents at the page's end, collapsed.  Sizes stay bounded: one table row
 * per agent and phase, no per-agent chart elements but the marks. */
#ifndef NFSTORM_HTML_FLEET_H
#define NFSTORM_HTML_FLEET_H

#include <stdio.h>
#include "coordinator/report/fleet_summary.h"
#include "coordinator/report/html_timeline.h"
#include "coordinator/result/result.h"

/* The time charts' marks for the fleet view: tl's bands, but the "lost"
 * bands of agents lost over the same span merged into one whose note says
 * how many ("12 agents lost", or the one agent's note), so 1,000 lost
 * agents shade the chart once, not 1,000 times.  *dst shares tl's per-agent
 * arrays (valid while tl is); free with html_fleet_timeline_free. */
void html_fleet_timeline(struct html_timeline *dst, const struct html_timeline *tl);
void html_fleet_timeline_free(struct html_timeline *dst);

/* "agents: N (n ran, ...)", the distribution table (data-view
 * "fleet-dist") and the lost, idle and resultless agents by name (at most
 * FLEET_NAMES_MAX each, then "... and N more"). */
void html_fleet_summary(FILE *out, const struct run_result *r, const struct fleet_phase *f, int base);
/* The histogram of the agents that ran by IOPS (data-view "agent-dist"). */
void html_fleet_chart_dist(FILE *out, const struct run_result *r, uint32_t phase, const struct fleet_phase *f,
                           const struct html_timeline *tl);
/* <details data-view="agent-detail">: one row per agent, sortable by id,
 * IOPS (either way) or p99 latency. */
void html_fleet_table(FILE *out, const struct run_result *r, uint32_t phase, const struct fleet_phase *f,
                      int base);
/* <table data-view="agent-table">: one row per agent (id, host, address,
 * cpus, rtt, lost; a lost agent's row has class "lost" and data-lost, the
 * second it was lost at).  The page prints it as is for a few agents. */
void html_fleet_agent_table(FILE *out, const struct run_result *r);
/* <h2>Agents</h2> and <details data-view="agent-list"> ("N agents (n
 * lost)") around html_fleet_agent_table: the fleet view's list, collapsed. */
void html_fleet_agent_list(FILE *out, const struct run_result *r);

#endif
