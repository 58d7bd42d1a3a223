/* plan: the workload model (phases of jobs) and the rules a job must obey.
 *
 * Design: a plan is two levels of plain arrays.  Plans are small (at most a
 * few hundred jobs) and built once, so the arrays simply grow by one element
 * per append; no capacity bookkeeping is worth the extra field on the wire.
 *
 * job_spec_validate is the one place that knows what a runnable job is.  The
 * parser calls it when a job section or command line ends, and the agent can
 * call it again on a plan that came over the wire, so it trusts nothing: it
 * also checks that the fixed-size strings are terminated and the enum is in
 * range.  Messages start with "job '<name>': " so every caller can print them
 * as they are, with a file name in front when there is one. */
#include "common/plan.h"
#include "common/wbuf.h"
#include "common/rotate.h"
#include "common/coherence.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/engine_table.h"
#include "common/names.h"
#include "common/stats.h"
#include "common/plan_verify.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "common/why.h"
#include "common/zones.h"

/* fio's words, indexed by enum rw_mode. */
static const char *const rw_names[RW__COUNT] = {
    [RW_READ] = "read",
    [RW_WRITE] = "write",
    [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite",
    [RW_RW] = "rw",
    [RW_RANDRW] = "randrw",
    [RW_METADATA] = "metadata",
    [RW_COHERENCE] = "coherence",
};

static const char *const rate_process_names[] = {
    [RATE_LINEAR] = "linear", [RATE_POISSON] = "poisson",
};
static const char *const rand_dist_names[] = {
    [DIST_RANDOM] = "random", [DIST_ZIPF] = "zipf", [DIST_PARETO] = "pareto",
    [DIST_NORMAL] = "normal", [DIST_ZONED] = "zoned", [DIST_ZONED_ABS] = "zoned_abs",
};
static const char *const rw_sequencer_names[] = {
    [RWSEQ_SEQUENTIAL] = "sequential", [RWSEQ_IDENTICAL] = "identical",
};
static const char *const file_service_names[] = {
    [FSERV_ROUNDROBIN] = "roundrobin", [FSERV_SEQUENTIAL] = "sequential",
    [FSERV_RANDOM] = "random",
};

NAMES_LOOKUPS(rate_process_name, rate_process_from_name, enum rate_process, rate_process_names,
              NELEM(rate_process_names))
NAMES_LOOKUPS(rw_sequencer_name, rw_sequencer_from_name, enum rw_sequencer, rw_sequencer_names,
              NELEM(rw_sequencer_names))
NAMES_LOOKUPS(file_service_name, file_service_from_name, enum file_service, file_service_names,
              NELEM(file_service_names))

const char *rand_dist_name(enum rand_dist d)
{
    return names_word(rand_dist_names, NELEM(rand_dist_names), d);
}

int rand_dist_from_name(const char *s)
{
    if (s && strcmp(s, "gauss") == 0)
        return DIST_NORMAL;
    return names_index(rand_dist_names, NELEM(rand_dist_names), s);
}

/* fio's bounds: zipf's theta differs from 1.0, 0 < pareto's h < 1, 0 <=
 * normal's deviation < 100 (percent) */
const char *rand_dist_param_bad(enum rand_dist d, double p)
{
    if (d == DIST_ZIPF && (!(p > 0) || p == 1.0))
        return "zipf theta must be > 0 and not 1.0";
    if (d == DIST_PARETO && !(p > 0 && p < 1))
        return "pareto h must be > 0 and < 1";
    if (d == DIST_NORMAL && !(p >= 0 && p < 100))
        return "normal deviation must be >= 0 and < 100";
    return NULL;
}

const struct plan_enum plan_fallocate_words[] = {
    { "native", FALLOC_NATIVE, 0 }, { "none", FALLOC_NONE, 0 }, { "posix", FALLOC_POSIX, 0 },
    { "keep", FALLOC_KEEP, 0 }, { "truncate", FALLOC_TRUNCATE, 0 },
    { "0", FALLOC_NONE, 1 }, { "1", FALLOC_POSIX, 1 }, { NULL, 0, 0 },
};
const struct plan_enum plan_fadvise_words[] = {
    { "0", FADV_OFF, 0 }, { "1", FADV_BY_PATTERN, 0 }, { "random", FADV_RANDOM_HINT, 0 },
    { "sequential", FADV_SEQ_HINT, 0 }, { NULL, 0, 0 },
};
const struct plan_enum plan_coh_never_words[] = {
    { "fail", 0, 0 }, { "warn", 1, 0 }, { NULL, 0, 0 },
};
const struct plan_enum plan_dedupe_words[] = {
    { "repeat", WBUF_DEDUPE_REPEAT, 0 }, { "working_set", WBUF_DEDUPE_WORKING_SET, 0 }, { NULL, 0, 0 },
};

const char *plan_fallocate_name(uint32_t m)
{
    for (const struct plan_enum *w = plan_fallocate_words; w->name; w++)
        if (w->value == m && !w->alias)
            return w->name;
    return NULL;
}

int plan_md_op_valid(uint32_t op)
{
    return op >= OP_CREATE && op <= OP_RMDIR;     /* OP_SYNC is a data job's */
}

void job_spec_default(struct job_spec *j)
{
    memset(j, 0, sizeof(*j));
    j->rw = RW_READ;
    j->rwmixread = 50;
    j->bs = 4096;
    j->nrfiles = 1;
    j->numjobs = 1;
    j->iodepth = 1;
    j->loops = 1;
    j->randrepeat = 1;
    j->invalidate = 1;
    j->scramble_buffers = -1;
    j->refill_buffers = -1;
    j->rate_process = RATE_LINEAR;
    j->random_distribution = DIST_RANDOM;
    j->file_service_type = FSERV_ROUNDROBIN;
    j->op_deadline_ns = 60 * NS_PER_SEC;
    j->server_timeout_ns = 30 * NS_PER_SEC;
    snprintf(j->ioengine, sizeof(j->ioengine), "%s", "psync");
    plan_log_default(&j->log);
    snprintf(j->coherence_close, sizeof(j->coherence_close), "%s", "close");
    snprintf(j->coherence_poll, sizeof(j->coherence_poll), "%s", "read");
    j->coherence_period_ns = 50 * NS_PER_SEC / 1000;
    j->coherence_deadline_ns = 5 * NS_PER_SEC;
    j->coherence_poll_interval_ns = 100 * 1000;
}

const char *rw_mode_name(enum rw_mode rw)
{
    const char *w = names_word(rw_names, RW__COUNT, rw);
    return w ? w : "?";
}

int rw_mode_from_name(const char *s)
{
    if (s && strcmp(s, "readwrite") == 0)     /* fio's other spelling of rw */
        return RW_RW;
    return names_index(rw_names, RW__COUNT, s);
}

int rw_mode_reads(enum rw_mode rw)
{
    return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RW || rw == RW_RANDRW;
}

int rw_mode_writes(enum rw_mode rw)
{
    return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RW || rw == RW_RANDRW;
}

/* fio lays a file out with data (extend_file's new_layout) for any job
 * that reads, whatever its rwmixread (td_read: rw=rw and randrw read too,
 * rwmixread=0 included), and for a write job with overwrite=1; other jobs
 * only size their files (fallocate=).  Without data a read meets
 * unwritten extents or holes the file system answers without any I/O.
 * verify_only lays out nothing: a lost file must read as lost. */
int plan_layout_fills(const struct job_spec *j)
{
    if (j->rw == RW_METADATA || j->rw == RW_COHERENCE || j->verify_only)
        return 0;
    return rw_mode_reads(j->rw) || (rw_mode_writes(j->rw) && j->overwrite);
}

int rw_mode_random(enum rw_mode rw)
{
    return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

void plan_init(struct plan *p)
{
    *p = (struct plan){ .phases = NULL, .warnings = NULL };
}

void plan_free(struct plan *p)
{
    for (uint32_t i = 0; i < p->nphases; i++)
        free(p->phases[i].jobs);
    free(p->phases);
    for (uint32_t i = 0; i < p->nwarnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    plan_init(p);
}

void plan_add_warning(struct plan *p, const char *msg)
{
    p->warnings = xrealloc(p->warnings, (p->nwarnings + 1) * sizeof(*p->warnings));
    p->warnings[p->nwarnings++] = xstrdup(msg);
}

/* Limits (PLAN_MAX_PHASES, PLAN_MAX_JOBS) are the parser's and the wire
 * decoder's to enforce with a proper message; here a job is always kept,
 * because silently starting a new phase would change what runs together. */
void plan_add_job(struct plan *p, const struct job_spec *j)
{
    /* a sweep's load point is a phase of its own: nothing joins it */
    if (p->nphases == 0 || j->stonewall || p->phases[p->nphases - 1].jobs[0].sweep.dim) {
        p->phases = xrealloc(p->phases, (p->nphases + 1) * sizeof(*p->phases));
        struct phase *ph = &p->phases[p->nphases++];
        memset(ph, 0, sizeof(*ph));
        if (j->sweep.dim && j->sweep.nvalues)         /* a sweep's point: JOB@VALUE */
            snprintf(ph->name, sizeof(ph->name), "%.40s@%llu", j->name,
                     (unsigned long long)j->sweep.values[j->sweep.point]);
        else if (j->sweep.dim)                        /* a search's: named when it runs */
            snprintf(ph->name, sizeof(ph->name), "%.40s@point%u", j->name, j->sweep.point + 1);
        else
            snprintf(ph->name, sizeof(ph->name), "%.*s", PLAN_NAME_MAX - 1, j->name);
    }
    struct phase *ph = &p->phases[p->nphases - 1];
    ph->jobs = xrealloc(ph->jobs, (ph->njobs + 1) * sizeof(*ph->jobs));
    ph->jobs[ph->njobs++] = *j;
}

/* dst is overwritten, not freed: pass an initialised-empty or fresh plan. */
void plan_copy(struct plan *dst, const struct plan *src)
{
    plan_init(dst);
    for (uint32_t i = 0; i < src->nwarnings; i++)
        plan_add_warning(dst, src->warnings[i]);
    if (src->nphases == 0)
        return;
    dst->phases = xcalloc(src->nphases, sizeof(*dst->phases));
    dst->nphases = src->nphases;
    for (uint32_t i = 0; i < src->nphases; i++) {
        const struct phase *s = &src->phases[i];
        struct phase *d = &dst->phases[i];
        *d = *s;
        d->jobs = NULL;
        if (s->njobs) {
            d->jobs = xmalloc(s->njobs * sizeof(*d->jobs));
            memcpy(d->jobs, s->jobs, s->njobs * sizeof(*d->jobs));
        }
    }
}

/* Any job without a size reaches the agents only when it names files
 * (plan_parse.c's job_finish says which namings count): the agent sizes it
 * from them, or refuses when one is missing. */
int job_sized_by_file(const struct job_spec *j)
{
    return j->rw != RW_METADATA && j->size == 0 && j->filesize == 0;
}

uint64_t job_file_size(const struct job_spec *j)
{
    if (j->filesize)
        return j->filesize;
    return j->nrfiles ? j->size / j->nrfiles : j->size;
}

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

int plan_job_fail(char *err, size_t errlen, const struct job_spec *j, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "job '%s': ", j->name);
        if (n >= 0 && (size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -EINVAL;
}

void job_dir_bs(const struct job_spec *j, int write, struct job_bs *out)
{
    out->bs = write && j->bs_w ? j->bs_w : j->bs;
    out->lo = write && j->bsrange_w_min ? j->bsrange_w_min : j->bsrange_min;
    out->hi = write && j->bsrange_w_min ? j->bsrange_w_max : j->bsrange_max;
    out->nsplit = write && j->nbssplit_w ? j->nbssplit_w : j->nbssplit;
    out->split = write && j->nbssplit_w ? j->bssplit_w : j->bssplit;
    if (out->nsplit > PLAN_MAX_BSSPLIT)
        out->nsplit = PLAN_MAX_BSSPLIT;
}

uint64_t job_max_bs(const struct job_spec *j)
{
    uint64_t m = 0;
    for (int w = 0; w < 2; w++) {
        struct job_bs b;
        job_dir_bs(j, w, &b);
        if (b.bs > m)
            m = b.bs;
        if (b.hi > m)
            m = b.hi;
        for (uint32_t i = 0; i < b.nsplit; i++)
            if (b.split[i].bs > m)
                m = b.split[i].bs;
    }
    return m;
}

/* One direction's bsrange and bssplit (write: the writes' twins, their
 * messages saying so): a range 0 < min <= max, entries well formed and
 * totalling 100 percent. */
static int validate_bs(const struct job_spec *j, int write, char *err, size_t errlen)
{
    const char *dir = write ? " (writes)" : "";
    uint64_t lo = write ? j->bsrange_w_min : j->bsrange_min, hi = write ? j->bsrange_w_max : j->bsrange_max;
    const struct bssplit_entry *e = write ? j->bssplit_w : j->bssplit;
    uint32_t n = write ? j->nbssplit_w : j->nbssplit, sum = 0;
    if ((lo || hi) && (!lo || lo > hi))
        return plan_job_fail(err, errlen, j, "bsrange%s must be min-max with 0 < min <= max", dir);
    if (n > PLAN_MAX_BSSPLIT)
        return plan_job_fail(err, errlen, j, "bssplit%s has more than %d entries", dir, PLAN_MAX_BSSPLIT);
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].bs == 0 || e[i].pct > 100)
            return plan_job_fail(err, errlen, j, "bssplit%s entry %" PRIu32 " is invalid", dir, i + 1);
        sum += e[i].pct;
    }
    if (n && sum != 100)
        return plan_job_fail(err, errlen, j, "bssplit%s percentages add up to %" PRIu32 ", not 100", dir, sum);
    return 0;
}

/* The per-direction values and sequence modifiers (fio's r,w lists, rw=X:N,
 * zoned distributions). */
static int validate_dirs(const struct job_spec *j, char *err, size_t errlen)
{
    char why[160];
    if (validate_bs(j, 1, err, errlen))
        return -EINVAL;
    if (j->rate_w_iops > PLAN_MAX_RATE_IOPS)
        return plan_job_fail(err, errlen, j, "rate_iops (writes)=%" PRIu64 " exceeds %" PRIu64
                    " ops/s (one per ns)", j->rate_w_iops, PLAN_MAX_RATE_IOPS);
    if (j->rw_seq_nr > 1 && !rw_mode_random(j->rw))
        return plan_job_fail(err, errlen, j, "rw=%s:N (a new random offset every N ops) needs a random rw mode",
                    rw_mode_name(j->rw));
    if (j->rw_seq_bytes && (rw_mode_random(j->rw) || j->rw == RW_METADATA))
        return plan_job_fail(err, errlen, j, "rw=%s:SIZE (holes between ops) needs a sequential rw mode",
                    rw_mode_name(j->rw));
    if (!rw_sequencer_name((enum rw_sequencer)j->rw_sequencer))
        return plan_job_fail(err, errlen, j, "bad rw_sequencer %u", (unsigned)j->rw_sequencer);
    if (j->random_distribution == DIST_ZONED || j->random_distribution == DIST_ZONED_ABS) {
        struct zone_list r, w;
        if (zones_parse(j->zones, j->random_distribution == DIST_ZONED_ABS, &r, &w, why, sizeof why))
            return plan_job_fail(err, errlen, j, "random_distribution=%s:%s: %s",
                        rand_dist_name(j->random_distribution), j->zones, why);
    } else if (j->zones[0]) {
        return plan_job_fail(err, errlen, j, "zones are only for random_distribution=zoned or zoned_abs");
    }
    return 0;
}

/* rw=coherence: its keys, and only with it. */
static int coherence_check(const struct job_spec *j, char *err, size_t errlen)
{
    char why[128];
    int coh = j->rw == RW_COHERENCE;

    if (!terminated(j->coherence_writers, sizeof j->coherence_writers) ||
        !terminated(j->coherence_close, sizeof j->coherence_close) ||
        !terminated(j->coherence_poll, sizeof j->coherence_poll))
        return plan_job_fail(err, errlen, j, "unterminated coherence_ key");
    if (!coh && j->coherence_writers[0])
        return plan_job_fail(err, errlen, j, "coherence_writers= requires rw=coherence");
    if (strcmp(j->coherence_close, "close") && strcmp(j->coherence_close, "fsync") &&
        strcmp(j->coherence_close, "none"))
        return plan_job_fail(err, errlen, j, "coherence_close must be close, fsync or none (got '%s')",
                    j->coherence_close);
    if (strcmp(j->coherence_poll, "read") && strcmp(j->coherence_poll, "stat"))
        return plan_job_fail(err, errlen, j, "coherence_poll must be read or stat (got '%s')", j->coherence_poll);
    if (j->coherence_period_ns == 0 || j->coherence_deadline_ns == 0 ||
        j->coherence_poll_interval_ns == 0)
        return plan_job_fail(err, errlen, j, "coherence_period, coherence_deadline and "
                    "coherence_poll_interval must be greater than 0");
    if (plan_agents_check(j->coherence_writers, why, sizeof why) || strchr(j->coherence_writers, '@'))
        return plan_job_fail(err, errlen, j, "coherence_writers=%s: agent indexes only (%s)", j->coherence_writers,
                    strchr(j->coherence_writers, '@') ? "no labels" : why);
    if (!coh)
        return 0;
    if (strcmp(j->ioengine, "psync") != 0)
        return plan_job_fail(err, errlen, j, "rw=coherence needs ioengine=psync (a kernel mount)");
    if (j->numjobs != 1 || j->nrfiles != 1 || j->filename_format[0] || strchr(j->filename, ':'))
        return plan_job_fail(err, errlen, j, "rw=coherence takes one file per writer: numjobs=1, nrfiles=1, "
                    "no filename_format or filename list");
    if (j->bs < COH_STAMP_LEN || j->bsrange_min || j->nbssplit)
        return plan_job_fail(err, errlen, j, "rw=coherence needs a fixed bs of at least %d bytes", COH_STAMP_LEN);
    if (j->size / j->bs > COH_GENS_MAX)
        return plan_job_fail(err, errlen, j, "rw=coherence: size / bs is %" PRIu64 " generations, more than %d",
                    j->size / j->bs, COH_GENS_MAX);
    if (j->rotate || j->time_based || j->rate_bps || j->rate_iops || j->verify || j->verify_only)
        return plan_job_fail(err, errlen, j, "rw=coherence takes no rotate, time_based, rate or verify "
                    "(its blocks carry their own stamp)");
    return 0;
}

/* write buffer contents (common/wbuf.h) */
static int validate_buffers(const struct job_spec *j, char *err, size_t errlen)
{
    if (j->buffer_compress_percentage > 100)
        return plan_job_fail(err, errlen, j, "buffer_compress_percentage must be 0..100 (got %" PRIu32 ")",
                    j->buffer_compress_percentage);
    if (j->dedupe_percentage > 100)
        return plan_job_fail(err, errlen, j, "dedupe_percentage must be 0..100 (got %" PRIu32 ")",
                    j->dedupe_percentage);
    if (j->buffer_compress_chunk > WBUF_CHUNK_MAX)
        return plan_job_fail(err, errlen, j, "buffer_compress_chunk must be at most 1g");
    /* below a few bytes the random and compressible runs round away
     * (chunk=1 is all zeros at any percentage) */
    if (j->buffer_compress_chunk && j->buffer_compress_chunk < WBUF_CHUNK_MIN)
        return plan_job_fail(err, errlen, j, "buffer_compress_chunk must be at least %u bytes (got %" PRIu32 ")",
                    WBUF_CHUNK_MIN, j->buffer_compress_chunk);
    if (j->fadvise_hint > FADV__MAX)
        return plan_job_fail(err, errlen, j, "bad fadvise_hint %" PRIu32, j->fadvise_hint);
    if (j->fallocate > FALLOC__MAX)
        return plan_job_fail(err, errlen, j, "bad fallocate %" PRIu32, j->fallocate);
    /* the libnfs engine has no fallocate: its files are sparse (native and
     * none), and a mode promising more is refused rather than ignored */
    if (engine_table_takes_url(j->ioengine) && j->fallocate != FALLOC_NATIVE && j->fallocate != FALLOC_NONE)
        return plan_job_fail(err, errlen, j, "fallocate=%s does not apply to ioengine=%s (its files are sparse: "
                    "use native or none)", plan_fallocate_name(j->fallocate), j->ioengine);
    if (j->buf_mode > WBUF_MODE_MAX)
        return plan_job_fail(err, errlen, j, "bad buf_mode %" PRIu32, j->buf_mode);
    if (j->dedupe_mode > WBUF_DEDUPE_MAX)
        return plan_job_fail(err, errlen, j, "bad dedupe_mode %" PRIu32, j->dedupe_mode);
    if (j->dedupe_working_set_percentage > 100)
        return plan_job_fail(err, errlen, j, "dedupe_working_set_percentage must be 0..100 (got %" PRIu32 ")",
                    j->dedupe_working_set_percentage);
    if (j->dedupe_percentage && j->dedupe_mode == WBUF_DEDUPE_WORKING_SET) {
        /* fio's rules for a pregenerated working set */
        uint32_t ws = j->dedupe_working_set_percentage ? j->dedupe_working_set_percentage
                                                       : WBUF_WORKING_SET_DEFAULT;
        if (job_sized_by_file(j) || j->size == 0)
            return plan_job_fail(err, errlen, j, "dedupe_mode=working_set requires size= (its pages are a share of it)");
        if (j->nrfiles != 1)
            return plan_job_fail(err, errlen, j, "dedupe_mode=working_set works on one file per job (nrfiles=%" PRIu32 ")",
                        j->nrfiles);
        if (ws + j->dedupe_percentage > 100)
            return plan_job_fail(err, errlen, j, "dedupe_percentage=%" PRIu32 " cannot be reached with "
                        "dedupe_working_set_percentage=%" PRIu32 " of the size held as unique pages "
                        "(their sum must be at most 100)", j->dedupe_percentage, ws);
    }
    return 0;
}

/* The fio-dialect extensions; job_spec_validate has checked the basics. */
static int validate_wider(const struct job_spec *j, char *err, size_t errlen)
{
    char why[160];
    const char *bad;
    int rc;
    if ((rc = validate_bs(j, 0, err, errlen)) < 0)
        return rc;
    if (j->loops < 1)
        return plan_job_fail(err, errlen, j, "loops must be at least 1");
    if (!rate_process_name(j->rate_process))
        return plan_job_fail(err, errlen, j, "bad rate_process %u", (unsigned)j->rate_process);
    if (!file_service_name(j->file_service_type))
        return plan_job_fail(err, errlen, j, "bad file_service_type %u", (unsigned)j->file_service_type);
    if (!rand_dist_name(j->random_distribution))
        return plan_job_fail(err, errlen, j, "bad random_distribution %u", (unsigned)j->random_distribution);
    if ((bad = rand_dist_param_bad(j->random_distribution, j->dist_param)) != NULL)
        return plan_job_fail(err, errlen, j, "%s", bad);    /* zones: validate_dirs */
    if (j->n_md_ops > PLAN_MAX_MD_OPS)
        return plan_job_fail(err, errlen, j, "md_ops has more than %d entries", PLAN_MAX_MD_OPS);
    for (uint32_t i = 0; i < j->n_md_ops; i++)
        if (!plan_md_op_valid(j->md_ops[i]))
            return plan_job_fail(err, errlen, j, "md_ops entry %" PRIu32 " is not a metadata op", i + 1);
    if (j->rw == RW_METADATA && j->n_md_ops == 0)
        return plan_job_fail(err, errlen, j, "rw=metadata needs md_ops=");
    if (j->rw != RW_METADATA && j->n_md_ops)
        return plan_job_fail(err, errlen, j, "md_ops= requires rw=metadata");
    if (j->rw != RW_METADATA && (j->shared_dir || j->files_per_dir))
        return plan_job_fail(err, errlen, j, "%s= requires rw=metadata",
                    j->shared_dir ? "shared_dir" : "files_per_dir");
    if ((rc = coherence_check(j, err, errlen)) < 0)
        return rc;
    if (j->rotate > ROTATE_MAX)
        return plan_job_fail(err, errlen, j, "rotate must be 0..%u (got %" PRIu32 ")", ROTATE_MAX, j->rotate);
    if (j->rotate && j->rw == RW_METADATA)
        return plan_job_fail(err, errlen, j, "rotate= does not apply to rw=metadata");
    if (j->rotate && (strstr(j->filename, "${host}") || strstr(j->directory, "${host}")))
        return plan_job_fail(err, errlen, j, "rotate= cannot name another agent's files by ${host} "
                    "(use ${agent})");
    if (j->op_deadline_ns == 0)
        return plan_job_fail(err, errlen, j, "op_deadline must be greater than 0");
    if (j->server_timeout_ns == 0)
        return plan_job_fail(err, errlen, j, "server_timeout must be greater than 0");
    if (plan_agents_check(j->agents, why, sizeof(why)))
        return plan_job_fail(err, errlen, j, "agents=%s: %s", j->agents, why);
    if (plan_verify_check(j, why, sizeof(why)))
        return plan_job_fail(err, errlen, j, "%s", why);
    if ((rc = validate_buffers(j, err, errlen)) < 0)
        return rc;
    return 0;
}

int job_spec_validate(const struct job_spec *j, char *err, size_t errlen)
{
    /* Strings first: the messages below print the name. */
    if (!terminated(j->name, sizeof(j->name)) || !terminated(j->filename, sizeof(j->filename)) ||
        !terminated(j->directory, sizeof(j->directory)) ||
        !terminated(j->ioengine, sizeof(j->ioengine)) ||
        !terminated(j->nfs_url, sizeof(j->nfs_url)) ||
        !terminated(j->description, sizeof(j->description)) ||
        !terminated(j->filename_format, sizeof(j->filename_format)) ||
        !terminated(j->agents, sizeof(j->agents)) || !terminated(j->zones, sizeof(j->zones)))
        return why_fail(err, errlen, "job has an unterminated string field");
    if (j->name[0] == '\0')
        return why_fail(err, errlen, "job has no name");
    if ((unsigned)j->rw >= RW__COUNT)
        return plan_job_fail(err, errlen, j, "bad rw mode %u", (unsigned)j->rw);
    int md = j->rw == RW_METADATA;
    /* nrfiles before size: with nrfiles=0 a size derived from filesize is 0
     * too, and "size is required" would point at the wrong key. */
    if (j->nrfiles < 1 || j->nrfiles > PLAN_MAX_NRFILES)
        return plan_job_fail(err, errlen, j, "nrfiles must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_NRFILES, j->nrfiles);
    /* fio: a job without size takes its existing file's (the agent sizes
     * it: agent/job_files.h); without a file named there is nothing to ask */
    int sized_by_file = job_sized_by_file(j);
    if (j->size_pct > 100)
        return plan_job_fail(err, errlen, j, "size=%" PRIu32 "%% is not 1..100%%", j->size_pct);
    if (j->size_pct && (md || j->filesize))
        return plan_job_fail(err, errlen, j, "size=%" PRIu32 "%% is a share of the existing files' size; "
                    "it does not go with %s", j->size_pct, md ? "rw=metadata" : "filesize=");
    if (j->numjobs < 1 || j->numjobs > PLAN_MAX_NUMJOBS)
        return plan_job_fail(err, errlen, j, "numjobs must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_NUMJOBS, j->numjobs);
    if (j->nconnect > PLAN_MAX_NCONNECT)
        return plan_job_fail(err, errlen, j, "nconnect must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_NCONNECT, j->nconnect);
    if (j->iodepth < 1 || j->iodepth > PLAN_MAX_IODEPTH)
        return plan_job_fail(err, errlen, j, "iodepth must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_IODEPTH, j->iodepth);
    if (j->bs == 0)
        return plan_job_fail(err, errlen, j, "bs must be greater than 0");
    /* Metadata jobs may make empty files: no size needed. */
    uint64_t fsz = job_file_size(j);
    if (!md && !sized_by_file && job_max_bs(j) > fsz)
        return plan_job_fail(err, errlen, j,
                    "bs (%" PRIu64 ") is larger than the per-file size (%" PRIu64 ")",
                    job_max_bs(j), fsz);
    if (j->rwmixread > 100)
        return plan_job_fail(err, errlen, j, "rwmixread must be 0..100 (got %" PRIu32 ")", j->rwmixread);
    /* the engines an agent knows (common/engine_table.h); anything else is
     * rejected before it travels */
    const struct engine_desc *eng = engine_table_find(j->ioengine);
    char urlnames[64];
    if (!eng)
        return plan_job_fail(err, errlen, j, "unknown ioengine '%s'", j->ioengine);
    if (eng->target == ENGINE_URL && j->nfs_url[0] == '\0')
        return plan_job_fail(err, errlen, j, "ioengine=%s requires nfs_url=", j->ioengine);
    if (j->nfs_url[0] != '\0' && eng->target != ENGINE_URL)
        return plan_job_fail(err, errlen, j, "nfs_url= requires ioengine=%s",
                    engine_table_url_names(urlnames, sizeof urlnames));
    if (md && !(eng->flags & ENGINE_F_MD))
        return plan_job_fail(err, errlen, j, "ioengine=%s has no metadata ops (rw=metadata)", j->ioengine);
    if ((j->null_capacity_iops || j->null_latency_ns) && strcmp(j->ioengine, "null") != 0)
        return plan_job_fail(err, errlen, j, "null_capacity_iops= and null_latency= need ioengine=null (got %s)",
                    j->ioengine);
    if (j->null_capacity_iops > PLAN_MAX_RATE_IOPS)
        return plan_job_fail(err, errlen, j, "null_capacity_iops=%" PRIu64 " exceeds %" PRIu64 " (one op per ns)",
                    j->null_capacity_iops, PLAN_MAX_RATE_IOPS);
    if (j->null_latency_ns > PLAN_MAX_TIME_NS)
        return plan_job_fail(err, errlen, j, "null_latency is longer than 100 years");
    if (j->nconnect > 1 && j->nfs_url[0] == '\0')
        return plan_job_fail(err, errlen, j, "nconnect= requires ioengine=%s (kernel mounts take it as a mount option)",
                    engine_table_url_names(urlnames, sizeof urlnames));
    /* Without a runtime a time_based job would loop over its files forever. */
    if (j->time_based && j->runtime_ns == 0)
        return plan_job_fail(err, errlen, j, "time_based requires runtime=");
    int rc = validate_wider(j, err, errlen);
    if (rc == 0)
        rc = validate_dirs(j, err, errlen);
    if (rc)
        return rc;
    /* one agent: the job's own threads are global jobs 0..numjobs-1 */
    return job_spec_check_range(j, j->numjobs - 1, err, errlen);
}

/* ---- checked arithmetic ---------------------------------------------------
 * Sizes and offsets reach the agent's engines as uint64_t and off_t; a plan
 * whose products wrap would make an agent touch bytes far from what the
 * user meant (offset=8EiB offset_increment=8EiB numjobs=2 wrapped to 0 and
 * laid out the whole range).  So every derived figure is computed here with
 * overflow checks, at plan time, and a plan that does not fit is refused
 * naming the key and the value that broke it. */

/* "9223372036854775808 (8EiB)": the exact value and a readable one. */
static const char *fmt_size(char *buf, size_t len, uint64_t v)
{
    char h[32];
    units_fmt_bytes(h, sizeof h, (double)v, 1024);
    snprintf(buf, len, "%" PRIu64 " (%s)", v, h);
    return buf;
}

static const char *fmt_dur(char *buf, size_t len, uint64_t ns)
{
    snprintf(buf, len, "%" PRIu64 "ns (%.3g years)", ns, (double)ns / 1e9 / (365.0 * 24 * 3600));
    return buf;
}

int job_spec_check_range(const struct job_spec *j, uint64_t gjob_max, char *err, size_t errlen)
{
    char a[64], b[64], c[64];
    uint64_t v, w;

    if (j->filesize && __builtin_mul_overflow(j->filesize, (uint64_t)j->nrfiles, &v))
        return plan_job_fail(err, errlen, j, "filesize=%s x nrfiles=%" PRIu32 " exceeds 2^64 bytes",
                    fmt_size(a, sizeof a, j->filesize), j->nrfiles);
    if (__builtin_mul_overflow(j->io_size ? j->io_size : j->size, (uint64_t)(j->loops ? j->loops : 1), &v))
        return plan_job_fail(err, errlen, j, "loops=%" PRIu32 ": %s=%s x loops exceeds 2^64 bytes", j->loops,
                    j->io_size ? "io_size" : "size",
                    fmt_size(a, sizeof a, j->io_size ? j->io_size : j->size));
    if (j->rw != RW_METADATA) {
        uint64_t len = job_file_size(j), inc, end;
        if (__builtin_add_overflow(j->offset, len, &end) || end > PLAN_MAX_FILE_OFFSET)
            return plan_job_fail(err, errlen, j,
                        "offset=%s: the region [offset, offset + %s) exceeds the largest file offset, %s",
                        fmt_size(a, sizeof a, j->offset), fmt_size(b, sizeof b, len),
                        fmt_size(c, sizeof c, PLAN_MAX_FILE_OFFSET));
        if (j->offset_increment &&
            (__builtin_mul_overflow(j->offset_increment, gjob_max, &inc) ||
             __builtin_add_overflow(end, inc, &end) || end > PLAN_MAX_FILE_OFFSET))
            return plan_job_fail(err, errlen, j,
                        "offset_increment=%s: the region of global job %" PRIu64
                        " (offset + offset_increment x %" PRIu64 " + %s) exceeds the largest file offset, %s",
                        fmt_size(a, sizeof a, j->offset_increment), gjob_max, gjob_max,
                        fmt_size(b, sizeof b, len), fmt_size(c, sizeof c, PLAN_MAX_FILE_OFFSET));
    }
    /* the job's clock: t0 + startdelay + ramp + runtime must not wrap */
    static const struct { const char *key; size_t off; } times[] = {
        { "startdelay", offsetof(struct job_spec, startdelay_ns) },
        { "ramp_time", offsetof(struct job_spec, ramp_ns) },
        { "runtime", offsetof(struct job_spec, runtime_ns) },
    };
    v = 0;
    for (size_t i = 0; i < NELEM(times); i++) {
        memcpy(&w, (const char *)j + times[i].off, sizeof w);
        if (__builtin_add_overflow(v, w, &v) || v > PLAN_MAX_TIME_NS)
            return plan_job_fail(err, errlen, j, "%s=%s: startdelay + ramp_time + runtime exceeds %s",
                        times[i].key, fmt_dur(a, sizeof a, w), fmt_dur(b, sizeof b, PLAN_MAX_TIME_NS));
    }
    static const struct { const char *key; size_t off; } waits[] = {
        { "thinktime", offsetof(struct job_spec, thinktime_ns) },
        { "op_deadline", offsetof(struct job_spec, op_deadline_ns) },
        { "server_timeout", offsetof(struct job_spec, server_timeout_ns) },
    };
    for (size_t i = 0; i < NELEM(waits); i++) {
        memcpy(&w, (const char *)j + waits[i].off, sizeof w);
        if (w > PLAN_MAX_TIME_NS)
            return plan_job_fail(err, errlen, j, "%s=%s exceeds %s", waits[i].key, fmt_dur(a, sizeof a, w),
                        fmt_dur(b, sizeof b, PLAN_MAX_TIME_NS));
    }
    if (j->rate_iops > PLAN_MAX_RATE_IOPS)
        return plan_job_fail(err, errlen, j, "rate_iops=%" PRIu64 " exceeds %" PRIu64 " ops/s (one per ns)",
                    j->rate_iops, PLAN_MAX_RATE_IOPS);
    return 0;
}

int plan_validate(const struct plan *p, uint32_t nagents, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < p->nphases; i++) {
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            const struct job_spec *j = &p->phases[i].jobs[k];
            uint32_t hi = 0;
            int rc = job_spec_validate(j, err, errlen);
            if (rc)
                return rc;
            /* the highest agent that runs it has the highest global jobs */
            for (uint32_t a = 0; a < nagents; a++)
                if (plan_agents_match(j->agents, a) == 1)
                    hi = a;
            rc = job_spec_check_range(j, (uint64_t)hi * j->numjobs + j->numjobs - 1, err, errlen);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int plan_pattern_bytes(const char *text, unsigned char *out, size_t cap, size_t *len)
{
    size_t n = strlen(text);
    *len = 0;
    if (n >= 2 && (text[0] == '\'' || text[0] == '"') && text[n - 1] == text[0]) {
        if (n - 2 == 0 || n - 2 > cap)
            return -EINVAL;
        memcpy(out, text + 1, n - 2);
        *len = n - 2;
        return 0;
    }
    if (n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        const char *h = text + 2;
        size_t digits = n - 2, odd = digits % 2;
        if ((digits + odd) / 2 > cap)
            return -EINVAL;
        /* an odd number of digits reads as if it had a leading zero */
        for (size_t d = 0; d < digits + odd; d++) {
            int c = d < odd ? '0' : h[d - odd], v;
            if (!isxdigit(c))
                return -EINVAL;
            v = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
            if (d % 2 == 0)
                out[d / 2] = (unsigned char)(v << 4);
            else
                out[d / 2] |= (unsigned char)v;
        }
        *len = (digits + odd) / 2;
        return 0;
    }
    {
        uint64_t v;
        size_t k = 1;     /* its significant bytes, at least one */
        if (units_parse_u64(text, &v) < 0)
            return -EINVAL;
        while (k < 8 && v >> (8 * k))
            k++;
        if (k > cap)
            return -EINVAL;
        for (size_t i = 0; i < k; i++)
            out[i] = (unsigned char)(v >> (8 * (k - 1 - i)));
        *len = k;
        return 0;
    }
}
