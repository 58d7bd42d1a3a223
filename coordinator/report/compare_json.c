/* compare_json: the comparison as JSON for scripts (schema in
 * docs/reports.md, "nfstorm_compare": 1).
 *
 * Design: built as a jansson tree and dumped once; a figure that is not
 * known (missing phase, no spread with one repetition, no ratio against a
 * zero baseline) is null, never NaN (which is not JSON).  Allocation
 * failures are folded into one flag, as report_json.c does, and fail the
 * whole document rather than dropping keys. */
#include "coordinator/report/compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "coordinator/result/sample_stats.h"
#include "coordinator/report/jint.h"

/* An interval as [lo, hi], null where an end is not known. */
static json_t *interval_json(double lo, double hi)
{
    return json_pack("[oo]", jreal_or_null(lo), jreal_or_null(hi));
}

static json_t *cell_json(struct jb *b, const struct compare_cell *cell)
{
    json_t *o = json_object();

    jb_put(b, o, "n", json_integer(cell->n));
    jb_put(b, o, "mean", jreal_or_null(cell->mean));
    jb_put(b, o, "sd", jreal_or_null(cell->sd));
    jb_put(b, o, "ci95", interval_json(cell->ci95_lo, cell->ci95_hi));
    jb_put(b, o, "ci95_clamped", json_boolean(cell->ci95_clamped != 0));
    jb_put(b, o, "left_out", json_integer(cell->nleft));
    jb_put(b, o, "ratio", jreal_or_null(cell->ratio));
    jb_put(b, o, "ratio_ci95", interval_json(cell->ratio_lo, cell->ratio_hi));
    jb_put(b, o, "p", jreal_or_null(cell->p));
    jb_put(b, o, "mark", cell->mark == CMP_MARK_NONE ? json_null() : json_string(compare_mark_name(cell->mark)));
    jb_put(b, o, "verdict", json_string(compare_verdict_name(cell->verdict)));
    return o;
}

static json_t *metric_json(struct jb *b, const struct compare *c, uint32_t i, int op, int m)
{
    json_t *o = json_object(), *in = json_array();

    jb_put(b, o, "op", op < 0 ? json_null() : json_string(op_type_name((enum op_type)op)));
    jb_put(b, o, "metric", json_string(compare_metric_key(op, m)));
    jb_put(b, o, "higher_is_better", json_boolean(compare_higher_is_better(op, m)));
    for (uint32_t j = 0; j < c->nruns; j++) {
        struct compare_cell cell;

        compare_cell(c, i, j, op, m, &cell);
        jb_push(b, in, cell_json(b, &cell));
    }
    jb_put(b, o, "inputs", in);
    return o;
}

static json_t *phase_json(struct jb *b, const struct compare *c, uint32_t i)
{
    const struct compare_row *row = &c->rows[i];
    json_t *o = json_object(), *present = json_array(), *ms = json_array(), *hl = json_object();
    int hop = compare_headline_op(c, i);

    jb_put(b, o, "name", json_string(row->name));
    jb_put(b, o, "rw", json_string(rw_mode_name(row->rw)));
    jb_put(b, o, "bs", json_integer((json_int_t)row->bs));
    jb_put(b, o, "matched", json_boolean(row->nmissing == 0));
    for (uint32_t j = 0; j < c->nruns; j++)
        jb_push(b, present, json_boolean(row->idx[j] >= 0));
    jb_put(b, o, "present", present);
    jb_put(b, hl, "op", hop < 0 ? json_null() : json_string(op_type_name((enum op_type)hop)));
    jb_put(b, hl, "metric", json_string(compare_metric_key(hop, CMP_IOPS)));
    jb_put(b, o, "headline", hl);
    for (int op = -2, m = 0; compare_metric_next(c, i, &op, &m);)
        jb_push(b, ms, metric_json(b, c, i, op, m));
    jb_put(b, o, "metrics", ms);
    {
        /* each input's repetitions left out of the row, and why */
        json_t *lo = json_array();
        for (uint32_t j = 0; j < c->nruns; j++) {
            char line[1024];
            json_t *e;

            if (!compare_left_out_line(c, i, j, line, sizeof line, 1024))
                continue;
            e = json_object();
            jb_put(b, e, "input", json_integer(j));
            jb_put(b, e, "what", json_string(line));
            jb_push(b, lo, e);
        }
        jb_put(b, o, "left_out", lo);
    }
    return o;
}

/* What differs between the inputs' records: [{"key", "values": [...]}]. */
static json_t *differences_json(struct jb *b, const struct compare *c)
{
    json_t *arr = json_array();

    for (uint32_t k = 0; k < c->diff.nrows; k++) {
        json_t *o = json_object(), *v = json_array();

        jb_put(b, o, "key", json_string(c->diff.rows[k].key));
        for (uint32_t j = 0; j < c->diff.nruns; j++)
            jb_push(b, v, json_string(c->diff.rows[k].values[j]));
        jb_put(b, o, "values", v);
        jb_push(b, arr, o);
    }
    return arr;
}

int compare_json(FILE *out, const struct compare *c, const char *const *paths)
{
    struct jb b = { 0 };
    json_t *root = json_object(), *inputs = json_array(), *phases = json_array();
    int rc = 0;

    jb_put(&b, root, "nfstorm_compare", json_integer(1));
    jb_put(&b, root, "baseline", json_integer(0));
    jb_put(&b, root, "test", json_string("welch"));
    jb_put(&b, root, "alpha", json_real(SAMPLE_ALPHA));
    jb_put(&b, root, "same_within", json_real(COMPARE_SAME_FRAC));
    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r0 = &c->sets[j].reps[0];
        json_t *o = json_object();

        jb_put(&b, o, "label", json_string(c->labels[j]));
        jb_put(&b, o, "file", json_string(paths[j]));
        jb_put(&b, o, "repetitions", json_integer(c->sets[j].n));
        jb_put(&b, o, "agents", json_integer(r0->nagents));
        jb_put(&b, o, "phases", json_integer(r0->nphases));
        jb_put(&b, o, "include_failed", json_boolean(c->sets[j].include_failed));
        jb_push(&b, inputs, o);
    }
    jb_put(&b, root, "inputs", inputs);
    jb_put(&b, root, "differences", differences_json(&b, c));
    for (uint32_t i = 0; i < c->nrows; i++)
        jb_push(&b, phases, phase_json(&b, c, i));
    jb_put(&b, root, "phases", phases);
    if (c->nruns && c->sets[0].reps[0].sweeps)
        jb_put(&b, root, "sweeps", compare_sweep_json(c));   /* by job: their phases differ between runs */
    if (b.failed || json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) != 0)
        rc = -ENOMEM;
    else
        fputc('\n', out);
    json_decref(root);
    return rc;
}
