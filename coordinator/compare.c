/* compare: phases side by side across runs (see compare.h).
 *
 * Design: matching (compare_build) is separate from rendering, and values
 * come out of one accessor (compare_value), so the text and HTML views and
 * the tests see identical numbers.  Rows follow the first run's phase
 * order, then phases that only later runs have, in their order.  Ratios
 * are value / first run's value for every metric; for latency a ratio
 * above 1 means slower, for IOPS/BW/Jain it means more. */
#include "coordinator/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/fairness.h"
#include "coordinator/svg.h"

static const char *const metric_name[CMP__PER_OP] = { "IOPS", "BW", "p50", "p99" };

static int same_phase(const struct phase_result *a, const struct phase_result *b)
{
    return strcmp(a->name, b->name) == 0 && a->rw == b->rw && a->bs == b->bs;
}

void compare_build(struct compare *c, const struct run_result *runs, const char *const *labels, uint32_t n)
{
    char **used = xcalloc(n ? n : 1, sizeof(*used));
    uint32_t cap = 0;

    memset(c, 0, sizeof(*c));
    c->nruns = n;
    c->runs = runs;
    c->labels = labels;
    for (uint32_t j = 0; j < n; j++)
        used[j] = xcalloc(runs[j].nphases ? runs[j].nphases : 1, 1);
    for (uint32_t j = 0; j < n; j++) {
        for (uint32_t i = 0; i < runs[j].nphases; i++) {
            const struct phase_result *ph = &runs[j].phases[i];
            struct compare_row *row;

            if (used[j][i])
                continue;
            if (c->nrows == cap) {
                cap = cap ? cap * 2 : 16;
                c->rows = xrealloc(c->rows, cap * sizeof(*c->rows));
            }
            row = &c->rows[c->nrows++];
            row->name = ph->name;
            row->rw = ph->rw;
            row->bs = ph->bs;
            row->idx = xmalloc(n * sizeof(*row->idx));
            row->nmissing = 0;
            for (uint32_t o = 0; o < n; o++) {
                row->idx[o] = -1;
                if (o < j)
                    continue;
                for (uint32_t k = 0; k < runs[o].nphases; k++)
                    if (!used[o][k] && same_phase(ph, &runs[o].phases[k])) {
                        used[o][k] = 1;
                        row->idx[o] = (int)k;
                        break;
                    }
            }
            for (uint32_t o = 0; o < n; o++)
                row->nmissing += row->idx[o] < 0;
        }
    }
    for (uint32_t j = 0; j < n; j++)
        free(used[j]);
    free(used);
}

void compare_free(struct compare *c)
{
    for (uint32_t i = 0; i < c->nrows; i++)
        free(c->rows[i].idx);
    free(c->rows);
    memset(c, 0, sizeof(*c));
}

double compare_value(const struct compare *c, uint32_t row, uint32_t j, int op, int m)
{
    int i = c->rows[row].idx[j];
    const struct run_result *r = &c->runs[j];
    const struct phase_result *ph;
    const struct op_stats *o;

    if (i < 0 || !r->phases[i].finished)
        return NAN;
    ph = &r->phases[i];
    if (op < 0) {
        double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
        struct fairness f;

        fairness_phase(r, (uint32_t)i, share, &f);
        free(share);
        return f.ncounted ? f.jain : NAN;
    }
    o = &ph->totals.op[op];
    if (o->ops == 0)
        return NAN;
    switch (m) {
    case CMP_IOPS: return result_iops(o, ph->duration_ns);
    case CMP_BW: return result_bw(o, ph->duration_ns);
    case CMP_P50: return (double)hist_percentile(&o->lat, 50);
    case CMP_P99: return (double)hist_percentile(&o->lat, 99);
    default: return NAN;
    }
}

double compare_ratio(const struct compare *c, uint32_t row, uint32_t j, int op, int m)
{
    double a = compare_value(c, row, 0, op, m), b = compare_value(c, row, j, op, m);

    if (isnan(a) || isnan(b) || a == 0)
        return NAN;
    return b / a;
}

static void fmt_value(char *buf, size_t len, double v, int op, int m, int base)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (op < 0)
        snprintf(buf, len, "%.3f", v);
    else if (m == CMP_IOPS)
        units_fmt_count(buf, len, v);
    else if (m == CMP_BW)
        units_fmt_rate(buf, len, v, base);
    else
        units_fmt_ns(buf, len, v);
}

/* Op types any run of row has ops of. */
static int row_has_op(const struct compare *c, uint32_t row, int t)
{
    for (uint32_t j = 0; j < c->nruns; j++)
        if (!isnan(compare_value(c, row, j, t, CMP_IOPS)))
            return 1;
    return 0;
}

static void missing_list(FILE *out, const struct compare *c, const struct compare_row *rw, int want_missing)
{
    int first = 1;

    for (uint32_t j = 0; j < c->nruns; j++)
        if ((rw->idx[j] < 0) == want_missing) {
            fprintf(out, "%s%s", first ? "" : ", ", c->labels[j]);
            first = 0;
        }
}

void compare_text(FILE *out, const struct compare *c, const char *const *paths, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024, w = 12;
    uint32_t nun = 0;
    char v[32], bs[32];

    for (uint32_t j = 0; j < c->nruns; j++)
        if ((int)strlen(c->labels[j]) + 9 > w)
            w = (int)strlen(c->labels[j]) + 9;
    fprintf(out, "compare: %u runs (ratio = value / first run's)\n", c->nruns);
    for (uint32_t j = 0; j < c->nruns; j++)
        fprintf(out, "  [%u] %s: %s, %u agents, %u phases\n", j + 1, c->labels[j], paths[j],
                c->runs[j].nagents, c->runs[j].nphases);
    for (uint32_t i = 0; i < c->nrows; i++) {
        const struct compare_row *row = &c->rows[i];

        fprintf(out, "\nphase %s (%s, %s)%s\n", row->name, rw_mode_name(row->rw),
                units_fmt_bytes(bs, sizeof(bs), (double)row->bs, base),
                row->nmissing ? "  [unmatched]" : "");
        fprintf(out, "  %-12s", "metric");
        for (uint32_t j = 0; j < c->nruns; j++)
            fprintf(out, " %*s", w, c->labels[j]);
        fputc('\n', out);
        for (int t = -1; t < OP__COUNT; t++) {
            if (t >= 0 && !row_has_op(c, i, t))
                continue;
            for (int m = 0; m < (t < 0 ? 1 : CMP__PER_OP); m++) {
                char name[32], cell[64];

                snprintf(name, sizeof(name), "%s%s%s", t < 0 ? "jain" : op_type_name((enum op_type)t),
                         t < 0 ? "" : " ", t < 0 ? "" : metric_name[m]);
                fprintf(out, "  %-12s", name);
                for (uint32_t j = 0; j < c->nruns; j++) {
                    double ratio = compare_ratio(c, i, j, t, m);

                    fmt_value(v, sizeof(v), compare_value(c, i, j, t, m), t, m, base);
                    if (j == 0 || isnan(ratio))
                        snprintf(cell, sizeof(cell), "%s", v);
                    else
                        snprintf(cell, sizeof(cell), "%s (%.2fx)", v, ratio);
                    fprintf(out, " %*s", w, cell);
                }
                fputc('\n', out);
            }
        }
        nun += row->nmissing > 0;
    }
    if (nun == 0)
        return;
    fprintf(out, "\nunmatched phases (not in every run; matched on name, rw and bs):\n");
    for (uint32_t i = 0; i < c->nrows; i++) {
        const struct compare_row *row = &c->rows[i];

        if (!row->nmissing)
            continue;
        fprintf(out, "  %s (%s, %s): in ", row->name, rw_mode_name(row->rw),
                units_fmt_bytes(bs, sizeof(bs), (double)row->bs, base));
        missing_list(out, c, row, 0);
        fprintf(out, "; missing from ");
        missing_list(out, c, row, 1);
        fputc('\n', out);
    }
}


/* Grouped bars: one group per (row, op) with ops, one bar per run. */
static void compare_chart(FILE *out, const struct compare *c, int m, const char *view, const char *title)
{
    size_t cap = (size_t)c->nrows * OP__COUNT, ncat = 0;
    char **cats = xcalloc(cap ? cap : 1, sizeof(*cats));
    double *v = xcalloc((cap ? cap : 1) * c->nruns, sizeof(*v));
    struct svg_bar_series *s = xcalloc(c->nruns, sizeof(*s));
    struct svg_chart ch = { .view = view, .title = title, .xlabel = "phase", .ylabel = metric_name[m],
                            .yfmt = m == CMP_IOPS ? svg_fmt_count : svg_fmt_ns };

    for (uint32_t i = 0; i < c->nrows; i++)
        for (int t = 0; t < OP__COUNT; t++) {
            if (!row_has_op(c, i, t))
                continue;
            cats[ncat] = xmalloc(PLAN_NAME_MAX + 8);
            snprintf(cats[ncat], PLAN_NAME_MAX + 8, "%.24s %s", c->rows[i].name, op_type_name((enum op_type)t));
            for (uint32_t j = 0; j < c->nruns; j++) {
                double x = compare_value(c, i, j, t, m);
                v[(size_t)j * cap + ncat] = isnan(x) ? 0 : x;
            }
            ncat++;
        }
    for (uint32_t j = 0; j < c->nruns; j++)
        s[j] = (struct svg_bar_series){ .name = c->labels[j], .v = &v[(size_t)j * cap] };
    svg_bars(out, &ch, (const char *const *)cats, ncat, s, c->nruns);
    for (size_t k = 0; k < ncat; k++)
        free(cats[k]);
    free(cats);
    free(v);
    free(s);
}

void compare_html(FILE *out, const struct compare *c, const char *const *paths, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;
    char v[32], bs[32];

    svg_page_begin(out, "nfstorm compare");
    fprintf(out, "<h1>nfstorm compare: %u runs</h1>\n<table><tr><th>#</th><th class=\"l\">label</th>"
            "<th class=\"l\">file</th><th>agents</th><th>phases</th></tr>\n", c->nruns);
    for (uint32_t j = 0; j < c->nruns; j++) {
        fprintf(out, "<tr><td>%u</td><td class=\"l\">", j + 1);
        svg_escape(out, c->labels[j]);
        fprintf(out, "</td><td class=\"l\">");
        svg_escape(out, paths[j]);
        fprintf(out, "</td><td>%u</td><td>%u</td></tr>\n", c->runs[j].nagents, c->runs[j].nphases);
    }
    fprintf(out, "</table>\n<p class=\"note\">Each cell: the run's value and its ratio to the first run.</p>\n");
    fprintf(out, "<div class=\"grid\">\n");
    compare_chart(out, c, CMP_IOPS, "compare-iops", "IOPS by phase and run");
    compare_chart(out, c, CMP_P99, "compare-p99", "p99 latency by phase and run");
    fprintf(out, "</div>\n");
    for (uint32_t i = 0; i < c->nrows; i++) {
        const struct compare_row *row = &c->rows[i];

        fprintf(out, "<h2>");
        svg_escape(out, row->name);
        fprintf(out, " <small>(%s, %s)</small>%s</h2>\n<table><tr><th class=\"l\">metric</th>",
                rw_mode_name(row->rw), units_fmt_bytes(bs, sizeof(bs), (double)row->bs, base),
                row->nmissing ? " <span class=\"warn\">unmatched</span>" : "");
        for (uint32_t j = 0; j < c->nruns; j++) {
            fprintf(out, "<th>");
            svg_escape(out, c->labels[j]);
            fprintf(out, "</th>");
        }
        fprintf(out, "</tr>\n");
        for (int t = -1; t < OP__COUNT; t++) {
            if (t >= 0 && !row_has_op(c, i, t))
                continue;
            for (int m = 0; m < (t < 0 ? 1 : CMP__PER_OP); m++) {
                fprintf(out, "<tr><td class=\"l\">%s%s%s</td>", t < 0 ? "Jain index" : op_type_name((enum op_type)t),
                        t < 0 ? "" : " ", t < 0 ? "" : metric_name[m]);
                for (uint32_t j = 0; j < c->nruns; j++) {
                    double ratio = compare_ratio(c, i, j, t, m);

                    fmt_value(v, sizeof(v), compare_value(c, i, j, t, m), t, m, base);
                    if (j == 0 || isnan(ratio))
                        fprintf(out, "<td>%s</td>", v);
                    else
                        fprintf(out, "<td>%s <small>(%.2fx)</small></td>", v, ratio);
                }
                fprintf(out, "</tr>\n");
            }
        }
        fprintf(out, "</table>\n");
        if (row->nmissing) {
            fprintf(out, "<p class=\"warn\">In ");
            for (uint32_t j = 0, f = 1; j < c->nruns; j++)
                if (row->idx[j] >= 0) {
                    fprintf(out, "%s", f ? "" : ", ");
                    svg_escape(out, c->labels[j]);
                    f = 0;
                }
            fprintf(out, "; missing from ");
            for (uint32_t j = 0, f = 1; j < c->nruns; j++)
                if (row->idx[j] < 0) {
                    fprintf(out, "%s", f ? "" : ", ");
                    svg_escape(out, c->labels[j]);
                    f = 0;
                }
            fprintf(out, ".</p>\n");
        }
    }
    svg_page_end(out);
}
