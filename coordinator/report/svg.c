/* svg: inline SVG charts (see svg.h).
 *
 * Design: a chart is a fixed 600x300 coordinate box (viewBox) laid out as
 * plot area + left axis labels + legend on the right; CSS makes it as wide
 * as its grid cell, so two charts side by side fit a 1280 px window.
 * Ticks are "nice" numbers (1, 2, 5 x 10^k) on linear axes and decades on
 * log axes (with 2 and 5 between them when the axis spans two decades or
 * less, so a narrow range still has labels).  A log axis never takes the
 * log of 0: such values are gaps, like NaN.  Bands (stalls, lost agents)
 * are drawn first so the lines stay on top.  Everything is written straight
 * to the stream: no buffers, no allocation. */
#include "coordinator/report/svg.h"
#include "common/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 600.0
#define H 300.0
#define ML 72.0     /* left margin: y labels */
#define MR 130.0    /* right margin: legend */
#define MT 28.0     /* top: title */
#define MB 44.0     /* bottom: x labels and axis title */
#define PW (W - ML - MR)
#define PH (H - MT - MB)
#define LEGEND_MAX 12

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *svg_color(size_t i)
{
    return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void svg_escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

void svg_escaped(FILE *out, const char *before, const char *s, const char *after)
{
    fputs(before, out);
    svg_escape(out, s);
    fputs(after, out);
}

void svg_td(FILE *out, int left, const char *s)
{
    fprintf(out, "<td%s>", left ? " class=\"l\"" : "");
    svg_escape(out, s);
    fprintf(out, "</td>");
}

static void fmt(svg_fmt_fn f, const void *arg, char *buf, size_t len, double v)
{
    if (f)
        f(buf, len, v, arg);
    else
        snprintf(buf, len, "%g", v);
}

double svg_nice_step(double span, int n, int unit)
{
    double scale = 1, raw, p, m;

    if (unit > 1)
        while (span / scale >= unit)
            scale *= unit;
    raw = span / scale / n;
    p = pow(10, floor(log10(raw)));
    m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p * scale;
}

struct frame {
    double x0, x1, y0, y1;
    double ystep;         /* linear y axis: tick spacing */
    int logx, logy;
};

/* A linear y axis from 0 to top (headroom included) in whole steps, nice
 * in the unit the labels print (binary multiples when the chart's ybase is
 * 1024, so a bandwidth axis reads 0, 512MiB/s, 1GiB/s rather than
 * 477MiB/s, 954MiB/s), and at least min_step apart. */
static void y_axis(const struct svg_chart *c, struct frame *f, double top, double min_step)
{
    double step = svg_nice_step(top > 0 ? top : 1, 5, c->ybase == 1024 ? 1024 : 0);

    if (step < min_step)
        step = min_step;
    f->y0 = 0;
    f->y1 = ceil((top > 0 ? top : 1) / step) * step;
    f->ystep = step;
}

static double px(const struct frame *f, double x)
{
    double a = f->logx ? log10(x) : x, lo = f->logx ? log10(f->x0) : f->x0,
           hi = f->logx ? log10(f->x1) : f->x1;

    return ML + (hi > lo ? (a - lo) / (hi - lo) : 0.5) * PW;
}

static double py(const struct frame *f, double y)
{
    if (f->logy) {
        double a = log10(y), lo = log10(f->y0), hi = log10(f->y1);

        return MT + PH - (hi > lo ? (a - lo) / (hi - lo) : 0) * PH;
    }
    return MT + PH - (f->y1 > f->y0 ? (y - f->y0) / (f->y1 - f->y0) : 0) * PH;
}

/* A value that can be drawn on this frame's y axis. */
static int y_ok(const struct frame *f, double y)
{
    return !isnan(y) && !(f->logy && y <= 0);
}

static void ytick(FILE *out, const struct svg_chart *c, const struct frame *f, double y)
{
    char buf[64];

    fmt(c->yfmt, c->fmt_arg, buf, sizeof(buf), y);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" class=\"yl\">%s</text>\n",
            ML, py(f, y), ML + PW, py(f, y), ML - 4, py(f, y) + 4, buf);
}

/* Decades from y0 to y1 (both powers of ten), labelled; on an axis of two
 * decades or less also 2x and 5x, so it has more than two or three labels. */
static void log_yticks(FILE *out, const struct svg_chart *c, const struct frame *f)
{
    int decades = (int)lround(log10(f->y1 / f->y0));

    for (double d = f->y0; d <= f->y1 * 1.0001; d *= 10) {
        ytick(out, c, f, d);
        if (decades <= 2 && d * 10 <= f->y1 * 1.0001) {
            ytick(out, c, f, d * 2);
            ytick(out, c, f, d * 5);
        }
    }
}

static void begin(FILE *out, const struct svg_chart *c)
{
    fprintf(out, "<svg class=\"chart\" data-view=\"");
    svg_escape(out, c->view);
    fprintf(out, "\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", W, H);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", W, H);
    fprintf(out, "<text x=\"%.0f\" y=\"18\" class=\"t\">", ML);
    svg_escape(out, c->title);
    fprintf(out, "</text>\n");
}

static void axes(FILE *out, const struct svg_chart *c, const struct frame *f, int xticks)
{
    char buf[64];
    double step = f->ystep > 0 ? f->ystep : svg_nice_step(f->y1 - f->y0 > 0 ? f->y1 - f->y0 : 1, 5, 0);

    if (f->logy)
        log_yticks(out, c, f);
    else
        for (double y = f->y0; y <= f->y1 + step * 1e-9; y += step)
            ytick(out, c, f, y);
    if (xticks && f->logx) {
        for (double x = pow(10, floor(log10(f->x0))); x <= f->x1 * 1.0001; x *= 10) {
            if (x < f->x0 * 0.9999)
                continue;
            fmt(c->xfmt, c->fmt_arg, buf, sizeof(buf), x);
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n",
                    px(f, x), MT, px(f, x), MT + PH, px(f, x), MT + PH + 14, buf);
        }
    } else if (xticks) {
        double xs = svg_nice_step(f->x1 - f->x0 > 0 ? f->x1 - f->x0 : 1, 6, 0);
        for (double x = ceil(f->x0 / xs) * xs; x <= f->x1 + xs * 1e-9; x += xs) {
            fmt(c->xfmt, c->fmt_arg, buf, sizeof(buf), x);
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n",
                    px(f, x), MT + PH + 14, buf);
        }
    }
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" class=\"ax\"/>\n",
            ML, MT, PW, PH);
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" class=\"xt\">", ML + PW / 2, H - 6);
    svg_escape(out, c->xlabel);
    fprintf(out, "</text><text transform=\"translate(14 %.0f) rotate(-90)\" class=\"xt\">", MT + PH / 2);
    svg_escape(out, c->ylabel);
    fprintf(out, "</text>\n");
}

static void legend(FILE *out, size_t i, size_t n, const char *name, int dashed)
{
    double y = MT + 6 + 16.0 * (double)i;
    const char *dash = dashed == 2 ? " stroke-dasharray=\"1 3\" stroke-opacity=\"0.7\"" :
                       dashed ? " stroke-dasharray=\"4 3\"" : "";

    if (i == LEGEND_MAX) {
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" class=\"lg\">+%zu more</text>\n", W - MR + 10,
                y + 4, n - LEGEND_MAX);
        return;
    }
    if (i > LEGEND_MAX)
        return;
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"3\"%s/><text x=\"%.0f\" y=\"%.1f\" class=\"lg\">",
            W - MR + 10, y, W - MR + 28, y, svg_color(i), dash, W - MR + 32, y + 4);
    svg_escape(out, name);
    fprintf(out, "</text>\n");
}

/* A legend entry for a band: a swatch of its colour. */
static void band_legend(FILE *out, size_t i, size_t n, const struct svg_band *b)
{
    double y = MT + 6 + 16.0 * (double)i;

    if (i >= LEGEND_MAX) {
        legend(out, i, n, b->label, 0);
        return;
    }
    fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\" "
            "fill-opacity=\"0.25\" class=\"bandkey\" data-band=\"", W - MR + 10, y - 5, b->fill);
    svg_escape(out, b->kind);
    fprintf(out, "\"/><text x=\"%.0f\" y=\"%.1f\" class=\"lg\">", W - MR + 32, y + 4);
    svg_escape(out, b->label);
    fprintf(out, "</text>\n");
}

static void bands(FILE *out, const struct svg_chart *c, const struct frame *f)
{
    for (size_t i = 0; i < c->nbands; i++) {
        const struct svg_band *b = &c->bands[i];
        double x0 = fmax(b->x0, f->x0), x1 = fmin(b->x1, f->x1);

        if (!(x1 > x0) || (f->logx && x0 <= 0))
            continue;
        fprintf(out, "<rect class=\"band\" data-band=\"");
        svg_escape(out, b->kind);
        fprintf(out, "\" data-x0=\"%g\" data-x1=\"%g\"", b->x0, b->x1);
        if (b->id >= 0)
            fprintf(out, " data-id=\"%ld\"", b->id);
        fprintf(out, " x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\" "
                "fill-opacity=\"0.18\"><title>", px(f, x0), MT, px(f, x1) - px(f, x0), PH, b->fill);
        svg_escape(out, b->label);
        fprintf(out, "</title></rect>\n");
        if (b->note) {
            /* stacked when several bands start together */
            fprintf(out, "<text class=\"bandnote\" x=\"%.1f\" y=\"%.1f\">", px(f, x0) + 3,
                    MT + 12 + 12.0 * (double)(i % 8));
            svg_escape(out, b->note);
            fprintf(out, "</text>\n");
        }
    }
}

/* Legend rows the bands add: one per distinct label. */
static size_t band_legends(FILE *out, const struct svg_chart *c, size_t first, size_t total, int draw)
{
    size_t n = 0;

    for (size_t i = 0; i < c->nbands; i++) {
        size_t j;

        for (j = 0; j < i && strcmp(c->bands[j].label, c->bands[i].label) != 0; j++)
            ;
        if (j < i)
            continue;
        if (draw)
            band_legend(out, first + n, total, &c->bands[i]);
        n++;
    }
    return n;
}

/* Value labels already placed in a chart (their baselines), so the next
 * one moves clear of them. */
struct placed {
    double y[LEGEND_MAX];
    size_t n;
};

/* A baseline for a label near y (the line it labels): above the line,
 * or below it at the top of the plot, and 13 px away from the others. */
static double place_label(struct placed *p, double y)
{
    double want = y - 6 < MT + 14 ? y + 16 : y - 6;

    for (int tries = 0; tries < 2 * LEGEND_MAX; tries++) {
        size_t j;

        for (j = 0; j < p->n && fabs(p->y[j] - want) >= 13; j++)
            ;
        if (j == p->n)
            break;
        want = want + 14 > MT + PH ? MT + 14 : want + 14;
    }
    if (p->n < LEGEND_MAX)
        p->y[p->n++] = want;
    return want;
}

/* Series i as polylines broken at gaps, dots for lone points, and for a
 * series of one point a flat line from the axis start with its value. */
/* A line of more than SVG_LINE_POINTS_MAX points (a day at 1 s is 86,400)
 * is drawn through at most SVG_LINE_COLUMNS x 4 (= SVG_LINE_POINTS_MAX) of
 * them: per column of the plot (1.6 px), the first, lowest, highest and
 * last points in x order.  Every spike and dip stays visible, and the HTML of a long run
 * stays small and quick to open; the JSON keeps every interval. */
#define SVG_LINE_COLUMNS 250
#define SVG_LINE_POINTS_MAX (4 * SVG_LINE_COLUMNS)

static void point(FILE *out, const struct frame *f, const struct svg_series *s, size_t j)
{
    fprintf(out, "%.1f,%.1f ", px(f, s->x[j]), py(f, fmin(fmax(s->y[j], f->y0), f->y1)));
}

/* Points [k, e) of s, decimated by column (see SVG_LINE_POINTS_MAX). */
static void points_decimated(FILE *out, const struct frame *f, const struct svg_series *s, size_t k, size_t e)
{
    long col = -1;
    size_t pick[4] = { 0, 0, 0, 0 };   /* first, lowest, highest, last of the column */

    for (size_t j = k; j <= e; j++) {
        long cj = j < e ? (long)((px(f, s->x[j]) - ML) / PW * SVG_LINE_COLUMNS) : -2;

        if (j < e && cj == col) {
            if (s->y[j] < s->y[pick[1]])
                pick[1] = j;
            if (s->y[j] > s->y[pick[2]])
                pick[2] = j;
            pick[3] = j;
            continue;
        }
        if (col != -1) {               /* the column ends: its picks in x order */
            size_t lo = pick[1] < pick[2] ? pick[1] : pick[2], hi = pick[1] < pick[2] ? pick[2] : pick[1];
            size_t order[4] = { pick[0], lo, hi, pick[3] };

            for (int q = 0; q < 4; q++)
                if (q == 0 || order[q] != order[q - 1])
                    point(out, f, s, order[q]);
        }
        col = cj;
        pick[0] = pick[1] = pick[2] = pick[3] = j;
    }
}

static void series(FILE *out, const struct svg_chart *c, const struct frame *f, const struct svg_series *s,
                   size_t i, struct placed *labels)
{
    const char *dash = s->dotted ? " stroke-dasharray=\"1 3\" stroke-opacity=\"0.7\"" :
                       s->dashed ? " stroke-dasharray=\"4 3\"" : "";
    size_t nvalid = 0, last = 0;

    for (size_t k = 0; k < s->n;) {
        size_t e = k;

        if (!y_ok(f, s->y[k]) || (c->logx && s->x[k] <= 0)) {
            k++;
            continue;
        }
        while (e < s->n && y_ok(f, s->y[e]) && !(c->logx && s->x[e] <= 0))
            e++;
        nvalid += e - k;
        last = k;
        if (e - k == 1) {
            fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>\n",
                    px(f, s->x[k]), py(f, fmin(fmax(s->y[k], f->y0), f->y1)), s->width >= 3 ? 4 : 3,
                    svg_color(i));
        } else {
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\"%s points=\"",
                    svg_color(i), s->width ? s->width : 2, dash);
            if (e - k > SVG_LINE_POINTS_MAX)
                points_decimated(out, f, s, k, e);
            else
                for (size_t j = k; j < e; j++)
                    point(out, f, s, j);
            fprintf(out, "\"/>\n");
        }
        k = e;
    }
    if (nvalid == 1 && !s->dashed && !s->dotted && !c->logx) {
        double x = px(f, s->x[last]), y = py(f, fmin(fmax(s->y[last], f->y0), f->y1));
        double ly = place_label(labels, y);
        char buf[64];

        fmt(c->yfmt, c->fmt_arg, buf, sizeof(buf), s->y[last]);
        fprintf(out, "<line class=\"pt1\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"%d\"/>\n<text class=\"pv\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
                ML, y, x, y, svg_color(i), s->width ? s->width : 2, (ML + x) / 2, ly, svg_color(i));
        svg_escape(out, s->name);
        fprintf(out, " %s</text>\n", buf);
    }
}

void svg_lines(FILE *out, const struct svg_chart *c, const struct svg_series *s, size_t ns)
{
    struct frame f = { .x0 = INFINITY, .x1 = -INFINITY, .y0 = INFINITY, .y1 = 0, .logx = c->logx,
                       .logy = c->logy };
    int any = 0;
    size_t nlegend;
    struct placed labels = { .n = 0 };

    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            if (!y_ok(&f, s[i].y[k]) || (c->logx && s[i].x[k] <= 0))
                continue;
            f.x0 = fmin(f.x0, s[i].x[k]);
            f.x1 = fmax(f.x1, s[i].x[k]);
            f.y0 = fmin(f.y0, s[i].y[k]);
            f.y1 = fmax(f.y1, s[i].y[k]);
            any = 1;
        }
    if (!any) {
        f.x0 = c->logx ? 1 : 0;
        f.x1 = c->logx ? 10 : 1;
        f.y0 = 1;
    }
    if (c->fixed_x && c->xmax > c->xmin && !(c->logx && c->xmin <= 0)) {
        f.x0 = c->xmin;
        f.x1 = c->xmax;
    }
    if (f.x1 <= f.x0)
        f.x1 = c->logx ? f.x0 * 10 : f.x0 + 1;
    if (c->fixed_y) {
        f.y0 = c->ymin;
        f.y1 = c->ymax;
    } else if (c->logy) {
        /* whole decades around the data; at least one */
        f.y0 = pow(10, floor(log10(f.y0)));
        f.y1 = pow(10, ceil(log10(f.y1 > f.y0 ? f.y1 : f.y0)));
        if (f.y1 <= f.y0 * 1.0001)
            f.y1 = f.y0 * 10;
    } else {
        y_axis(c, &f, f.y1 * 1.05, 0);
    }
    begin(out, c);
    bands(out, c, &f);
    axes(out, c, &f, 1);
    nlegend = ns + band_legends(out, c, 0, 0, 0);
    for (size_t i = 0; i < ns; i++) {
        series(out, c, &f, &s[i], i, &labels);
        legend(out, i, nlegend, s[i].name, s[i].dotted ? 2 : s[i].dashed);
    }
    band_legends(out, c, ns, nlegend, 1);
    fprintf(out, "</svg>\n");
}

void svg_bars(FILE *out, const struct svg_chart *c, const char *const *cats, size_t ncat,
              const struct svg_bar_series *s, size_t ns)
{
    struct frame f = { .x0 = 0, .x1 = 1, .y0 = 0, .y1 = 0 };
    double gw = ncat ? PW / (double)ncat : PW, bw = ns ? gw * 0.8 / (double)ns : 0;
    char buf[64];

    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < ncat; k++)
            f.y1 = fmax(f.y1, s[i].v[k]);
    y_axis(c, &f, f.y1 * 1.05, 0);
    begin(out, c);
    axes(out, c, &f, 0);
    for (size_t k = 0; k < ncat; k++) {
        double gx = ML + gw * (double)k + gw * 0.1;

        for (size_t i = 0; i < ns; i++) {
            double v = s[i].v[k], y = py(&f, v);

            int marked = s[i].marked && s[i].marked[k];

            fmt(c->yfmt, c->fmt_arg, buf, sizeof(buf), v);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
                    gx + bw * (double)i, y, bw > 1 ? bw - 1 : bw, MT + PH - y, marked ? "#bbb" : svg_color(i));
            if (marked)
                fprintf(out, " stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"4 3\" data-marked=\"1\"",
                        svg_color(i));
            fprintf(out, "><title>");
            svg_escape(out, cats[k]);
            fprintf(out, " ");
            svg_escape(out, s[i].name);
            fprintf(out, ": %s</title></rect>\n", buf);
        }
        if (ncat <= 24) {
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">", ML + gw * ((double)k + 0.5), MT + PH + 14);
            svg_escape(out, cats[k]);
            fprintf(out, "</text>\n");
            if (c->cat_notes && c->cat_notes[k]) {
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl note\">", ML + gw * ((double)k + 0.5),
                        MT + PH + 25);
                svg_escape(out, c->cat_notes[k]);
                fprintf(out, "</text>\n");
            }
        }
    }
    for (size_t i = 0; i < ns; i++)
        legend(out, i, ns, s[i].name, 0);
    fprintf(out, "</svg>\n");
}

static const char *mark_color(const char *kind)
{
    return strcmp(kind, "lost") == 0 ? "#d62728" : strcmp(kind, "fastest") == 0 ? "#2ca02c" : "#ff7f0e";
}

void svg_histogram(FILE *out, const struct svg_chart *c, const double *v, size_t n, size_t nbins,
                   const struct svg_mark *m, size_t nm)
{
    struct frame f = { .x0 = INFINITY, .x1 = -INFINITY, .y0 = 0, .y1 = 0 };
    size_t *count, top = 0, nlegend = 1;
    static const char *const kind[3] = { "slowest", "fastest", "lost" };
    static const char *const kind_name[3] = { "slowest agents", "fastest agents", "lost agents" };
    char buf[64];
    double bw;

    if (nbins == 0)
        nbins = 1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            f.x0 = fmin(f.x0, v[i]);
            f.x1 = fmax(f.x1, v[i]);
        }
    for (size_t i = 0; i < nm; i++)
        if (isfinite(m[i].x)) {
            f.x0 = fmin(f.x0, m[i].x);
            f.x1 = fmax(f.x1, m[i].x);
        }
    if (!(f.x1 >= f.x0)) {
        f.x0 = 0;
        f.x1 = 1;
    }
    if (f.x1 - f.x0 < fmax(fabs(f.x1) * 1e-6, 1e-9)) {
        /* all equal: one bar in the middle of a span around it */
        double d = fabs(f.x1) > 0 ? fabs(f.x1) * 0.05 : 1;
        f.x0 -= d;
        f.x1 += d;
    }
    bw = (f.x1 - f.x0) / (double)nbins;
    count = calloc(nbins, sizeof(*count));
    if (!count)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t b;

        if (!isfinite(v[i]))
            continue;
        b = (size_t)((v[i] - f.x0) / bw);
        if (b >= nbins)
            b = nbins - 1;      /* the maximum closes the last bin */
        count[b]++;
    }
    for (size_t b = 0; b < nbins; b++)
        if (count[b] > top)
            top = count[b];
    y_axis(c, &f, (double)top * 1.25, 1);   /* counts: whole ticks */
    begin(out, c);
    axes(out, c, &f, 1);
    for (size_t b = 0; b < nbins; b++) {
        double lo = f.x0 + bw * (double)b, hi = lo + bw, y = py(&f, (double)count[b]);

        if (!count[b])
            continue;
        fprintf(out, "<rect class=\"hb\" data-lo=\"%.6g\" data-hi=\"%.6g\" data-n=\"%zu\" x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", lo, hi, count[b], px(&f, lo) + 0.5, y,
                fmax(px(&f, hi) - px(&f, lo) - 1, 0.5), MT + PH - y, svg_color(0));
        fmt(c->xfmt, c->fmt_arg, buf, sizeof(buf), lo);
        svg_escape(out, buf);
        fprintf(out, " to ");
        fmt(c->xfmt, c->fmt_arg, buf, sizeof(buf), hi);
        svg_escape(out, buf);
        fprintf(out, ": %zu</title></rect>\n", count[b]);
    }
    for (size_t i = 0, lane[2] = { 0, 0 }; i < nm; i++) {
        double x;
        int lost = strcmp(m[i].kind, "lost") == 0;

        if (!isfinite(m[i].x))
            continue;
        x = px(&f, m[i].x);
        fprintf(out, "<g class=\"mark\" data-mark=\"");
        svg_escape(out, m[i].kind);
        fprintf(out, "\" data-id=\"%ld\">", m[i].id);
        if (lost) {
            double y = MT + PH - 6;
            fprintf(out, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"2\"/>", x - 4, y - 4,
                    mark_color(m[i].kind));
        } else {
            /* slowest on the left lanes, fastest on the right: labels
             * stagger down five rows, so five close values stay apart */
            int fast = strcmp(m[i].kind, "fastest") == 0;
            double y = MT + 14 + 11.0 * (double)(lane[fast]++ % 5);
            fprintf(out, "<path d=\"M%.1f %.1fl4 -7h-8z\" fill=\"%s\"/>", x, y, mark_color(m[i].kind));
            if (m[i].label) {
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"lg\" text-anchor=\"%s\">", fast ? x - 5 : x + 5,
                        y - 1, fast ? "end" : "start");
                svg_escape(out, m[i].label);
                fprintf(out, "</text>");
            }
        }
        fprintf(out, "<title>");
        svg_escape(out, m[i].title);
        fprintf(out, "</title></g>\n");
    }
    legend(out, 0, 1, c->ylabel, 0);
    for (int k = 0; k < 3; k++) {
        size_t i;
        double y;

        for (i = 0; i < nm && strcmp(m[i].kind, kind[k]); i++)
            ;
        if (i == nm)
            continue;
        y = MT + 6 + 16.0 * (double)nlegend++;
        fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" class=\"lg\">%s</text>\n", W - MR + 14, y - 5,
                mark_color(kind[k]), W - MR + 32, y + 4, kind_name[k]);
    }
    fprintf(out, "</svg>\n");
    free(count);
}

void svg_page_begin(FILE *out, const char *title)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    svg_escape(out, title);
    fprintf(out, "</title>\n<style>\n"
            "body{font:14px/1.4 system-ui,-apple-system,\"Segoe UI\",sans-serif;margin:16px 24px;"
            "color:#222;max-width:1400px}\n"
            "h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 6px;"
            "border-bottom:1px solid #ccc}h3{font-size:15px;margin:14px 0 4px}\n"
            "table{border-collapse:collapse;margin:6px 0 10px}"
            "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}"
            "th{background:#f3f3f3}td.l,th.l{text-align:left}\n"
            ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:12px}\n"
            "svg.chart{width:100%%;height:auto;border:1px solid #e4e4e4}\n"
            "svg .t{font-size:14px;font-weight:600}svg .yl{font-size:11px;text-anchor:end}"
            "svg .xl{font-size:11px;text-anchor:middle}svg .xt{font-size:12px;text-anchor:middle}"
            "svg .lg{font-size:11px}svg .g{stroke:#eee}svg .ax{fill:none;stroke:#999}"
            "svg .pv{font-size:12px;font-weight:600;text-anchor:middle}svg .note{fill:#b00}"
            "svg .bandnote{font-size:11px;fill:#555}\n"
            ".note{color:#555}.warn{color:#b00}\n"
            /* fleet view (report_html.c): a collapsible per-agent table that
             * the radio buttons before it sort (each row carries its rank
             * under every key, --a..--d; the checked key orders the cells
             * of a display:grid table), no script */
            "details{margin:8px 0}summary{cursor:pointer;font-weight:600}\n"
            "table.sort{display:grid;width:max-content}table.sort tbody,table.sort tr{display:contents}"
            "table.sort td{order:var(--k)}table.sort th{order:-1}\n"
            ".sk1:checked~table.sort tr{--k:var(--a)}.sk2:checked~table.sort tr{--k:var(--b)}"
            ".sk3:checked~table.sort tr{--k:var(--c)}.sk4:checked~table.sort tr{--k:var(--d)}\n"
            "</style>\n</head>\n<body>\n");
}

void svg_page_end(FILE *out)
{
    fprintf(out, "</body>\n</html>\n");
}

void svg_fmt_count(char *buf, size_t len, double v, const void *arg)
{
    (void)arg;
    units_fmt_count(buf, len, v);
}

void svg_fmt_ns(char *buf, size_t len, double v, const void *arg)
{
    (void)arg;
    units_fmt_ns(buf, len, v);
}

void svg_fmt_rate(char *buf, size_t len, double v, const void *arg)
{
    units_fmt_rate(buf, len, v, arg && *(const int *)arg == 1000 ? 1000 : 1024);
}
