/* journal_replay: a journal (journal.h's lines) back into a result.  The
 * file is untrusted: each line is capped (JOURNAL_LINE_MAX) and every
 * count, index and histogram bounded before use; a bad line names
 * file:line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "common/xmalloc.h"
#include "coordinator/report/client_json.h"
#include "coordinator/report/hist_json.h"
#include "coordinator/report/jint.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/run/journal_replay.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/run/phase_ctl.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/verify_json.h"
#include "coordinator/report/errors_json.h"
#include "coordinator/result/result_errors.h"

#define JOURNAL_LINE_MAX (8u << 20)
/* the coordinator's own cap on --agents (coordinator/cli/main.c): a header
 * claiming more is not one we wrote, and result_init would allocate for it */
#define JOURNAL_MAX_AGENTS 4096

static int u64_of(json_t *o, const char *key, uint64_t *v)
{
    return jcount(json_object_get(o, key), UINT64_MAX, v);
}

/* why (JOURNAL_WHY_MAX bytes) gets the histogram decoder's reason. */
#define JOURNAL_WHY_MAX 160

/* One op type's entry of an "ops" object.  The forms: OPS_FULL (phase
 * totals: counters and "lat" always), OPS_LAT_OPTIONAL (an interval line's
 * "ops": "lat" and, when 0, "errors" may be absent), OPS_COMPACT (an
 * interval line's "o": [ops, bytes(, errors(, timeouts))]), OPS_HIST (an
 * interval_lat line's: "lat" and "svc" alone). */
enum ops_form { OPS_FULL, OPS_LAT_OPTIONAL, OPS_COMPACT, OPS_HIST };

static int op_of_compact(json_t *v, struct op_stats *o)
{
    uint64_t f[4] = { 0, 0, 0, 0 };
    size_t n = json_array_size(v);
    if (!json_is_array(v) || n < 2 || n > 4)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (jcount(json_array_get(v, i), UINT64_MAX, &f[i]) < 0)
            return -1;
    if (f[2] > f[0])              /* failed ops are ops */
        return -1;
    o->ops = f[0];
    o->bytes = f[1];
    o->errors = f[2];
    o->timeouts = f[3];
    return 0;
}

static int op_of(json_t *v, struct op_stats *o, char *why, enum ops_form form)
{
    int lat_optional = form == OPS_LAT_OPTIONAL;

    return (form != OPS_HIST &&
            (u64_of(v, "ops", &o->ops) || u64_of(v, "bytes", &o->bytes) ||
             ((!lat_optional || json_object_get(v, "errors")) && u64_of(v, "errors", &o->errors)) ||
             (json_object_get(v, "timeouts") && u64_of(v, "timeouts", &o->timeouts)))) ||
           ((!lat_optional || json_object_get(v, "lat")) &&
            hist_json_decode(json_object_get(v, "lat"), &o->lat, why, JOURNAL_WHY_MAX)) ||
           (json_object_get(v, "svc") && hist_json_decode(json_object_get(v, "svc"), &o->svc, why,
                                                          JOURNAL_WHY_MAX)) ? -1 : 0;
}

static int ops_of(json_t *ops, struct op_set *s, char *why, enum ops_form form)
{
    const char *name;
    json_t *v;
    op_set_init(s);
    if (!json_is_object(ops))
        return -1;
    json_object_foreach(ops, name, v) {
        int t = op_type_from_name(name);
        if (t < 0 || (form == OPS_COMPACT ? op_of_compact(v, &s->op[t]) : op_of(v, &s->op[t], why, form)))
            return -1;
    }
    return 0;
}

/* A phase_end line's "clones" back into the result (result_clones_put
 * bounds each entry); -1 with the reason in why. */
static int replay_clones(struct run_result *r, uint32_t phase, const json_t *arr, char *why, size_t whylen)
{
    struct op_set *s = xmalloc(sizeof *s);
    int rc = 0;

    why[0] = '\0';

    if (!json_is_array(arr) || json_array_size(arr) > RESULT_CLONES_MAX) {
        snprintf(why, whylen, "phase %u: clones: not an array of at most %u", phase, RESULT_CLONES_MAX);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        uint64_t job = 0, clone = 0, rt = 0;
        const char *name = json_string_value(json_object_get(e, "name"));

        if (u64_of(e, "job", &job) || u64_of(e, "clone", &clone) || u64_of(e, "runtime_ns", &rt) || !name ||
            job > UINT32_MAX || clone > UINT32_MAX || ops_of(json_object_get(e, "ops"), s, why, OPS_FULL)) {
            if (!why[0])
                snprintf(why, whylen, "phase %u: clones[%zu]: bad entry", phase, i);
            rc = -1;
        } else if (result_clones_put(r, phase, (uint32_t)job, (uint32_t)clone, name, rt, s, why, whylen) < 0) {
            rc = -1;
        }
    }
    free(s);
    return rc;
}

/* A plan just rich enough for result_init: one job per phase. */
static int plan_of_header(json_t *hdr, struct plan *p)
{
    json_t *phases = json_object_get(hdr, "phases"), *ph;
    size_t i;
    if (!json_is_array(phases) || json_array_size(phases) > PLAN_MAX_PHASES)
        return -1;
    json_array_foreach(phases, i, ph) {
        struct job_spec js;
        const char *name = json_string_value(json_object_get(ph, "name"));
        const char *rw = json_string_value(json_object_get(ph, "rw"));
        uint64_t bs, nj;
        job_spec_default(&js);
        if (!name || !rw || rw_mode_from_name(rw) < 0 || u64_of(ph, "bs", &bs) || u64_of(ph, "numjobs", &nj))
            return -1;
        snprintf(js.name, sizeof js.name, "%s", name);
        js.rw = (enum rw_mode)rw_mode_from_name(rw);
        js.bs = bs;
        js.numjobs = (uint32_t)nj;
        js.stonewall = 1;
        {
            const char *cnv = json_string_value(json_object_get(ph, "coherence_never_visible"));
            js.coherence_never_warn = cnv && strcmp(cnv, "warn") == 0;
        }
        plan_add_job(p, &js);
    }
    return 0;
}

int journal_detect(const char *path)
{
    char head[32] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return strncmp(head, "{\"type\":\"header\"", 16) == 0;
}

/* Replay state: the sum of each agent's intervals in the phase being
 * read, standing in for the totals of agents that never sent phase-done
 * (lost, or the coordinator died); and how far each phase's intervals are
 * sealed.  Lines come in arrival order, so interval k of a phase is
 * complete, in practice, once k + SEAL_LAG has arrived: sealing then keeps
 * a long journal's replay to a few dense intervals (see result.h), and
 * anything later still adds exactly through result_add_interval's re-seal. */
#define SEAL_LAG 3u
struct replay {
    int have_header;
    int have_end;
    int have_record_end;       /* the record got its end time */
    uint8_t *ended;            /* [nphases]: phase_end seen */
    uint32_t *ndone;           /* [nphases]: phase_done lines seen */
    uint32_t phase;
    struct op_set *acc;        /* [nagents] */
    uint32_t *nint;            /* [nagents] */
    uint32_t *sealed;          /* [nphases]: slots below this are sealed */
    char why[JOURNAL_WHY_MAX]; /* a histogram's fault, for the error line */
};

static void replay_seal(struct run_result *r, struct replay *rp, uint32_t phase, uint32_t k)
{
    for (; rp->sealed[phase] + SEAL_LAG <= k; rp->sealed[phase]++)
        result_interval_seal(r, phase, rp->sealed[phase]);
}

static void replay_close_phase(struct run_result *r, struct replay *rp)
{
    if (rp->phase >= r->nphases)    /* a header with no phases: nothing to close */
        return;
    for (uint32_t a = 0; rp->acc && a < r->nagents; a++) {
        if (!r->phases[rp->phase].agents[a].done && rp->nint[a]) {   /* no phase-done: from its intervals */
            struct agent_phase ap = { .salvaged = 1, .nintervals = rp->nint[a],
                .duration_ns = (uint64_t)rp->nint[a] * r->phases[rp->phase].interval_ms * 1000000u };
            result_set_agent_phase(r, rp->phase, a, &ap, &rp->acc[a]);
        }
        op_set_init(&rp->acc[a]);
        rp->nint[a] = 0;
    }
}

static void replay_at_phase(struct run_result *r, struct replay *rp, uint32_t phase)
{
    if (phase != rp->phase) {
        replay_close_phase(r, rp);
        rp->phase = phase;
    }
}

/* Verdict inputs (coordinator/run/verdict.h): each phase's idle agents and
 * error threshold from the header; optional, so older journals replay. */
static void header_verdict_inputs(struct run_result *r, json_t *hdr)
{
    json_t *phases = json_object_get(hdr, "phases"), *ph, *id;
    size_t i, k;
    uint64_t a;

    json_array_foreach(phases, i, ph) {
        if (i >= r->nphases)
            break;
        json_array_foreach(json_object_get(ph, "idle"), k, id)   /* the header has agents */
            if (jcount(id, r->nagents - 1, &a) == 0)
                r->phases[i].agents[a].participating = 0;
        u64_of(ph, "error_threshold", &r->phases[i].error_threshold);
        json_array_foreach(json_object_get(ph, "verify_asked"), k, id)
            if (jcount(id, r->nagents - 1, &a) == 0)
                result_verify_ask(&r->phases[i], (uint32_t)a, r->nagents);
        {
            /* the phase's jobs (sections): the header's plan has one job per phase */
            uint64_t nj;
            if (!u64_of(ph, "njobs", &nj) && nj >= 1 && nj <= PLAN_MAX_JOBS)
                r->phases[i].njobs = (uint32_t)nj;
        }
        if (json_is_number(json_object_get(ph, "error_threshold_pct")))
            r->phases[i].error_threshold_pct = json_number_value(json_object_get(ph, "error_threshold_pct"));
        if (json_is_number(json_object_get(ph, "asked_iops")) && json_number_value(json_object_get(ph, "asked_iops")) > 0)
            r->phases[i].asked_iops = json_number_value(json_object_get(ph, "asked_iops"));
        if (json_is_number(json_object_get(ph, "asked_bps")) && json_number_value(json_object_get(ph, "asked_bps")) > 0)
            r->phases[i].asked_bps = json_number_value(json_object_get(ph, "asked_bps"));
    }
}

/* "error" (an agent's error text in a phase) and "stopped" (how a run that
 * did not finish ended: interrupted or failed, where and why). */
static int apply_verdict(struct run_result *r, json_t *o, struct replay *rp)
{
    const char *type = json_string_value(json_object_get(o, "type"));
    const char *text = json_string_value(json_object_get(o, "text"));
    uint64_t phase = 0, agent = 0;

    (void)rp;
    /* "stopped" may name phase nphases: a signal after the last phase ended */
    if (!text || u64_of(o, "phase", &phase) || phase > r->nphases ||
        (phase == r->nphases && strcmp(type, "error") == 0))
        return -1;
    if (strcmp(type, "error") == 0) {
        if (u64_of(o, "agent", &agent) || agent >= r->nagents)
            return -1;
        return result_set_agent_error(r, (uint32_t)phase, (uint32_t)agent, text) < 0 ? -1 : 0;
    }
    const char *how = json_string_value(json_object_get(o, "how"));
    if (!how || (strcmp(how, "interrupted") != 0 && strcmp(how, "failed") != 0))
        return -1;
    r->end = strcmp(how, "interrupted") == 0 ? RUN_END_INTERRUPTED : RUN_END_FAILED;
    r->end_phase = (uint32_t)phase;
    r->end_at_s = json_real_value(json_object_get(o, "at_s"));
    snprintf(r->end_text, sizeof r->end_text, "%s", text);
    result_clean_text(r->end_text);
    if (r->end == RUN_END_INTERRUPTED && phase < r->nphases)
        r->phases[phase].interrupted = 1;
    return 0;
}

/* "record" (the run as given, the agents' machines), "storage" (where an
 * agent ran a phase) and "record_end" (the record again, with its end):
 * read by run_record.c, the same reader as the JSON result's. */
static int apply_record(struct run_result *r, json_t *o, struct replay *rp)
{
    const char *type = json_string_value(json_object_get(o, "type"));
    char err[256];
    uint64_t phase, agent;
    if (strcmp(type, "storage") == 0)
        return u64_of(o, "phase", &phase) || u64_of(o, "agent", &agent) || phase >= r->nphases ||
               agent >= r->nagents ||
               run_record_storage_from_json(json_object_get(o, "storage"), "storage", r, (uint32_t)phase,
                                            (uint32_t)agent, err, sizeof err) < 0 ? -1 : 0;
    if (run_record_from_json(json_object_get(o, "record"), "record", &r->record, err, sizeof err) < 0)
        return -1;
    if (strcmp(type, "record_end") == 0) {
        rp->have_record_end = 1;
        return 0;
    }
    json_t *sys = json_object_get(o, "systems"), *one;
    size_t i;
    if (!json_is_array(sys) || json_array_size(sys) != r->nagents)
        return -1;
    json_array_foreach(sys, i, one) {
        struct agent_system as;
        if (json_is_null(one))
            continue;
        if (run_record_system_from_json(one, "system", &as, err, sizeof err) < 0)
            return -1;
        run_record_set_system(r, (uint32_t)i, &as);
    }
    return 0;
}

/* "phase_start" {phase, t0_ns, start_unix_ms}: when the phase was started
 * (optional: older journals have no such line, nor start_unix_ms, the same
 * instant on the wall clock that external metrics align to, ext_metrics.h).
 * Whether it ran is left to what
 * arrived, as for a journal without these lines (a cut-short journal's
 * verdicts depend on it, result_cut_short). */
static int apply_phase_start(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t phase, t0;

    (void)rp;
    if (u64_of(o, "phase", &phase) || phase >= r->nphases || u64_of(o, "t0_ns", &t0))
        return -1;
    r->phases[phase].t0_ns = t0;
    if (json_object_get(o, "start_unix_ms")) {
        uint64_t wall;
        if (u64_of(o, "start_unix_ms", &wall) || wall > INT64_MAX)
            return -1;
        r->phases[phase].t0_unix_ms = (int64_t)wall;
    }
    return 0;
}

/* A line's "client" (client_json.h; optional) into the agent's phase
 * (k < 0) or interval k.  0, or -1 with rp->why set. */
static int replay_client(struct run_result *r, json_t *o, uint32_t phase, uint32_t agent, int64_t k,
                         struct replay *rp)
{
    json_t *cl = json_object_get(o, "client");
    struct client_sample *s;
    int rc;

    if (!cl)
        return 0;
    s = xmalloc(sizeof *s);
    if (k < 0) {
        rc = json_is_object(cl) && client_json_parse(cl, s, rp->why, JOURNAL_WHY_MAX) == 0 ? 0 : -1;
    } else {
        int has_static = 0;
        rc = json_is_object(cl) && client_json_parse_iv_compact(cl, s, &has_static, rp->why, JOURNAL_WHY_MAX) == 0
             ? 0 : -1;
        if (rc == 0 && s->host.present && !has_static)
            client_result_inherit_static(r, phase, agent, &s->host);
    }
    if (rc == 0)
        rc = (k < 0 ? client_result_set_phase(r, phase, agent, s)
                    : client_result_add_interval(r, phase, agent, (uint32_t)k, s)) < 0 ? -1 : 0;
    free(s);
    return rc;
}

/* interval_lat {phase, k, ops: {op: {lat, [svc]}}}: interval k's merged
 * histograms, added to what its agents' counter lines built. */
static int apply_interval_lat(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t phase, k;
    struct op_set *s;
    int rc;

    if (u64_of(o, "phase", &phase) || u64_of(o, "k", &k) || phase >= r->nphases || k > UINT32_MAX)
        return -1;
    s = xmalloc(sizeof *s);
    rc = ops_of(json_object_get(o, "ops"), s, rp->why, OPS_HIST) ||
         result_add_interval_latency(r, (uint32_t)phase, (uint32_t)k, s) < 0 ? -1 : 0;
    if (rc == 0) {
        replay_at_phase(r, rp, (uint32_t)phase);
        replay_seal(r, rp, (uint32_t)phase, (uint32_t)k);
    }
    free(s);
    return rc;
}

/* The journal's first line: the plan, the agents, the run's identity.
 * Everything that can fail is checked before result_init: a failure after
 * it would leak the result (have_header is still 0). */
static int apply_header(struct run_result *r, json_t *o, struct replay *rp)
{
    struct plan p;
    uint64_t na, ims, started;
    json_t *agents = json_object_get(o, "agents"), *a;
    size_t i;
    uint64_t schema;

    if (rp->have_header || u64_of(o, "schema", &schema) || schema != RESULT_SCHEMA ||
        u64_of(o, "nagents", &na) || na == 0 || na > JOURNAL_MAX_AGENTS ||
        u64_of(o, "interval_ms", &ims) || u64_of(o, "started", &started) ||
        !json_is_array(agents) || json_array_size(agents) > na)
        return -1;
    plan_init(&p);
    if (plan_of_header(o, &p) < 0) {
        plan_free(&p);
        return -1;
    }
    result_init(r, &p, (uint32_t)na, (uint32_t)ims);
    plan_free(&p);
    r->started_unix = (int64_t)started;
    if (json_string_value(json_object_get(o, "run_id")))   /* optional: older journals have none */
        (void)vblock_run_parse(json_string_value(json_object_get(o, "run_id")), &r->run_id);
    snprintf(r->label, sizeof r->label, "%s", json_string_value(json_object_get(o, "label")) ?: "");
    result_clean_utf8(r->label);
    json_array_foreach(agents, i, a) {
        struct agent_info *ai = &r->agents[i];
        uint64_t v;
        snprintf(ai->addr, sizeof ai->addr, "%s", json_string_value(json_object_get(a, "addr")) ?: "");
        snprintf(ai->host, sizeof ai->host, "%s", json_string_value(json_object_get(a, "host")) ?: "");
        result_clean_text(ai->host);
        snprintf(ai->labels, sizeof ai->labels, "%s", json_string_value(json_object_get(a, "labels")) ?: "");
        result_clean_utf8(ai->labels);
        if (!u64_of(a, "ncpus", &v))
            ai->ncpus = (uint32_t)v;
        if (!u64_of(a, "rtt_ns", &v))
            ai->rtt_ns = v;
        if (!u64_of(a, "client_cap_bytes_per_s", &v))
            ai->client_cap_bps = v;
        ai->clock_offset_ns = (int64_t)json_integer_value(json_object_get(a, "clock_offset_ns"));
    }
    header_verdict_inputs(r, o);
    rp->have_header = 1;
    rp->acc = xmalloc(r->nagents * sizeof *rp->acc);
    rp->nint = xcalloc(r->nagents, sizeof *rp->nint);
    rp->sealed = xcalloc(r->nphases ? r->nphases : 1, sizeof *rp->sealed);
    rp->ended = xcalloc(r->nphases ? r->nphases : 1, sizeof *rp->ended);
    rp->ndone = xcalloc(r->nphases ? r->nphases : 1, sizeof *rp->ndone);
    for (uint32_t i2 = 0; i2 < r->nagents; i2++)
        op_set_init(&rp->acc[i2]);
    return 0;
}

/* One agent's interval: counters (and histograms on late data). */
static int apply_interval(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t phase = 0, agent = 0, k = 0;
    struct op_set *s = xmalloc(sizeof *s);
    /* "o": counters in the compact form (ops_counters_compact); "ops":
     * objects, with histograms on late data (and in older journals) */
    int compact = json_object_get(o, "o") != NULL;
    int rc = u64_of(o, "phase", &phase) || u64_of(o, "agent", &agent) || u64_of(o, "k", &k) ||
             phase >= r->nphases || agent >= r->nagents || k > UINT32_MAX ||   /* not cut to 32 bits */
             ops_of(json_object_get(o, compact ? "o" : "ops"), s, rp->why,
                    compact ? OPS_COMPACT : OPS_LAT_OPTIONAL) ||
             result_add_interval(r, (uint32_t)phase, (uint32_t)agent, (uint32_t)k, s) < 0 ? -1 : 0;
    uint64_t inflight = 0, oldest = 0;
    if (rc == 0) {
        replay_at_phase(r, rp, (uint32_t)phase);
        op_set_merge(&rp->acc[agent], s);
        rp->nint[agent]++;
    }
    if (rc == 0 && !u64_of(o, "inflight", &inflight) && !u64_of(o, "oldest_ns", &oldest))
        result_set_interval_inflight(r, (uint32_t)phase, (uint32_t)agent, (uint32_t)k,
                                     (uint32_t)inflight, oldest);
    if (rc == 0)
        rc = replay_client(r, o, (uint32_t)phase, (uint32_t)agent, (int64_t)k, rp);
    if (rc == 0)
        replay_seal(r, rp, (uint32_t)phase, (uint32_t)k);
    free(s);
    return rc;
}

/* One agent's totals at the end of a phase, and what it carries beside them. */
static int apply_phase_done(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t phase = 0, agent = 0;
    struct agent_phase *ap = xcalloc(1, sizeof *ap);
    struct op_set *tot = xmalloc(sizeof *tot);
    uint64_t cores = 0, nint = 0;
    int rc = u64_of(o, "phase", &phase) || u64_of(o, "agent", &agent) || phase >= r->nphases ||
             agent >= r->nagents || u64_of(o, "duration_ns", &ap->duration_ns) ||
             u64_of(o, "start_ns", &ap->start_ns) || u64_of(o, "cores", &cores) ||
             u64_of(o, "nintervals", &nint) || ops_of(json_object_get(o, "ops"), tot, rp->why, OPS_FULL) ? -1 : 0;
    if (rc == 0) {
        ap->cores = (uint32_t)cores;
        ap->nintervals = (uint32_t)nint;
        ap->cpu_user_s = json_real_value(json_object_get(o, "cpu_user_s"));
        ap->cpu_sys_s = json_real_value(json_object_get(o, "cpu_sys_s"));
        ap->salvaged = json_is_true(json_object_get(o, "salvaged"));
        if (json_object_get(o, "late_ops") &&      /* optional: open loop */
            (u64_of(o, "late_ops", &ap->late_ops) || u64_of(o, "late_ns", &ap->late_ns)))
            rc = -1;
        rc = replay_client(r, o, (uint32_t)phase, (uint32_t)agent, -1, rp);
        if (rc == 0)
            rc = result_set_agent_phase(r, (uint32_t)phase, (uint32_t)agent, ap, tot) < 0 ? -1 : 0;
        rp->ndone[phase] += rc == 0 && !ap->salvaged;
    }
    if (rc == 0 && json_object_get(o, "verify")) {
        struct vstats *v = xmalloc(sizeof *v);
        rc = verify_from_json(json_object_get(o, "verify"), v, rp->why, sizeof rp->why) < 0 ? -1 : 0;
        if (rc == 0) {
            result_verify_ask(&r->phases[phase], (uint32_t)agent, r->nagents);
            rc = result_set_agent_verify(r, (uint32_t)phase, (uint32_t)agent, v) < 0 ? -1 : 0;
        }
        free(v);
    }
    if (rc == 0 && json_object_get(o, "errors")) {      /* its failed ops' causes */
        struct errcause_set *es = xmalloc(sizeof *es);
        rc = errors_from_json(json_object_get(o, "errors"), es, rp->why, sizeof rp->why) < 0 ||
             result_errors_match(es, tot, rp->why, sizeof rp->why) < 0 ||
             result_set_agent_errors(r, (uint32_t)phase, (uint32_t)agent, es) < 0 ? -1 : 0;
        free(es);
    }
    if (rc == 0 && json_object_get(o, "coherence")) {   /* rw=coherence: this reader's pairs */
        struct coh_set cs;
        coh_set_init(&cs);
        rc = coherence_from_json(json_object_get(o, "coherence"), r->nagents, &cs, rp->why,
                                 sizeof rp->why) < 0 ? -1 : 0;
        for (uint32_t q = 0; rc == 0 && q < cs.n; q++)
            if (cs.pair[q].reader != agent) {
                snprintf(rp->why, sizeof rp->why, "coherence pair of reader %u in agent %u's record",
                         cs.pair[q].reader, (unsigned)agent);
                rc = -1;
            }
        if (rc == 0 && coherence_result_add(r, (uint32_t)phase, &cs) < 0) {
            snprintf(rp->why, sizeof rp->why, "coherence: too many pairs or repeated ones");
            rc = -1;
        }
        coh_set_free(&cs);
    }
    free(tot);
    free(ap);
    return rc;
}

/* The nfs engine's RPC telemetry: one interval's, or the phase's. */
static int apply_nfs(struct run_result *r, json_t *o, struct replay *rp)
{
    const char *type = json_string_value(json_object_get(o, "type"));
    uint64_t phase = 0, agent = 0;
    struct nfs_rpc_set s;
    int iv = type[4] == 'i';
    uint64_t kk = 0;
    int rc = u64_of(o, "phase", &phase) || u64_of(o, "agent", &agent) ||
             (iv && u64_of(o, "k", &kk)) || phase >= r->nphases || agent >= r->nagents ||
             kk > UINT32_MAX ? -1 : 0;
    nfs_rpc_set_init(&s);
    if (rc == 0 && nfs_json_decode(json_object_get(o, "nfs"), &s, rp->why, JOURNAL_WHY_MAX))
        rc = -1;
    if (rc == 0)
        rc = (iv ? result_nfs_add_interval(r, (uint32_t)phase, (uint32_t)agent, (uint32_t)kk, &s)
                 : result_nfs_set_agent(r, (uint32_t)phase, (uint32_t)agent, &s)) < 0 ? -1 : 0;
    nfs_rpc_set_free(&s);
    return rc;
}

static int apply_lost(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t agent;

    (void)rp;
    if (u64_of(o, "agent", &agent) || agent >= r->nagents)
        return -1;
    r->agents[agent].lost = 1;
    r->agents[agent].lost_at_s = json_real_value(json_object_get(o, "at_s"));
    return 0;
}

/* The coordinator's view of a phase once it ended: its control, its name
 * (a sweep point's), per-clone figures, schedule debt, who took part, the
 * sweeps as judged so far. */
static int apply_phase_end(struct run_result *r, json_t *o, struct replay *rp)
{
    uint64_t phase = 0;
    const json_t *ctl;
    if (u64_of(o, "phase", &phase) || phase >= r->nphases)
        return -1;
    if ((ctl = json_object_get(o, "control")) &&
        phase_ctl_load(&r->phases[phase], r->nagents, ctl, rp->why, sizeof rp->why) < 0)
        return -1;
    if (json_string_value(json_object_get(o, "name")))
        snprintf(r->phases[phase].name, sizeof r->phases[phase].name, "%s",
                 json_string_value(json_object_get(o, "name")));
    if (json_object_get(o, "clones") && !r->phases[phase].clones &&
        replay_clones(r, (uint32_t)phase, json_object_get(o, "clones"), rp->why, sizeof rp->why) < 0)
        return -1;
    if (json_object_get(o, "schedule_debt") &&
        sched_debt_phase_load(json_object_get(o, "schedule_debt"), &r->phases[phase], rp->why,
                              sizeof rp->why) < 0)
        return -1;
    {
        uint64_t nj;
        if (json_object_get(o, "numjobs") && !u64_of(o, "numjobs", &nj) && nj >= 1 && nj <= UINT32_MAX)
            r->phases[phase].numjobs = (uint32_t)nj;
    }
    if (json_is_array(json_object_get(o, "participating"))) {
        const json_t *part = json_object_get(o, "participating");
        if (json_array_size(part) != r->nagents) {
            snprintf(rp->why, sizeof rp->why, "phase_end participating: want %u booleans", r->nagents);
            return -1;
        }
        for (uint32_t a = 0; a < r->nagents; a++)
            r->phases[phase].agents[a].participating = json_is_true(json_array_get(part, a));
    }
    if (json_object_get(o, "sweeps")) {
        struct sweep_set *sw = NULL;
        if (sweep_from_json(json_object_get(o, "sweeps"), r->nagents, r->nphases, &sw, rp->why,
                            sizeof rp->why) < 0)
            return -1;
        sweep_set_free(r->sweeps);
        r->sweeps = sw;
    }
    rp->ended[phase] = 1;
    return 0;
}

static int apply_end(struct run_result *r, json_t *o, struct replay *rp)
{
    (void)r;
    (void)o;
    rp->have_end = 1;
    return 0;
}

/* One handler per line type; a type not here is from a newer version and
 * skipped. */
static const struct {
    const char *type;
    int (*apply)(struct run_result *r, json_t *o, struct replay *rp);
} line_types[] = {
    { "interval", apply_interval },
    { "interval_lat", apply_interval_lat },
    { "phase_done", apply_phase_done },
    { "nfs_interval", apply_nfs },
    { "nfs_phase", apply_nfs },
    { "lost", apply_lost },
    { "error", apply_verdict },
    { "stopped", apply_verdict },
    { "phase_start", apply_phase_start },
    { "phase_end", apply_phase_end },
    { "end", apply_end },
    { "record", apply_record },
    { "record_end", apply_record },
    { "storage", apply_record },
};

static int apply_line(struct run_result *r, json_t *o, struct replay *rp)
{
    const char *type = json_string_value(json_object_get(o, "type"));

    if (!type)
        return -1;
    if (strcmp(type, "header") == 0)
        return apply_header(r, o, rp);
    if (!rp->have_header)
        return -1;
    for (size_t t = 0; t < sizeof line_types / sizeof line_types[0]; t++)
        if (strcmp(type, line_types[t].type) == 0)
            return line_types[t].apply(r, o, rp);
    return 0;   /* unknown line types: from a newer version, skipped */
}

/* A phase some agent's totals were salvaged for (no phase-done: the sum of
 * its interval lines, which carry counters only) has no latency from that
 * agent; the merged intervals' histograms (interval_lat) hold every
 * agent's.  So the phase's latency is theirs, and an agent that alone had
 * data gets them exactly (as the live run's salvage would have given it).
 * Several salvaged agents keep no per-agent latency (the reports print
 * "-", not 0). */
static void replay_salvaged_latency(struct run_result *r, uint32_t phase)
{
    struct phase_result *ph = &r->phases[phase];
    struct op_set *lat, *scratch;
    uint32_t nsalv = 0, ndata = 0, only = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        if (!ap->done || result_agent_empty(ap))
            continue;
        ndata++;
        only = a;
        nsalv += ap->salvaged;
    }
    if (nsalv == 0 || ph->nintervals == 0)
        return;
    lat = xmalloc(sizeof *lat);
    scratch = xmalloc(sizeof *scratch);
    op_set_init(lat);
    for (uint32_t k = 0; k < ph->nintervals; k++) {
        const struct op_set *iv = result_interval_ops(r, phase, k, scratch);
        for (int t = 0; t < OP__COUNT; t++) {
            hist_merge(&lat->op[t].lat, &iv->op[t].lat);
            hist_merge(&lat->op[t].svc, &iv->op[t].svc);
        }
    }
    if (ndata == 1) {
        struct agent_phase ap = ph->agents[only];
        struct op_set *tot = xmalloc(sizeof *tot);

        memcpy(tot, result_agent_totals(r, phase, only), sizeof *tot);
        for (int t = 0; t < OP__COUNT; t++) {
            tot->op[t].lat = lat->op[t].lat;
            tot->op[t].svc = lat->op[t].svc;
        }
        result_set_agent_phase(r, phase, only, &ap, tot);
        free(tot);
        result_phase_finish(r, phase);
    } else {
        for (int t = 0; t < OP__COUNT; t++) {
            ph->totals.op[t].lat = lat->op[t].lat;
            ph->totals.op[t].svc = lat->op[t].svc;
        }
    }
    free(scratch);
    free(lat);
}

/* Say what a journal without its end record is missing. */
static void describe_gaps(const struct run_result *r, const struct replay *rp, struct journal_gaps *g)
{
    size_t len = 0, cap = sizeof g->what;
    g->cut_short = !rp->have_end;
    if (!g->cut_short)
        return;
    len += (size_t)snprintf(g->what + len, cap - len, "no end record (the coordinator was killed or "
                            "its disk filled up)");
    if (g->torn_line && len < cap)
        len += (size_t)snprintf(g->what + len, cap - len, "; line %u torn (%llu bytes lost)", g->torn_line,
                                (unsigned long long)g->torn_bytes);
    for (uint32_t p = 0; p < r->nphases && len < cap; p++) {
        uint32_t done = rp->ndone[p];
        if (rp->ended[p])
            continue;
        if (r->phases[p].finished || r->phases[p].nintervals) {
            g->unfinished++;
            len += (size_t)snprintf(g->what + len, cap - len, "; phase '%s' cut short (%u of %u agents "
                                    "sent its totals)", r->phases[p].name, done, r->nagents);
        } else {
            len += (size_t)snprintf(g->what + len, cap - len, "; phase '%s' never started",
                                    r->phases[p].name);
        }
    }
}

int journal_load(const char *path, struct run_result *r, char *err, size_t errlen)
{
    return journal_replay(path, r, NULL, err, errlen);
}

int journal_replay(const char *path, struct run_result *r, struct journal_gaps *gaps,
                   char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, rc = 0;
    struct replay rp = { 0 };

    memset(r, 0, sizeof *r);
    if (gaps)
        memset(gaps, 0, sizeof *gaps);
    if (!f) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return rc;
    }
    while ((n = getline(&line, &cap, f)) > 0) {
        json_error_t je;
        json_t *o;
        lineno++;
        if (line[n - 1] != '\n') {    /* cut short by a kill: the rest is lost */
            if (gaps) {
                gaps->torn_line = (uint32_t)lineno;
                gaps->torn_bytes = (uint64_t)n;
            }
            break;
        }
        if ((size_t)n > JOURNAL_LINE_MAX || !(o = json_loads(line, 0, &je))) {
            snprintf(err, errlen, "%s:%d: not a journal line", path, lineno);
            rc = -EINVAL;
            break;
        }
        if (apply_line(r, o, &rp) < 0) {
            snprintf(err, errlen, "%s:%d: bad journal entry%s%s", path, lineno, rp.why[0] ? ": " : "",
                     rp.why);
            rc = -EINVAL;
        }
        json_decref(o);
        if (rc < 0)
            break;
    }
    free(line);
    fclose(f);
    if (rc == 0 && rp.have_header)
        replay_close_phase(r, &rp);
    free(rp.acc);
    free(rp.nint);
    free(rp.sealed);
    if (rc == 0 && !rp.have_header) {
        snprintf(err, errlen, "%s: no journal header (the run never started)", path);
        rc = -EINVAL;
    }
    if (rc < 0) {
        if (rp.have_header)
            result_free(r);
        free(rp.ended);
        free(rp.ndone);
        return rc;
    }
    /* phases that got data are summed; intervals of lost agents included */
    for (uint32_t p = 0; p < r->nphases; p++)
        for (uint32_t a = 0; a < r->nagents; a++)
            if (r->phases[p].agents[a].done || r->phases[p].nintervals) {
                result_phase_finish(r, p);
                replay_salvaged_latency(r, p);
                break;
            }
    /* a sweep's spare points were started and stopped at once: not run */
    for (uint32_t p = 0; p < r->nphases; p++)
        if (r->phases[p].ctl.skipped && r->sweeps)
            r->phases[p].ran = 0;
    /* a record without its end: the coordinator never got there */
    if (r->record.present && !rp.have_record_end)
        r->record.interrupted = 1;
    if (gaps) {
        describe_gaps(r, &rp, gaps);
        /* what arrived is summed above and is reported, marked partial: a
         * phase the run never saw end is cut short (never "finished" in the
         * JSON, verdict partial), but its figures are not thrown away */
        for (uint32_t p = 0; gaps->cut_short && p < r->nphases; p++)
            if (!rp.ended[p] && r->phases[p].finished)
                r->phases[p].interrupted = 1;
    }
    free(rp.ended);
    free(rp.ndone);
    return 0;
}
