/* job: the per-thread I/O loop, shared by every engine.
 *
 * The loop keeps up to iodepth requests queued on the engine, reaps them,
 * and records each completion into the job's own stats buffer.  iogen
 * decides what each op is; this file decides when: as fast as the engine
 * takes them, or on a schedule (rate, rate_iops: linear or poisson
 * arrivals) where each op has a due time and its response time is measured
 * from that due time, not from when it could be issued.  fio's
 * per-direction rates (rate=r,w) give reads and writes a schedule each:
 * the direction due first goes next, so each holds its own rate (with one
 * direction capped, the other fills the gaps as fast as it can).  A server that
 * stalls for a second thus shows a second in the tail instead of one slow
 * op followed by a quiet gap (coordinated omission).
 *
 * Nothing on the per-op path locks or makes a syscall besides the engine's
 * own and the clock (vDSO), and nothing allocates but the stats recording,
 * once per op type and latency range for the whole phase (common/stats.h:
 * memory follows what the job records, drained buffers keep their chunks),
 * and verify_only's table of generations, once (agent/verify.h).  With
 * verify= each write is stamped and each read checked in its own buffer.
 * Slots and buffers are made by job_prepare before the thread exists, so
 * the timed window holds only I/O.
 *
 * Every wait (the start instant with startdelay, thinktime, a rate
 * schedule running ahead) sleeps on the phase's halt (halt.h), so a stop
 * ends the job within a scheduling delay.  An error no retry cures
 * (engine_error_persistent: a full or read-only file system, ...) ends the
 * job at once with the error named, instead of counting failures forever.
 *
 * Why one file of ~950 lines: the general loop and the batched synchronous
 * loop (loop_run_sync) share every static step of an op's life (issue,
 * record, budget, readback, cut-off, the exit paths that record a partial
 * batch); split across files those steps would become an internal API whose
 * only users are these two loops.  Layout, sizing and unlink live in
 * job_layout.c, the file set in job_files.c. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/halt.h"
#include "agent/iogen.h"
#include "agent/job.h"
#include "agent/job_files.h"
#include "agent/flow.h"
#include "agent/cohjob.h"
#include "agent/mdjob.h"
#include "agent/nfs_rpcstat.h"
#include "agent/ratemin.h"
#include "agent/verify.h"
#include "common/clock.h"
#include "common/nfs_rpc.h"
#include "common/wbuf.h"
#include "common/plan_verify.h"
#include "common/xmalloc.h"

#define REAP_BATCH      64
#define SYNC_BATCH      64                  /* loop_run_sync: ops recorded together ... */
#define SYNC_FLUSH_NS   (1000 * 1000ull)    /* ... or after this long (slower ops: one each) */
#define SYNC_WBUF_BYTES (1u << 20)          /* its write buffers made ahead, at most */
#define DRAIN_LIMIT_NS  (30 * 1000000000ull)
#define DRAIN_STOP_NS   (5 * 1000000000ull)  /* after a stop: the agent must be free soon */
/* Job thread stacks.  The loop, the engines (libnfs included: its RPCs
 * build in heap buffers) and mdjob keep at most a few KiB of locals; 512 KiB
 * leaves room for libc (getaddrinfo on a reconnect) with a wide margin.
 * AddressSanitizer's redzones make frames several times larger. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)       /* clang */
#define JOB_STACK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(JOB_STACK_ASAN)
#define JOB_STACK_SIZE  (4u << 20)
#else
#define JOB_STACK_SIZE  (512u << 10)
#endif

struct slot {
    struct io_req req;
    int busy;                  /* queued on the engine */
    enum verify_mode vmode;    /* a read to verify, and how */
};

struct loop {
    struct job *j;
    struct iogen gen;
    struct slot *slots;
    struct slot **free_slots;
    unsigned depth;
    unsigned nfree;
    unsigned inflight;
    uint64_t bytes_left;       /* UINT64_MAX when time-bound */
    uint64_t ops_left;         /* number_ios, else UINT64_MAX */
    uint64_t writes_since_sync;
    int end_sync;              /* end_fsync's flush is running: not in the stats, as fio's */
    int rated;
    int fatal;                 /* a persistent error ended the job (-errno) */
    uint32_t fatal_file;
    enum io_kind fatal_kind;
    uint64_t next_due;         /* rated: when the next op is due */
    uint64_t due_dir[2];       /* rate_per_dir: reads' and writes' next due times */
    int capped[2];             /* rate_per_dir: reads/writes have a schedule */
    uint64_t wake;             /* rated: when the next op may go (loop_ready) */
    struct ratemin ratemin;    /* rate_min, rate_iops_min */
    unsigned abandoned;        /* ops still with the engine when the job ended */
    uint64_t last_done_ns;     /* when the last request (op or sync) completed:
                                  the clock read of the last reap that returned
                                  any, and the loop's `now` after it */
    uint32_t last_file;
    struct wbuf wb;            /* what writes carry (common/wbuf.h) */
    /* verify= (agent/verify.h): NULL without it */
    struct verify_job *v;
    enum verify_mode read_mode;  /* how the phase's own reads are checked */
    int vfatal;                /* verify_fatal and a bad unit: stop */
    int readback;              /* do_verify: replay the writes as reads */
    struct iogen replay;       /* the write pass's generator, replayed */
    uint64_t issued;           /* ops taken from gen and queued */
    uint64_t replayed;         /* ops taken from replay */
    uint64_t unverified;       /* writes queued since the last read-back */
    struct io_req ring[SYNC_BATCH];  /* loop_run_sync: ops generated ahead, */
    void *wbufs[SYNC_BATCH];   /* with a buffer each when writes change it */
    unsigned nwbuf;            /* (scramble, refill), else 0: one shared */
};

void job_init(struct job *j, const struct job_spec *spec, const struct engine_ops *eng, uint64_t seed)
{
    memset(j, 0, sizeof *j);
    j->spec = spec;
    j->eng = eng;
    j->seed = seed ? seed : 0x9e3779b97f4a7c15ull;
    j->ej.spec = spec;
    j->owns_files = 1;
    atomic_init(&j->t_start_ns, HALT_NEVER);
    j->t_first_ns = UINT64_MAX;
    op_rec_init(&j->stats[0]);
    op_rec_init(&j->stats[1]);
    if (eng == &engine_nfs)
        j->ej.rpcstat = nfs_rpcstat_new();
}

/* Count one failed op of type t by its cause, beside set (the stats[]
 * side the op was recorded into, so one harvest moves both; inside that
 * record: between setting j->recording and clearing it). */
static void job_count_cause(struct job *j, const struct op_rec *set, enum op_type t, enum errcause_kind kind,
                            uint32_t code, uint64_t offset, uint64_t size, const char *file)
{
    struct errcause_set **c = &j->causes[set - j->stats];
    if (!*c) {
        *c = xmalloc(sizeof **c);
        errcause_set_init(*c);
    }
    errcause_add(*c, t, kind, code, offset, size, file, 1);
}

/* The same with its cause from result, status and eof_size as an io_req
 * carries them (result 0: the op came back ok but past op_deadline). */
static void job_count_failed(struct job *j, const struct op_rec *set, enum op_type t, int result,
                             uint32_t status, uint64_t eof_size, uint64_t offset, const char *file)
{
    int e = result < 0 ? -result : result;
    if (result == 0)
        job_count_cause(j, set, t, ERRC_TIMEOUT, 0, offset, 0, file);
    else if (status && nfs_status_valid(status))      /* the server's own word */
        job_count_cause(j, set, t, ERRC_NFS, status, offset, 0, file);
    else if (t == OP_READ && result == -ENODATA)      /* the engines' "met the file's end" */
        job_count_cause(j, set, t, ERRC_SHORT_READ, 0, offset, eof_size, file);
    else
        job_count_cause(j, set, t, ERRC_ERRNO, e > 0 && e <= ERRCAUSE_ERRNO_MAX ? (uint32_t)e : EIO, offset, 0,
                        file);
}

void job_record_op(struct job *j, enum op_type op, uint64_t bytes, uint64_t since, int rc, const char *path,
                   uint64_t offset)
{
    uint64_t now = clock_now_ns();
    atomic_store(&j->recording, 1);
    struct op_rec *set = &j->stats[atomic_load(&j->active)];
    op_rec_record(set, op, bytes, now - since, rc == 0);
    if (rc != 0)
        job_count_failed(j, set, op, rc, 0, ERRCAUSE_SIZE_UNKNOWN, offset, path);
    atomic_store(&j->recording, 0);
}

/* Record a batch of completions into the active buffer.  The flag pair is
 * the job's half of a Dekker handshake with job_harvest: seq_cst ordering
 * guarantees the sampler either sees `recording` set or the job sees the
 * flipped `active`. */
static void loop_record(struct loop *l, struct io_req **done, int n, uint64_t now)
{
    struct job *j = l->j;
    l->last_done_ns = now;
    atomic_store(&j->recording, 1);
    struct op_rec *set = &j->stats[atomic_load(&j->active)];
    for (int i = 0; i < n; i++) {
        enum op_type op = (enum op_type)done[i]->kind;   /* IO_READ/IO_WRITE are OP_READ/OP_WRITE */
        struct op_stats_rec *o;
        if (done[i]->result && !l->fatal && engine_error_persistent(done[i]->result)) {
            l->fatal = done[i]->result;
            l->fatal_file = done[i]->file;
            l->fatal_kind = done[i]->kind;
        }
        if (done[i]->kind == IO_SYNC || done[i]->kind == IO_DATASYNC) {
            /* fsync/fdatasync: an op kind of its own, no bytes, latency
             * from its issue (syncs are never rate-limited); fio counts
             * fsync=/fdatasync='s, not end_fsync's */
            if (l->end_sync)
                continue;
            (void)op_rec_record(set, OP_SYNC, 0, now - done[i]->t_issue_ns, done[i]->result == 0);
            if (done[i]->result != 0)      /* every failed op has its cause (errcause.h) */
                job_count_failed(j, set, OP_SYNC, done[i]->result, done[i]->status, 0, 0,
                                 j->ej.files[done[i]->file].path);
            continue;
        }
        /* a model engine says when the op ended in its model (engine_null);
         * that may precede its issue by a late client: service time 0 */
        uint64_t end = done[i]->t_done_ns ? done[i]->t_done_ns : now;
        uint64_t svc = end > done[i]->t_issue_ns ? end - done[i]->t_issue_ns : 0;
        uint64_t lat = end > done[i]->t_due_ns ? end - done[i]->t_due_ns : 0;
        /* past its deadline an op counts as timed out, whatever it returned */
        int late = svc > j->spec->op_deadline_ns;
        int ok = done[i]->result == 0 && !late;
        if (done[i]->result == 0)
            ratemin_add(&l->ratemin, op == OP_WRITE, done[i]->len, end);
        o = op_rec_record(set, op, done[i]->len, lat, ok);
        o->timeouts += (uint64_t)late;
        if (l->rated && ok)
            hist_rec_record(&o->svc, svc);
        if (!ok)
            job_count_failed(j, set, op, done[i]->result, done[i]->status, done[i]->eof_size,
                             done[i]->offset, j->ej.files[done[i]->file].path);
        /* the nfs engine's ops: where their time went (common/nfs_rpc.h) */
        if (done[i]->split_known && done[i]->result == 0 && !late &&
            (done[i]->kind == IO_READ || done[i]->kind == IO_WRITE))
            nfs_rpcstat_op_split(j->ej.rpcstat,
                                 done[i]->kind == IO_WRITE ? NFS_SPLIT_WRITE : NFS_SPLIT_READ,
                                 now - done[i]->t_due_ns, done[i]->rpc_rtt_ns,
                                 done[i]->rpc_queued_ns, done[i]->t_issue_ns - done[i]->t_due_ns);
    }
    /* leaving needs only release (the records happen before the sampler
     * sees 0); entering needs the full fence above: a seq_cst store here
     * would be a second locked instruction per reap for nothing */
    atomic_store_explicit(&j->recording, 0, memory_order_release);
}

void job_inflight(const struct job *j, uint32_t *n, uint64_t *oldest_issue_ns)
{
    *n = atomic_load_explicit(&j->inflight, memory_order_relaxed);
    *oldest_issue_ns = *n ? atomic_load_explicit(&j->oldest_issue_ns, memory_order_relaxed) : UINT64_MAX;
}

/* Publish what is outstanding, for the sampler (stall detection). */
static void loop_publish(struct loop *l)
{
    uint64_t oldest = UINT64_MAX;
    if (l->inflight)
        for (unsigned i = 0; i < l->depth; i++)
            if (l->slots[i].busy && l->slots[i].req.t_issue_ns < oldest)
                oldest = l->slots[i].req.t_issue_ns;
    atomic_store_explicit(&l->j->oldest_issue_ns, oldest, memory_order_relaxed);
    atomic_store_explicit(&l->j->inflight, l->inflight, memory_order_relaxed);
}

void job_harvest(struct job *j, struct op_set *acc, struct errcause_set *causes)
{
    unsigned a = atomic_load(&j->active);
    atomic_store(&j->active, a ^ 1u);
    while (atomic_load(&j->recording))
        sched_yield();
    op_rec_drain(&j->stats[a], acc);
    if (j->causes[a] && !errcause_empty(j->causes[a])) {
        errcause_merge(causes, j->causes[a]);
        errcause_set_init(j->causes[a]);
    }
}

/* verify=: the checker, and for do_verify a second generator that
 * replays the write pass's offsets (same seed, same sequence). */
static int loop_verify_init(struct loop *l)
{
    struct job *j = l->j;
    const struct job_spec *sp = j->spec;
    int rc;
    if (!j->vstats)
        j->vstats = xcalloc(1, sizeof *j->vstats);
    l->v = xmalloc(sizeof *l->v);
    if ((rc = verify_init(l->v, sp, &j->ej, j->ej.agent_index, j->verify_job, j->verify_gen, j->vstats,
                          j->ej.err, sizeof j->ej.err)) < 0) {
        free(l->v);
        l->v = NULL;
        return rc;
    }
    if (sp->rotate)            /* reading another agent's files: it wrote every block */
        l->v->scan_writer = j->source_agent;
    l->v->run = j->verify_run;
    l->v->min_gen = j->verify_min_gen;
    if (sp->verify_written_by[0])
        (void)vblock_run_parse(sp->verify_written_by, &l->v->written_by);   /* checked by the plan */
    j->vstats->only = (uint32_t)(sp->verify_only != 0);
    l->read_mode = sp->verify_only || !rw_mode_writes(sp->rw) ? VERIFY_SCAN : VERIFY_MIXED;
    if (plan_verify_readback(sp)) {
        if (iogen_init(&l->replay, sp, j->seed, j->ej.nfiles, j->region_start, j->region_len) < 0)
            return -EINVAL;
        l->readback = 1;
    }
    return 0;
}

static int loop_init(struct loop *l, struct job *j)
{
    const struct job_spec *sp = j->spec;
    uint64_t bs;
    int rc;

    memset(l, 0, sizeof *l);
    l->j = j;
    l->depth = sp->iodepth ? sp->iodepth : 1;
    if ((rc = iogen_init(&l->gen, sp, j->seed, j->ej.nfiles, j->region_start, j->region_len)) < 0) {
        if (rc == -ERANGE)
            snprintf(j->ej.err, sizeof j->ej.err, "random_distribution=zoned_abs:%s: the zones pass "
                     "the end of the job's region (%llu bytes)", sp->zones,
                     (unsigned long long)j->region_len);
        else
            snprintf(j->ej.err, sizeof j->ej.err, "block size larger than the file region (%llu bytes)",
                     (unsigned long long)j->region_len);
        return -EINVAL;
    }
    bs = iogen_max_bs(&l->gen);
    if (j->ej.dio_align && (rc = job_files_check_align(j)) < 0)
        return rc;
    l->bytes_left = sp->time_based ? UINT64_MAX
                  : job_files_pass_bytes(j) * (sp->loops ? sp->loops : 1);
    l->ops_left = sp->number_ios ? sp->number_ios : UINT64_MAX;
    if (sp->rate_per_dir) {
        l->capped[0] = rw_mode_reads(sp->rw) && (sp->rate_iops || sp->rate_bps);
        l->capped[1] = rw_mode_writes(sp->rw) && (sp->rate_w_iops || sp->rate_w_bps);
        l->rated = l->capped[0] || l->capped[1];
    } else {
        l->rated = sp->rate_iops || sp->rate_bps;
    }
    if (sp->verify && (rc = loop_verify_init(l)) < 0)
        return rc;
    wbuf_init(&l->wb, sp, j->seed);
    if (j->ej.sync_queue && rw_mode_writes(sp->rw) && l->wb.mode != WBUF_FIXED && !l->rated && !l->v) {
        uint64_t n = SYNC_WBUF_BYTES / bs;
        l->nwbuf = n < 1 ? 1 : n > SYNC_BATCH ? SYNC_BATCH : (unsigned)n;
    }
    l->slots = xcalloc(l->depth, sizeof *l->slots);
    l->free_slots = xcalloc(l->depth, sizeof *l->free_slots);
    for (unsigned i = 0; i < l->depth + l->nwbuf; i++) {
        void *p;
        if (posix_memalign(&p, JOB_BUF_ALIGN, bs) != 0) {
            snprintf(j->ej.err, sizeof j->ej.err, "cannot allocate %u buffers of %llu bytes",
                     l->depth + l->nwbuf, (unsigned long long)bs);
            return -ENOMEM;
        }
        wbuf_fill(&l->wb, p, bs);
        if (i >= l->depth) {
            l->wbufs[i - l->depth] = p;
            continue;
        }
        l->slots[i].req.buf = p;
        l->slots[i].req.udata = &l->slots[i];
        l->free_slots[l->nfree++] = &l->slots[i];
    }
    return 0;
}

static void loop_free(struct loop *l)
{
    for (unsigned i = 0; l->slots && i < l->depth; i++)
        free(l->slots[i].req.buf);
    for (unsigned i = 0; i < l->nwbuf; i++)
        free(l->wbufs[i]);
    free(l->slots);
    free(l->free_slots);
    iogen_free(&l->gen);
    if (l->readback)
        iogen_free(&l->replay);
    if (l->v) {
        verify_free(l->v);
        free(l->v);
    }
}

/* Time between two ops of len bytes on this job's schedule (write: the
 * writes' schedule of a per-direction rate). */
static uint64_t loop_gap_ns(struct loop *l, uint64_t len, int write)
{
    const struct job_spec *sp = l->j->spec;
    uint64_t iops = write ? sp->rate_w_iops : sp->rate_iops;
    uint64_t bps = write ? sp->rate_w_bps : sp->rate_bps;
    double gap = 0;
    if (iops)
        gap = 1e9 / (double)iops;
    if (bps && 1e9 * (double)len / (double)bps > gap)
        gap = 1e9 * (double)len / (double)bps;
    if (sp->rate_process == RATE_POISSON)
        gap *= -log(iogen_rand01(&l->gen));
    return (uint64_t)gap;
}

/* Schedule debt: an op issued more than one gap of its rate after it was
 * due is one the client (not the storage) held back: counted with its
 * lateness, after ramp_time, so "achieved less than asked" can say who
 * fell behind. */
static void loop_debt(struct job *j, uint64_t due, uint64_t now, uint64_t gap)
{
    if (now > due && now - due > gap &&
        due >= atomic_load(&j->t_start_ns) + j->spec->ramp_ns) {
        j->late_ops++;
        j->late_ns += now - due;
    }
}

/* May an op go now, and which direction (-1: the rw mode's draw, 0 reads,
 * 1 writes)?  When not, l->wake says when one is due. */
static int loop_ready(struct loop *l, uint64_t now, int *dir)
{
    const struct job_spec *sp = l->j->spec;
    int r = rw_mode_reads(sp->rw), w = rw_mode_writes(sp->rw), d;

    *dir = -1;
    if (!l->rated)
        return 1;
    if (!sp->rate_per_dir) {
        l->wake = l->next_due;
        return now >= l->next_due;
    }
    if (r && w && l->capped[0] && l->capped[1]) {
        d = l->due_dir[0] <= l->due_dir[1] ? 0 : 1;   /* the one due first */
        *dir = d;
        l->wake = l->due_dir[d];
        return now >= l->wake;
    }
    if (r && w) {
        /* one direction capped: the mix while it is due, else the other */
        d = l->capped[0] ? 0 : 1;
        if (now < l->due_dir[d])
            *dir = !d;
        return 1;
    }
    d = w;
    l->wake = l->due_dir[d];
    return now >= l->wake;
}

/* One op of len bytes off a budget of ops and bytes (UINT64_MAX: none). */
static void budget_take(uint64_t *ops, uint64_t *bytes, uint64_t len)
{
    *ops -= *ops != UINT64_MAX;
    if (*bytes != UINT64_MAX)
        *bytes = *bytes > len ? *bytes - len : 0;
}

/* r made ready for a new request, its buffer and owner kept and
 * everything the engine reports reset. */
static void req_prepare(struct io_req *r, enum io_kind kind, uint32_t file, uint64_t offset, uint64_t len)
{
    *r = (struct io_req){ .kind = kind, .file = file, .offset = offset, .len = len, .buf = r->buf,
                          .udata = r->udata, .eof_size = ERRCAUSE_SIZE_UNKNOWN };
}

/* Hand a taken slot's request to the engine, counted out first (the
 * sampler must see it: psync blocks inside queue).  0, or the engine's
 * error with the slot free again. */
static int loop_queue(struct loop *l, struct slot *s)
{
    int rc;
    s->busy = 1;
    l->inflight++;
    loop_publish(l);
    if ((rc = l->j->eng->queue(&l->j->ej, &s->req)) < 0) {
        s->busy = 0;
        s->vmode = VERIFY_NONE;
        l->inflight--;
        loop_publish(l);
        l->free_slots[l->nfree++] = s;
    }
    return rc;
}

static int loop_issue(struct loop *l, uint64_t now, int dir)
{
    struct slot *s = l->free_slots[--l->nfree];
    struct io_req *r = &s->req;
    struct iogen_op op;
    int rc;

    if (dir < 0)
        iogen_next(&l->gen, &op);
    else
        iogen_next_dir(&l->gen, &op, dir);
    if (l->v && l->j->spec->verify_only)
        op.write = 0;          /* fio: the workload's blocks, only read */
    s->vmode = l->v && !op.write ? l->read_mode : VERIFY_NONE;
    req_prepare(r, op.write ? IO_WRITE : IO_READ, op.file, op.offset, op.len);
    if (op.write && !l->v && wbuf_before_write(&l->wb, r->buf, op.len, op.offset))
        now = clock_now_ns();  /* a refill is the generator's time, not the op's (fio fills first too) */
    r->t_issue_ns = now;
    /* its schedule: its direction's with per-direction rates, else the job's */
    int per_dir = l->j->spec->rate_per_dir, d = per_dir ? op.write : 0;
    uint64_t *due = per_dir ? &l->due_dir[d] : &l->next_due;
    int capped = per_dir ? l->capped[d] : l->rated;
    r->t_due_ns = capped ? *due : now;
    if (capped) {
        uint64_t gap = loop_gap_ns(l, op.len, d);
        loop_debt(l->j, r->t_due_ns, now, gap);
        *due += gap;
    }
    if (l->v && op.write)
        verify_stamp(l->v, r, plan_verify_unit(l->j->spec, op.len), l->j->verify_gen, now);
    if ((rc = loop_queue(l, s)) < 0)
        return rc;
    l->last_file = op.file;
    l->issued++;
    l->unverified += (uint64_t)op.write;
    budget_take(&l->ops_left, &l->bytes_left, op.len);
    if (op.write)
        l->writes_since_sync++;
    return 0;
}

/* Reap what completed (waiting up to timeout_ns for at least min).  The
 * one clock read is the completions' end instant; it is left in
 * l->last_done_ns for the loop to use as its `now` (see loop_run). */
static int loop_reap(struct loop *l, unsigned min, uint64_t timeout_ns)
{
    struct io_req *done[REAP_BATCH];
    int n = l->j->eng->reap(&l->j->ej, min, timeout_ns, done, REAP_BATCH);
    if (n <= 0)
        return n;
    loop_record(l, done, n, clock_now_ns());
    for (int i = 0; i < n; i++) {
        struct slot *s = (struct slot *)done[i]->udata;
        if (s->vmode && done[i]->result == 0 && !l->vfatal &&
            verify_read(l->v, done[i], s->vmode) && l->j->spec->verify_fatal)
            l->vfatal = 1;     /* later completions are not checked */
        s->vmode = VERIFY_NONE;
        s->busy = 0;
        l->free_slots[l->nfree++] = s;
    }
    l->inflight -= (unsigned)n;
    loop_publish(l);
    return n;
}

static int loop_drain(struct loop *l)
{
    while (l->inflight > 0) {
        int rc = loop_reap(l, l->inflight, JOB_REAP_WAIT_NS);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Run one sync request to completion (fsync/fdatasync policy, end_fsync). */
static int loop_sync_file(struct loop *l, uint32_t f, enum io_kind kind)
{
    int rc = loop_drain(l);
    if (rc < 0)
        return rc;
    struct slot *s = l->free_slots[--l->nfree];
    req_prepare(&s->req, kind, f, 0, 0);
    s->req.t_issue_ns = s->req.t_due_ns = clock_now_ns();
    if ((rc = loop_queue(l, s)) < 0 || (rc = loop_drain(l)) < 0)
        return rc;
    return s->req.result;
}

static int loop_more(struct loop *l, uint64_t now)
{
    const struct job *j = l->j;
    return l->bytes_left > 0 && l->ops_left > 0 && !l->fatal && !l->vfatal && !halt_raised(j->halt) &&
           !atomic_load_explicit(&j->stop, memory_order_relaxed) &&
           (j->t_end_ns == 0 || now < j->t_end_ns);
}

/* The job ends with ops still out (a fatal engine error, or the drain
 * limit): every one of them is counted, as a failed op cut off now, so
 * nothing issued goes missing from the results.  The engine must be torn
 * down before their buffers are freed (job_main). */
static void loop_cut_off(struct loop *l)
{
    struct job *j = l->j;
    uint64_t now = clock_now_ns();
    if (l->inflight == 0)
        return;
    atomic_store(&j->recording, 1);
    struct op_rec *set = &j->stats[atomic_load(&j->active)];
    for (unsigned i = 0; i < l->depth; i++) {
        struct slot *s = &l->slots[i];
        if (!s->busy || s->req.kind == IO_SYNC || s->req.kind == IO_DATASYNC)
            continue;
        op_rec_record(set, (enum op_type)s->req.kind, s->req.len, now - s->req.t_due_ns, 0);
        job_count_cause(j, set, (enum op_type)s->req.kind, ERRC_CUT_OFF, 0, s->req.offset, 0,
                        j->ej.files[s->req.file].path);
    }
    atomic_store(&j->recording, 0);
    l->abandoned = l->inflight;
}

/* do_verify: read back every write queued since the last read-back,
 * replaying the write pass's generator, and check each unit against this
 * phase's generation and this agent (fio's verify phase; with
 * verify_backlog=N, after every N writes).  Not after a stop, a fatal
 * error or verify_fatal's first bad unit. */
static int loop_readback(struct loop *l)
{
    struct job *j = l->j;
    int rc = loop_drain(l);

    while (rc >= 0 && !l->fatal && !l->vfatal && !halt_raised(j->halt) &&
           !atomic_load_explicit(&j->stop, memory_order_relaxed) &&
           (l->replayed < l->issued || l->inflight > 0)) {
        while (l->nfree > 0 && l->replayed < l->issued && !l->vfatal) {
            struct iogen_op op;
            struct slot *s;
            iogen_next(&l->replay, &op);
            l->replayed++;
            if (!op.write)
                continue;
            s = l->free_slots[--l->nfree];
            s->vmode = VERIFY_READBACK;
            req_prepare(&s->req, IO_READ, op.file, op.offset, op.len);
            s->req.t_issue_ns = s->req.t_due_ns = clock_now_ns();
            if ((rc = loop_queue(l, s)) < 0)
                return rc;
        }
        if (l->inflight > 0)
            rc = loop_reap(l, 1, JOB_REAP_WAIT_NS);
    }
    if (rc >= 0)
        rc = loop_drain(l);
    l->unverified = 0;
    return rc < 0 ? rc : 0;
}

/* May the job take loop_run_sync: an engine that completes each op in
 * queue(), and nothing per op besides the I/O and its write buffer (no
 * schedule, verify, think time, sync policy, flow, latency target)? */
static int loop_sync_ok(const struct loop *l)
{
    const struct job *j = l->j;
    const struct job_spec *sp = j->spec;
    return j->ej.sync_queue && !l->rated && !l->v && !sp->thinktime_ns && !sp->fsync && !sp->fdatasync &&
           !j->depth_cap && !j->flow && (!rw_mode_writes(sp->rw) || l->wb.mode == WBUF_FIXED || l->nwbuf);
}

/* The loop of a synchronous engine (ej.sync_queue: psync, null), one op
 * at a time whatever the iodepth, as fio's psync.  Latency is issue to
 * completion with one clock read per op: the read after op k's system
 * call is op k's end and op k+1's issue, and between the two the loop
 * only stores the instant and takes the next request, generated ahead
 * SYNC_BATCH at a time.  Everything else (histograms, counters, limits,
 * the sampler's view) is done per batch, then the clock is read again so
 * the next issue instant is fresh: one extra read per batch.  A batch
 * ends early at the runtime's end, on a failed op, or SYNC_FLUSH_NS after
 * it began, so stops, intervals and the ramp's end see every op within
 * about a millisecond; an op past the end is never issued, and what a
 * batch did is recorded whichever way the loop ends. */
static int loop_run_sync(struct loop *l)
{
    struct job *j = l->j;
    struct io_req *done[SYNC_BATCH];
    uint64_t plan_bytes = l->bytes_left, plan_ops = l->ops_left;  /* left to generate */
    unsigned head = 0, ready = 0, n;      /* ring[head..]: ready ops generated, not issued */
    unsigned cap = l->nwbuf ? l->nwbuf : SYNC_BATCH;
    uint64_t now;
    int rc = 0;

    for (;;) {
        for (; ready < cap && plan_ops && plan_bytes; ready++) {
            struct io_req *r = &l->ring[(head + ready) % cap];
            struct iogen_op op;
            iogen_next(&l->gen, &op);
            r->buf = l->nwbuf ? l->wbufs[(head + ready) % cap] : l->slots[0].req.buf;
            req_prepare(r, op.write ? IO_WRITE : IO_READ, op.file, op.offset, op.len);
            if (op.write)      /* its sectors' stamps, or new contents: in no op's latency */
                (void)wbuf_before_write(&l->wb, r->buf, op.len, op.offset);
            budget_take(&plan_ops, &plan_bytes, op.len);
        }
        /* after the generator and the last batch's bookkeeping: the next
         * issue instant, so neither is in any op's latency */
        now = clock_now_ns();
        if (rc < 0 || !loop_more(l, now))
            break;
        uint64_t stop = j->t_end_ns && j->t_end_ns < now + SYNC_FLUSH_NS ? j->t_end_ns : now + SYNC_FLUSH_NS;
        /* the sampler's view: one op out since the batch's first issue */
        atomic_store_explicit(&j->oldest_issue_ns, now, memory_order_relaxed);
        atomic_store_explicit(&j->inflight, 1, memory_order_relaxed);
        for (n = 0; n < ready;) {
            struct io_req *r = &l->ring[(head + n) % cap];
            r->t_issue_ns = r->t_due_ns = now;
            if ((rc = j->eng->queue(&j->ej, r)) < 0)
                break;
            r->t_done_ns = now = clock_now_ns();
            n++;
            if (now >= stop || r->result)
                break;
        }
        /* the batch's bookkeeping, outside every op's latency */
        n = (unsigned)j->eng->reap(&j->ej, n, 0, done, n);
        loop_record(l, done, (int)n, now);
        for (unsigned i = 0; i < n; i++)
            budget_take(&l->ops_left, &l->bytes_left, done[i]->len);
        head = (head + n) % cap;
        ready -= n;
        if (rc >= 0)
            rc = ratemin_check(&l->ratemin, j->spec, now, j->ej.err, sizeof j->ej.err);
    }
    loop_publish(l);
    return rc;
}

static int loop_run(struct loop *l)
{
    struct job *j = l->j;
    const struct job_spec *sp = j->spec;
    uint64_t drain_since = 0;
    int rc = 0;

    int dir;

    /* A synchronous engine takes loop_run_sync.  Here (asynchronous
     * engines, schedules, verify, ...) one clock read per op where the loop
     * can: `now` is carried from the read that last moved it (a reap's
     * completion instant, a sleep's end, an issue).  A reap's instant is
     * also the issue instant of the ops queued right after it, so their
     * latency holds the loop's few ns of recording and generation: next to
     * an asynchronous op's microseconds that is noise, next to a psync read
     * of a page it was not (docs/architecture.md, "The op loop"). */
    uint64_t now = clock_now_ns();
    j->t_first_ns = l->next_due = l->due_dir[0] = l->due_dir[1] = now;
    ratemin_init(&l->ratemin, sp, j->t_first_ns);
    int sync = loop_sync_ok(l);
    if (sync && (rc = loop_run_sync(l)) < 0)
        goto out;
    while (!sync) {
        int more = loop_more(l, now);
        while (more && l->nfree > 0 &&
               (!j->depth_cap || l->inflight < atomic_load_explicit(j->depth_cap, memory_order_relaxed)) &&
               !flow_held(j) && loop_ready(l, now, &dir)) {
            /* fsync=N: as fio, the sync due after N writes is issued
             * before the next op, so a job whose I/O ends there does not
             * issue it (fio 3.33: 64 writes with fsync=8 make 7 syncs;
             * end_fsync= flushes the rest) */
            int fsync_due = sp->fsync && l->writes_since_sync >= sp->fsync;
            if (fsync_due || (sp->fdatasync && l->writes_since_sync >= sp->fdatasync)) {
                l->writes_since_sync = 0;
                if ((rc = loop_sync_file(l, l->last_file, fsync_due ? IO_SYNC : IO_DATASYNC)) < 0)
                    goto out;
                now = clock_now_ns();
            }
            if ((rc = loop_issue(l, now, dir)) < 0)
                goto out;
            flow_note(j);
            if (l->readback && sp->verify_backlog && l->unverified >= sp->verify_backlog &&
                (rc = loop_readback(l)) < 0)
                goto out;
            if (sp->thinktime_ns) {
                if ((rc = loop_drain(l)) < 0)
                    goto out;
                /* runtime bounds the think time too: a pause longer
                 * than what is left of the window ends at its end */
                uint64_t until = clock_now_ns() + sp->thinktime_ns;
                if (j->t_end_ns && until > j->t_end_ns)
                    until = j->t_end_ns;
                halt_sleep_until(j->halt, until);
            }
            /* every slot taken: nothing more goes before a reap, whose
             * clock read is the next `now` (a stale `now` here only
             * sizes the reap's wait, which ends at a completion) */
            if (l->nfree == 0 && !sp->thinktime_ns)
                break;
            now = clock_now_ns();
            more = loop_more(l, now);
        }
        if (!more && l->inflight == 0)
            break;
        uint64_t wait = JOB_REAP_WAIT_NS;
        if (more && j->t_end_ns && j->t_end_ns - now < wait)
            wait = j->t_end_ns - now;
        if (more && flow_held(j)) {
            /* ahead of its flow weight: fio's flow_sleep before it tries again */
            uint64_t fs = sp->flow_sleep_ns ? sp->flow_sleep_ns : FLOW_DEFAULT_SLEEP_NS;
            if (fs < wait)
                wait = fs;
        }
        if (more && l->rated && l->nfree > 0 && l->wake > now && l->wake - now < wait)
            wait = l->wake - now;
        if (l->inflight == 0) {
            /* nothing to reap: ahead of the schedule */
            halt_sleep_until(j->halt, now + wait);
            now = clock_now_ns();
            continue;
        }
        if (!more && !drain_since)
            drain_since = now;
        if ((rc = loop_reap(l, 1, wait)) < 0)
            goto out;
        /* completions: their end instant is now; none (the wait ran out):
         * read the clock */
        now = rc > 0 ? l->last_done_ns : clock_now_ns();
        if (more && (rc = ratemin_check(&l->ratemin, sp, now, j->ej.err, sizeof j->ej.err)) < 0)
            goto out;
        if (!more && l->inflight > 0 && now - drain_since >
            (halt_raised(j->halt) ? DRAIN_STOP_NS : DRAIN_LIMIT_NS))
            break;   /* loop_cut_off counts what is still out */
    }
    if (rc > 0)
        rc = 0;    /* the last reap's count: end_fsync below must still run (it did not) */
    if (sp->end_fsync && rw_mode_writes(sp->rw) && !atomic_load(&j->stop) && !halt_raised(j->halt) &&
        !l->fatal && l->inflight == 0) {
        l->end_sync = 1;
        for (uint32_t f = 0; f < j->ej.nfiles && rc == 0; f++)
            rc = loop_sync_file(l, f, IO_SYNC);
        l->end_sync = 0;
    }
    if (rc >= 0 && l->readback)
        rc = loop_readback(l);
out:
    if (l->v)
        verify_end(l->v);
    loop_cut_off(l);
    if (rc > 0)
        rc = 0;                /* a count from the last reap */
    if (rc == 0 && l->fatal) {
        char e[128];
        rc = l->fatal;
        snprintf(j->ej.err, sizeof j->ej.err, "%s: %s failed: %s%s%s", j->ej.files[l->fatal_file].path,
                 l->fatal_kind == IO_READ ? "read" : l->fatal_kind == IO_WRITE ? "write" : "sync",
                 engine_strerror(rc, e, sizeof e), j->ej.detail[0] ? ": " : "", j->ej.detail);
    }
    if (rc < 0 && j->ej.err[0] == '\0') {
        char e[128];
        snprintf(j->ej.err, sizeof j->ej.err, "%s: I/O failed: %s", j->ej.files[0].path,
                 engine_strerror(rc, e, sizeof e));
    }
    return rc;
}

static void *job_main(void *arg)
{
    struct job *j = arg;
    int rc = 0;

    /* the start instant is published by phase_start; startdelay is part
     * of it, so the whole wait ends on a stop */
    if (halt_sleep_until_var(j->halt, &j->t_start_ns) == 0 && !j->benched) {
        if (j->spec->rw == RW_METADATA)
            rc = mdjob_run(j);
        else if (j->spec->rw == RW_COHERENCE)
            rc = cohjob_run(j);
        else
            rc = loop_run(j->loop);
    }
    /* A job bounded by a runtime ends at its window's end, or at its last
     * completion when that came later, never after now: a thread stopped
     * or starved in its window (the machine busy) must not stretch the
     * duration its rates are computed over to when it ran again.  Other
     * jobs end now (after their last think time, as fio's); with requests
     * cut off it is now too, their wait being part of the phase. */
    uint64_t last = clock_now_ns();
    if (j->loop && !j->loop->abandoned && j->loop->last_done_ns && j->t_end_ns) {
        uint64_t end = j->loop->last_done_ns > j->t_end_ns ? j->loop->last_done_ns : j->t_end_ns;
        if (end < last)
            last = end;
    }
    if (j->loop) {
        if (j->loop->abandoned) {
            /* ops never came back within the drain limit: the engine may
             * still write into their buffers until it is torn down */
            j->eng->teardown(&j->ej);
            j->ej.priv = NULL;
        }
        loop_free(j->loop);
        free(j->loop);
        j->loop = NULL;
    }
    j->error = rc < 0 ? rc : 0;
    j->t_last_ns = last;
    atomic_store(&j->finished, 1);
    if (j->spec->exitall && !halt_raised(j->halt))
        halt_raise(j->halt);    /* fio's exitall: its first thread to end ends the phase */
    if (j->error && j->spec->exitall_on_error && !halt_raised(j->halt)) {
        /* fio's exitall_on_error: the agent's other threads end now, so its
         * error (and phase-done) reach the coordinator, which ends the
         * fleet's phase, without waiting for them */
        halt_raise(j->halt);
    }
    if (j->on_finish)
        j->on_finish(j->on_finish_arg);
    return NULL;
}

int job_prepare(struct job *j)
{
    int rc;
    if (j->spec->rw == RW_METADATA)
        return mdjob_prepare(j);
    if (j->spec->rw == RW_COHERENCE)
        return cohjob_prepare(j);
    j->loop = xmalloc(sizeof *j->loop);
    if ((rc = loop_init(j->loop, j)) < 0)
        job_release(j);
    return rc;
}

int job_spawn(struct job *j)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0)
        return -rc;
    /* small stacks: 4096 threads x 8 MiB of reserved stack is 32 GiB of
     * address space for loops that use a few KiB (if the size is refused,
     * the default stands) */
    (void)pthread_attr_setstacksize(&attr, JOB_STACK_SIZE);
    rc = pthread_create(&j->thread, &attr, job_main, j);
    pthread_attr_destroy(&attr);
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
    free(j->vstats);
    j->vstats = NULL;
    for (int i = 0; i < 2; i++) {
        free(j->causes[i]);
        j->causes[i] = NULL;
    }
    op_rec_free(&j->stats[0]);
    op_rec_free(&j->stats[1]);
}

void job_release(struct job *j)
{
    if (!j->thread_started) {
        free(j->md_found);
        j->md_found = NULL;
        free(j->vstats);
        j->vstats = NULL;
    }
    if (j->thread_started || !j->loop)
        return;
    loop_free(j->loop);
    free(j->loop);
    j->loop = NULL;
}
