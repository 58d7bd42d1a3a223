/* html_fleet: the fleet view of the run HTML (see html_fleet.h).
 *
 * Sorting without a script: each row carries its rank under every sort
 * key as CSS custom properties (style="--a:..;--b:..;--c:..;--d:.."), the
 * table is a display:grid whose rows are display:contents, and the checked
 * radio button before the table picks which rank orders the cells
 * (svg_page_begin's style).  One copy of the table, four small integers a
 * row: ~40 bytes per agent for every order. */
#include "coordinator/report/html_fleet.h"
#include "common/sat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/svg.h"

#define DIST_BINS 30
#define SORT_KEYS 4

void html_fleet_timeline(struct html_timeline *dst, const struct html_timeline *tl)
{
    size_t n = 0;
    uint32_t *merged = xcalloc(tl->nband ? tl->nband : 1, sizeof(*merged));
    char (*note)[64] = xcalloc(tl->nband ? tl->nband : 1, sizeof(*note));

    *dst = *tl;
    dst->band = xcalloc(tl->nband ? tl->nband : 1, sizeof(*dst->band));
    for (size_t i = 0; i < tl->nband; i++) {
        const struct svg_band *b = &tl->band[i];
        size_t j = n;

        if (strcmp(b->kind, "lost") == 0)
            for (j = 0; j < n; j++)
                if (strcmp(dst->band[j].kind, "lost") == 0 && dst->band[j].x0 == b->x0 && dst->band[j].x1 == b->x1)
                    break;
        if (j < n) {
            merged[j]++;
            snprintf(note[j], sizeof(note[j]), "%u agents lost", merged[j]);
            dst->band[j].note = note[j];
            dst->band[j].id = -1;
            continue;
        }
        merged[n] = 1;
        dst->band[n++] = *b;
    }
    dst->nband = n;
    /* the notes live after the bands: one allocation to free */
    dst->band_note = (char (*)[64])note;
    free(merged);
}

void html_fleet_timeline_free(struct html_timeline *dst)
{
    free(dst->band);
    free(dst->band_note);
    dst->band = NULL;
    dst->band_note = NULL;
}

static void names(FILE *out, const struct run_result *r, const struct fleet_phase *f, enum fleet_state s,
                  const char *what)
{
    uint32_t shown = 0;

    if (!f->count[s])
        return;
    fprintf(out, "<p class=\"%s\" data-agents=\"%s\">%s (%u): ", s == FLEET_IDLE ? "note" : "warn", what, what,
            f->count[s]);
    for (uint32_t a = 0; a < f->nagents && shown < FLEET_NAMES_MAX; a++) {
        if (f->state[a] != s)
            continue;
        fprintf(out, "%s%u ", shown ? ", " : "", r->agents[a].id);
        svg_escape(out, fleet_host(r, a));
        svg_escaped(out, " (", r->agents[a].addr[0] ? r->agents[a].addr : "?", ")");
        if (s == FLEET_LOST)
            fprintf(out, " at %.1f s", r->agents[a].lost_at_s);
        shown++;
    }
    if (f->count[s] > shown)
        fprintf(out, " ... and %u more", f->count[s] - shown);
    fprintf(out, "</p>\n");
}

void html_fleet_summary(FILE *out, const struct run_result *r, const struct fleet_phase *f, int base)
{
    uint32_t n = f->count[FLEET_RAN];

    fprintf(out, "<p class=\"note\" data-view=\"fleet-count\">agents: %u (%u ran, %u lost, %u idle", f->nagents, n,
            f->count[FLEET_LOST], f->count[FLEET_IDLE]);
    if (f->count[FLEET_NO_RESULT])
        fprintf(out, ", %u without a result", f->count[FLEET_NO_RESULT]);
    fprintf(out, ")</p>\n");
    if (n) {
        const double iops[5] = { f->iops.min, f->iops.p10, f->iops.median, f->iops.p90, f->iops.max };
        const double bw[5] = { f->bw.min, f->bw.p10, f->bw.median, f->bw.p90, f->bw.max };
        char b[32];

        fprintf(out, "<table data-view=\"fleet-dist\"><tr><th class=\"l\">per agent (%u ran, nearest rank)</th>"
                "<th>min</th><th>p10</th><th>median</th><th>p90</th><th>max</th></tr>\n<tr><th class=\"l\">IOPS</th>",
                n);
        for (int i = 0; i < 5; i++)
            fprintf(out, "<td>%s</td>", units_fmt_count(b, sizeof(b), iops[i]));
        fprintf(out, "</tr>\n<tr><th class=\"l\">BW</th>");
        for (int i = 0; i < 5; i++)
            fprintf(out, "<td>%s</td>", units_fmt_rate(b, sizeof(b), bw[i], base));
        fprintf(out, "</tr>\n</table>\n");
    }
    names(out, r, f, FLEET_LOST, "lost");
    names(out, r, f, FLEET_IDLE, "idle");
    names(out, r, f, FLEET_NO_RESULT, "without a result");
}

/* An agent's successful ops in the phase, of every load op type. */
static uint64_t ok_ops(const struct agent_phase *ap)
{
    uint64_t ok = 0;

    for (int t = 0; t < OP__COUNT; t++)
        if (op_type_is_load(t))
            ok = sat_add_u64(ok, result_ok_count(ap->sealed.count[t].ops, ap->sealed.count[t].errors));
    return ok;
}

/* Successful ops per second of agent a in the phase, over its own time;
 * NaN without data (no result, or idle). */
static double agent_iops(const struct run_result *r, uint32_t phase, uint32_t a)
{
    const struct phase_result *ph = &r->phases[phase];
    const struct agent_phase *ap = &ph->agents[a];
    uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns;

    if (!ap->done || !ap->participating || dur == 0)
        return NAN;
    return (double)ok_ops(ap) * 1e9 / (double)dur;
}

void html_fleet_chart_dist(FILE *out, const struct run_result *r, uint32_t phase, const struct fleet_phase *f,
                           const struct html_timeline *tl)
{
    uint32_t n = f->count[FLEET_RAN], nslow = fleet_edge_slow(f), nfast = fleet_edge_fast(f), nm = 0;
    double *v = xcalloc(n ? n : 1, sizeof(*v));
    struct svg_mark *m = xcalloc((size_t)nslow + nfast + f->count[FLEET_LOST] + 1, sizeof(*m));
    char (*txt)[2][RESULT_HOST_MAX + 64] = xcalloc((size_t)nslow + nfast + f->count[FLEET_LOST] + 1, sizeof(*txt));
    struct svg_chart c = { .view = "agent-dist", .title = "Agents by IOPS (distribution)",
                           .xlabel = "IOPS of an agent (successful ops/s)", .ylabel = "agents",
                           .xfmt = svg_fmt_count, .yfmt = NULL };
    char b[32];

    for (uint32_t i = 0; i < n; i++)
        v[i] = f->ran[i].iops;
    for (uint32_t i = 0; i < nslow + nfast; i++) {
        const struct fleet_agent *fa = i < nslow ? &f->ran[i] : &f->ran[n - 1 - (i - nslow)];

        snprintf(txt[nm][0], sizeof(txt[nm][0]), "%u", r->agents[fa->agent].id);
        snprintf(txt[nm][1], sizeof(txt[nm][1]), "%s: agent %u %.200s, %s IOPS", i < nslow ? "slowest" : "fastest",
                 r->agents[fa->agent].id, fleet_host(r, fa->agent), units_fmt_count(b, sizeof(b), fa->iops));
        m[nm] = (struct svg_mark){ .x = fa->iops, .kind = i < nslow ? "slowest" : "fastest", .label = txt[nm][0],
                                   .title = txt[nm][1], .id = r->agents[fa->agent].id };
        nm++;
    }
    for (uint32_t a = 0; a < f->nagents; a++) {
        double x;

        if (f->state[a] != FLEET_LOST)
            continue;
        /* its partial rate where it sent a salvaged total, else at 0 */
        x = agent_iops(r, phase, a);
        if (isnan(x))
            x = 0;
        snprintf(txt[nm][1], sizeof(txt[nm][1]), "agent %u %.200s %s (%s IOPS until then)", r->agents[a].id,
                 fleet_host(r, a), tl->lost_note[a][0] ? tl->lost_note[a] : "lost", units_fmt_count(b, sizeof(b), x));
        m[nm] = (struct svg_mark){ .x = x, .kind = "lost", .title = txt[nm][1], .id = r->agents[a].id };
        nm++;
    }
    svg_histogram(out, &c, v, n, n < DIST_BINS ? (n ? n : 1) : DIST_BINS, m, nm);
    free(txt);
    free(m);
    free(v);
}

struct row_key {
    uint32_t agent;
    double v;           /* NaN: no data, last in every order */
};

static int cmp_key(const void *pa, const void *pb)
{
    const struct row_key *a = pa, *b = pb;
    int na = isnan(a->v), nb = isnan(b->v);

    if (na != nb)
        return na - nb;
    if (!na && a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return a->agent < b->agent ? -1 : a->agent > b->agent;
}

/* rank[a] = position of agent a when sorted by v (ascending, or descending
 * with desc; no data last either way, ties by index). */
static void ranks(const double *v, uint32_t n, int desc, uint32_t *rank)
{
    struct row_key *k = xcalloc(n ? n : 1, sizeof(*k));

    for (uint32_t a = 0; a < n; a++)
        k[a] = (struct row_key){ .agent = a, .v = desc && !isnan(v[a]) ? -v[a] : v[a] };
    qsort(k, n, sizeof(*k), cmp_key);
    for (uint32_t i = 0; i < n; i++)
        rank[k[i].agent] = i;
    free(k);
}

static const char *state_word(const struct run_result *r, const struct fleet_phase *f, uint32_t a, char *buf,
                              size_t len)
{
    switch (f->state[a]) {
    case FLEET_LOST: snprintf(buf, len, "lost at %.1f s", r->agents[a].lost_at_s); return buf;
    case FLEET_IDLE: return "idle";
    case FLEET_NO_RESULT: return "no result";
    default: return "ran";
    }
}

void html_fleet_table(FILE *out, const struct run_result *r, uint32_t phase, const struct fleet_phase *f, int base)
{
    static const char *const key_name[SORT_KEYS] = { "id", "IOPS, slowest first", "IOPS, fastest first",
                                                     "p99 latency, highest first" };
    const struct phase_result *ph = &r->phases[phase];
    uint32_t n = r->nagents;
    double *iops = xcalloc(n ? n : 1, sizeof(*iops)), *p99 = xcalloc(n ? n : 1, sizeof(*p99));
    uint32_t *rank = xcalloc((size_t)SORT_KEYS * (n ? n : 1), sizeof(*rank));
    struct op_stats *all = xmalloc(sizeof(*all));
    uint64_t phase_ops = 0;

    for (int t = 0; t < OP__COUNT; t++)
        if (op_type_is_load(t))   /* failed ops are no share */
            phase_ops = sat_add_u64(phase_ops, result_ok_ops(&ph->totals.op[t]));
    for (uint32_t a = 0; a < n; a++) {
        iops[a] = agent_iops(r, phase, a);
        p99[a] = NAN;
        if (ph->agents[a].done && ph->agents[a].participating) {
            result_all_ops(result_agent_totals(r, phase, a), all);
            if (all->lat.count)
                p99[a] = (double)hist_percentile(&all->lat, 99.0);
        }
        rank[a] = a;
    }
    ranks(iops, n, 0, &rank[n]);
    ranks(iops, n, 1, &rank[2 * (size_t)n]);
    ranks(p99, n, 1, &rank[3 * (size_t)n]);

    fprintf(out, "<details data-view=\"agent-detail\"><summary>Per-agent detail: %u agents (sortable)</summary>\n", n);
    /* the radios are siblings before the table, for the :checked~ rules */
    fprintf(out, "<span class=\"note\">sort by:</span>");
    for (int k = 0; k < SORT_KEYS; k++)
        fprintf(out, " <input type=\"radio\" class=\"sk%d\" name=\"sort-p%u\" id=\"sort-p%u-%d\"%s>"
                "<label for=\"sort-p%u-%d\">%s</label>", k + 1, phase + 1, phase + 1, k + 1,
                k == 0 ? " checked" : "", phase + 1, k + 1, key_name[k]);
    fprintf(out, "\n<table class=\"sort\" style=\"grid-template-columns:repeat(12,auto)\"><tr><th>id</th>"
            "<th class=\"l\">host</th><th class=\"l\">address</th><th class=\"l\">state</th><th>IOPS</th><th>BW</th>"
            "<th>mean</th><th>p50</th><th>p99</th><th>max</th><th>share</th><th>cpu</th></tr>\n");
    for (uint32_t a = 0; a < n; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns;
        char b[32], st[48];

        fprintf(out, "<tr data-id=\"%u\" style=\"--a:%u;--b:%u;--c:%u;--d:%u\"><td>%u</td>", r->agents[a].id,
                rank[a], rank[n + a], rank[2 * (size_t)n + a], rank[3 * (size_t)n + a], r->agents[a].id);
        svg_td(out, 1, fleet_host(r, a));
        svg_td(out, 1, r->agents[a].addr);
        fprintf(out, "<td class=\"l%s\">%s</td>", f->state[a] == FLEET_RAN || f->state[a] == FLEET_IDLE ? "" : " warn",
                state_word(r, f, a, st, sizeof(st)));
        if (!ap->done || !ap->participating) {
            fprintf(out, "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n");
            continue;
        }
        result_all_ops(result_agent_totals(r, phase, a), all);
        fprintf(out, "<td>%s</td>", units_fmt_count(b, sizeof(b), iops[a]));
        fprintf(out, "<td>%s</td>", units_fmt_rate(b, sizeof(b), result_bw(all, dur), base));
        fprintf(out, "<td>%s</td>", units_fmt_ns(b, sizeof(b), hist_mean(&all->lat)));
        fprintf(out, "<td>%s</td>", units_fmt_ns(b, sizeof(b), (double)hist_percentile(&all->lat, 50.0)));
        fprintf(out, "<td>%s</td>", units_fmt_ns(b, sizeof(b), isnan(p99[a]) ? 0 : p99[a]));
        fprintf(out, "<td>%s</td>", units_fmt_ns(b, sizeof(b), all->lat.count ? (double)all->lat.max_ns : 0));
        fprintf(out, "<td>%.1f%%</td>", phase_ops ? (double)ok_ops(ap) * 100.0 / (double)phase_ops : 0.0);
        fprintf(out, "<td>%s</td></tr>\n", fleet_cpu_text(b, sizeof(b), ap));
    }
    fprintf(out, "</table>\n</details>\n");
    free(all);
    free(rank);
    free(p99);
    free(iops);
}

void html_fleet_agent_table(FILE *out, const struct run_result *r)
{
    fprintf(out, "<table data-view=\"agent-table\"><tr><th>id</th><th class=\"l\">host</th><th class=\"l\">address</th>"
            "<th>cpus</th><th>rtt</th><th>lost</th></tr>\n");
    for (uint32_t a = 0; a < r->nagents; a++) {
        char rtt[32];

        if (r->agents[a].lost)
            fprintf(out, "<tr class=\"lost\" data-lost=\"%.1f\"><td>%u</td>", r->agents[a].lost_at_s, r->agents[a].id);
        else
            fprintf(out, "<tr><td>%u</td>", r->agents[a].id);
        svg_td(out, 1, r->agents[a].host);
        svg_td(out, 1, r->agents[a].addr);
        fprintf(out, "<td>%u</td><td>%s</td>", r->agents[a].ncpus,
                units_fmt_ns(rtt, sizeof(rtt), (double)r->agents[a].rtt_ns));
        if (r->agents[a].lost)
            fprintf(out, "<td class=\"warn\">lost at %.1f s</td></tr>\n", r->agents[a].lost_at_s);
        else
            fprintf(out, "<td>no</td></tr>\n");
    }
    fprintf(out, "</table>\n");
}

void html_fleet_agent_list(FILE *out, const struct run_result *r)
{
    uint32_t lost = 0;

    for (uint32_t a = 0; a < r->nagents; a++)
        lost += r->agents[a].lost != 0;
    fprintf(out, "<h2>Agents</h2>\n<details data-view=\"agent-list\"><summary>%u agents (%u lost)</summary>\n",
            r->nagents, lost);
    html_fleet_agent_table(out, r);
    fprintf(out, "</details>\n");
}
