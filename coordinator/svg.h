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

struct svg_chart {
    const char *view;     /* data-view attribute (what the chart shows) */
    const char *title;
    const char *xlabel;
    const char *ylabel;
    svg_fmt_fn xfmt, yfmt;   /* NULL: %g */
    const void *fmt_arg;
    int logx;             /* x axis log10 (values must be > 0) */
    int fixed_y;          /* use ymin..ymax instead of 0..auto */
    double ymin, ymax;
};

struct svg_series {
    const char *name;
    const double *x, *y;  /* n points; NaN y values are skipped */
    size_t n;
    int width;            /* stroke width, px (0: 2) */
    int dashed;
};

/* Line chart. */
void svg_lines(FILE *out, const struct svg_chart *c, const struct svg_series *s, size_t ns);

struct svg_bar_series {
    const char *name;
    const double *v;      /* one value per category */
};
/* Grouped bars: ncat categories, ns bars in each. */
void svg_bars(FILE *out, const struct svg_chart *c, const char *const *cats, size_t ncat,
              const struct svg_bar_series *s, size_t ns);

/* Color of series i (cycles through a palette). */
const char *svg_color(size_t i);
/* s with & < > " ' escaped, for HTML text and attributes. */
void svg_escape(FILE *out, const char *s);
/* The page's head (title, inline CSS) and end. */
void svg_page_begin(FILE *out, const char *title);
void svg_page_end(FILE *out);

#endif
