/* html_coherence: see html_coherence.h. */
#include <inttypes.h>
#include <stdlib.h>
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/report/html_coherence.h"

static void row(FILE *out, int pair, const struct coh_pair *p, char q[4][32])
{
    char w[16] = "all", rd[16] = "all";

    if (pair) {
        snprintf(w, sizeof w, "%u", p->writer);
        snprintf(rd, sizeof rd, "%u", p->reader);
    }
    fprintf(out, "<tr%s data-coh-seen=\"%" PRIu64 "\" data-coh-never=\"%" PRIu64 "\" data-coh-p50=\"%" PRIu64
            "\"><td>%s</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
            "<td>%s</td><td>&plusmn;%s</td></tr>\n",
            p->never ? " class=\"warn\"" : "", p->seen, p->never, hist_percentile(&p->lag, 50.0), w, rd,
            p->seen, p->never, q[0], q[1], q[2], q[3]);
}

void html_coherence(FILE *out, const struct run_result *r, uint32_t phase)
{
    if (phase >= r->nphases || r->phases[phase].coh.n == 0)
        return;
    fprintf(out, "<h3>Visibility lag</h3>\n<table class=\"coherence\"><tr><th>writer</th><th>reader</th>"
            "<th>seen</th><th>never visible</th><th>lag p50</th><th>lag p99</th><th>lag max</th>"
            "<th>clock error</th></tr>\n");
    coherence_rows(out, r, phase, row);
    fprintf(out, "</table>\n");
}
