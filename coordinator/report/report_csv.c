/* report_csv: one row per phase x op type (and per agent), for
 * spreadsheets and scripts.
 *
 * Design: a fixed header (REPORT_CSV_HEADER, documented in docs/results.md)
 * and one row shape for fleet and agent rows, distinguished by the agent
 * column ("all" or the agent id), so a pivot table needs no special cases.
 * Figures come from result.c and fairness.c, like every other report.
 * Numbers are printed with %.17g / integers so nothing is lost. */
#include "coordinator/report/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/csv.h"
#include "coordinator/result/fairness.h"
#include "coordinator/run/verdict.h"

static void row(FILE *out, const struct run_result *r, uint32_t i, const char *agent,
                const char *host, enum op_type t, const struct op_stats *o, uint64_t dur_ns,
                double share, double jain, const char *verdict)
{
    const struct phase_result *ph = &r->phases[i];
    const struct hist *h = &o->lat;

    csv_field(out, r->label);
    fprintf(out, ",%u,", i);
    csv_field(out, ph->name);
    fprintf(out, ",%s,%llu,%u,%u,", rw_mode_name(ph->rw), (unsigned long long)ph->bs, ph->numjobs,
            r->nagents);
    csv_field(out, agent);
    fputc(',', out);
    csv_field(out, host);
    fprintf(out, ",%s,%.9g,%llu,%llu,%llu,%.17g,%.17g,%llu,%.17g,%llu,%llu,%llu,%llu,%llu,%.6f,",
            op_type_name(t), (double)dur_ns / 1e9, (unsigned long long)o->ops,
            (unsigned long long)o->bytes, (unsigned long long)o->errors, result_iops(o, dur_ns),
            result_bw(o, dur_ns), (unsigned long long)(h->count ? h->min_ns : 0), hist_mean(h),
            (unsigned long long)hist_percentile(h, 50), (unsigned long long)hist_percentile(h, 90),
            (unsigned long long)hist_percentile(h, 99), (unsigned long long)hist_percentile(h, 99.9),
            (unsigned long long)(h->count ? h->max_ns : 0), share);
    if (jain >= 0)
        fprintf(out, "%.6f", jain);
    fprintf(out, ",%s\n", verdict);
}

void report_csv(FILE *out, const struct run_result *r, int agents)
{
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    struct verdict *v = xmalloc(sizeof(*v));

    fputs(REPORT_CSV_HEADER "\n", out);
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];
        struct fairness f;

        if (!ph->finished)
            continue;
        fairness_phase(r, i, share, &f);
        verdict_phase(r, i, v);
        for (int t = 0; t < OP__COUNT; t++) {
            uint64_t all = ph->totals.op[t].ops;

            if (all == 0)
                continue;
            row(out, r, i, "all", "", (enum op_type)t, &ph->totals.op[t], ph->duration_ns, 1.0, f.jain,
                verdict_name(v->v));
            for (uint32_t a = 0; agents && a < r->nagents; a++) {
                const struct agent_phase *ap = &ph->agents[a];
                char id[16];

                if (!ap->done)
                    continue;
                snprintf(id, sizeof(id), "%u", r->agents[a].id);
                const struct op_stats *o = &result_agent_totals(r, i, a)->op[t];
                /* share of the successful ops: a failed op is no share of the work */
                row(out, r, i, id, r->agents[a].host, (enum op_type)t, o,
                    ap->duration_ns ? ap->duration_ns : ph->duration_ns,
                    result_ok_ops(&ph->totals.op[t]) ? (double)result_ok_ops(o) /
                    (double)result_ok_ops(&ph->totals.op[t]) : 0.0, -1, "");
            }
        }
    }
    free(share);
    free(v);
}
