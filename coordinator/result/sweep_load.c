/* sweep_load: a result file's sweeps[] back into the model (sweep.h), so
 * `nfstorm report` re-renders a sweep's table, headline, JSON, CSV and HTML
 * as the run did.  The file is untrusted: every count, index and string is
 * bounded before use, and a bad field names its path. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "common/xmalloc.h"
#include "coordinator/run/sweep.h"
#include "common/why.h"

static int num(json_t *o, const char *key, double *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return isfinite(*v) ? 0 : -1;
}

static int u64(json_t *o, const char *key, uint64_t *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return -1;
    *v = (uint64_t)json_integer_value(x);
    return 0;
}

static int load_point(json_t *pj, const char *at, uint32_t nagents, uint32_t nphases, struct sweep_point *pt,
                      char *err, size_t errlen)
{
    json_t *lat = json_object_get(pj, "lat_ns"), *agents = json_object_get(pj, "agents"),
           *reasons = json_object_get(pj, "reasons"), *cv = json_object_get(pj, "cv_pct"), *v;
    uint64_t phase;
    size_t i;

    pt->agent = xcalloc(nagents ? nagents : 1, sizeof *pt->agent);
    pt->late_ops = xcalloc(nagents ? nagents : 1, sizeof *pt->late_ops);
    pt->late_ns = xcalloc(nagents ? nagents : 1, sizeof *pt->late_ns);
    pt->cpu_pct = xcalloc(nagents ? nagents : 1, sizeof *pt->cpu_pct);
    for (uint32_t a = 0; a < nagents; a++)
        pt->agent[a] = -1;
    if (u64(pj, "phase", &phase) || phase >= nphases)
        return why_fail(err, errlen, "%s.phase: not a phase index below %u", at, nphases);
    pt->phase = (uint32_t)phase;
    if (u64(pj, "requested", &pt->requested) || num(pj, "achieved", &pt->achieved) ||
        num(pj, "share", &pt->share) || u64(pj, "slo_latency_ns", &pt->slo_lat_ns))
        return why_fail(err, errlen, "%s: requested, achieved, share and slo_latency_ns must be numbers", at);
    (void)num(pj, "achieved_bw", &pt->achieved_bw);   /* absent in older files */
    if (json_object_get(pj, "per_thread") && u64(pj, "per_thread", &pt->per_thread))
        return why_fail(err, errlen, "%s.per_thread: not a count", at);
    if (!json_is_object(lat) || num(lat, "mean", &pt->lat_mean) || u64(lat, "p50", &pt->lat_p50) ||
        u64(lat, "p90", &pt->lat_p90) || u64(lat, "p99", &pt->lat_p99) || u64(lat, "p999", &pt->lat_p999) ||
        u64(lat, "max", &pt->lat_max))
        return why_fail(err, errlen, "%s.lat_ns: want mean, p50, p90, p99, p999, max", at);
    if (json_is_null(cv))
        pt->cv_pct = -1;
    else if (num(pj, "cv_pct", &pt->cv_pct))
        return why_fail(err, errlen, "%s.cv_pct: not a number or null", at);
    if (!json_is_boolean(json_object_get(pj, "valid")))
        return why_fail(err, errlen, "%s.valid: not a boolean", at);
    pt->valid = json_is_true(json_object_get(pj, "valid"));
    pt->slo_met = json_is_true(json_object_get(pj, "slo_met"));
    if (!json_is_array(agents))
        return why_fail(err, errlen, "%s.agents: not an array", at);
    json_array_foreach(agents, i, v) {
        uint64_t id;
        double x;
        if (u64(v, "id", &id) || id >= nagents || num(v, "achieved", &x) || x < 0)
            return why_fail(err, errlen, "%s.agents[%zu]: want an id below %u and achieved", at, i, nagents);
        pt->agent[id] = x;
        /* schedule debt and CPU: absent in files written before them */
        (void)u64(v, "late_ops", &pt->late_ops[id]);
        (void)u64(v, "late_ns", &pt->late_ns[id]);
        (void)num(v, "cpu_pct", &pt->cpu_pct[id]);
    }
    if (!json_is_array(reasons))
        return why_fail(err, errlen, "%s.reasons: not an array", at);
    pt->reasons[0] = '\0';
    json_array_foreach(reasons, i, v) {
        size_t n = strlen(pt->reasons);
        if (!json_is_string(v))
            return why_fail(err, errlen, "%s.reasons[%zu]: not a string", at, i);
        snprintf(pt->reasons + n, sizeof pt->reasons - n, "%s%s", n ? "; " : "", json_string_value(v));
    }
    return 0;
}

int sweep_from_json(void *json, uint32_t nagents, uint32_t nphases, struct sweep_set **out, char *err,
                    size_t errlen)
{
    json_t *arr = json;
    struct sweep_set *s;
    size_t i;
    json_t *sj;

    *out = NULL;
    if (!json_is_array(arr) || json_array_size(arr) > PLAN_MAX_PHASES)
        return why_fail(err, errlen, "sweeps: not an array of at most %d sweeps", PLAN_MAX_PHASES);
    s = xcalloc(1, sizeof *s);
    s->nagents = nagents;
    s->runs = xcalloc(json_array_size(arr) ? json_array_size(arr) : 1, sizeof *s->runs);
    json_array_foreach(arr, i, sj) {
        struct sweep_run *w = &s->runs[s->n++];
        json_t *th = json_object_get(sj, "thresholds"), *pts = json_object_get(sj, "points"), *pj;
        const char *job = json_string_value(json_object_get(sj, "job"));
        const char *dim = json_string_value(json_object_get(sj, "dimension"));
        const char *slo = json_string_value(json_object_get(sj, "slo"));
        const char *mode = json_string_value(json_object_get(sj, "mode"));
        char at[64], why[256];
        size_t k;

        snprintf(at, sizeof at, "sweeps[%zu]", i);
        w->spec.resolution_pct = SWEEP_DEFAULT_RESOLUTION;
        if (!job || strlen(job) >= sizeof w->spec.base)
            goto fail_text;
        snprintf(w->spec.base, sizeof w->spec.base, "%s", job);
        for (uint32_t d = SWEEP_RATE_IOPS; d <= SWEEP_AGENTS && dim; d++)
            if (strcmp(dim, plan_sweep_dim_name(d)) == 0)
                w->spec.dim = d;
        if (!w->spec.dim) {
            why_fail(err, errlen, "%s.dimension: not rate_iops, rate, iodepth, numjobs or agents", at);
            goto fail;
        }
        if (slo && plan_sweep_parse_slo(slo, &w->spec, why, sizeof why)) {
            why_fail(err, errlen, "%s.slo: %s", at, why);
            goto fail;
        }
        if (!json_is_object(th) || num(th, "achieved_pct", &w->spec.achieved_pct) ||
            num(th, "agent_pct", &w->spec.agent_pct) || num(th, "cv_pct", &w->spec.cv_pct)) {
            why_fail(err, errlen, "%s.thresholds: want achieved_pct, agent_pct, cv_pct", at);
            goto fail;
        }
        (void)num(th, "resolution_pct", &w->spec.resolution_pct);
        if (!json_is_array(pts) || json_array_size(pts) > SWEEP_MAX_VALUES) {
            why_fail(err, errlen, "%s.points: not an array of at most %d points", at, SWEEP_MAX_VALUES);
            goto fail;
        }
        json_array_foreach(pts, k, pj) {
            char pat[96];
            snprintf(pat, sizeof pat, "%s.points[%zu]", at, k);
            w->npoints++;
            if (!json_is_object(pj)) {
                why_fail(err, errlen, "%s: not an object", pat);
                goto fail;
            }
            if (load_point(pj, pat, nagents, nphases, &w->points[k], err, errlen))
                goto fail;
        }
        /* a values sweep is known by its count; its values are the points' */
        if (mode && strcmp(mode, "values") == 0) {
            w->spec.nvalues = w->npoints;
            for (uint32_t p = 0; p < w->npoints; p++)
                w->spec.values[p] = w->points[p].requested;
        }
        w->spec.npoints = w->npoints;
        continue;
fail_text:
        why_fail(err, errlen, "%s.job: not a job name", at);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    sweep_set_free(s);
    return -EINVAL;
}
