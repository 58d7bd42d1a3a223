/* html_verify: a phase's verification results as HTML (see html_verify.h):
 * a table of counts with one row per kind (the ones that are not ok
 * marked), then the first offenders, each with where it was, what was
 * expected and what was found.  data-verify attributes carry the figures
 * for scripts and tests. */
#include <inttypes.h>
#include "coordinator/report/html_verify.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/svg.h"

void html_verify(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct vstats *v = result_phase_verify(r, phase);
    if (!v)
        return;
    fprintf(out, "<h3>Verification</h3>\n<table class=\"verify\" data-verify-checked=\"%" PRIu64 "\">"
            "<tr><th class=\"l\">blocks</th><th>count</th></tr>\n", v->checked);
    fprintf(out, "<tr><td class=\"l\">checked</td><td>%" PRIu64 "</td></tr>\n", v->checked);
    for (int k = 0; k < VB__COUNT; k++)
        fprintf(out, "<tr%s><td class=\"l\">%s</td><td data-verify=\"%s\">%" PRIu64 "</td></tr>\n",
                k != VB_OK && v->count[k] ? " class=\"warn\"" : "", vblock_kind_name((enum vblock_kind)k),
                vblock_kind_name((enum vblock_kind)k), v->count[k]);
    fprintf(out, "</table>\n");
    if (v->nruns) {            /* who wrote what was checked: a mix is the first thing to see */
        char runs[1024];
        result_verify_runs(v, runs, sizeof runs);
        fprintf(out, "<p class=\"note\" data-verify-runs=\"%u\">written by: ", v->nruns);
        svg_escape(out, runs);
        fprintf(out, "</p>\n");
    }
    if (!v->nfirst)
        return;
    fprintf(out, "<table class=\"verify-first\"><tr><th>agent</th><th class=\"l\">file</th><th>offset</th>"
            "<th class=\"l\">kind</th><th>expected writer</th><th>expected generation</th>"
            "<th>found writer</th><th>found job</th><th>found generation</th><th>found offset</th>"
            "<th>expected run</th><th>found run</th></tr>\n");
    for (uint32_t i = 0; i < v->nfirst; i++) {
        const struct vstats_bad *b = &v->first[i];
        fprintf(out, "<tr><td>%u</td><td class=\"l\">", b->reader);
        svg_escape(out, b->file);
        fprintf(out, "</td><td>%" PRIu64 "</td><td class=\"l\">%s</td>", b->offset,
                vblock_kind_name((enum vblock_kind)b->kind));
        if (b->expected_writer == VBLOCK_ANY_WRITER)
            fprintf(out, "<td>any</td>");
        else
            fprintf(out, "<td>%u</td>", b->expected_writer);
        if (b->expected_gen == VBLOCK_ANY_GEN)
            fprintf(out, "<td>any</td>");
        else
            fprintf(out, "<td>%" PRIu64 "</td>", b->expected_gen);
        fprintf(out, "<td>%u</td><td>%u</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td>", b->found_writer,
                b->found_job, b->found_gen, b->found_offset);
        {
            char er[17] = "any", fr[17] = "none";
            if (b->expected_run)
                vblock_run_format(b->expected_run, er);
            if (b->found_run)
                vblock_run_format(b->found_run, fr);
            fprintf(out, "<td>%s</td><td>%s</td></tr>\n", er, fr);
        }
    }
    fprintf(out, "</table>\n");
    if (vstats_bad_total(v) > v->nfirst)
        fprintf(out, "<p class=\"note\">and %" PRIu64 " more bad blocks</p>\n", vstats_bad_total(v) - v->nfirst);
}
