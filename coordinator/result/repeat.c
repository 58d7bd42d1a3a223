/* repeat: the figures of a repeat set and its JSON file (repeat.h).
 *
 * Design: every figure is taken from the repetitions' own phase totals
 * with result.c's helpers (result_iops, result_bw, hist_percentile), the
 * same numbers each repetition's report and JSON show, so a script can
 * recompute the summary from the embedded results and get the same means.
 * The file embeds each repetition exactly as --json writes one run
 * (report_json_build), then the summary; NAN (no spread known with one
 * value) is written as null, never as a made-up 0. */
#include "coordinator/result/repeat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/xmalloc.h"
#include "coordinator/report/report_json.h"
#include "coordinator/result/sample_stats.h"
#include "coordinator/run/verdict.h"
#include "coordinator/report/jint.h"

const char *repeat_metric_key(enum repeat_metric m)
{
    static const char *const keys[REPEAT__METRICS] = { "iops", "bw_bytes", "lat_p50_ns", "lat_p99_ns" };
    return (unsigned)m < REPEAT__METRICS ? keys[m] : "?";
}

/* 1 when phase of repetition k has figures at all. */
static int has_figures(const struct run_set *s, uint32_t phase, uint32_t k)
{
    return k < s->n && phase < s->reps[k].nphases && s->reps[k].phases[phase].finished;
}

static enum verdict_kind phase_verdict(const struct run_result *r, uint32_t phase)
{
    struct verdict *v = xmalloc(sizeof *v);
    enum verdict_kind kind;

    verdict_phase(r, phase, v);
    kind = v->v;
    free(v);
    return kind;
}

/* 1 when repetition k ran another value than repetition 0 at this sweep
 * point (result_set.c lets only a sweep's points differ): its figures are
 * another workload's, never averaged with the first's. */
static int other_point(const struct run_set *s, uint32_t phase, uint32_t k)
{
    return k > 0 && strcmp(s->reps[k].phases[phase].name, s->reps[0].phases[phase].name) != 0;
}

void repeat_verdict(const struct run_set *s, uint32_t phase, uint32_t k, struct verdict *v)
{
    verdict_phase(&s->reps[k], phase, v);
    if (!has_figures(s, phase, k) || !other_point(s, phase, k))
        return;
    v->nreasons = 1;
    v->severity[0] = (uint8_t)v->v;
    snprintf(v->reason[0], sizeof v->reason[0], "its sweep searched another point here: %.100s, not %.100s",
             s->reps[k].phases[phase].name, s->reps[0].phases[phase].name);
}

int repeat_counts(const struct run_set *s, uint32_t phase, uint32_t k)
{
    if (!has_figures(s, phase, k) || other_point(s, phase, k) || !verdict_phase_finished(&s->reps[k], phase))
        return 0;
    return s->include_failed || phase_verdict(&s->reps[k], phase) == VERDICT_OK;
}

int repeat_left_out(const struct run_set *s, uint32_t phase, uint32_t k)
{
    return has_figures(s, phase, k) && !repeat_counts(s, phase, k);
}

void repeat_metric_range(enum repeat_metric m, double *min, double *max)
{
    (void)m;      /* every metric is a rate or a time */
    *min = 0;
    *max = INFINITY;
}

int repeat_has_op(const struct run_set *s, uint32_t phase, enum op_type t)
{
    for (uint32_t k = 0; k < s->n; k++)
        if (has_figures(s, phase, k) && s->reps[k].phases[phase].totals.op[t].ops > 0)
            return 1;     /* (left out or not: its row shows what was left out) */
    return 0;
}

static double metric_of(const struct phase_result *ph, enum op_type t, enum repeat_metric m)
{
    const struct op_stats *o = &ph->totals.op[t];

    switch (m) {
    case REPEAT_IOPS:
        return result_iops(o, ph->duration_ns);
    case REPEAT_BW:
        return result_bw(o, ph->duration_ns);
    case REPEAT_P50:
        return (double)hist_percentile(&o->lat, 50.0);
    case REPEAT_P99:
        return (double)hist_percentile(&o->lat, 99.0);
    default:
        return NAN;
    }
}

/* 1 when the metric has a value in ph: a latency needs a timed op (a
 * repetition in which no op of type t completed has no latency, and its
 * empty histogram's percentile, 0, is no figure). */
static int has_sample(const struct phase_result *ph, enum op_type t, enum repeat_metric m)
{
    return (m != REPEAT_P50 && m != REPEAT_P99) || ph->totals.op[t].lat.count > 0;
}

uint32_t repeat_no_sample(const struct run_set *s, uint32_t phase, enum op_type t, enum repeat_metric m,
                          uint32_t *rep)
{
    uint32_t n = 0;

    for (uint32_t k = 0; k < s->n; k++)
        if (repeat_counts(s, phase, k) && !has_sample(&s->reps[k].phases[phase], t, m))
            rep[n++] = k;
    return n;
}

uint32_t repeat_values(const struct run_set *s, uint32_t phase, enum op_type t, enum repeat_metric m,
                       double *x, uint32_t *rep)
{
    uint32_t n = 0;

    for (uint32_t k = 0; k < s->n; k++) {
        if (!repeat_counts(s, phase, k) || !has_sample(&s->reps[k].phases[phase], t, m))
            continue;
        x[n] = metric_of(&s->reps[k].phases[phase], t, m);
        if (rep)
            rep[n] = k;
        n++;
    }
    return n;
}

/* repeat_values over the repetitions left out (repeat_left_out), NAN
 * where the phase has no ops of type t. */
static uint32_t left_values(const struct run_set *s, uint32_t phase, enum op_type t, enum repeat_metric m,
                            double *x, uint32_t *rep)
{
    uint32_t n = 0;

    for (uint32_t k = 0; k < s->n; k++) {
        const struct phase_result *ph;

        if (!repeat_left_out(s, phase, k))
            continue;
        ph = &s->reps[k].phases[phase];
        x[n] = ph->totals.op[t].ops && has_sample(ph, t, m) ? metric_of(ph, t, m) : NAN;
        if (rep)
            rep[n] = k;
        n++;
    }
    return n;
}

/* The exit statuses of verdict_exit_status, least severe first: ok,
 * partial, failed, interrupted; any other is worse than all of them. */
static int severity(int status)
{
    static const int order[] = { 0, 3, 1, 130 };
    int i = 0;

    while (i < 4 && order[i] != status)
        i++;
    return i;
}

int repeat_worse_status(int a, int b)
{
    return severity(b) > severity(a) ? b : a;
}

int repeat_exit_status(const struct run_set *s)
{
    int status = 0;

    for (uint32_t k = 0; k < s->n; k++)
        status = repeat_worse_status(status, verdict_exit_status(verdict_run(&s->reps[k])));
    if (s->not_started)
        status = repeat_worse_status(status, verdict_exit_status(VERDICT_FAILED));
    return s->interrupted ? repeat_worse_status(status, verdict_exit_status(VERDICT_INTERRUPTED)) : status;
}

char *repeat_file_name(char *buf, size_t len, const char *path, uint32_t k)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');

    if (!dot || dot == base)
        snprintf(buf, len, "%s.rep%u", path, k);
    else
        snprintf(buf, len, "%.*s.rep%u%s", (int)(dot - path), path, k, dot);
    return buf;
}

/* ---- the set file ---- */

/* {"n", "mean", "sd", "ci95": [lo, hi] or null, "ci95_clamped", "values",
 * "repetitions": [1-based], "left_out_values", "left_out_repetitions",
 * and for latencies "no_latency_repetitions"} */
static json_t *metric_json(struct jb *b, const struct run_set *s, uint32_t phase, enum op_type t,
                           enum repeat_metric m, double *x, uint32_t *rep)
{
    uint32_t n = repeat_values(s, phase, t, m, x, rep), nl;
    struct sample_summary sum;
    json_t *j = json_object(), *vals = json_array(), *reps = json_array();
    json_t *lvals = json_array(), *lreps = json_array();
    double lo, hi;

    sample_summarize(x, n, &sum);
    repeat_metric_range(m, &lo, &hi);
    sample_clamp_ci(&sum, lo, hi);
    jb_put(b, j, "n", json_integer(n));
    jb_put(b, j, "mean", jreal_or_null(sum.mean));
    jb_put(b, j, "sd", jreal_or_null(sum.sd));
    if (isfinite(sum.ci95_lo) && isfinite(sum.ci95_hi)) {
        json_t *ci = json_array();
        jb_push(b, ci, json_real(sum.ci95_lo));
        jb_push(b, ci, json_real(sum.ci95_hi));
        jb_put(b, j, "ci95", ci);
    } else {
        jb_put(b, j, "ci95", json_null());
    }
    jb_put(b, j, "ci95_clamped", json_boolean(sum.ci95_clamped != 0));
    for (uint32_t i = 0; i < n; i++) {
        jb_push(b, vals, json_real(x[i]));
        jb_push(b, reps, json_integer(rep[i] + 1));
    }
    jb_put(b, j, "values", vals);
    jb_put(b, j, "repetitions", reps);
    nl = left_values(s, phase, t, m, x, rep);
    for (uint32_t i = 0; i < nl; i++) {
        jb_push(b, lvals, jreal_or_null(x[i]));
        jb_push(b, lreps, json_integer(rep[i] + 1));
    }
    jb_put(b, j, "left_out_values", lvals);
    jb_put(b, j, "left_out_repetitions", lreps);
    if (m == REPEAT_P50 || m == REPEAT_P99) {
        json_t *ns = json_array();

        nl = repeat_no_sample(s, phase, t, m, rep);
        for (uint32_t i = 0; i < nl; i++)
            jb_push(b, ns, json_integer(rep[i] + 1));
        jb_put(b, j, "no_latency_repetitions", ns);
    }
    return j;
}

static json_t *summary_json(struct jb *b, const struct run_set *s)
{
    json_t *sum = json_object(), *phases = json_array();
    const struct run_result *first = &s->reps[0];
    double *x = xcalloc(s->n, sizeof *x);
    uint32_t *rep = xcalloc(s->n, sizeof *rep);
    struct verdict *v = xmalloc(sizeof *v);

    for (uint32_t i = 0; i < first->nphases; i++) {
        const struct phase_result *ph = &first->phases[i];
        json_t *pj = json_object(), *ops = json_object(), *verdicts = json_array(), *left = json_array();

        jb_put(b, pj, "name", json_string(ph->name));
        jb_put(b, pj, "rw", json_string(rw_mode_name(ph->rw)));
        jb_put(b, pj, "bs", json_integer((json_int_t)ph->bs));
        for (int t = 0; t < OP__COUNT; t++) {
            json_t *oj;

            if (!repeat_has_op(s, i, (enum op_type)t))
                continue;
            oj = json_object();
            for (int m = 0; m < REPEAT__METRICS; m++)
                jb_put(b, oj, repeat_metric_key((enum repeat_metric)m),
                    metric_json(b, s, i, (enum op_type)t, (enum repeat_metric)m, x, rep));
            jb_put(b, ops, op_type_name((enum op_type)t), oj);
        }
        jb_put(b, pj, "ops", ops);
        for (uint32_t k = 0; k < s->n; k++) {
            repeat_verdict(s, i, k, v);
            jb_push(b, verdicts, json_string(verdict_name(v->v)));
            if (repeat_left_out(s, i, k)) {
                json_t *lj = json_object();
                jb_put(b, lj, "repetition", json_integer(k + 1));
                jb_put(b, lj, "verdict", json_string(verdict_name(v->v)));
                jb_put(b, lj, "reason", json_string(v->nreasons ? v->reason[0] : ""));
                jb_push(b, left, lj);
            }
        }
        jb_put(b, pj, "verdicts", verdicts);
        jb_put(b, pj, "left_out", left);
        jb_push(b, phases, pj);
    }
    jb_put(b, sum, "include_failed", json_boolean(s->include_failed));
    jb_put(b, sum, "phases", phases);
    free(v);
    free(rep);
    free(x);
    return sum;
}

json_t *repeat_set_json(const struct run_set *s)
{
    struct jb b = { 0 };
    json_t *root = json_object(), *reps = json_array();
    int status = repeat_exit_status(s);
    enum verdict_kind worst = VERDICT_OK;

    for (uint32_t k = 0; k < s->n; k++) {
        enum verdict_kind v = verdict_run(&s->reps[k]);
        if (v > worst)
            worst = v;
    }
    if (s->not_started && worst < VERDICT_FAILED)
        worst = VERDICT_FAILED;         /* the set did not do what was asked */
    if (s->interrupted)
        worst = VERDICT_INTERRUPTED;
    jb_put(&b, root, "nfstorm_repeat_set", json_integer(1));
    jb_put(&b, root, "repeat", json_integer(s->requested ? s->requested : s->n));
    jb_put(&b, root, "repeat_interval_s", json_real((double)s->interval_ns / 1e9));
    jb_put(&b, root, "completed", json_integer(s->n));
    jb_put(&b, root, "interrupted", json_boolean(s->interrupted));
    jb_put(&b, root, "label", json_string(s->n ? s->reps[0].label : ""));
    jb_put(&b, root, "target", json_string(s->target));
    jb_put(&b, root, "verdict", json_string(verdict_name(worst)));
    jb_put(&b, root, "exit_status", json_integer(status));
    if (s->not_started)
        jb_put(&b, root, "not_started", json_integer(s->not_started));
    for (uint32_t k = 0; k < s->n; k++)
        jb_push(&b, reps, report_json_build(&s->reps[k]));
    jb_put(&b, root, "repetitions", reps);
    if (s->n)
        jb_put(&b, root, "summary", summary_json(&b, s));
    if (b.failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int repeat_set_write(const char *path, const struct run_set *s)
{
    json_t *root = repeat_set_json(s);
    int rc;

    if (!root)
        return -ENOMEM;
    rc = report_json_write_tree(path, root);
    json_decref(root);
    return rc;
}
