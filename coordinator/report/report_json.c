/* report_json: the machine-readable result (schema 1, docs/results.md),
 * written atomically by json_file.c.
 *
 * Counts, bytes and nanoseconds are JSON integers (all fit json_int_t);
 * rates, seconds and means are reals.  Every figure comes from result.c's
 * helpers, the same the text report uses.
 *
 * jansson's allocation failures land in one flag (jb_put, jint.h): the
 * write fails with -ENOMEM rather than leave keys silently missing.
 * Compact: every interval carries its histograms, and indenting puts each
 * of their numbers on a line of its own (6x the bytes). */
#include "coordinator/run/phase_ctl.h"
#include "coordinator/result/result.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"
#include "coordinator/report/report_json.h"
#include "coordinator/result/changes.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/verify_json.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/result/result_errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/client_json.h"
#include "coordinator/report/client_report.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/result/fairness.h"
#include "coordinator/report/hist_json.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/run/verdict.h"
#include "coordinator/run/start_skew.h"
#include "coordinator/report/limits_report.h"
#include "coordinator/result/ext_metrics.h"
#include "coordinator/report/jint.h"
#include "coordinator/report/json_file.h"

/* One op type's object; rates over duration_ns. */
static json_t *op_json(struct jb *b, const struct op_stats *o, uint64_t duration_ns)
{
    json_t *j = json_object();

    jb_put(b, j, "ops", jint(o->ops));
    jb_put(b, j, "bytes", jint(o->bytes));
    jb_put(b, j, "errors", jint(o->errors));
    jb_put(b, j, "iops", json_real(result_iops(o, duration_ns)));
    jb_put(b, j, "bw_bytes", json_real(result_bw(o, duration_ns)));
    jb_put(b, j, "lat_ns", hist_json_summary(&o->lat, 0));
    if (o->timeouts)
        jb_put(b, j, "timeouts", jint(o->timeouts));
    /* rate-limited jobs: lat_ns is the response time (from when each op
     * was due), svc_ns the service time (from when it was issued) */
    if (o->svc.count)
        jb_put(b, j, "svc_ns", hist_json_summary(&o->svc, 0));
    return j;
}

/* {"read": {...}, "write": {...}} with only op types that saw ops or errors;
 * rates over duration_ns. */
static json_t *ops_json(struct jb *b, const struct op_set *s, uint64_t duration_ns)
{
    json_t *ops = json_object();

    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];

        if (o->ops == 0 && o->errors == 0)
            continue;
        jb_put(b, ops, op_type_name((enum op_type)t), op_json(b, o, duration_ns));
    }
    return ops;
}

/* ops_json of merged interval k, expanding one op type at a time into
 * scratch (sealed slots keep sparse histograms, see result.h). */
static json_t *interval_ops_json(struct jb *b, const struct run_result *r, uint32_t phase, uint32_t k,
                                 uint64_t duration_ns, struct op_stats *scratch)
{
    const struct interval_slot *s = &r->phases[phase].intervals[k];
    json_t *ops = json_object();

    for (int t = 0; t < OP__COUNT; t++) {
        if (s->count[t].ops == 0 && s->count[t].errors == 0)
            continue;
        jb_put(b, ops, op_type_name((enum op_type)t),
            op_json(b, result_interval_op(r, phase, k, (enum op_type)t, scratch), duration_ns));
    }
    return ops;
}

static json_t *agents_json(struct jb *b, const struct run_result *r)
{
    json_t *arr = json_array();

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_info *ai = &r->agents[a];
        json_t *j = json_object();

        jb_put(b, j, "id", jint(ai->id));
        jb_put(b, j, "host", json_string(ai->host));
        jb_put(b, j, "addr", json_string(ai->addr));
        if (ai->labels[0])
            jb_put(b, j, "labels", json_string(ai->labels));
        jb_put(b, j, "ncpus", jint(ai->ncpus));
        jb_put(b, j, "clock_offset_ns", json_integer((json_int_t)ai->clock_offset_ns));
        jb_put(b, j, "rtt_ns", jint(ai->rtt_ns));
        if (ai->client_cap_bps)    /* --client-cap for it (client_cap.h) */
            jb_put(b, j, "client_cap_bytes_per_s", jint(ai->client_cap_bps));
        jb_put(b, j, "lost", json_boolean(ai->lost));
        jb_put(b, j, "lost_at_s", json_real(ai->lost_at_s));
        if (ai->sys.known)
            jb_put(b, j, "system", run_record_system_json(&ai->sys));
        jb_push(b, arr, j);
    }
    return arr;
}

/* Reads faster than the agent's link or --client-cap (client_cap.h):
 * false, or what was measured against which limit and the flag's text. */
static json_t *faster_json(struct jb *b, const struct run_result *r, uint32_t phase, uint32_t a)
{
    struct client_fast f;
    char text[160];
    json_t *o;

    if (!client_report_faster(r, phase, a, &f))
        return json_false();
    o = json_object();
    client_cap_text(&f, text, sizeof text);
    jb_put(b, o, "read_bytes_per_s", json_real(f.read_bps));
    jb_put(b, o, "limit_bytes_per_s", json_real(f.limit_bps));
    jb_put(b, o, "limit", json_string(f.nic_mbps ? "nic" : "client_cap"));
    if (f.nic_mbps)
        jb_put(b, o, "speed_mbps", jint(f.nic_mbps));
    jb_put(b, o, "text", json_string(text));
    return o;
}

/* The agent's own CPU, NIC and mountstats over the phase (client_json.h). */
static void client_phase_json(struct jb *b, json_t *j, const struct run_result *r, uint32_t phase,
                              uint32_t a, const struct agent_phase *ap)
{
    const struct client_agent *ca = client_result_agent(r, phase, a);
    if (!ca)
        return;
    if (ca->host.present)
        jb_put(b, j, "host", client_json_host(&ca->host, (double)ap->duration_ns / 1e9));
    if (ca->ms || ca->note[0])
        jb_put(b, j, "mountstats", client_json_ms(ca->ms, ca->mount, ca->note));
    if (ca->proxy.present)
        jb_put(b, j, "proxy", client_json_proxy(&ca->proxy));
}

/* The phase's failed ops by cause: the agents' merged, each cause with its
 * first agent, and per op type the failed ops no agent named a cause for
 * ("unreported": agents lost before their phase-done); NULL when no op
 * failed. */
static json_t *phase_errors_json(const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    struct errcause_set *s;
    uint32_t (*first)[ERRCAUSE_MAX];
    json_t *o;
    int any = 0;

    for (int t = 0; t < OP__COUNT; t++)
        any |= ph->totals.op[t].errors != 0;
    if (!any)
        return NULL;
    s = xmalloc(sizeof *s);
    first = xmalloc(sizeof(uint32_t) * OP__COUNT * ERRCAUSE_MAX);
    result_phase_errors(r, phase, s, first);
    o = errors_json(s, first);
    for (int t = 0; t < OP__COUNT; t++) {
        uint64_t told = errcause_failed(s, (enum op_type)t), failed = ph->totals.op[t].errors;
        json_t *v;
        if (told >= failed)
            continue;
        if (!(v = json_object_get(o, op_type_name((enum op_type)t)))) {
            v = json_pack("{sIs[]sI}", "failed", (json_int_t)0, "causes", "other", (json_int_t)0);
            json_object_set_new(o, op_type_name((enum op_type)t), v);
        }
        json_object_set_new(v, "failed", jint(failed));
        json_object_set_new(v, "unreported", jint(failed - told));
    }
    free(first);
    free(s);
    return o;
}

static json_t *phase_agents_json(struct jb *b, const struct run_result *r, uint32_t phase, const double *share)
{
    const struct phase_result *ph = &r->phases[phase];
    json_t *arr = json_array();
    uint64_t first = UINT64_MAX;

    for (uint32_t a = 0; a < r->nagents; a++)
        if (ph->agents[a].done && !ph->agents[a].salvaged &&
            !result_agent_empty(&ph->agents[a]) && ph->agents[a].start_ns < first)
            first = ph->agents[a].start_ns;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        /* An agent's rates are over its own run time (it may finish its
         * size before the others); the phase's over the longest. */
        uint64_t dur = ap->duration_ns ? ap->duration_ns : ph->duration_ns;
        json_t *j = json_object(), *cpu = json_object();

        jb_put(b, j, "id", jint(r->agents[a].id));
        /* done: its phase-done arrived; a lost agent's totals are salvaged
         * from its intervals and never "done" */
        jb_put(b, j, "done", json_boolean(ap->done && !ap->salvaged));
        jb_put(b, j, "salvaged", json_boolean(ap->done && ap->salvaged));
        jb_put(b, j, "participating", json_boolean(ap->participating));
        if (ap->error)
            jb_put(b, j, "error", json_string(ap->error));
        jb_put(b, j, "ops", ops_json(b, result_agent_totals(r, phase, a), dur));
        if (result_agent_errors(r, phase, a))    /* why its ops failed */
            jb_put(b, j, "errors", errors_json(result_agent_errors(r, phase, a), NULL));
        jb_put(b, j, "share", json_real(share[a]));
        jb_put(b, cpu, "user_s", json_real(ap->cpu_user_s));
        jb_put(b, cpu, "sys_s", json_real(ap->cpu_sys_s));
        jb_put(b, cpu, "cores", jint(ap->cores));
        jb_put(b, j, "cpu", cpu);
        jb_put_opt(b, j, "schedule_debt", sched_debt_agent_json(r, phase, a));   /* open loop only */
        jb_put(b, j, "duration_s", json_real((double)ap->duration_ns / 1e9));
        jb_put(b, j, "start_offset_ns", jint(ap->done && !ap->salvaged && first != UINT64_MAX &&
                                          ap->start_ns >= first ?
                                          ap->start_ns - first : 0));
        /* first issue instant against the phase's t0 (coordinator clock) */
        if (ap->done && !ap->salvaged && !result_agent_empty(ap) && ph->t0_ns)
            jb_put(b, j, "start_lag_ns", json_integer((json_int_t)((int64_t)ap->start_ns - (int64_t)ph->t0_ns)));
        jb_put(b, j, "nintervals", jint(ap->nintervals));
        jb_put(b, j, "client_bound", json_boolean(client_report_cpu_bound(r, phase, a)));
        jb_put(b, j, "nic_bound", json_boolean(client_report_nic_bound(r, phase, a)));
        jb_put(b, j, "faster_than_link", faster_json(b, r, phase, a));
        if (ph->ran)        /* where its jobs ran (run_record.h) */
            jb_put(b, j, "storage", run_record_storage_json(ap));
        if (ph->nfs && !nfs_rpc_set_empty(&ph->nfs->agent[a]))   /* nfs engine telemetry */
            jb_put(b, j, "nfs", nfs_json_encode(&ph->nfs->agent[a]));
        client_phase_json(b, j, r, phase, a, ap);
        if (result_agent_verify_asked(r, phase, a)) {
            /* asked and nothing came: zeroes, which fail the phase */
            const struct vstats *v = result_agent_verify(r, phase, a);
            struct vstats none;
            vstats_init(&none);
            jb_put(b, j, "verify", verify_json(v ? v : &none));
        }
        jb_push(b, arr, j);
    }
    return arr;
}

/* One array of nagents integers, agent a's value at index a. */
static json_t *agent_column(struct jb *b, const struct run_result *r, const struct counters *ac,
                            uint64_t (*value)(const struct counters *c, int t), int t)
{
    json_t *col = json_array();

    for (uint32_t a = 0; a < r->nagents; a++)
        jb_push(b, col, jint(value(&ac[a], t)));
    return col;
}

static uint64_t col_ops(const struct counters *c, int t) { return c->ops[t]; }
static uint64_t col_bytes(const struct counters *c, int t) { return c->bytes[t]; }
static uint64_t col_errors(const struct counters *c, int t) { return c->errors[t]; }
static uint64_t col_reported(const struct counters *c, int t) { (void)t; return c->reported; }
static uint64_t col_inflight(const struct counters *c, int t) { (void)t; return c->inflight; }
static uint64_t col_oldest(const struct counters *c, int t) { (void)t; return c->oldest_ns; }

/* An interval's per-agent counters in columns (docs/results.md, "interval
 * agents"): {"ops": {OP: {"ops": [...], "bytes": [...], ["errors": [...]]}},
 * ["reported": [...]], ["inflight": [...], "oldest_ns": [...]]}, each array
 * indexed by agent.  An op type is there when some agent had ops or errors
 * of it, errors when some agent had one, reported when some agent did not
 * report, inflight and oldest_ns when some agent had ops outstanding.  About
 * 10 bytes per agent and op type, where objects took ~70. */
static json_t *interval_agents_json(struct jb *b, const struct run_result *r, const struct interval_slot *s)
{
    json_t *j = json_object(), *ops = json_object();
    int missing = 0, inflight = 0;
    struct counters *ac = xmalloc((r->nagents ? r->nagents : 1) * sizeof(*ac));

    result_slot_agents(s, r->nagents, ac);

    for (int t = 0; t < OP__COUNT; t++) {
        int any = 0, errs = 0;
        json_t *o;

        for (uint32_t a = 0; a < r->nagents; a++) {
            any |= ac[a].ops[t] || ac[a].errors[t];
            errs |= ac[a].errors[t] != 0;
        }
        if (!any)
            continue;
        o = json_object();
        jb_put(b, o, "ops", agent_column(b, r, ac, col_ops, t));
        jb_put(b, o, "bytes", agent_column(b, r, ac, col_bytes, t));
        if (errs)
            jb_put(b, o, "errors", agent_column(b, r, ac, col_errors, t));
        jb_put(b, ops, op_type_name((enum op_type)t), o);
    }
    jb_put(b, j, "ops", ops);
    for (uint32_t a = 0; a < r->nagents; a++) {
        missing |= !ac[a].reported;
        inflight |= ac[a].inflight != 0;
    }
    if (missing)
        jb_put(b, j, "reported", agent_column(b, r, ac, col_reported, 0));
    if (inflight) {   /* stalls, and a lost agent's unknown ops */
        jb_put(b, j, "inflight", agent_column(b, r, ac, col_inflight, 0));
        jb_put(b, j, "oldest_ns", agent_column(b, r, ac, col_oldest, 0));
    }
    free(ac);
    return j;
}

/* Interval k of phase; share and scratch are the caller's (r->nagents
 * doubles, one op_stats), reused from interval to interval. */
static json_t *interval_json(struct jb *b, const struct run_result *r, uint32_t phase, uint32_t k,
                             double *share, struct op_stats *scratch)
{
    const struct phase_result *ph = &r->phases[phase];
    const struct interval_slot *s = &ph->intervals[k];
    uint64_t len_ns = (uint64_t)ph->interval_ms * NS_PER_MS;
    json_t *j = json_object();

    jb_put(b, j, "t", json_real((double)k * (double)ph->interval_ms / 1000.0));
    jb_put(b, j, "nreported", jint(s->nreported));
    jb_put(b, j, "ops", interval_ops_json(b, r, phase, k, len_ns, scratch));
    jb_put(b, j, "jain", json_real(fairness_interval(r, phase, k, share)));
    jb_put(b, j, "agents", interval_agents_json(b, r, s));
    if (ph->nfs && k < ph->nfs->niv) {       /* the fleet's RPC telemetry */
        struct nfs_rpc_set ns;
        nfs_rpc_set_init(&ns);
        result_nfs_interval(r, phase, k, &ns);
        if (!nfs_rpc_set_empty(&ns))
            jb_put(b, j, "nfs", nfs_json_encode(&ns));
        nfs_rpc_set_free(&ns);
    }
    /* the agents' own figures (client_json.h: columns), when some sent them */
    jb_put_opt(b, j, "client", client_json_interval(r, phase, k));
    return j;
}

/* "verdict" and "reasons" of the phase (verdict.c). */
static void verdict_json(struct jb *b, json_t *j, const struct run_result *r, uint32_t phase)
{
    struct verdict *v = xmalloc(sizeof(*v));
    json_t *reasons = json_array();

    verdict_phase(r, phase, v);
    jb_put(b, j, "verdict", json_string(verdict_name(v->v)));
    for (uint32_t i = 0; i < v->nreasons; i++)
        jb_push(b, reasons, json_string(v->reason[i]));
    jb_put(b, j, "reasons", reasons);
    free(v);
}

/* Each job's and clone's fleet figures (result_clones.h), in fio's order:
 * what fio's JSON without group_reporting is made of, kept so that
 * `nfstorm report` writes it again. */
static json_t *clones_json(struct jb *b, const struct run_result *r, uint32_t phase)
{
    const struct result_clones *rc = r->phases[phase].clones;
    struct op_set *set = xmalloc(sizeof(*set));
    json_t *arr = json_array();

    for (uint32_t i = 0; i < rc->n; i++) {
        const struct clone_result *c = &rc->c[i];
        json_t *o = json_object();

        jb_put(b, o, "job", jint(c->job));
        jb_put(b, o, "clone", jint(c->clone));
        jb_put(b, o, "name", json_string(c->name));
        jb_put(b, o, "runtime_ns", jint(c->runtime_ns));
        jb_put(b, o, "ops", ops_json(b, result_clone_totals(r, phase, i, set), c->runtime_ns));
        jb_push(b, arr, o);
    }
    free(set);
    return arr;
}

static json_t *phase_json(struct jb *b, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    struct fairness f;
    json_t *j = json_object(), *fj = json_object();

    jb_put(b, j, "name", json_string(ph->name));
    jb_put(b, j, "rw", json_string(rw_mode_name(ph->rw)));
    jb_put(b, j, "bs", jint(ph->bs));
    if ((ph->rw == RW_RW || ph->rw == RW_RANDRW) && ph->rwmixread != RESULT_MIX_UNKNOWN)
        jb_put(b, j, "rwmixread", jint(ph->rwmixread));
    if (ph->jobs_differ)
        jb_put(b, j, "jobs_differ", json_true());
    jb_put(b, j, "numjobs", jint(ph->numjobs));
    jb_put(b, j, "njobs", jint(ph->njobs));
    jb_put(b, j, "finished", json_boolean(verdict_phase_finished(r, phase)));
    jb_put(b, j, "partial", json_boolean(verdict_phase_partial(r, phase)));
    verdict_json(b, j, r, phase);
    jb_put(b, j, "duration_s", json_real((double)ph->duration_ns / 1e9));
    jb_put(b, j, "duration_ns", jint(ph->duration_ns));
    jb_put(b, j, "start_skew_ns", jint(ph->start_skew_ns));
    if (ph->t0_unix_ms > 0)
        jb_put(b, j, "start_unix_ms", json_integer((json_int_t)ph->t0_unix_ms));
    jb_put(b, j, "start_skew_agents", jint(ph->nstarted));
    jb_put(b, j, "start_skew_unknown_agents", jint(start_skew_agents_unknown(r, phase)));
    /* the goal is 1 ms (docs/running.md); said, not hidden, when missed */
    jb_put(b, j, "start_skew_over_goal", json_boolean(ph->nstarted > 1 && ph->start_skew_ns > 1000000u));
    jb_put(b, j, "ran", json_boolean(ph->ran));
    jb_put(b, j, "interrupted", json_boolean(ph->interrupted));
    if (ph->error_threshold_pct > 0)
        jb_put(b, j, "error_threshold_pct", json_real(ph->error_threshold_pct));
    else
        jb_put(b, j, "error_threshold", jint(ph->error_threshold));
    jb_put(b, j, "interval_ms", jint(ph->interval_ms));
    uint64_t sample_ops, sample_threads, sample_mean;
    if (result_phase_thin_sample(r, phase, &sample_ops, &sample_threads, &sample_mean)) {
        json_t *ts = json_object();
        jb_put(b, ts, "ops", jint(sample_ops));
        jb_put(b, ts, "threads", jint(sample_threads));
        jb_put(b, ts, "op_mean_ns", jint(sample_mean));
        jb_put(b, j, "thin_sample", ts);
    }
    jb_put_opt(b, j, "control", phase_ctl_json(ph, r->nagents));   /* exitall, steady state (phase_ctl.h) */
    jb_put(b, j, "ops", ops_json(b, &ph->totals, ph->duration_ns));
    if (result_clones_usable(r, phase))
        jb_put(b, j, "clones", clones_json(b, r, phase));
    jb_put_opt(b, j, "schedule_debt", sched_debt_phase_json(r, phase));   /* open loop only */
    jb_put_opt(b, j, "errors", phase_errors_json(r, phase));
    if (result_phase_verify(r, phase))
        jb_put(b, j, "verify", verify_json(result_phase_verify(r, phase)));
    fairness_phase(r, phase, share, &f);
    jb_put(b, fj, "jain", json_real(f.jain));
    jb_put(b, fj, "slowest", f.ncounted ? jint(f.slowest) : json_null());
    jb_put(b, fj, "fastest", f.ncounted ? jint(f.fastest) : json_null());
    jb_put(b, fj, "slowest_iops", json_real(f.slowest_iops));
    jb_put(b, fj, "fastest_iops", json_real(f.fastest_iops));
    jb_put(b, j, "fairness", fj);
    jb_put(b, j, "agents", phase_agents_json(b, r, phase, share));
    if (ph->nfs && !nfs_rpc_set_empty(&ph->nfs->fleet))   /* sum over agents */
        jb_put(b, j, "nfs", nfs_json_encode(&ph->nfs->fleet));
    if (ph->coh.n)
        jb_put(b, j, "coherence", coherence_json(r, phase));
    if (ph->coh.n || ph->rw == RW_COHERENCE)
        jb_put(b, j, "coherence_never_visible", json_string(ph->coh_never_warn ? "warn" : "fail"));
    if (ph->finished) {         /* step-downs and step-ups (changes.h) */
        struct change_set cs;

        changes_phase(r, phase, &cs);
        jb_put(b, j, "changes", changes_json(r, phase, &cs));
        for (size_t c = 0; c < cs.n; c++)
            if (cs.c[c].fleet && cs.c[c].metric != CHANGE_LATENCY && cs.c[c].after < cs.c[c].before) {
                jb_put(b, j, "time_to_throttle_s", json_real(cs.c[c].at_s));
                break;
            }
        change_set_free(&cs);
    }
    /* filled while the file is written, one interval at a time (emit_intervals) */
    jb_put(b, j, "intervals", json_array());
    free(share);
    return j;
}

static json_t *result_json(struct jb *b, const struct run_result *r)
{
    json_t *root = json_object(), *phases = json_array();

    jb_put(b, root, "schema", json_integer(RESULT_SCHEMA));
    jb_put(b, root, "label", json_string(r->label));
    jb_put(b, root, "started", json_integer((json_int_t)r->started_unix));
    if (r->run_id) {
        char id[17];
        vblock_run_format(r->run_id, id);
        jb_put(b, root, "run_id", json_string(id));
    }
    if (r->record.present)
        jb_put(b, root, "record", run_record_json(&r->record));
    jb_put(b, root, "agents", agents_json(b, r));
    {
        enum verdict_kind v = verdict_run(r);
        static const char *const ends[] = { "none", "interrupted", "failed" };
        json_t *end = json_object();

        jb_put(b, root, "verdict", json_string(verdict_name(v)));
        jb_put(b, root, "exit_status", jint((uint64_t)verdict_exit_status(v)));
        jb_put(b, end, "how", json_string(ends[r->end]));
        if (r->end != RUN_END_NONE) {
            jb_put(b, end, "phase", jint(r->end_phase));
            jb_put(b, end, "at_s", json_real(r->end_at_s));
            jb_put(b, end, "text", json_string(r->end_text));
        }
        jb_put(b, root, "end", end);
    }
    for (uint32_t i = 0; i < r->nphases; i++)
        jb_push(b, phases, phase_json(b, r, i));
    jb_put(b, root, "phases", phases);
    if (r->sweeps)
        jb_put(b, root, "sweeps", sweep_json(r->sweeps, r));
    {
        json_t *cd = json_object();

        jb_put(b, cd, "min_pct", json_real(changes_min_pct(r)));
        jb_put(b, cd, "min_intervals", jint(changes_min_intervals(r)));
        jb_put(b, root, "change_detection", cd);
    }
    if (limits_result_json(root, r) < 0 || ext_metrics_json(root, r) < 0)
        b->failed = 1;
    return root;
}

/* ---- streaming the document ----
 * Every interval carries its histograms, so a long run's intervals are most
 * of the file: building them all as one jansson tree would take ~20x the
 * file in memory.  The tree holds everything else, with each phase's
 * "intervals" left empty; the emitter walks it in order and writes each
 * phase's intervals in their place, one interval's tree at a time.  Values
 * are written by jansson itself, so the bytes are what one json_dump of the
 * whole tree would give. */
#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY)

struct emit {
    struct jb *b;
    const struct run_result *r;
    json_dump_callback_t write;
    void *sink;
    double *share;               /* [nagents], for interval_json */
    struct op_stats *scratch;
    int failed;                  /* a write or an encoding failed */
};

static void emit_raw(struct emit *e, const char *text)
{
    if (!e->failed && e->write(text, strlen(text), e->sink) != 0)
        e->failed = 1;
}

static void emit_json(struct emit *e, json_t *v)
{
    if (!e->failed && (!v || json_dump_callback(v, e->write, e->sink, DUMP_FLAGS) != 0))
        e->failed = 1;
}

static void emit_key(struct emit *e, const char *key, int first)
{
    json_t *k = json_string(key);

    emit_raw(e, first ? "" : ",");
    emit_json(e, k);
    emit_raw(e, ":");
    json_decref(k);
}

/* Object obj as the tree has it, its member named special written by
 * fill(e, value, arg): the root with its phases, a phase with its
 * intervals streamed in. */
static void emit_object(struct emit *e, json_t *obj, const char *special,
                        void (*fill)(struct emit *e, json_t *v, uint32_t arg), uint32_t arg)
{
    const char *key;
    json_t *v;
    int first = 1;

    emit_raw(e, "{");
    json_object_foreach(obj, key, v) {
        emit_key(e, key, first);
        first = 0;
        if (strcmp(key, special) == 0)
            fill(e, v, arg);
        else
            emit_json(e, v);
    }
    emit_raw(e, "}");
}

/* Phase's "intervals", one interval's tree at a time. */
static void emit_intervals(struct emit *e, json_t *v, uint32_t phase)
{
    if (phase >= e->r->nphases) {
        emit_json(e, v);
        return;
    }
    emit_raw(e, "[");
    for (uint32_t k = 0; k < e->r->phases[phase].nintervals && !e->failed; k++) {
        json_t *j = interval_json(e->b, e->r, phase, k, e->share, e->scratch);

        emit_raw(e, k ? "," : "");
        emit_json(e, j);
        json_decref(j);
    }
    emit_raw(e, "]");
}

static void emit_phases(struct emit *e, json_t *v, uint32_t unused)
{
    (void)unused;
    if (!json_is_array(v)) {
        emit_json(e, v);
        return;
    }
    emit_raw(e, "[");
    for (size_t i = 0; i < json_array_size(v) && !e->failed; i++) {
        emit_raw(e, i ? "," : "");
        emit_object(e, json_array_get(v, i), "intervals", emit_intervals, (uint32_t)i);
    }
    emit_raw(e, "]");
}

/* The tree of one result with every phase's intervals filled in (the
 * streaming writer leaves them empty in the tree and writes them in place). */
static void fill_intervals(struct jb *b, const struct run_result *r, json_t *root)
{
    json_t *phases = json_object_get(root, "phases");
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    struct op_stats *scratch = xmalloc(sizeof(*scratch));

    for (uint32_t i = 0; i < r->nphases && i < json_array_size(phases); i++) {
        json_t *iv = json_object_get(json_array_get(phases, i), "intervals");

        for (uint32_t k = 0; iv && k < r->phases[i].nintervals; k++)
            jb_push(b, iv, interval_json(b, r, i, k, share, scratch));
    }
    free(share);
    free(scratch);
}

json_t *report_json_build(const struct run_result *r)
{
    struct jb b = { 0 };
    json_t *root = result_json(&b, r);

    if (root && !b.failed)
        fill_intervals(&b, r, root);
    if (!root || b.failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* json_file bodies: a whole tree (a repeat set), or a result streamed
 * (its intervals one at a time). */
static int body_tree(json_dump_callback_t write, void *sink, void *tree)
{
    return json_dump_callback(tree, write, sink, DUMP_FLAGS) != 0 || write("\n", 1, sink) != 0 ? -1 : 0;
}

static int body_result(json_dump_callback_t write, void *sink, void *result)
{
    struct jb b = { 0 };
    struct emit e = { .b = &b, .r = result, .write = write, .sink = sink };
    json_t *root = result_json(&b, e.r);

    e.share = xcalloc(e.r->nagents ? e.r->nagents : 1, sizeof(*e.share));
    e.scratch = xmalloc(sizeof(*e.scratch));
    if (root && !b.failed) {
        emit_object(&e, root, "phases", emit_phases, 0);
        emit_raw(&e, "\n");
    } else {
        e.failed = 1;
    }
    free(e.share);
    free(e.scratch);
    json_decref(root);
    return e.failed || b.failed ? -1 : 0;
}

int report_json_write(const char *path, const struct run_result *r)
{
    return json_file_write(path, body_result, (void *)r);
}

int report_json_write_tree(const char *path, json_t *root)
{
    return json_file_write(path, body_tree, root);
}
