/* report_repeat: a repeat set's summary as text and as HTML (repeat.h).
 *
 * Design: one row per phase, op type and metric (IOPS, bandwidth, p50,
 * p99), then the phase's verdicts counted over the repetitions ("2/3 ok,
 * 1/3 interrupted").  Columns have fixed widths sized to what units_fmt_*
 * can produce ("1.23GiB/s", "12.3k", "1.23ms"), except the phase-name
 * column, which takes the longest name (capped, as report_text does), so
 * every row lines up.  A spread that is not known (one value) prints "-",
 * never 0. */
#include "coordinator/result/repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/sample_stats.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/svg.h"
#include "coordinator/run/verdict.h"

#define NAME_MIN 5
#define NAME_MAX_W 20
#define OP_W 7
#define METRIC_W 9
#define NUM_W 10
#define CI_W 24

static const char *const metric_label[REPEAT__METRICS] = { "IOPS", "bandwidth", "lat p50", "lat p99" };

_Static_assert((int)CMP_BW == (int)REPEAT_BW && (int)CMP_P99 == (int)REPEAT_P99,
               "a repeat metric is the compare metric of its name");

/* v in the units compare prints the metric in; "-" when not finite. */
static char *fmt_metric(char *buf, size_t len, enum repeat_metric m, double v, int base)
{
    compare_fmt_value(buf, len, isfinite(v) ? v : NAN, 0, (int)m, base);
    return buf;
}

/* The four figures of one row: mean, sd, "lo .. hi" (or "-"); an end
 * clamped to the metric's range carries a '*' and clamp_note says why. */
struct row {
    char mean[32], sd[32], ci[80];
    char clamp_note[160];         /* "" when not clamped */
    uint32_t n;
};

static void fill_row(struct row *rw, const struct run_set *s, uint32_t phase, enum op_type t,
                     enum repeat_metric m, double *x, int base)
{
    struct sample_summary sum;
    char lo[32], hi[32], raw[32];
    double min, max;

    rw->n = repeat_values(s, phase, t, m, x, NULL);
    sample_summarize(x, rw->n, &sum);
    repeat_metric_range(m, &min, &max);
    sample_clamp_ci(&sum, min, max);
    fmt_metric(rw->mean, sizeof rw->mean, m, sum.mean, base);
    fmt_metric(rw->sd, sizeof rw->sd, m, sum.sd, base);
    rw->clamp_note[0] = '\0';
    if (isfinite(sum.ci95_lo) && isfinite(sum.ci95_hi)) {
        fmt_metric(lo, sizeof lo, m, sum.ci95_lo, base);
        if (sum.ci95_clamped & SAMPLE_CLAMPED_LO) {
            strcat(lo, "*");
            fmt_metric(raw, sizeof raw, m, fabs(sum.ci95_raw_lo), base);
            snprintf(rw->clamp_note, sizeof rw->clamp_note, "* %s interval clamped at 0 (mean - t*sd/sqrt(n) "
                     "is %s%s): too few or too spread repetitions to bound it", metric_label[m],
                     sum.ci95_raw_lo < 0 ? "-" : "", raw);
        }
        snprintf(rw->ci, sizeof rw->ci, "%s .. %s", lo, fmt_metric(hi, sizeof hi, m, sum.ci95_hi, base));
    } else {
        snprintf(rw->ci, sizeof rw->ci, "-");
    }
}

/* The repetitions of phase left out of the statistics, one line each:
 * "repetition 2 (failed: agent 0 (h:p): completed no op): read IOPS 0".
 * Returns how many. */
static uint32_t left_out_lines(FILE *out, const struct run_set *s, uint32_t phase, const char *indent, int html,
                               int base)
{
    struct verdict *v = xmalloc(sizeof *v);
    uint32_t n = 0;

    for (uint32_t k = 0; k < s->n; k++) {
        const struct phase_result *ph;
        char val[32];
        int any = 0;

        if (!repeat_left_out(s, phase, k))
            continue;
        ph = &s->reps[k].phases[phase];
        repeat_verdict(s, phase, k, v);
        fprintf(out, "%s%srepetition %u left out of the statistics (%s%s", indent, html ? "<li>" : "", k + 1,
                verdict_name(v->v), v->nreasons ? ": " : "");
        if (html)
            svg_escape(out, v->nreasons ? v->reason[0] : "");
        else
            fputs(v->nreasons ? v->reason[0] : "", out);
        fputs(")", out);
        for (int t = 0; t < OP__COUNT; t++) {
            if (!ph->totals.op[t].ops)
                continue;
            fmt_metric(val, sizeof val, REPEAT_IOPS, result_iops(&ph->totals.op[t], ph->duration_ns), base);
            fprintf(out, "%s %s IOPS %s", any ? "," : ":", op_type_name((enum op_type)t), val);
            any = 1;
        }
        fputs(html ? "</li>\n" : "\n", out);
        n++;
    }
    free(v);
    return n;
}

/* The repetitions that count but have no latency for an op type (none of
 * its ops completed), one line each: they are out of the latency rows'
 * statistics (repeat_no_sample), which must be said.  Returns how many
 * (out NULL: only counts). */
static uint32_t no_latency_lines(FILE *out, const struct run_set *s, uint32_t phase, const char *indent, int html)
{
    uint32_t *rep = xcalloc(s->n ? s->n : 1, sizeof *rep), n = 0;

    for (int t = 0; t < OP__COUNT; t++) {
        uint32_t nr;

        if (!repeat_has_op(s, phase, (enum op_type)t))
            continue;
        nr = repeat_no_sample(s, phase, (enum op_type)t, REPEAT_P50, rep);
        for (uint32_t k = 0; k < nr && out; k++)
            fprintf(out, "%s%srepetition %u left out of the %s latency statistics: no %s op completed, so it has "
                    "no latency%s\n", indent, html ? "<li>" : "", rep[k] + 1, op_type_name((enum op_type)t),
                    op_type_name((enum op_type)t), html ? "</li>" : "");
        n += nr;
    }
    free(rep);
    return n;
}

/* "3/3 ok" or "2/3 ok, 1/3 interrupted": the phase's verdicts counted. */
static void verdict_counts(const struct run_set *s, uint32_t phase, char *buf, size_t len)
{
    uint32_t count[VERDICT_INTERRUPTED + 1] = { 0 };
    struct verdict *v = xmalloc(sizeof *v);
    size_t used = 0;

    for (uint32_t k = 0; k < s->n; k++) {
        verdict_phase(&s->reps[k], phase, v);
        count[v->v]++;
    }
    buf[0] = '\0';
    for (int kind = VERDICT_OK; kind <= VERDICT_INTERRUPTED && used < len; kind++)
        if (count[kind])
            used += (size_t)snprintf(buf + used, len - used, "%s%u/%u %s", used ? ", " : "", count[kind],
                                     s->n, verdict_name((enum verdict_kind)kind));
    free(v);
}

static void heading(char *buf, size_t len, const struct run_set *s)
{
    char every[32];
    const char *label = s->reps[0].label[0] ? s->reps[0].label : "(unlabelled)";
    uint32_t want = s->requested ? s->requested : s->n;

    units_fmt_ns(every, sizeof every, (double)s->interval_ns);
    snprintf(buf, len, "repeat set %s%s%s: %u of %u repetitions%s%s%s%s", label, s->target[0] ? ", target " : "",
             s->target, s->n, want, s->interval_ns ? ", " : "", s->interval_ns ? every : "",
             s->interval_ns ? " apart" : "", s->interrupted ? " (interrupted)" : "");
}

void repeat_report_text(FILE *out, const struct run_set *s, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;
    const struct run_result *first = &s->reps[0];
    double *x = xcalloc(s->n, sizeof *x);
    int name_w = NAME_MIN;
    char line[512];
    uint32_t left = 0;

    for (uint32_t i = 0; i < first->nphases; i++)
        if ((int)strlen(first->phases[i].name) > name_w)
            name_w = (int)strlen(first->phases[i].name);
    if (name_w > NAME_MAX_W)
        name_w = NAME_MAX_W;
    heading(line, sizeof line, s);
    fprintf(out, "%s\n", line);
    fprintf(out, "(over the repetitions in which a phase ran to its end%s; 95%% CI of the mean, Student t)\n\n",
            s->include_failed ? ", failed ones included (--include-failed)" : " with verdict ok");
    fprintf(out, "%-*s %-*s %-*s %*s %*s  %-*s %3s\n", name_w, "phase", OP_W, "op", METRIC_W, "metric", NUM_W,
            "mean", NUM_W, "sd", CI_W, "95% CI", "n");
    for (uint32_t i = 0; i < first->nphases; i++) {
        int rows = 0;
        char notes[REPEAT__METRICS * OP__COUNT][160];
        uint32_t nnotes = 0;
        char indent[NAME_MAX_W + 2];

        for (int t = 0; t < OP__COUNT; t++) {
            if (!repeat_has_op(s, i, (enum op_type)t))
                continue;
            for (int m = 0; m < REPEAT__METRICS; m++) {
                struct row rw;

                if (m == REPEAT_BW && t != OP_READ && t != OP_WRITE)
                    continue;        /* metadata ops move no bytes */
                fill_row(&rw, s, i, (enum op_type)t, (enum repeat_metric)m, x, base);
                fprintf(out, "%-*s %-*s %-*s %*s %*s  %-*s %3u\n", name_w, rows ? "" : first->phases[i].name,
                        OP_W, m == 0 ? op_type_name((enum op_type)t) : "", METRIC_W, metric_label[m], NUM_W,
                        rw.mean, NUM_W, rw.sd, CI_W, rw.ci, rw.n);
                if (rw.clamp_note[0])
                    snprintf(notes[nnotes++], sizeof notes[0], "%s %s", op_type_name((enum op_type)t),
                             rw.clamp_note + 2);
                rows++;
            }
        }
        if (!rows)
            fprintf(out, "%-*s no repetition ran it to its end with ops\n", name_w, first->phases[i].name);
        verdict_counts(s, i, line, sizeof line);
        fprintf(out, "%-*s verdicts: %s\n", name_w, "", line);
        snprintf(indent, sizeof indent, "%-*s ", name_w, "");
        for (uint32_t k = 0; k < nnotes; k++)
            fprintf(out, "%s* %s\n", indent, notes[k]);
        left += left_out_lines(out, s, i, indent, 0, base);
        no_latency_lines(out, s, i, indent, 0);
    }
    if (left)
        fprintf(out, "\n%u phase repetition%s left out of the statistics (not ok); --include-failed keeps those "
                "that ran to their end\n", left, left == 1 ? "" : "s");
    if (s->interrupted)
        fprintf(out, "\nrepeat verdict: exit status %d (interrupted after %u of %u repetitions)\n",
                repeat_exit_status(s), s->n, s->requested);
    else if (s->not_started)
        fprintf(out, "\nrepeat verdict: exit status %d (repetition %u of %u could not start; %u kept)\n",
                repeat_exit_status(s), s->not_started, s->requested, s->n);
    else
        fprintf(out, "\nrepeat verdict: exit status %d (the worst of %u repetition%s)\n", repeat_exit_status(s),
                s->n, s->n == 1 ? "" : "s");
    free(x);
}

void repeat_report_html(FILE *out, const struct run_set *s, int unit_base)
{
    int base = unit_base == 1000 ? 1000 : 1024;
    const struct run_result *first = &s->reps[0];
    double *x = xcalloc(s->n, sizeof *x);
    char line[512];

    heading(line, sizeof line, s);
    svg_page_begin(out, line);
    fprintf(out, "<h1>");
    svg_escape(out, line);
    fprintf(out, "</h1>\n<p class=\"note\">Mean, standard deviation and 95%% confidence interval of the mean "
            "(Student t) over the repetitions in which each phase ran to its end%s. An interval end marked * "
            "is clamped to the metric's range (never below 0). Exit status %d (the worst repetition).</p>\n",
            s->include_failed ? ", failed ones included (--include-failed)"
                              : " with verdict ok (the others are left out and listed; --include-failed keeps them)",
            repeat_exit_status(s));
    fprintf(out, "<table class=\"repeat-summary\"><tr><th class=\"l\">phase</th><th class=\"l\">op</th>"
            "<th class=\"l\">metric</th><th>mean</th><th>sd</th><th>95%% CI</th><th>n</th>"
            "<th class=\"l\">values</th><th class=\"l\">verdicts</th></tr>\n");
    for (uint32_t i = 0; i < first->nphases; i++) {
        char verdicts[256];

        verdict_counts(s, i, verdicts, sizeof verdicts);
        for (int t = 0; t < OP__COUNT; t++) {
            if (!repeat_has_op(s, i, (enum op_type)t))
                continue;
            for (int m = 0; m < REPEAT__METRICS; m++) {
                struct row rw;
                char v[32];

                if (m == REPEAT_BW && t != OP_READ && t != OP_WRITE)
                    continue;
                fill_row(&rw, s, i, (enum op_type)t, (enum repeat_metric)m, x, base);
                fprintf(out, "<tr data-phase=\"%u\" data-op=\"%s\" data-metric=\"%s\"><td class=\"l\">", i,
                        op_type_name((enum op_type)t), repeat_metric_key((enum repeat_metric)m));
                svg_escape(out, first->phases[i].name);
                fprintf(out, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td>"
                        "<td>%s</td><td>%u</td><td class=\"l\">", op_type_name((enum op_type)t), metric_label[m],
                        rw.mean, rw.sd, rw.ci, rw.n);
                for (uint32_t j = 0; j < rw.n; j++)
                    fprintf(out, "%s%s", j ? ", " : "", fmt_metric(v, sizeof v, (enum repeat_metric)m, x[j], base));
                svg_escaped(out, "</td><td class=\"l\">", verdicts, "</td></tr>\n");
            }
        }
    }
    fprintf(out, "</table>\n");
    for (uint32_t i = 0; i < first->nphases; i++) {
        int any = 0;

        if (no_latency_lines(NULL, s, i, "", 1)) {
            fprintf(out, "<ul class=\"no-latency\">\n");
            no_latency_lines(out, s, i, "", 1);
            fprintf(out, "</ul>\n");
        }
        for (uint32_t k = 0; k < s->n && !any; k++)
            any = repeat_left_out(s, i, k);
        if (!any)
            continue;
        svg_escaped(out, "<p class=\"warn\">Phase ", first->phases[i].name,
                    ": left out of the statistics</p>\n<ul class=\"left-out\">\n");
        left_out_lines(out, s, i, "", 1, base);
        fprintf(out, "</ul>\n");
    }
    svg_page_end(out);
    free(x);
}
