/* report_html: one self-contained HTML page per run (--html, report --html).
 *
 * Design: tables first (what people paste into their notes), then per
 * phase a grid of inline SVG charts, one function per chart, all drawn by
 * svg.c.  Views (the data-view attribute of each <svg>):
 *   matrix       (table) the seeds' shape: r/w x rand/seq by block size
 *   throughput   IOPS over time, merged and each agent
 *   bandwidth    bytes/s over time, merged and each agent (--unit-base)
 *   latency      p50/p90/p99/p99.9 over time (merged, all op types), log
 *                scale with decade ticks; an interval without ops is a gap
 *   fairness     Jain's index and each agent's share over time
 *   cdf          latency distribution of the phase, per op type (log x)
 *   agents       IOPS per agent (bars)
 * Beyond --agent-rows agents (16) the fleet view (html_fleet.c): the
 * agents' table goes to the page's end, collapsed; the time charts draw
 * the fleet's line alone, plus
 *   agent-spread per-agent IOPS over time: p10/median/p90, the 3 slowest
 *                and 3 fastest agents
 *   agent-dist   a histogram of agents by IOPS, slowest/fastest/lost marked
 * in place of "agents", and each phase's per-agent detail is a collapsed,
 * sortable table (agent-detail).
 * A phase's last interval is usually partial and would read as a drop at
 * the end; the time charts leave it out when it is (and say so).  A phase
 * of one interval shorter than the interval is plotted over its duration,
 * so its rate is right, as labelled points.  Every time chart shades the
 * phase's stalls and the time after an agent was lost (html_timeline.c);
 * a lost agent's lines are dotted, its band says "agent N lost at T s".  Block sizes are
 * exact (units_fmt_block_size); the summary table lists only the block
 * sizes and rows some phase fills, and is left out for a metadata run.  No
 * script, no external URL: the file opens offline and mails well. */
#include "coordinator/report/report.h"
#include "common/sat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/client_html.h"
#include "coordinator/result/fairness.h"
#include "coordinator/report/fleet_summary.h"
#include "coordinator/report/html_fleet.h"
#include "coordinator/report/html_timeline.h"
#include "coordinator/result/changes.h"
#include "coordinator/report/report_nfs.h"
#include "coordinator/report/report_matrix.h"
#include "coordinator/run/start_skew.h"
#include "coordinator/report/html_coherence.h"
#include "coordinator/report/html_verify.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/run/verdict.h"
#include "common/vblock.h"
#include "coordinator/report/svg.h"
#include "coordinator/report/limits_report.h"
#include "coordinator/result/ext_metrics.h"
#include "coordinator/run/sweep.h"

#define MAX_BS 32


static void fmt_secs(char *b, size_t n, double v, const void *arg)
{
    (void)arg;
    snprintf(b, n, "%gs", v);
}

/* Seconds as ms, for a time axis shorter than a second ("4ms", not "0.004s"). */
static void fmt_ms(char *b, size_t n, double v, const void *arg)
{
    (void)arg;
    snprintf(b, n, "%.4gms", v * 1000);
}

static void fmt_frac(char *b, size_t n, double v, const void *arg)
{
    (void)arg;
    snprintf(b, n, "%.2f", v);
}

/* Intervals to plot: all but a partial last one. */
static uint32_t plotted(const struct phase_result *ph)
{
    uint32_t n = ph->nintervals;

    if (n > 1 && (uint64_t)n * ph->interval_ms * NS_PER_MS > ph->duration_ns + NS_PER_MS)
        n--;
    return n;
}

/* Seconds interval k of a phase covers on the time axis: the interval, or
 * for a phase of one interval that ended sooner (a metadata phase), the
 * phase's duration. */
static double interval_len(const struct phase_result *ph, uint32_t k)
{
    double secs = ph->interval_ms / 1000.0, dur = (double)ph->duration_ns / 1e9;

    if (ph->nintervals == 1 && k == 0 && dur > 0 && dur < secs)
        return dur;
    return secs;
}

/* The time axis of a phase's charts: 0 to the end of its plotted intervals. */
static void time_axis(struct svg_chart *c, const struct phase_result *ph, uint32_t n,
                      const struct html_timeline *tl)
{
    c->fixed_x = 1;
    c->xmin = 0;
    c->xmax = n ? (n - 1) * ph->interval_ms / 1000.0 + interval_len(ph, n - 1) : 1;
    if (c->xmax < 1)
        c->xfmt = fmt_ms;
    c->bands = tl->band;
    c->nbands = tl->nband;
}

/* Interval k is drawn at its middle, so the lines span the time axis and
 * line up with the shaded intervals; a one-interval phase is a point in
 * the middle of its chart. */
static double interval_x(const struct phase_result *ph, uint32_t k)
{
    return k * ph->interval_ms / 1000.0 + interval_len(ph, k) / 2;
}

/* The seeds' table (report_matrix.h); nothing when no phase fits it (a
 * metadata run).  What no cell holds is listed below it, with why. */
static void matrix_table(FILE *out, const struct run_result *r, int base)
{
    struct report_matrix *m = report_matrix_new(r, MAX_BS);
    char b[32], v[32], line[512];
    int partial = 0;

    if (!m)
        return;
    fprintf(out, "<h2>Summary</h2>\n");
    if (m->ncols) {
        fprintf(out, "<table class=\"matrix\" data-view=\"matrix\"><tr><th class=\"l\"></th>");
        for (uint32_t j = 0; j < m->ncols; j++)
            fprintf(out, "<th colspan=\"2\">%s</th>", units_fmt_block_size(b, sizeof(b), m->bs[j]));
        fprintf(out, "</tr>\n<tr><th class=\"l\"></th>");
        for (uint32_t j = 0; j < m->ncols; j++)
            fprintf(out, "<th>IOPS</th><th>BW</th>");
        fprintf(out, "</tr>\n");
    }
    for (uint32_t k = 0; k < m->nrows; k++) {
        svg_escaped(out, "<tr><th class=\"l\">", m->rows[k].label, "</th>");
        for (uint32_t j = 0; j < m->ncols; j++) {
            int pc = report_matrix_cell(r, &m->rows[k], j, base, v, b);

            partial |= pc > 0;
            fprintf(out, "<td>%s</td><td>%s</td>", pc < 0 ? "-" : v, pc < 0 ? "-" : b);
        }
        fprintf(out, "</tr>\n");
    }
    if (m->ncols)
        fprintf(out, "</table>\n");
    if (partial)
        fprintf(out, "<p class=\"warn\">* partial: the phase did not run to completion (see its verdict)</p>\n");
    for (uint32_t k = 0; k < m->nleft; k++) {
        svg_escaped(out, "<p class=\"warn\">not in the table: ",
                    report_matrix_left_text(line, sizeof line, m, r, k, MAX_BS), "</p>\n");
    }
    if (m->nleft_more)
        fprintf(out, "<p class=\"warn\">not in the table: %u more figures of phases (see their own tables)</p>\n",
                m->nleft_more);
    free(m);
}

static void figs(FILE *out, enum op_type t, const struct op_stats *o, uint64_t dur, int base)
{
    char f[REPORT_FIGS][32];

    report_fig_cells(f, t, o, dur, base);
    for (int i = 0; i < REPORT_FIGS; i++)
        fprintf(out, "<td>%s</td>", f[i]);
}

#define FIG_HEAD "<th>IOPS</th><th>BW</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th>" \
                 "<th>p99.9</th><th>max</th>"

/* An errors_table row's id, host and op cells. */
static void error_row(FILE *out, const struct run_result *r, uint32_t a, int t)
{
    fprintf(out, "<tr class=\"warn\"><td>%u</td>", r->agents[a].id);
    svg_td(out, 1, r->agents[a].host);
    svg_td(out, 1, op_type_name((enum op_type)t));
}

/* Why ops failed: one row per agent, op type and cause (the text report's
 * lines, RESULT_ERRORS_AGENTS_MAX agents at most); nothing when none did. */
static void errors_table(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t shown = 0, more = 0;
    int head = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct errcause_set *s = result_agent_errors(r, phase, a);
        const struct agent_phase *ap = &ph->agents[a];
        int any = 0;

        for (int t = 0; t < OP__COUNT; t++)
            any |= ap->done && ap->sealed.count[t].errors != 0;
        if (!any)
            continue;
        if (shown++ >= RESULT_ERRORS_AGENTS_MAX) {
            more++;
            continue;
        }
        if (!head) {
            fprintf(out, "<table class=\"errors\"><tr><th>id</th><th class=\"l\">host</th>"
                    "<th class=\"l\">op</th><th>failed</th><th class=\"l\">cause</th></tr>\n");
            head = 1;
        }
        for (int t = 0; t < OP__COUNT; t++) {
            uint64_t failed = ap->sealed.count[t].errors, told = s ? errcause_failed(s, (enum op_type)t) : 0;
            char line[640];

            for (uint32_t i = 0; s && i < s->op[t].n; i++) {
                const struct errcause *c = &s->op[t].c[i];
                char n[32];
                result_errors_cause_line(c, (enum op_type)t, line, sizeof line);
                error_row(out, r, a, t);
                snprintf(n, sizeof n, "%llu", (unsigned long long)c->count);
                svg_td(out, 0, n);
                /* the cause without its count, which has a column */
                svg_td(out, 1, strstr(line, " x ") ? strstr(line, " x ") + 3 : line);
                fprintf(out, "</tr>\n");
            }
            if (s && s->op[t].other) {
                error_row(out, r, a, t);
                fprintf(out, "<td>%llu</td><td class=\"l\">other causes (beyond the %d kept)</td></tr>\n",
                        (unsigned long long)s->op[t].other, ERRCAUSE_MAX);
            }
            if (told < failed) {
                error_row(out, r, a, t);
                fprintf(out, "<td>%llu</td><td class=\"l\">cause not reported (%s)</td></tr>\n",
                        (unsigned long long)(failed - told), ap->salvaged ? "no phase-done" : "the agent sent none");
            }
        }
    }
    if (head)
        fprintf(out, "</table>\n");
    if (more)
        fprintf(out, "<p class=\"note\">... and %u more agents with failed ops (their causes are in the JSON "
                "result)</p>\n", more);
}

static void phase_tables(FILE *out, const struct run_result *r, uint32_t i, const struct fairness *f, int base,
                         int fleet)
{
    const struct phase_result *ph = &r->phases[i];
    char a[32], b[32], skew[256];

    fprintf(out, "<table><tr><th class=\"l\">op</th>" FIG_HEAD "<th>errors</th></tr>\n");
    for (int t = 0; t < OP__COUNT; t++) {
        if (!ph->totals.op[t].ops)
            continue;
        fprintf(out, "<tr>");
        svg_td(out, 1, op_type_name((enum op_type)t));
        figs(out, (enum op_type)t, &ph->totals.op[t], ph->duration_ns, base);
        fprintf(out, "<td>%llu</td></tr>\n", (unsigned long long)ph->totals.op[t].errors);
    }
    fprintf(out, "</table>\n");
    errors_table(out, r, i);
    fprintf(out, "<p class=\"note\">duration %s (longest agent), %s. ",
            units_fmt_ns(a, sizeof(a), (double)ph->duration_ns), start_skew_text(skew, sizeof(skew), r, i));
    if (f->ncounted) {
        fprintf(out, "Fairness (Jain) <b>%.3f</b> across %u agents; slowest agent %u (", f->jain,
                f->ncounted, r->agents[f->slowest].id);
        svg_escape(out, r->agents[f->slowest].host);
        fprintf(out, ") %s IOPS, fastest agent %u (", units_fmt_count(a, sizeof(a), f->slowest_iops),
                r->agents[f->fastest].id);
        svg_escape(out, r->agents[f->fastest].host);
        fprintf(out, ") %s IOPS.", units_fmt_count(b, sizeof(b), f->fastest_iops));
    }
    uint64_t sample_ops, sample_threads, sample_mean;
    if (result_phase_thin_sample(r, (uint32_t)(ph - r->phases), &sample_ops, &sample_threads,
                                 &sample_mean))
        fprintf(out, " <span class=\"warn\" data-thin-sample=\"%llu\">Ops take %s on average in this "
                "%s phase: about one op per thread%s (%llu ops from %llu threads); its latency and "
                "throughput rest on that few.</span>", (unsigned long long)sample_ops,
                units_fmt_ns(a, sizeof(a), (double)sample_mean),
                units_fmt_ns(b, sizeof(b), (double)ph->duration_ns),
                sample_ops > 2 * sample_threads ? " and slot of its iodepth" : "",
                (unsigned long long)sample_ops, (unsigned long long)sample_threads);
    if (fleet) {    /* the per-agent detail is html_fleet's table */
        fprintf(out, "</p>\n");
        return;
    }
    fprintf(out, "</p>\n<table><tr><th>id</th><th class=\"l\">host</th><th class=\"l\">op</th>" FIG_HEAD
            "<th>share</th><th>cpu</th></tr>\n");
    for (uint32_t ag = 0; ag < r->nagents; ag++) {
        const struct agent_phase *ap = &ph->agents[ag];
        uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns;

        for (int t = 0; t < OP__COUNT; t++) {
            if (!ph->totals.op[t].ops)
                continue;
            fprintf(out, "<tr><td>%u</td>", r->agents[ag].id);
            svg_td(out, 1, r->agents[ag].host);
            svg_td(out, 1, op_type_name((enum op_type)t));
            if (!ap->done) {
                fprintf(out, "<td colspan=\"10\" class=\"warn\">no result</td></tr>\n");
                break;
            }
            const struct op_stats *o = &result_agent_totals(r, i, ag)->op[t];
            figs(out, (enum op_type)t, o, dur, base);
            /* of the successful ops: a failed op is no share of the work */
            fprintf(out, "<td>%.1f%%</td>", result_ok_ops(&ph->totals.op[t]) ?
                    (double)result_ok_ops(o) * 100.0 / (double)result_ok_ops(&ph->totals.op[t]) : 0.0);
            fprintf(out, "<td>%s</td></tr>\n", fleet_cpu_text(a, sizeof(a), ap));
        }
    }
    fprintf(out, "</table>\n");
}

/* Draw y (ns rows of n+1 values, row 0 the fleet, row a+1 agent a) as one
 * bold line named `first` and a dashed line per agent named
 * "<prefix><id> <host>"; a lost agent's line is dotted, ends where it was
 * lost (its later values are gaps) and its name ends in " (lost)" (the
 * band's note says when). */
static void fleet_and_agent_lines(FILE *out, const struct svg_chart *c, const struct run_result *r,
                                  const double *x, double *y, uint32_t n,
                                  const char *first, const char *prefix, const struct html_timeline *tl,
                                  int fleet)
{
    uint32_t ns = fleet ? 1 : r->nagents + 1;   /* the fleet view: the fleet's line alone */
    struct svg_series *s = xcalloc(ns, sizeof(*s));
    char (*names)[RESULT_HOST_MAX + 80] = xcalloc(ns, sizeof(*names));

    for (uint32_t j = 0; j < ns; j++) {
        int lost = j > 0 && tl->lost_x[j - 1] >= 0;

        if (j == 0)
            snprintf(names[j], sizeof(names[j]), "%s", first);
        else
            snprintf(names[j], sizeof(names[j]), "%s%u %.40s%s", prefix, r->agents[j - 1].id,
                     r->agents[j - 1].host, lost ? " (lost)" : "");
        for (uint32_t k = 0; lost && k < n; k++)
            if (x[k] > tl->lost_x[j - 1] + 1e-9)
                y[(size_t)j * (n + 1) + k] = NAN;
        s[j] = (struct svg_series){ .name = names[j], .x = x, .y = &y[(size_t)j * (n + 1)], .n = n,
                                    .width = j == 0 ? 3 : 1, .dashed = j > 0, .dotted = lost };
    }
    svg_lines(out, c, s, ns);
    free(names);
    free(s);
}

/* The phase's step-downs and step-ups as the text report words them;
 * each is also marked on the time charts (html_timeline.c). */
static void changes_html(FILE *out, const struct run_result *r, uint32_t phase, int base)
{
    struct change_set s;
    char line[512];

    changes_phase(r, phase, &s);
    for (size_t i = 0; i < s.n; i++) {
        const struct change *c = &s.c[i];

        changes_line(line, sizeof(line), r, c, base);
        fprintf(out, "<p class=\"warn\" data-change=\"%s\" data-at-s=\"%.3f\">", c->fleet ? "fleet" : "agent",
                c->at_s);
        svg_escape(out, line);
        fprintf(out, "</p>\n");
    }
    change_set_free(&s);
}

/* Successful ops (bytes: 0, or moved bytes: 1) per second over time,
 * merged and per agent. */
static void chart_rate(FILE *out, const struct run_result *r, uint32_t i, const struct html_timeline *tl,
                       int bytes, int base, int fleet)
{
    const struct phase_result *ph = &r->phases[i];
    uint32_t n = plotted(ph), ns = r->nagents + 1;
    double *x = xcalloc(n + 1, sizeof(*x)), *y = xcalloc((size_t)ns * (n + 1), sizeof(*y));
    struct svg_chart c = { .view = "throughput", .title = "Throughput over time (IOPS)",
                           .xlabel = "seconds into the phase", .ylabel = "IOPS",
                           .xfmt = fmt_secs, .yfmt = svg_fmt_count };

    if (bytes)
        c = (struct svg_chart){ .view = "bandwidth", .title = "Bandwidth over time",
                                .xlabel = "seconds into the phase", .ylabel = base == 1000 ? "bytes/s (SI)" : "bytes/s",
                                .xfmt = fmt_secs, .yfmt = svg_fmt_rate, .fmt_arg = &base, .ybase = base };
    time_axis(&c, ph, n, tl);
    struct counters *ac = xmalloc((r->nagents ? r->nagents : 1) * sizeof(*ac));

    for (uint32_t k = 0; k < n; k++) {
        const struct interval_slot *sl = &ph->intervals[k];
        double secs = interval_len(ph, k);

        x[k] = interval_x(ph, k);
        result_slot_agents(sl, r->nagents, ac);
        for (int t = 0; t < OP__COUNT; t++) {
            /* successful ops only: a failed op is not throughput; bytes
             * are what the agents counted as moved */
            y[k] += (bytes ? (double)sl->count[t].bytes
                           : (double)result_ok_count(sl->count[t].ops, sl->count[t].errors)) / secs;
            for (uint32_t a = 0; a < r->nagents; a++)
                y[(size_t)(a + 1) * (n + 1) + k] +=
                    (bytes ? (double)ac[a].bytes[t]
                           : (double)result_ok_count(ac[a].ops[t], ac[a].errors[t])) / secs;
        }
    }
    free(ac);
    fleet_and_agent_lines(out, &c, r, x, y, n, "all agents", "", tl, fleet);
    free(y);
    free(x);
}

static void chart_latency(FILE *out, const struct run_result *r, uint32_t i, const struct html_timeline *tl)
{
    static const double q[4] = { 50, 90, 99, 99.9 };
    static const char *const qn[4] = { "p50", "p90", "p99", "p99.9" };
    const struct phase_result *ph = &r->phases[i];
    uint32_t n = plotted(ph);
    double *x = xcalloc(n + 1, sizeof(*x)), *y = xcalloc(4 * (size_t)(n + 1), sizeof(*y));
    struct op_stats *all = xmalloc(sizeof(*all));
    struct svg_series s[4];
    struct svg_chart c = { .view = "latency", .title = "Latency percentiles over time (log scale)",
                           .xlabel = "seconds into the phase", .ylabel = "latency",
                           .xfmt = fmt_secs, .yfmt = svg_fmt_ns, .logy = 1 };

    time_axis(&c, ph, n, tl);
    for (uint32_t k = 0; k < n; k++) {
        result_interval_all(r, i, k, all);
        x[k] = interval_x(ph, k);
        /* no ops: a gap (NaN), never a line down to 0 */
        for (int j = 0; j < 4; j++)
            y[(size_t)j * (n + 1) + k] = all->lat.count ? (double)hist_percentile(&all->lat, q[j]) : NAN;
    }
    for (int j = 0; j < 4; j++)
        s[j] = (struct svg_series){ .name = qn[j], .x = x, .y = &y[(size_t)j * (n + 1)], .n = n };
    svg_lines(out, &c, s, 4);
    free(all);
    free(y);
    free(x);
}

static void chart_fairness(FILE *out, const struct run_result *r, uint32_t i, const struct html_timeline *tl,
                           int fleet)
{
    const struct phase_result *ph = &r->phases[i];
    uint32_t n = plotted(ph), ns = r->nagents + 1;
    double *x = xcalloc(n + 1, sizeof(*x)), *y = xcalloc((size_t)ns * (n + 1), sizeof(*y));
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    struct svg_chart c = { .view = "fairness", .title = "Fairness over time: Jain index and agent shares",
                           .xlabel = "seconds into the phase", .ylabel = "index / share",
                           .xfmt = fmt_secs, .yfmt = fmt_frac, .fixed_y = 1, .ymin = 0, .ymax = 1 };

    if (fleet)
        c.title = "Fairness over time: Jain index";
    time_axis(&c, ph, n, tl);
    for (uint32_t k = 0; k < n; k++) {
        x[k] = interval_x(ph, k);
        y[k] = fairness_interval(r, i, k, share);
        for (uint32_t a = 0; a < r->nagents; a++)
            y[(size_t)(a + 1) * (n + 1) + k] = share[a];
    }
    fleet_and_agent_lines(out, &c, r, x, y, n, "Jain index", "share ", tl, fleet);
    free(share);
    free(y);
    free(x);
}

static void chart_cdf(FILE *out, const struct run_result *r, uint32_t i)
{
    const struct phase_result *ph = &r->phases[i];
    double *x = xcalloc(OP__COUNT * (size_t)HIST_NBUCKETS, sizeof(*x));
    double *y = xcalloc(OP__COUNT * (size_t)HIST_NBUCKETS, sizeof(*y));
    struct svg_series s[OP__COUNT];
    size_t ns = 0;
    struct svg_chart c = { .view = "cdf", .title = "Latency distribution (CDF)", .xlabel = "latency (log scale)",
                           .ylabel = "fraction of ops", .xfmt = svg_fmt_ns, .yfmt = fmt_frac, .logx = 1,
                           .fixed_y = 1, .ymin = 0, .ymax = 1 };

    for (int t = 0; t < OP__COUNT; t++) {
        const struct hist *h = &ph->totals.op[t].lat;
        double *px = &x[(size_t)t * HIST_NBUCKETS], *py = &y[(size_t)t * HIST_NBUCKETS];
        uint64_t cum = 0;
        size_t n = 0;

        if (!h->count)
            continue;
        for (unsigned b = 0; b < HIST_NBUCKETS; b++) {
            if (!h->bucket[b])
                continue;
            cum = sat_add_u64(cum, h->bucket[b]);
            px[n] = fmax(1, (double)(b + 1 < HIST_NBUCKETS ? hist_bucket_high(b) : h->max_ns));
            py[n++] = (double)cum / (double)h->count;
        }
        s[ns++] = (struct svg_series){ .name = op_type_name((enum op_type)t), .x = px, .y = py, .n = n };
    }
    svg_lines(out, &c, s, ns);
    free(y);
    free(x);
}

static void chart_agents(FILE *out, const struct run_result *r, uint32_t i, const struct html_timeline *tl)
{
    const struct phase_result *ph = &r->phases[i];
    double *v = xcalloc(r->nagents ? r->nagents : 1, sizeof(*v));
    char **cats = xcalloc(r->nagents ? r->nagents : 1, sizeof(*cats));
    const char **notes = xcalloc(r->nagents ? r->nagents : 1, sizeof(*notes));
    int *lost = xcalloc(r->nagents ? r->nagents : 1, sizeof(*lost));
    struct svg_bar_series s = { .name = "IOPS", .v = v, .marked = lost };
    struct svg_chart c = { .view = "agents", .title = "IOPS per agent", .xlabel = "agent",
                           .ylabel = "IOPS", .yfmt = svg_fmt_count, .cat_notes = notes };

    for (uint32_t a = 0; a < r->nagents; a++) {
        lost[a] = tl->lost_x[a] >= 0;
        notes[a] = lost[a] ? tl->lost_note[a] : NULL;
        const struct agent_phase *ap = &ph->agents[a];
        struct op_stats *all = xmalloc(sizeof(*all));

        result_all_ops(result_agent_totals(r, i, a), all);
        v[a] = result_iops(all, ap->duration_ns ? ap->duration_ns : ph->duration_ns);
        free(all);
        cats[a] = xmalloc(48);
        snprintf(cats[a], 48, "%u %.20s", r->agents[a].id, r->agents[a].host);
    }
    svg_bars(out, &c, (const char *const *)cats, r->nagents, &s, 1);
    for (uint32_t a = 0; a < r->nagents; a++)
        free(cats[a]);
    free(cats);
    free(notes);
    free(lost);
    free(v);
}

/* Successful ops of every load op type in c. */
static double load_ok(const struct counters *c)
{
    double ok = 0;

    for (int t = 0; t < OP__COUNT; t++)
        if (op_type_is_load(t))
            ok += (double)result_ok_count(c->ops[t], c->errors[t]);
    return ok;
}

#define SPREAD_EDGE 3    /* slowest and fastest agents drawn on the spread chart */

/* The fleet view's per-agent IOPS over time: in each interval the p10,
 * median and p90 (nearest rank) over the agents taking part (a lost one
 * until it was lost),
 * and the lines of the SPREAD_EDGE slowest and fastest agents of the phase
 * (a lost one's line ends where it was lost), instead of a line per agent. */
static void chart_agent_spread(FILE *out, const struct run_result *r, uint32_t i, const struct html_timeline *tl,
                               const struct fleet_phase *fp)
{
    static const char *const qn[3] = { "p10 of agents", "median of agents", "p90 of agents" };
    static const double q[3] = { 10, 50, 90 };
    const struct phase_result *ph = &r->phases[i];
    uint32_t n = plotted(ph), nran = fp->count[FLEET_RAN], nedge = 0, edge[2 * SPREAD_EDGE];
    uint32_t nslow = nran < SPREAD_EDGE ? nran : SPREAD_EDGE;
    uint32_t nfast = nran - nslow < SPREAD_EDGE ? nran - nslow : SPREAD_EDGE;
    double *x = xcalloc(n + 1, sizeof(*x)), *y = xcalloc((3 + 2 * SPREAD_EDGE) * (size_t)(n + 1), sizeof(*y));
    double *v = xcalloc(r->nagents ? r->nagents : 1, sizeof(*v));
    struct counters *ac = xmalloc((r->nagents ? r->nagents : 1) * sizeof(*ac));
    struct svg_series s[3 + 2 * SPREAD_EDGE];
    char names[2 * SPREAD_EDGE][RESULT_HOST_MAX + 48];
    struct svg_chart c = { .view = "agent-spread", .title = "IOPS per agent over time: spread, slowest, fastest",
                           .xlabel = "seconds into the phase", .ylabel = "IOPS of an agent",
                           .xfmt = fmt_secs, .yfmt = svg_fmt_count };

    for (uint32_t j = 0; j < nslow; j++)
        edge[nedge++] = fp->ran[j].agent;
    for (uint32_t j = 0; j < nfast; j++)
        edge[nedge++] = fp->ran[nran - 1 - j].agent;
    time_axis(&c, ph, n, tl);
    for (uint32_t k = 0; k < n; k++) {
        const struct interval_slot *sl = &ph->intervals[k];
        double secs = interval_len(ph, k);
        uint32_t m = 0;

        x[k] = interval_x(ph, k);
        result_slot_agents(sl, r->nagents, ac);
        for (uint32_t a = 0; a < r->nagents; a++) {
            /* what the JSON and journal carry too (not "reported"), so a
             * re-rendered report draws the same: taking part, not yet lost */
            if (!ph->agents[a].participating || (tl->lost_x[a] >= 0 && x[k] > tl->lost_x[a] + 1e-9))
                continue;
            v[m++] = load_ok(&ac[a]) / secs;
        }
        qsort(v, m, sizeof(*v), fleet_cmp_double);
        for (int j = 0; j < 3; j++)
            y[(size_t)j * (n + 1) + k] = m ? fleet_percentile(v, m, q[j]) : NAN;
        for (uint32_t e = 0; e < nedge; e++) {
            uint32_t a = edge[e];

            y[(size_t)(3 + e) * (n + 1) + k] =
                tl->lost_x[a] >= 0 && x[k] > tl->lost_x[a] + 1e-9 ? NAN : load_ok(&ac[a]) / secs;
        }
    }
    for (int j = 0; j < 3; j++)
        s[j] = (struct svg_series){ .name = qn[j], .x = x, .y = &y[(size_t)j * (n + 1)], .n = n,
                                    .width = j == 1 ? 3 : 2 };
    for (uint32_t e = 0; e < nedge; e++) {
        snprintf(names[e], sizeof(names[e]), "%s %u %.30s", e < nslow ? "slow" : "fast", r->agents[edge[e]].id,
                 r->agents[edge[e]].host);
        s[3 + e] = (struct svg_series){ .name = names[e], .x = x, .y = &y[(size_t)(3 + e) * (n + 1)], .n = n,
                                        .width = 1, .dashed = 1 };
    }
    svg_lines(out, &c, s, 3 + nedge);
    free(ac);
    free(v);
    free(y);
    free(x);
}

/* The phase's verdict and its reasons. */
static void verdict_html(FILE *out, const struct run_result *r, uint32_t phase)
{
    struct verdict *v = xmalloc(sizeof(*v));

    verdict_phase(r, phase, v);
    fprintf(out, "<p class=\"%s\" data-verdict=\"%s\">verdict: %s</p>\n", v->v == VERDICT_OK ? "note" : "warn",
            verdict_name(v->v), verdict_name(v->v));
    if (v->nreasons) {
        fprintf(out, "<ul>\n");
        for (uint32_t i = 0; i < v->nreasons; i++) {
            svg_escaped(out, "<li>", v->reason[i], "</li>\n");
        }
        fprintf(out, "</ul>\n");
    }
    free(v);
}

void report_html(FILE *out, const struct run_result *r, int unit_base)
{
    report_html_rows(out, r, unit_base, 0);
}

void report_html_rows(FILE *out, const struct run_result *r, int unit_base, uint32_t rows)
{
    int fleet = fleet_use_view(r->nagents, rows);
    int base = unit_base == 1000 ? 1000 : 1024;
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    time_t t = (time_t)r->started_unix;
    char when[64] = "?", title[PLAN_NAME_MAX + 16];
    struct tm tm;

    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
    snprintf(title, sizeof(title), "nfstorm: %s", r->label[0] ? r->label : "(unlabelled)");
    svg_page_begin(out, title);
    fprintf(out, "<h1>");
    svg_escape(out, title);
    fprintf(out, "</h1>\n<p class=\"note\">%u agents, %u phases, started %s", r->nagents, r->nphases, when);
    if (r->run_id) {           /* the id verify_written_by= names */
        char id[17];
        vblock_run_format(r->run_id, id);
        fprintf(out, ", run id <span data-run-id=\"%s\">%s</span>", id, id);
    }
    fprintf(out, "</p>\n");
    {
        char line[1024];
        enum verdict_kind v = verdict_summary(r, line, sizeof line);

        fprintf(out, "<p class=\"%s\" data-verdict=\"%s\">verdict: ", v == VERDICT_OK ? "note" : "warn",
                verdict_name(v));
        svg_escape(out, line);
        fprintf(out, " (exit status %d)</p>\n", verdict_exit_status(v));
    }
    if (!fleet)     /* else the agents' table goes to the end, collapsed */
        html_fleet_agent_table(out, r);
    matrix_table(out, r, base);

    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];
        struct fairness f;
        struct html_timeline tl, tl_owned;
        struct fleet_phase fp;
        char bs[32];

        fprintf(out, "<h2>Phase %u: ", i + 1);
        svg_escape(out, ph->name);
        if (ph->rw == RW_METADATA)
            fprintf(out, " <small>(%s, %u jobs x %u agents)</small></h2>\n", rw_mode_name(ph->rw),
                    ph->numjobs, r->nagents);
        else
            fprintf(out, " <small>(%s, bs %s, %u jobs x %u agents)</small></h2>\n", rw_mode_name(ph->rw),
                    units_fmt_block_size(bs, sizeof(bs), ph->bs), ph->numjobs, r->nagents);
        verdict_html(out, r, i);
        if (!ph->finished) {
            fprintf(out, "<p class=\"warn\">not run to completion, no results</p>\n");
            continue;
        }
        if (verdict_phase_partial(r, i))
            fprintf(out, "<p class=\"warn\">partial results: the phase did not run to completion; the "
                    "figures below are what arrived before it ended (its verdict says why)</p>\n");
        fairness_phase(r, i, share, &f);
        phase_tables(out, r, i, &f, base, fleet);
        report_nfs_html(out, r, i);     /* nfs engine: RPC RTT next to op latency */
        client_html_section(out, r, i);
        html_verify(out, r, i);
        html_coherence(out, r, i);
        if (fleet) {
            fleet_phase_init(&fp, r, i);
            html_fleet_summary(out, r, &fp, base);
        }
        if (plotted(ph) < ph->nintervals)
            fprintf(out, "<p class=\"note\">Time charts leave out the last, partial interval.</p>\n");
        changes_html(out, r, i, base);
        html_timeline_init(&tl, r, i);
        if (fleet) {        /* one band for agents lost alike */
            struct html_timeline all = tl;

            html_fleet_timeline(&tl, &all);
            tl_owned = all;
        }
        fprintf(out, "<div class=\"grid\">\n");
        chart_rate(out, r, i, &tl, 0, base, fleet);
        if (fleet)
            chart_agent_spread(out, r, i, &tl, &fp);
        chart_rate(out, r, i, &tl, 1, base, fleet);
        chart_latency(out, r, i, &tl);
        chart_fairness(out, r, i, &tl, fleet);
        chart_cdf(out, r, i);
        if (fleet)
            html_fleet_chart_dist(out, r, i, &fp, &tl);
        else
            chart_agents(out, r, i, &tl);
        fprintf(out, "</div>\n");
        if (fleet) {
            html_fleet_table(out, r, i, &fp, base);
            fleet_phase_free(&fp);
            html_fleet_timeline_free(&tl);
            tl = tl_owned;
        }
        html_timeline_free(&tl);
    }
    if (fleet)
        html_fleet_agent_list(out, r);
    sweep_html(out, r->sweeps, r);   /* each sweep's curves and table */
    limits_result_html(out, r, base);   /* --limits: against the declared caps */
    ext_metrics_html(out, r, base);     /* --metrics: the provider's own series */
    svg_page_end(out);
    free(share);
}
