/* test_svg: the chart writer's contracts, read back from the SVG text:
 * log-scale decade ticks that never take log(0), gaps at NaN, lone points
 * as dots, a one-point series labelled, bands clipped to the plot with
 * their data-x0/x1 kept, binary bandwidth ticks, marked bars. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/svg.h"

static const double X5[5] = { 1, 2, 3, 4, 5 };

/* The SVG of one line chart, as a malloc'd string. */
static char *lines_of(const struct svg_chart *c, const struct svg_series *s, size_t ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    svg_lines(f, c, s, ns);
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_svg_logy_decade_ticks(void **state)
{
    double y[5] = { 1500, 20000, 0, 3e6, 7e6 };   /* 1.5us .. 7ms, and a 0 */
    struct svg_series s = { .name = "p99", .x = X5, .y = y, .n = 5 };
    struct svg_chart c = { .view = "latency", .title = "t", .xlabel = "x", .ylabel = "y",
                           .yfmt = svg_fmt_ns, .logy = 1 };
    char *svg = lines_of(&c, &s, 1);

    (void)state;
    /* decades 1us .. 10ms, each once, nothing below */
    assert_int_equal(count(svg, "class=\"yl\">1us<"), 1);
    assert_int_equal(count(svg, "class=\"yl\">10us<"), 1);
    assert_int_equal(count(svg, "class=\"yl\">100us<"), 1);
    assert_int_equal(count(svg, "class=\"yl\">1ms<"), 1);
    assert_int_equal(count(svg, "class=\"yl\">10ms<"), 1);
    assert_int_equal(count(svg, "class=\"yl\">"), 5);   /* 4 decades: no 2x/5x */
    assert_null(strstr(svg, "0ns"));
    assert_null(strstr(svg, "inf"));
    assert_null(strstr(svg, "nan"));
    /* the 0 is a gap: two lines of two points */
    assert_int_equal(count(svg, "<polyline"), 2);
    free(svg);
}

static void test_svg_logy_narrow_range_has_2_and_5(void **state)
{
    double y[2] = { 1200, 3000 };
    struct svg_series s = { .name = "p50", .x = X5, .y = y, .n = 2 };
    struct svg_chart c = { .view = "latency", .title = "t", .xlabel = "x", .ylabel = "y",
                           .yfmt = svg_fmt_ns, .logy = 1 };
    char *svg = lines_of(&c, &s, 1);

    (void)state;
    assert_non_null(strstr(svg, "class=\"yl\">1us<"));
    assert_non_null(strstr(svg, "class=\"yl\">2us<"));
    assert_non_null(strstr(svg, "class=\"yl\">5us<"));
    assert_non_null(strstr(svg, "class=\"yl\">10us<"));
    assert_int_equal(count(svg, "class=\"yl\">"), 4);
    free(svg);
}

static void test_svg_nan_gap_and_lone_dot(void **state)
{
    double y[5] = { 1, 2, NAN, 4, NAN };
    struct svg_series s = { .name = "s", .x = X5, .y = y, .n = 5 };
    struct svg_chart c = { .view = "v", .title = "t", .xlabel = "x", .ylabel = "y" };
    char *svg = lines_of(&c, &s, 1);

    (void)state;
    assert_int_equal(count(svg, "<polyline"), 1);          /* 1-2 */
    assert_int_equal(count(svg, "<circle class=\"pt\""), 1); /* 4, alone */
    assert_int_equal(count(svg, "class=\"pv\""), 0);       /* 3 points: no label */
    free(svg);
}

/* The points of the first polyline of svg: how many, their y range. */
static size_t polyline_points(const char *svg, double *ymin, double *ymax)
{
    const char *p = strstr(svg, "points=\"");
    size_t n = 0;
    double px, py;
    int used;

    *ymin = 1e9;
    *ymax = -1e9;
    assert_non_null(p);
    for (p += 8; *p != '"' && sscanf(p, "%lf,%lf %n", &px, &py, &used) == 2; p += used) {
        n++;
        *ymin = py < *ymin ? py : *ymin;
        *ymax = py > *ymax ? py : *ymax;
    }
    return n;
}

/* A day of 1 s points is drawn through at most 4 per plot column (1,000),
 * keeping a one-point spike and dip; 1,000 points or fewer are drawn
 * whole. */
static void test_svg_long_line_decimated(void **state)
{
    enum { N = 86400 };
    double *x = malloc(N * sizeof(*x)), *y = malloc(N * sizeof(*y)), ymin, ymax;
    struct svg_chart c = { .title = "t", .yfmt = svg_fmt_count };
    struct svg_series s = { .name = "a", .x = x, .y = y, .n = N };
    char *out;
    size_t npts;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        x[k] = (double)k;
        y[k] = 500 + (double)(k % 7);
    }
    y[40000] = 1000;                       /* a spike of one interval */
    y[60000] = 0;                          /* a dip of one */
    out = lines_of(&c, &s, 1);
    npts = polyline_points(out, &ymin, &ymax);
    assert_true(npts <= 1000);
    assert_true(npts >= 250);
    free(out);
    {
        /* the same axis (fixed) without the spike and dip: both must show */
        double flat_min, flat_max;

        c.fixed_y = 1;
        c.ymin = 0;
        c.ymax = 1100;
        out = lines_of(&c, &s, 1);
        polyline_points(out, &ymin, &ymax);
        free(out);
        y[40000] = y[39999];
        y[60000] = y[59999];
        out = lines_of(&c, &s, 1);
        polyline_points(out, &flat_min, &flat_max);
        free(out);
        assert_true(ymin < flat_min - 50);      /* the spike drawn (up is smaller y) */
        assert_true(ymax > flat_max + 50);      /* the dip drawn */
        c.fixed_y = 0;
    }
    s.n = 1000;                            /* at the bound: every point */
    out = lines_of(&c, &s, 1);
    assert_int_equal(polyline_points(out, &ymin, &ymax), 1000);
    free(out);
    free(x);
    free(y);
}

static void test_svg_single_point_labelled(void **state)
{
    double x[1] = { 0.5 }, y[1] = { 27200 }, ya[1] = { 13600 };
    struct svg_series s[2] = { { .name = "all agents", .x = x, .y = y, .n = 1, .width = 3 },
                               { .name = "0 a", .x = x, .y = ya, .n = 1, .dashed = 1 } };
    struct svg_chart c = { .view = "throughput", .title = "t", .xlabel = "x", .ylabel = "y",
                           .yfmt = svg_fmt_count, .fixed_x = 1, .xmin = 0, .xmax = 1 };
    char *svg = lines_of(&c, s, 2);

    (void)state;
    assert_int_equal(count(svg, "<polyline"), 0);
    assert_int_equal(count(svg, "<circle class=\"pt\""), 2);
    /* in the middle of the plot: ML 72 + PW 398 / 2 */
    assert_non_null(strstr(svg, "<circle class=\"pt\" cx=\"271.0\""));
    /* the fleet's value is written; a dashed agent's is not */
    assert_int_equal(count(svg, "<text class=\"pv\""), 1);
    assert_non_null(strstr(svg, ">all agents 27.2k</text>"));
    assert_int_equal(count(svg, "<line class=\"pt1\""), 1);
    free(svg);
}

static void test_svg_bands_clipped_and_legend(void **state)
{
    double y[5] = { 1, 2, 3, 4, 5 };
    struct svg_band b[3] = {
        { .x0 = -1, .x1 = 2, .kind = "stall", .label = "server stalled", .fill = "#d62728", .id = -1 },
        { .x0 = 4, .x1 = 9, .kind = "lost", .label = "agent lost", .fill = "#7f7f7f", .id = 1,
          .note = "agent 1 lost at 3.2 s" },
        { .x0 = 7, .x1 = 8, .kind = "stall", .label = "server stalled", .fill = "#d62728", .id = -1 },
    };
    struct svg_series s = { .name = "s", .x = X5, .y = y, .n = 5 };
    struct svg_chart c = { .view = "v", .title = "t", .xlabel = "x", .ylabel = "y", .fixed_x = 1,
                           .xmin = 0, .xmax = 5, .bands = b, .nbands = 3 };
    char *svg = lines_of(&c, &s, 1);

    (void)state;
    /* the third band is outside the axis: not drawn */
    assert_int_equal(count(svg, "<rect class=\"band\""), 2);
    /* the first keeps its data span but starts at the plot's left edge */
    assert_non_null(strstr(svg, "<rect class=\"band\" data-band=\"stall\" data-x0=\"-1\" data-x1=\"2\" x=\"72.0\""));
    assert_non_null(strstr(svg, "data-band=\"lost\" data-x0=\"4\" data-x1=\"9\" data-id=\"1\""));
    assert_non_null(strstr(svg, ">agent 1 lost at 3.2 s</text>"));
    /* one legend entry per label, after the series */
    assert_int_equal(count(svg, "class=\"lg\">server stalled<"), 1);
    assert_int_equal(count(svg, "class=\"lg\">agent lost<"), 1);
    assert_true(strstr(svg, "class=\"lg\">s<") < strstr(svg, "class=\"lg\">server stalled<"));
    /* bands are behind the line */
    assert_true(strstr(svg, "<rect class=\"band\"") < strstr(svg, "<polyline"));
    free(svg);
}

static void test_svg_binary_rate_ticks(void **state)
{
    double y[2] = { 1.0 * (1 << 30), 2.9 * (1 << 30) };
    int base = 1024;
    struct svg_series s = { .name = "bw", .x = X5, .y = y, .n = 2 };
    struct svg_chart c = { .view = "bandwidth", .title = "t", .xlabel = "x", .ylabel = "y",
                           .yfmt = svg_fmt_rate, .fmt_arg = &base, .ybase = 1024 };
    char *svg = lines_of(&c, &s, 1);

    (void)state;
    assert_non_null(strstr(svg, "class=\"yl\">512MiB/s<"));
    assert_non_null(strstr(svg, "class=\"yl\">1GiB/s<"));
    assert_non_null(strstr(svg, "class=\"yl\">1.5GiB/s<"));
    assert_non_null(strstr(svg, "class=\"yl\">3GiB/s<"));
    free(svg);
    base = 1000;
    c.ybase = 1000;
    svg = lines_of(&c, &s, 1);
    assert_null(strstr(svg, "iB/s"));
    assert_non_null(strstr(svg, "class=\"yl\">1GB/s<"));
    free(svg);
}

static void test_svg_marked_bar_and_note(void **state)
{
    double v[2] = { 10, 4 };
    int marked[2] = { 0, 1 };
    const char *cats[2] = { "0 a", "1 b" }, *notes[2] = { NULL, "lost at 2.5 s" };
    struct svg_bar_series s = { .name = "IOPS", .v = v, .marked = marked };
    struct svg_chart c = { .view = "agents", .title = "t", .xlabel = "agent", .ylabel = "IOPS",
                           .cat_notes = notes };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    svg_bars(f, &c, cats, 2, &s, 1);
    fclose(f);
    assert_int_equal(count(buf, "data-marked=\"1\""), 1);
    assert_int_equal(count(buf, "class=\"xl note\">lost at 2.5 s<"), 1);
    assert_int_equal(count(buf, "class=\"xl note\""), 1);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svg_logy_decade_ticks),
        cmocka_unit_test(test_svg_logy_narrow_range_has_2_and_5),
        cmocka_unit_test(test_svg_nan_gap_and_lone_dot),
        cmocka_unit_test(test_svg_single_point_labelled),
        cmocka_unit_test(test_svg_long_line_decimated),
        cmocka_unit_test(test_svg_bands_clipped_and_legend),
        cmocka_unit_test(test_svg_binary_rate_ticks),
        cmocka_unit_test(test_svg_marked_bar_and_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
