/* sweep_report: a sweep's points as JSON (sweeps[]), as text (one table and
 * the headline), and --dry-run's plan of the search.  Reads what
 * coordinator/run/sweep.c judged; no judgement here. */
#include <jansson.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "common/units.h"
#include "coordinator/result/result.h"
#include "coordinator/report/csv.h"
#include "coordinator/report/svg.h"
#include "coordinator/run/sweep.h"
#include "coordinator/report/jint.h"

static json_t *point_json(const struct sweep_set *s, const struct sweep_run *w, const struct run_result *res,
                          const struct sweep_point *pt)
{
    json_t *o = json_object(), *agents = json_array(), *lat = json_object(), *reasons = json_array();
    json_object_set_new(o, "phase", json_integer(pt->phase));
    json_object_set_new(o, "name", json_string(res->phases[pt->phase].name));
    json_object_set_new(o, "requested", json_integer((json_int_t)pt->requested));
    if (pt->per_thread)
        json_object_set_new(o, "per_thread", json_integer((json_int_t)pt->per_thread));
    json_object_set_new(o, "achieved", jreal_or_zero(pt->achieved));
    json_object_set_new(o, "achieved_bw", jreal_or_zero(pt->achieved_bw));
    if (w->spec.dim == SWEEP_AGENTS) {
        /* the scale-out curve: throughput per agent relative to one agent's */
        const struct sweep_point *one = NULL;
        for (uint32_t k = 0; k < w->npoints; k++)
            if (w->points[k].requested == 1)
                one = &w->points[k];
        json_object_set_new(o, "per_agent_relative", one && one->achieved > 0 && pt->requested
                            ? jreal_or_zero(pt->achieved / (double)pt->requested / one->achieved) : json_null());
    }
    json_object_set_new(o, "share", jreal_or_zero(pt->share));
    for (uint32_t a = 0; a < s->nagents; a++) {
        json_t *ag;
        if (pt->agent[a] < 0)
            continue;
        ag = json_object();
        json_object_set_new(ag, "id", json_integer(a));
        json_object_set_new(ag, "achieved", jreal_or_zero(pt->agent[a]));
        json_object_set_new(ag, "share_pct", jreal_or_zero(pt->share > 0 ? 100.0 * pt->agent[a] / pt->share : 0));
        json_object_set_new(ag, "late_ops", json_integer((json_int_t)pt->late_ops[a]));
        json_object_set_new(ag, "late_ns", json_integer((json_int_t)pt->late_ns[a]));
        json_object_set_new(ag, "cpu_pct", jreal_or_zero(pt->cpu_pct[a]));
        json_array_append_new(agents, ag);
    }
    json_object_set_new(o, "agents", agents);
    {
        /* the fleet's schedule debt: the agents' summed */
        json_t *debt = json_object();
        uint64_t ops = 0, ns = 0;
        for (uint32_t a = 0; a < s->nagents; a++)
            if (pt->agent[a] >= 0) {
                ops += pt->late_ops[a];
                ns += pt->late_ns[a];
            }
        json_object_set_new(debt, "late_ops", json_integer((json_int_t)ops));
        json_object_set_new(debt, "late_ns", json_integer((json_int_t)ns));
        json_object_set_new(o, "schedule_debt", debt);
    }
    json_object_set_new(lat, "mean", jreal_or_zero(pt->lat_mean));
    json_object_set_new(lat, "p50", json_integer((json_int_t)pt->lat_p50));
    json_object_set_new(lat, "p90", json_integer((json_int_t)pt->lat_p90));
    json_object_set_new(lat, "p99", json_integer((json_int_t)pt->lat_p99));
    json_object_set_new(lat, "p999", json_integer((json_int_t)pt->lat_p999));
    json_object_set_new(lat, "max", json_integer((json_int_t)pt->lat_max));
    json_object_set_new(o, "lat_ns", lat);
    json_object_set_new(o, "slo_latency_ns", json_integer((json_int_t)pt->slo_lat_ns));
    json_object_set_new(o, "cv_pct", pt->cv_pct < 0 ? json_null() : jreal_or_zero(pt->cv_pct));
    json_object_set_new(o, "valid", json_boolean(pt->valid));
    {
        char buf[SWEEP_REASON_MAX], *save = NULL;
        snprintf(buf, sizeof buf, "%s", pt->reasons);
        for (char *r = strtok_r(buf, ";", &save); r; r = strtok_r(NULL, ";", &save))
            json_array_append_new(reasons, json_string(r[0] == ' ' ? r + 1 : r));
    }
    json_object_set_new(o, "reasons", reasons);
    json_object_set_new(o, "slo_met", w->spec.nslo ? json_boolean(pt->slo_met) : json_null());
    return o;
}

void *sweep_json(const struct sweep_set *s, const struct run_result *res)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; s && i < s->n; i++) {
        const struct sweep_run *w = &s->runs[i];
        json_t *o = json_object(), *th = json_object(), *pts = json_array(), *cap = json_object(),
               *knee = json_object();
        struct sweep_outcome oc;
        char slo[160];

        sweep_outcome(w, &oc);
        json_object_set_new(o, "job", json_string(w->spec.base));
        json_object_set_new(o, "dimension", json_string(plan_sweep_dim_name(w->spec.dim)));
        json_object_set_new(o, "unit", json_string(plan_sweep_unit(w->spec.dim)));
        json_object_set_new(o, "slo", w->spec.nslo ? json_string(plan_sweep_slo_text(&w->spec, slo, sizeof slo))
                                                     : json_null());
        json_object_set_new(o, "mode", json_string(w->spec.nvalues ? "values" : "search"));
        json_object_set_new(th, "achieved_pct", jreal_or_zero(w->spec.achieved_pct));
        json_object_set_new(th, "agent_pct", jreal_or_zero(w->spec.agent_pct));
        json_object_set_new(th, "cv_pct", jreal_or_zero(w->spec.cv_pct));
        if (!w->spec.nvalues)
            json_object_set_new(th, "resolution_pct", jreal_or_zero(w->spec.resolution_pct));
        json_object_set_new(o, "thresholds", th);
        for (uint32_t k = 0; k < w->npoints; k++)   /* in the order they ran */
            json_array_append_new(pts, point_json(s, w, res, &w->points[k]));
        json_object_set_new(o, "points", pts);
        if (oc.cap_point >= 0) {
            const struct sweep_point *c = &w->points[oc.cap_point];
            json_object_set_new(cap, "value", json_integer((json_int_t)c->requested));
            json_object_set_new(cap, "achieved", jreal_or_zero(c->achieved));
            json_object_set_new(cap, "latency", json_integer((json_int_t)c->slo_lat_ns));   /* ns */
        } else {
            json_object_set_new(cap, "value", json_integer(0));
            json_object_set_new(cap, "achieved", json_null());
            json_object_set_new(cap, "latency", json_null());
        }
        json_object_set_new(cap, "bracketed", json_boolean(oc.bracketed));
        json_object_set_new(o, "capacity", cap);
        json_object_set_new(knee, "value", oc.knee_point >= 0
                            ? json_integer((json_int_t)w->points[oc.knee_point].requested) : json_null());
        json_object_set_new(knee, "rule", json_string("the lowest point whose SLO latency statistic (p99 "
                                                      "without an SLO) exceeds twice its value at the "
                                                      "lowest point"));
        json_object_set_new(o, "knee", knee);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* "41.2k IOPS", "1.2GiB/s", "8 iodepth" */
static char *fmt_value(char *buf, size_t len, uint32_t dim, double v)
{
    char n[32];
    if (dim == SWEEP_RATE)
        return units_fmt_rate(buf, len, v, 1024);
    if (dim == SWEEP_RATE_IOPS) {
        snprintf(buf, len, "%s IOPS", units_fmt_count(n, sizeof n, v));
        return buf;
    }
    snprintf(buf, len, "%s=%.0f", plan_sweep_dim_name(dim), v);
    return buf;
}

/* "4.8 ms", "120 us" */
static char *fmt_lat(char *buf, size_t len, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.2f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.0f us", ns / 1e3);
    return buf;
}

static void slo_words(const struct sweep_spec *sp, uint32_t k, char *buf, size_t len)
{
    const struct sweep_slo *c = &sp->slo[k];
    char l[32];
    if (c->pct_milli)
        snprintf(buf, len, "p%g", c->pct_milli / 1000.0);
    else
        snprintf(buf, len, "mean");
    if (k < sp->nslo) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " <= %s", fmt_lat(l, sizeof l, (double)c->limit_ns));
    }
}

void sweep_text(FILE *f, const struct sweep_set *s, const struct run_result *res)
{
    for (uint32_t i = 0; s && i < s->n; i++) {
        const struct sweep_run *w = &s->runs[i];
        struct sweep_outcome oc;
        uint32_t idx[SWEEP_MAX_VALUES];
        char a[48], b[48], c[32], d[32], st[48] = "p99";
        const char *stat = st;

        sweep_outcome(w, &oc);
        sweep_sorted(w, idx);
        if (w->spec.nslo) {
            slo_words(&w->spec, 0, st, sizeof st);
            *strchr(st, ' ') = '\0';
        }
        fprintf(f, "\nsweep %s: %s, %u point%s\n", w->spec.base, plan_sweep_dim_name(w->spec.dim), w->npoints,
                w->npoints == 1 ? "" : "s");
        fprintf(f, "  %-22s %-16s %-16s %10s %10s %7s  %-7s %-5s %s\n", "point", "requested", "achieved",
                stat, "p99.9", "cv", "valid", "slo", "reasons");
        for (uint32_t k = 0; k < w->npoints; k++) {
            const struct sweep_point *pt = &w->points[idx[k]];
            char cv[16];
            if (pt->cv_pct < 0)
                snprintf(cv, sizeof cv, "-");
            else
                snprintf(cv, sizeof cv, "%.1f%%", pt->cv_pct);
            fprintf(f, "  %-22s %-16s %-16s %10s %10s %7s  %-7s %-5s %s\n", res->phases[pt->phase].name,
                    fmt_value(a, sizeof a, w->spec.dim, (double)pt->requested),
                    fmt_value(b, sizeof b, w->spec.dim == SWEEP_RATE ? SWEEP_RATE : SWEEP_RATE_IOPS, pt->achieved),
                    fmt_lat(c, sizeof c, (double)pt->slo_lat_ns), fmt_lat(d, sizeof d, (double)pt->lat_p999), cv,
                    pt->valid ? "yes" : "no", !w->spec.nslo ? "-" : pt->slo_met ? "met" : "miss", pt->reasons);
        }
        /* the headline */
        fprintf(f, "capacity: ");
        if (oc.cap_point < 0) {
            fprintf(f, "none (no point passed)");
        } else {
            const struct sweep_point *cp = &w->points[oc.cap_point];
            fprintf(f, "%s%s at %s %s", oc.bracketed ? "" : ">= ",
                    fmt_value(a, sizeof a, w->spec.dim, (double)cp->requested), stat,
                    fmt_lat(c, sizeof c, (double)cp->slo_lat_ns));
        }
        if (w->spec.nslo) {
            char sl[160] = "";
            for (uint32_t k = 0; k < w->spec.nslo; k++) {
                char one[64];
                slo_words(&w->spec, k, one, sizeof one);
                snprintf(sl + strlen(sl), sizeof sl - strlen(sl), "%s%s", k ? ", " : "", one);
            }
            fprintf(f, " (SLO %s)", sl);
        }
        if (oc.knee_point >= 0)
            fprintf(f, "; knee %s", fmt_value(a, sizeof a, w->spec.dim, (double)w->points[oc.knee_point].requested));
        else
            fprintf(f, "; no knee");
        fprintf(f, "; %u point%s, %u invalid", w->npoints, w->npoints == 1 ? "" : "s", oc.ninvalid);
        for (uint32_t k = 0; k < w->npoints; k++) {
            const struct sweep_point *pt = &w->points[idx[k]];
            if (!pt->valid) {
                const char *semi = strchr(pt->reasons, ';');
                fprintf(f, " (%.*s)", semi ? (int)(semi - pt->reasons) : (int)strlen(pt->reasons), pt->reasons);
                break;
            }
        }
        fprintf(f, "\n");
    }
}

void sweep_dry_run(FILE *f, const struct plan *p)
{
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct job_spec *j = p->phases[i].njobs == 1 ? &p->phases[i].jobs[0] : NULL;
        char v[48];
        if (!j || !j->sweep.dim || j->sweep.point != 0)
            continue;
        const struct sweep_spec *sp = &j->sweep;
        uint64_t each = j->ramp_ns + j->runtime_ns;
        fprintf(f, "sweep %s: %s, ", sp->base, plan_sweep_dim_name(sp->dim));
        if (sp->nvalues) {
            fprintf(f, "points");
            for (uint32_t k = 0; k < sp->nvalues; k++)
                fprintf(f, " %s", fmt_value(v, sizeof v, sp->dim, (double)sp->values[k]));
        } else {
            uint64_t pts[SWEEP_MAX_VALUES];
            uint32_t n = plan_sweep_doubling(sp->start, sp->max, pts, SWEEP_MAX_VALUES);
            fprintf(f, "doubling points");
            for (uint32_t k = 0; k < n; k++)
                fprintf(f, " %s", fmt_value(v, sizeof v, sp->dim, (double)pts[k]));
            fprintf(f, ", then bisection to %g%%%s (at most %u points)", sp->resolution_pct,
                    sp->dim == SWEEP_RATE_IOPS || sp->dim == SWEEP_RATE ? "" : " or adjacent values", sp->npoints);
        }
        fprintf(f, "; worst case %u x %.0f s = %.0f s\n", sp->npoints, (double)each / 1e9,
                (double)each * sp->npoints / 1e9);
    }
}

void sweep_csv(FILE *f, const struct sweep_set *s, const struct run_result *res)
{
    fprintf(f, "sweep,dimension,point,phase,requested,per_thread,achieved,agent,agent_achieved,share_pct,"
               "late_ops,late_ns,cpu_pct,"
               "lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,cv_pct,valid,slo_met,reasons\n");
    for (uint32_t i = 0; s && i < s->n; i++) {
        const struct sweep_run *w = &s->runs[i];
        for (uint32_t k = 0; k < w->npoints; k++) {
            const struct sweep_point *pt = &w->points[k];
            /* one row for the fleet (agent empty), then one per running agent */
            for (int64_t a = -1; a < (int64_t)s->nagents; a++) {
                if (a >= 0 && pt->agent[a] < 0)
                    continue;
                fprintf(f, "%s,%s,%s,%u,%llu,%llu,%.3f,", w->spec.base, plan_sweep_dim_name(w->spec.dim),
                        res->phases[pt->phase].name, pt->phase, (unsigned long long)pt->requested,
                        (unsigned long long)pt->per_thread, pt->achieved);
                if (a < 0)
                    fprintf(f, ",,,,,,");
                else
                    fprintf(f, "%lld,%.3f,%.1f,%llu,%llu,%.1f,", (long long)a, pt->agent[a],
                            pt->share > 0 ? 100.0 * pt->agent[a] / pt->share : 0,
                            (unsigned long long)pt->late_ops[a], (unsigned long long)pt->late_ns[a], pt->cpu_pct[a]);
                fprintf(f, "%.0f,%llu,%llu,%llu,%llu,%llu,", pt->lat_mean, (unsigned long long)pt->lat_p50,
                        (unsigned long long)pt->lat_p90, (unsigned long long)pt->lat_p99,
                        (unsigned long long)pt->lat_p999, (unsigned long long)pt->lat_max);
                if (pt->cv_pct >= 0)
                    fprintf(f, "%.2f", pt->cv_pct);
                fprintf(f, ",%d,%s,", pt->valid, !w->spec.nslo ? "" : pt->slo_met ? "1" : "0");
                csv_field(f, pt->reasons);
                fputc('\n', f);
            }
        }
    }
}

void sweep_html(FILE *f, const struct sweep_set *s, const struct run_result *res)
{
    for (uint32_t i = 0; s && i < s->n; i++) {
        const struct sweep_run *w = &s->runs[i];
        uint32_t idx[SWEEP_MAX_VALUES], n = w->npoints, na = s->nagents;
        double req[SWEEP_MAX_VALUES], ach[SWEEP_MAX_VALUES], bad[SWEEP_MAX_VALUES];
        double p50[SWEEP_MAX_VALUES], p99[SWEEP_MAX_VALUES], p999[SWEEP_MAX_VALUES];
        double (*ag)[SWEEP_MAX_VALUES] = calloc(na ? na : 1, sizeof *ag);
        struct svg_series *ser = calloc(na + 3, sizeof *ser);
        char (*names)[32] = calloc(na ? na : 1, sizeof *names);
        int bytes = w->spec.dim == SWEEP_RATE;
        if (!ag || !ser || !names || n == 0) {
            free(ag); free(ser); free(names);
            continue;
        }
        sweep_sorted(w, idx);
        for (uint32_t k = 0; k < n; k++) {
            const struct sweep_point *pt = &w->points[idx[k]];
            req[k] = (double)pt->requested;
            ach[k] = pt->achieved;
            bad[k] = pt->valid ? NAN : pt->achieved;
            p50[k] = (double)pt->lat_p50;
            p99[k] = (double)pt->lat_p99;
            p999[k] = (double)pt->lat_p999;
            for (uint32_t a = 0; a < na; a++)   /* each agent scaled to the fleet: achieved x agents */
                ag[a][k] = pt->agent[a] < 0 || pt->share <= 0 ? NAN : pt->agent[a] / pt->share * pt->requested;
        }
        fprintf(f, "<h2>Sweep ");
        svg_escape(f, w->spec.base);
        fprintf(f, " <small>(%s, %u points)</small></h2>\n<div class=\"grid\">\n", plan_sweep_dim_name(w->spec.dim), n);
        {
            size_t ns = 0;
            struct svg_chart c = { .view = "sweep-achieved", .title = "Achieved vs requested",
                                   .xlabel = "requested", .ylabel = "achieved",
                                   .xfmt = bytes ? svg_fmt_rate : svg_fmt_count,
                                   .yfmt = bytes ? svg_fmt_rate : svg_fmt_count };
            ser[ns++] = (struct svg_series){ .name = "y = x", .x = req, .y = req, .n = n, .dashed = 1 };
            ser[ns++] = (struct svg_series){ .name = "fleet", .x = req, .y = ach, .n = n, .width = 3 };
            ser[ns++] = (struct svg_series){ .name = "invalid", .x = req, .y = bad, .n = n, .dotted = 1 };
            for (uint32_t a = 0; a < na; a++) {
                int any = 0;
                for (uint32_t k = 0; k < n; k++)
                    any |= !isnan(ag[a][k]);
                if (!any)
                    continue;
                snprintf(names[a], sizeof names[a], "agent %u (x agents)", a);
                ser[ns++] = (struct svg_series){ .name = names[a], .x = req, .y = ag[a], .n = n, .width = 1 };
            }
            svg_lines(f, &c, ser, ns);
        }
        {
            struct svg_chart c = { .view = "sweep-latency", .title = "Latency vs achieved",
                                   .xlabel = "achieved", .ylabel = "latency",
                                   .xfmt = bytes ? svg_fmt_rate : svg_fmt_count, .yfmt = svg_fmt_ns, .logy = 1 };
            struct svg_series l[3] = {
                { .name = "p50", .x = ach, .y = p50, .n = n },
                { .name = "p99", .x = ach, .y = p99, .n = n, .width = 3 },
                { .name = "p99.9", .x = ach, .y = p999, .n = n },
            };
            svg_lines(f, &c, l, 3);
        }
        fprintf(f, "</div>\n<pre>");
        {
            /* the text table and headline, escaped */
            char *buf = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&buf, &len);
            struct sweep_set one = { .n = 1, .runs = (struct sweep_run *)w, .nagents = s->nagents };
            if (m) {
                sweep_text(m, &one, res);
                fclose(m);
                svg_escape(f, buf);
                free(buf);
            }
        }
        fprintf(f, "</pre>\n");
        free(ag);
        free(ser);
        free(names);
    }
}
