/* engine_null: no I/O at all, through the same job loop and stats path.
 * For control-plane tests at scale, for measuring nfstorm's own overhead,
 * and (with null_capacity_iops / null_latency) as a model server whose
 * capacity is known, so a sweep (coordinator/run/sweep.h) has a right answer.
 *
 * The model: one FIFO server per agent process, shared by every job thread
 * of every job that names a capacity, serving at most null_capacity_iops
 * ops/s.  An op arrives when it was due (its t_due_ns: the schedule of an
 * open-loop job, or its issue for an unrated one), starts service at
 * max(arrival, the previous op's start + 1/capacity) and completes
 * null_latency later: its latency is wait + service.  The request is handed
 * back to the job loop when its service starts, and its completion is told
 * through io_req.t_done_ns (the loop records that as its end).  So:
 * - the client's iodepth never bounds the rate (iodepth=1 drives 50k ops/s
 *   at 100 us of latency); the only bottleneck is the capacity: asked for
 *   more, the server's start times run ahead of the clock, the loop waits
 *   for them and falls behind its schedule, and the latency (from each
 *   op's due time) grows without bound;
 * - the server works in the model's time, not the client thread's: a job
 *   thread descheduled for a few ms (a loaded test machine) issues the ops
 *   it owes late, they arrived when due and are served at once, so the
 *   capacity found is the model's, not the CPU's (the client's own lateness
 *   is its schedule debt, not server latency);
 * - an agent started with --null-capacity-swing DUR serves at its capacity
 *   for DUR, at half of it for the next DUR, and so on from the phase's
 *   first op: a throughput that changes within a sweep point (the CV rule).
 *
 * The server state is the one mutable static outside main.c: it stands for
 * the agent's machine (the capacity is per agent), so it lives as long as
 * the process; setup resets it before each phase's threads start (setup
 * runs for every job of a phase before any job thread exists, engine.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "agent/done_ring.h"
#include "agent/engine.h"
#include "common/clock.h"
#include "common/xmalloc.h"

struct null_server {
    pthread_mutex_t lock;
    double next_start_ns;     /* when the server may start its next op; double
                                 keeps the 1/capacity steps exact on average */
    uint64_t t0_ns;           /* --null-capacity-swing: the phase's first op (0: none yet) */
};

static struct null_server model = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

/* The gap between two starts at time t: 1/capacity, doubled in every other
 * span of a swing (nfstorm-agent --null-capacity-swing), counted from the
 * phase's first op so every point of a sweep swings alike. */
static double model_gap_ns(const struct job_spec *sp, uint64_t t)
{
    double gap = 1e9 / (double)sp->null_capacity_iops;
    if (!sp->null_swing_ns)
        return gap;
    if (!model.t0_ns)
        model.t0_ns = t;
    return t >= model.t0_ns && ((t - model.t0_ns) / sp->null_swing_ns) % 2 ? 2 * gap : gap;
}

struct null_state {
    struct done_ring done;    /* requests in queue order ... */
    uint64_t release_ns[DONE_RING_SIZE]; /* ... and when each may be handed back,
                                            at the same ring positions */
};

static int null_setup(struct engine_job *ej)
{
    ej->priv = xcalloc(1, sizeof(struct null_state));
    ej->sync_queue = !ej->spec->null_capacity_iops && !ej->spec->null_latency_ns;
    if (ej->spec->null_capacity_iops) {
        pthread_mutex_lock(&model.lock);
        model.next_start_ns = 0;     /* a new phase: no backlog from the last one */
        model.t0_ns = 0;
        pthread_mutex_unlock(&model.lock);
    }
    return 0;
}

static int null_queue(struct engine_job *ej, struct io_req *r)
{
    struct null_state *s = ej->priv;
    const struct job_spec *sp = ej->spec;
    uint64_t now = 0, start;

    r->result = 0;
    if (s->done.count == DONE_RING_SIZE)
        return -EAGAIN;
    if (sp->null_capacity_iops || sp->null_latency_ns)
        now = clock_now_ns();
    start = now;
    if (sp->null_capacity_iops) {
        uint64_t arrival = r->t_due_ns && r->t_due_ns < now ? r->t_due_ns : now;
        pthread_mutex_lock(&model.lock);
        double st = model.next_start_ns > (double)arrival ? model.next_start_ns : (double)arrival;
        model.next_start_ns = st + model_gap_ns(sp, (uint64_t)st);
        pthread_mutex_unlock(&model.lock);
        start = (uint64_t)st;
    }
    if (now)
        r->t_done_ns = start + sp->null_latency_ns;
    s->release_ns[(s->done.head + s->done.count) % DONE_RING_SIZE] = start;
    return done_ring_push(&s->done, r);
}

/* Sleep until t (monotonic ns) or the deadline, whichever is first.  A
 * sleep's overshoot costs the model nothing: the server's next start does
 * not wait for the client (see the top). */
static void null_wait_until(uint64_t t, uint64_t deadline)
{
    uint64_t now = clock_now_ns();
    if (t > deadline)
        t = deadline;
    if (t > now) {
        uint64_t d = t - now;
        struct timespec ts = { (time_t)(d / 1000000000ull), (long)(d % 1000000000ull) };
        nanosleep(&ts, NULL);
    }
}

static int null_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct null_state *s = ej->priv;
    const struct job_spec *sp = ej->spec;
    /* without a model every release instant is 0, already passed: no
     * clock read (it would be most of a null op's cost) */
    uint64_t now = sp->null_capacity_iops || sp->null_latency_ns ? clock_now_ns() : 0;
    uint64_t deadline = now + timeout_ns;
    unsigned n = 0;

    while (n < max && s->done.count > 0) {
        uint64_t rel = s->release_ns[s->done.head];
        if (rel > now) {
            if (n >= min || now >= deadline)
                break;
            null_wait_until(rel, deadline);
            now = clock_now_ns();
            continue;
        }
        if (done_ring_pop(&s->done, &done[n], 1) == 1)
            n++;
    }
    return (int)n;
}

static int null_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    *size = ej->files[file].size;   /* pretend every file is laid out */
    return 0;
}

static void null_teardown(struct engine_job *ej)
{
    free(ej->priv);
    ej->priv = NULL;
}

static int null_md(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                   const char *buf, uint64_t size, uint64_t *count)
{
    (void)ej; (void)op; (void)path; (void)path2; (void)buf; (void)size;
    *count = 0;
    return 0;
}

const struct engine_ops engine_null = {
    .name = "null",
    .setup = null_setup,
    .queue = null_queue,
    .reap = null_reap,
    .file_size = null_file_size,
    .teardown = null_teardown,
    .md = null_md,
};
