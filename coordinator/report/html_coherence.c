/* html_coherence: see html_coherence.h. */
#include <inttypes.h>
#include <stdlib.h>
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/report/html_coherence.h"

static void row(FILE *out, const char *writer, const char *reader, const struct coh_pair *p, uint64_t bound)
{
    char a[32], b[32], c[32], d[32];
    const struct hist *h = &p->lag;

    fprintf(out, "<tr%s data-coh-seen=\"%" PRIu64 "\" data-coh-never=\"%" PRIu64 "\" data-coh-p50=\"%" PRIu64
            "\"><td>%s</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
            "<td>%s</td><td>&plusmn;%s</td></tr>\n",
            p->never ? " class=\"warn\"" : "", p->seen, p->never, hist_percentile(h, 50.0), writer, reader,
            p->seen, p->never, units_fmt_ns(a, sizeof a, (double)hist_percentile(h, 50.0)),
            units_fmt_ns(b, sizeof b, (double)hist_percentile(h, 99.0)),
            units_fmt_ns(c, sizeof c, (double)(h->count ? h->max_ns : 0)),
            units_fmt_ns(d, sizeof d, (double)bound));
}

void html_coherence(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct coh_set *s;
    struct coh_pair *all;
    uint64_t bound = 0;

    if (phase >= r->nphases || r->phases[phase].coh.n == 0)
        return;
    s = &r->phases[phase].coh;
    fprintf(out, "<h3>Visibility lag</h3>\n<table class=\"coherence\"><tr><th>writer</th><th>reader</th>"
            "<th>seen</th><th>never visible</th><th>lag p50</th><th>lag p99</th><th>lag max</th>"
            "<th>clock error</th></tr>\n");
    for (uint32_t i = 0; i < s->n; i++) {
        char w[16], rd[16];
        uint64_t b = coherence_error_bound(r, s->pair[i].writer, s->pair[i].reader);
        snprintf(w, sizeof w, "%u", s->pair[i].writer);
        snprintf(rd, sizeof rd, "%u", s->pair[i].reader);
        row(out, w, rd, &s->pair[i], b);
        if (b > bound)
            bound = b;
    }
    all = xmalloc(sizeof *all);
    coh_set_total(s, all);
    row(out, "all", "all", all, bound);
    free(all);
    fprintf(out, "</table>\n");
}
