/* job: the per-thread I/O loop, shared by every engine.
 *
 * The loop keeps up to iodepth requests queued on the engine, reaps them,
 * and records each completion into the job's own stats buffer.  Offsets:
 * sequential jobs walk each file in order; random jobs visit every block of
 * a file once per pass in a pseudo-random order (an affine permutation
 * i -> (a*i + c) mod n with gcd(a, n) = 1), so a size-bound random write
 * covers the whole file exactly like fio's random map, without a bitmap.
 * Files are used round-robin, as fio's default file_service_type.
 *
 * Nothing on the per-op path allocates, locks or makes a syscall besides
 * the engine's own and the clock (vDSO). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/job.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define REAP_BATCH      64
#define REAP_WAIT_NS    (100 * 1000000ull)  /* wake to check stop/deadline */
#define DRAIN_LIMIT_NS  (30 * 1000000000ull)
#define LAYOUT_CHUNK    (1u << 20)
#define BUF_ALIGN       4096

struct file_walk {
    uint64_t nblocks;      /* whole blocks of bs in the file's size */
    uint64_t next;         /* sequential: next block; random: permutation step */
    uint64_t a, c;         /* random: permutation parameters for this pass */
};

struct slot {
    struct io_req req;
    enum op_type op;
};

struct loop {
    struct job *j;
    struct file_walk *walk;
    struct slot *slots;
    struct slot **free_slots;
    unsigned nfree;
    unsigned inflight;
    uint64_t rng;
    uint64_t ops_left;     /* UINT64_MAX when time-bound */
    uint64_t ops_issued;
    uint64_t writes_since_sync;
};

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64*: fast, good enough to pick offsets and fill buffers */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(2685821657736338717);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void walk_new_pass(struct file_walk *w, uint64_t *rng)
{
    w->next = 0;
    if (w->nblocks <= 1) {
        w->a = 1;
        w->c = 0;
        return;
    }
    do
        w->a = rng_next(rng) % w->nblocks;
    while (w->a == 0 || gcd_u64(w->a, w->nblocks) != 1);
    w->c = rng_next(rng) % w->nblocks;
}

/* Block index of the next op on this file. */
static uint64_t walk_next(struct file_walk *w, int random, uint64_t *rng)
{
    uint64_t i;
    if (w->next >= w->nblocks) {
        if (random)
            walk_new_pass(w, rng);
        else
            w->next = 0;
    }
    i = w->next++;
    if (!random)
        return i;
    return (uint64_t)(((unsigned __int128)w->a * i + w->c) % w->nblocks);
}

void job_init(struct job *j, const struct job_spec *spec, const struct engine_ops *eng, uint64_t seed)
{
    memset(j, 0, sizeof *j);
    j->spec = spec;
    j->eng = eng;
    j->seed = seed ? seed : 0x9e3779b97f4a7c15ull;
    j->ej.spec = spec;
    op_set_init(&j->stats[0]);
    op_set_init(&j->stats[1]);
}

/* Record a batch of completions into the active buffer.  The flag pair is
 * the job's half of a Dekker handshake with job_harvest: seq_cst ordering
 * guarantees the sampler either sees `recording` set or the job sees the
 * flipped `active`. */
static void loop_record(struct loop *l, struct io_req **done, int n, uint64_t now)
{
    struct job *j = l->j;
    atomic_store(&j->recording, 1);
    struct op_set *set = &j->stats[atomic_load(&j->active)];
    for (int i = 0; i < n; i++) {
        struct slot *s = (struct slot *)done[i]->udata;
        if (done[i]->kind == IO_SYNC)
            continue;
        op_stats_record(&set->op[s->op], done[i]->len, now - done[i]->t_issue_ns,
                        done[i]->result == 0);
    }
    atomic_store(&j->recording, 0);
}

void job_harvest(struct job *j, struct op_set *acc)
{
    unsigned a = atomic_load(&j->active);
    atomic_store(&j->active, a ^ 1u);
    while (atomic_load(&j->recording))
        sched_yield();
    op_set_merge(acc, &j->stats[a]);
    op_set_init(&j->stats[a]);
}

static int loop_init(struct loop *l, struct job *j)
{
    const struct job_spec *sp = j->spec;
    unsigned depth = sp->iodepth ? sp->iodepth : 1;

    memset(l, 0, sizeof *l);
    l->j = j;
    l->rng = j->seed;
    l->walk = xcalloc(j->ej.nfiles, sizeof *l->walk);
    l->ops_left = 0;
    for (uint32_t f = 0; f < j->ej.nfiles; f++) {
        l->walk[f].nblocks = j->ej.files[f].size / sp->bs;
        walk_new_pass(&l->walk[f], &l->rng);
        l->ops_left += l->walk[f].nblocks;
    }
    if (sp->time_based)
        l->ops_left = UINT64_MAX;
    l->slots = xcalloc(depth, sizeof *l->slots);
    l->free_slots = xcalloc(depth, sizeof *l->free_slots);
    for (unsigned i = 0; i < depth; i++) {
        void *p;
        if (posix_memalign(&p, BUF_ALIGN, sp->bs) != 0) {
            snprintf(j->ej.err, sizeof j->ej.err, "cannot allocate %u buffers of bs=%llu",
                     depth, (unsigned long long)sp->bs);
            return -ENOMEM;
        }
        /* incompressible, non-zero data, as fio writes by default */
        uint64_t *w = p;
        for (uint64_t k = 0; k < sp->bs / 8; k++)
            w[k] = rng_next(&l->rng);
        l->slots[i].req.buf = p;
        l->slots[i].req.udata = &l->slots[i];
        l->free_slots[l->nfree++] = &l->slots[i];
    }
    return 0;
}

static void loop_free(struct loop *l)
{
    unsigned depth = l->j->spec->iodepth ? l->j->spec->iodepth : 1;
    for (unsigned i = 0; l->slots && i < depth; i++)
        free(l->slots[i].req.buf);
    free(l->slots);
    free(l->free_slots);
    free(l->walk);
}

static int loop_issue(struct loop *l)
{
    const struct job_spec *sp = l->j->spec;
    struct slot *s = l->free_slots[--l->nfree];
    struct io_req *r = &s->req;
    uint32_t f = (uint32_t)(l->ops_issued % l->j->ej.nfiles);
    int is_read;
    int rc;

    switch (sp->rw) {
    case RW_READ: case RW_RANDREAD: is_read = 1; break;
    case RW_WRITE: case RW_RANDWRITE: is_read = 0; break;
    default: is_read = rng_next(&l->rng) % 100 < sp->rwmixread; break;
    }
    s->op = is_read ? OP_READ : OP_WRITE;
    r->kind = is_read ? IO_READ : IO_WRITE;
    r->file = f;
    r->len = sp->bs;
    r->offset = walk_next(&l->walk[f], rw_mode_random(sp->rw), &l->rng) * sp->bs;
    r->result = 0;
    r->t_issue_ns = r->t_due_ns = clock_now_ns();
    rc = l->j->eng->queue(&l->j->ej, r);
    if (rc < 0) {
        l->free_slots[l->nfree++] = s;
        return rc;
    }
    l->inflight++;
    l->ops_issued++;
    if (l->ops_left != UINT64_MAX)
        l->ops_left--;
    if (!is_read)
        l->writes_since_sync++;
    return 0;
}

/* Reap what completed (waiting up to timeout_ns for at least min). */
static int loop_reap(struct loop *l, unsigned min, uint64_t timeout_ns)
{
    struct io_req *done[REAP_BATCH];
    int n = l->j->eng->reap(&l->j->ej, min, timeout_ns, done, REAP_BATCH);
    if (n <= 0)
        return n;
    loop_record(l, done, n, clock_now_ns());
    for (int i = 0; i < n; i++)
        l->free_slots[l->nfree++] = (struct slot *)done[i]->udata;
    l->inflight -= (unsigned)n;
    return n;
}

/* Run one sync request to completion (fsync policy, end_fsync). */
static int loop_sync_file(struct loop *l, uint32_t f)
{
    while (l->nfree == 0 || l->inflight > 0) {
        int rc = loop_reap(l, l->inflight, REAP_WAIT_NS);
        if (rc < 0)
            return rc;
    }
    struct slot *s = l->free_slots[--l->nfree];
    s->req.kind = IO_SYNC;
    s->req.file = f;
    s->req.len = 0;
    s->req.t_issue_ns = clock_now_ns();
    int rc = l->j->eng->queue(&l->j->ej, &s->req);
    if (rc < 0) {
        l->free_slots[l->nfree++] = s;
        return rc;
    }
    l->inflight++;
    while (l->inflight > 0) {
        rc = loop_reap(l, 1, REAP_WAIT_NS);
        if (rc < 0)
            return rc;
    }
    return s->req.result;
}

static int loop_run(struct loop *l)
{
    struct job *j = l->j;
    const struct job_spec *sp = j->spec;
    uint64_t drain_since = 0;
    int rc = 0;

    j->t_first_ns = clock_now_ns();
    for (;;) {
        uint64_t now = clock_now_ns();
        int more = l->ops_left > 0 && !atomic_load_explicit(&j->stop, memory_order_relaxed) &&
                   (j->t_end_ns == 0 || now < j->t_end_ns);
        while (more && l->nfree > 0 && l->ops_left > 0) {
            if ((rc = loop_issue(l)) < 0)
                goto out;
            if (sp->fsync && l->writes_since_sync >= sp->fsync) {
                l->writes_since_sync = 0;
                if ((rc = loop_sync_file(l, l->ops_issued % j->ej.nfiles)) < 0)
                    goto out;
            }
        }
        if (!more && l->inflight == 0)
            break;
        uint64_t wait = REAP_WAIT_NS;
        if (more && j->t_end_ns && j->t_end_ns - now < wait)
            wait = j->t_end_ns - now;
        if ((rc = loop_reap(l, 1, wait)) < 0)
            goto out;
        if (!more && !drain_since)
            drain_since = now;
        if (!more && l->inflight > 0 && clock_now_ns() - drain_since > DRAIN_LIMIT_NS)
            break;   /* ops still out are left to teardown; they were issued, not counted */
    }
    if (sp->end_fsync && rw_mode_writes(sp->rw) && !atomic_load(&j->stop))
        for (uint32_t f = 0; f < j->ej.nfiles && rc == 0; f++)
            rc = loop_sync_file(l, f);
out:
    if (rc < 0 && j->ej.err[0] == '\0')
        snprintf(j->ej.err, sizeof j->ej.err, "%s: I/O failed: %s", j->ej.files[0].path, strerror(-rc));
    return rc;
}

static void *job_main(void *arg)
{
    struct job *j = arg;
    struct loop l;
    int rc;

    rc = loop_init(&l, j);       /* allocate before t0, so the start is on time */
    clock_sleep_until(j->t_start_ns);
    if (rc == 0)
        rc = loop_run(&l);
    loop_free(&l);
    j->error = rc < 0 ? rc : 0;
    j->t_last_ns = clock_now_ns();
    atomic_store(&j->finished, 1);
    if (j->on_finish)
        j->on_finish(j->on_finish_arg);
    return NULL;
}

int job_start(struct job *j)
{
    int rc = pthread_create(&j->thread, NULL, job_main, j);
    if (rc != 0)
        return -rc;
    j->thread_started = 1;
    return 0;
}

void job_join(struct job *j)
{
    if (j->thread_started) {
        pthread_join(j->thread, NULL);
        j->thread_started = 0;
    }
}

int job_layout(struct job *j, int fill, uint64_t *bytes_written)
{
    struct engine_job *ej = &j->ej;
    void *buf = NULL;
    uint64_t rng = j->seed;
    int rc = 0;

    for (uint32_t f = 0; f < ej->nfiles && rc == 0; f++) {
        uint64_t have = 0, want = ej->files[f].size;
        rc = j->eng->file_size(ej, f, &have);
        if (rc < 0)
            break;
        if (have >= want)
            continue;
        if (!fill) {           /* write phases: right size, no data needed */
            rc = j->eng->truncate(ej, f, want);
            continue;
        }
        if (!buf) {
            if (posix_memalign(&buf, BUF_ALIGN, LAYOUT_CHUNK) != 0)
                return -ENOMEM;
            for (uint64_t *w = buf; (char *)w < (char *)buf + LAYOUT_CHUNK; w++)
                *w = rng_next(&rng);
        }
        /* rewrite from 0: a short file may be a half-finished earlier layout */
        for (uint64_t off = 0; off < want && rc == 0; off += LAYOUT_CHUNK) {
            struct io_req r = { .kind = IO_WRITE, .file = f, .offset = off, .buf = buf,
                                .len = want - off < LAYOUT_CHUNK ? want - off : LAYOUT_CHUNK };
            struct io_req *done[1];
            if ((rc = j->eng->queue(ej, &r)) < 0)
                break;
            do
                rc = j->eng->reap(ej, 1, REAP_WAIT_NS, done, 1);
            while (rc == 0);
            if (rc > 0)
                rc = r.result;
            if (rc == 0)
                *bytes_written += r.len;
        }
    }
    if (rc < 0 && ej->err[0] == '\0')
        snprintf(ej->err, sizeof ej->err, "laying out %s failed: %s",
                 ej->files[0].path, strerror(-rc));
    free(buf);
    return rc;
}
