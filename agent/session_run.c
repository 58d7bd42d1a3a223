/* session_run: what a served coordinator asks of its session (see
 * agent/session_int.h): the plan admitted, each phase prepared and
 * finished on libuv's thread pool, started at the agreed instant, sampled
 * every interval, its phase-done sent when its job threads end; stops,
 * early phase ends and cleans.  Every path out of a phase goes through
 * phase_stop and session_finish_phase back to IDLE (or to the next phase). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent/admit.h"
#include "agent/clean.h"
#include "agent/cohjob.h"
#include "agent/session_int.h"
#include "common/clock.h"
#include "common/cpu_seconds.h"
#include "common/log.h"
#include "common/vblock.h"
#include "common/xmalloc.h"
#include "proto/coh_msg.h"

/* A start instant (already in this agent's clock) further from now than
 * this is refused: far ahead, the jobs would wait forever; far behind, the
 * sampler would owe (now - t0) / interval intervals and send them back to
 * back; near 2^64, t0 + startdelay + runtime would wrap.  A coordinator
 * picks t0 a few seconds ahead. */
#define SESSION_T0_AHEAD_NS (3600 * 1000000000ull)
#define SESSION_T0_BEHIND_NS (10 * 1000000000ull)
#define LATE_START_NS (20 * 1000000ull)   /* later than this, the window is where the jobs began */

static void on_sample(uv_timer_t *t);

/* ---- work off the loop: preparing and finishing a phase ----
 *
 * Both run on libuv's thread pool; the loop only learns the outcome in
 * work_done.  One uv_work_t serves both: they never overlap. */

static void work_run(uv_work_t *w)
{
    struct session *s = w->data;
    if (s->st.work == WORK_PREPARE) {
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
    enum session_work done = s->st.work;
    s->st.work = WORK_NONE;
    if (done == WORK_PREPARE)
        prepare_done(s, status);
    else
        finish_done(s);
    session_state_assert(&s->st);
}

static void queue_work(struct session *s, enum session_work kind)
{
    s->st.work = kind;
    s->work.data = s;
    /* fails only for a NULL callback */
    int rc = uv_queue_work(s->agent->loop, &s->work, work_run, work_done);
    assert(rc == 0);
    (void)rc;
}

/* The run is over for this coordinator: idle, ready for the next one. */
static void run_over(struct session *s)
{
    if (session_state_has_plan(&s->st))
        msg_plan_free(&s->plan);
    s->st.talk = S_IDLE;
    s->st.run = RUN_OVER;
}

static void prepare_done(struct session *s, int status)
{
    struct msg_ready m = { .phase = s->phase };
    struct buf b;

    if (status < 0 || s->work_rc < 0) {
        phase_release(&s->run);
        s->st.phase = PH_NONE;
        if (s->st.life != LIFE_OPEN) {
            session_maybe_free(s);
            return;
        }
        if (!(s->st.run == RUN_STOPPING && s->work_rc == -ECANCELED))
            session_send_error(s, "phase %u: %s", s->phase, status < 0 ? uv_strerror(status) : s->work_err);
        run_over(s);
        return;
    }
    s->st.phase = PH_PREPARED;
    if (s->st.life != LIFE_OPEN || s->st.run == RUN_STOPPING) {
        session_finish_phase(s);
        return;
    }
    log_info("phase %u '%s' ready (%u threads, laid out %llu bytes)", s->phase, s->run.ph->name,
             s->run.njobs, (unsigned long long)atomic_load(&s->run.layout_done));
    s->st.talk = S_READY;
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
    s->st.phase = PH_LIVE;
    s->phase_rc = 0;
    s->st.talk = S_PREPARING;
    queue_work(s, WORK_PREPARE);
}

/* Join, unlink=1, teardown: after phase-done went out, off the loop. */
void session_finish_phase(struct session *s)
{
    s->st.talk = S_FINISHING;
    queue_work(s, WORK_FINISH);
}

static void finish_done(struct session *s)
{
    phase_release(&s->run);
    s->st.phase = PH_NONE;
    if (s->st.life != LIFE_OPEN) {
        session_maybe_free(s);
        return;
    }
    if (s->phase_rc == 0 && s->st.run != RUN_STOPPING && ++s->phase < s->plan.plan.nphases)
        prepare_phase(s);
    else
        run_over(s);
}

/* ---- running a phase ---- */

/* The interval's accumulators emptied: the next one starts. */
static void interval_reset(struct session *s)
{
    op_set_init(s->acc);
    errcause_set_init(s->causes_acc);
    nfs_rpc_set_free(&s->nfs_acc);
}

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
    errcause_merge(s->causes, s->causes_acc);
    nfs_rpc_set_merge(&s->nfs_totals, &s->nfs_acc);
    interval_reset(s);
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
    phase_harvest(&s->run, s->acc, s->causes_acc);
    phase_harvest_nfs(&s->run, &s->nfs_acc);
    if (s->in_ramp) {
        interval_reset(s);                /* ramp: measured, then dropped */
        phase_clones_reset(&s->run);
        client_sampler_rebase(&s->cs);
        s->in_ramp = 0;
    } else {
        send_interval(s);
    }
    arm_sampler(s);
}

static void cpu_seconds(const struct rusage *a, const struct rusage *b, double *user, double *sys)
{
    *user = cpu_seconds_between(&a->ru_utime, &b->ru_utime);
    *sys = cpu_seconds_between(&a->ru_stime, &b->ru_stime);
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
void session_on_finished(uv_async_t *h)
{
    struct session *s = h->data;
    struct msg_phase_done *m;
    struct rusage ru1;
    char err[PHASE_ERR_MAX];
    uint64_t first = UINT64_MAX, last = 0, begin = UINT64_MAX, window;
    int rc;

    if (s->st.talk != S_RUNNING)
        return;
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
    if (s->st.life == LIFE_OPEN) {
        struct buf b;
        /* The error first: after the last phase's phase-done the
         * coordinator may end the run (as a success) before reading on. */
        if (rc < 0)
            session_send_error(s, "phase %u: %s", s->phase, err);
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
    session_finish_phase(s);
    session_state_assert(&s->st);
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
    interval_reset(s);
    op_set_init(s->totals);
    errcause_set_init(s->causes);
    nfs_rpc_set_free(&s->nfs_totals);
    getrusage(RUSAGE_SELF, &s->ru0);
    start_client_sampler(s);
    if (m->clones)                    /* the coordinator writes fio logs per clone */
        phase_clones_want_intervals(&s->run);
    s->st.talk = S_RUNNING;
    phase_start(&s->run, m->t0_ns);   /* the threads exist and wait: no failure here */
    arm_sampler(s);
}

/* ---- messages ---- */

/* The clean this session queued is over (its answer sent or dropped). */
static void on_clean_done(void *arg)
{
    struct session *s = arg;
    s->st.talk = S_IDLE;
    session_maybe_free(s);
    session_state_assert(&s->st);
}

void session_run_clean(struct session *s, const struct msg_frame *f)
{
    char err[256];

    if (s->st.talk == S_CLEANING)
        session_send_error(s, "clean refused: a clean is in progress");
    else if (s->st.talk != S_IDLE)
        session_send_error(s, "clean refused: a run is in progress");
    else if (clean_request(s->agent, s->peer, f, &s->clean_cancel, on_clean_done, s, err,
                           sizeof err) < 0)
        session_send_error(s, "clean refused: %s", err);
    else
        s->st.talk = S_CLEANING;
}

/* A decoded plan in s->plan, and the agent is ours: check it, start. */
void session_run_plan(struct session *s)
{
    char why[PHASE_ERR_MAX];

    s->st.run = RUN_ON;
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
        session_send_error(s, "plan refused: %s", why);
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

void session_on_plan(struct session *s, const struct msg_frame *f)
{
    char err[256];
    if (s->st.talk == S_CLEANING) {
        session_send_error(s, "plan received while a clean is in progress");
        return;
    }
    if ((s->st.talk != S_IDLE && s->st.talk != S_WAITING) || s->st.run == RUN_PENDING) {
        session_send_error(s, "plan received while a run is in progress");
        return;
    }
    if (msg_plan_decode(f, &s->plan, err, sizeof err) < 0) {
        session_send_error(s, "bad plan: %s", err);
        session_end(s, err);
        return;
    }
    if (s->st.talk == S_WAITING) {
        s->st.run = RUN_PENDING;     /* served when the agent is ours */
        return;
    }
    session_run_plan(s);
}

void session_on_start(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_start m;
    if (!session_decoded(s, msg_start_decode(f, &m, err, sizeof err), err))
        return;
    if (s->st.talk != S_READY || m.phase != s->phase) {
        session_send_error(s, "start for phase %u but phase %u is %s", m.phase, s->phase,
                   s->st.talk == S_READY ? "ready" : "not ready");
        return;
    }
    uint64_t now = clock_now_ns();
    if (m.t0_ns > now + SESSION_T0_AHEAD_NS || m.t0_ns + SESSION_T0_BEHIND_NS < now) {
        int ahead = m.t0_ns > now;
        session_send_error(s, "start for phase %u refused: its instant is %.3g s %s this agent's clock "
                   "(allowed: %llu s behind to %llu s ahead)", m.phase,
                   (double)(ahead ? m.t0_ns - now : now - m.t0_ns) / 1e9,
                   ahead ? "ahead of" : "behind",
                   SESSION_T0_BEHIND_NS / 1000000000ull, SESSION_T0_AHEAD_NS / 1000000000ull);
        s->st.run = RUN_STOPPING;   /* its threads end without I/O, the run is over */
        phase_stop(&s->run);
        session_finish_phase(s);
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
void session_on_clean(struct session *s, const struct msg_frame *f)
{
    if (s->st.talk == S_WAITING && !s->clean_pending && s->st.run != RUN_PENDING) {
        /* served when the agent is ours, like a plan */
        s->clean_pending = xmalloc(f->len ? f->len : 1);
        memcpy(s->clean_pending, f->payload, f->len);
        s->clean_pending_n = f->len;
        return;
    }
    session_run_clean(s, f);
}

void session_on_stop(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_stop m;
    if (!session_decoded(s, msg_stop_decode(f, &m, err, sizeof err), err))
        return;
    log_info("stop from %s: %s", s->peer, m.reason);
    if (s->st.run == RUN_ON)
        s->st.run = RUN_STOPPING;
    if (s->st.phase != PH_NONE)
        phase_stop(&s->run);     /* layout, sleeps and I/O end now */
    if (s->st.talk == S_READY)
        session_finish_phase(s);         /* its threads end without I/O */
}

/* The coordinator ends the running phase for the fleet (exitall, steady
 * state): its jobs stop as at their runtime's end, phase-done and the next
 * phase follow; a phase already over is left alone. */
void session_on_phase_end(struct session *s, const struct msg_frame *f)
{
    char err[256];
    struct msg_phase_end m;
    if (!session_decoded(s, msg_phase_end_decode(f, &m, err, sizeof err), err))
        return;
    if (s->st.talk == S_RUNNING && m.phase == s->phase) {
        log_info("phase %u ends early: %s", m.phase, m.reason);
        phase_stop(&s->run);
    }
}
