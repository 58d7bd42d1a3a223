/* compare_csv: the comparison as CSV for spreadsheets (see compare.h).
 *
 * Long form: a header row, then one row per (phase, op type, metric,
 * input) with the raw figures (IOPS, bytes/s, ns, Jain index), so no unit
 * has to be parsed back.  An unknown figure is an empty field. */
#include "coordinator/report/compare.h"

#include <math.h>

#include "coordinator/report/csv.h"

static void num(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, "%.10g", v);
}

void compare_csv(FILE *out, const struct compare *c, const char *const *paths)
{
    char bs[32];

    (void)paths;
    fprintf(out, "row,phase,rw,bs,op,metric,input,label,n,value,sd,ci95_lo,ci95_hi,ratio,p,mark,verdict,"
            "ci95_clamped,left_out\n");
    for (uint32_t i = 0; i < c->nrows; i++)
        for (int t = -2, m = 0; compare_metric_next(c, i, &t, &m);)   /* Jain last, once per phase */
            for (uint32_t j = 0; j < c->nruns; j++) {
                struct compare_cell cell;

                compare_cell(c, i, j, t, m, &cell);
                fprintf(out, "%u,", i);
                csv_field(out, c->rows[i].name);
                fprintf(out, ",%s,%s,%s,%s,%u,", rw_mode_name(c->rows[i].rw),
                        compare_fmt_bs(bs, sizeof(bs), c->rows[i].bs),
                        t < 0 ? "" : op_type_name((enum op_type)t), compare_metric_key(t, m), j);
                csv_field(out, c->labels[j]);
                fprintf(out, ",%u", cell.n);
                num(out, cell.mean);
                num(out, cell.sd);
                num(out, cell.ci95_lo);
                num(out, cell.ci95_hi);
                num(out, cell.ratio);
                num(out, cell.p);
                fprintf(out, ",%s,%s,%d,%u\n", compare_mark_name(cell.mark), compare_verdict_name(cell.verdict),
                        cell.ci95_clamped != 0, cell.nleft);
            }
    compare_sweep_csv(out, c);   /* sweeps by job: their phases differ between runs */
}
