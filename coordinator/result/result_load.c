/* result_load: JSON result -> run_result (see result_load.h).
 *
 * Design: the walkers read through the jread.h cursor (struct jr), which
 * names the file and the JSON path of whatever fails; the top checks its
 * flag once.
 *
 * Histograms: every lat_ns and svc_ns (phase, agent and interval) carries
 * its histogram as "hist" in the one form (common/hist_codec.h), read back
 * exactly through the one decoder, so every re-rendered report equals the
 * run's own (docs/reports.md). */
#include "coordinator/run/phase_ctl.h"
#include "coordinator/result/result_load.h"
#include "coordinator/result/jread.h"
#include "common/changepoint.h"
#include "coordinator/result/changes.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/hist_codec.h"
#include "common/xmalloc.h"
#include "coordinator/report/client_json.h"
#include "coordinator/report/hist_json.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/report/coherence_report.h"
#include "common/vblock.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/verify_json.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/report/jint.h"

#define MAX_AGENTS 4096

/* lat_ns or svc_ns: the histogram is "hist" (hist_json.h, checked by the
 * one decoder); min, max and the percentiles beside it are derived from it
 * and must agree with it (a hand-edited file that does not is refused). */
static void load_lat(struct jr *c, json_t *lat, const char *path, uint64_t ops, struct hist *h)
{
    static const char *const pk[4] = { "p50", "p90", "p99", "p999" };
    static const double q[4] = { 50.0, 90.0, 99.0, 99.9 };
    uint64_t pct[4], min, max;
    char sub[512], why[160];
    json_t *hj;

    hist_init(h);
    min = jr_u64(c, lat, path, "min", INT64_MAX);
    for (int i = 0; i < 4; i++)
        pct[i] = jr_u64(c, lat, path, pk[i], INT64_MAX);
    max = jr_u64(c, lat, path, "max", INT64_MAX);
    hj = jr_get(c, lat, path, "hist", sub, sizeof(sub));
    if (!hj)
        return;
    if (hist_json_decode(hj, h, why, sizeof(why)) < 0)
        return jr_fail(c, sub, "%s", why);
    if (h->count > ops)
        return jr_fail(c, sub, "count %llu is above ops %llu", (unsigned long long)h->count,
                    (unsigned long long)ops);
    if (min != hist_enc_min(h) || max != h->max_ns)
        return jr_fail(c, path, "min/max %llu/%llu disagree with the histogram's %llu/%llu",
                    (unsigned long long)min, (unsigned long long)max,
                    (unsigned long long)hist_enc_min(h), (unsigned long long)h->max_ns);
    for (int i = 0; i < 4; i++)
        if (pct[i] != hist_percentile(h, q[i]))
            return jr_fail(c, path, "%s %llu disagrees with the histogram's %llu", pk[i],
                        (unsigned long long)pct[i], (unsigned long long)hist_percentile(h, q[i]));
}

/* The optional keys of an op type: timeouts, and svc_ns (rate-limited
 * jobs: the service time's histogram). */
static void load_op_extras(struct jr *c, json_t *v, const char *path, struct op_stats *o)
{
    char sub[512];
    json_t *svc = json_object_get(v, "svc_ns");

    if (json_object_get(v, "timeouts")) {
        o->timeouts = jr_u64(c, v, path, "timeouts", o->errors);
    }
    if (svc) {
        snprintf(sub, sizeof(sub), "%s.svc_ns", path);
        load_lat(c, svc, sub, o->ops, &o->svc);
    }
}

/* An "nfs" object (nfs_json.h): agent a's phase set, or (a < 0) the
 * fleet's interval k. */
static void load_nfs(struct jr *c, json_t *o, const char *path, struct run_result *r,
                     uint32_t phase, int a, uint32_t k)
{
    struct nfs_rpc_set s;
    char why[256];

    nfs_rpc_set_init(&s);
    if (nfs_json_decode(o, &s, why, sizeof why))
        jr_fail(c, path, "%s", why);
    else if (a >= 0)
        result_nfs_set_agent(r, phase, (uint32_t)a, &s);
    else
        result_nfs_add_fleet_interval(r, phase, k, &s);
    nfs_rpc_set_free(&s);
}

/* obj's "ops" object into s: {"read": {...}, "write": {...}}. */
static void load_ops(struct jr *c, json_t *obj, const char *opath, struct op_set *s)
{
    char path[512];
    json_t *o = jr_get(c, obj, opath, "ops", path, sizeof(path)), *v;
    const char *key;

    if (c->failed)
        return;
    if (!json_is_object(o))
        return jr_fail(c, path, "not an object");
    json_object_foreach(o, key, v) {
        int t = op_type_from_name(key);
        char sub[512], lsub[512];
        uint64_t ops, bytes, errors;
        json_t *lat;

        snprintf(sub, sizeof(sub), "%s.%s", path, key);
        if (t < 0)
            return jr_fail(c, sub, "unknown op type (want read or write)");
        ops = jr_u64(c, v, sub, "ops", INT64_MAX);
        bytes = jr_u64(c, v, sub, "bytes", INT64_MAX);
        errors = jr_u64(c, v, sub, "errors", INT64_MAX);
        if (!c->failed && errors > ops)
            return jr_fail(c, sub, "errors (%llu) above ops (%llu)", (unsigned long long)errors,
                        (unsigned long long)ops);
        s->op[t].ops = ops;
        s->op[t].bytes = bytes;
        s->op[t].errors = errors;
        if ((lat = jr_get(c, v, sub, "lat_ns", lsub, sizeof(lsub))))
            load_lat(c, lat, lsub, ops, &s->op[t].lat);
        load_op_extras(c, v, sub, &s->op[t]);
    }
}

/* Column col[nagents] of integers in 0..max into out[a] (via set). */
static void load_column(struct jr *c, json_t *obj, const char *path, const char *key, uint32_t nagents,
                        uint64_t max, struct interval_slot *s, int t,
                        void (*set)(struct counters *cnt, int t, uint64_t v))
{
    char sub[512];
    json_t *col = jr_array(c, obj, path, key, nagents, nagents, sub, sizeof(sub));

    for (uint32_t a = 0; col && a < nagents && !c->failed; a++) {
        uint64_t n;

        if (jcount(json_array_get(col, a), max, &n) < 0)
            return jr_fail(c, sub, "[%u]: want an integer in 0..%llu", a, (unsigned long long)max);
        set(&s->agent[a], t, n);
    }
}

static void set_ops(struct counters *k, int t, uint64_t v) { k->ops[t] = v; }
static void set_bytes(struct counters *k, int t, uint64_t v) { k->bytes[t] = v; }
static void set_errors(struct counters *k, int t, uint64_t v) { k->errors[t] = v; }
static void set_reported(struct counters *k, int t, uint64_t v) { (void)t; k->reported = (uint8_t)v; }
static void set_inflight(struct counters *k, int t, uint64_t v) { (void)t; k->inflight = (uint32_t)v; }
static void set_oldest(struct counters *k, int t, uint64_t v) { (void)t; k->oldest_ns = v; }

/* An interval's per-agent counters in columns (report_json.c's
 * interval_agents_json): {"ops": {OP: {"ops", "bytes", ["errors"]}},
 * ["reported"], ["inflight", "oldest_ns"]}, every array nagents long.
 * Returns how many agents reported. */
static uint32_t load_agent_columns(struct jr *c, json_t *aj, const char *path, struct interval_slot *s,
                                   uint32_t nagents)
{
    char sub[512], osub[512];
    json_t *ops = jr_get(c, aj, path, "ops", sub, sizeof(sub)), *v;
    const char *key;
    uint32_t nrep = 0;

    for (uint32_t a = 0; a < nagents; a++)
        s->agent[a].reported = 1;     /* "reported" is written only when one did not */
    if (!c->failed && !json_is_object(ops))
        jr_fail(c, sub, "not an object");
    json_object_foreach(c->failed ? NULL : ops, key, v) {
        int t = op_type_from_name(key);

        snprintf(osub, sizeof(osub), "%s.%s", sub, key);
        if (t < 0)
            return jr_fail(c, osub, "unknown op type"), 0;
        load_column(c, v, osub, "ops", nagents, INT64_MAX, s, t, set_ops);
        load_column(c, v, osub, "bytes", nagents, INT64_MAX, s, t, set_bytes);
        if (json_object_get(v, "errors"))
            load_column(c, v, osub, "errors", nagents, INT64_MAX, s, t, set_errors);
        for (uint32_t a = 0; a < nagents && !c->failed; a++)
            if (s->agent[a].errors[t] > s->agent[a].ops[t])
                jr_fail(c, osub, "agent %u: errors (%llu) above ops (%llu)", a,
                     (unsigned long long)s->agent[a].errors[t], (unsigned long long)s->agent[a].ops[t]);
    }
    if (json_object_get(aj, "reported"))
        load_column(c, aj, path, "reported", nagents, 1, s, 0, set_reported);
    if (json_object_get(aj, "inflight") || json_object_get(aj, "oldest_ns")) {
        load_column(c, aj, path, "inflight", nagents, UINT32_MAX, s, 0, set_inflight);
        load_column(c, aj, path, "oldest_ns", nagents, INT64_MAX, s, 0, set_oldest);
    }
    for (uint32_t a = 0; a < nagents; a++)
        nrep += s->agent[a].reported;
    return nrep;
}

/* A run_record reader's outcome: it already wrote its one-line reason
 * (without the file name, which is put in front here). */
static void load_record_part(struct jr *c, int rc)
{
    char why[512];
    if (rc == 0 || c->failed)
        return;
    snprintf(why, sizeof why, "%s", c->err);
    c->failed = 1;
    snprintf(c->err, c->errlen, "%s: %s", c->file, why);
}

/* An agent's own measurements over its phase (client_json.h), optional. */
static void load_client(struct jr *c, json_t *obj, const char *path, struct run_result *r, uint32_t phase,
                        uint32_t a)
{
    struct client_sample *s;
    char why[200];

    if (c->failed || !json_is_object(obj) ||
        (!json_object_get(obj, "host") && !json_object_get(obj, "mountstats") &&
         !json_object_get(obj, "proxy")))
        return;
    s = xmalloc(sizeof *s);
    if (client_json_parse(obj, s, why, sizeof why) < 0)
        jr_fail(c, path, "%s", why);
    else
        client_result_set_phase(r, phase, a, s);
    free(s);
}

/* An agent's first op against the phase's start (start_lag_ns, present for
 * agents that issued ops): the file keeps differences only, so the phase's
 * t0 is placed at T0_BASE, far from 0 either way, and the agent's start at
 * t0 + lag; its start offset (start minus the earliest) comes out the same. */
#define T0_BASE (UINT64_C(1) << 62)
static uint64_t load_start_lag(struct jr *c, json_t *aj, const char *apath, struct phase_result *ph)
{
    int64_t lag = jr_i64(c, aj, apath, "start_lag_ns");

    if (lag < -(int64_t)(T0_BASE / 2) || lag > (int64_t)(T0_BASE / 2)) {
        char sub[512];
        snprintf(sub, sizeof(sub), "%s.start_lag_ns", apath);
        jr_fail(c, sub, "out of range");
        return 0;
    }
    ph->t0_ns = T0_BASE;
    return (uint64_t)((int64_t)T0_BASE + lag);
}

/* Agents without start_lag_ns (no ops, salvaged) keep start_offset_ns
 * from the earliest agent that has one, in the same frame. */
static void place_unlagged_starts(struct run_result *r, struct phase_result *ph, json_t *arr)
{
    uint64_t first = UINT64_MAX;

    for (uint32_t a = 0; a < r->nagents; a++)
        if (json_object_get(json_array_get(arr, a), "start_lag_ns") && ph->agents[a].start_ns < first)
            first = ph->agents[a].start_ns;
    for (uint32_t a = 0; a < r->nagents && first != UINT64_MAX; a++)
        if (!json_object_get(json_array_get(arr, a), "start_lag_ns"))
            ph->agents[a].start_ns += first;
}

/* "clones" (optional, docs/results.md): each job's and clone's fleet
 * figures; their ops, bytes and errors must sum to the phase's. */
static void load_clones(struct jr *c, json_t *pj, const char *path, struct run_result *r, uint32_t phase)
{
    char sub[512], esub[560], name[PLAN_NAME_MAX], why[200];
    json_t *arr = jr_array(c, pj, path, "clones", 0, RESULT_CLONES_MAX, sub, sizeof(sub));
    struct op_set *s = xmalloc(sizeof(*s)), *sum = xmalloc(sizeof(*sum));

    op_set_init(sum);
    for (size_t i = 0; arr && i < json_array_size(arr) && !c->failed; i++) {
        json_t *e = json_array_get(arr, i);
        uint64_t job, clone, rt;

        snprintf(esub, sizeof(esub), "%s[%zu]", sub, i);
        job = jr_u64(c, e, esub, "job", PLAN_MAX_JOBS - 1);
        clone = jr_u64(c, e, esub, "clone", PLAN_MAX_NUMJOBS - 1);
        rt = jr_u64(c, e, esub, "runtime_ns", INT64_MAX);
        jr_str(c, e, esub, "name", name, sizeof(name));
        op_set_init(s);
        load_ops(c, e, esub, s);
        if (c->failed)
            break;
        if (result_clones_put(r, phase, (uint32_t)job, (uint32_t)clone, name, rt, s, why, sizeof(why)) < 0)
            jr_fail(c, esub, "%s", why);
        for (int t = 0; t < OP__COUNT; t++) {
            sum->op[t].ops += s->op[t].ops;
            sum->op[t].bytes += s->op[t].bytes;
            sum->op[t].errors += s->op[t].errors;
        }
    }
    for (int t = 0; t < OP__COUNT && !c->failed; t++) {
        const struct op_stats *p = &r->phases[phase].totals.op[t];
        if (sum->op[t].ops != p->ops || sum->op[t].bytes != p->bytes || sum->op[t].errors != p->errors)
            jr_fail(c, sub, "the clones' %s ops or bytes do not sum to the phase's", op_type_name((enum op_type)t));
    }
    free(s);
    free(sum);
}

/* The phase's own fields, before its agents: what it ran and for how long. */
static void load_phase_head(struct jr *c, json_t *pj, const char *path, struct phase_result *ph)
{
    char sub[512], asub[512];
    int rw;

    jr_str(c, pj, path, "name", ph->name, sizeof(ph->name));
    jr_str(c, pj, path, "rw", asub, sizeof(asub));
    rw = c->failed ? 0 : rw_mode_from_name(asub);
    if (rw < 0) {
        snprintf(sub, sizeof(sub), "%s.rw", path);
        return jr_fail(c, sub, "unknown mode '%s'", asub);
    }
    ph->rw = (enum rw_mode)rw;
    ph->bs = jr_u64(c, pj, path, "bs", INT64_MAX);
    ph->rwmixread = json_object_get(pj, "rwmixread") ? (uint32_t)jr_u64(c, pj, path, "rwmixread", 100)
                                                     : RESULT_MIX_UNKNOWN;
    ph->jobs_differ = json_object_get(pj, "jobs_differ") && jr_bool(c, pj, path, "jobs_differ");
    ph->numjobs = (uint32_t)jr_u64(c, pj, path, "numjobs", UINT32_MAX);
    ph->njobs = (uint32_t)jr_u64(c, pj, path, "njobs", UINT32_MAX);
    ph->finished = jr_bool(c, pj, path, "finished");
    if (json_object_get(pj, "interrupted"))
        ph->interrupted = (uint8_t)jr_bool(c, pj, path, "interrupted");
    if (json_object_get(pj, "error_threshold"))
        ph->error_threshold = jr_u64(c, pj, path, "error_threshold", INT64_MAX);
    if (json_object_get(pj, "error_threshold_pct")) {
        ph->error_threshold_pct = jr_num(c, pj, path, "error_threshold_pct");
        if (ph->error_threshold_pct > 100.0) {
            snprintf(sub, sizeof(sub), "%s.error_threshold_pct", path);
            return jr_fail(c, sub, "want a percentage from 0 to 100");
        }
    }
    {   /* optional: results older than the key fail on a never-visible generation too */
        const char *cnv = json_string_value(json_object_get(pj, "coherence_never_visible"));
        ph->coh_never_warn = cnv && strcmp(cnv, "warn") == 0;
    }
    ph->duration_ns = jr_u64(c, pj, path, "duration_ns", INT64_MAX);
    ph->start_skew_ns = jr_u64(c, pj, path, "start_skew_ns", INT64_MAX);
    if (json_object_get(pj, "start_unix_ms"))     /* since external metrics (ext_metrics.h) */
        ph->t0_unix_ms = (int64_t)jr_u64(c, pj, path, "start_unix_ms", INT64_MAX);
    ph->interval_ms = (uint32_t)jr_u64(c, pj, path, "interval_ms", 3600000);
    load_ops(c, pj, path, &ph->totals);
    ph->asked_iops = ph->asked_bps = 0;      /* closed loop unless the file says */
    if (json_object_get(pj, "schedule_debt") && !c->failed) {
        char why[128];
        if (sched_debt_phase_load(json_object_get(pj, "schedule_debt"), ph, why, sizeof why) < 0)
            jr_fail(c, path, "%s", why);
    }

}

/* Agent a's part of the phase (aj at apath's parent sub): its totals into
 * the result, sealed, and what it carries beside them.  1 when it has
 * results (done), 0 otherwise or on a failure (c->failed says). */
static int load_phase_agent(struct jr *c, json_t *arr, const char *sub, uint32_t a, struct run_result *r,
                            struct phase_result *ph, struct op_set *tot)
{
    json_t *aj = json_array_get(arr, a), *cpu, *v;
    struct agent_phase one, *ap = &one;
    char apath[512], asub[512];
    uint32_t phase = (uint32_t)(ph - r->phases);

    memset(&one, 0, sizeof one);
    op_set_init(tot);

    snprintf(apath, sizeof(apath), "%s[%u]", sub, a);
    if (jr_u64(c, aj, apath, "id", MAX_AGENTS) != a && !c->failed) {
        jr_fail(c, apath, "id is not the agent's index %u", a);
        return 0;
    }
    ap->done = jr_bool(c, aj, apath, "done");
    /* verdict inputs, optional (files before verdicts take every agent
     * as taking part, and a lost agent's totals as salvaged) */
    ap->participating = json_object_get(aj, "participating") ?
                        (uint8_t)jr_bool(c, aj, apath, "participating") : 1;
    if (json_object_get(aj, "salvaged") && jr_bool(c, aj, apath, "salvaged"))
        ap->done = ap->salvaged = 1;
    else if (!json_object_get(aj, "salvaged") && ap->done && r->agents[a].lost)
        ap->salvaged = 1;
    if (json_object_get(aj, "error")) {
        char e[1024];
        jr_str(c, aj, apath, "error", e, sizeof(e));
        if (!c->failed && e[0])
            result_set_agent_error(r, phase, a, e);
    }
    load_ops(c, aj, apath, tot);
    cpu = jr_get(c, aj, apath, "cpu", asub, sizeof(asub));
    ap->cpu_user_s = jr_num(c, cpu, asub, "user_s");
    ap->cpu_sys_s = jr_num(c, cpu, asub, "sys_s");
    ap->cores = (uint32_t)jr_u64(c, cpu, asub, "cores", UINT32_MAX);
    ap->duration_ns = (uint64_t)llround(jr_num(c, aj, apath, "duration_s") * 1e9);
    ap->start_ns = jr_u64(c, aj, apath, "start_offset_ns", INT64_MAX);
    if (json_object_get(aj, "start_lag_ns"))
        ap->start_ns = load_start_lag(c, aj, apath, ph);
    ap->nintervals = (uint32_t)jr_u64(c, aj, apath, "nintervals", UINT32_MAX);
    if ((v = jr_opt(c, aj, apath, "storage", asub, sizeof(asub))))   /* files before records have none */
        load_record_part(c, run_record_storage_from_json(v, asub, r, phase, a, c->err, c->errlen));
    if ((v = jr_opt(c, aj, apath, "nfs", asub, sizeof(asub))))   /* the nfs engine's RPCs */
        load_nfs(c, v, asub, r, phase, (int)a, 0);
    load_client(c, aj, apath, r, phase, a);
    if ((v = jr_opt(c, aj, apath, "schedule_debt", asub, sizeof(asub)))) {   /* open loop only */
        char why[128];
        if (sched_debt_agent_load(v, ap, why, sizeof why) < 0)
            jr_fail(c, asub, "%s", why);
    }
    if ((v = jr_opt(c, aj, apath, "verify", asub, sizeof(asub)))) {   /* verify= phases only */
        struct vstats *vs = xmalloc(sizeof *vs);
        char why[256];
        if (verify_from_json(v, vs, why, sizeof why) < 0)
            jr_fail(c, asub, "%s", why);
        else {
            result_verify_ask(ph, a, r->nagents);
            result_set_agent_verify(r, phase, a, vs);
        }
        free(vs);
    }
    if ((v = jr_opt(c, aj, apath, "errors", asub, sizeof(asub)))) {   /* why its ops failed */
        struct errcause_set *es = xmalloc(sizeof *es);
        char why[256];
        if (errors_from_json(v, es, why, sizeof why) < 0 || result_errors_match(es, tot, why, sizeof why) < 0)
            jr_fail(c, asub, "%s", why);
        else
            result_set_agent_errors(r, phase, a, es);
        free(es);
    }
    /* kept sealed; done and participating as the file says (setting
     * marks it done and keeps what result_init found) */
    result_set_agent_phase(r, phase, a, &one, tot);
    ph->agents[a].done = one.done;
    ph->agents[a].participating = one.participating;
    return one.done;
}

/* What follows from the agents: whether the phase ran, how many started,
 * its phase control and coherence pairs.  0, or -1 (c->failed). */
static int load_phase_after(struct jr *c, json_t *pj, const char *path, struct run_result *r,
                            struct phase_result *ph, int any_result)
{
    char sub[512];
    uint32_t phase = (uint32_t)(ph - r->phases);

    /* "finished" is false for an interrupted or failed phase that still
     * has results: those are summed, like a finished one */
    ph->ran = json_object_get(pj, "ran") ? (uint8_t)jr_bool(c, pj, path, "ran")
                                         : (uint8_t)(ph->finished || any_result);
    if (any_result)
        ph->finished = 1;
    ph->nstarted = 0;
    for (uint32_t a = 0; a < r->nagents; a++)
        ph->nstarted += ph->agents[a].done && !ph->agents[a].salvaged && !result_agent_empty(&ph->agents[a]);
    if (json_object_get(pj, "start_skew_agents"))
        ph->nstarted = (uint32_t)jr_u64(c, pj, path, "start_skew_agents", MAX_AGENTS);
    {
        /* phase control (phase_ctl.h): exitall, steady state, latency_target */
        char why[256];
        if (phase_ctl_load(ph, r->nagents, json_object_get(pj, "control"), why, sizeof why) < 0) {
            snprintf(sub, sizeof(sub), "%s.control", path);
            jr_fail(c, sub, "%s", why);
            return -1;
        }
    }

    if (json_object_get(pj, "coherence") && !c->failed) {   /* rw=coherence phases only */
        struct coh_set cs;
        char why[256] = "";
        coh_set_init(&cs);
        snprintf(sub, sizeof(sub), "%s.coherence.pairs", path);
        if (coherence_from_json(json_object_get(json_object_get(pj, "coherence"), "pairs"), r->nagents,
                                &cs, why, sizeof why) < 0 || coherence_result_add(r, phase, &cs) < 0)
            jr_fail(c, sub, "%s", why[0] ? why : "too many pairs");
        coh_set_free(&cs);
    }
    return 0;
}

/* Interval k of the phase (ij at ipath's parent sub), merged figures in
 * merged (scratch), its agents' counters, telemetry; sealed once loaded. */
static void load_phase_interval(struct jr *c, json_t *arr, const char *sub, size_t k, struct run_result *r,
                                struct phase_result *ph, struct op_set *merged)
{
    json_t *ij = json_array_get(arr, k), *v;
    struct interval_slot *s;
    char ipath[512], asub[512];
    uint32_t nrep, phase = (uint32_t)(ph - r->phases);

    snprintf(ipath, sizeof(ipath), "%s[%zu]", sub, k);
    op_set_init(merged);
    load_ops(c, ij, ipath, merged);
    /* result_add_interval grows the slots and stores the merged figures;
     * they are not agent 0's, whose counters are loaded below */
    result_add_interval(r, phase, 0, (uint32_t)k, merged);
    s = &ph->intervals[k];
    memset(&s->agent[0], 0, sizeof(s->agent[0]));
    s->nreported = (uint32_t)jr_u64(c, ij, ipath, "nreported", MAX_AGENTS);
    /* the columns form: schema 2's only one (docs/results.md) */
    nrep = load_agent_columns(c, jr_get(c, ij, ipath, "agents", asub, sizeof(asub)), asub, s, r->nagents);
    if (!c->failed && nrep != s->nreported)
        jr_fail(c, ipath, "nreported is %u, but %u agents reported", s->nreported, nrep);
    if ((v = jr_opt(c, ij, ipath, "nfs", asub, sizeof(asub))))
        load_nfs(c, v, asub, r, phase, -1, (uint32_t)k);
    if ((v = jr_opt(c, ij, ipath, "client", asub, sizeof(asub)))) {    /* the agents' CPU, NIC, mountstats */
        char why[200];
        if (client_json_load_interval(v, r, phase, (uint32_t)k, why, sizeof why) < 0)
            jr_fail(c, asub, "%s", why);
    }
    result_interval_seal(r, phase, (uint32_t)k);   /* a saved interval is complete */}

static void load_phase(struct jr *c, json_t *pj, const char *path, struct run_result *r,
                       struct phase_result *ph)
{
    char sub[512];
    json_t *arr;
    uint32_t phase = (uint32_t)(ph - r->phases);
    struct op_set *merged = NULL;   /* one interval's merged figures, ~400 KB */
    struct op_set *tot = NULL;      /* one agent's totals, before sealing */
    int any_result = 0;

    load_phase_head(c, pj, path, ph);
    if (c->failed)
        return;
    arr = jr_array(c, pj, path, "agents", r->nagents, MAX_AGENTS, sub, sizeof(sub));
    if (arr && r->nagents)
        tot = xmalloc(sizeof(*tot));
    for (uint32_t a = 0; arr && a < r->nagents && !c->failed; a++)
        any_result |= load_phase_agent(c, arr, sub, a, r, ph, tot);
    free(tot);
    if (json_object_get(pj, "clones") && !c->failed)
        load_clones(c, pj, path, r, phase);
    result_nfs_finish(r, phase);      /* the phase's "nfs" is the agents' sum */
    if (ph->t0_ns == T0_BASE)
        place_unlagged_starts(r, ph, arr);
    if (load_phase_after(c, pj, path, r, ph, any_result) < 0)
        return;

    arr = jr_array(c, pj, path, "intervals", 0, RESULT_MAX_INTERVALS, sub, sizeof(sub));
    if (arr && json_array_size(arr) > 0 && r->nagents == 0)
        return jr_fail(c, sub, "intervals without agents");
    if (arr && json_array_size(arr) > 0)
        merged = xmalloc(sizeof(*merged));
    for (size_t k = 0; arr && k < json_array_size(arr) && !c->failed; k++)
        load_phase_interval(c, arr, sub, k, r, ph, merged);
    free(merged);
}

/* "end": how the run ended (optional: files before verdicts ran to the end). */
static void load_end(struct jr *c, json_t *root, struct run_result *r)
{
    json_t *e = json_object_get(root, "end");
    char how[32];

    if (!e)
        return;
    jr_str(c, e, "end", "how", how, sizeof(how));
    if (c->failed || strcmp(how, "none") == 0)
        return;
    if (strcmp(how, "interrupted") == 0)
        r->end = RUN_END_INTERRUPTED;
    else if (strcmp(how, "failed") == 0)
        r->end = RUN_END_FAILED;
    else
        return jr_fail(c, "end.how", "want none, interrupted or failed");
    r->end_phase = (uint32_t)jr_u64(c, e, "end", "phase", PLAN_MAX_PHASES);
    r->end_at_s = jr_num(c, e, "end", "at_s");
    jr_str(c, e, "end", "text", r->end_text, sizeof(r->end_text));
}

int result_load_json(json_t *root, const char *file, const char *where, struct run_result *r,
                     char *err, size_t errlen)
{
    struct jr c = { .file = file, .where = where ? where : "", .err = err, .errlen = errlen, .failed = 0 };
    struct plan plan;
    json_t *agents, *phases;
    uint32_t nagents, nphases;
    char sub[512];

    memset(r, 0, sizeof(*r));
    {
        uint64_t schema = jr_u64(&c, root, "", "schema", INT64_MAX);

        /* 1: before exact interval histograms and per-agent columns (nfstorm
         * 0.1); one decoder reads one form (docs/results.md) */
        if (schema != RESULT_SCHEMA && !c.failed)
            jr_fail(&c, "schema", "%" PRIu64 " is not readable by this nfstorm (it reads schema %d; "
                 "re-run, or report it with the nfstorm that wrote it)", schema, RESULT_SCHEMA);
    }
    agents = jr_array(&c, root, "", "agents", 0, MAX_AGENTS, sub, sizeof(sub));
    phases = jr_array(&c, root, "", "phases", 0, PLAN_MAX_PHASES, sub, sizeof(sub));
    if (c.failed)
        return -EINVAL;
    nagents = (uint32_t)json_array_size(agents);
    nphases = (uint32_t)json_array_size(phases);

    /* result_init wants a plan: one empty-job phase per saved phase */
    plan_init(&plan);
    plan.nphases = nphases;
    plan.phases = xcalloc(nphases ? nphases : 1, sizeof(*plan.phases));
    result_init(r, &plan, nagents, 0);
    plan_free(&plan);

    jr_str(&c, root, "", "label", r->label, sizeof(r->label));
    r->started_unix = jr_i64(&c, root, "", "started");
    if (json_string_value(json_object_get(root, "run_id")) &&   /* optional: older results have none */
        vblock_run_parse(json_string_value(json_object_get(root, "run_id")), &r->run_id) < 0)
        jr_fail(&c, "run_id", "is not 16 hex digits");
    for (uint32_t a = 0; a < nagents && !c.failed; a++) {
        json_t *aj = json_array_get(agents, a);
        struct agent_info *ai = &r->agents[a];
        char apath[64];

        snprintf(apath, sizeof(apath), "agents[%u]", a);
        if (jr_u64(&c, aj, apath, "id", MAX_AGENTS) != a && !c.failed)
            jr_fail(&c, apath, "id is not the agent's index %u", a);
        jr_str(&c, aj, apath, "host", ai->host, sizeof(ai->host));
        jr_str(&c, aj, apath, "addr", ai->addr, sizeof(ai->addr));
        if (json_object_get(aj, "labels"))        /* optional: agents without labels */
            jr_str(&c, aj, apath, "labels", ai->labels, sizeof(ai->labels));
        ai->ncpus = (uint32_t)jr_u64(&c, aj, apath, "ncpus", UINT32_MAX);
        ai->clock_offset_ns = jr_i64(&c, aj, apath, "clock_offset_ns");
        ai->rtt_ns = jr_u64(&c, aj, apath, "rtt_ns", INT64_MAX);
        if (json_object_get(aj, "client_cap_bytes_per_s"))    /* optional: --client-cap */
            ai->client_cap_bps = jr_u64(&c, aj, apath, "client_cap_bytes_per_s", INT64_MAX);
        /* added later than schema 1's first files: optional */
        if (json_object_get(aj, "lost")) {
            ai->lost = jr_bool(&c, aj, apath, "lost");
            ai->lost_at_s = jr_num(&c, aj, apath, "lost_at_s");
        }
        if (json_object_get(aj, "system") && !c.failed) {
            struct agent_system sys;
            char spath[80];
            snprintf(spath, sizeof spath, "%s.system", apath);
            load_record_part(&c, run_record_system_from_json(json_object_get(aj, "system"), spath, &sys,
                                                             c.err, c.errlen));
            if (!c.failed)
                run_record_set_system(r, a, &sys);
        }
    }
    if (json_object_get(root, "record") && !c.failed)
        load_record_part(&c, run_record_from_json(json_object_get(root, "record"), "record", &r->record,
                                                  c.err, c.errlen));
    load_end(&c, root, r);
    if (json_object_get(root, "change_detection") && !c.failed) {   /* optional: older results */
        json_t *cd = json_object_get(root, "change_detection");
        double pct = jr_num(&c, cd, "change_detection", "min_pct");
        uint64_t n = jr_u64(&c, cd, "change_detection", "min_intervals", CHANGES_INTERVALS_MAX);

        if (!c.failed && !(pct > 0 && pct <= CHANGES_PCT_MAX))
            jr_fail(&c, "change_detection.min_pct", "is not in (0, %g]", CHANGES_PCT_MAX);
        else if (!c.failed && n < CHANGEPOINT_MIN_LEN_FLOOR)
            jr_fail(&c, "change_detection.min_intervals", "is below %u", CHANGEPOINT_MIN_LEN_FLOOR);
        r->change_min_pct = pct;
        r->change_min_intervals = (uint32_t)n;
    }
    if (json_object_get(root, "sweeps") && !c.failed)   /* optional: runs with a sweep */
        load_record_part(&c, sweep_from_json(json_object_get(root, "sweeps"), nagents, nphases, &r->sweeps,
                                             c.err, c.errlen));
    for (uint32_t i = 0; i < nphases && !c.failed; i++) {
        char ppath[64];

        snprintf(ppath, sizeof(ppath), "phases[%u]", i);
        if (!json_is_object(json_array_get(phases, i))) {
            jr_fail(&c, ppath, "not an object");
            break;
        }
        load_phase(&c, json_array_get(phases, i), ppath, r, &r->phases[i]);
    }
    return c.failed ? -EINVAL : 0;
}

json_t *result_load_file_json(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);

    if (!root) {
        if (je.line <= 0)
            snprintf(err, errlen, "%s: cannot read: %s", path, je.text);
        else
            snprintf(err, errlen, "%s:%d: not valid JSON: %s", path, je.line, je.text);
    }
    return root;
}

int result_load(const char *path, struct run_result *r, char *err, size_t errlen)
{
    json_t *root;
    int rc;

    memset(r, 0, sizeof(*r));
    root = result_load_file_json(path, err, errlen);
    if (!root)
        return -EINVAL;
    rc = result_load_json(root, path, "", r, err, errlen);
    json_decref(root);
    return rc;
}
