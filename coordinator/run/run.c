/* run: the coordinator's state machine (see run.h).
 *
 * Per agent:  CONNECTING -> HELLO (-> auth) -> SYNCING (pings) -> PLANNED
 *             -> per phase: READY -> RUNNING -> DONE          (or LOST)
 * The run advances a phase only when every live agent reached the same
 * step, so all agents start each phase together.  Start instant: now + a
 * margin of several round trips, expressed in each agent's clock with the
 * offset measured from the ping with the smallest round trip (NTP's rule:
 * that sample bounds the offset's error by half its RTT).
 *
 * Failure: once the plan is out, an agent that hangs up or stays silent
 * longer than agent_timeout_ms is marked lost; the phase finishes with the
 * others, and the lost agent's totals are what its intervals said until
 * then.  Every agent hears from us at least once a second (pings), which
 * renews its lease; an agent that stops hearing from us stops its I/O.
 *
 * Preparation (PLANNED, until its ready) is judged by what it achieves, not
 * by pings, which an agent's loop thread answers while its layout hangs on
 * a stuck mount (or a hostile peer answers for ever): a layout it reports
 * (progress with bytes to lay out) must advance within agent_timeout_ms;
 * preparation without layout progress (before the layout, after it, or a
 * phase with none) may take prepare_timeout_ms from its start or the last
 * advance.  Either way the agent is then lost like a silent one.  The
 * same holds while a phase runs: an agent's sampler sends interval k when
 * it closes (t0 + ramp + (k+1) * interval, on its loop thread, whatever its
 * job threads do), so one that answers pings but sends no interval for
 * agent_timeout_ms past when it was due is lost too.
 *
 * An agent's error while a phase runs (a job failed) is kept for the
 * verdict, the others are told to stop, and the run ends once every
 * phase-done is in, so ops cut off at the end are counted, not dropped.
 * How the run ended (run_end) goes into the result for the verdicts
 * (verdict.h), which decide the exit status.
 *
 * Why one file of ~1,400 lines: it is one state machine over one struct
 * run, and its handlers (the handshake, clock sync, phases, intervals,
 * phase-done, the timer's rules) each read and advance the same per-agent
 * state; split across files they would need that state in a shared
 * header and lose the one place where every transition can be read in
 * order.  What is not the state machine already lives elsewhere: the
 * transport in net/peer.h, phase control in phase_ctl.c, sweeps in
 * sweep.c, the journal and logs in journal.c and fiolog.c. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include "common/stall.h"
#include "common/sat.h"
#include "common/clock.h"
#include "common/vblock.h"
#include "common/xmalloc.h"
#include "coordinator/fleet/agent_accept.h"
#include "coordinator/fleet/client_cap.h"
#include "coordinator/result/client_result.h"
#include "coordinator/report/coherence_report.h"
#include "coordinator/fleet/gather.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/run/fiolog.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/run/phase_ctl.h"
#include "coordinator/run/run.h"
#include "coordinator/run/sweep.h"
#include "net/addr.h"
#include "net/ctlsock.h"
#include "net/peer.h"
#include "proto/frame.h"
#include "proto/coh_msg.h"
#include "proto/msg.h"
#include "proto/msg_version.h"

#define NPINGS          8
#define START_MARGIN_NS (200 * 1000000ull)
#define HEARTBEAT_MS    1000
#define STALL_BLAME_NS  (2 * 1000000000ull)   /* a hang-up this soon after our own stall is its doing */
/* What one agent may send (docs/security.md, "What the coordinator trusts").
 * Before its welcome a peer is a stranger: a welcome is under 1 KiB, so a
 * few KiB is plenty, and a larger declared length (an HTTP or SSH server
 * answering with text reads as one) says "not an nfstorm agent".  After it,
 * the largest message is an op_set with every histogram bucket used: per
 * op type two histograms of HIST_NBUCKETS (index <= 5 bytes, count <= 9
 * bytes) pairs, plus headroom for the keys. */
#define HELLO_FRAME_MAX   4096u
#define AGENT_FRAME_MAX   MSG_AGENT_FRAME_MAX
/* Interval k of a phase closes at t0 + ramp + (k+1)*interval on the agent:
 * it may arrive no sooner than that.  Slack for the clock offset's error,
 * timer jitter and a late interval sent with the phase's last one. */
#define INTERVAL_SLACK_NS (500 * 1000000ull)
#define INTERVAL_SLACK_K  2u
/* Messages an agent may send: a token bucket refilled at 10 + 3 per
 * interval a second (a ping, a layout progress and an interval per
 * interval, a few more), holding 30 s of that: a coordinator paused for a
 * while (SIGSTOP, a slow terminal) then reads the backlog of an honest
 * agent without calling it a flood. */
#define MSGS_PER_S_BASE   10u
#define MSGS_BURST_S      30u

enum conn_state { C_CONNECTING, C_HELLO, C_AUTH, C_SYNCING, C_PLANNED, C_READY, C_RUNNING, C_DONE, C_LOST };

struct run;

struct conn {
    struct peer peer;          /* first: the peer layer's callbacks get the conn */
    struct run *run;
    uint32_t id;
    const char *addr;
    enum conn_state state;
    unsigned char cnonce[AUTH_NONCE_LEN];
    uint32_t pings;
    uint64_t best_rtt;
    int64_t offset;
    uint32_t phase;            /* the phase this agent is in */
    uint32_t next_k;           /* intervals arrive in order: this bounds what
                                  an agent can make us allocate */
    uint64_t layout_done, layout_total;   /* from its last progress message */
    uint64_t prep_since_ns;    /* PLANNED: when its preparation began, or its
                                  layout last advanced */
    char lost_why[160];        /* why it was lost, for the run's summary */
    int layout_seen;                      /* it reported its layout's whole total this phase */
    int ready_early;           /* ready for the next phase before the others
                                  finished this one */
    struct op_rec acc;         /* this phase's intervals: a lost agent's totals,
                                  and what its phase-done must match (chunked:
                                  a few KB an agent, not a 400 KB op_set) */
    uint64_t error_at_ns;      /* it reported an error while running (0: none) */
};

struct run {
    /* one interval message decoded at a time, reused: a fresh ~440 KB
     * block per agent-interval would come from the heap between the
     * result's small packed blocks and leave holes a long run's RSS keeps */
    struct msg_interval *iv;
    const struct plan *plan;
    const struct run_options *opt;
    struct run_result *res;
    uint64_t run_id;           /* the run's identity, sent with the plan */
    uint64_t run_ms;           /* wall clock at its start, ms: every agent's generations */
    uv_loop_t loop;
    uv_timer_t timer;          /* connect timeout, then heartbeat */
    uv_signal_t sigint, sigterm;
    struct conn *c;
    uint32_t n;
    uint32_t phase;
    uint32_t notified;         /* intervals of this phase passed to observers */
    uint32_t nlost;
    uint64_t t_start_ns;
    uint64_t last_tick_ns;     /* the heartbeat timer's last run */
    uint64_t stall_ns;         /* how long the coordinator itself last did not
                                  run (SIGSTOP, starved), and when that ended */
    uint64_t stall_end_ns;
    int planned;               /* the plan went out */
    int interrupted;
    int failed;
    int finished;
    int fake;                  /* run_feed_script: no sockets, no signals */
    uint64_t fake_now_ns;      /* its clock */
    char *err;
    size_t errlen;
};

#define OBSERVE(r, hook, ...)                                                    \
    do {                                                                         \
        for (uint32_t o_ = 0; o_ < (r)->opt->nobservers; o_++)                   \
            if ((r)->opt->observers[o_].hook)                                    \
                (r)->opt->observers[o_].hook((r)->opt->observers[o_].arg, (r)->res, __VA_ARGS__); \
    } while (0)
#define OBSERVE0(r, hook)                                                        \
    do {                                                                         \
        for (uint32_t o_ = 0; o_ < (r)->opt->nobservers; o_++)                   \
            if ((r)->opt->observers[o_].hook)                                    \
                (r)->opt->observers[o_].hook((r)->opt->observers[o_].arg, (r)->res); \
    } while (0)

/* The run's clock: the monotonic clock, or the script's (run_feed_script). */
static uint64_t run_now(const struct run *r)
{
    return r->fake ? r->fake_now_ns : clock_now_ns();
}

/* Sends are dropped once c is closed, and always under run_feed_script
 * (its peers never connect). */
static void conn_send(struct conn *c, struct buf *b)
{
    peer_send(&c->peer, b);
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

static void conn_close(struct conn *c)
{
    peer_close(&c->peer, "closed by the coordinator");
}

/* Close everything; the loop then runs dry and run_execute returns. */
static void run_shutdown(struct run *r)
{
    if (r->finished)
        return;
    r->finished = 1;
    for (uint32_t i = 0; i < r->n; i++)
        conn_close(&r->c[i]);
    uv_close((uv_handle_t *)&r->timer, on_closed);
    uv_close((uv_handle_t *)&r->sigint, on_closed);
    uv_close((uv_handle_t *)&r->sigterm, on_closed);
}

/* why to every agent: a stop to those past their plan, or (phase_end,
 * phase control ended the running phase) a phase end to those running it,
 * which stop their jobs and send their phase-done as usual.  A closed
 * connection drops what is sent. */
static void send_halt(struct run *r, int phase_end, const char *why)
{
    for (uint32_t i = 0; i < r->n; i++) {
        struct conn *c = &r->c[i];
        struct msg_phase_end pe = { .phase = r->phase };
        struct msg_stop st;
        struct buf b;
        if (phase_end ? c->state != C_RUNNING : c->state < C_PLANNED || c->state == C_LOST)
            continue;
        snprintf(pe.reason, sizeof pe.reason, "%s", why);
        snprintf(st.reason, sizeof st.reason, "%s", why);
        buf_init(&b);
        if (phase_end)
            msg_phase_end_encode(&b, &pe);
        else
            msg_stop_encode(&b, &st);
        conn_send(c, &b);
    }
}

/* An agent that will send no phase-done (lost, or the run failed) counts
 * with what its intervals said, so what was measured is reported. */
static void agent_salvage(struct run *r, struct conn *c)
{
    struct agent_phase ap = { .salvaged = 1, .nintervals = c->next_k,
                              .duration_ns = (uint64_t)c->next_k * r->opt->interval_ms * 1000000u };
    struct op_set *sum = xmalloc(sizeof *sum);

    op_set_init(sum);
    op_rec_sum(&c->acc, sum);
    result_set_agent_phase(r->res, r->phase, c->id, &ap, sum);
    free(sum);
    OBSERVE(r, agent_phase_done, r->phase, c->id, &ap);
}

/* A phase cut short by a failure: finish it with what arrived. */
static void phase_salvage(struct run *r)
{
    int any = 0;
    if (!r->planned || r->phase >= r->plan->nphases)
        return;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->c[i].state == C_RUNNING && r->c[i].next_k > 0)
            agent_salvage(r, &r->c[i]);
        any |= r->res->phases[r->phase].agents[i].done;
    }
    if (any)
        result_phase_finish(r->res, r->phase);
}

/* How the run ended, for the verdicts: the first cause wins. */
static void run_end(struct run *r, enum run_end why, const char *text)
{
    struct run_result *res = r->res;

    if (res->end != RUN_END_NONE)
        return;
    res->end = why;
    res->end_phase = r->planned ? r->phase : 0;
    res->end_at_s = (double)(run_now(r) - r->t_start_ns) / 1e9;
    snprintf(res->end_text, sizeof res->end_text, "%s", text);
    result_clean_text(res->end_text);
    if (why == RUN_END_INTERRUPTED && r->planned && r->phase < res->nphases)
        res->phases[r->phase].interrupted = 1;
    OBSERVE0(r, run_end);
}

static void run_fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_fail(struct run *r, const char *fmt, ...)
{
    va_list ap;
    if (r->failed || r->finished)
        return;
    r->failed = 1;
    phase_salvage(r);
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    result_clean_text(r->err);    /* it may quote what an agent sent */
    run_end(r, RUN_END_FAILED, r->err);
    send_halt(r, 0, r->err);     /* tell the others to stop I/O before we hang up */
    run_shutdown(r);
}

/* Every live agent is in state st of the current phase. */
static int all_in(struct run *r, enum conn_state st)
{
    uint32_t live = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->c[i].state == C_LOST)
            continue;
        live++;
        if (r->c[i].state != st || r->c[i].phase != r->phase)
            return 0;
    }
    return live > 0;
}

static void send_ping(struct conn *c)
{
    peer_ping(&c->peer, c->pings, run_now(c->run));
}

static void send_plans(struct run *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        struct msg_plan m = { .agent_index = i, .nagents = r->n,
                              .interval_ms = r->opt->interval_ms, .run_id = r->run_id,
                              .run_ms = r->run_ms, .plan = *r->plan };
        struct buf b;
        buf_init(&b);
        msg_plan_encode(&b, &m);
        conn_send(&r->c[i], &b);
        r->c[i].state = C_PLANNED;
        r->c[i].phase = 0;
        r->c[i].prep_since_ns = run_now(r);
    }
    r->planned = 1;
}

static void start_phase(struct run *r)
{
    uint64_t max_rtt = 0, t0;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->c[i].state != C_LOST && r->c[i].best_rtt > max_rtt)
            max_rtt = r->c[i].best_rtt;
    t0 = run_now(r) + START_MARGIN_NS + 4 * max_rtt;
    /* a sweep point: its load (or skip) is chosen now, from the last point */
    struct msg_start point = { .phase = r->phase };
    sweep_point_start(r->res->sweeps, r->res, r->phase, &point);
    /* fio logs per clone need each thread's intervals (fiolog.h) */
    point.clones = (uint32_t)fiolog_phase_per_clone(&r->plan->phases[r->phase]);
    for (uint32_t i = 0; i < r->n; i++) {
        struct conn *c = &r->c[i];
        struct msg_start m = point;
        struct buf b;
        m.t0_ns = (uint64_t)((int64_t)t0 + c->offset);
        if (c->state == C_LOST)
            continue;
        if (sweep_point_skips(r->res->sweeps, r->phase, i))
            m.skip = 1;           /* a searched sweep=agents point beyond its K */
        buf_init(&b);
        msg_start_encode(&b, &m);
        conn_send(c, &b);
        c->state = C_RUNNING;
        c->next_k = 0;
        c->error_at_ns = 0;
        c->layout_done = c->layout_total = 0;
        c->layout_seen = 0;
        op_rec_free(&c->acc);
        op_rec_init(&c->acc);
    }
    r->res->phases[r->phase].ran = 1;
    r->res->phases[r->phase].t0_ns = t0;
    {
        /* where interval 0 begins on the wall clock (external metrics are
         * placed against it): now's wall time, plus how far ahead t0 is,
         * plus the ramp the agents wait before their first interval */
        struct timespec wall;
        uint64_t ramp = 0;
        const struct phase *pp = &r->plan->phases[r->phase];
        for (uint32_t k = 0; k < pp->njobs; k++)
            if (pp->jobs[k].ramp_ns > ramp)
                ramp = pp->jobs[k].ramp_ns;
        clock_gettime(CLOCK_REALTIME, &wall);
        r->res->phases[r->phase].t0_unix_ms = (int64_t)wall.tv_sec * 1000 + wall.tv_nsec / 1000000 +
                                              ((int64_t)t0 - (int64_t)run_now(r)) / 1000000 +
                                              (int64_t)(ramp / 1000000u);
    }
    phase_ctl_begin(&r->res->phases[r->phase], &r->plan->phases[r->phase]);
    if (point.skip)
        sweep_mark_skipped(r->res->sweeps, r->res, r->phase);
    r->notified = 0;
    OBSERVE(r, phase_start, r->phase);
}

/* Tell observers about every interval that all live agents have now sent. */
static void notify_intervals(struct run *r, int phase_over)
{
    struct phase_result *ph = &r->res->phases[r->phase];
    uint32_t live = r->n - r->nlost;
    while (r->notified < ph->nintervals &&
           (phase_over || ph->intervals[r->notified].nreported >= live)) {
        OBSERVE(r, interval, r->phase, r->notified);
        /* steady state is judged while the phase runs, not on its flush */
        if (!phase_over && phase_ctl_interval(ph, r->notified))
            send_halt(r, 1, ph->ctl.why);
        /* complete: keep it compact from now on (late data still adds) */
        result_interval_seal(r->res, r->phase, r->notified);
        r->notified++;
    }
}

static void phase_completed(struct run *r)
{
    uint32_t done = r->phase;

    notify_intervals(r, 1);
    result_phase_finish(r->res, r->phase);
    sweep_point_done(r->res->sweeps, r->res, r->phase);
    OBSERVE(r, phase_done, r->phase);
    /* an agent's error ends the run after the phase it failed */
    if (++r->phase == r->plan->nphases || r->interrupted || r->res->end == RUN_END_FAILED) {
        run_shutdown(r);
        return;
    }
    if (phase_ctl_end_run(&r->res->phases[done], &r->plan->phases[done])) {
        /* exit_what=all: the later phases are skipped, not failed */
        for (uint32_t i = r->phase; i < r->plan->nphases; i++)
            r->res->phases[i].ctl.skipped = 1;
        send_halt(r, 0, "exit_what=all: the run ends with its exitall phase");
        run_shutdown(r);
        return;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->c[i].state == C_LOST)
            continue;
        r->c[i].state = r->c[i].ready_early ? C_READY : C_PLANNED;
        r->c[i].ready_early = 0;
        r->c[i].phase = r->phase;
        r->c[i].prep_since_ns = run_now(r);
    }
    if (all_in(r, C_READY))
        start_phase(r);
}

/* The run goes on without agent c. */
static void conn_lost(struct conn *c, const char *why)
{
    struct run *r = c->run;
    struct agent_info *ai = &r->res->agents[c->id];
    enum conn_state was = c->state;

    char why2[256];

    if (c->state == C_LOST || r->finished)
        return;
    /* an agent that hangs up just after the coordinator was stopped has
     * most likely ended its lease: say so rather than blame the agent */
    if (r->stall_end_ns && run_now(r) - r->stall_end_ns < STALL_BLAME_NS) {
        snprintf(why2, sizeof why2, "%s (just after the coordinator itself was not running for at least %.1f s; "
                 "the agent's --lease may have run out)", why, (double)r->stall_ns / 1e9);
        why = why2;
    }
    if (!r->planned) {
        run_fail(r, "agent %u (%s): %s", c->id, c->addr, why);
        return;
    }
    c->state = C_LOST;
    snprintf(c->lost_why, sizeof c->lost_why, "%s", why);
    result_clean_text(c->lost_why);
    conn_close(c);
    r->nlost++;
    ai->lost = 1;
    ai->lost_at_s = (double)(run_now(r) - r->t_start_ns) / 1e9;
    if (was == C_RUNNING)
        agent_salvage(r, c);
    OBSERVE(r, agent_lost, c->id, why);
    if (r->nlost == r->n) {
        run_fail(r, "all agents lost; the last, agent %u (%s): %s", c->id, c->addr, why);
        return;
    }
    /* the others may all be waiting for this one */
    if (all_in(r, C_READY))
        start_phase(r);
    else if (all_in(r, C_DONE))
        phase_completed(r);
    else
        notify_intervals(r, 0);
}

/* Agent c broke the protocol's bounds (why says how): before the plan the
 * run fails; after it, the agent is dropped with why as its error in the
 * phase (its verdict fails) and the run goes on with the others, the
 * agent's data being what it sent within the bounds. */
static void agent_violation(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void agent_violation(struct conn *c, const char *fmt, ...)
{
    struct run *r = c->run;
    char why[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    result_clean_text(why);
    if (!r->planned || r->phase >= r->plan->nphases) {
        run_fail(r, "agent %u (%s): %s", c->id, c->addr, why);
        return;
    }
    result_set_agent_error(r->res, r->phase, c->id, why);
    OBSERVE(r, agent_error, r->phase, c->id, why);
    conn_lost(c, why);
}

/* Agent c is who its welcome w says and proved it: clock sync next. */
static void conn_welcomed(struct conn *c, const struct msg_welcome *w)
{
    struct agent_info *ai = &c->run->res->agents[c->id];
    snprintf(ai->host, sizeof ai->host, "%s", w->host);
    result_clean_text(ai->host);           /* reports print it */
    c->peer.rd.max_payload = AGENT_FRAME_MAX;   /* a peer that speaks the protocol */
    ai->ncpus = w->ncpus;
    c->state = C_SYNCING;
    send_ping(c);
}

static void handle_hello_reply(struct conn *c, const struct msg_frame *f, int type)
{
    struct msg_welcome w;
    char why[MSG_TEXT_MAX];
    struct buf b;
    int named;

    buf_init(&b);
    if (agent_dial_welcome(c->run->opt->secret, c->cnonce, c->addr, type, f, &w, &b, why, sizeof why,
                           &named) < 0) {
        conn_send(c, &b);                  /* so the agent logs why, too */
        if (named)
            run_fail(c->run, "%s", why);
        else
            run_fail(c->run, "agent %u (%s): %s", c->id, c->addr, why);
        return;
    }
    conn_send(c, &b);
    conn_welcomed(c, &w);
}

static void handle_pong(struct conn *c, const struct msg_frame *f)
{
    struct run *r = c->run;
    struct msg_pong m;
    char err[256];
    uint64_t now = run_now(r);

    if (msg_pong_decode(f, &m, err, sizeof err) < 0) {
        run_fail(r, "agent %u (%s): bad pong: %s", c->id, c->addr, err);
        return;
    }
    if (m.t_ping_ns > now) {
        run_fail(r, "agent %u (%s): bad pong: it answers a ping from the future", c->id, c->addr);
        return;
    }
    if (c->state != C_SYNCING)
        return;            /* heartbeat answer: last_rx is all it is for */
    uint64_t rtt = now - m.t_ping_ns;
    if (c->pings == 0 || rtt < c->best_rtt) {
        c->best_rtt = rtt;
        c->offset = (int64_t)m.t_ns - (int64_t)(m.t_ping_ns + rtt / 2);
    }
    if (++c->pings < NPINGS) {
        send_ping(c);
        return;
    }
    r->res->agents[c->id].clock_offset_ns = c->offset;
    r->res->agents[c->id].rtt_ns = c->best_rtt;
    c->state = C_PLANNED;
    c->phase = 0;
    if (all_in(r, C_PLANNED))
        send_plans(r);
}

/* The highest interval index an agent may send now: interval k closes no
 * sooner than t0 + (k+1)*interval (ramp_time only delays it). */
static uint32_t interval_allowed(const struct run *r)
{
    uint64_t t0 = r->res->phases[r->phase].t0_ns, now = run_now(r);
    uint64_t elapsed = now > t0 ? now - t0 : 0;
    uint64_t k = (elapsed + INTERVAL_SLACK_NS) / ((uint64_t)r->opt->interval_ms * 1000000u) +
                 INTERVAL_SLACK_K;

    return k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

static void handle_interval(struct conn *c, const struct msg_frame *f)
{
    struct run *r = c->run;
    struct msg_interval *m = r->iv ? r->iv : (r->iv = xmalloc(sizeof *r->iv));
    char err[256] = "";

    if (msg_interval_decode(f, m, err, sizeof err) < 0 || m->phase != r->phase ||
        c->state != C_RUNNING || m->index != c->next_k) {
        run_fail(r, "agent %u (%s): bad interval: %s", c->id, c->addr, err[0] ? err : "out of order");
        msg_interval_free(m);    /* empty when the decode failed */
        return;
    }
    if (m->index > interval_allowed(r)) {
        uint64_t t0 = r->res->phases[r->phase].t0_ns, now = run_now(r);
        agent_violation(c, "sent interval %u of phase %u %.1f s after its start: more than %u-ms "
                        "intervals allow; dropped", m->index, m->phase,
                        (double)(now > t0 ? now - t0 : 0) / 1e9, r->opt->interval_ms);
        msg_interval_free(m);
        return;
    }
    if (result_add_interval(r->res, m->phase, c->id, m->index, &m->stats) < 0) {
        agent_violation(c, "interval %u of phase %u is beyond the run's limit", m->index, m->phase);
        msg_interval_free(m);
        return;
    }
    result_nfs_add_interval(r->res, m->phase, c->id, m->index, &m->nfs);
    c->next_k++;
    result_set_interval_inflight(r->res, m->phase, c->id, m->index, m->inflight, m->oldest_ns);
    client_result_add_interval(r->res, m->phase, c->id, m->index, &m->client);
    op_rec_add(&c->acc, &m->stats);
    OBSERVE(r, agent_interval, m->phase, c->id, m->index, &m->stats);
    OBSERVE(r, agent_interval_clones, m->phase, c->id, m->index, &m->clones);
    OBSERVE(r, agent_interval_nfs, m->phase, c->id, m->index, &m->nfs);
    msg_interval_free(m);
    notify_intervals(r, 0);
}

/* 1 when an agent's phase totals t are not exactly sum, the sum of its
 * intervals (counters and histograms), with the first difference in
 * what. */
static int totals_differ(const struct op_set *t, const struct op_set *sum, char *what, size_t len)
{
    for (int i = 0; i < OP__COUNT; i++) {
        const struct op_stats *a = &t->op[i], *b = &sum->op[i];
        const char *name = op_type_name((enum op_type)i), *field = NULL;
        uint64_t x = 0, y = 0;

        if (a->ops != b->ops)
            field = "ops", x = a->ops, y = b->ops;
        else if (a->bytes != b->bytes)
            field = "bytes", x = a->bytes, y = b->bytes;
        else if (a->errors != b->errors)
            field = "errors", x = a->errors, y = b->errors;
        else if (a->timeouts != b->timeouts)
            field = "timeouts", x = a->timeouts, y = b->timeouts;
        else if (a->lat.count != b->lat.count)
            field = "latency samples", x = a->lat.count, y = b->lat.count;
        else if (memcmp(&a->lat, &b->lat, sizeof a->lat) != 0 ||
                 memcmp(&a->svc, &b->svc, sizeof a->svc) != 0) {
            snprintf(what, len, "%s latency histogram", name);
            return 1;
        }
        if (field) {
            snprintf(what, len, "%s %s: %llu in phase-done, %llu in its intervals", name, field,
                     (unsigned long long)x, (unsigned long long)y);
            return 1;
        }
    }
    return 0;
}

/* A phase-done part that does not add up (what, err): the agent's error
 * in the phase, the run goes on with what then is kept. */
static void phase_done_flaw(struct conn *c, const char *what, const char *err, const char *then)
{
    char why[400];

    snprintf(why, sizeof why, "phase-done %s (%s); %s", what, err, then);
    result_set_agent_error(c->run->res, c->run->phase, c->id, why);
    OBSERVE(c->run, agent_error, c->run->phase, c->id, why);
}

static void handle_phase_done(struct conn *c, const struct msg_frame *f)
{
    struct run *r = c->run;
    struct msg_phase_done *m = xmalloc(sizeof *m);
    struct op_set *sum = NULL;   /* the sum of its intervals, dense for the check */
    char err[256] = "";

    if (msg_phase_done_decode(f, m, err, sizeof err) < 0 || m->phase != r->phase ||
        c->state != C_RUNNING || m->nintervals != c->next_k) {
        run_fail(r, "agent %u (%s): bad phase-done: %s", c->id, c->addr,
                 err[0] ? err : "interval count differs");
        goto out;
    }
    sum = xmalloc(sizeof *sum);
    op_set_init(sum);
    op_rec_sum(&c->acc, sum);
    if (totals_differ(&m->totals, sum, err, sizeof err)) {
        /* the intervals are what was merged, journaled and shown live */
        phase_done_flaw(c, "totals differ from the sum of its intervals", err, "the intervals' sum is used");
        m->totals = *sum;
    }
    struct agent_phase ap = { .done = 1, .duration_ns = m->duration_ns,
                              .start_ns = (uint64_t)((int64_t)m->started_ns - c->offset),
                              .cpu_user_s = m->cpu_user_s, .cpu_sys_s = m->cpu_sys_s, .cores = m->cores,
                              .nintervals = m->nintervals, .lat_depth = m->lat_depth,
                              .late_ops = m->late_ops, .late_ns = m->late_ns, .lat_unmet = m->lat_unmet != 0 };
    client_result_set_phase(r->res, r->phase, c->id, &m->client);
    result_set_agent_phase(r->res, r->phase, c->id, &ap, &m->totals);
    /* each job's and clone's figures (fio's jobs[] without group_reporting) */
    if (result_clones_add(r->res, r->phase, c->id, &r->plan->phases[r->phase], &m->clones, &m->totals,
                          err, sizeof err) < 0)
        phase_done_flaw(c, "clones do not match its totals", err, "they are dropped");
    result_nfs_set_agent(r->res, r->phase, c->id, &m->nfs);
    if (m->verify.on)
        (void)result_set_agent_verify(r->res, r->phase, c->id, &m->verify);
    /* The causes must account for exactly the failed ops the totals (the
     * intervals' sum when those differed) count: what does not add up is
     * not shown as anyone's cause. */
    if (result_errors_match(&m->errors, &m->totals, err, sizeof err) < 0)
        phase_done_flaw(c, "errors do not match its totals", err, "its causes are dropped");
    else
        (void)result_set_agent_errors(r->res, r->phase, c->id, &m->errors);
    OBSERVE(r, agent_phase_done, r->phase, c->id, &ap);
    OBSERVE(r, agent_phase_nfs, r->phase, c->id, &m->nfs);
    c->state = C_DONE;
    if (phase_ctl_agent_done(&r->res->phases[r->phase], &r->plan->phases[r->phase], c->id))
        send_halt(r, 1, r->res->phases[r->phase].ctl.why);    /* exitall */
    notify_intervals(r, 0);
    if (all_in(r, C_DONE))
        phase_completed(r);
out:
    free(sum);
    msg_phase_done_free(m);      /* empty when the decode failed */
    free(m);
}

/* An agent's error text starts with its own name ("agent 1 (host): " or,
 * before a plan, "agent host: "); the coordinator names agents itself. */
static const char *without_agent_prefix(const char *t)
{
    const char *end;

    if (strncmp(t, "agent ", 6) != 0)
        return t;
    end = strstr(t, isdigit((unsigned char)t[6]) ? "): " : ": ");
    return end ? end + (isdigit((unsigned char)t[6]) ? 3 : 2) : t;
}

/* The message budget of one agent per second (see MSGS_PER_S_BASE). */
static uint32_t msgs_per_s(const struct run *r)
{
    return MSGS_PER_S_BASE + 3 * (1000 / (r->opt->interval_ms ? r->opt->interval_ms : 1));
}

/* What the result records of the agent (run_record.h): its machine, once,
 * and where a phase's jobs run, before its ready.  Bounded by the decoder
 * and STORAGE_PER_PHASE_MAX; one out of turn is a protocol violation. */
static void handle_record_info(struct conn *c, const struct msg_frame *f, int type)
{
    struct run *r = c->run;
    char err[256];

    if (type == MSG_SYSTEM) {
        struct msg_system m;
        struct agent_system sys;
        if (msg_system_decode(f, &m, err, sizeof err) < 0 || r->res->agents[c->id].sys.known) {
            run_fail(r, "agent %u (%s): bad system message: %s", c->id, c->addr,
                     r->res->agents[c->id].sys.known ? "sent twice" : err);
            return;
        }
        memset(&sys, 0, sizeof sys);
        snprintf(sys.kernel, sizeof sys.kernel, "%s", m.kernel);
        snprintf(sys.cpu_model, sizeof sys.cpu_model, "%s", m.cpu_model);
        sys.mem_bytes = m.mem_bytes;
        run_record_set_system(r->res, c->id, &sys);
        if (m.waiting_for[0]) {
            /* the only word from it until that run ends: say why nothing happens */
            result_clean_text(m.waiting_for);   /* no terminal controls */
            fprintf(stderr, "nfstorm: agent %u (%s) is still finishing a previous run (coordinator %s): "
                    "waiting for it to finish that run\n", c->id, c->addr, m.waiting_for);
        }
        return;
    }
    struct msg_storage *m = xmalloc(sizeof *m);
    if (msg_storage_decode(f, m, err, sizeof err) < 0)
        run_fail(r, "agent %u (%s): bad storage message: %s", c->id, c->addr, err);
    else if (!(c->state == C_PLANNED && m->phase == r->phase) &&
             !(c->state == C_DONE && m->phase == r->phase + 1))    /* an early ready's */
        run_fail(r, "agent %u (%s): unexpected storage message for phase %u", c->id, c->addr, m->phase);
    else if (run_record_add_storage(r->res, m->phase, c->id, &m->info) < 0)
        run_fail(r, "agent %u (%s): too many storage messages for phase %u (at most %d), or a "
                 "phase out of range", c->id, c->addr, m->phase, STORAGE_PER_PHASE_MAX);
    free(m);
}

static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct conn *c = arg;
    struct run *r = c->run;
    char err[256] = "";

    c->peer.last_rx_ns = run_now(r);
    if (!peer_take(&c->peer, c->peer.last_rx_ns, msgs_per_s(r), (double)msgs_per_s(r) * MSGS_BURST_S)) {
        agent_violation(c, "sent more than %u messages at once, or more than %u a second: a flood; "
                        "dropped", msgs_per_s(r) * MSGS_BURST_S, msgs_per_s(r));
        return;
    }
    if (c->state == C_HELLO && type < 0) {
        run_fail(r, "agent %u (%s): not an nfstorm agent (its first message is not one: %s)",
                 c->id, c->addr, why);
        return;
    }
    if (c->state == C_HELLO && type != MSG_ERROR) {   /* an agent may say busy */
        handle_hello_reply(c, f, type);
        return;
    }
    if (type < 0) {
        run_fail(r, "agent %u (%s): bad message: %s", c->id, c->addr, why);
        return;
    }
    if (type == MSG_ERROR) {
        struct msg_error m;
        char text[MSG_TEXT_MAX + 300];
        const char *what;
        if (msg_error_decode(f, &m, err, sizeof err) < 0)
            snprintf(m.text, sizeof m.text, "unreadable error: %s", err);
        else if (c->state == C_HELLO && m.version && m.version != PROTO_VERSION) {
            msg_version_refusal(text, sizeof text, "agent", c->addr, m.version, "coordinator");
            run_fail(r, "%s", text);       /* it refused our hello's version */
            return;
        }
        result_clean_text(m.text);         /* no terminal controls reach a report */
        what = without_agent_prefix(m.text);
        if (r->planned && r->phase < r->plan->nphases) {
            result_set_agent_error(r->res, r->phase, c->id, what);
            OBSERVE(r, agent_error, r->phase, c->id, what);
            if (c->state == C_RUNNING)    /* exitall_on_error: the phase's control says why */
                (void)phase_ctl_agent_error(&r->res->phases[r->phase], &r->plan->phases[r->phase],
                                            c->id, what);
        }
        /* named by the address we dialled, not by what the agent says it is */
        snprintf(text, sizeof text, "agent %u (%s): %s", c->id, c->addr, what);
        if (c->state == C_RUNNING) {
            /* A job failed: its phase-done follows with every op counted,
             * cut-offs included.  Stop the others and end the run after
             * this phase rather than drop what is on its way. */
            run_end(r, RUN_END_FAILED, text);
            if (!c->error_at_ns) {
                snprintf(r->err, r->errlen, "%s", text);
                c->error_at_ns = run_now(r);
                send_halt(r, 0, text);    /* once: a repeating agent costs nothing more */
            }
            return;
        }
        run_fail(r, "%s", text);
        return;
    }
    if (type == MSG_PING) {            /* the agent's heartbeat: answer it */
        (void)peer_pong(&c->peer, f, run_now(r), NULL, err, sizeof err);
        return;
    }
    switch (type) {
    case MSG_PONG:
        handle_pong(c, f);
        return;
    case MSG_READY: {
        struct msg_ready m;
        if (msg_ready_decode(f, &m, err, sizeof err) < 0) {
            run_fail(r, "agent %u (%s): bad ready: %s", c->id, c->addr, err);
            return;
        }
        if (c->state == C_DONE && m.phase == r->phase + 1) {
            c->ready_early = 1;
            return;
        }
        if (m.phase != r->phase || c->state != C_PLANNED) {
            run_fail(r, "agent %u (%s): unexpected ready for phase %u (the run is %s phase %u)", c->id,
                     c->addr, m.phase, c->state == C_PLANNED ? "preparing" : "not waiting for a ready in",
                     r->phase);
            return;
        }
        c->state = C_READY;
        if (r->interrupted)
            run_shutdown(r);
        else if (all_in(r, C_READY))
            start_phase(r);
        return;
    }
    case MSG_INTERVAL:
        handle_interval(c, f);
        return;
    case MSG_SYSTEM:
    case MSG_STORAGE:
        handle_record_info(c, f, type);
        return;
    case MSG_PROGRESS: {
        struct msg_progress m;
        uint64_t done = 0, total = 0;
        if (msg_progress_decode(f, &m, err, sizeof err) < 0 || m.phase != r->phase ||
            m.done_bytes > m.total_bytes)
            return;            /* advisory only: a bad one is dropped */
        /* the layout announced (it starts after the engines' setup) or advanced */
        if (c->state == C_PLANNED && (m.done_bytes > c->layout_done || (!c->layout_total && m.total_bytes)))
            c->prep_since_ns = run_now(r);
        c->layout_done = m.done_bytes;
        c->layout_total = m.total_bytes;
        c->layout_seen = 1;
        /* shown once the whole fleet's total is known: every agent still
         * preparing has reported its own (one that is ready lays out nothing more) */
        for (uint32_t i = 0; i < r->n; i++) {
            const struct conn *o = &r->c[i];
            if (o->state < C_READY && !o->layout_seen)
                return;
            done = sat_add_u64(done, o->layout_done);
            total = sat_add_u64(total, o->layout_total);
        }
        if (total)
            OBSERVE(r, layout, r->phase, done, total);
        return;
    }
    case MSG_PHASE_DONE:
        handle_phase_done(c, f);
        return;
    case MSG_COHERENCE: {
        struct msg_coherence m;
        if (msg_coherence_decode(f, c->id, &m, err, sizeof err) < 0 || m.phase != r->phase ||
            c->state != C_RUNNING)
            run_fail(r, "agent %u (%s): bad coherence: %s", c->id, c->addr,
                     err[0] ? err : "not for the running phase");
        else if (coherence_result_add(r->res, r->phase, &m.set) < 0)
            run_fail(r, "agent %u (%s): coherence: more than %d (writer, reader) pairs in phase %u",
                     c->id, c->addr, COH_RUN_PAIRS_MAX, m.phase);
        coh_set_free(&m.set);
        return;
    }
    default:
        run_fail(r, "agent %u (%s): unexpected message '%s'", c->id, c->addr,
                 msg_type_name((enum msg_type)type));
        return;
    }
}

/* One frame from agent c's connection (or run_feed_script's). */
static int conn_on_frame(struct peer *p, const char *pl, uint32_t n)
{
    struct conn *c = (struct conn *)p;
    msg_dispatch(pl, n, handle_frame, c);
    return c->run->finished || p->closing;
}

/* The connection closed under us (p->err): what that means depends on
 * how far the agent got.  Our own closes (err 0) were worded by their
 * caller. */
static void conn_on_close(struct peer *p, const char *why)
{
    struct conn *c = (struct conn *)p;
    struct run *r = c->run;

    if (!p->err || r->finished)
        return;
    if (p->err == -EMSGSIZE && c->state == C_HELLO) {
        char said[sizeof p->first + 1];
        peer_first_said(p, said);
        run_fail(r, "agent %u (%s): not an nfstorm agent (it answered \"%s\")", c->id, c->addr, said);
    } else if (p->err == -EMSGSIZE) {
        agent_violation(c, "sent a frame larger than the limit (%u bytes)", AGENT_FRAME_MAX);
    } else if (c->state == C_HELLO) {
        run_fail(r, "agent %u (%s): the connection closed before the agent's welcome "
                 "(not an nfstorm agent, or one that refused us: see its log)", c->id, c->addr);
    } else {
        conn_lost(c, why);
    }
}

static const struct peer_ops conn_ops = { .on_frame = conn_on_frame, .on_close = conn_on_close };

/* Ask the network to let agent c's connection through a link its own load
 * fills (net/ctlsock.h).  A refusal costs only the priority: said once. */
static void mark_control(struct conn *c)
{
    int rc = ctlsock_mark(&c->peer.tcp, c->run->opt->control_tos);
    if (rc < 0 && c->id == 0)
        fprintf(stderr, "nfstorm: cannot mark the agents' connections (--control-tos): %s\n",
                uv_strerror(rc));
}

static void on_connect(uv_connect_t *req, int status)
{
    struct conn *c = req->data;
    struct buf b;

    if (c->run->finished)
        return;
    if (status < 0) {
        run_fail(c->run, "cannot connect to agent %u (%s): %s", c->id, c->addr, uv_strerror(status));
        return;
    }
    peer_start(&c->peer);
    mark_control(c);
    c->state = C_HELLO;
    c->peer.last_rx_ns = run_now(c->run);
    buf_init(&b);
    if (agent_dial_hello(c->cnonce, &b) < 0) {
        run_fail(c->run, "no randomness for the handshake nonce");
        return;
    }
    conn_send(c, &b);
}

/* A dialled-in agent (gather.c did the handshake on its own loop): adopt
 * its socket, then go on as if our own welcome had just passed, replaying
 * what it sent since (its system frame). */
static void conn_adopt(struct conn *c, struct gather_agent *g)
{
    struct run *r = c->run;
    int rc;

    if ((rc = peer_open_fd(&c->peer, g->fd)) < 0) {
        run_fail(r, "agent %u (%s): cannot adopt its connection: %s", c->id, c->addr, uv_strerror(rc));
        return;
    }
    g->fd = -1;                /* ours now: closed with the handle */
    mark_control(c);           /* gather marked it; a pool's agent comes from serve */
    c->peer.last_rx_ns = run_now(r);
    c->peer.nfirst = sizeof c->peer.first;   /* it spoke the protocol already */
    conn_welcomed(c, &g->welcome);
    if (g->rx.len)
        peer_feed(&c->peer, g->rx.data, g->rx.len);
}

/* The coordinator's own stall (common/stall.h): its agents' silence is
 * judged on its running time; a hang-up soon after is named as its doing. */
static void coordinator_stall(struct run *r, uint64_t now)
{
    uint64_t stall = stall_tick(&r->last_tick_ns, HEARTBEAT_MS * 1000000ull, now);

    if (r->fake || stall == 0 || !r->planned)
        return;
    r->stall_ns = stall;
    r->stall_end_ns = now;
    for (uint32_t i = 0; i < r->n; i++) {
        struct conn *c = &r->c[i];
        c->peer.last_rx_ns = stall_forgive(c->peer.last_rx_ns, stall, now);
        if (c->state == C_PLANNED)
            c->prep_since_ns = stall_forgive(c->prep_since_ns, stall, now);
        if (c->error_at_ns)
            c->error_at_ns = stall_forgive(c->error_at_ns, stall, now);
    }
}

/* The preparation rule (see the top): 1 with why filled when agent c, in
 * PLANNED, has gone too long without layout progress or a ready. */
static int prepare_stuck(const struct run *r, const struct conn *c, uint64_t now, char *why, size_t len)
{
    uint64_t idle = now - c->prep_since_ns;
    uint32_t prep_ms = r->opt->prepare_timeout_ms ? r->opt->prepare_timeout_ms : RUN_PREPARE_TIMEOUT_MS;

    if (c->layout_total && c->layout_done < c->layout_total) {
        if (idle <= (uint64_t)r->opt->agent_timeout_ms * 1000000u)
            return 0;
        snprintf(why, len, "its layout for phase %u made no progress for %.1f s (%llu of %llu bytes laid "
                 "out; --agent-timeout)", r->phase, (double)idle / 1e9, (unsigned long long)c->layout_done,
                 (unsigned long long)c->layout_total);
        return 1;
    }
    if (idle <= (uint64_t)prep_ms * 1000000u)
        return 0;
    snprintf(why, len, "not ready for phase %u after %.1f s of preparation without layout progress "
             "(--prepare-timeout)", r->phase, (double)idle / 1e9);
    return 1;
}

/* The running rule (see the top): 1 with why filled when agent c, in
 * RUNNING, owes an interval for longer than agent_timeout_ms.  Counted from
 * the end of the coordinator's own last stall at the earliest: a backlog
 * it has not read yet is not the agent's silence. */
static int interval_overdue(const struct run *r, const struct conn *c, uint64_t now, char *why, size_t len)
{
    const struct phase *ph = &r->plan->phases[r->phase];
    uint64_t ramp = 0, due, from;

    if (c->error_at_ns)
        return 0;               /* its error's own rule (on_timer) */
    if (frame_reader_pending(&c->peer.rd))
        return 0;               /* a frame still arriving (its phase-done crawling over a
                                   full link): the agent is talking, and the silence
                                   rule judges how long its bytes keep coming */
    for (uint32_t j = 0; j < ph->njobs; j++)
        if (ph->jobs[j].ramp_ns > ramp)
            ramp = ph->jobs[j].ramp_ns;
    due = sat_add_u64(sat_add_u64(r->res->phases[r->phase].t0_ns, ramp),
                      ((uint64_t)c->next_k + 1) * r->opt->interval_ms * 1000000u);
    from = due > r->stall_end_ns ? due : r->stall_end_ns;
    if (now <= from || now - from <= (uint64_t)r->opt->agent_timeout_ms * 1000000u)
        return 0;
    snprintf(why, len, "answers but sent no interval %u of phase %u for %.1f s after it was due "
             "(--agent-timeout)", c->next_k, r->phase, (double)(now - due) / 1e9);
    return 1;
}

/* Before the plan: the connect/handshake deadline.  After: heartbeats out,
 * silence in, and preparation or a phase that goes nowhere. */
static void on_timer(uv_timer_t *t)
{
    struct run *r = t->data;
    uint64_t now = run_now(r);

    coordinator_stall(r, now);
    if (!r->planned) {
        if (now - r->t_start_ns < (uint64_t)r->opt->connect_timeout_ms * 1000000u)
            return;
        for (uint32_t i = 0; i < r->n; i++)
            if (r->c[i].state < C_PLANNED) {
                run_fail(r, "agent %u (%s): no answer within %u ms", i, r->c[i].addr,
                         r->opt->connect_timeout_ms);
                return;
            }
        return;
    }
    for (uint32_t i = 0; i < r->n && !r->finished; i++) {
        struct conn *c = &r->c[i];
        char why[160];
        if (c->state == C_LOST)
            continue;
        if (now - c->peer.last_rx_ns > (uint64_t)r->opt->agent_timeout_ms * 1000000u) {
            snprintf(why, sizeof why, "silent for %.1f s", (double)(now - c->peer.last_rx_ns) / 1e9);
            conn_lost(c, why);
            continue;
        }
        if ((c->state == C_PLANNED && prepare_stuck(r, c, now, why, sizeof why)) ||
            (c->state == C_RUNNING && interval_overdue(r, c, now, why, sizeof why))) {
            conn_lost(c, why);
            continue;
        }
        if (c->state == C_RUNNING && c->error_at_ns &&
            now - c->error_at_ns > (uint64_t)r->opt->agent_timeout_ms * 1000000u) {
            /* it reported an error but no phase-done: count what its
             * intervals said rather than wait for ever */
            agent_salvage(r, c);
            c->state = C_DONE;
            if (all_in(r, C_DONE)) {
                phase_completed(r);
                return;
            }
        }
        send_ping(c);
    }
}

static void on_signal(uv_signal_t *h, int signum)
{
    struct run *r = h->data;
    if (r->interrupted) {
        /* second Ctrl-C: out now; the journal has what arrived */
        fprintf(stderr, "nfstorm: interrupted again: exiting without waiting for the agents\n");
        _exit(130);
    }
    r->interrupted = 1;
    run_end(r, RUN_END_INTERRUPTED, signum == SIGINT ? "SIGINT" : "SIGTERM");
    snprintf(r->err, r->errlen, "interrupted by %s: stopping the agents and collecting partial results",
             signum == SIGINT ? "SIGINT" : "SIGTERM");
    fprintf(stderr, "nfstorm: %s (again to quit at once)\n", r->err);
    if (!r->planned) {
        run_shutdown(r);
        return;
    }
    send_halt(r, 0, "interrupted");
    /* agents that are running send their phase-done; if none is, end now */
    for (uint32_t i = 0; i < r->n; i++)
        if (r->c[i].state == C_RUNNING)
            return;
    run_shutdown(r);
}

static void lost_summary(struct run *r)
{
    size_t len = (size_t)snprintf(r->err, r->errlen, "partial run: %u of %u agents lost:", r->nlost, r->n);
    for (uint32_t i = 0; i < r->n && len < r->errlen; i++)
        if (r->res->agents[i].lost)
            len += (size_t)snprintf(r->err + len, r->errlen - len, " agent %u (%s) at %.1f s (%s)", i,
                                    r->c[i].addr, r->res->agents[i].lost_at_s, r->c[i].lost_why);
}

/* What a real run and the fuzzer's seam share: the run, its result with
 * the agents' addresses, and the loop with its (not yet started) timer and
 * signal handles.  fake: the transport and clock of run_feed_script. */
static void run_init(struct run *r, const struct plan *plan, const struct run_options *opt,
                     struct run_result *result, char *err, size_t errlen, int fake)
{
    memset(r, 0, sizeof *r);
    r->plan = plan;
    r->opt = opt;
    r->res = result;
    r->n = opt->naddrs;
    r->err = err;
    r->errlen = errlen;
    r->fake = fake;
    r->fake_now_ns = fake ? 1000000000000ull : 0;
    r->t_start_ns = run_now(r);
    result_init(result, plan, r->n, opt->interval_ms);
    for (uint32_t a = 0; a < r->n; a++) {
        snprintf(result->agents[a].addr, sizeof result->agents[a].addr, "%s", opt->addrs[a]);
        if (opt->labels && opt->labels[a]) {
            snprintf(result->agents[a].labels, sizeof result->agents[a].labels, "%s", opt->labels[a]);
            result_clean_utf8(result->agents[a].labels);
        }
        result->agents[a].client_cap_bps = client_caps_for(opt->client_caps, result->agents[a].labels);
    }
    uv_loop_init(&r->loop);
    uv_timer_init(&r->loop, &r->timer);
    r->timer.data = r;
    uv_signal_init(&r->loop, &r->sigint);
    uv_signal_init(&r->loop, &r->sigterm);
    r->sigint.data = r->sigterm.data = r;
}

/* Every agent's conn, its peer set up but not connected: a run that ends
 * early closes them all (run_shutdown), so the loop runs dry. */
static void conns_init(struct run *r)
{
    r->c = xcalloc(r->n, sizeof *r->c);
    for (uint32_t i = 0; i < r->n; i++) {
        struct conn *c = &r->c[i];
        c->run = r;
        c->id = i;
        c->addr = r->opt->addrs[i];
        op_rec_init(&c->acc);
        peer_init(&c->peer, &r->loop, &conn_ops, HELLO_FRAME_MAX);
    }
}

static void conns_free(struct run *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        op_rec_free(&r->c[i].acc);
    free(r->c);
}

int run_execute(const struct plan *plan, const struct run_options *opt,
                struct run_result *result, char *err, size_t errlen)
{
    struct run r;
    int rc = 0;

    struct sweep_set *sweeps = NULL;
    /* a sweep that cannot run on this fleet fails before anything is sent */
    if ((rc = sweep_set_new(plan, opt->naddrs, &sweeps, err, errlen)) < 0)
        return rc;
    for (uint32_t i = 0; sweeps && i < sweeps->n; i++)
        if (sweeps->runs[i].note[0])
            fprintf(stderr, "nfstorm: %s\n", sweeps->runs[i].note);
    run_init(&r, plan, opt, result, err, errlen, 0);
    result->sweeps = sweeps;
    result->started_unix = (int64_t)time(NULL);
    {
        /* the run's identity and clock, the same on every agent: verified
         * blocks carry both (docs/verify.md) */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        r.run_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
        r.run_id = result->run_id = vblock_run_new();
    }
    r.last_tick_ns = run_now(&r);          /* a stop before the first tick is a stall too */
    uv_timer_start(&r.timer, on_timer, HEARTBEAT_MS, HEARTBEAT_MS);
    uv_signal_start(&r.sigint, on_signal, SIGINT);
    uv_signal_start(&r.sigterm, on_signal, SIGTERM);
    conns_init(&r);
    for (uint32_t i = 0; i < r.n && !r.finished; i++) {
        struct conn *c = &r.c[i];
        struct sockaddr_storage ss;
        if (opt->joined && i >= opt->ndial) {
            conn_adopt(c, &opt->joined[i - opt->ndial]);
            continue;
        }
        if ((rc = addr_resolve(&r.loop, c->addr, &ss)) < 0) {
            snprintf(err, errlen, "agent address '%s': %s", c->addr,
                     rc == -EINVAL ? "want HOST:PORT" : uv_strerror(rc));
            r.failed = 1;
            run_end(&r, RUN_END_FAILED, err);
            run_shutdown(&r);
            continue;
        }
        if ((rc = peer_connect(&c->peer, (struct sockaddr *)&ss, on_connect)) < 0)
            run_fail(&r, "cannot connect to agent %u (%s): %s", i, c->addr, uv_strerror(rc));
    }
    uv_run(&r.loop, UV_RUN_DEFAULT);
    uv_loop_close(&r.loop);
    if (!r.failed && !r.interrupted && r.nlost)
        lost_summary(&r);
    conns_free(&r);
    free(r.iv);
    if (r.failed)
        return rc < 0 ? rc : -EIO;
    if (result->end == RUN_END_FAILED)
        return -EIO;          /* an agent's error: err names it */
    if (r.interrupted)
        return RUN_INTERRUPTED;
    if (r.nlost)
        return RUN_PARTIAL;
    return RUN_OK;
}

/* The fuzzer's seam (run.h).  The same struct run, handlers and result as a
 * real run; only the transport (conn_send drops, conn_close only marks)
 * and the clock (fake_now_ns) differ. */
int run_feed_script(const struct plan *plan, const struct run_options *opt, const unsigned char *script,
                    size_t len, struct run_result *result, char *err, size_t errlen)
{
    struct run r;
    size_t i = 0;

    run_init(&r, plan, opt, result, err, errlen, 1);
    (void)sweep_set_new(plan, opt->naddrs, &result->sweeps, err, errlen);
    conns_init(&r);
    for (uint32_t a = 0; a < r.n; a++) {
        r.c[a].state = C_HELLO;
        r.c[a].peer.last_rx_ns = r.t_start_ns;
    }
    /* records: [0x80|t] advances the clock t*100 ms and runs the timer;
     * [a][len:2] then len bytes from agent a % n */
    while (i < len && !r.finished) {
        unsigned char op = script[i++];
        if (op & 0x80) {
            r.fake_now_ns += (uint64_t)(op & 0x7f) * 100000000u;
            on_timer(&r.timer);
            continue;
        }
        if (len - i < 2)
            break;
        size_t n = (size_t)script[i] << 8 | script[i + 1];
        i += 2;
        if (n > len - i)
            n = len - i;
        struct conn *c = &r.c[op % r.n];
        peer_feed(&c->peer, script + i, n);
        i += n;
    }
    /* the script is over: every agent hangs up */
    for (uint32_t a = 0; a < r.n && !r.finished; a++)
        if (!r.c[a].peer.closing) {
            if (r.c[a].state == C_HELLO)
                run_fail(&r, "agent %u (%s): closed before its welcome", a, r.c[a].addr);
            else
                conn_lost(&r.c[a], "connection closed");
        }
    run_shutdown(&r);
    uv_run(&r.loop, UV_RUN_DEFAULT);
    uv_loop_close(&r.loop);
    conns_free(&r);
    free(r.iv);
    return r.failed || result->end == RUN_END_FAILED ? -EIO : r.nlost ? RUN_PARTIAL : RUN_OK;
}
