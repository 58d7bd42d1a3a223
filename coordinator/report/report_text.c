/* report_text: the human report on stdout, one table per phase.
 *
 * Design: the rows are shaped like the tables people already keep for fio
 * numbers (r/w x rand/seq, IOPS and bandwidth per block size), so a phase row
 * can be pasted next to them.  Each phase prints:
 *
 *   header row
 *   one row per op type that has ops (a mixed phase gets a read and a write
 *     row; the phase columns are printed on the first only)
 *   an agent header and one row per agent and op type, with the agent's
 *     share of the phase's ops of that type and its CPU use; or, with more
 *     agents than --agent-rows (16), the fleet view: agent counts, the
 *     distribution of per-agent IOPS and BW, the 5 slowest and 5 fastest
 *     agents' rows, and the lost, idle and resultless agents by name
 *     (fleet_summary.h)
 *   notes: start skew, errors, and warnings (client-bound or silent agents)
 *
 * Column widths are fixed by what units_fmt_* can produce ("1.23GiB/s",
 * "12.3k", "1.23ms"), except the phase-name column, which is sized to the
 * longest name (capped) so every table of one report lines up.  Rows stay
 * under about 120 characters.  All figures come from result.c so this and
 * the JSON report never disagree. */
#include "coordinator/report/coherence_report.h"
#include "coordinator/report/report.h"
#include "coordinator/result/result.h"
#include "coordinator/report/limits_report.h"
#include "coordinator/result/ext_metrics.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/changes.h"
#include "coordinator/report/client_report.h"
#include "coordinator/result/fairness.h"
#include "coordinator/report/fleet_summary.h"
#include "coordinator/report/report_matrix.h"
#include "coordinator/run/start_skew.h"
#include "coordinator/report/report_nfs.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/run/verdict.h"
#include "common/vblock.h"

#define NAME_MIN 5
#define NAME_MAX_W 20
/* widths of the phase columns after the name: rw, mode, bs, jobs */
#define RW_W 5
#define MODE_W 4
#define BS_W 7
#define JOBS_W 5
#define OP_W 7    /* the longest op type name, "readdir" */
#define ID_W 5    /* "  " indent + id in agent rows */

struct layout {
    int name_w;     /* phase-name column */
    int host_w;     /* host column of agent rows: aligns figures with phase rows */
    int base;
};

/* "read", "write" or "mixed": what the phase did, or failing that (no ops)
 * what its first job was asked to do. */
static const char *rw_class(const struct phase_result *ph)
{
    int r = ph->totals.op[OP_READ].ops > 0;
    int w = ph->totals.op[OP_WRITE].ops > 0;

    if (ph->rw == RW_METADATA)
        return "meta";
    if (!r && !w) {
        r = rw_mode_reads(ph->rw);
        w = rw_mode_writes(ph->rw);
    }
    return r && w ? "mixed" : w ? "write" : "read";
}

/* "rand" or "seq"; "-" where it does not apply (metadata). */
static const char *mode_word(const struct phase_result *ph)
{
    return ph->rw == RW_METADATA ? "-" : rw_mode_random(ph->rw) ? "rand" : "seq";
}

static void fig_header(FILE *out)
{
    fprintf(out, "%-*s %7s %10s %7s %7s %7s %7s %7s", OP_W,
            "op", "IOPS", "BW", "mean", "p50", "p99", "p99.9", "max");
}

void report_fig_cells(char cell[REPORT_FIGS][32], enum op_type t, const struct op_stats *o, uint64_t duration_ns,
                      int base)
{
    static const double q[4] = { 50, 90, 99, 99.9 };

    units_fmt_count(cell[0], sizeof cell[0], result_iops(o, duration_ns));
    /* a metadata op moves no data (but create, with filesize): no "0B/s" */
    if (t != OP_READ && t != OP_WRITE && o->bytes == 0)
        snprintf(cell[1], sizeof cell[1], "-");
    else
        units_fmt_rate(cell[1], sizeof cell[1], result_bw(o, duration_ns), base);
    units_fmt_ns(cell[2], sizeof cell[2], hist_mean(&o->lat));
    for (int i = 0; i < 4; i++)
        units_fmt_ns(cell[3 + i], sizeof cell[3 + i], (double)hist_percentile(&o->lat, q[i]));
    /* max_ns is exact, unlike the percentiles; an empty hist reports 0 */
    units_fmt_ns(cell[7], sizeof cell[7], o->lat.count ? (double)o->lat.max_ns : 0.0);
    /* ops with no latency recorded (a replayed journal keeps only the
     * merged intervals' histograms, not each lost agent's): unknown,
     * never "0ns" */
    for (int i = 2; i < REPORT_FIGS && o->ops > 0 && o->lat.count == 0; i++)
        snprintf(cell[i], sizeof cell[i], "-");
}

/* IOPS, bandwidth and latency of o over duration_ns (all but p90). */
static void fig_row(FILE *out, enum op_type t, const struct op_stats *o,
                    uint64_t duration_ns, int base)
{
    char f[REPORT_FIGS][32];

    report_fig_cells(f, t, o, duration_ns, base);
    fprintf(out, "%-*s %7s %10s %7s %7s %7s %7s %7s", OP_W,
            op_type_name(t), f[0], f[1], f[2], f[3], f[5], f[6], f[7]);
}

/* Host names are truncated to fit the column: the short name first (up to
 * the first dot), then a hard cut.  The JSON report keeps the full name. */
static void fit_host(char *dst, size_t len, const char *host, int width)
{
    size_t w = (size_t)width < len - 1 ? (size_t)width : len - 1;
    size_t n = strlen(host);

    if (n > w) {
        const char *dot = strchr(host, '.');
        if (dot && (size_t)(dot - host) <= w && dot > host)
            n = (size_t)(dot - host);
        else
            n = w;
    }
    memcpy(dst, host, n);
    dst[n] = '\0';
}

/* Seconds an agent's figures are averaged over: its own run time, or the
 * phase's when it reported none. */
static uint64_t agent_duration(const struct phase_result *ph, const struct agent_phase *ap)
{
    return ap->duration_ns ? ap->duration_ns : ph->duration_ns;
}

static void phase_rows(FILE *out, const struct run_result *r, const struct phase_result *ph,
                       const struct layout *L)
{
    char bs[32], jobs[32];
    int first = 1;

    if (ph->rw == RW_METADATA)
        snprintf(bs, sizeof(bs), "-");
    else
        units_fmt_block_size(bs, sizeof(bs), ph->bs);   /* exact, whatever the base */
    snprintf(jobs, sizeof(jobs), "%ux%u", ph->numjobs, r->nagents);

    fprintf(out, "%-*s %-*s %-*s %-*s %-*s ", L->name_w, "phase", RW_W, "rw",
            MODE_W, "mode", BS_W, "bs", JOBS_W, "jobs");
    fig_header(out);
    fputc('\n', out);

    for (int t = 0; t < OP__COUNT; t++) {
        if (ph->totals.op[t].ops == 0)
            continue;
        if (first)
            fprintf(out, "%-*s %-*s %-*s %-*s %-*s ", L->name_w, ph->name, RW_W, rw_class(ph),
                    MODE_W, mode_word(ph), BS_W, bs, JOBS_W, jobs);
        else
            fprintf(out, "%*s ", L->name_w + RW_W + MODE_W + BS_W + JOBS_W + 4, "");
        fig_row(out, (enum op_type)t, &ph->totals.op[t], ph->duration_ns, L->base);
        fputc('\n', out);
        first = 0;
    }
    if (first)
        fprintf(out, "%-*s %-*s %-*s %-*s %-*s (no ops)\n", L->name_w, ph->name, RW_W,
                rw_class(ph), MODE_W, mode_word(ph), BS_W, bs,
                JOBS_W, jobs);
}

static void agent_header(FILE *out, const struct layout *L)
{
    fprintf(out, "  %-*s %-*s ", ID_W - 2, "id", L->host_w, "host");
    fig_header(out);
    fprintf(out, " %6s %5s\n", "share", "cpu");
}

/* Agent a's rows: one per op type of the phase. */
static void agent_row(FILE *out, const struct run_result *r, const struct phase_result *ph,
                      const struct layout *L, uint32_t a)
{
    const struct agent_phase *ap = &ph->agents[a];
    char host[RESULT_HOST_MAX], cpu[16];
    int first = 1;

    fit_host(host, sizeof(host), fleet_host(r, a), L->host_w);
    fleet_cpu_text(cpu, sizeof(cpu), ap);
    if (!ap->done) {
        fprintf(out, "  %-*u %-*s (no result)\n", ID_W - 2, r->agents[a].id, L->host_w, host);
        return;
    }
    /* The phase's op types, so an agent that did none of a type the
     * others did shows a visible 0 rather than a missing row. */
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &result_agent_totals(r, (uint32_t)(ph - r->phases), a)->op[t];
        uint64_t all = ph->totals.op[t].ops;
        char share[16];

        if (all == 0)
            continue;
        /* of the successful ops: a failed op is no share of the work */
        snprintf(share, sizeof(share), "%.1f%%", result_ok_ops(&ph->totals.op[t]) ?
                 (double)result_ok_ops(o) * 100.0 / (double)result_ok_ops(&ph->totals.op[t]) : 0.0);
        if (first)
            fprintf(out, "  %-*u %-*s ", ID_W - 2, r->agents[a].id, L->host_w, host);
        else
            fprintf(out, "%*s ", ID_W + L->host_w + 1, "");
        fig_row(out, (enum op_type)t, o, agent_duration(ph, ap), L->base);
        /* CPU is per agent, not per op type: on its first row only */
        if (first)
            fprintf(out, " %6s %5s\n", share, cpu);
        else
            fprintf(out, " %6s\n", share);
        first = 0;
    }
    if (first)
        fprintf(out, "  %-*u %-*s (no ops) %5s\n", ID_W - 2, r->agents[a].id, L->host_w, host,
                cpu);
}

static void agent_rows(FILE *out, const struct run_result *r, const struct phase_result *ph,
                       const struct layout *L)
{
    agent_header(out, L);
    for (uint32_t a = 0; a < r->nagents; a++)
        agent_row(out, r, ph, L, a);
}

#define DIST_W 10   /* a column of the distribution lines */

static void dist_line(FILE *out, const char *what, const double v[5], int bytes, int base)
{
    fprintf(out, "  %-6s", what);
    for (int i = 0; i < 5; i++) {
        char b[32];

        if (bytes)
            units_fmt_rate(b, sizeof(b), v[i], base);
        else
            units_fmt_count(b, sizeof(b), v[i]);
        fprintf(out, " %*s", DIST_W, b);
    }
    fputc('\n', out);
}

/* Lost, idle or resultless agents by name, one a line, at most
 * FLEET_NAMES_MAX and then how many more. */
static void fleet_names(FILE *out, const struct run_result *r, const struct fleet_phase *f,
                        enum fleet_state s, const char *what)
{
    uint32_t shown = 0;

    if (!f->count[s])
        return;
    fprintf(out, "%s (%u):\n", what, f->count[s]);
    for (uint32_t a = 0; a < f->nagents && shown < FLEET_NAMES_MAX; a++) {
        if (f->state[a] != s)
            continue;
        fprintf(out, "  %-*u %s (%s)", ID_W - 2, r->agents[a].id, fleet_host(r, a),
                r->agents[a].addr[0] ? r->agents[a].addr : "?");
        if (s == FLEET_LOST)
            fprintf(out, " at %.1f s", r->agents[a].lost_at_s);
        fputc('\n', out);
        shown++;
    }
    if (f->count[s] > shown)
        fprintf(out, "  ... and %u more\n", f->count[s] - shown);
}

/* The fleet view of a phase (more agents than --agent-rows): who ran, the
 * distribution of their throughput, the slowest and fastest few as agent
 * rows, then the lost, idle and resultless agents by name. */
static void fleet_rows(FILE *out, const struct run_result *r, const struct phase_result *ph,
                       const struct layout *L)
{
    struct fleet_phase f;
    uint32_t nslow, nfast, n;

    fleet_phase_init(&f, r, (uint32_t)(ph - r->phases));
    n = f.count[FLEET_RAN];
    nslow = fleet_edge_slow(&f);
    nfast = fleet_edge_fast(&f);
    fprintf(out, "agents: %u (%u ran, %u lost, %u idle", f.nagents, n, f.count[FLEET_LOST],
            f.count[FLEET_IDLE]);
    if (f.count[FLEET_NO_RESULT])
        fprintf(out, ", %u without a result", f.count[FLEET_NO_RESULT]);
    fprintf(out, ")\n");
    if (n) {
        const double iops[5] = { f.iops.min, f.iops.p10, f.iops.median, f.iops.p90, f.iops.max };
        const double bw[5] = { f.bw.min, f.bw.p10, f.bw.median, f.bw.p90, f.bw.max };

        fprintf(out, "per-agent throughput over the %u agent%s that ran (nearest rank):\n", n,
                n == 1 ? "" : "s");
        fprintf(out, "  %-6s %*s %*s %*s %*s %*s\n", "", DIST_W, "min", DIST_W, "p10", DIST_W, "median",
                DIST_W, "p90", DIST_W, "max");
        dist_line(out, "IOPS", iops, 0, L->base);
        dist_line(out, "BW", bw, 1, L->base);
        fprintf(out, "slowest %u:\n", nslow);
        agent_header(out, L);
        for (uint32_t i = 0; i < nslow; i++)
            agent_row(out, r, ph, L, f.ran[i].agent);
        if (nfast) {
            fprintf(out, "fastest %u:\n", nfast);
            agent_header(out, L);
            for (uint32_t i = 0; i < nfast; i++)
                agent_row(out, r, ph, L, f.ran[n - 1 - i].agent);
        }
    }
    fleet_names(out, r, &f, FLEET_LOST, "lost");
    fleet_names(out, r, &f, FLEET_IDLE, "idle");
    fleet_names(out, r, &f, FLEET_NO_RESULT, "without a result");
    fleet_phase_free(&f);
}

/* Jain's index, slowest and fastest agent (docs/results.md). */
static void fairness_note(FILE *out, const struct run_result *r, uint32_t phase)
{
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    struct fairness f;
    char s[32], fa[32], hs[RESULT_HOST_MAX], hf[RESULT_HOST_MAX];

    fairness_phase(r, phase, share, &f);
    /* hosts cut to 16 columns so the line stays under 120 characters */
    fit_host(hs, sizeof(hs), fleet_host(r, f.slowest), 16);
    fit_host(hf, sizeof(hf), fleet_host(r, f.fastest), 16);
    if (f.ncounted > 0)
        fprintf(out, "fairness: Jain %.3f (1 = even); slowest %u (%s) %s IOPS; fastest %u (%s) %s IOPS\n",
                f.jain, r->agents[f.slowest].id, hs, units_fmt_count(s, sizeof(s), f.slowest_iops),
                r->agents[f.fastest].id, hf, units_fmt_count(fa, sizeof(fa), f.fastest_iops));
    free(share);
}

/* The seeds' table: rows r/w x rand/seq, IOPS and bandwidth per block size
 * (report_matrix.h: a row per kind, split per phase where two phases would
 * share a cell; mixed phases' rows named by their mix).  Only the columns
 * and rows some phase fills: a metadata-only run has no table at all.
 * Block sizes print exactly (units_fmt_block_size).  What no cell holds is
 * listed below the table, with why. */
#define TEXT_MATRIX_COLS 8
static void summary_matrix(FILE *out, const struct run_result *r, int base)
{
    struct report_matrix *m = report_matrix_new(r, TEXT_MATRIX_COLS);
    char a[32], b[32], line[512];
    int partial = 0;

    if (!m)
        return;
    fprintf(out, "\nsummary (IOPS and bandwidth by block size)\n");
    if (m->ncols) {
        fprintf(out, "%-*s", m->label_w, "");
        for (uint32_t j = 0; j < m->ncols; j++)
            fprintf(out, " %19s", units_fmt_block_size(a, sizeof(a), m->bs[j]));
        fputc('\n', out);
    }
    for (uint32_t k = 0; k < m->nrows; k++) {
        fprintf(out, "%-*s", m->label_w, m->rows[k].label);
        for (uint32_t j = 0; j < m->ncols; j++) {
            int pc = report_matrix_cell(r, &m->rows[k], j, base, a, b);

            partial |= pc > 0;
            if (pc < 0)
                fprintf(out, " %19s", "-");
            else
                fprintf(out, " %7s %11s", a, b);
        }
        fputc('\n', out);
    }
    if (partial)
        fprintf(out, "* partial: the phase did not run to completion (see its verdict)\n");
    for (uint32_t k = 0; k < m->nleft; k++)
        fprintf(out, "not in the table: %s\n", report_matrix_left_text(line, sizeof line, m, r, k, TEXT_MATRIX_COLS));
    if (m->nleft_more)
        fprintf(out, "not in the table: %u more figures of phases (see their own tables)\n", m->nleft_more);
    free(m);
}

/* Runs of intervals in which ops were stuck longer than an interval. */
static void stall_lines(FILE *out, const struct run_result *r, const struct phase_result *ph, uint32_t phase)
{
    for (uint32_t k = 0; k < ph->nintervals;) {
        uint64_t age, worst = 0, limit = UINT64_MAX, l;
        uint32_t n = result_interval_stalled(r, phase, k, &age), first = k;
        int fleet = 1;
        if (!n) {
            k++;
            continue;
        }
        /* a run of stalled intervals: a server stall only if no op
         * completed anywhere in every one of them */
        while (k < ph->nintervals && (n = result_interval_stalled(r, phase, k, &age)) > 0) {
            if (age > worst)
                worst = age;
            if ((l = result_interval_stall_limit(r, phase, k)) < limit)
                limit = l;
            fleet &= result_interval_fleet_stalled(r, phase, k);
            k++;
        }
        fprintf(out, "stall: intervals %u-%u: %s, oldest op outstanding %.1f s "
                "(limit %.1f s for the ops in flight at the recent pace)\n",
                first, k - 1,
                fleet ? "server stalled, no op completed on any agent" : "some agents completed no op",
                (double)worst / 1e9, (double)limit / 1e9);
    }
}

static void notes(FILE *out, const struct run_result *r, const struct phase_result *ph, int fleet)
{
    char buf[32], buf2[32], skew[256];
    int any_err = 0;
    uint32_t nbound = 0;

    units_fmt_ns(buf, sizeof(buf), (double)ph->duration_ns);
    fprintf(out, "duration: %s (longest agent)", buf);
    fprintf(out, "; %s\n", start_skew_text(skew, sizeof(skew), r, (uint32_t)(ph - r->phases)));

    uint64_t sample_ops, sample_threads, sample_mean;
    if (result_phase_thin_sample(r, (uint32_t)(ph - r->phases), &sample_ops, &sample_threads,
                                 &sample_mean))
        fprintf(out, "sample: ops take %s on average in a %s phase: about one op per thread%s "
                "(%llu ops from %llu threads); its latency and throughput rest on that few\n",
                units_fmt_ns(buf, sizeof(buf), (double)sample_mean),
                units_fmt_ns(buf2, sizeof(buf2), (double)ph->duration_ns),
                sample_ops > 2 * sample_threads ? " and slot of its iodepth" : "",
                (unsigned long long)sample_ops, (unsigned long long)sample_threads);

    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &ph->totals.op[t];

        if (o->errors == 0)
            continue;
        fprintf(out, "%s %s %llu of %llu ops failed (%.2f%%)", any_err ? "," : "errors:",
                op_type_name((enum op_type)t), (unsigned long long)o->errors,
                (unsigned long long)o->ops, (double)o->errors * 100.0 / (double)o->ops);
        any_err = 1;
    }
    uint32_t phase = (uint32_t)(ph - r->phases);

    if (any_err) {
        fputc('\n', out);
        result_errors_text(out, r, phase);    /* and why, per agent */
    }

    stall_lines(out, r, ph, phase);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];

        /* the fleet view names lost and resultless agents itself, and
         * bounds the rest */
        if (fleet && ((r->agents[a].lost && (!ap->done || ap->salvaged)) || !ap->done))
            continue;
        if (fleet && client_report_cpu_bound(r, phase, a) && ++nbound > FLEET_NAMES_MAX)
            continue;
        if (r->agents[a].lost && (!ap->done || ap->salvaged)) {
            fprintf(out, "warning: agent %u (%s) lost at %.1f s into the run; its data up to then is included\n",
                    r->agents[a].id, fleet_host(r, a), r->agents[a].lost_at_s);
        } else if (!ap->done && ap->participating) {
            fprintf(out, "warning: agent %u (%s) sent no result for this phase\n",
                    r->agents[a].id, fleet_host(r, a));
        } else {
            client_report_bound_lines(out, r, phase, a, fleet_host(r, a));
        }
    }
    if (nbound > FLEET_NAMES_MAX)
        fprintf(out, "warning: ... and %u more agents were client-bound (CPU)\n",
                nbound - FLEET_NAMES_MAX);
    client_report_text(out, r, phase);
}

/* The phase's verdict and each reason on its own line. */
static void verdict_note(FILE *out, const struct run_result *r, uint32_t phase)
{
    struct verdict *v = xmalloc(sizeof(*v));

    verdict_phase(r, phase, v);
    fprintf(out, "phase verdict: %s%s\n", verdict_name(v->v), v->nreasons ? ":" : "");
    for (uint32_t i = 0; i < v->nreasons; i++)
        fprintf(out, "  - %s\n", v->reason[i]);
    free(v);
}

void report_text(FILE *out, const struct run_result *r, int unit_base)
{
    report_text_rows(out, r, unit_base, 0);
}

void report_text_rows(FILE *out, const struct run_result *r, int unit_base, uint32_t rows)
{
    int fleet = fleet_use_view(r->nagents, rows);
    struct layout L;
    char when[64] = "?";
    time_t t = (time_t)r->started_unix;
    struct tm tm;

    L.base = unit_base == 1000 ? 1000 : 1024;
    L.name_w = NAME_MIN;
    for (uint32_t i = 0; i < r->nphases; i++) {
        int n = (int)strlen(r->phases[i].name);
        if (n > L.name_w)
            L.name_w = n;
    }
    if (L.name_w > NAME_MAX_W)
        L.name_w = NAME_MAX_W;   /* longer names overflow the row rather than get cut */
    L.host_w = L.name_w + RW_W + MODE_W + BS_W + JOBS_W + 4 - ID_W - 1;

    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
    fprintf(out, "run %s: %u agent%s, %u phase%s, started %s",
            r->label[0] ? r->label : "(unlabelled)", r->nagents, r->nagents == 1 ? "" : "s",
            r->nphases, r->nphases == 1 ? "" : "s", when);
    if (r->run_id) {
        char id[17];
        vblock_run_format(r->run_id, id);
        fprintf(out, ", run id %s", id);   /* verify_written_by= names it */
    }
    fputc('\n', out);
    run_record_text(out, r);      /* what was run against what, if recorded */

    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];

        fputc('\n', out);
        if (ph->finished && !ph->ran && ph->ctl.skipped) {
            fprintf(out, "phase %s: not run: %s\n", ph->name, ph->ctl.why);   /* a sweep's spare point */
            continue;
        }
        if (!ph->finished) {
            fprintf(out, "phase %s: not run to completion, no results\n", ph->name);
            verdict_note(out, r, i);
            continue;
        }
        if (verdict_phase_partial(r, i))
            fprintf(out, "phase %s: partial results: the phase did not run to completion; the figures "
                    "below are what arrived before it ended (its verdict says why)\n", ph->name);
        phase_rows(out, r, ph, &L);
        if (fleet)
            fleet_rows(out, r, ph, &L);
        else
            agent_rows(out, r, ph, &L);
        notes(out, r, ph, fleet);
        sched_debt_text(out, r, i);     /* open loop short of its rate: who fell behind */
        report_nfs_text(out, r, i);     /* nfs engine: its RPCs */
        fairness_note(out, r, i);
        changes_text(out, r, i, L.base);    /* step-downs and step-ups (changes.h) */
        coherence_text(out, r, i);
        result_verify_text(out, r, i);
        verdict_note(out, r, i);
    }
    if (r->nphases > 1)
        summary_matrix(out, r, L.base);
    sweep_text(out, r->sweeps, r);   /* each sweep's points and headline */
    limits_result_text(out, r, L.base);   /* --limits: caps, credits, cost */
    ext_metrics_text(out, r, L.base);     /* --metrics: the provider's series */
    {
        char line[1024];
        enum verdict_kind v = verdict_summary(r, line, sizeof line);

        fprintf(out, "\nverdict: %s (exit status %d)\n", line, verdict_exit_status(v));
    }
}
