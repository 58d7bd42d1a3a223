/* svg: a small inline-SVG chart writer for the HTML reports.
 *
 * Two chart kinds, lines over a numeric x axis (linear or log) and grouped
 * bars over categories, each written as one <svg> element that scales to
 * its container (viewBox).  Axis labels are formatted by a caller-supplied
 * function, so the charts print the report's units (KiB/s, ms, ...).  No
 * scripts, no external resources: the page stays self-contained. */
#ifndef NFSTORM_SVG_H
#define NFSTORM_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef void (*svg_fmt_fn)(char *buf, size_t len, double v, const void *arg);

/* Axis label formatters for counts ("12.3k") and nanoseconds ("812us"). */
void svg_fmt_count(char *buf, size_t len, double v, const void *arg);
void svg_fmt_ns(char *buf, size_t len, double v, const void *arg);
/* Bytes per second; arg points to the unit base (an int, 1000 or 1024;
 * NULL: 1024). */
void svg_fmt_rate(char *buf, size_t len, double v, const void *arg);

/* A shaded span of the x axis behind the lines (a stall, the time after an
 * agent was lost), drawn as <rect class="band" data-band="KIND"
 * data-x0=".." data-x1=".."> in data units, clipped to the plot, with one
 * legend entry per distinct label. */
struct svg_band {
    double x0, x1;
    const char *kind;     /* data-band attribute ("stall", "lost", ...) */
    const char *label;    /* legend text */
    const char *fill;     /* colour (drawn translucent) */
    long id;              /* data-id attribute (an agent id), < 0: none */
    const char *note;     /* written at the band's top left (class "bandnote"), or NULL */
};

struct svg_chart {
    const char *view;     /* data-view attribute (what the chart shows) */
    const char *title;
    const char *xlabel;
    const char *ylabel;
    svg_fmt_fn xfmt, yfmt;   /* NULL: %g */
    const void *fmt_arg;
    int logx;             /* x axis log10 (values must be > 0) */
    int logy;             /* y axis log10 with decade ticks; y <= 0 is a gap */
    int ybase;            /* 1024: linear y ticks nice in binary units (bytes) */
    int fixed_y;          /* use ymin..ymax instead of 0..auto */
    double ymin, ymax;
    int fixed_x;          /* use xmin..xmax instead of the data's range */
    double xmin, xmax;
    const struct svg_band *bands;   /* [nbands], lines charts only */
    size_t nbands;
    const char *const *cat_notes;   /* bars: a second label line per category
                                       (NULL or NULL entries: none) */
};

struct svg_series {
    const char *name;
    const double *x, *y;  /* n points; a NaN y is a gap in the line */
    size_t n;
    int width;            /* stroke width, px (0: 2) */
    int dashed;
    int dotted;           /* fainter, dotted (a lost agent); wins over dashed */
};

/* Line chart.  A point with no neighbour is drawn as a dot; a series with
 * a single point (a one-interval phase) also gets a flat line from the
 * x axis start and its value as a label, unless dashed or dotted.  A line
 * of more than 1,000 points (a long run) is drawn through at most 1,000:
 * the first, lowest, highest and last of each of 250 plot columns. */
void svg_lines(FILE *out, const struct svg_chart *c, const struct svg_series *s, size_t ns);

struct svg_bar_series {
    const char *name;
    const double *v;      /* one value per category */
    const int *marked;    /* per category, or NULL: nonzero draws the bar
                             hatched grey with data-marked="1" (a lost agent) */
};
/* Grouped bars: ncat categories, ns bars in each. */
void svg_bars(FILE *out, const struct svg_chart *c, const char *const *cats, size_t ncat,
              const struct svg_bar_series *s, size_t ns);

/* A marked value on a histogram's x axis: an agent among the slowest or
 * fastest (a triangle with its label), or a lost one (a red cross). */
struct svg_mark {
    double x;             /* data units */
    const char *kind;     /* data-mark attribute: "slowest", "fastest", "lost" */
    const char *label;    /* drawn by the mark (an agent id), or NULL */
    const char *title;    /* tooltip */
    long id;              /* data-id attribute (an agent id) */
};
/* Histogram of v[0..n) in nbins equal bins over the values' (and marks')
 * range (x labels by c->xfmt, y: how many values per bin), then the marks:
 * "lost" ones as crosses on the x axis, the others as triangles above the
 * bars, labels staggered so a few close together stay legible.  The legend
 * names the bars (c->ylabel) and each kind of mark present.  Bars carry
 * data-lo, data-hi (bin bounds) and data-n (count); no label per value, so
 * it reads the same at 10 or 10,000 values. */
void svg_histogram(FILE *out, const struct svg_chart *c, const double *v, size_t n, size_t nbins,
                   const struct svg_mark *m, size_t nm);

/* Color of series i (cycles through a palette). */
const char *svg_color(size_t i);
/* s with & < > " ' escaped, for HTML text and attributes. */
void svg_escape(FILE *out, const char *s);
/* before, s escaped, after: a cell or tag around a label ("<th>", s, "</th>"). */
void svg_escaped(FILE *out, const char *before, const char *s, const char *after);
/* A table cell holding s escaped; left: left-aligned (class "l"). */
void svg_td(FILE *out, int left, const char *s);
/* A tick step of 1, 2 or 5 x 10^k giving about n ticks over span, in
 * multiples of unit (1000 or 1024; 0: none) where span reaches them, so a
 * bandwidth axis ticks at 1GiB/s, 2GiB/s rather than 954MiB/s, 1.86GiB/s. */
double svg_nice_step(double span, int n, int unit);
/* The page's head (title, inline CSS) and end. */
void svg_page_begin(FILE *out, const char *title);
void svg_page_end(FILE *out);

#endif
