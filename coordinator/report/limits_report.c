/* limits_report: renderers of the limits model (limits_report.h). */
#include "coordinator/report/limits_report.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include "common/units.h"
#include "coordinator/result/result.h"
#include "coordinator/report/svg.h"

static void header(FILE *out, const char *prefix, const struct limits *l, int base)
{
    char sz[32];
    fprintf(out, "%slimits: %s (%s)", prefix, l->name[0] ? l->name : "declared", l->path);
    if (l->fs_size_bytes > 0)
        fprintf(out, ", file system holds %s", units_fmt_bytes(sz, sizeof sz, l->fs_size_bytes, base));
    fputc('\n', out);
}

void limits_forecast_text(FILE *out, const char *prefix, const struct limits *l, const struct limits_forecast *f,
                          int base)
{
    char a[32], b[32], c[32], d[32];

    header(out, prefix, l, base);
    if (!f->load_known) {
        fprintf(out, "%s  plan: %s; no forecast\n", prefix, f->unknown_why);
        return;
    }
    fprintf(out, "%s  plan: %s, metered load %s (reads x %.3g, writes x %.3g%s)\n", prefix,
            limits_fmt_duration(a, sizeof a, f->duration_s), units_fmt_rate(b, sizeof b, f->metered_bps, base),
            l->read_metering, l->write_metering, f->from_caps ? "; open load taken at the declared caps" : "");
    if (l->has_credits) {
        if (l->fs_size_bytes <= 0 && l->baseline_per_gib_bps > 0)
            fprintf(out, "%s  warning: no --fs-size: the baseline is taken as its minimum\n", prefix);
        fprintf(out, "%s  credits: %s, baseline %s, burst %s: ", prefix,
                units_fmt_bytes(a, sizeof a, l->credits_initial, base),
                units_fmt_rate(b, sizeof b, f->baseline_bps, base),
                f->burst_bps > 0 ? units_fmt_rate(c, sizeof c, f->burst_bps, base) : "not declared");
        if (f->drain_s < 0)
            fprintf(out, "they never run out at this load (at or under the baseline)\n");
        else
            fprintf(out, "credits last about %s at this load\n", limits_fmt_duration(d, sizeof d, f->drain_s));
        if (f->drain_s >= 0 && f->shorter_than_drain)
            fprintf(out, "%s  warning: this %s run measures the burst; credits last about %s at this load\n",
                    prefix, limits_fmt_duration(a, sizeof a, f->duration_s),
                    limits_fmt_duration(d, sizeof d, f->drain_s));
        else if (f->drain_s >= 0)
            fprintf(out, "%s  credits run out about %s into the run; then the metered rate falls to the "
                    "baseline %s\n", prefix, limits_fmt_duration(d, sizeof d, f->drain_s),
                    units_fmt_rate(b, sizeof b, f->baseline_bps, base));
    }
    if (l->has_prices)
        fprintf(out, "%s  cost of the plan: %.2f %s (read %s: %.2f, written %s: %.2f, time: %.2f)\n", prefix,
                f->cost, l->currency, units_fmt_bytes(a, sizeof a, f->read_bytes, base), f->cost_read,
                units_fmt_bytes(b, sizeof b, f->write_bytes, base), f->cost_write, f->cost_time);
}

/* ": <judgement> (<cap><unit>); <iops> IOPS: <judgement> (<cap> IOPS)",
 * each part where its cap is set; who names the caps ("per-client"). */
static void judged_text(FILE *out, double bps, double cap_bps, const char *unit, double iops, double cap_iops,
                        const char *who, int base)
{
    char a[32], c[32], j[96], who_iops[48];

    snprintf(who_iops, sizeof who_iops, "%s IOPS", who);
    if (cap_bps > 0)
        fprintf(out, ": %s (%s%s)", limits_judgement_text(limits_judge(bps, cap_bps), who, j, sizeof j),
                units_fmt_rate(c, sizeof c, cap_bps, base), unit);
    if (cap_iops > 0)
        fprintf(out, "; %s IOPS: %s (%s IOPS)", units_fmt_count(a, sizeof a, iops),
                limits_judgement_text(limits_judge(iops, cap_iops), who_iops, j, sizeof j),
                units_fmt_count(c, sizeof c, cap_iops));
}

void limits_result_text(FILE *out, const struct run_result *r, int base)
{
    const struct limits *l = r->limits;
    struct limits_usage u;
    char a[32], b[32], c[32], j[96];

    if (!l)
        return;
    fputc('\n', out);
    header(out, "", l, base);
    for (uint32_t i = 0; i < r->nphases; i++) {
        struct limits_rates fr;
        limits_rates(l, r, i, UINT32_MAX, &fr);
        if (fr.duration_s <= 0)
            continue;
        fprintf(out, "  phase %s: fleet %s (metered %s)", r->phases[i].name, units_fmt_rate(a, sizeof a, fr.bps, base),
                units_fmt_rate(b, sizeof b, fr.metered_bps, base));
        judged_text(out, fr.metered_bps, l->fs_bps, " metered", fr.iops, l->fs_iops, "per-file-system", base);
        fputc('\n', out);
        for (uint32_t ag = 0; ag < r->nagents && (l->client_bps > 0 || l->client_iops > 0); ag++) {
            struct limits_rates ar;
            limits_rates(l, r, i, ag, &ar);
            if (ar.duration_s <= 0 || (ar.bps <= 0 && ar.iops <= 0))
                continue;
            fprintf(out, "    agent %u: %s", ag, units_fmt_rate(a, sizeof a, ar.bps, base));
            judged_text(out, ar.bps, l->client_bps, "", ar.iops, l->client_iops, "per-client", base);
            fputc('\n', out);
        }
    }
    limits_usage(l, r, &u);
    fprintf(out, "  run: read %s, written %s, metered %s in %s\n", units_fmt_bytes(a, sizeof a, u.read_bytes, base),
            units_fmt_bytes(b, sizeof b, u.write_bytes, base), units_fmt_bytes(c, sizeof c, u.metered_bytes, base),
            limits_fmt_duration(j, sizeof j, u.duration_s));
    if (l->has_credits) {
        fprintf(out, "  credits: used %s of %s", units_fmt_bytes(a, sizeof a, fmax(u.credits_used, 0), base),
                units_fmt_bytes(b, sizeof b, l->credits_initial, base));
        if (u.exhausted_at_s >= 0)
            fprintf(out, ": they would have run out about %s into the run\n",
                    limits_fmt_duration(c, sizeof c, u.exhausted_at_s));
        else
            fprintf(out, ", %s left\n", units_fmt_bytes(c, sizeof c, u.credits_left, base));
    }
    if (r->forecast && r->forecast->load_known && r->forecast->drain_s >= 0 && r->forecast->shorter_than_drain)
        fprintf(out, "  warning: this %s run measured the burst; credits last about %s at this load\n",
                limits_fmt_duration(a, sizeof a, u.duration_s),
                limits_fmt_duration(b, sizeof b, r->forecast->drain_s));
    if (l->has_prices)
        fprintf(out, "  cost: %.4f %s (read %.4f, written %.4f, time %.4f)\n", u.cost, l->currency, u.cost_read,
                u.cost_write, u.cost_time);
}

void limits_result_html(FILE *out, const struct run_result *r, int base)
{
    const struct limits *l = r->limits;
    struct limits_usage u;
    char a[32], b[32], j[96];

    if (!l)
        return;
    fprintf(out, "<h2 id=\"limits\">Declared limits: ");
    svg_escape(out, l->name[0] ? l->name : l->path);
    fprintf(out, "</h2>\n<table class=\"limits\"><tr><th>phase</th><th>who</th><th>throughput</th>"
            "<th>metered</th><th>IOPS</th><th>against the declared caps</th></tr>\n");
    for (uint32_t i = 0; i < r->nphases; i++) {
        struct limits_rates fr;
        limits_rates(l, r, i, UINT32_MAX, &fr);
        if (fr.duration_s <= 0)
            continue;
        fprintf(out, "<tr data-phase=\"%u\" data-agent=\"fleet\"><td>", i);
        svg_escape(out, r->phases[i].name);
        fprintf(out, "</td><td>fleet</td><td>%s</td><td>%s</td><td>%.0f</td><td>%s</td></tr>\n",
                units_fmt_rate(a, sizeof a, fr.bps, base), units_fmt_rate(b, sizeof b, fr.metered_bps, base), fr.iops,
                limits_judgement_text(limits_judge(fr.metered_bps, l->fs_bps), "per-file-system", j, sizeof j));
        for (uint32_t ag = 0; ag < r->nagents; ag++) {
            struct limits_rates ar;
            limits_rates(l, r, i, ag, &ar);
            if (ar.duration_s <= 0)
                continue;
            fprintf(out, "<tr data-phase=\"%u\" data-agent=\"%u\"><td></td><td>agent %u</td><td>%s</td><td></td>"
                    "<td>%.0f</td><td>%s</td></tr>\n", i, ag, ag, units_fmt_rate(a, sizeof a, ar.bps, base), ar.iops,
                    limits_judgement_text(limits_judge(ar.bps, l->client_bps), "per-client", j, sizeof j));
        }
    }
    fprintf(out, "</table>\n");
    limits_usage(l, r, &u);
    fprintf(out, "<p class=\"limits-run\">read %s, written %s, metered ", units_fmt_bytes(a, sizeof a, u.read_bytes, base),
            units_fmt_bytes(b, sizeof b, u.write_bytes, base));
    fprintf(out, "%s", units_fmt_bytes(a, sizeof a, u.metered_bytes, base));
    if (l->has_credits)
        fprintf(out, "; credits used %s", units_fmt_bytes(a, sizeof a, fmax(u.credits_used, 0), base));
    if (l->has_prices)
        fprintf(out, "; cost %.4f %s", u.cost, l->currency);
    fprintf(out, "</p>\n");
}

static int set(json_t *o, const char *k, json_t *v)
{
    return o && v ? json_object_set_new(o, k, v) : -1;
}

static json_t *judged(double measured, double cap)
{
    return json_string(limits_judgement_name(limits_judge(measured, cap)));
}

int limits_result_json(json_t *root, const struct run_result *r)
{
    const struct limits *l = r->limits;
    const struct limits_forecast *f = r->forecast;
    struct limits_usage u;
    json_t *lj, *cj, *pj, *phases;
    int bad = 0;

    if (!l)
        return 0;
    limits_usage(l, r, &u);
    lj = json_object();
    bad |= set(lj, "file", json_string(l->path));
    bad |= set(lj, "name", json_string(l->name));
    bad |= set(lj, "fs_size_bytes", json_real(l->fs_size_bytes));
    bad |= set(lj, "client_throughput_bps", json_real(l->client_bps));
    bad |= set(lj, "client_iops", json_real(l->client_iops));
    bad |= set(lj, "fs_throughput_bps", json_real(l->fs_bps));
    bad |= set(lj, "fs_iops", json_real(l->fs_iops));
    bad |= set(lj, "read_metering", json_real(l->read_metering));
    bad |= set(lj, "write_metering", json_real(l->write_metering));
    bad |= set(lj, "at_cap_pct", json_real(LIMITS_AT_CAP_PCT));
    phases = json_array();
    for (uint32_t i = 0; i < r->nphases && phases; i++) {
        struct limits_rates fr;
        json_t *ph = json_object(), *fl = json_object(), *ags = json_array();
        limits_rates(l, r, i, UINT32_MAX, &fr);
        bad |= set(ph, "phase", json_string(r->phases[i].name));
        bad |= set(fl, "bps", json_real(fr.bps));
        bad |= set(fl, "metered_bps", json_real(fr.metered_bps));
        bad |= set(fl, "iops", json_real(fr.iops));
        bad |= set(fl, "fs_throughput", judged(fr.metered_bps, l->fs_bps));
        bad |= set(fl, "fs_iops", judged(fr.iops, l->fs_iops));
        for (uint32_t ag = 0; ag < r->nagents && ags; ag++) {
            struct limits_rates ar;
            json_t *aj = json_object();
            limits_rates(l, r, i, ag, &ar);
            bad |= set(aj, "agent", json_integer(ag));
            bad |= set(aj, "bps", json_real(ar.bps));
            bad |= set(aj, "iops", json_real(ar.iops));
            bad |= set(aj, "client_throughput", judged(ar.bps, l->client_bps));
            bad |= set(aj, "client_iops", judged(ar.iops, l->client_iops));
            bad |= aj ? json_array_append_new(ags, aj) : -1;
        }
        bad |= set(ph, "fleet", fl);
        bad |= set(ph, "agents", ags);
        bad |= ph ? json_array_append_new(phases, ph) : -1;
    }
    bad |= set(lj, "phases", phases);
    bad |= set(root, "limits", lj);

    if (l->has_credits) {
        cj = json_object();
        bad |= set(cj, "initial_bytes", json_real(l->credits_initial));
        bad |= set(cj, "baseline_bps", json_real(limits_baseline_bps(l)));
        bad |= set(cj, "burst_bps", json_real(limits_burst_bps(l)));
        bad |= set(cj, "metered_bytes", json_real(u.metered_bytes));
        bad |= set(cj, "used_bytes", json_real(u.credits_used));
        bad |= set(cj, "left_bytes", json_real(u.credits_left));
        bad |= set(cj, "exhausted_at_s", u.exhausted_at_s >= 0 ? json_real(u.exhausted_at_s) : json_null());
        if (f && f->load_known) {
            bad |= set(cj, "forecast_metered_bps", json_real(f->metered_bps));
            bad |= set(cj, "forecast_drain_s", f->drain_s >= 0 ? json_real(f->drain_s) : json_null());
            bad |= set(cj, "run_shorter_than_drain", json_boolean(f->drain_s >= 0 && f->shorter_than_drain));
        }
        bad |= set(root, "credits", cj);
    }
    pj = json_object();
    bad |= set(pj, "currency", json_string(l->currency));
    bad |= set(pj, "read_bytes", json_real(u.read_bytes));
    bad |= set(pj, "write_bytes", json_real(u.write_bytes));
    bad |= set(pj, "metered_bytes", json_real(u.metered_bytes));
    bad |= set(pj, "read", json_real(u.cost_read));
    bad |= set(pj, "write", json_real(u.cost_write));
    bad |= set(pj, "time", json_real(u.cost_time));
    bad |= set(pj, "total", json_real(u.cost));
    if (f && f->load_known)
        bad |= set(pj, "forecast_total", json_real(f->cost));
    bad |= set(root, "cost", pj);
    return bad ? -ENOMEM : 0;
}
