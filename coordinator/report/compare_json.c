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

struct jc {
    int failed;
};

static void put(struct jc *b, json_t *obj, const char *key, json_t *v)
{
    if (!obj || !v || json_object_set_new(obj, key, v) != 0) {
        b->failed = 1;
        if (!obj)
            json_decref(v);
    }
}

static void push(struct jc *b, json_t *arr, json_t *v)
{
    if (!arr || !v || json_array_append_new(arr, v) != 0) {
        b->failed = 1;
        if (!arr)
            json_decref(v);
    }
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *cell_json(struct jc *b, const struct compare_cell *cell)
{
    json_t *o = json_object(), *ci = json_array();

    put(b, o, "n", json_integer(cell->n));
    put(b, o, "mean", jnum(cell->mean));
    put(b, o, "sd", jnum(cell->sd));
    push(b, ci, jnum(cell->ci95_lo));
    push(b, ci, jnum(cell->ci95_hi));
    put(b, o, "ci95", ci);
    put(b, o, "ci95_clamped", json_boolean(cell->ci95_clamped != 0));
    put(b, o, "left_out", json_integer(cell->nleft));
    put(b, o, "ratio", jnum(cell->ratio));
    {
        json_t *rci = json_array();
        push(b, rci, jnum(cell->ratio_lo));
        push(b, rci, jnum(cell->ratio_hi));
        put(b, o, "ratio_ci95", rci);
    }
    put(b, o, "p", jnum(cell->p));
    put(b, o, "mark", cell->mark == CMP_MARK_NONE ? json_null() : json_string(compare_mark_name(cell->mark)));
    put(b, o, "verdict", json_string(compare_verdict_name(cell->verdict)));
    return o;
}

static json_t *metric_json(struct jc *b, const struct compare *c, uint32_t i, int op, int m)
{
    json_t *o = json_object(), *in = json_array();

    put(b, o, "op", op < 0 ? json_null() : json_string(op_type_name((enum op_type)op)));
    put(b, o, "metric", json_string(compare_metric_key(op, m)));
    put(b, o, "higher_is_better", json_boolean(compare_higher_is_better(op, m)));
    for (uint32_t j = 0; j < c->nruns; j++) {
        struct compare_cell cell;

        compare_cell(c, i, j, op, m, &cell);
        push(b, in, cell_json(b, &cell));
    }
    put(b, o, "inputs", in);
    return o;
}

static json_t *phase_json(struct jc *b, const struct compare *c, uint32_t i)
{
    const struct compare_row *row = &c->rows[i];
    json_t *o = json_object(), *present = json_array(), *ms = json_array(), *hl = json_object();
    int hop = compare_headline_op(c, i);

    put(b, o, "name", json_string(row->name));
    put(b, o, "rw", json_string(rw_mode_name(row->rw)));
    put(b, o, "bs", json_integer((json_int_t)row->bs));
    put(b, o, "matched", json_boolean(row->nmissing == 0));
    for (uint32_t j = 0; j < c->nruns; j++)
        push(b, present, json_boolean(row->idx[j] >= 0));
    put(b, o, "present", present);
    put(b, hl, "op", hop < 0 ? json_null() : json_string(op_type_name((enum op_type)hop)));
    put(b, hl, "metric", json_string(compare_metric_key(hop, CMP_IOPS)));
    put(b, o, "headline", hl);
    for (int op = 0; op < OP__COUNT; op++) {
        if (!compare_row_has_op(c, i, op))
            continue;
        for (int m = 0; m < CMP__PER_OP; m++)
            push(b, ms, metric_json(b, c, i, op, m));
    }
    push(b, ms, metric_json(b, c, i, -1, CMP_JAIN));
    put(b, o, "metrics", ms);
    {
        /* each input's repetitions left out of the row, and why */
        json_t *lo = json_array();
        for (uint32_t j = 0; j < c->nruns; j++) {
            char line[1024];
            json_t *e;

            if (!compare_left_out_line(c, i, j, line, sizeof line, 1024))
                continue;
            e = json_object();
            put(b, e, "input", json_integer(j));
            put(b, e, "what", json_string(line));
            push(b, lo, e);
        }
        put(b, o, "left_out", lo);
    }
    return o;
}

/* What differs between the inputs' records: [{"key", "values": [...]}]. */
static json_t *differences_json(struct jc *b, const struct compare *c)
{
    json_t *arr = json_array();

    for (uint32_t k = 0; k < c->diff.nrows; k++) {
        json_t *o = json_object(), *v = json_array();

        put(b, o, "key", json_string(c->diff.rows[k].key));
        for (uint32_t j = 0; j < c->diff.nruns; j++)
            push(b, v, json_string(c->diff.rows[k].values[j]));
        put(b, o, "values", v);
        push(b, arr, o);
    }
    return arr;
}

int compare_json(FILE *out, const struct compare *c, const char *const *paths)
{
    struct jc b = { 0 };
    json_t *root = json_object(), *inputs = json_array(), *phases = json_array();
    int rc = 0;

    put(&b, root, "nfstorm_compare", json_integer(1));
    put(&b, root, "baseline", json_integer(0));
    put(&b, root, "test", json_string("welch"));
    put(&b, root, "alpha", json_real(SAMPLE_ALPHA));
    put(&b, root, "same_within", json_real(COMPARE_SAME_FRAC));
    for (uint32_t j = 0; j < c->nruns; j++) {
        const struct run_result *r0 = &c->sets[j].reps[0];
        json_t *o = json_object();

        put(&b, o, "label", json_string(c->labels[j]));
        put(&b, o, "file", json_string(paths[j]));
        put(&b, o, "repetitions", json_integer(c->sets[j].n));
        put(&b, o, "agents", json_integer(r0->nagents));
        put(&b, o, "phases", json_integer(r0->nphases));
        put(&b, o, "include_failed", json_boolean(c->sets[j].include_failed));
        push(&b, inputs, o);
    }
    put(&b, root, "inputs", inputs);
    put(&b, root, "differences", differences_json(&b, c));
    for (uint32_t i = 0; i < c->nrows; i++)
        push(&b, phases, phase_json(&b, c, i));
    put(&b, root, "phases", phases);
    if (c->nruns && c->sets[0].reps[0].sweeps)
        put(&b, root, "sweeps", compare_sweep_json(c));   /* by job: their phases differ between runs */
    if (b.failed || json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) != 0)
        rc = -ENOMEM;
    else
        fputc('\n', out);
    json_decref(root);
    return rc;
}
