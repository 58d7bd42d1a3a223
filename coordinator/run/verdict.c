/* verdict: see verdict.h.
 *
 * Design: one pass over the phase's agents adds reasons, each with the
 * severity it carries; the phase's verdict is the most severe.  Tolerated
 * failures (within error_threshold) are still listed, at severity ok, so a
 * phase with failed ops always says so.  Reasons beyond the cap are counted
 * and summarised in the last slot, so a fleet of thousands keeps a bounded
 * verdict. */
#include "coordinator/run/verdict.h"
#include "common/sat.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/run/phase_ctl.h"

static const char *const names[] = { "ok", "partial", "failed", "interrupted" };

const char *verdict_name(enum verdict_kind v)
{
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

int verdict_from_name(const char *s)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

int verdict_exit_status(enum verdict_kind v)
{
    switch (v) {
    case VERDICT_OK:
        return 0;
    case VERDICT_PARTIAL:
        return 3;
    case VERDICT_INTERRUPTED:
        return 130;
    case VERDICT_FAILED:
    default:
        return 1;
    }
}

struct acc {
    struct verdict *out;
    uint32_t more;            /* reasons that did not fit */
};

static void add(struct acc *a, enum verdict_kind sev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct acc *a, enum verdict_kind sev, const char *fmt, ...)
{
    struct verdict *o = a->out;
    va_list ap;

    if (sev > o->v)
        o->v = sev;
    if (o->nreasons >= VERDICT_REASONS_MAX - 1) {
        a->more++;
        return;
    }
    o->severity[o->nreasons] = (uint8_t)sev;
    va_start(ap, fmt);
    vsnprintf(o->reason[o->nreasons++], VERDICT_REASON_LEN, fmt, ap);
    va_end(ap);
}

/* Most severe first, keeping the order within a severity (insertion sort:
 * at most VERDICT_REASONS_MAX entries). */
static void sort_reasons(struct verdict *o)
{
    char tmp[VERDICT_REASON_LEN];

    for (uint32_t i = 1; i < o->nreasons; i++) {
        uint32_t j = i;
        uint8_t sev = o->severity[i];

        if (o->severity[i - 1] >= sev)
            continue;
        memcpy(tmp, o->reason[i], sizeof tmp);
        while (j > 0 && o->severity[j - 1] < sev) {
            memcpy(o->reason[j], o->reason[j - 1], sizeof tmp);
            o->severity[j] = o->severity[j - 1];
            j--;
        }
        memcpy(o->reason[j], tmp, sizeof tmp);
        o->severity[j] = sev;
    }
}

/* "agent 1 (127.0.0.1:4000)": the address as dialled, else the host name. */
static void agent_tag(const struct run_result *r, uint32_t a, char *buf, size_t len)
{
    const struct agent_info *ai = &r->agents[a];

    snprintf(buf, len, "agent %u (%s)", ai->id, ai->addr[0] ? ai->addr : ai->host[0] ? ai->host : "?");
}

/* The agent's error text without the "phase N: " it prefixes. */
static const char *error_text(const char *e)
{
    unsigned n;
    int used = 0;

    if (e && sscanf(e, "phase %u: %n", &n, &used) == 1 && used > 0)
        return e + used;
    return e;
}

/* The run ended by SIGINT/SIGTERM (end_text is the signal's name), not cut
 * short some other way (result_cut_short). */
static int by_signal(const struct run_result *r)
{
    return strncmp(r->end_text, "SIG", 3) == 0;
}

int verdict_phase_finished(const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];

    if (!ph->finished || !ph->ran || ph->interrupted)
        return 0;
    return !(r->end == RUN_END_FAILED && r->end_phase == phase);
}

int verdict_phase_partial(const struct run_result *r, uint32_t phase)
{
    return r->phases[phase].finished && !verdict_phase_finished(r, phase);
}

/* Failed ops the phase tolerates: the count, or the percentage of its ops. */
static uint64_t errors_allowed(const struct phase_result *ph, uint64_t ops)
{
    uint64_t pct = 0;

    if (ph->error_threshold_pct > 0)
        pct = (uint64_t)(ph->error_threshold_pct / 100.0 * (double)ops);
    return pct > ph->error_threshold ? pct : ph->error_threshold;
}

static void threshold_text(const struct phase_result *ph, char *buf, size_t len)
{
    if (ph->error_threshold_pct > 0)
        snprintf(buf, len, "error_threshold=%g%%", ph->error_threshold_pct);
    else
        snprintf(buf, len, "error_threshold=%llu", (unsigned long long)ph->error_threshold);
}

/* The cause most of op type t's failed ops had, in words, and how many
 * other causes there were: "short read at offset 0 (file is 0 bytes)" or
 * "ENOENT (No such file or directory); and other causes"; "" when the
 * agent sent none. */
static void top_cause(const struct errcause_set *s, enum op_type t, char *buf, size_t len)
{
    const struct errcause_op *o = s ? &s->op[t] : NULL;
    uint32_t best = 0, others;
    char text[160];

    buf[0] = '\0';
    if (!o || o->n == 0)
        return;
    for (uint32_t i = 1; i < o->n; i++)
        if (o->c[i].count > o->c[best].count)
            best = i;
    others = o->n - 1 + (o->other != 0);
    snprintf(buf, len, "%s%s", errcause_text(&o->c[best], text, sizeof text), others ? "; and other causes" : "");
}

/* Failed ops of one agent: one reason per op type that had some, with the
 * agent's error text (on the first) or else the op type's main cause. */
static void agent_errors(struct acc *acc, const struct run_result *r, uint32_t phase, uint32_t a,
                         const char *tag, enum verdict_kind sev, const char *within)
{
    const struct agent_phase *ap = &r->phases[phase].agents[a];
    const char *text = error_text(ap->error);
    int any = 0;

    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_counts *o = &ap->sealed.count[t];
        char cause[256];

        if (o->errors == 0)
            continue;
        top_cause(result_agent_errors(r, phase, a), (enum op_type)t, cause, sizeof cause);
        if (text && !any)
            snprintf(cause, sizeof cause, "%s", text);
        add(acc, sev, "%s: %llu of %llu %s ops failed%s%s%s%s", tag, (unsigned long long)o->errors,
            (unsigned long long)o->ops, op_type_name((enum op_type)t), cause[0] ? " (" : "",
            cause, cause[0] ? ")" : "", within);
        any = 1;
    }
    if (!any && text)
        add(acc, VERDICT_FAILED, "%s: %s", tag, text);
}

/* Ops agent a had in flight when its last interval of the phase closed:
 * a lost agent's are not in its totals, and the reason says so. */
static uint32_t lost_inflight(const struct phase_result *ph, uint32_t a)
{
    uint32_t n = ph->agents[a].nintervals;   /* it sends intervals 0, 1, ... in order */
    struct counters c;

    if (n == 0 || n > ph->nintervals)
        return 0;
    result_slot_agent(&ph->intervals[n - 1], a, &c);
    return c.inflight;
}

/* A counter at UINT64_MAX is a saturated sum (common/sat.h) or an agent's
 * impossible claim: no op count, byte count or latency built on it is a
 * measurement. */
static int counts_saturated(const struct op_counts *c)
{
    return c->ops == UINT64_MAX || c->bytes == UINT64_MAX || c->errors == UINT64_MAX ||
           c->timeouts == UINT64_MAX;
}

static int totals_saturated(const struct op_set *s)
{
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];
        /* counts only: a latency sum (ns) can reach 2^64 in a long soak of
         * a big fleet, and then only the mean is off, not the counts or
         * the percentiles */
        if (o->ops == UINT64_MAX || o->bytes == UINT64_MAX || o->errors == UINT64_MAX ||
            o->timeouts == UINT64_MAX || o->lat.count == UINT64_MAX || o->svc.count == UINT64_MAX)
            return 1;
    }
    return 0;
}

/* rw=coherence: a generation no reader ever saw fails the phase (or warns,
 * coherence_never_visible=warn); a phase that saw none at all fails, as
 * there is no lag to report (every write lost, or no reader). */
static void coherence_reason(struct acc *acc, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    struct { uint64_t seen, never; } all = { 0, 0 };
    if (!ph->ran || (ph->rw != RW_COHERENCE && ph->coh.n == 0))
        return;
    if (ph->coh.n == 0) {
        add(acc, VERDICT_FAILED, "coherence: no reader reported any generation");
        return;
    }
    for (uint32_t i = 0; i < ph->coh.n; i++) {
        all.seen = sat_add_u64(all.seen, ph->coh.pair[i].seen);
        all.never = sat_add_u64(all.never, ph->coh.pair[i].never);
    }
    if (all.seen == 0) {
        add(acc, VERDICT_FAILED, "coherence: no generation became visible to any reader "
            "(%" PRIu64 " never visible): nothing was measured", all.never);
    } else if (all.never) {
        const struct coh_pair *w = NULL;
        for (uint32_t i = 0; i < ph->coh.n; i++)
            if (ph->coh.pair[i].never && (!w || ph->coh.pair[i].never > w->never))
                w = &ph->coh.pair[i];
        add(acc, ph->coh_never_warn ? VERDICT_OK : VERDICT_FAILED,
            "coherence: %" PRIu64 " of %" PRIu64 " generations never visible within the deadline "
            "(most: writer %u -> reader %u, %" PRIu64 ")%s", all.never, all.never + all.seen, w->writer,
            w->reader, w->never, ph->coh_never_warn ? "; coherence_never_visible=warn" : "");
    }
}

void verdict_phase(const struct run_result *r, uint32_t phase, struct verdict *out)
{
    const struct phase_result *ph = &r->phases[phase];
    struct acc acc = { .out = out, .more = 0 };
    uint64_t ok_total = 0, errors = 0, ops = 0, allowed;
    uint32_t nparticipants = 0;
    char tag[RESULT_HOST_MAX + 32], within[96] = "", vwhy[VERDICT_REASON_LEN - RESULT_HOST_MAX - 40];
    int over;

    memset(out, 0, sizeof(*out));
    out->v = VERDICT_OK;
    if (!ph->ran && ph->ctl.skipped) {
        /* as planned, not a failure */
        add(&acc, VERDICT_OK, "not run: %s",
            ph->ctl.why[0] ? ph->ctl.why : "exit_what=all ended the run before this phase");
        return;
    }
    if (!ph->ran) {
        if (r->end == RUN_END_INTERRUPTED && !by_signal(r))
            add(&acc, VERDICT_PARTIAL, "not run: the run was cut short before this phase started: %s",
                r->end_text);
        else if (r->end == RUN_END_INTERRUPTED)
            add(&acc, VERDICT_INTERRUPTED, "not run: interrupted by %s at %.1f s, before this phase started",
                r->end_text, r->end_at_s);
        else if (r->end == RUN_END_FAILED)
            add(&acc, VERDICT_FAILED, "not run: the run failed before this phase started: %s", r->end_text);
        else
            add(&acc, VERDICT_FAILED, "not run: no agent was left to run it");
        return;
    }
    if (ph->ctl.ended_early)
        add(&acc, VERDICT_OK, "ended early: %s", ph->ctl.why);   /* phase_ctl.h: as planned */
    {
        char lt[256];
        if (phase_ctl_lat_reason(ph, r->nagents, lt, sizeof lt))
            add(&acc, VERDICT_OK, "%s", lt);
    }
    if (ph->interrupted && by_signal(r))
        add(&acc, VERDICT_INTERRUPTED, "interrupted by %s at %.1f s", r->end_text, r->end_at_s);
    else if (ph->interrupted)
        add(&acc, VERDICT_PARTIAL, "cut short: %s", r->end_text[0] ? r->end_text : "the run ended early");
    if (r->end == RUN_END_FAILED && r->end_phase == phase) {
        int named = 0;   /* an agent's own error already says why */

        for (uint32_t a = 0; a < r->nagents; a++)
            named |= ph->agents[a].error != NULL;
        if (!named)
            add(&acc, VERDICT_FAILED, "run stopped: %s", r->end_text);
        else if (out->v < VERDICT_FAILED)
            out->v = VERDICT_FAILED;
    }

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];

        if (!ap->done)
            continue;
        for (int t = 0; t < OP__COUNT; t++) {
            ok_total = sat_add_u64(ok_total, result_ok_count(ap->sealed.count[t].ops, ap->sealed.count[t].errors));
            errors = sat_add_u64(errors, ap->sealed.count[t].errors);
            ops = sat_add_u64(ops, ap->sealed.count[t].ops);
        }
    }
    allowed = errors_allowed(ph, ops);
    over = errors > allowed;
    if (errors && !over) {
        char th[64];

        threshold_text(ph, th, sizeof th);
        snprintf(within, sizeof within, ", within %s", th);
    }

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];
        const struct agent_info *ai = &r->agents[a];
        uint64_t ok = 0;

        agent_tag(r, a, tag, sizeof tag);
        for (int t = 0; t < OP__COUNT; t++)
            ok = sat_add_u64(ok, result_ok_count(ap->sealed.count[t].ops, ap->sealed.count[t].errors));
        nparticipants += ap->participating;
        /* errors fail the phase past the threshold, or whenever the agent
         * reported an error of its own (a job that ended early) */
        if (ap->error)
            agent_errors(&acc, r, phase, a, tag, VERDICT_FAILED, "");
        else if (ap->done)
            agent_errors(&acc, r, phase, a, tag, over ? VERDICT_FAILED : VERDICT_OK, within);
        if (!ap->participating)
            continue;
        if (ai->lost && (!ap->done || ap->salvaged)) {
            uint32_t out_then = ap->done ? lost_inflight(ph, a) : 0;
            char more[64] = "";

            if (out_then)
                snprintf(more, sizeof more, " (%u op%s then in flight %s not known)", out_then,
                         out_then == 1 ? "" : "s", out_then == 1 ? "is" : "are");
            add(&acc, VERDICT_PARTIAL, "%s lost at %.1f s%s%s", tag, ai->lost_at_s,
                ap->done ? "; its data up to then is included" : "", more);
            continue;
        }
        if (!ap->done) {
            add(&acc, VERDICT_FAILED, "%s: sent no result for this phase", tag);
            continue;
        }
        if (ap->salvaged)   /* not lost, yet no phase-done: the run ended first */
            add(&acc, VERDICT_PARTIAL, "%s: no phase-done; its totals are the sum of its intervals", tag);
        if (ok == 0)
            add(&acc, VERDICT_FAILED, "%s: completed no op", tag);
        for (int t = 0; t < OP__COUNT; t++)
            if (counts_saturated(&ap->sealed.count[t])) {
                add(&acc, VERDICT_FAILED, "%s: sent a %s counter of 2^64-1 (an impossible value); "
                    "its figures are not measurements", tag, op_type_name((enum op_type)t));
                break;
            }
        if (!ap->salvaged && result_verify_reason(r, phase, a, vwhy, sizeof vwhy))
            add(&acc, VERDICT_FAILED, "%s: %s", tag, vwhy);
    }
    if (ok_total == 0)
        add(&acc, VERDICT_FAILED, "no op completed on any of the %u agents taking part", nparticipants);
    if (result_verify_phase_reason(r, phase, vwhy, sizeof vwhy))
        add(&acc, VERDICT_FAILED, "%s", vwhy);
    coherence_reason(&acc, r, phase);
    if (totals_saturated(&ph->totals))
        add(&acc, VERDICT_FAILED, "the fleet's totals reached 2^64-1 and stopped there (saturated): "
            "they are not measurements");
    sort_reasons(out);
    if (acc.more) {
        out->severity[out->nreasons] = VERDICT_OK;
        snprintf(out->reason[out->nreasons++], VERDICT_REASON_LEN, "and %u more reasons like these",
                 acc.more);
    }
}

enum verdict_kind verdict_run(const struct run_result *r)
{
    enum verdict_kind worst = VERDICT_OK;
    struct verdict *v;

    if (r->nphases == 0)
        return r->end == RUN_END_INTERRUPTED ? VERDICT_INTERRUPTED
             : r->end == RUN_END_FAILED     ? VERDICT_FAILED
                                            : VERDICT_OK;
    v = xmalloc(sizeof(*v));
    for (uint32_t p = 0; p < r->nphases; p++) {
        verdict_phase(r, p, v);
        if (v->v > worst)
            worst = v->v;
    }
    free(v);
    /* a signal after the last phase ended: every phase is complete (their
     * verdicts say so) but the run was interrupted, and says so: 130, as a
     * shell loop around it expects of Ctrl-C */
    if (r->end == RUN_END_INTERRUPTED && r->end_phase >= r->nphases)
        worst = VERDICT_INTERRUPTED;
    return worst;
}

enum verdict_kind verdict_summary(const struct run_result *r, char *buf, size_t len)
{
    enum verdict_kind worst = verdict_run(r);
    struct verdict *v = xmalloc(sizeof(*v));

    snprintf(buf, len, "%s", verdict_name(worst));
    for (uint32_t p = 0; p < r->nphases; p++) {
        verdict_phase(r, p, v);
        if (v->v != worst || (worst == VERDICT_OK && v->nreasons == 0))
            continue;
        if (v->nreasons > 1)
            snprintf(buf, len, "%s: phase %s: %s (and %u more reason%s)", verdict_name(worst),
                     r->phases[p].name, v->reason[0], v->nreasons - 1, v->nreasons == 2 ? "" : "s");
        else if (v->nreasons == 1)
            snprintf(buf, len, "%s: phase %s: %s", verdict_name(worst), r->phases[p].name, v->reason[0]);
        break;
    }
    if (r->end != RUN_END_NONE && (r->nphases == 0 || strcmp(buf, verdict_name(worst)) == 0))
        snprintf(buf, len, "%s: %s%s", verdict_name(worst), r->end_text,
                 r->nphases && r->end_phase >= r->nphases ? " after the last phase ended" : "");
    free(v);
    return worst;
}
