/* compare_html: the comparison as one self-contained HTML page (see
 * compare.h): no scripts, no external URLs.
 *
 * First the decision chart: per metric, every phase's ratio to the
 * baseline with its 95% interval (compare_cell's ratio_lo/hi) on one log
 * axis, so a 20k-IOPS NFS phase and a 450k-IOPS local control read alike
 * (0.5x and 2x equally far from 1).  Then the values: charts faceted per
 * block size, one small bar chart per block size and metric (IOPS, BW, p99
 * latency), so a 32m phase's few hundred IOPS are never flattened under a
 * 4k phase's thousands on one linear axis; and inside a block size, phases
 * whose values are more than SCALE_SPAN apart (two jobs on different
 * storage) get charts of their own, each on its own axis ("scale 2 of 2"),
 * so no bar is drawn too small to read.
 * Each chart groups one bar per input for each (phase, op type) of that
 * block size, with an error bar (+-sd) where the input has repetitions.
 * Labels never overlap by construction: a group is as wide as its two
 * label lines (phase name, op type; each cut to LABEL_MAX characters with
 * the full name in a tooltip) or its bars, whichever is wider, and the
 * chart is as wide as its groups (CSS scales it down, text and all, when
 * the window is narrower).  The legend is HTML above the charts of every
 * facet.  Tables carry the same cells as the text view. */
#include "coordinator/report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/svg.h"
#include "coordinator/report/text_table.h"

#define LABEL_MAX 18          /* characters per label line */
#define CHAR_PX 6.6           /* average glyph width at the 11 px label font */
#define BAR_PX 16.0
#define CH_H 250.0
#define CH_ML 70.0            /* y tick labels */
#define CH_MR 14.0
#define CH_MT 26.0
#define CH_MB 38.0            /* two label lines */
#define SCALE_SPAN 10.0       /* largest / smallest value that share one linear axis */

struct cat {
    uint32_t row;
    int op;
};

/* s cut to LABEL_MAX display characters (an ellipsis marks the cut). */
static void short_label(char *buf, size_t len, const char *s)
{
    size_t w = 0, i = 0;

    for (; s[i] && w < LABEL_MAX - 1; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    if (!s[i] || text_table_width(s) <= LABEL_MAX)
        snprintf(buf, len, "%s", s);
    else
        snprintf(buf, len, "%.*s\u2026", (int)i, s);
}

/* The largest value a category's bars reach (mean + sd over the inputs),
 * 0 when it has none. */
static double cat_top(const struct compare *c, const struct cat *k, int m)
{
    double top = 0;

    for (uint32_t j = 0; j < c->nruns; j++) {
        struct compare_cell cell;

        compare_cell(c, k->row, j, k->op, m, &cell);
        if (!isnan(cell.mean))
            top = fmax(top, cell.mean + (isnan(cell.sd) ? 0 : cell.sd));
    }
    return top;
}

static void chart(FILE *out, const struct compare *c, const struct cat *cats, size_t ncat, int m,
                  const char *view, const char *title, int base)
{
    double gw = c->nruns * BAR_PX + 14, ymax = 0, pw, w, ph = CH_H - CH_MT - CH_MB, step;
    char l1[64], buf[64];

    for (size_t k = 0; k < ncat; k++) {
        const char *opn = op_type_name((enum op_type)cats[k].op);

        short_label(l1, sizeof(l1), c->rows[cats[k].row].name);
        gw = fmax(gw, (double)text_table_width(l1) * CHAR_PX + 12);
        gw = fmax(gw, (double)strlen(opn) * CHAR_PX + 12);
        ymax = fmax(ymax, cat_top(c, &cats[k], m));
    }
    pw = fmax(gw * (double)ncat, 200);
    gw = pw / (double)(ncat ? ncat : 1);
    w = CH_ML + pw + CH_MR;
    /* about 4 ticks; bandwidth's in the unit the labels print (KiB/s, MiB/s, ...) */
    step = svg_nice_step(ymax > 0 ? ymax * 1.05 : 1, 4, m == CMP_BW ? base : 0);
    ymax = ceil((ymax > 0 ? ymax * 1.05 : 1) / step) * step;
    fprintf(out, "<svg class=\"cchart\" data-view=\"");
    svg_escape(out, view);
    fprintf(out, "\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\""
            " role=\"img\">\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n"
            "<text x=\"%.0f\" y=\"17\" class=\"t\">", w, CH_H, w, CH_H, w, CH_H, CH_ML);
    svg_escape(out, title);
    fprintf(out, "</text>\n");
    for (double y = 0; y <= ymax * (1 + 1e-9); y += step) {
        double yy = CH_MT + ph - y / ymax * ph;

        compare_fmt_value(buf, sizeof(buf), y, 0, m, base);
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" class=\"g\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" class=\"yl\">%s</text>\n",
                CH_ML, yy, CH_ML + pw, yy, CH_ML - 4, yy + 4, buf);
    }
    for (size_t k = 0; k < ncat; k++) {
        double gx = CH_ML + gw * (double)k, bx = gx + (gw - c->nruns * BAR_PX) / 2;
        const char *name = c->rows[cats[k].row].name, *opn = op_type_name((enum op_type)cats[k].op);

        for (uint32_t j = 0; j < c->nruns; j++) {
            struct compare_cell cell;
            double x = bx + BAR_PX * j, y;

            compare_cell(c, cats[k].row, j, cats[k].op, m, &cell);
            if (isnan(cell.mean)) {
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"na\">n/a</text>\n", x + BAR_PX / 2,
                        CH_MT + ph - 3);
                continue;
            }
            y = CH_MT + ph - cell.mean / ymax * ph;
            compare_fmt_value(buf, sizeof(buf), cell.mean, 0, m, base);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                    x + 1, y, BAR_PX - 2, CH_MT + ph - y, svg_color(j));
            svg_escape(out, name);
            fprintf(out, " %s, ", opn);
            svg_escape(out, c->labels[j]);
            fprintf(out, ": %s", buf);
            if (cell.n >= 2 && !isnan(cell.sd)) {
                compare_fmt_value(buf, sizeof(buf), cell.sd, 0, m, base);
                fprintf(out, " \u00b1%s (n=%u)", buf, cell.n);
            }
            fprintf(out, "</title></rect>\n");
            if (cell.n >= 2 && !isnan(cell.sd) && cell.sd > 0) {
                double lo = CH_MT + ph - fmax(cell.mean - cell.sd, 0) / ymax * ph;
                double hi = CH_MT + ph - (cell.mean + cell.sd) / ymax * ph, cx = x + BAR_PX / 2;

                fprintf(out, "<path class=\"eb\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>\n",
                        cx, lo, hi, cx - 4, hi, cx + 4, cx - 4, lo, cx + 4);
            }
        }
        short_label(l1, sizeof(l1), name);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\"><title>", gx + gw / 2, CH_MT + ph + 14);
        svg_escape(out, name);
        fprintf(out, "</title>");
        svg_escape(out, l1);
        fprintf(out, "</text><text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n", gx + gw / 2,
                CH_MT + ph + 28, opn);
    }
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" class=\"ax\"/>\n</svg>\n",
            CH_ML, CH_MT, pw, ph);
}

static void legend(FILE *out, const struct compare *c)
{
    fprintf(out, "<div class=\"legend\">");
    for (uint32_t j = 0; j < c->nruns; j++) {
        fprintf(out, "<span><i style=\"background:%s\"></i>", svg_color(j));
        svg_escape(out, c->labels[j]);
        fprintf(out, "%s</span>", j == 0 ? " (baseline)" : "");
    }
    fprintf(out, "</div>\n");
}

/* Split cats into bands whose tops are within SCALE_SPAN of each other:
 * band[k] is category k's band (0-based, in order of first appearance);
 * returns how many bands.  A category without values joins band 0. */
static uint32_t scale_bands(const struct compare *c, const struct cat *cats, size_t ncat, int m, uint32_t *band)
{
    double *lo = xcalloc(ncat + 1, sizeof *lo), *hi = xcalloc(ncat + 1, sizeof *hi);
    uint32_t nb = 0;

    for (size_t k = 0; k < ncat; k++) {
        double v = cat_top(c, &cats[k], m);
        uint32_t b;

        if (!(v > 0)) {
            band[k] = 0;
            if (!nb)
                nb = 1;       /* (lo = hi = 0: any value may join it) */
            continue;
        }
        for (b = 0; b < nb; b++)
            if (hi[b] == 0 || (fmax(hi[b], v) / fmin(lo[b], v) <= SCALE_SPAN))
                break;
        if (b == nb)
            nb++;
        if (hi[b] == 0)
            lo[b] = hi[b] = v;
        lo[b] = fmin(lo[b], v);
        hi[b] = fmax(hi[b], v);
        band[k] = b;
    }
    free(lo);
    free(hi);
    return nb ? nb : 1;
}

static void facet(FILE *out, const struct compare *c, uint64_t bs, int base)
{
    static const struct { int m; const char *key, *title; } charts[] = {
        { CMP_IOPS, "iops", "IOPS" }, { CMP_BW, "bw", "bandwidth" }, { CMP_P99, "p99", "p99 latency" },
    };
    struct cat *cats = xcalloc((size_t)c->nrows * OP__COUNT + 1, sizeof(*cats));
    struct cat *sub = xcalloc((size_t)c->nrows * OP__COUNT + 1, sizeof(*sub));
    uint32_t *band = xcalloc((size_t)c->nrows * OP__COUNT + 1, sizeof(*band));
    size_t ncat = 0;
    char b[32], view[64], title[96];

    for (uint32_t i = 0; i < c->nrows; i++)
        for (int t = 0; t < OP__COUNT; t++)
            if (c->rows[i].bs == bs && compare_row_has_op(c, i, t))
                cats[ncat++] = (struct cat){ i, t };
    compare_fmt_bs(b, sizeof(b), bs);
    if (ncat == 0) {
        free(cats);
        return;
    }
    fprintf(out, "<section class=\"facet\" data-facet=\"%s\">\n<h2>block size %s</h2>\n", b, b);
    legend(out, c);
    fprintf(out, "<div class=\"cgrid\">\n");
    for (size_t k = 0; k < sizeof(charts) / sizeof(charts[0]); k++) {
        uint32_t nb = scale_bands(c, cats, ncat, charts[k].m, band);

        for (uint32_t bi = 0; bi < nb; bi++) {
            size_t nsub = 0;

            for (size_t q = 0; q < ncat; q++)
                if (band[q] == bi)
                    sub[nsub++] = cats[q];
            if (bi == 0) {
                snprintf(view, sizeof(view), "compare-%s-%s", charts[k].key, b);
                snprintf(title, sizeof(title), "%s, %s%s", charts[k].title, b, nb > 1 ? " (scale 1)" : "");
            } else {
                snprintf(view, sizeof(view), "compare-%s-%s-scale%u", charts[k].key, b, bi + 1);
                snprintf(title, sizeof(title), "%s, %s (scale %u)", charts[k].title, b, bi + 1);
            }
            chart(out, c, sub, nsub, charts[k].m, view, title, base);
        }
    }
    fprintf(out, "</div>\n</section>\n");
    free(band);
    free(sub);
    free(cats);
}

/* ---- the decision chart: each phase's ratio to the baseline ---- */

#define RC_ROW 22.0           /* px per line */
#define RC_LABEL 260.0        /* label column */
#define RC_PLOT 420.0
#define RC_NOTE 230.0         /* verdict column */

/* x of ratio v on the log axis [lo, hi]. */
static double rc_x(double v, double lo, double hi)
{
    return RC_LABEL + (log(v) - log(lo)) / (log(hi) - log(lo)) * RC_PLOT;
}

static void ratio_tick(FILE *out, double v, double lo, double hi, double h)
{
    double x = rc_x(v, lo, hi);

    fprintf(out, "<line x1=\"%.1f\" y1=\"26\" x2=\"%.1f\" y2=\"%.0f\" class=\"%s\"/>", x, x, h - 14,
            v == 1 ? "one" : "g");
    if (v >= 1)
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" class=\"xl\">%gx</text>\n", x, h - 2, v);
    else
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" class=\"xl\">1/%gx</text>\n", x, h - 2, 1 / v);
}

/* Each cell of the ratio chart, one line each: row i, op t it has, input j after the baseline. */
#define RATIO_CELLS(c, i, t, j)                 \
    for (uint32_t i = 0; i < (c)->nrows; i++)   \
        for (int t = 0; t < OP__COUNT; t++)     \
            if (compare_row_has_op(c, i, t))    \
                for (uint32_t j = 1; j < (c)->nruns; j++)

static void ratio_chart(FILE *out, const struct compare *c, int m, const char *key, const char *title)
{
    double lo = 0.5, hi = 2, h;
    uint32_t nlines = 0, line = 0;
    char buf[96], vd[96];

    RATIO_CELLS(c, i, t, j) {
        struct compare_cell cell;

        compare_cell(c, i, j, t, m, &cell);
        nlines++;
        if (cell.ratio > 0) {
            lo = fmin(lo, isnan(cell.ratio_lo) ? cell.ratio : cell.ratio_lo);
            hi = fmax(hi, isnan(cell.ratio_hi) ? cell.ratio : cell.ratio_hi);
        }
    }
    if (!nlines)
        return;
    /* powers of two around 1, so 1x sits on a tick and 0.5x, 2x are mirror images */
    lo = pow(2, floor(log2(lo)));
    hi = pow(2, ceil(log2(hi)));
    h = 40 + RC_ROW * nlines;
    fprintf(out, "<svg class=\"cchart ratio\" data-view=\"compare-ratio-%s\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n"
            "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n"
            "<text x=\"4\" y=\"16\" class=\"t\">", key, RC_LABEL + RC_PLOT + RC_NOTE, h,
            RC_LABEL + RC_PLOT + RC_NOTE, h, RC_LABEL + RC_PLOT + RC_NOTE, h);
    svg_escape(out, title);
    fprintf(out, " / baseline (log scale; whisker: 95%% interval of the ratio)</text>\n");
    {
        /* ticks at 1x and powers of 2^k from it, at most ~8 of them:
         * "4x", "1/4x" (never a 0.0078125 that runs into its neighbour) */
        double f = pow(2, ceil(log2(hi / lo) / 8));

        for (double v = 1; v >= lo * (1 - 1e-9); v /= f)
            ratio_tick(out, v, lo, hi, h);
        for (double v = f; v <= hi * (1 + 1e-9); v *= f)
            ratio_tick(out, v, lo, hi, h);
    }
    RATIO_CELLS(c, i, t, j) {
        struct compare_cell cell;
        double y = 26 + RC_ROW * line + RC_ROW / 2;

        compare_cell(c, i, j, t, m, &cell);
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" class=\"rl\"><title>", RC_LABEL - 6, y + 4);
        svg_escape(out, c->rows[i].name);
        fprintf(out, "</title>");
        short_label(buf, sizeof buf, c->rows[i].name);
        svg_escape(out, buf);
        fprintf(out, " %s %s, ", compare_fmt_bs(vd, sizeof vd, c->rows[i].bs), op_type_name((enum op_type)t));
        short_label(buf, sizeof buf, c->labels[j]);
        svg_escape(out, buf);
        fprintf(out, "</text>\n");
        if (cell.ratio > 0) {
            double x = rc_x(cell.ratio, lo, hi);

            if (!isnan(cell.ratio_lo))
                fprintf(out, "<path class=\"rci\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>\n",
                        rc_x(cell.ratio_lo, lo, hi), y, rc_x(cell.ratio_hi, lo, hi),
                        rc_x(cell.ratio_lo, lo, hi), y - 5, y + 5, rc_x(cell.ratio_hi, lo, hi), y - 5, y + 5);
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%.3gx",
                    x, y, svg_color(j), cell.ratio);
            if (!isnan(cell.ratio_lo))
                fprintf(out, " (95%% interval %.3gx .. %.3gx)", cell.ratio_lo, cell.ratio_hi);
            fprintf(out, "</title></circle>\n");
        }
        compare_fmt_change(buf, sizeof buf, &cell);
        compare_fmt_verdict(vd, sizeof vd, &cell);
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" class=\"rn %s\">%s, ", RC_LABEL + RC_PLOT + 8, y + 4,
                compare_mark_name(cell.mark), buf);
        svg_escape(out, vd);
        fprintf(out, "</text>\n");
        line++;
    }
    fprintf(out, "</svg>\n");
}

static void ratio_section(FILE *out, const struct compare *c)
{
    if (c->nruns < 2)
        return;
    fprintf(out, "<section class=\"ratios\">\n<h2>Ratio to the baseline</h2>\n<p class=\"note\">Each phase's "
            "mean over the baseline's, on one log axis whatever the phases' sizes (a 20k-IOPS phase and a "
            "450k-IOPS one read alike); the whisker is the 95%% interval of the ratio (log scale, Welch's "
            "degrees of freedom), shown where both sides have two or more repetitions. The words at the "
            "right are the table's: Welch's test on the values themselves, which near p = 0.05 can disagree "
            "with whether the whisker crosses 1x.</p>\n<div class=\"cgrid\">\n");
    ratio_chart(out, c, CMP_IOPS, "iops", "IOPS");
    ratio_chart(out, c, CMP_BW, "bw", "bandwidth");
    ratio_chart(out, c, CMP_P99, "p99", "p99 latency");
    fprintf(out, "</div>\n</section>\n");
}

static void cell_td(FILE *out, const struct compare *c, uint32_t i, int op, int m, int base)
{
    char v[48], sd[48], ch[64], vd[64];

    for (uint32_t j = 0; j < c->nruns; j++) {
        struct compare_cell cell;

        compare_cell(c, i, j, op, m, &cell);
        compare_fmt_value(v, sizeof(v), cell.mean, op, m, base);
        fprintf(out, "<td>%s", v);
        if (cell.n >= 2 && !isnan(cell.sd)) {
            compare_fmt_value(sd, sizeof(sd), cell.sd, op, m, base);
            fprintf(out, " <small>\u00b1%s</small>", sd);
        }
        fprintf(out, "</td>");
        if (j == 0)
            continue;
        compare_fmt_change(ch, sizeof(ch), &cell);
        compare_fmt_verdict(vd, sizeof(vd), &cell);
        fprintf(out, "<td class=\"%s\">%s</td><td class=\"l v%s\">%s</td>", compare_mark_name(cell.mark), ch,
                cell.verdict == CMP_V_SIGNIFICANT ? " sig" : "", vd);
    }
}

static void phase_table(FILE *out, const struct compare *c, uint32_t i, int base)
{
    const struct compare_row *row = &c->rows[i];
    char b[32];

    fprintf(out, "<h3>");
    svg_escape(out, row->name);
    fprintf(out, " <small>(%s, %s)</small>%s</h3>\n<div class=\"tw\"><table><tr><th class=\"l\">metric</th>",
            rw_mode_name(row->rw), compare_fmt_bs(b, sizeof(b), row->bs),
            row->nmissing ? " <span class=\"warn\">unmatched</span>" : "");
    for (uint32_t j = 0; j < c->nruns; j++) {
        svg_escaped(out, "<th>", c->labels[j], "</th>");
        if (j)
            fprintf(out, "<th>vs baseline</th><th class=\"l\">significance</th>");
    }
    fprintf(out, "</tr>\n");
    for (int op = -2, m = 0; compare_metric_next(c, i, &op, &m);) {
        fprintf(out, "<tr><td class=\"l\">%s%s%s</td>", op < 0 ? "Jain index" : op_type_name((enum op_type)op),
                op < 0 ? "" : " ", op < 0 ? "" : compare_metric_name(op, m));
        cell_td(out, c, i, op, m, base);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table></div>\n");
    if (row->nmissing) {
        fprintf(out, "<p class=\"warn\">Missing from ");
        for (uint32_t j = 0, f = 1; j < c->nruns; j++)
            if (row->idx[j] < 0) {
                fprintf(out, "%s", f ? "" : ", ");
                svg_escape(out, c->labels[j]);
                f = 0;
            }
        fprintf(out, ".</p>\n");
    }
}

/* What differs between the inputs' records (run_record.h), as a table. */
static void differences(FILE *out, const struct compare *c)
{
    const struct record_diff *d = &c->diff;

    if (d->nrows == 0) {
        fprintf(out, "<p class=\"note\" data-view=\"compare-differences\">The inputs' records agree "
                "(target, machines, mounts, plan).</p>\n");
        return;
    }
    fprintf(out, "<h2>What differs between the inputs</h2>\n<table data-view=\"compare-differences\">"
            "<tr><th class=\"l\">field</th>");
    for (uint32_t j = 0; j < c->nruns; j++) {
        svg_escaped(out, "<th class=\"l\">", c->labels[j], "</th>");
    }
    fprintf(out, "</tr>\n");
    for (uint32_t k = 0; k < d->nrows; k++) {
        svg_escaped(out, "<tr><td class=\"l\">", d->rows[k].key, "</td>");
        for (uint32_t j = 0; j < d->nruns; j++) {
            svg_escaped(out, "<td class=\"l\">", d->rows[k].values[j], "</td>");
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

/* The repetitions left out of the means and the test, each with why. */
static void left_out_html(FILE *out, const struct compare *c, int base)
{
    if (compare_left_out_list(out, c, base, "<h2>Left out of the statistics</h2>\n<p class=\"warn\">These "
                              "repetitions' phases did not end with verdict ok; their figures are not in the "
                              "means, the ratios or the tests (<code>--include-failed</code> keeps those that ran "
                              "to their end).</p>\n<ul class=\"left-out\">\n", "<li>", "</li>\n", svg_escape))
        fprintf(out, "</ul>\n");
}

void compare_html(FILE *out, const struct compare *c, const char *const *paths, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;
    /* a facet for every block size (at most one per row): a fixed cap
     * once left the 17th size's phases without charts */
    uint64_t *bs = xcalloc(c->nrows ? c->nrows : 1, sizeof(*bs));
    uint32_t nbs = 0;

    for (uint32_t i = 0; i < c->nrows; i++)
        compare_bs_insert(bs, &nbs, c->rows[i].bs);

    svg_page_begin(out, "nfstorm compare");
    fprintf(out, "<style>\n.cgrid{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}\n"
            "svg.cchart{max-width:100%%;height:auto;border:1px solid #e4e4e4}\n"
            "svg .na{font-size:11px;text-anchor:middle;fill:#999}svg .eb{stroke:#222;stroke-width:1.5;fill:none}\n"
            "svg .rci{stroke:#222;stroke-width:1.5;fill:none}svg .one{stroke:#444;stroke-width:1.2}\n"
            "svg .rl{font-size:11px;text-anchor:end}svg .rn{font-size:11px}\n"
            ".legend span{margin-right:18px;white-space:nowrap}.legend i{display:inline-block;width:12px;"
            "height:12px;margin-right:5px;vertical-align:-1px}\n"
            ".tw{overflow-x:auto}td.v{white-space:normal;min-width:8em}td.better{color:#176a17}td.worse{color:#b00}td.same{color:#666}td.sig{font-weight:600}\n"
            "</style>\n");
    fprintf(out, "<h1>nfstorm compare: %u inputs</h1>\n<table><tr><th>#</th><th class=\"l\">label</th>"
            "<th class=\"l\">file</th><th>repetitions</th><th>agents</th><th>phases</th></tr>\n", c->nruns);
    for (uint32_t j = 0; j < c->nruns; j++) {
        fprintf(out, "<tr><td>%u</td><td class=\"l\"><span style=\"color:%s\">&#9632;</span> ", j + 1, svg_color(j));
        svg_escape(out, c->labels[j]);
        fprintf(out, "%s</td><td class=\"l\">", j == 0 ? " (baseline)" : "");
        svg_escape(out, paths[j]);
        fprintf(out, "</td><td>%u</td><td>%u</td><td>%u</td></tr>\n", c->sets[j].n,
                c->sets[j].reps[0].nagents, c->sets[j].reps[0].nphases);
    }
    fprintf(out, "</table>\n<p class=\"note\">Bars: mean over an input's repetitions, error bars &plusmn;1 sd "
            "where it has several. Ratio = mean / baseline's mean; better/worse by each metric's direction "
            "(IOPS, BW, Jain: up is better; latency: up is worse; same: within 1%%). Significance: Welch's "
            "t-test on the repetitions, significant when p &lt; 0.05; an input with one repetition has no "
            "variance known. One chart per block size and metric, each on its own axis; phases of one block "
            "size more than %.0fx apart get a chart each (\"scale 2\").</p>\n", SCALE_SPAN);
    differences(out, c);
    ratio_section(out, c);
    for (uint32_t k = 0; k < nbs; k++)
        facet(out, c, bs[k], base);
    compare_sweep_html(out, c);
    fprintf(out, "<h2>Phases</h2>\n");
    for (uint32_t i = 0; i < c->nrows; i++)
        phase_table(out, c, i, base);
    left_out_html(out, c, base);
    svg_page_end(out);
    free(bs);
}
