/* fiolog: fio's log files from the streamed intervals (see fiolog.h).
 *
 * Design.  A "unit" is one file set as fio names it: one per clone of
 * each logging job (fio's one file per thread, numbered by its thread
 * number) when the agents report each thread (a phase of at most
 * CLONE_SET_MAX threads, common/clone_set.h), else one per phase (the sum
 * of its jobs, under the first logging job's number).  A "stream" is one
 * unit's files: the fleet's (merged) or one agent's.  It holds back the newest interval it was fed until the next
 * one arrives or the stream ends, because only then is it known whether
 * that interval was the phase's last, shorter one: its line then carries
 * the real end time and its rate is over its real length, as fio's last
 * log entry is.  Agents' streams are fed as their intervals arrive (their
 * per-interval histograms live only in those messages: the result keeps
 * per-agent counters alone); the merged stream is fed at phase end from
 * the result, whose merged intervals are exact.  A clone's merged stream
 * is fed as each interval completes (every live agent sent it), from the
 * sum of the agents' figures for that clone held until then (a pending
 * interval: counters and a chunked histogram, freed once fed): the result
 * keeps no per-clone intervals.  Files are opened for each
 * batch of lines and closed again, so a fleet of 1,000 agents never holds
 * 6,000 descriptors; a stream's histogram window is a chunked hist_rec
 * (a few KB), so memory is per agent, never per interval.
 *
 * Units as fio 3.x writes them: time in ms since the phase started, bw
 * KiB/s, iops ops/s (successful ops: a failed op moved nothing), latency
 * ns; averaged entries carry bs 0 (and offset 0 with log_offset), as
 * fio's averaged entries do.  lat is nfstorm's op latency (from when a
 * rate-limited op was due), clat and clat_hist the service time when
 * measured (clat_of), as fio's clat runs from issue to completion. */
#include "coordinator/run/fiolog.h"
#include "common/sat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clone_set.h"
#include "common/stats.h"
#include "common/xmalloc.h"

enum ftype { F_BW, F_IOPS, F_LAT, F_CLAT, F_SLAT, F_HIST, F__COUNT };
static const char *const ftype_name[F__COUNT] = { "bw", "iops", "lat", "clat", "slat", "clat_hist" };
static const enum plan_log_type ftype_key[F__COUNT] = {
    PLAN_LOG_BW, PLAN_LOG_IOPS, PLAN_LOG_LAT, PLAN_LOG_LAT, PLAN_LOG_LAT, PLAN_LOG_HIST,
};

/* A direction's sums; n, sum and max are [0] lat's and [1] clat's. */
struct dirsum {
    uint64_t ok, bytes, n[2], sum[2], max[2];
};

/* fio's clat: issue to completion.  A rate-limited job measures latency
 * from when the op was due (lat) and its service time apart (svc); when
 * every op has one, that is the clat, else clat is lat. */
static const struct hist *clat_of(const struct op_stats *o)
{
    return o->svc.count && o->svc.count == o->lat.count ? &o->svc : &o->lat;
}

struct lstream {
    uint8_t has;                 /* an interval is held back */
    uint32_t k;                  /* which */
    struct dirsum d[2];          /* its read and write sums */
    struct hist_rec win[2];      /* the hist window so far (held interval included) */
    uint32_t win_first;          /* first interval of the window */
    uint8_t win_open;
};

/* One interval's figures of a unit (from one agent, or summed over agents). */
struct contrib {
    struct dirsum d[2];
    struct hist_rec clat[2];     /* filled only when the unit writes hist logs */
};

struct pend {                    /* a clone unit's interval k, not yet complete */
    uint32_t k;
    struct contrib c;
};

struct phase_log {               /* one unit: a file set */
    uint32_t phase;
    int job, clone;              /* its job's index in the phase and its clone's;
                                    clone -1: the phase's sum (one set per phase) */
    struct job_log log;
    char name[PLAN_NAME_MAX];
    uint32_t n;                  /* fio's job number in the names */
    uint8_t truncate[F__COUNT];  /* first user of the file (per_job_logs=0 shares) */
    int reads, writes;
    uint64_t bs;
    struct lstream merged;
    struct lstream *agent;       /* [nagents] while its phase runs, else NULL */
    struct pend *pend;           /* clone units: intervals agents are still sending */
    uint32_t npend;
};

struct fiolog {
    uint32_t nphases, nagents, interval_ms;
    struct phase_log *u;         /* [nu] units, phase by phase */
    uint32_t nu;
    int cur;                     /* running phase, -1 none */
    uint8_t *had_ops;            /* [nagents]: its last interval had ops */
    int err;
    char errtext[512];
    char warntext[512];          /* the first agent whose ops miss from per-clone files */
    struct hist *scratch;
    struct op_stats *ops[2];
};

int fiolog_plan_wants(const struct plan *p)
{
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t j = 0; j < p->phases[i].njobs; j++)
            if (p->phases[i].jobs[j].log.mask)
                return 1;
    return 0;
}

int fiolog_plan_interval(const struct plan *p, int given, uint32_t *interval_ms, char *err,
                         size_t errlen)
{
    const char *avg_job = NULL, *hist_job = NULL;
    uint32_t avg = 0, hist = 0, iv;

    if (!fiolog_plan_wants(p))
        return 0;
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t j = 0; j < p->phases[i].njobs; j++) {
            const struct job_spec *js = &p->phases[i].jobs[j];

            if (!js->log.mask)
                continue;
            if (js->log.avg_msec && avg && js->log.avg_msec != avg) {
                snprintf(err, errlen, "job '%s': log_avg_msec=%u differs from job '%s''s %u: "
                         "nfstorm logs every job at the run's one interval", js->name,
                         js->log.avg_msec, avg_job, avg);
                return -EINVAL;
            }
            if (js->log.avg_msec && !avg) {
                avg = js->log.avg_msec;
                avg_job = js->name;
            }
            if (js->log.hist_msec && !hist) {
                hist = js->log.hist_msec;
                hist_job = js->name;
            }
        }
    iv = avg ? avg : hist ? hist : *interval_ms;
    if (given && (avg || hist) && iv != *interval_ms) {
        snprintf(err, errlen, "job '%s': %s=%u asks for %u ms intervals, --interval says %u ms",
                 avg ? avg_job : hist_job, avg ? "log_avg_msec" : "log_hist_msec", iv, iv,
                 *interval_ms);
        return -EINVAL;
    }
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t j = 0; j < p->phases[i].njobs; j++) {
            const struct job_spec *js = &p->phases[i].jobs[j];

            if (js->log.mask && js->log.hist_msec && js->log.hist_msec % iv) {
                snprintf(err, errlen, "job '%s': log_hist_msec=%u is not a multiple of the %u ms "
                         "interval (log_avg_msec or --interval)", js->name, js->log.hist_msec, iv);
                return -EINVAL;
            }
        }
    *interval_ms = iv;
    return 0;
}

void fiolog_name(char *buf, size_t len, const char *prefix, int agent, const char *type,
                 uint32_t n, int per_job)
{
    char who[32] = ".log";

    /* an agent's file does not end in .log, so fio's documented globs
     * (*_bw.log, *_clat_hist.*.log) find the fleet's file once and never an
     * agent's beside it, which a tool would add in a second time */
    if (agent >= 0)
        snprintf(who, sizeof(who), ".agent%d", agent);
    if (per_job)
        snprintf(buf, len, "%s_%s.%u%s", prefix, type, n, who);
    else
        snprintf(buf, len, "%s_%s%s", prefix, type, who);
}

void fiolog_hist_line(FILE *out, uint64_t time_ms, int ddir, uint64_t bs, const struct hist *h,
                      uint32_t coarseness)
{
    uint32_t stride = 1u << coarseness;
    uint64_t top = 0;   /* fio's last bin: everything from it up */

    fprintf(out, "%llu, %d, %llu", (unsigned long long)time_ms, ddir, (unsigned long long)bs);
    for (unsigned i = FIOLOG_PLAT_NR - 1; i < HIST_NBUCKETS; i++)
        top = sat_add_u64(top, h->bucket[i]);
    /* fio's loop: groups of stride bins from 0, then the last stride bins
     * (overlapping the previous group when stride does not divide 1856) */
    for (uint32_t j = 0, last = 0; !last; j += stride) {
        uint64_t s = 0;

        last = j + stride >= FIOLOG_PLAT_NR;
        if (last)
            j = FIOLOG_PLAT_NR - stride;
        for (uint32_t b = j; b < j + stride; b++)
            s = sat_add_u64(s, b == FIOLOG_PLAT_NR - 1 ? top : h->bucket[b]);
        fprintf(out, ", %llu%s", (unsigned long long)s, last ? "\n" : "");
    }
}

static void fail(struct fiolog *fl, const char *path, int e)
{
    if (fl->err)
        return;
    fl->err = -e;
    snprintf(fl->errtext, sizeof(fl->errtext), "%s: %s", path, strerror(e));
}

/* A log opened for appending or truncated; NULL with errno, or with
 * *special set for a FIFO or socket.  O_NONBLOCK: a FIFO nobody reads would
 * block open(2), and the coordinator's loop with it, for ever (deaf to
 * signals); a FIFO or socket is refused either way, as its reader could
 * stall every later write.  Devices (/dev/null) are written as files. */
static FILE *open_log(const char *path, int append, int *special)
{
    struct stat st;
    FILE *f;
    int fd, e;

    *special = 0;
    if (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        *special = 1;
        return NULL;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        *special = 1;     /* made a FIFO between the stat and the open */
        close(fd);
        return NULL;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, append ? "a" : "w"))) {
        e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    return f;
}

static FILE *open_file(struct fiolog *fl, const struct phase_log *pl, int agent, enum ftype t,
                       const char *mode)
{
    char path[PLAN_LOG_PREFIX_MAX + 96];
    FILE *f;
    int special;

    fiolog_name(path, sizeof(path), plan_log_prefix(&pl->log, ftype_key[t], pl->name), agent,
                ftype_name[t], pl->n, pl->log.per_job_logs);
    f = open_log(path, mode[0] == 'a', &special);
    if (!f && special) {
        if (!fl->err) {
            fl->err = -EINVAL;
            snprintf(fl->errtext, sizeof(fl->errtext), "%s: not a regular file", path);
        }
    } else if (!f) {
        fail(fl, path, errno);
    }
    return f;
}

static int close_file(struct fiolog *fl, FILE *f)
{
    int bad = ferror(f);

    if (fclose(f) != 0 || bad) {
        if (!fl->err) {
            fl->err = -EIO;
            snprintf(fl->errtext, sizeof(fl->errtext), "a log file: write failed");
        }
        return -EIO;
    }
    return 0;
}

static int wants(const struct phase_log *pl, enum ftype t)
{
    return (pl->log.mask >> ftype_key[t]) & 1;
}

static void write_value_line(FILE *f, const struct phase_log *pl, uint64_t t_ms, uint64_t v, int ddir)
{
    if (pl->log.log_offset)
        fprintf(f, "%llu, %llu, %d, 0, 0, 0\n", (unsigned long long)t_ms, (unsigned long long)v, ddir);
    else
        fprintf(f, "%llu, %llu, %d, 0, 0\n", (unsigned long long)t_ms, (unsigned long long)v, ddir);
}

static void flush_window(struct fiolog *fl, const struct phase_log *pl, int agent, struct lstream *st,
                         uint64_t t_ms)
{
    FILE *f = NULL;

    st->win_open = 0;
    for (int d = 0; d < 2; d++) {
        if (!st->win[d].count)
            continue;
        hist_init(fl->scratch);
        hist_rec_sum(&st->win[d], fl->scratch);
        hist_rec_clear(&st->win[d]);
        if (!f && !(f = open_file(fl, pl, agent, F_HIST, "a")))
            return;
        fiolog_hist_line(f, t_ms, d, pl->bs, fl->scratch, pl->log.hist_coarseness);
    }
    if (f)
        close_file(fl, f);
}

/* Write the held-back interval as ending at end_ms. */
static void emit(struct fiolog *fl, const struct phase_log *pl, int agent, struct lstream *st,
                 uint64_t end_ms, int last)
{
    uint64_t start_ms = (uint64_t)st->k * fl->interval_ms;
    uint64_t span = end_ms > start_ms ? end_ms - start_ms : 1;
    uint32_t m = pl->log.hist_msec ? pl->log.hist_msec / fl->interval_ms : 1;

    for (enum ftype t = F_BW; t <= F_CLAT; t++) {
        FILE *f;

        if (!wants(pl, t) || !(f = open_file(fl, pl, agent, t, "a")))
            continue;
        for (int d = 0; d < 2; d++) {
            const struct dirsum *ds = &st->d[d];

            if (!(d ? pl->writes : pl->reads))
                continue;
            if (t == F_BW)
                write_value_line(f, pl, end_ms, ds->bytes * 1000 / span / 1024, d);
            else if (t == F_IOPS)
                write_value_line(f, pl, end_ms, ds->ok * 1000 / span, d);
            else if (ds->n[t - F_LAT])   /* fio logs latency only for windows with samples */
                write_value_line(f, pl, end_ms, pl->log.log_max_value ? ds->max[t - F_LAT]
                                 : (ds->sum[t - F_LAT] + ds->n[t - F_LAT] / 2) / ds->n[t - F_LAT], d);
        }
        close_file(fl, f);
    }
    st->has = 0;
    if (wants(pl, F_HIST) && st->win_open && (last || (st->k + 1 - st->win_first) >= m))
        flush_window(fl, pl, agent, st, end_ms);
}

static void dirsum_add(struct dirsum *a, const struct dirsum *b)
{
    a->ok = sat_add_u64(a->ok, b->ok);
    a->bytes = sat_add_u64(a->bytes, b->bytes);
    for (int i = 0; i < 2; i++) {
        a->n[i] = sat_add_u64(a->n[i], b->n[i]);
        a->sum[i] = sat_add_u64(a->sum[i], b->sum[i]);
        if (b->n[i] && b->max[i] > a->max[i])
            a->max[i] = b->max[i];
    }
}

/* c += the read and write figures o (hist: keep the clat histograms). */
static void contrib_add(struct contrib *c, const struct op_stats *const o[2], int hist)
{
    for (int d = 0; d < 2; d++) {
        const struct hist *h = clat_of(o[d]);
        struct dirsum x = {
            .ok = result_ok_count(o[d]->ops, o[d]->errors), .bytes = o[d]->bytes,
            .n = { o[d]->lat.count, h->count }, .sum = { o[d]->lat.sum_ns, h->sum_ns },
            .max = { o[d]->lat.max_ns, h->max_ns },
        };

        dirsum_add(&c->d[d], &x);
        if (hist && h->count)
            hist_rec_add(&c->clat[d], h);
    }
}

static void contrib_init(struct contrib *c)
{
    memset(c->d, 0, sizeof(c->d));
    for (int d = 0; d < 2; d++)
        hist_rec_init(&c->clat[d]);
}

static void contrib_free(struct contrib *c)
{
    for (int d = 0; d < 2; d++)
        hist_rec_free(&c->clat[d]);
}

/* Interval k's figures c into stream st (c's histograms are drained). */
static void feed(struct fiolog *fl, const struct phase_log *pl, int agent, struct lstream *st,
                 uint32_t k, struct contrib *c)
{
    if (st->has && k != st->k)
        emit(fl, pl, agent, st, ((uint64_t)st->k + 1) * fl->interval_ms, 0);
    if (!st->has) {
        memset(st->d, 0, sizeof(st->d));
        st->has = 1;
        st->k = k;
    }
    if (!st->win_open) {
        st->win_open = 1;
        st->win_first = k;
    }
    for (int d = 0; d < 2; d++) {
        dirsum_add(&st->d[d], &c->d[d]);
        if (wants(pl, F_HIST) && c->clat[d].count) {
            hist_init(fl->scratch);
            hist_rec_sum(&c->clat[d], fl->scratch);
            hist_rec_clear(&c->clat[d]);
            hist_rec_add(&st->win[d], fl->scratch);
        }
    }
}

/* feed from dense read and write figures */
static void feed_ops(struct fiolog *fl, const struct phase_log *pl, int agent, struct lstream *st,
                     uint32_t k, const struct op_stats *const o[2])
{
    struct contrib c;

    contrib_init(&c);
    contrib_add(&c, o, wants(pl, F_HIST));
    feed(fl, pl, agent, st, k, &c);
    contrib_free(&c);
}

/* The stream ended after dur_ns (0: unknown): its held interval is the last. */
static void finish(struct fiolog *fl, const struct phase_log *pl, int agent, struct lstream *st,
                   uint64_t dur_ns)
{
    uint64_t dur_ms = (dur_ns + 500000) / 1000000;

    if (st->has) {
        uint64_t lo = (uint64_t)st->k * fl->interval_ms, hi = lo + fl->interval_ms;
        emit(fl, pl, agent, st, dur_ms > lo && dur_ms < hi ? dur_ms : hi, 1);
    } else if (st->win_open) {
        flush_window(fl, pl, agent, st, dur_ms);
    }
    st->win_open = 0;
}

static void lstream_init(struct lstream *st)
{
    memset(st, 0, sizeof(*st));
    for (int d = 0; d < 2; d++)
        hist_rec_init(&st->win[d]);
}

static void lstream_free(struct lstream *st)
{
    for (int d = 0; d < 2; d++)
        hist_rec_free(&st->win[d]);
}

/* What a unit holds while its phase runs (at its end, or the log's). */
static void unit_free(const struct fiolog *fl, struct phase_log *pl)
{
    for (uint32_t a = 0; pl->agent && a < fl->nagents; a++)
        lstream_free(&pl->agent[a]);
    free(pl->agent);
    pl->agent = NULL;
    lstream_free(&pl->merged);
    for (uint32_t i = 0; i < pl->npend; i++)
        contrib_free(&pl->pend[i].c);
    free(pl->pend);
    pl->pend = NULL;
    pl->npend = 0;
}

/* The running phase's units: [*lo, *hi). */
static void phase_units(const struct fiolog *fl, uint32_t phase, uint32_t *lo, uint32_t *hi)
{
    *lo = 0;
    while (*lo < fl->nu && fl->u[*lo].phase < phase)
        (*lo)++;
    *hi = *lo;
    while (*hi < fl->nu && fl->u[*hi].phase == phase)
        (*hi)++;
}

/* The current phase's units: *u the first, and their count; 0 when phase
 * is not the current one, or agent (NO_AGENT: none) not one of the run's. */
#define NO_AGENT UINT32_MAX
static uint32_t cur_units(struct fiolog *fl, uint32_t phase, uint32_t agent, struct phase_log **u)
{
    uint32_t lo, hi;
    *u = fl->u;
    if (fl->cur < 0 || phase != (uint32_t)fl->cur || (agent != NO_AGENT && agent >= fl->nagents))
        return 0;
    phase_units(fl, phase, &lo, &hi);
    *u += lo;
    return hi - lo;
}

static void on_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct fiolog *fl = arg;
    uint32_t lo, hi;

    (void)r;
    phase_units(fl, phase, &lo, &hi);
    fl->cur = lo < hi ? (int)phase : -1;
    for (uint32_t i = lo; i < hi; i++) {
        struct phase_log *pl = &fl->u[i];

        pl->agent = xcalloc(fl->nagents ? fl->nagents : 1, sizeof(*pl->agent));
        for (uint32_t a = 0; a < fl->nagents; a++)
            lstream_init(&pl->agent[a]);
        lstream_init(&pl->merged);
    }
}

int fiolog_create_files(struct fiolog *fl)
{
    for (uint32_t i = 0; i < fl->nu; i++) {
        const struct phase_log *pl = &fl->u[i];

        for (int a = -1; a < (int)fl->nagents; a++)
            for (enum ftype t = F_BW; t < F__COUNT; t++) {
                FILE *f;
                if (!wants(pl, t) || !pl->truncate[t])
                    continue;
                if (!(f = open_file(fl, pl, a, t, "w")))
                    return fl->err;
                close_file(fl, f);
            }
    }
    return fl->err;
}

static void on_agent_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                              uint32_t k, const struct op_set *s)
{
    struct fiolog *fl = arg;
    const struct op_stats *o[2] = { &s->op[OP_READ], &s->op[OP_WRITE] };
    struct phase_log *u;
    uint32_t n = cur_units(fl, phase, agent, &u);

    (void)r;
    if (!n)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (u[i].clone < 0)
            feed_ops(fl, &u[i], (int)agent, &u[i].agent[agent], k, o);
    fl->had_ops[agent] = !op_set_empty(s);
}

/* The pending interval k of a clone unit, made when missing. */
static struct pend *pend_of(struct phase_log *pl, uint32_t k)
{
    for (uint32_t i = 0; i < pl->npend; i++)
        if (pl->pend[i].k == k)
            return &pl->pend[i];
    pl->pend = xrealloc(pl->pend, (size_t)(pl->npend + 1) * sizeof(*pl->pend));
    pl->pend[pl->npend].k = k;
    contrib_init(&pl->pend[pl->npend].c);
    return &pl->pend[pl->npend++];
}

static void on_agent_interval_clones(void *arg, const struct run_result *r, uint32_t phase,
                                     uint32_t agent, uint32_t k, const struct clone_set *cs)
{
    struct fiolog *fl = arg;
    struct phase_log *u;
    uint32_t n = cur_units(fl, phase, agent, &u);

    (void)r;
    if (!n)
        return;
    /* ops without their threads' figures (an agent older than per-clone
     * logs, or figures too large for a frame): the clone files miss them,
     * which is said, never hidden */
    if (!cs->n && fl->had_ops[agent] && u[0].clone >= 0 && !fl->warntext[0])
        snprintf(fl->warntext, sizeof(fl->warntext), "fio logs: agent %u sent interval %u of phase %u "
                 "without its threads' figures (an older agent, or past the frame limit): its ops are "
                 "missing from the per-clone log files", agent, k, phase);
    for (uint32_t i = 0; i < n; i++) {
        struct phase_log *pl = &u[i];
        const struct clone_stats *e;
        const struct op_stats *o[2];

        if (pl->clone < 0 || !(e = clone_set_find(cs, (uint32_t)pl->job, (uint32_t)pl->clone)))
            continue;
        o[0] = &e->stats->op[OP_READ];
        o[1] = &e->stats->op[OP_WRITE];
        feed_ops(fl, pl, (int)agent, &pl->agent[agent], k, o);
        contrib_add(&pend_of(pl, k)->c, o, wants(pl, F_HIST));
    }
}

/* Feed a clone unit's merged stream with its pending interval k (an
 * interval no agent sent figures for feeds nothing: no line). */
static void feed_pending(struct fiolog *fl, struct phase_log *pl, uint32_t k)
{
    for (uint32_t i = 0; i < pl->npend; i++) {
        if (pl->pend[i].k != k)
            continue;
        feed(fl, pl, -1, &pl->merged, k, &pl->pend[i].c);
        contrib_free(&pl->pend[i].c);
        pl->pend[i] = pl->pend[--pl->npend];
        return;
    }
}

static void on_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct fiolog *fl = arg;
    struct phase_log *u;

    (void)r;
    for (uint32_t i = 0, n = cur_units(fl, phase, NO_AGENT, &u); i < n; i++)
        if (u[i].clone >= 0)
            feed_pending(fl, &u[i], k);
}

static void on_agent_phase_done(void *arg, const struct run_result *r, uint32_t phase, uint32_t agent,
                                const struct agent_phase *ap)
{
    struct fiolog *fl = arg;
    struct phase_log *u;

    (void)r;
    for (uint32_t i = 0, n = cur_units(fl, phase, agent, &u); i < n; i++)
        finish(fl, &u[i], (int)agent, &u[i].agent[agent], ap->duration_ns);
}

static void on_phase_done(void *arg, const struct run_result *r, uint32_t phase)
{
    struct fiolog *fl = arg;
    struct phase_log *u;
    uint32_t n = cur_units(fl, phase, NO_AGENT, &u);

    for (uint32_t i = 0; i < n; i++) {
        const struct phase_result *ph = &r->phases[phase];
        struct phase_log *pl = &u[i];

        for (uint32_t a = 0; a < fl->nagents; a++)   /* lost ones, or no phase-done */
            finish(fl, pl, (int)a, &pl->agent[a], ph->agents[a].duration_ns);
        if (pl->clone < 0) {
            for (uint32_t k = 0; k < ph->nintervals; k++) {
                const struct op_stats *o[2];

                /* two scratch buffers: result_interval_op's pointer lives until the next call */
                o[0] = result_interval_op(r, phase, k, OP_READ, fl->ops[0]);
                o[1] = result_interval_op(r, phase, k, OP_WRITE, fl->ops[1]);
                feed_ops(fl, pl, -1, &pl->merged, k, o);
            }
        }
        /* a clone's intervals never completed (a run cut short): in order */
        while (pl->npend) {
            uint32_t first = 0;
            for (uint32_t p = 1; p < pl->npend; p++)
                if (pl->pend[p].k < pl->pend[first].k)
                    first = p;
            feed_pending(fl, pl, pl->pend[first].k);
        }
        finish(fl, pl, -1, &pl->merged, ph->duration_ns);
        unit_free(fl, pl);
    }
    fl->cur = -1;
}

static void on_run_end(void *arg, const struct run_result *r)
{
    struct fiolog *fl = arg;

    /* a run cut short: what arrived of the running phase is logged */
    if (fl->cur >= 0)
        on_phase_done(arg, r, (uint32_t)fl->cur);
}

/* A unit of phase i for job js (fio's thread number n). */
static struct phase_log *add_unit(struct fiolog *fl, uint32_t i, const struct job_spec *js, int job,
                                  int clone, uint32_t n)
{
    struct phase_log *pl;

    fl->u = xrealloc(fl->u, (size_t)(fl->nu + 1) * sizeof(*fl->u));
    pl = &fl->u[fl->nu++];
    memset(pl, 0, sizeof(*pl));
    pl->phase = i;
    pl->job = job;
    pl->clone = clone;
    pl->log = js->log;
    snprintf(pl->name, sizeof(pl->name), "%s", js->name);
    pl->n = n;
    pl->reads = rw_mode_reads(js->rw);
    pl->writes = rw_mode_writes(js->rw);
    pl->bs = js->bs;
    return pl;
}

int fiolog_phase_per_clone(const struct phase *ph)
{
    uint64_t threads = 0;
    int logs = 0;

    for (uint32_t j = 0; j < ph->njobs; j++) {
        threads += ph->jobs[j].numjobs ? ph->jobs[j].numjobs : 1;
        logs |= ph->jobs[j].log.mask != 0;
    }
    /* agents report each thread of a phase this small (agent/phase_clones.h);
     * one thread's file is the phase's, from the result's exact intervals */
    return logs && threads >= 2 && threads <= CLONE_SET_MAX;
}

struct fiolog *fiolog_new(const struct plan *p, uint32_t nagents, uint32_t interval_ms)
{
    struct fiolog *fl;
    uint32_t n = 0;

    if (!fiolog_plan_wants(p))
        return NULL;
    fl = xcalloc(1, sizeof(*fl));
    fl->nphases = p->nphases;
    fl->nagents = nagents;
    fl->interval_ms = interval_ms ? interval_ms : 1000;
    fl->cur = -1;
    fl->had_ops = xcalloc(nagents ? nagents : 1, 1);
    for (int d = 0; d < 2; d++)
        fl->ops[d] = xmalloc(sizeof(*fl->ops[d]));
    fl->scratch = xmalloc(sizeof(*fl->scratch));
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *ph = &p->phases[i];
        int per_clone = fiolog_phase_per_clone(ph), phase_unit = 0;

        for (uint32_t j = 0; j < ph->njobs; j++) {
            const struct job_spec *js = &ph->jobs[j];
            uint32_t first = n + 1, clones = js->numjobs ? js->numjobs : 1;

            /* fio numbers its logs by thread: every job's clones count */
            n += clones;     /* the plan caps jobs and numjobs */
            if (!js->log.mask)
                continue;
            if (per_clone) {
                for (uint32_t c = 0; c < clones; c++)
                    add_unit(fl, i, js, (int)j, (int)c, first + c);
            } else if (!phase_unit) {
                add_unit(fl, i, js, (int)j, -1, first);
                phase_unit = 1;
            }
        }
    }
    for (uint32_t u = 0; u < fl->nu; u++) {
        struct phase_log *pl = &fl->u[u];

        for (enum ftype t = F_BW; t < F__COUNT; t++) {
            const char *mine = plan_log_prefix(&pl->log, ftype_key[t], pl->name);

            if (!wants(pl, t))
                continue;
            pl->truncate[t] = 1;
            /* per_job_logs=0: the units of one prefix share the file, made by the first */
            for (uint32_t e = 0; e < u && !pl->log.per_job_logs; e++)
                if (!fl->u[e].log.per_job_logs && wants(&fl->u[e], t) &&
                    !strcmp(plan_log_prefix(&fl->u[e].log, ftype_key[t], fl->u[e].name), mine))
                    pl->truncate[t] = 0;
        }
    }
    return fl;
}

int fiolog_free(struct fiolog *fl)
{
    int rc;

    if (!fl)
        return 0;
    rc = fl->err;
    for (uint32_t u = 0; u < fl->nu; u++)
        unit_free(fl, &fl->u[u]);
    for (int d = 0; d < 2; d++)
        free(fl->ops[d]);
    free(fl->scratch);
    free(fl->u);
    free(fl->had_ops);
    free(fl);
    return rc;
}

const char *fiolog_error(const struct fiolog *fl)
{
    return fl ? fl->errtext : "";
}

const char *fiolog_warning(const struct fiolog *fl)
{
    return fl ? fl->warntext : "";
}

struct run_observer fiolog_observer(struct fiolog *fl)
{
    struct run_observer o;

    memset(&o, 0, sizeof(o));
    o.phase_start = on_phase_start;
    o.interval = on_interval;
    o.agent_interval = on_agent_interval;
    o.agent_interval_clones = on_agent_interval_clones;
    o.agent_phase_done = on_agent_phase_done;
    o.phase_done = on_phase_done;
    o.run_end = on_run_end;
    o.arg = fl;
    return o;
}
