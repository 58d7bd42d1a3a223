/* compare_sweep: the sweeps of compared inputs side by side (text, md,
 * json, csv; html overlays their curves, json carries them too): per
 * sweep job of the baseline, each input's capacity and knee, as the mean
 * over its repetitions with their sd, the ratio to the baseline and
 * Welch's significance when both sides have repetitions (as compare.h does
 * for phases).  A sweep's points are phases named by their values, which
 * differ between runs of a search, so its phases are compared here, by the
 * job, not row by row. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/units.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/csv.h"
#include "coordinator/result/sample_stats.h"
#include "coordinator/report/svg.h"
#include "coordinator/run/sweep.h"
#include "coordinator/report/jint.h"

static const struct sweep_run *find_sweep(const struct run_result *r, const char *job)
{
    for (uint32_t i = 0; r->sweeps && i < r->sweeps->n; i++)
        if (strcmp(r->sweeps->runs[i].spec.base, job) == 0)
            return &r->sweeps->runs[i];
    return NULL;
}

/* Capacity (what == 0) or knee (1) of input j's repetitions of job: n values. */
static uint32_t values(const struct compare *c, uint32_t j, const char *job, int what, double *v, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->sets[j].n && n < cap; k++) {
        const struct sweep_run *w = find_sweep(&c->sets[j].reps[k], job);
        struct sweep_outcome o;
        int p;
        if (!w)
            continue;
        sweep_outcome(w, &o);
        p = what ? o.knee_point : o.cap_point;
        if (p >= 0)
            v[n++] = (double)w->points[p].requested;
        else if (!what)
            v[n++] = 0;          /* no point passed: a capacity of 0 */
    }
    return n;
}

static void fmt(char *buf, size_t len, uint32_t dim, double v)
{
    char n[32];
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (dim == SWEEP_RATE)
        units_fmt_rate(buf, len, v, 1024);
    else
        snprintf(buf, len, "%s%s", units_fmt_count(n, sizeof n, v), dim == SWEEP_RATE_IOPS ? " IOPS" : "");
}

/* Input j's capacity (what 0) or knee (1) of job against the baseline's:
 * the one computation text, md and json show. */
struct sweep_cell {
    uint32_t n, nbase;           /* repetitions with a value: input j's, the baseline's */
    struct sample_summary s;
    double ratio;                /* NaN: not known */
    double p;                    /* Welch's p; NaN: not known */
};

static void sweep_cell(const struct compare *c, const char *job, int what, uint32_t j, struct sweep_cell *cell)
{
    double base[64], v[64];
    struct sample_summary sb;
    struct welch_result wr;
    uint32_t nb = values(c, 0, job, what, base, 64);
    sample_summarize(base, nb, &sb);
    cell->nbase = nb;
    cell->n = values(c, j, job, what, v, 64);
    sample_summarize(v, cell->n, &cell->s);
    cell->ratio = j && cell->n && nb && sb.mean > 0 ? cell->s.mean / sb.mean : NAN;
    cell->p = j && sample_welch(base, nb, v, cell->n, &wr) == 0 ? wr.p : NAN;
}

/* What sweep_cell measures, by its "what": the name in every view. */
static const char *const what_name[2] = { "capacity", "knee" };

/* The baseline's sweeps (its first repetition's: every view lists them and
 * finds the other inputs' by job), NULL when none; head goes first if any. */
static const struct sweep_set *base_sweeps(FILE *out, const struct compare *c, const char *head)
{
    const struct run_result *r0 = c->nruns ? &c->sets[0].reps[0] : NULL;
    const struct sweep_set *sw = r0 && r0->sweeps && r0->sweeps->n ? r0->sweeps : NULL;

    if (sw && head)
        fputs(head, out);
    return sw;
}

void compare_sweep_text(FILE *out, const struct compare *c)
{
    const struct sweep_set *sw = base_sweeps(out, c, "\nsweeps: capacity and knee per input (mean over repetitions, "
                                                     "sd; ratio to the baseline; Welch's p when both have "
                                                     "repetitions)\n");
    for (uint32_t i = 0; sw && i < sw->n; i++) {
        const struct sweep_run *w0 = &sw->runs[i];
        for (int what = 0; what < 2; what++) {
            fprintf(out, "  %s %s (%s):", w0->spec.base, what_name[what], plan_sweep_dim_name(w0->spec.dim));
            for (uint32_t j = 0; j < c->nruns; j++) {
                struct sweep_cell cell;
                char m[48], sd[48];
                sweep_cell(c, w0->spec.base, what, j, &cell);
                fmt(m, sizeof m, w0->spec.dim, cell.n ? cell.s.mean : NAN);
                fprintf(out, "%s [%u] %s %s", j ? ";" : "", j + 1, c->labels[j], m);
                if (cell.n >= 2) {
                    fmt(sd, sizeof sd, w0->spec.dim, cell.s.sd);
                    fprintf(out, " (sd %s, %u runs)", sd, cell.n);
                }
                if (j == 0 || !cell.n || !cell.nbase)
                    continue;
                if (!isnan(cell.ratio))
                    fprintf(out, ", x%.2f", cell.ratio);
                if (!isnan(cell.p))
                    fprintf(out, ", p=%.3g%s", cell.p, cell.p < SAMPLE_ALPHA ? " significant" : " within noise");
                else
                    fprintf(out, ", no variance known");
            }
            fputc('\n', out);
        }
    }
}

static uint32_t curve(const struct compare *c, uint32_t j, const char *job, double *x, double *y, double *l);

void *compare_sweep_json(const struct compare *c)
{
    const struct sweep_set *sw = base_sweeps(NULL, c, NULL);
    json_t *arr = json_array();
    for (uint32_t i = 0; sw && i < sw->n; i++) {
        const struct sweep_run *w0 = &sw->runs[i];
        json_t *o = json_object(), *inputs = json_array();
        json_object_set_new(o, "job", json_string(w0->spec.base));
        json_object_set_new(o, "dimension", json_string(plan_sweep_dim_name(w0->spec.dim)));
        json_object_set_new(o, "unit", json_string(plan_sweep_unit(w0->spec.dim)));
        for (uint32_t j = 0; j < c->nruns; j++) {
            json_t *in = json_object(), *cv = json_array();
            double x[SWEEP_MAX_VALUES], y[SWEEP_MAX_VALUES], l[SWEEP_MAX_VALUES];
            uint32_t np;
            json_object_set_new(in, "label", json_string(c->labels[j]));
            for (int what = 0; what < 2; what++) {
                struct sweep_cell cell;
                json_t *m = json_object();
                sweep_cell(c, w0->spec.base, what, j, &cell);
                json_object_set_new(m, "n", json_integer(cell.n));
                json_object_set_new(m, "mean", cell.n ? jreal_or_null(cell.s.mean) : json_null());
                json_object_set_new(m, "sd", cell.n >= 2 ? jreal_or_null(cell.s.sd) : json_null());
                json_object_set_new(m, "ratio", jreal_or_null(cell.ratio));
                json_object_set_new(m, "p", jreal_or_null(cell.p));
                json_object_set_new(in, what_name[what], m);
            }
            /* the curve the HTML overlays: the first repetition's points */
            np = curve(c, j, w0->spec.base, x, y, l);
            for (uint32_t k = 0; k < np; k++)
                json_array_append_new(cv, json_pack("{s:f,s:f,s:f}", "requested", x[k], "achieved",
                                                    isfinite(y[k]) ? y[k] : 0, "latency_ns", l[k]));
            json_object_set_new(in, "curve", cv);
            json_array_append_new(inputs, in);
        }
        json_object_set_new(o, "inputs", inputs);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* A label in a markdown cell: '|' and line breaks would end the cell. */
static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : *s == '\n' || *s == '\r' ? " " : (char[2]){ *s, 0 }, out);
}

void compare_sweep_md(FILE *out, const struct compare *c)
{
    const struct sweep_set *sw = base_sweeps(out, c, "\n### Sweeps: capacity and knee\n\nMean over an input's "
                                                     "repetitions; ratio to the baseline; Welch's p when both sides "
                                                     "have repetitions.\n\n| sweep | measure | input | mean | sd | "
                                                     "runs | ratio | p |\n|---|---|---|---:|---:|---:|---:|---:|\n");
    for (uint32_t i = 0; sw && i < sw->n; i++) {
        const struct sweep_run *w0 = &sw->runs[i];
        for (int what = 0; what < 2; what++) {
            for (uint32_t j = 0; j < c->nruns; j++) {
                struct sweep_cell cell;
                char m[48] = "-", sd[48] = "-";
                sweep_cell(c, w0->spec.base, what, j, &cell);
                if (cell.n)
                    fmt(m, sizeof m, w0->spec.dim, cell.s.mean);
                if (cell.n >= 2)
                    fmt(sd, sizeof sd, w0->spec.dim, cell.s.sd);
                fputs("| ", out);
                md_cell(out, w0->spec.base);
                fprintf(out, " (%s) | %s | ", plan_sweep_dim_name(w0->spec.dim), what_name[what]);
                md_cell(out, c->labels[j]);
                fprintf(out, " | %s | %s | %u | ", m, sd, cell.n);
                if (!isnan(cell.ratio))
                    fprintf(out, "x%.2f", cell.ratio);
                else
                    fputs(j ? "-" : "baseline", out);
                if (!isnan(cell.p))
                    fprintf(out, " | %.3g%s |\n", cell.p, cell.p < SAMPLE_ALPHA ? " significant" : "");
                else
                    fputs(" | - |\n", out);
            }
        }
    }
}

/* One input's curve of job (its first repetition), points in requested
 * order: x requested, y achieved, l the SLO statistic (p99 by default). */
static uint32_t curve(const struct compare *c, uint32_t j, const char *job, double *x, double *y, double *l)
{
    const struct sweep_run *w = c->sets[j].n ? find_sweep(&c->sets[j].reps[0], job) : NULL;
    uint32_t idx[SWEEP_MAX_VALUES];
    if (!w || !w->npoints)
        return 0;
    sweep_sorted(w, idx);
    for (uint32_t k = 0; k < w->npoints; k++) {
        const struct sweep_point *pt = &w->points[idx[k]];
        x[k] = (double)pt->requested;
        y[k] = pt->achieved;
        l[k] = pt->slo_lat_ns ? (double)pt->slo_lat_ns : (double)pt->lat_p99;
    }
    return w->npoints;
}

void compare_sweep_html(FILE *out, const struct compare *c)
{
    const struct sweep_set *sw = base_sweeps(out, c, "<h2>Sweeps</h2>\n<p class=\"note\">Each input's curve (its "
                                                     "first repetition): achieved against requested with the y = x "
                                                     "line, and the SLO's latency statistic (p99 without one) "
                                                     "against achieved; the capacities below are means over the "
                                                     "repetitions.</p>\n");
    for (uint32_t i = 0; sw && i < sw->n; i++) {
        const struct sweep_run *w0 = &sw->runs[i];
        uint32_t nin = c->nruns;
        double (*x)[SWEEP_MAX_VALUES] = calloc(nin, sizeof *x), (*y)[SWEEP_MAX_VALUES] = calloc(nin, sizeof *y);
        double (*l)[SWEEP_MAX_VALUES] = calloc(nin, sizeof *l);
        struct svg_series *a = calloc(nin + 1, sizeof *a), *b = calloc(nin, sizeof *b);
        double diag[2 * SWEEP_MAX_VALUES];
        size_t na = 0, nb = 0, nd = 0;
        int bytes = w0->spec.dim == SWEEP_RATE;
        if (!x || !y || !l || !a || !b) {
            free(x); free(y); free(l); free(a); free(b);
            continue;
        }
        for (uint32_t j = 0; j < nin; j++) {
            uint32_t n = curve(c, j, w0->spec.base, x[j], y[j], l[j]);
            if (!n)
                continue;
            for (uint32_t k = 0; k < n && nd < 2 * SWEEP_MAX_VALUES; k++)
                diag[nd++] = x[j][k];
            a[na++] = (struct svg_series){ .name = c->labels[j], .x = x[j], .y = y[j], .n = n, .width = j ? 2 : 3 };
            b[nb++] = (struct svg_series){ .name = c->labels[j], .x = y[j], .y = l[j], .n = n, .width = j ? 2 : 3 };
        }
        if (nd) {
            /* y = x over every requested value, sorted for the line */
            for (size_t p = 1; p < nd; p++)
                for (size_t q = p; q > 0 && diag[q - 1] > diag[q]; q--) {
                    double t = diag[q];
                    diag[q] = diag[q - 1];
                    diag[q - 1] = t;
                }
            a[na++] = (struct svg_series){ .name = "y = x", .x = diag, .y = diag, .n = nd, .dashed = 1 };
        }
        fprintf(out, "<h3>");
        svg_escape(out, w0->spec.base);
        fprintf(out, " <small>(%s)</small></h3>\n<div class=\"cgrid\">\n", plan_sweep_dim_name(w0->spec.dim));
        {
            struct svg_chart ch = { .view = "compare-sweep-achieved", .title = "Achieved vs requested",
                                    .xlabel = "requested", .ylabel = "achieved",
                                    .xfmt = bytes ? svg_fmt_rate : svg_fmt_count,
                                    .yfmt = bytes ? svg_fmt_rate : svg_fmt_count };
            svg_lines(out, &ch, a, na);
        }
        {
            struct svg_chart ch = { .view = "compare-sweep-latency", .title = "Latency vs achieved",
                                    .xlabel = "achieved", .ylabel = "latency",
                                    .xfmt = bytes ? svg_fmt_rate : svg_fmt_count, .yfmt = svg_fmt_ns, .logy = 1 };
            svg_lines(out, &ch, b, nb);
        }
        fprintf(out, "</div>\n");
        free(x); free(y); free(l); free(a); free(b);
    }
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            compare_sweep_text(m, c);
            fclose(m);
            svg_escaped(out, "<pre>", buf, "</pre>\n");
            free(buf);
        }
    }
}

/* The capacities and knees as rows of compare_csv's long form: phase is
 * the sweep's job, metric sweep_capacity or sweep_knee, value in the
 * sweep's unit (IOPS, B/s, or the count it varies); rw, bs, op, row empty. */
void compare_sweep_csv(FILE *out, const struct compare *c)
{
    const struct sweep_set *sw = base_sweeps(NULL, c, NULL);
    for (uint32_t i = 0; sw && i < sw->n; i++) {
        const struct sweep_run *w0 = &sw->runs[i];
        for (int what = 0; what < 2; what++)
            for (uint32_t j = 0; j < c->nruns; j++) {
                struct sweep_cell cell;
                sweep_cell(c, w0->spec.base, what, j, &cell);
                fputc(',', out);
                csv_field(out, w0->spec.base);
                fprintf(out, ",,,,%s,%u,", what ? "sweep_knee" : "sweep_capacity", j);
                csv_field(out, c->labels[j]);
                fprintf(out, ",%u,", cell.n);
                if (cell.n)
                    fprintf(out, "%.10g", cell.s.mean);
                fputc(',', out);
                if (cell.n >= 2)
                    fprintf(out, "%.10g", cell.s.sd);
                fprintf(out, ",,,");
                if (isfinite(cell.ratio))
                    fprintf(out, "%.10g", cell.ratio);
                fputc(',', out);
                if (isfinite(cell.p))
                    fprintf(out, "%.10g", cell.p);
                fprintf(out, ",,,,\n");
            }
    }
}
