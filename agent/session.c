/* session: the agent's control connection state machine (see session.h).
 *
 *   HELLO --hello--> IDLE --plan--> PREPARING --(worker done)--> READY
 *   READY --start--> RUNNING --(all jobs finished: phase-done)--> FINISHING
 *   FINISHING --(worker done)--> PREPARING (next phase) | IDLE
 *   (authenticated while the active session winds down: WAITING, then IDLE)
 *
 * Threads: every libuv call on the agent's loop is made from the loop
 * thread.  The only way in from another thread is uv_async_send (a job
 * thread saying the phase's jobs all ended) and libuv's own thread-pool
 * completion.  The loop thread never does file or NFS I/O: preparing
 * (engine connects, free-space check, layout, job threads) and finishing
 * (joins, unlink=1, engine teardown) run on libuv's thread pool, I/O on the
 * job threads, so heartbeats and the lease never wait for storage.
 *
 * Every path out of a phase (done, failed to prepare, stopped, the
 * coordinator gone) goes through phase_stop and finish_phase back to IDLE,
 * and the session is freed only when its handles are closed, no work is
 * queued and no job thread runs, whichever of those ends last. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "agent/admit.h"
#include "agent/clean.h"
#include "agent/client_sampler.h"
#include "agent/hostinfo.h"
#include "agent/phase.h"
#include "agent/session.h"
#include "agent/cohjob.h"
#include "proto/coh_msg.h"
#include "common/stall.h"
#include "common/vblock.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "net/ctlsock.h"
#include "net/peer.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/msg_version.h"

#define SESSION_HELLO_TIMEOUT_NS (5 * 1000000000ull)
#define SESSION_WAIT_NS (60 * 1000000000ull)  /* behind a winding-down session */
/* A start instant (already in this agent's clock) further from now than
 * this is refused: far ahead, the jobs would wait forever; far behind, the
 * sampler would owe (now - t0) / interval intervals and send them back to
 * back; near 2^64, t0 + startdelay + runtime would wrap.  A coordinator
 * picks t0 a few seconds ahead. */
#define SESSION_T0_AHEAD_NS (3600 * 1000000000ull)
#define SESSION_T0_BEHIND_NS (10 * 1000000000ull)
#define LATE_START_NS (20 * 1000000ull)   /* later than this, the window is where the jobs began */
#define TICK_NS (1000 * 1000000ull)       /* on_tick's period */

enum session_state { S_HELLO, S_AUTH, S_WAITING, S_IDLE, S_PREPARING, S_READY, S_RUNNING,
                     S_FINISHING };
enum work_kind { W_PREPARE, W_FINISH };

struct session {
    struct peer conn;          /* first: the peer layer's callbacks get the session */
    struct agent *agent;
    uv_timer_t sampler;
    uv_timer_t tick;          /* hello deadline, then heartbeats and the lease */
    uv_async_t finished;
    uv_work_t work;
    enum work_kind work_kind;
    int open_handles;
    int handles_closing;
    int closing;
    int work_busy;             /* prepare or finish queued on the thread pool */
    int jobs_running;
    int stop_requested;
    int run_complete;         /* its plan is done: a new coordinator may take over */
    int cleaning;             /* a clean queued (clean.c); the session outlives it */
    char *clean_pending;      /* a clean frame that arrived while WAITING */
    size_t clean_pending_n;
    atomic_int clean_cancel;  /* set when the session ends: the clean stops */
    enum session_state state;
    char peer[64];
    char peer_addr[48];       /* peer without the port: the per-address stranger cap */
    struct session *pend_next;/* a->pending list while not authenticated */
    int served;               /* it became the active session (a->session_freed) */
    int dialling;             /* session_dial, not connected yet: a failed
                                 attempt is dial.c's to log, not ours */
    int outgoing;             /* session_dial: why it ended is dial.c's to log
                                 (once per change, not once per attempt) */
    char end_why[160];        /* why it ended, first reason (a->session_freed) */
    int indexed;              /* id.index came from an admitted plan */
    uint64_t accepted_ns;
    uint64_t waiting_since_ns;
    uint64_t last_tick_ns;          /* on_tick's last run, or when it was started */
    unsigned char anonce[AUTH_NONCE_LEN];
    unsigned char cnonce[AUTH_NONCE_LEN];

    struct msg_plan plan;
    int have_plan;
    int plan_pending;         /* a plan arrived while WAITING */
    struct agent_identity id;
    uint32_t phase;
    struct phase_run run;
    int run_live;             /* phase_init done, phase_release not yet */
    int run_prepared;         /* phase_prepare succeeded, phase_finish not yet */
    int phase_rc;             /* the phase's first job error */
    int work_rc;
    char work_err[PHASE_ERR_MAX];

    uint64_t t0_ns, interval_ns, ramp_ns;
    int in_ramp;
    uint32_t k;
    struct op_set *acc;       /* this interval */
    struct op_set *totals;    /* this phase: sum of intervals sent */
    struct errcause_set *causes_acc;     /* this interval's failed ops by cause */
    struct errcause_set *causes;         /* this phase's: sum of the intervals sent */
    struct nfs_rpc_set nfs_acc, nfs_totals;   /* nfs RPC telemetry, as acc/totals */
    struct rusage ru0;
    struct client_sampler cs; /* this phase's CPU, NIC, mountstats */
};

static void session_maybe_free(struct session *s);
static void session_authenticated(struct session *s);
static void finish_phase(struct session *s);
static void handle_plan(struct session *s);
static void on_sample(uv_timer_t *t);

/* Send one encoded frame; takes ownership of b. */
static void session_send(struct session *s, struct buf *b)
{
    if (s->closing) {
        buf_free(b);
        return;
    }
    if (s->agent->send_hook) {
        s->agent->send_hook(s->agent->send_hook_arg, b->data, b->len);
        buf_free(b);
        return;
    }
    peer_send(&s->conn, b);
}

void session_send_active(struct agent *a, const char *peer, struct buf *b)
{
    if (a->active && strcmp(a->active->peer, peer) == 0)
        session_send(a->active, b);    /* drops b when closing */
    else
        buf_free(b);
}

static void send_error(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_error(struct session *s, const char *fmt, ...)
{
    struct msg_error m;
    struct buf b;
    va_list ap;
    int n;

    /* the agent's index is known only once a plan named it */
    if (s->have_plan)
        n = snprintf(m.text, sizeof m.text, "agent %u (%s): ", s->id.index, s->agent->host);
    else
        n = snprintf(m.text, sizeof m.text, "agent %s: ", s->agent->host);
    va_start(ap, fmt);
    vsnprintf(m.text + n, sizeof m.text - (size_t)n, fmt, ap);
    va_end(ap);
    log_warn("to %s: %s", s->peer, m.text);
    buf_init(&b);
    msg_error_encode(&b, &m);
    session_send(s, &b);
}

/* "agent N (HOST): busy: serving coordinator ADDR", N being this agent's
 * index in the run it serves (docs/running.md); without a plan yet there
 * is no index, and the text is "agent HOST: busy: ...". */
static void send_busy(struct session *s)
{
    struct agent *a = s->agent;
    struct session *act = a->active;
    struct msg_error m;
    struct buf b;

    if (act && act->indexed)
        snprintf(m.text, sizeof m.text, "agent %u (%s): busy: serving coordinator %s",
                 act->id.index, a->host, a->active_peer);
    else
        snprintf(m.text, sizeof m.text, "agent %s: busy: serving coordinator %s", a->host,
                 a->active_peer);
    log_warn("to %s: %s", s->peer, m.text);
    buf_init(&b);
    msg_error_encode(&b, &m);
    session_send(s, &b);
}

static void session_promote(struct session *s);

static void on_handle_closed(uv_handle_t *h)
{
    struct session *s = h->data;
    struct agent *a = s->agent;
    if (--s->open_handles == 0) {
        if (s->have_plan)
            msg_plan_free(&s->plan);
        free(s->acc);
        free(s->totals);
        free(s->causes_acc);
        free(s->causes);
        nfs_rpc_set_free(&s->nfs_acc);
        nfs_rpc_set_free(&s->nfs_totals);
        free(s->clean_pending);
        if (a->waiting == s)
            a->waiting = NULL;
        if (s->dialling)
            log_debug("session with %s ended", s->peer);
        else
            log_info("session with %s ended", s->peer);
        a->nsessions--;
        int served = s->served;
        char why[sizeof s->end_why];
        memcpy(why, s->end_why, sizeof why);
        if (a->active == s) {
            a->active = NULL;
            /* a coordinator that connected while this one was winding
             * down is served now, never told "busy" */
            if (a->waiting) {
                struct session *w = a->waiting;
                a->waiting = NULL;
                session_promote(w);
            }
        }
        free(s);
        if (a->session_freed)
            a->session_freed(a->session_freed_arg, served, why);
    }
}

/* s leaves the agent's list of connections waiting to authenticate. */
static void pending_remove(struct session *s)
{
    struct session **pp = &s->agent->pending;
    while (*pp && *pp != s)
        pp = &(*pp)->pend_next;
    if (*pp) {
        *pp = s->pend_next;
        s->agent->npending--;
    }
    s->pend_next = NULL;
}

/* End the session: stop I/O (and a layout in progress), then free once
 * nothing refers to it. */
static void session_end(struct session *s, const char *why)
{
    if (!s->closing) {
        if (s->dialling)
            log_debug("closing session with %s: %s", s->peer, why);
        else
            log_info("closing session with %s: %s", s->peer, why);
        snprintf(s->end_why, sizeof s->end_why, "%s", why);
        s->closing = 1;
    }
    if (s->run_live)
        phase_stop(&s->run);
    if (s->cleaning)
        atomic_store(&s->clean_cancel, 1);
    session_maybe_free(s);
}

static void session_maybe_free(struct session *s)
{
    /* a clean still walking could remove the next run's files: the next
     * coordinator waits for it as for a phase winding down */
    if (!s->closing || s->work_busy || s->jobs_running || s->handles_closing || s->cleaning)
        return;
    if (s->run_prepared) {
        finish_phase(s);        /* threads and engines go first, off the loop */
        return;
    }
    s->handles_closing = 1;
    uv_timer_stop(&s->sampler);
    client_sampler_stop(&s->cs);
    pending_remove(s);
    if (s->agent->waiting == s)
        s->agent->waiting = NULL;
    peer_close(&s->conn, s->end_why);
    uv_close((uv_handle_t *)&s->sampler, on_handle_closed);
    uv_close((uv_handle_t *)&s->tick, on_handle_closed);
    uv_close((uv_handle_t *)&s->finished, on_handle_closed);
}

/* ---- work off the loop: preparing and finishing a phase ----
 *
 * Both run on libuv's thread pool; the loop only learns the outcome in
 * work_done.  One uv_work_t serves both: they never overlap. */

static void work_run(uv_work_t *w)
{
    struct session *s = w->data;
    if (s->work_kind == W_PREPARE) {
        s->work_err[0] = '\0';
        s->id.phase = s->phase;
        s->work_rc = phase_prepare(&s->run, &s->plan.plan.phases[s->phase], &s->id,
                                   s->work_err, sizeof s->work_err);
    } else {
        phase_finish(&s->run);
    }
}

static void prepare_done(struct session *s, int status);
static void finish_done(struct session *s);

static void work_done(uv_work_t *w, int status)
{
    struct session *s = w->data;
    s->work_busy = 0;
    if (s->work_kind == W_PREPARE)
        prepare_done(s, status);
    else
        finish_done(s);
}

static void queue_work(struct session *s, enum work_kind kind)
{
    s->work_kind = kind;
    s->work.data = s;
    s->work_busy = 1;
    /* fails only for a NULL callback */
    int rc = uv_queue_work(s->agent->loop, &s->work, work_run, work_done);
    assert(rc == 0);
    (void)rc;
}

/* The run is over for this coordinator: idle, ready for the next one. */
static void run_over(struct session *s)
{
    s->state = S_IDLE;
    s->run_complete = 1;
    if (s->have_plan) {
        msg_plan_free(&s->plan);
        s->have_plan = 0;
    }
}

static void prepare_done(struct session *s, int status)
{
    struct msg_ready m = { .phase = s->phase };
    struct buf b;

    if (status < 0 || s->work_rc < 0) {
        phase_release(&s->run);
        s->run_live = 0;
        if (s->closing) {
            session_maybe_free(s);
            return;
        }
        if (!(s->stop_requested && s->work_rc == -ECANCELED))
            send_error(s, "phase %u: %s", s->phase, status < 0 ? uv_strerror(status) : s->work_err);
        run_over(s);
        return;
    }
    s->run_prepared = 1;
    if (s->closing || s->stop_requested) {
        finish_phase(s);
        return;
    }
    log_info("phase %u '%s' ready (%u threads, laid out %llu bytes)", s->phase, s->run.ph->name,
             s->run.njobs, (unsigned long long)atomic_load(&s->run.layout_done));
    s->state = S_READY;
    for (uint32_t i = 0; i < s->run.nstorage; i++) {   /* what the record says, before ready */
        struct msg_storage st = { .phase = s->phase, .info = s->run.storage[i] };
        buf_init(&b);
        msg_storage_encode(&b, &st);
        session_send(s, &b);
    }
    buf_init(&b);
    msg_ready_encode(&b, &m);
    session_send(s, &b);
}

static void on_all_jobs_finished(void *arg);

static void prepare_phase(struct session *s)
{
    phase_init(&s->run, on_all_jobs_finished, s);
    s->run_live = 1;
    s->phase_rc = 0;
    s->state = S_PREPARING;
    queue_work(s, W_PREPARE);
}

/* Join, unlink=1, teardown: after phase-done went out, off the loop. */
static void finish_phase(struct session *s)
{
    s->state = S_FINISHING;
    queue_work(s, W_FINISH);
}

static void finish_done(struct session *s)
{
    s->run_prepared = 0;
    phase_release(&s->run);
    s->run_live = 0;
    if (s->closing) {
        session_maybe_free(s);
        return;
    }
    if (s->phase_rc == 0 && !s->stop_requested && ++s->phase < s->plan.plan.nphases)
        prepare_phase(s);
    else
        run_over(s);
}

/* ---- running a phase ---- */

static void send_interval(struct session *s)
{
    struct msg_interval *m = xmalloc(sizeof *m);
    struct buf b;
    m->phase = s->phase;
    m->index = s->k++;
    phase_inflight(&s->run, &m->inflight, &m->oldest_ns);
    m->stats = *s->acc;
    m->nfs = s->nfs_acc;                   /* borrowed for the encode */
    m->clones = *phase_clones_interval(&s->run);   /* borrowed too */
    phase_latency_interval(&s->run, s->acc, s->interval_ns);   /* latency_target */
    client_sampler_interval(&s->cs, &m->client);
    buf_init(&b);
    msg_interval_encode(&b, m);
    if (b.len > MSG_AGENT_FRAME_MAX && m->clones.n) {
        /* the threads' figures are extra: never at the cost of the interval */
        m->clones.n = 0;
        buf_free(&b);
        buf_init(&b);
        msg_interval_encode(&b, m);
    }
    session_send(s, &b);
    phase_clones_interval_sent(&s->run);
    op_set_merge(s->totals, s->acc);
    op_set_init(s->acc);
    errcause_merge(s->causes, s->causes_acc);
    errcause_set_init(s->causes_acc);
    nfs_rpc_set_merge(&s->nfs_totals, &s->nfs_acc);
    nfs_rpc_set_free(&s->nfs_acc);
    free(m);
}

static void arm_sampler(struct session *s)
{
    uint64_t at = s->in_ramp ? s->t0_ns + s->ramp_ns
                             : s->t0_ns + s->ramp_ns + (uint64_t)(s->k + 1) * s->interval_ns;
    uint64_t now = clock_now_ns();
    uint64_t delay_ms = at > now ? (at - now + 999999) / 1000000 : 0;
    uv_timer_start(&s->sampler, on_sample, delay_ms, 0);
}

static void on_sample(uv_timer_t *t)
{
    struct session *s = t->data;
    if (s->in_ramp) {
        phase_harvest(&s->run, s->acc, s->causes_acc);    /* ramp: measured, then dropped */
        op_set_init(s->acc);
        errcause_set_init(s->causes_acc);
        phase_harvest_nfs(&s->run, &s->nfs_acc);
        nfs_rpc_set_free(&s->nfs_acc);
        phase_clones_reset(&s->run);
        client_sampler_rebase(&s->cs);
        s->in_ramp = 0;
    } else {
        phase_harvest(&s->run, s->acc, s->causes_acc);
        phase_harvest_nfs(&s->run, &s->nfs_acc);
        send_interval(s);
    }
    arm_sampler(s);
}

static void cpu_seconds(const struct rusage *a, const struct rusage *b, double *user, double *sys)
{
    *user = (double)(b->ru_utime.tv_sec - a->ru_utime.tv_sec) +
            (double)(b->ru_utime.tv_usec - a->ru_utime.tv_usec) / 1e6;
    *sys = (double)(b->ru_stime.tv_sec - a->ru_stime.tv_sec) +
           (double)(b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1e6;
}

/* rw=coherence: what this agent measured as a reader, before phase-done
 * (nothing when it polled no writer). */
static void send_coherence(struct session *s)
{
    struct msg_coherence m = { .phase = s->phase };
    coh_set_init(&m.set);
    cohjob_collect(&s->run, &m.set);
    if (m.set.n) {
        struct buf b;
        buf_init(&b);
        msg_coherence_encode(&b, &m);
        session_send(s, &b);
    }
    coh_set_free(&m.set);
}

/* All job threads of the phase ended (loop thread, via the async handle):
 * the results go out now; the teardown follows off the loop. */
static void on_finished(uv_async_t *h)
{
    struct session *s = h->data;
    struct msg_phase_done *m;
    struct rusage ru1;
    char err[PHASE_ERR_MAX];
    uint64_t first = UINT64_MAX, last = 0, begin = UINT64_MAX, window;
    int rc;

    if (!s->jobs_running)
        return;
    s->jobs_running = 0;
    uv_timer_stop(&s->sampler);
    getrusage(RUSAGE_SELF, &ru1);
    phase_harvest(&s->run, s->acc, s->causes_acc);
    phase_harvest_nfs(&s->run, &s->nfs_acc);
    /* A phase that ended inside its ramp_time (a sized job done before it)
     * counts everything it did, from its start, as fio reports such a job:
     * the ramp never ended, so nothing was a warm-up before measuring. */
    int ended_in_ramp = s->in_ramp;
    if (ended_in_ramp)
        log_info("phase %u ended inside its ramp_time: all its ops count, from its start (as fio)", s->phase);
    if (!op_set_empty(s->acc) || !nfs_rpc_set_empty(&s->nfs_acc) || s->k == 0)
        send_interval(s);

    m = xcalloc(1, sizeof *m);
    for (uint32_t i = 0; i < s->run.njobs; i++) {
        if (s->run.jobs[i].t_first_ns == UINT64_MAX)
            continue;                      /* stopped before it began */
        if (s->run.jobs[i].t_first_ns < first)
            first = s->run.jobs[i].t_first_ns;
        if (s->run.jobs[i].t_last_ns > last)
            last = s->run.jobs[i].t_last_ns;
        /* where its window opened: its first op less its own startdelay */
        uint64_t d = s->run.jobs[i].spec->startdelay_ns;
        uint64_t b = s->run.jobs[i].t_first_ns > d ? s->run.jobs[i].t_first_ns - d : 0;
        if (b < begin)
            begin = b;
    }
    if (first == UINT64_MAX)          /* idle in this phase */
        first = last = begin = s->t0_ns;
    /* The phase's window: from its start (after the ramp) to the last op.
     * An agent whose jobs began late (the start arrived after t0, or the
     * machine was starved) ran less than the window: its rates are over
     * the time it ran, not over time it never had (a 1 s phase begun
     * 800 ms late did 40 ops at 200 IOPS, not 40 IOPS). */
    window = s->t0_ns + (ended_in_ramp ? 0 : s->ramp_ns);
    if (begin > window + LATE_START_NS)
        window = begin;
    if (begin > s->t0_ns + LATE_START_NS)
        log_info("phase %u began %.0f ms after its start instant", s->phase,
                 (double)(begin - s->t0_ns) / 1e6);
    m->phase = s->phase;
    m->started_ns = first;
    m->duration_ns = last > window ? last - window : 0;
    cpu_seconds(&s->ru0, &ru1, &m->cpu_user_s, &m->cpu_sys_s);
    m->cores = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
    m->nintervals = s->k;
    if (s->run.lat_on && s->run.lat.done) {
        m->lat_depth = s->run.lat.found;
        m->lat_unmet = s->run.lat.found == 0;
    }
    m->totals = *s->totals;
    m->errors = *s->causes;
    phase_clones_totals(&s->run, window, &m->clones);
    m->nfs = s->nfs_totals;                /* borrowed for the encode */
    client_sampler_phase(&s->cs, &m->client);
    client_sampler_stop(&s->cs);
    for (uint32_t i = 0; i < s->run.njobs; i++) {
        if (s->run.jobs[i].vstats)
            vstats_merge(&m->verify, s->run.jobs[i].vstats);
        m->late_ops += s->run.jobs[i].late_ops;
        m->late_ns += s->run.jobs[i].late_ns;
    }
    rc = phase_first_error(&s->run, err, sizeof err);
    s->phase_rc = rc;
    if (!s->closing) {
        struct buf b;
        /* The error first: after the last phase's phase-done the
         * coordinator may end the run (as a success) before reading on. */
        if (rc < 0)
            send_error(s, "phase %u: %s", s->phase, err);
        send_coherence(s);
        buf_init(&b);
        msg_phase_done_encode(&b, m);
        if (b.len > MSG_AGENT_FRAME_MAX && m->clones.n) {
            /* too many latency buckets over its threads: the totals alone
             * (the coordinator then reports the phase, not each clone) */
            log_info("phase %u: the threads' own figures would pass the frame limit; not sent", s->phase);
            buf_free(&b);
            buf_init(&b);
            struct clone_set keep = m->clones;
            m->clones.n = 0;
            msg_phase_done_encode(&b, m);
            m->clones = keep;
        }
        session_send(s, &b);
        log_info("phase %u done: %u intervals", s->phase, s->k);
    }
    clone_set_free(&m->clones);
    free(m);
    finish_phase(s);
}

static void on_all_jobs_finished(void *arg)
{
    struct session *s = arg;
    uv_async_send(&s->finished);     /* from a job thread: hand over to the loop */
}

/* The control connection's local address picks the interface when no
 * NFS server does (client_sampler.h). */
static void start_client_sampler(struct session *s)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    int ok = uv_tcp_getsockname(&s->conn.tcp, (struct sockaddr *)&ss, &len) == 0;
    client_sampler_start(&s->cs, &s->run, ok ? (struct sockaddr *)&ss : NULL);
}

/* A sweep point's load (msg_start.rate_iops/rate_bps): every job of the
 * phase runs at it.  Called on the loop thread while the phase's job
 * threads exist but wait for their start instant: they read the rate only
 * after phase_start publishes it, so this write happens before their reads. */
static void sweep_point_rates(struct phase *ph, uint64_t rate_iops, uint64_t rate_bps)
{
    for (uint32_t k = 0; k < ph->njobs; k++) {
        struct job_spec *j = &ph->jobs[k];
        j->rate_iops = rate_iops;
        j->rate_bps = rate_bps;
        j->rate_per_dir = 0;      /* one schedule: the point's load is a total */
    }
}

static void start_phase(struct session *s, const struct msg_start *m)
{
    s->t0_ns = m->t0_ns;
    s->ramp_ns = s->run.ramp_ns;
    s->in_ramp = s->ramp_ns > 0;
    s->k = 0;
    op_set_init(s->acc);
    op_set_init(s->totals);
    errcause_set_init(s->causes_acc);
    errcause_set_init(s->causes);
    nfs_rpc_set_free(&s->nfs_acc);
    nfs_rpc_set_free(&s->nfs_totals);
    getrusage(RUSAGE_SELF, &s->ru0);
    start_client_sampler(s);
    if (m->clones)                    /* the coordinator writes fio logs per clone */
        phase_clones_want_intervals(&s->run);
    s->jobs_running = 1;
    s->state = S_RUNNING;
    phase_start(&s->run, m->t0_ns);   /* the threads exist and wait: no failure here */
    arm_sampler(s);
}

/* ---- messages ---- */

/* The clean this session queued is over (its answer sent or dropped). */
static void on_clean_done(void *arg)
{
    struct session *s = arg;
    s->cleaning = 0;
    session_maybe_free(s);
}

static void handle_clean(struct session *s, const char *p, size_t n)
{
    char err[256];

    if (s->state != S_IDLE)
        send_error(s, "clean refused: a run is in progress");
    else if (s->cleaning)
        send_error(s, "clean refused: a clean is in progress");
    else if (clean_request(s->agent, s->peer, p, n, &s->clean_cancel, on_clean_done, s, err,
                           sizeof err) < 0)
        send_error(s, "clean refused: %s", err);
    else
        s->cleaning = 1;
}

/* A decoded plan in s->plan, and the agent is ours: check it, start. */
static void handle_plan(struct session *s)
{
    char why[PHASE_ERR_MAX];

    s->plan_pending = 0;
    s->id.index = s->plan.agent_index;
    s->id.nagents = s->plan.nagents;
    s->id.plan = &s->plan.plan;
    if (s->plan.run_id && s->plan.run_ms) {
        /* the coordinator's: one generation per phase on every agent */
        s->id.run_id = s->plan.run_id;
        s->id.run_ms = s->plan.run_ms;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        s->id.run_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
        s->id.run_id = vblock_run_new();
    }
    s->interval_ns = (uint64_t)(s->plan.interval_ms ? s->plan.interval_ms : 1000) * 1000000u;
    s->phase = 0;
    s->stop_requested = 0;
    s->run_complete = 0;
    if (s->agent->null_capacity_iops || s->agent->null_swing_ns)
        /* the model server stands for this machine: its own capacity wins */
        for (uint32_t i = 0; i < s->plan.plan.nphases; i++)
            for (uint32_t k = 0; k < s->plan.plan.phases[i].njobs; k++) {
                struct job_spec *j = &s->plan.plan.phases[i].jobs[k];
                if (j->null_capacity_iops && s->agent->null_capacity_iops)
                    j->null_capacity_iops = s->agent->null_capacity_iops;
                j->null_swing_ns = j->null_capacity_iops ? s->agent->null_swing_ns : 0;
            }
    if (admit_plan_here(&s->plan.plan, s->id.index, s->id.nagents, &s->agent->limits, why,
                        sizeof why) < 0 ||
        phase_check_plan(&s->plan.plan, &s->id, why, sizeof why) < 0) {
        send_error(s, "plan refused: %s", why);
        run_over(s);
        return;
    }
    s->indexed = 1;
    log_info("plan from %s: %u phases, agent %u of %u", s->peer, s->plan.plan.nphases,
             s->id.index, s->id.nagents);
    if (s->plan.plan.nphases == 0) {
        run_over(s);
        return;
    }
    prepare_phase(s);
}

/* A hello of another PROTO_VERSION, however it decodes otherwise: refuse
 * it naming both versions, here and to the coordinator (proto/msg_version.h).
 * 1 when refused (the session is ending). */
static int refuse_other_version(struct session *s, const char *p, uint32_t n)
{
    char err[256], line[MSG_TEXT_MAX];
    uint32_t v = 0;
    struct buf b;

    if (msg_version_peek(p, n, &v, err, sizeof err) < 0 || v == PROTO_VERSION)
        return 0;               /* the decoder says what is wrong, if anything */
    msg_version_refusal(line, sizeof line, "coordinator", s->peer, v, "agent");
    if (!s->outgoing)
        log_warn("%s", line);   /* dial.c logs why a dialled session ended */
    buf_init(&b);
    msg_version_error_encode(&b, "agent", "coordinator", v);
    session_send(s, &b);
    session_end(s, line);
    return 1;
}

static void on_hello(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct buf b;
    struct msg_hello h;
    struct msg_welcome w = { .version = PROTO_VERSION, .pid = (uint32_t)getpid(),
                             .ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) };

    buf_init(&b);
    if (s->state == S_HELLO && refuse_other_version(s, p, n))
        return;
    if (s->state != S_HELLO || msg_hello_decode(p, n, &h, err, sizeof err) < 0) {
        session_end(s, s->state != S_HELLO ? "hello twice" : err);
        return;
    }
    snprintf(w.host, sizeof w.host, "%s", s->agent->host);
    snprintf(w.labels, sizeof w.labels, "%s", s->agent->labels);
    if (s->agent->secret) {
        memcpy(s->cnonce, h.nonce, sizeof s->cnonce);
        if (auth_nonce(s->anonce) < 0) {
            session_end(s, "no randomness for the handshake nonce");
            return;
        }
        w.auth = 1;
        memcpy(w.nonce, s->anonce, sizeof w.nonce);
        auth_proof(s->agent->secret, AUTH_AGENT, s->cnonce, s->anonce, w.mac);
    }
    msg_welcome_encode(&b, &w);
    session_send(s, &b);
    if (s->agent->secret)
        s->state = S_AUTH;
    else
        session_authenticated(s);
}

static void on_auth(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_auth m;
    if (s->state != S_AUTH || msg_auth_decode(p, n, &m, err, sizeof err) < 0) {
        session_end(s, s->state != S_AUTH ? "unexpected auth" : err);
        return;
    }
    if (!auth_check(s->agent->secret, AUTH_COORDINATOR, s->cnonce, s->anonce, m.mac)) {
        send_error(s, "authentication failed: the coordinator's proof does not match this "
                   "agent's secret (different --secret-file, or a replayed handshake)");
        session_end(s, "authentication failed");
        return;
    }
    session_authenticated(s);
}

static void on_ping(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct buf b;
    buf_init(&b);
    if (peer_pong(NULL, p, n, clock_now_ns(), &b, err, sizeof err) < 0) {
        session_end(s, err);
        return;
    }
    session_send(s, &b);
}

static void on_plan(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    if ((s->state != S_IDLE && s->state != S_WAITING) || s->plan_pending) {
        send_error(s, "plan received while a run is in progress");
        return;
    }
    if (s->cleaning) {
        send_error(s, "plan received while a clean is in progress");
        return;
    }
    if (s->have_plan) {
        msg_plan_free(&s->plan);
        s->have_plan = 0;
    }
    if (msg_plan_decode(p, n, &s->plan, err, sizeof err) < 0) {
        send_error(s, "bad plan: %s", err);
        session_end(s, err);
        return;
    }
    s->have_plan = 1;
    if (s->state == S_WAITING) {
        s->plan_pending = 1;     /* served when the agent is ours */
        return;
    }
    handle_plan(s);
}

static void on_start(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_start m;
    if (msg_start_decode(p, n, &m, err, sizeof err) < 0) {
        session_end(s, err);
        return;
    }
    if (s->state != S_READY || m.phase != s->phase) {
        send_error(s, "start for phase %u but phase %u is %s", m.phase, s->phase,
                   s->state == S_READY ? "ready" : "not ready");
        return;
    }
    uint64_t now = clock_now_ns();
    if (m.t0_ns > now + SESSION_T0_AHEAD_NS || m.t0_ns + SESSION_T0_BEHIND_NS < now) {
        int ahead = m.t0_ns > now;
        send_error(s, "start for phase %u refused: its instant is %.3g s %s this agent's clock "
                   "(allowed: %llu s behind to %llu s ahead)", m.phase,
                   (double)(ahead ? m.t0_ns - now : now - m.t0_ns) / 1e9,
                   ahead ? "ahead of" : "behind",
                   SESSION_T0_BEHIND_NS / 1000000000ull, SESSION_T0_AHEAD_NS / 1000000000ull);
        s->stop_requested = 1;   /* its threads end without I/O, the run is over */
        phase_stop(&s->run);
        finish_phase(s);
        return;
    }
    if (m.skip) {
        /* a sweep point the coordinator's search no longer needs: it
         * starts and is stopped at once, so its threads end without
         * I/O and an empty phase-done and the next phase follow as
         * after any phase (unlike a stop, the run goes on) */
        log_info("phase %u skipped by the coordinator (sweep)", m.phase);
        start_phase(s, &m);
        phase_stop(&s->run);
        return;
    }
    if (m.rate_iops || m.rate_bps)
        sweep_point_rates(&s->plan.plan.phases[s->phase], m.rate_iops, m.rate_bps);
    if (m.depth || m.threads)
        phase_sweep_point(&s->run, m.depth, m.threads);
    start_phase(s, &m);
}

/* agent/clean.c: removes the plan's files off the loop thread */
static void on_clean(struct session *s, const char *p, uint32_t n)
{
    if (s->state == S_WAITING && !s->clean_pending && !s->plan_pending) {
        /* served when the agent is ours, like a plan */
        s->clean_pending = xmalloc(n ? n : 1);
        memcpy(s->clean_pending, p, n);
        s->clean_pending_n = n;
        return;
    }
    handle_clean(s, p, n);
}

/* The answer to our heartbeat: last_rx_ns did its job.  Its round trip
 * says how long the coordinator's messages queue on the way here (a link
 * full of our own load: --control-tos). */
static void on_pong(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_pong m;
    uint64_t now = clock_now_ns();
    if (msg_pong_decode(p, n, &m, err, sizeof err) == 0 && m.t_ping_ns <= now)
        log_debug("heartbeat round trip to %s: %.2f ms", s->peer, (double)(now - m.t_ping_ns) / 1e6);
}

static void on_stop(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_stop m;
    if (msg_stop_decode(p, n, &m, err, sizeof err) < 0) {
        session_end(s, err);
        return;
    }
    log_info("stop from %s: %s", s->peer, m.reason);
    s->stop_requested = 1;
    if (s->run_live)
        phase_stop(&s->run);     /* layout, sleeps and I/O end now */
    if (s->state == S_READY)
        finish_phase(s);         /* its threads end without I/O */
}

/* The coordinator ends the running phase for the fleet (exitall, steady
 * state): its jobs stop as at their runtime's end, phase-done and the next
 * phase follow; a phase already over is left alone. */
static void on_phase_end(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_phase_end m;
    if (msg_phase_end_decode(p, n, &m, err, sizeof err) < 0) {
        session_end(s, err);
        return;
    }
    if (s->state == S_RUNNING && s->run_live && m.phase == s->phase) {
        log_info("phase %u ends early: %s", m.phase, m.reason);
        phase_stop(&s->run);
    }
}

static void on_error(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    struct msg_error m;
    if (msg_error_decode(p, n, &m, err, sizeof err) == 0) {
        char why[sizeof s->end_why];
        if (m.version && m.version != PROTO_VERSION) {
            /* a listening coordinator refused our version */
            msg_version_refusal(why, sizeof why, "coordinator", s->peer, m.version, "agent");
            if (!s->outgoing)
                log_warn("%s", why);
            session_end(s, why);
            return;
        }
        if (s->outgoing)
            log_debug("error from coordinator %s: %s", s->peer, m.text);
        else
            log_warn("error from coordinator %s: %s", s->peer, m.text);
        snprintf(why, sizeof why, "coordinator reported an error: %s", m.text);
        session_end(s, why);
        return;
    }
    session_end(s, "coordinator reported an error");
}

/* One handler per message an agent takes, by type. */
typedef void (*frame_handler)(struct session *s, const char *p, uint32_t n);
static const frame_handler frame_handlers[MSG__COUNT] = {
    [MSG_HELLO] = on_hello,
    [MSG_AUTH] = on_auth,
    [MSG_PING] = on_ping,
    [MSG_PLAN] = on_plan,
    [MSG_START] = on_start,
    [MSG_CLEAN] = on_clean,
    [MSG_PONG] = on_pong,
    [MSG_STOP] = on_stop,
    [MSG_PHASE_END] = on_phase_end,
    [MSG_ERROR] = on_error,
};

/* A frame from the coordinator: the handshake first (hello, then auth
 * when the agent has a secret), then one handler per message. */
static void handle_frame(struct session *s, const char *p, uint32_t n)
{
    char err[256];
    int type = msg_peek_type(p, n, err, sizeof err);

    if (type < 0) {
        session_end(s, err);
        return;
    }
    if (s->state == S_HELLO && type != MSG_HELLO) {
        session_end(s, "first message is not hello");
        return;
    }
    if (s->state == S_AUTH && type != MSG_AUTH && type != MSG_ERROR) {
        session_end(s, "not authenticated");
        return;
    }
    if (type >= MSG__COUNT || !frame_handlers[type]) {
        snprintf(err, sizeof err, "unexpected message '%s'", msg_type_name((enum msg_type)type));
        session_end(s, err);
        return;
    }
    frame_handlers[type](s, p, n);
}

static int on_frame(struct peer *p, const char *pl, uint32_t n)
{
    struct session *s = (struct session *)p;
    if (!s->closing)           /* ended meanwhile (a timer): read no further */
        handle_frame(s, pl, n);
    return s->closing;
}

/* The connection closed under us (p->err says how), or session_end closes it. */
static void on_peer_close(struct peer *p, const char *why)
{
    struct session *s = (struct session *)p;

    if (s->closing)
        return;
    if (p->err == -EMSGSIZE)
        why = s->state <= S_AUTH ? "frame larger than the limit before authentication"
                                 : "frame larger than the limit";
    session_end(s, why);
}

static void on_peer_free(struct peer *p)
{
    on_handle_closed((uv_handle_t *)&p->tcp);
}

static const struct peer_ops session_peer_ops = {
    .on_frame = on_frame, .on_close = on_peer_close, .on_free = on_peer_free,
};

void session_feed(struct session *s, const void *bytes, size_t len)
{
    if (s->closing)
        return;
    s->conn.last_rx_ns = clock_now_ns();
    peer_feed(&s->conn, bytes, len);
}

void session_close(struct session *s)
{
    session_end(s, "connection closed");
}

int session_settled(const struct session *s)
{
    return !s->work_busy && !s->jobs_running;
}

/* ---- accepting ---- */

/* s talks to peer ("IP:PORT"): peer_addr, its IP, is what the
 * per-address stranger cap compares. */
static void session_name(struct session *s, const char *peer)
{
    const char *colon = strrchr(peer, ':');
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    snprintf(s->peer_addr, sizeof s->peer_addr, "%.*s",
             (int)(colon ? (size_t)(colon - peer) : strlen(peer)), peer);
}

/* The pending connection to evict for a newcomer: the oldest among those
 * from addr (NULL: from anywhere) that has not said hello, else the oldest
 * one that has.  Count of such connections in *n. */
static struct session *pending_victim(struct agent *a, const char *addr, int *n)
{
    struct session *hello = NULL, *any = NULL;
    *n = 0;
    for (struct session *p = a->pending; p; p = p->pend_next) {
        if (p->closing || (addr && strcmp(p->peer_addr, addr) != 0))
            continue;
        ++*n;
        if (!any)
            any = p;
        if (!hello && p->state == S_HELLO)
            hello = p;
    }
    return hello ? hello : any;
}

/* Make room for one more stranger from s's address: evict over the caps. */
static void pending_make_room(struct agent *a, struct session *s)
{
    int per = a->max_pending_per_addr ? a->max_pending_per_addr : SESSION_MAX_PENDING_PER_ADDR;
    int all = a->max_pending ? a->max_pending : SESSION_MAX_PENDING;
    struct session *v;
    int n;

    while ((v = pending_victim(a, s->peer_addr, &n)) && n >= per) {
        log_warn("evicted %s: %d connections from %s waiting to authenticate", v->peer, n, s->peer_addr);
        session_end(v, "evicted: newer connections from the same address");
    }
    while ((v = pending_victim(a, NULL, &n)) && n >= all) {
        log_warn("evicted %s: %d connections waiting to authenticate", v->peer, n);
        session_end(v, "evicted: too many unauthenticated connections");
    }
}

/* Hello deadline before authentication; afterwards a heartbeat to the
 * coordinator every second and the lease: a coordinator silent for longer
 * than the lease is gone, and the I/O it started stops. */
static void on_tick(uv_timer_t *t)
{
    struct session *s = t->data;
    uint64_t now = clock_now_ns();
    char why[96];

    if (s->closing)
        return;
    /* this agent's own stall is not the coordinator's silence (common/stall.h) */
    s->conn.last_rx_ns = stall_forgive(s->conn.last_rx_ns, stall_tick(&s->last_tick_ns, TICK_NS, now), now);
    if (s->dialling) {
        /* a blackholed address would hold a connect for the kernel's
         * minutes: give up as soon as a hello would be late, and redial */
        if (now - s->accepted_ns > SESSION_HELLO_TIMEOUT_NS)
            session_end(s, "cannot connect: no answer within 5 s");
        return;
    }
    if (s->state <= S_AUTH) {
        if (now - s->accepted_ns > SESSION_HELLO_TIMEOUT_NS)
            session_end(s, "no hello and authentication within 5 s");
        return;
    }
    if (s->state == S_WAITING && now - s->waiting_since_ns > SESSION_WAIT_NS) {
        send_busy(s);
        session_end(s, "busy");
        return;
    }
    if (now - s->conn.last_rx_ns > s->agent->lease_ns) {
        snprintf(why, sizeof why, "lease expired: coordinator silent for %.1f s",
                 (double)(now - s->conn.last_rx_ns) / 1e9);
        session_end(s, why);
        return;
    }
    struct msg_ping ping = { .t_ns = now };
    struct buf b;
    buf_init(&b);
    msg_ping_encode(&b, &ping);
    session_send(s, &b);
    if (s->state == S_PREPARING && atomic_load(&s->run.layout_known)) {
        /* layout progress: the worker thread counts, we report (once its
         * total is whole) */
        struct msg_progress pm = { .phase = s->phase,
                                   .done_bytes = atomic_load(&s->run.layout_done),
                                   .total_bytes = atomic_load(&s->run.layout_total) };
        buf_init(&b);
        msg_progress_encode(&b, &pm);
        session_send(s, &b);
    }
}

static void tick_start(struct session *s)
{
    s->last_tick_ns = clock_now_ns();     /* a stop before the first tick is a stall too */
    uv_timer_start(&s->tick, on_tick, TICK_NS / 1000000u, TICK_NS / 1000000u);
}

/* This machine, for the result's record: only to a proven coordinator. */
static void send_system(struct session *s, const char *waiting_for)
{
    struct hostinfo h;
    struct msg_system m;
    struct buf b;
    hostinfo_read(&h);      /* /proc and uname: no storage I/O */
    memset(&m, 0, sizeof m);
    snprintf(m.kernel, sizeof m.kernel, "%s", h.kernel);
    snprintf(m.cpu_model, sizeof m.cpu_model, "%s", h.cpu_model);
    m.mem_bytes = h.mem_bytes;
    if (waiting_for)
        snprintf(m.waiting_for, sizeof m.waiting_for, "%s", waiting_for);
    buf_init(&b);
    msg_system_encode(&b, &m);
    session_send(s, &b);
}

/* Hello (and the coordinator's proof) done: serve it, unless another
 * coordinator holds the agent. */
static void session_authenticated(struct session *s)
{
    struct agent *a = s->agent;
    pending_remove(s);
    /* proven: frames up to the full size (plans, clean requests) from now on */
    frame_reader_set_max(&s->conn.rd, FRAME_MAX_PAYLOAD);
    s->state = S_IDLE;
    if (a->active && a->active->run_complete && a->active->state == S_IDLE && !a->active->cleaning) {
        /* its coordinator is done and just hasn't hung up yet */
        session_end(a->active, "run complete; a new coordinator connected");
        a->active = NULL;
    }
    if (a->active && a->active->closing && !a->waiting) {
        /* its coordinator is gone and its threads are winding down (a
         * stop takes a few seconds at most, a storage call stuck in its
         * preparation longer): this one is next, not busy, and is told
         * why it waits */
        send_system(s, a->active_peer);
        a->waiting = s;
        s->state = S_WAITING;
        s->waiting_since_ns = clock_now_ns();
        log_info("coordinator %s waits for the session with %s to wind down", s->peer,
                 a->active_peer);
        return;
    }
    send_system(s, NULL);
    if (a->active) {
        send_busy(s);
        session_end(s, "busy");
        return;
    }
    session_promote(s);
}

/* The agent serves s from now on (loop thread). */
static void session_promote(struct session *s)
{
    struct agent *a = s->agent;
    a->active = s;
    s->served = 1;
    s->state = S_IDLE;
    snprintf(a->active_peer, sizeof a->active_peer, "%s", s->peer);
    log_info("serving coordinator %s%s", s->peer, a->secret ? " (authenticated)" : " (UNAUTHENTICATED: --insecure)");
    if (s->plan_pending && !s->closing)
        handle_plan(s);
    if (s->clean_pending && !s->closing)
        handle_clean(s, s->clean_pending, s->clean_pending_n);
    free(s->clean_pending);
    s->clean_pending = NULL;
}

/* A session with its handles, not yet connected to anything. */
static struct session *session_new(struct agent *a)
{
    struct session *s = xcalloc(1, sizeof *s);

    s->agent = a;
    s->id.host = a->host;
    s->id.allow = &a->allow;
    s->id.allow_nfs = &a->allow_nfs;
    s->id.loop_thread = a->loop_thread;
    s->acc = xmalloc(sizeof *s->acc);
    s->totals = xmalloc(sizeof *s->totals);
    s->causes_acc = xcalloc(1, sizeof *s->causes_acc);
    s->causes = xcalloc(1, sizeof *s->causes);
    peer_init(&s->conn, a->loop, &session_peer_ops, FRAME_PREAUTH_MAX);
    uv_timer_init(a->loop, &s->sampler);
    uv_timer_init(a->loop, &s->tick);
    uv_async_init(a->loop, &s->finished, on_finished);
    s->sampler.data = s->tick.data = s->finished.data = s;
    s->open_handles = 4;
    s->accepted_ns = s->conn.last_rx_ns = clock_now_ns();
    a->nsessions++;
    return s;
}

/* s, whose peer is known, joins the connections waiting to authenticate. */
static void pending_add(struct agent *a, struct session *s)
{
    struct session **pp;
    pending_make_room(a, s);
    for (pp = &a->pending; *pp; pp = &(*pp)->pend_next)
        ;                       /* appended: the list stays oldest first */
    *pp = s;
    a->npending++;
}

struct session *session_open_detached(struct agent *a, const char *peer)
{
    struct session *s = session_new(a);
    session_name(s, peer);
    pending_add(a, s);
    tick_start(s);
    return s;
}

/* The connection is up: ask the network to let it through a link our own
 * load fills (net/ctlsock.h).  A refusal costs only the priority. */
static void mark_control(struct session *s)
{
    int rc = ctlsock_mark(&s->conn.tcp, s->agent->control_tos);
    if (rc < 0)
        log_warn("%s: cannot mark the control connection (--control-tos): %s", s->peer, uv_strerror(rc));
}

void session_accept(struct agent *a)
{
    struct session *s = session_new(a);
    struct sockaddr_storage ss;
    char name[sizeof s->peer];

    if (uv_accept((uv_stream_t *)&a->server, (uv_stream_t *)&s->conn.tcp) < 0) {
        session_end(s, "accept failed");
        return;
    }
    peer_name(&s->conn.tcp, &ss, name, sizeof name);
    session_name(s, name);
    pending_add(a, s);
    mark_control(s);
    log_info("connection from %s", s->peer);
    tick_start(s);
    peer_start(&s->conn);
}

/* ---- dialling out (agent --coordinator) ---- */

static void on_dialled(uv_connect_t *req, int status)
{
    struct session *s = req->data;

    if (s->closing)
        return;                 /* ended meanwhile (the close cancels us) */
    if (status < 0) {
        char why[96];
        snprintf(why, sizeof why, "cannot connect: %s", uv_strerror(status));
        session_end(s, why);
        return;
    }
    s->dialling = 0;
    mark_control(s);
    log_info("connected to coordinator %s", s->peer);
    /* the hello deadline counts from the connection, as for an accepted one */
    s->accepted_ns = s->conn.last_rx_ns = clock_now_ns();
    tick_start(s);
    peer_start(&s->conn);
}

struct session *session_dial(struct agent *a, const struct sockaddr *sa, const char *peer)
{
    struct session *s = session_new(a);
    int rc;

    session_name(s, peer);
    pending_add(a, s);
    s->dialling = 1;
    s->outgoing = 1;
    tick_start(s);     /* the connect's deadline */
    if ((rc = peer_connect(&s->conn, sa, on_dialled)) < 0) {
        char why[96];
        snprintf(why, sizeof why, "cannot connect: %s", uv_strerror(rc));
        session_end(s, why);
    }
    return s;
}
