/* journal: the writer (see journal.h; the reader is journal_replay.c).
 * Writes go through stdio with a flush per line: once fflush returns, the
 * bytes are in the kernel and survive the coordinator's death (not the
 * machine's; a final result is fsynced). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "common/xmalloc.h"
#include "coordinator/cli/out_file.h"
#include "coordinator/report/client_json.h"
#include "coordinator/report/hist_json.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/run/journal.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/run/phase_ctl.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/verify_json.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/result/result_errors.h"

struct journal {
    FILE *f;
    char label[PLAN_NAME_MAX];
    int header_done;
    int error;
    const struct run_record *record;   /* journal_set_record's, or NULL */
};

struct journal *journal_open(const char *path, const char *label)
{
    struct journal *j;
    FILE *f = out_file_open(path);
    if (!f)
        return NULL;
    j = xcalloc(1, sizeof *j);
    j->f = f;
    snprintf(j->label, sizeof j->label, "%s", label ? label : "");
    result_clean_utf8(j->label);     /* as the result's (main.c) */
    return j;
}

int journal_close(struct journal *j)
{
    int rc = j ? out_file_close(j->f, j->error) : 0;
    free(j);
    return rc;
}

static void put(struct journal *j, json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (!s || fprintf(j->f, "%s\n", s) < 0 || fflush(j->f) != 0)
        j->error = -EIO;
    free(s);
    json_decref(o);
}

/* Per op type: counters, and the histograms in hist_json's form (svc and
 * timeouts only when there are any: rate-limited jobs, timed-out ops). */
static json_t *ops_json(const struct op_set *s, int with_latency)
{
    json_t *ops = json_object();
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];
        json_t *v;
        if (!o->ops && !o->errors)
            continue;
        v = json_pack("{sIsI}", "ops", (json_int_t)o->ops, "bytes", (json_int_t)o->bytes);
        /* a counters-only line leaves out "errors" when 0 (most of them) */
        if (v && (with_latency || o->errors))
            json_object_set_new(v, "errors", json_integer((json_int_t)o->errors));
        if (v && with_latency)
            json_object_set_new(v, "lat", hist_json_encode(&o->lat));
        if (v && o->timeouts)
            json_object_set_new(v, "timeouts", json_integer((json_int_t)o->timeouts));
        if (v && with_latency && o->svc.count)
            json_object_set_new(v, "svc", hist_json_encode(&o->svc));
        json_object_set_new(ops, op_type_name((enum op_type)t), v);
    }
    return ops;
}

/* Counters only, compactly (an interval line's "o", docs/results.md): per op type
 * [ops, bytes], with errors and timeouts appended only when not 0; about
 * 30 bytes an agent-interval fewer than ops_json's objects. */
static json_t *ops_counters_compact(const struct op_set *s)
{
    json_t *ops = json_object();
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];
        json_t *v;
        if (!o->ops && !o->errors && !o->timeouts)
            continue;
        v = json_pack("[II]", (json_int_t)o->ops, (json_int_t)o->bytes);
        if (v && (o->errors || o->timeouts))
            json_array_append_new(v, json_integer((json_int_t)o->errors));
        if (v && o->timeouts)
            json_array_append_new(v, json_integer((json_int_t)o->timeouts));
        json_object_set_new(ops, op_type_name((enum op_type)t), v);
    }
    return ops;
}

static void write_header(struct journal *j, const struct run_result *r)
{
    json_t *agents = json_array(), *phases = json_array();
    for (uint32_t i = 0; i < r->nagents; i++) {
        const struct agent_info *a = &r->agents[i];
        json_array_append_new(agents, json_pack("{sIsssssIsIsI}", "id", (json_int_t)i, "addr", a->addr,
                                                "host", a->host, "ncpus", (json_int_t)a->ncpus,
                                                "clock_offset_ns", (json_int_t)a->clock_offset_ns,
                                                "rtt_ns", (json_int_t)a->rtt_ns));
        if (a->labels[0])
            json_object_set_new(json_array_get(agents, i), "labels", json_string(a->labels));
        if (a->client_cap_bps)
            json_object_set_new(json_array_get(agents, i), "client_cap_bytes_per_s",
                                json_integer((json_int_t)a->client_cap_bps));
    }
    for (uint32_t p = 0; p < r->nphases; p++) {
        const struct phase_result *ph = &r->phases[p];
        json_t *idle = json_array();      /* verdict inputs: agents= left these idle */
        for (uint32_t a = 0; a < r->nagents; a++)
            if (!ph->agents[a].participating)
                json_array_append_new(idle, json_integer(a));
        json_array_append_new(phases, json_pack("{sssssIsIsIsosIsf}", "name", ph->name, "rw", rw_mode_name(ph->rw),
                                                "bs", (json_int_t)ph->bs, "numjobs", (json_int_t)ph->numjobs,
                                                "njobs", (json_int_t)ph->njobs, "idle", idle,
                                                "error_threshold", (json_int_t)ph->error_threshold,
                                                "error_threshold_pct", ph->error_threshold_pct));
        if (ph->asked_iops > 0 || ph->asked_bps > 0) {   /* open loop: what it asks (sched_debt.h) */
            json_object_set_new(json_array_get(phases, p), "asked_iops", json_real(ph->asked_iops));
            json_object_set_new(json_array_get(phases, p), "asked_bps", json_real(ph->asked_bps));
        }
        if (ph->coh_never_warn)    /* the coherence verdict's policy */
            json_object_set_new(json_array_get(phases, p), "coherence_never_visible", json_string("warn"));
        if (ph->verify) {          /* verify=: the agents asked to verify */
            json_t *asked = json_array();
            for (uint32_t a = 0; a < r->nagents; a++)
                if (result_agent_verify_asked(r, p, a))
                    json_array_append_new(asked, json_integer(a));
            json_object_set_new(json_array_get(phases, p), "verify_asked", asked);
        }
    }
    json_t *hdr = json_pack("{sssIsssIsIsIsoso}", "type", "header", "schema", (json_int_t)RESULT_SCHEMA,
                            "label", j->label, "started", (json_int_t)r->started_unix, "interval_ms",
                            (json_int_t)(r->nphases ? r->phases[0].interval_ms : 1000),
                            "nagents", (json_int_t)r->nagents, "agents", agents, "phases", phases);
    if (hdr && r->run_id) {
        char id[17];
        vblock_run_format(r->run_id, id);
        json_object_set_new(hdr, "run_id", json_string(id));
    }
    put(j, hdr);
    j->header_done = 1;
}

void journal_set_record(struct journal *j, const struct run_record *rec)
{
    if (j)
        j->record = rec;
}

/* The record as the run began, with each agent's machine (they have all
 * said hello by the first phase's start). */
static void write_record(struct journal *j, const struct run_result *r)
{
    json_t *sys = json_array();
    for (uint32_t a = 0; a < r->nagents; a++)
        json_array_append_new(sys, r->agents[a].sys.known ? run_record_system_json(&r->agents[a].sys)
                                                          : json_null());
    put(j, json_pack("{sssoso}", "type", "record", "record", run_record_json(j->record), "systems", sys));
}

/* Where each agent runs phase: it said so before its ready. */
static void write_storage(struct journal *j, const struct run_result *r, uint32_t phase)
{
    for (uint32_t a = 0; a < r->nagents; a++)
        if (r->phases[phase].agents[a].nstorage)
            put(j, json_pack("{sssIsIso}", "type", "storage", "phase", (json_int_t)phase, "agent",
                             (json_int_t)a, "storage", run_record_storage_json(&r->phases[phase].agents[a])));
}

int journal_record_end(struct journal *j, const struct run_record *rec)
{
    if (!j || !j->header_done)      /* no header, no record: nothing ran */
        return 0;
    put(j, json_pack("{sssosb}", "type", "record_end", "record", run_record_json(rec),
                     "interrupted", rec->interrupted));
    return j->error;
}

/* The header and record open every journal: written before the first
 * line of any kind, so a run that ends before its first phase (an agent
 * unreachable, a plan refused, lost in the handshake) still leaves a
 * journal `nfstorm report` reads, as the JSON result has them. */
static void ensure_header(struct journal *j, const struct run_result *r)
{
    if (j->header_done)
        return;
    write_header(j, r);
    if (j->record)
        write_record(j, r);
}

static void on_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct journal *j = arg;
    ensure_header(j, r);
    write_storage(j, r, phase);
    /* the phase was started, at t0 (coordinator clock): each agent's start
     * lag is its first op against it */
    put(j, json_pack("{sssIsIsI}", "type", "phase_start", "phase", (json_int_t)phase,
                     "t0_ns", (json_int_t)r->phases[phase].t0_ns,
                     "start_unix_ms", (json_int_t)r->phases[phase].t0_unix_ms));
}

static void on_agent_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                              uint32_t k, const struct op_set *s)
{
    struct journal *j = arg;
    const struct interval_slot *slot = &r->phases[phase].intervals[k];
    struct counters cc, *c = &cc;
    /* Counters only: the interval's merged latency follows once it is
     * complete (on_interval).  An interval already complete when this
     * arrives (late data) carries its own histograms, which the replay
     * adds like any other. */
    result_slot_agent(slot, agent, &cc);
    /* the usual line is counters only, compactly in "o" (the bulk of a
     * long run's journal); late data keeps "ops" with its histograms */
    json_t *o = json_pack("{sssIsIsIso}", "type", "interval", "phase", (json_int_t)phase, "agent",
                          (json_int_t)agent, "k", (json_int_t)k, slot->is_sealed ? "ops" : "o",
                          slot->is_sealed ? ops_json(s, 1) : ops_counters_compact(s));
    if (o && (c->inflight || c->oldest_ns)) {
        json_object_set_new(o, "inflight", json_integer((json_int_t)c->inflight));
        json_object_set_new(o, "oldest_ns", json_integer((json_int_t)c->oldest_ns));
    }
    if (o && client_result_iv(r, phase, agent, k)) {    /* its CPU, NIC, mountstats */
        json_t *cl = json_object();
        client_json_put_iv_compact(cl, client_result_iv(r, phase, agent, k),
                                   client_result_agent(r, phase, agent)->mount);
        json_object_set_new(o, "client", cl);
    }
    put(j, o);
}

/* Interval k of phase has every agent's data: its merged histograms, once
 * (the per-agent lines above carried counters only).  Nothing for an
 * interval without latency (no ops anywhere). */
static void on_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct journal *j = arg;
    struct op_stats *scratch = xmalloc(sizeof *scratch);
    json_t *ops = json_object();
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = result_interval_op(r, phase, k, (enum op_type)t, scratch);
        json_t *v;
        if (!o->lat.count && !o->svc.count)
            continue;
        v = json_pack("{so}", "lat", hist_json_encode(&o->lat));
        if (v && o->svc.count)
            json_object_set_new(v, "svc", hist_json_encode(&o->svc));
        json_object_set_new(ops, op_type_name((enum op_type)t), v);
    }
    free(scratch);
    if (json_object_size(ops) == 0) {
        json_decref(ops);
        return;
    }
    put(j, json_pack("{sssIsIso}", "type", "interval_lat", "phase", (json_int_t)phase, "k", (json_int_t)k,
                     "ops", ops));
}

static void on_agent_phase_done(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                                const struct agent_phase *ap)
{
    struct journal *j = arg;
    const struct client_agent *ca = client_result_agent(r, phase, agent);
    json_t *o;
    /* salvaged: no phase-done came, the totals are the sum of its intervals
     * (a lost agent's): the replay's verdict must know it as the run did */
    o = json_pack("{sssIsIsIsIsfsfsIsIsosbso*so*}", "type", "phase_done", "phase", (json_int_t)phase,
                     "agent", (json_int_t)agent, "duration_ns", (json_int_t)ap->duration_ns,
                     "start_ns", (json_int_t)ap->start_ns, "cpu_user_s", ap->cpu_user_s,
                     "cpu_sys_s", ap->cpu_sys_s, "cores", (json_int_t)ap->cores,
                     "nintervals", (json_int_t)ap->nintervals, "ops", ops_json(result_agent_totals(r, phase, agent), 1),
                     "salvaged", ap->salvaged ? 1 : 0, "verify", result_agent_verify(r, phase, agent) ?
                     verify_json(result_agent_verify(r, phase, agent)) : NULL,
                     "coherence", coherence_reader_json(r, phase, agent));
    if (o && (ap->late_ops || ap->late_ns)) {         /* open loop: its schedule debt */
        json_object_set_new(o, "late_ops", json_integer((json_int_t)ap->late_ops));
        json_object_set_new(o, "late_ns", json_integer((json_int_t)ap->late_ns));
    }
    if (o && result_agent_errors(r, phase, agent))     /* its failed ops' causes */
        json_object_set_new(o, "errors", errors_json(result_agent_errors(r, phase, agent), NULL));
    if (o && ca && (ca->host.present || ca->ms || ca->note[0] || ca->proxy.present)) {
        json_t *cl = json_object();
        if (ca->host.present)
            json_object_set_new(cl, "host", client_json_host(&ca->host, (double)ap->duration_ns / 1e9));
        if (ca->ms || ca->note[0])
            json_object_set_new(cl, "mountstats", client_json_ms(ca->ms, ca->mount, ca->note));
        if (ca->proxy.present)
            json_object_set_new(cl, "proxy", client_json_proxy(&ca->proxy));
        json_object_set_new(o, "client", cl);
    }
    put(j, o);
}

/* The nfs engine's telemetry of an agent's interval and phase, as sent
 * (nfs_json.h); nothing for the other engines. */
static void on_agent_interval_nfs(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                                  uint32_t k, const struct nfs_rpc_set *s)
{
    struct journal *j = arg;
    (void)r;
    if (nfs_rpc_set_empty(s))
        return;
    put(j, json_pack("{sssIsIsIso}", "type", "nfs_interval", "phase", (json_int_t)phase, "agent",
                     (json_int_t)agent, "k", (json_int_t)k, "nfs", nfs_json_encode(s)));
}

static void on_agent_phase_nfs(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                               const struct nfs_rpc_set *s)
{
    struct journal *j = arg;
    (void)r;
    if (nfs_rpc_set_empty(s))
        return;
    put(j, json_pack("{sssIsIso}", "type", "nfs_phase", "phase", (json_int_t)phase, "agent",
                     (json_int_t)agent, "nfs", nfs_json_encode(s)));
}

static void on_agent_lost(void *arg, const struct run_result *r, uint32_t agent, const char *why)
{
    struct journal *j = arg;
    ensure_header(j, r);
    put(j, json_pack("{sssIsfss}", "type", "lost", "agent", (json_int_t)agent,
                     "at_s", r->agents[agent].lost_at_s, "why", why));
}

static void on_agent_error(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                           const char *text)
{
    struct journal *j = arg;
    ensure_header(j, r);
    put(j, json_pack("{sssIsIss}", "type", "error", "phase", (json_int_t)phase, "agent", (json_int_t)agent,
                     "text", text));
}

static void on_run_end(void *arg, const struct run_result *r)
{
    struct journal *j = arg;
    ensure_header(j, r);
    put(j, json_pack("{sssssIsfss}", "type", "stopped", "how", r->end == RUN_END_INTERRUPTED ? "interrupted" : "failed",
                     "phase", (json_int_t)r->end_phase, "at_s", r->end_at_s, "text", r->end_text));
}

/* Each job's and clone's fleet figures (result_clones.h), exact. */
static json_t *clones_json(const struct run_result *r, uint32_t phase)
{
    const struct result_clones *rc = r->phases[phase].clones;
    struct op_set *set = xmalloc(sizeof *set);
    json_t *arr = json_array();

    for (uint32_t i = 0; i < rc->n; i++)
        json_array_append_new(arr, json_pack("{sIsIsssIso}", "job", (json_int_t)rc->c[i].job,
                                             "clone", (json_int_t)rc->c[i].clone, "name", rc->c[i].name,
                                             "runtime_ns", (json_int_t)rc->c[i].runtime_ns,
                                             "ops", ops_json(result_clone_totals(r, phase, i, set), 1)));
    free(set);
    return arr;
}

static void on_phase_done(void *arg, const struct run_result *r, uint32_t phase)
{
    struct journal *j = arg;
    json_t *o = json_pack("{sssI}", "type", "phase_end", "phase", (json_int_t)phase);
    /* the phase's control outcome (exitall, steady state, latency target):
     * without it a replayed phase that ended early would not say why */
    json_t *ctl = phase < r->nphases ? phase_ctl_json(&r->phases[phase], r->nagents) : NULL;
    if (ctl)
        json_object_set_new(o, "control", ctl);
    if (phase < r->nphases && result_clones_usable(r, phase))
        json_object_set_new(o, "clones", clones_json(r, phase));   /* fio's jobs[] per clone */
    if (r->sweeps && phase < r->nphases) {
        /* a sweep point: its name (JOB@VALUE, chosen as it started) and the
         * sweeps judged so far; a replay keeps the last */
        json_object_set_new(o, "name", json_string(r->phases[phase].name));
        json_object_set_new(o, "sweeps", sweep_json(r->sweeps, r));
        /* what it asked (a rate point's) and who ran it (sweep=agents) are
         * chosen as it starts, not in the plan the replay starts from */
        json_t *debt = sched_debt_phase_json(r, phase), *part = json_array();
        if (debt)
            json_object_set_new(o, "schedule_debt", debt);
        for (uint32_t a = 0; a < r->nagents; a++)
            json_array_append_new(part, json_boolean(r->phases[phase].agents[a].participating));
        json_object_set_new(o, "participating", part);
        json_object_set_new(o, "numjobs", json_integer(r->phases[phase].numjobs));   /* a numjobs search's */
    }
    put(j, o);
}

int journal_end(struct journal *j, const char *outcome)
{
    if (!j)
        return 0;
    put(j, json_pack("{ssss}", "type", "end", "outcome", outcome));
    return j->error;
}

struct run_observer journal_observer(struct journal *j)
{
    struct run_observer o = {
        .phase_start = on_phase_start,
        .phase_done = on_phase_done,
        .interval = on_interval,
        .agent_interval = on_agent_interval,
        .agent_phase_done = on_agent_phase_done,
        .agent_interval_nfs = on_agent_interval_nfs,
        .agent_phase_nfs = on_agent_phase_nfs,
        .agent_lost = on_agent_lost,
        .agent_error = on_agent_error,
        .run_end = on_run_end,
        .arg = j,
    };
    return o;
}
