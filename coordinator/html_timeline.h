/* html_timeline: what the run HTML's time charts shade and mark for one
 * phase: stalled intervals and the time after an agent was lost, as
 * svg_bands on the phase's time axis (seconds into the phase), and per
 * agent whether and from when it was lost.
 *
 * Built from the result alone (interval counters, stall detection in
 * result.c, agent_info.lost), so a report re-rendered from a JSON result
 * shades what the live run's report shaded. */
#ifndef NFSTORM_HTML_TIMELINE_H
#define NFSTORM_HTML_TIMELINE_H

#include <stddef.h>
#include "coordinator/result.h"
#include "coordinator/svg.h"

struct html_timeline {
    struct svg_band *band;        /* [nband], owned */
    size_t nband;
    double *lost_x;               /* [nagents]: seconds into the phase from which
                                     the agent was gone, < 0 if it was not lost
                                     during or before this phase; owned */
    char (*lost_note)[48];        /* [nagents]: "lost at 3.2 s" or "" */
    char (*band_note)[64];        /* [nagents]: "agent 1 lost at 3.2 s", the band's note */
    char (*change_note)[64];      /* [HTML_TIMELINE_CHANGES]: "-80% throughput", a change band's note */
};
/* Change bands drawn per phase at most (fleet changes first). */
#define HTML_TIMELINE_CHANGES 16

/* The marks of phase (in range).  Stalled intervals k are [k, k+1) x the
 * interval ("stall" when no op completed on any agent, "agent-stall" when
 * some did), consecutive ones merged; a lost agent's band ("lost", data-id
 * its id) runs from the end of the last interval it sent data for (0 if
 * none) to the end of the phase's intervals.  A step-down or step-up
 * (changes.h: the fleet's, then an agent's that no fleet change covers)
 * marks the interval it happened in ("change", data-id the agent or -1),
 * noted "-80% throughput" or "agent 1: -45% throughput". */
void html_timeline_init(struct html_timeline *t, const struct run_result *r, uint32_t phase);
void html_timeline_free(struct html_timeline *t);

#endif
