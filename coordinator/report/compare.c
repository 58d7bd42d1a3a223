/* compare: phases side by side across inputs (see compare.h).
 *
 * Design: matching (compare_build) is separate from rendering, and every
 * figure comes out of one accessor (compare_cell: mean, sd, ratio, mark,
 * verdict), so the text, Markdown, CSV, JSON and HTML views and the tests
 * see identical numbers.  Rows follow the first input's phase order, then
 * phases that only later inputs have, in their order.  Ratios are mean /
 * baseline's mean for every metric; the mark turns a ratio into better or
 * worse with the metric's direction.  Significance is Welch's t-test on
 * the per-repetition values (sample_stats), which does not assume equal
 * spreads: two targets rarely have the same noise.  With one repetition on
 * either side there is no spread to test against: "no variance known". */
#include "coordinator/report/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/fairness.h"
#include "coordinator/result/repeat.h"
#include "coordinator/result/sample_stats.h"
#include "coordinator/run/verdict.h"

static int same_phase(const struct phase_result *a, const struct phase_result *b)
{
    return strcmp(a->name, b->name) == 0 && a->rw == b->rw && a->bs == b->bs;
}

void compare_build(struct compare *c, const struct run_set *sets, const char *const *labels, uint32_t n)
{
    char **used = xcalloc(n ? n : 1, sizeof(*used));
    uint32_t cap = 0;

    memset(c, 0, sizeof(*c));
    c->nruns = n;
    c->sets = sets;
    c->labels = labels;
    for (uint32_t j = 0; j < n; j++)
        used[j] = xcalloc(sets[j].reps[0].nphases ? sets[j].reps[0].nphases : 1, 1);
    for (uint32_t j = 0; j < n; j++) {
        const struct run_result *rj = &sets[j].reps[0];

        for (uint32_t i = 0; i < rj->nphases; i++) {
            const struct phase_result *ph = &rj->phases[i];
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
                const struct run_result *ro = &sets[o].reps[0];

                row->idx[o] = -1;
                if (o < j)
                    continue;
                for (uint32_t k = 0; k < ro->nphases; k++)
                    if (!used[o][k] && same_phase(ph, &ro->phases[k])) {
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
    c->rep_state = xcalloc(n ? n : 1, sizeof(*c->rep_state));
    for (uint32_t j = 0; j < n; j++) {
        uint32_t np = sets[j].reps[0].nphases;

        c->rep_state[j] = xcalloc((size_t)sets[j].n * (np ? np : 1), 1);
        for (uint32_t rep = 0; rep < sets[j].n; rep++)
            for (uint32_t i = 0; i < np; i++)
                c->rep_state[j][(size_t)rep * np + i] =
                    repeat_counts(&sets[j], i, rep) ? CMP_REP_COUNTS
                    : repeat_left_out(&sets[j], i, rep) ? CMP_REP_LEFT_OUT : CMP_REP_NONE;
    }
    if (n) {
        const struct run_result **first = xcalloc(n, sizeof(*first));

        for (uint32_t j = 0; j < n; j++)
            first[j] = &sets[j].reps[0];
        run_record_diff(first, n, &c->diff);
        free(first);
    }
}

void compare_free(struct compare *c)
{
    for (uint32_t i = 0; i < c->nrows; i++)
        free(c->rows[i].idx);
    free(c->rows);
    for (uint32_t j = 0; c->rep_state && j < c->nruns; j++)
        free(c->rep_state[j]);
    free(c->rep_state);
    run_record_diff_free(&c->diff);
    memset(c, 0, sizeof(*c));
}

enum compare_rep_state compare_rep_state(const struct compare *c, uint32_t row, uint32_t j, uint32_t rep)
{
    int i = c->rows[row].idx[j];
    const struct run_result *r, *first;

    if (i < 0 || rep >= c->sets[j].n)
        return CMP_REP_NONE;
    r = &c->sets[j].reps[rep];
    first = &c->sets[j].reps[0];
    /* a repetition of the same plan has the same phases; one that does
     * not (a hand-made set) is missing here rather than mismatched.  A
     * searched sweep's point may differ by name (the set's loader lets
     * nothing else differ): its state says it is left out, and why. */
    if ((uint32_t)i >= r->nphases || !r->phases[i].finished ||
        (!same_phase(&r->phases[i], &first->phases[i]) &&
         c->rep_state[j][(size_t)rep * first->nphases + (uint32_t)i] != CMP_REP_LEFT_OUT))
        return CMP_REP_NONE;
    return (enum compare_rep_state)c->rep_state[j][(size_t)rep * first->nphases + (uint32_t)i];
}

/* Value of metric m of op for a repetition's phase, whether or not it counts. */
static double phase_value(const struct run_result *r, uint32_t i, int op, int m)
{
    const struct phase_result *ph = &r->phases[i];
    const struct op_stats *o;

    if (op < 0) {
        double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
        struct fairness f;

        fairness_phase(r, i, share, &f);
        free(share);
        return f.ncounted ? f.jain : NAN;
    }
    if (op >= OP__COUNT)
        return NAN;
    o = &ph->totals.op[op];
    if (o->ops == 0)
        return NAN;
    switch (m) {
    case CMP_IOPS: return result_iops(o, ph->duration_ns);
    case CMP_BW: return result_bw(o, ph->duration_ns);
    /* no op completed: no latency (an empty histogram's 0 is no figure) */
    case CMP_P50: return o->lat.count ? (double)hist_percentile(&o->lat, 50) : NAN;
    case CMP_P99: return o->lat.count ? (double)hist_percentile(&o->lat, 99) : NAN;
    default: return NAN;
    }
}

double compare_rep_value(const struct compare *c, uint32_t row, uint32_t j, uint32_t rep, int op, int m)
{
    if (compare_rep_state(c, row, j, rep) != CMP_REP_COUNTS)
        return NAN;
    return phase_value(&c->sets[j].reps[rep], (uint32_t)c->rows[row].idx[j], op, m);
}

/* Threads of phase i of r: its jobs' threads per agent times the agents
 * taking part (at least 1). */
static uint64_t phase_threads(const struct run_result *r, uint32_t i)
{
    const struct phase_result *ph = &r->phases[i];
    uint64_t agents = 0;

    for (uint32_t a = 0; a < r->nagents; a++)
        agents += ph->agents[a].participating;
    if (!agents)
        agents = r->nagents;
    return (uint64_t)(ph->numjobs ? ph->numjobs : 1) * (agents ? agents : 1);
}

/* The fewest completed (ok) ops per thread of op type op over input j's
 * counted repetitions of row: *ops and *threads of that repetition; 0
 * when none counts. */
static int fewest_ops(const struct compare *c, uint32_t row, uint32_t j, int op, uint64_t *ops, uint64_t *threads)
{
    int found = 0;
    double best = INFINITY;

    for (uint32_t rep = 0; rep < c->sets[j].n; rep++) {
        const struct run_result *r = &c->sets[j].reps[rep];
        uint32_t i = (uint32_t)c->rows[row].idx[j];
        uint64_t n, th;

        if (compare_rep_state(c, row, j, rep) != CMP_REP_COUNTS)
            continue;
        if (op >= 0) {
            n = result_ok_ops(&r->phases[i].totals.op[op]);
        } else {
            struct op_stats all;
            result_all_ops(&r->phases[i].totals, &all);
            n = result_ok_ops(&all);
        }
        th = phase_threads(r, i);
        if ((double)n / (double)th < best) {
            best = (double)n / (double)th;
            *ops = n;
            *threads = th;
            found = 1;
        }
    }
    return found;
}

uint32_t compare_left_out_line(const struct compare *c, uint32_t row, uint32_t j, char *buf, size_t len, int base)
{
    struct verdict *v = NULL;
    uint32_t n = 0;
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t rep = 0; rep < c->sets[j].n && used < len; rep++) {
        const struct run_result *r = &c->sets[j].reps[rep];
        uint32_t i = (uint32_t)c->rows[row].idx[j];
        int any = 0;

        if (compare_rep_state(c, row, j, rep) != CMP_REP_LEFT_OUT)
            continue;
        if (!v)
            v = xmalloc(sizeof *v);
        repeat_verdict(&c->sets[j], i, rep, v);
        used += (size_t)snprintf(buf + used, len - used, "%srepetition %u left out (%s%s%.200s)", n ? "; " : "",
                                 rep + 1, verdict_name(v->v), v->nreasons ? ": " : "",
                                 v->nreasons ? v->reason[0] : "");
        for (int t = 0; t < OP__COUNT && used < len; t++) {
            char val[48];

            if (!r->phases[i].totals.op[t].ops)
                continue;
            compare_fmt_value(val, sizeof val, phase_value(r, i, t, CMP_IOPS), t, CMP_IOPS, base);
            used += (size_t)snprintf(buf + used, len - used, "%s %s IOPS %s", any ? "," : ":",
                                     op_type_name((enum op_type)t), val);
            any = 1;
        }
        n++;
    }
    free(v);
    return n;
}

uint32_t compare_left_out_total(const struct compare *c)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < c->nrows; i++)
        for (uint32_t j = 0; j < c->nruns; j++)
            for (uint32_t rep = 0; rep < c->sets[j].n; rep++)
                n += compare_rep_state(c, i, j, rep) == CMP_REP_LEFT_OUT;
    return n;
}

static void put_text(FILE *out, const char *s, void (*esc)(FILE *out, const char *s))
{
    if (esc)
        esc(out, s);
    else
        fputs(s, out);
}

uint32_t compare_left_out_list(FILE *out, const struct compare *c, int base, const char *head, const char *pre,
                               const char *post, void (*esc)(FILE *out, const char *s))
{
    uint32_t n = compare_left_out_total(c);
    char bs[32], line[1024];

    if (!n)
        return 0;
    fputs(head, out);
    for (uint32_t i = 0; i < c->nrows; i++)
        for (uint32_t j = 0; j < c->nruns; j++)
            if (compare_left_out_line(c, i, j, line, sizeof line, base)) {
                fputs(pre, out);
                put_text(out, c->rows[i].name, esc);
                fprintf(out, " (%s, %s), ", rw_mode_name(c->rows[i].rw), compare_fmt_bs(bs, sizeof bs, c->rows[i].bs));
                put_text(out, c->labels[j], esc);
                fputs(": ", out);
                put_text(out, line, esc);
                fputs(post, out);
            }
    return n;
}

/* Input j's values (the repetitions that have one) into a fresh array. */
static double *rep_values(const struct compare *c, uint32_t row, uint32_t j, int op, int m, uint32_t *n)
{
    double *v = xcalloc(c->sets[j].n, sizeof(*v));

    *n = 0;
    for (uint32_t r = 0; r < c->sets[j].n; r++) {
        double x = compare_rep_value(c, row, j, r, op, m);

        if (!isnan(x))
            v[(*n)++] = x;
    }
    return v;
}

int compare_higher_is_better(int op, int m)
{
    return op < 0 || m == CMP_IOPS || m == CMP_BW;
}

/* The 95% interval of mean(a) / mean(b): on the log scale the ratio is a
 * difference, whose standard error by the delta method is
 * sqrt(sd_a^2 / (n_a mean_a^2) + sd_b^2 / (n_b mean_b^2)); with Welch's
 * degrees of freedom for those two variances, the interval is
 * ratio * exp(-/+ t se).  It never leaves (0, inf), as a ratio cannot, and
 * is what a "ratio to the baseline" chart draws. */
static void ratio_interval(const struct sample_summary *a, const struct sample_summary *b,
                           struct compare_cell *out)
{
    double va, vb, se, df, t;

    if (a->n < 2 || b->n < 2 || !(a->mean > 0) || !(b->mean > 0) || isnan(a->sd) || isnan(b->sd))
        return;
    va = a->sd * a->sd / (a->n * a->mean * a->mean);
    vb = b->sd * b->sd / (b->n * b->mean * b->mean);
    se = sqrt(va + vb);
    if (se == 0) {
        out->ratio_lo = out->ratio_hi = a->mean / b->mean;
        return;
    }
    df = (va + vb) * (va + vb) / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
    t = sample_t_quantile(0.975, df);
    out->ratio_lo = a->mean / b->mean * exp(-t * se);
    out->ratio_hi = a->mean / b->mean * exp(t * se);
}

void compare_cell(const struct compare *c, uint32_t row, uint32_t j, int op, int m, struct compare_cell *out)
{
    uint32_t n, nb;
    double *v = rep_values(c, row, j, op, m, &n), *b;
    struct sample_summary s, sb;

    sample_summarize(v, n, &s);
    /* every metric is >= 0, Jain at most 1: the interval stays in range */
    sample_clamp_ci(&s, 0, op < 0 ? 1.0 : INFINITY);
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->mean = n ? s.mean : NAN;
    out->sd = n >= 2 ? s.sd : NAN;
    out->ci95_lo = n >= 2 ? s.ci95_lo : NAN;
    out->ci95_hi = n >= 2 ? s.ci95_hi : NAN;
    out->ci95_clamped = s.ci95_clamped;
    out->ratio = out->p = out->ratio_lo = out->ratio_hi = NAN;
    out->mark = CMP_MARK_NONE;
    for (uint32_t rep = 0; rep < c->sets[j].n; rep++)
        out->nleft += compare_rep_state(c, row, j, rep) == CMP_REP_LEFT_OUT;
    if (n == 0) {
        out->verdict = out->nleft ? CMP_V_LEFT_OUT : CMP_V_MISSING;
        free(v);
        return;
    }
    if (j == 0) {
        out->verdict = CMP_V_BASELINE;
        free(v);
        return;
    }
    b = rep_values(c, row, 0, op, m, &nb);
    sample_summarize(b, nb, &sb);
    if (nb == 0) {
        out->verdict = CMP_V_MISSING;
    } else {
        struct welch_result w;

        if (sb.mean != 0)
            out->ratio = s.mean / sb.mean;
        ratio_interval(&s, &sb, out);
        if (fabs(s.mean - sb.mean) <= COMPARE_SAME_FRAC * fabs(sb.mean))
            out->mark = CMP_MARK_SAME;
        else
            out->mark = (s.mean > sb.mean) == compare_higher_is_better(op, m) ? CMP_MARK_BETTER : CMP_MARK_WORSE;
        uint64_t ops = 0, th = 1, opsb = 0, thb = 1;
        int few = fewest_ops(c, row, j, op, &ops, &th) && ops < COMPARE_MIN_OPS_PER_THREAD * th;
        int fewb = fewest_ops(c, row, 0, op, &opsb, &thb) && opsb < COMPARE_MIN_OPS_PER_THREAD * thb;

        if (few || fewb) {
            /* the worse of the two sides is named */
            out->min_ops = few && (!fewb || (double)ops / th <= (double)opsb / thb) ? ops : opsb;
            out->threads = (uint32_t)(few && (!fewb || (double)ops / th <= (double)opsb / thb) ? th : thb);
            out->verdict = CMP_V_TOO_FEW_OPS;
        } else if (n < 2 || nb < 2 || sample_welch(v, n, b, nb, &w) < 0 || isnan(w.p)) {
            out->verdict = CMP_V_NO_VARIANCE;
        } else {
            out->p = w.p;
            out->verdict = w.p < SAMPLE_ALPHA ? CMP_V_SIGNIFICANT : CMP_V_NOISE;
        }
    }
    free(b);
    free(v);
}

int compare_row_has_op(const struct compare *c, uint32_t row, int t)
{
    /* a left-out repetition's ops count too: the row then says "failed,
     * left out" rather than vanish */
    for (uint32_t j = 0; j < c->nruns; j++)
        for (uint32_t rep = 0; rep < c->sets[j].n; rep++)
            if (compare_rep_state(c, row, j, rep) != CMP_REP_NONE &&
                !isnan(phase_value(&c->sets[j].reps[rep], (uint32_t)c->rows[row].idx[j], t, CMP_IOPS)))
                return 1;
    return 0;
}

int compare_headline_op(const struct compare *c, uint32_t row)
{
    const struct compare_row *rw = &c->rows[row];

    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct phase_result *ph;
        int best = -1;

        if (rw->idx[j] < 0)
            continue;
        ph = &c->sets[j].reps[0].phases[rw->idx[j]];
        for (int t = 0; t < OP__COUNT; t++)
            if (ph->totals.op[t].ops > 0 && (best < 0 || ph->totals.op[t].ops > ph->totals.op[best].ops))
                best = t;
        if (best >= 0)
            return best;
    }
    return -1;
}

int compare_metric_next(const struct compare *c, uint32_t row, int *op, int *m)
{
    if (*op >= 0 && ++*m < CMP__PER_OP)
        return 1;
    *m = 0;
    if (*op == -1)
        return 0;            /* Jain was the last */
    for (int t = *op < 0 ? 0 : *op + 1; t < OP__COUNT; t++)
        if (compare_row_has_op(c, row, t)) {
            *op = t;
            return 1;
        }
    *op = -1;
    return 1;
}

static const char *const metric_label[CMP__PER_OP] = { "IOPS", "BW", "p50", "p99" };
static const char *const metric_keys[CMP__PER_OP] = { "iops", "bw_bytes", "lat_p50_ns", "lat_p99_ns" };

const char *compare_metric_name(int op, int m)
{
    return op < 0 ? "Jain" : m >= 0 && m < CMP__PER_OP ? metric_label[m] : "?";
}

const char *compare_metric_key(int op, int m)
{
    return op < 0 ? "jain" : m >= 0 && m < CMP__PER_OP ? metric_keys[m] : "?";
}

const char *compare_mark_name(enum compare_mark k)
{
    switch (k) {
    case CMP_MARK_BETTER: return "better";
    case CMP_MARK_WORSE: return "worse";
    case CMP_MARK_SAME: return "same";
    default: return "";
    }
}

const char *compare_verdict_name(enum compare_verdict v)
{
    switch (v) {
    case CMP_V_BASELINE: return "baseline";
    case CMP_V_SIGNIFICANT: return "significant";
    case CMP_V_NOISE: return "within noise";
    case CMP_V_NO_VARIANCE: return "no variance known";
    case CMP_V_LEFT_OUT: return "failed, left out";
    case CMP_V_TOO_FEW_OPS: return "too few ops to judge";
    default: return "missing";
    }
}

void compare_bs_insert(uint64_t *bs, uint32_t *n, uint64_t b)
{
    uint32_t p;

    for (p = 0; p < *n && bs[p] < b; p++)
        ;
    if (p < *n && bs[p] == b)
        return;
    memmove(&bs[p + 1], &bs[p], (*n - p) * sizeof(*bs));
    bs[p] = b;
    (*n)++;
}

char *compare_fmt_bs(char *buf, size_t len, uint64_t bs)
{
    static const char suffix[] = "kmgtp";
    int k = -1;

    while (bs >= 1024 && bs % 1024 == 0 && k < 4) {
        bs /= 1024;
        k++;
    }
    if (k < 0)
        snprintf(buf, len, "%llu", (unsigned long long)bs);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bs, suffix[k]);
    return buf;
}

void compare_fmt_value(char *buf, size_t len, double v, int op, int m, int base)
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

void compare_fmt_metric(char *buf, size_t len, int op, int m)
{
    if (op < 0)
        snprintf(buf, len, "Jain");
    else
        snprintf(buf, len, "%s %s", op_type_name((enum op_type)op), compare_metric_name(op, m));
}

void compare_fmt_mean(char *buf, size_t len, const struct compare_cell *cell, int op, int m, int base)
{
    char v[48], sd[48];

    compare_fmt_value(v, sizeof(v), cell->mean, op, m, base);
    if (cell->n >= 2 && !isnan(cell->sd)) {
        compare_fmt_value(sd, sizeof(sd), cell->sd, op, m, base);
        snprintf(buf, len, "%s \u00b1%s", v, sd);
    } else {
        snprintf(buf, len, "%s", v);
    }
}

void compare_fmt_change(char *buf, size_t len, const struct compare_cell *cell)
{
    if (cell->verdict == CMP_V_BASELINE)
        snprintf(buf, len, "%s", "");
    else if (isnan(cell->ratio))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2fx %s", cell->ratio, compare_mark_name(cell->mark));
}

void compare_fmt_verdict(char *buf, size_t len, const struct compare_cell *cell)
{
    switch (cell->verdict) {
    case CMP_V_SIGNIFICANT:
    case CMP_V_NOISE:
        if (cell->p < 0.001)
            snprintf(buf, len, "%s (p<0.001)", compare_verdict_name(cell->verdict));
        else
            snprintf(buf, len, "%s (p=%.3f)", compare_verdict_name(cell->verdict), cell->p);
        break;
    case CMP_V_MISSING:
        snprintf(buf, len, "-");
        break;
    case CMP_V_TOO_FEW_OPS:
        snprintf(buf, len, "%s (%llu op%s on %u thread%s)", compare_verdict_name(cell->verdict),
                 (unsigned long long)cell->min_ops, cell->min_ops == 1 ? "" : "s", cell->threads,
                 cell->threads == 1 ? "" : "s");
        break;
    default:
        snprintf(buf, len, "%s", compare_verdict_name(cell->verdict));
    }
}

int compare_parse_format(const char *s, enum compare_format *f)
{
    static const char *const names[] = { "text", "md", "csv", "html", "json" };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *f = (enum compare_format)i;
            return 0;
        }
    return -EINVAL;
}
