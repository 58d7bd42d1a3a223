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

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

/* fio's words, indexed by enum rw_mode. */
static const char *const rw_names[RW__COUNT] = {
    [RW_READ] = "read",
    [RW_WRITE] = "write",
    [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite",
    [RW_RW] = "rw",
    [RW_RANDRW] = "randrw",
    [RW_METADATA] = "metadata",
};

/* Extra spellings fio accepts for the same modes. */
static const struct {
    const char *name;
    enum rw_mode rw;
} rw_aliases[] = {
    { "readwrite", RW_RW },
};

/* The engines an agent knows; anything else is rejected before it travels. */
static const char *const known_engines[] = { "psync", "null", "nfs" };

void job_spec_default(struct job_spec *j)
{
    memset(j, 0, sizeof(*j));
    j->rw = RW_READ;
    j->rwmixread = 50;
    j->bs = 4096;
    j->nrfiles = 1;
    j->numjobs = 1;
    j->iodepth = 1;
    snprintf(j->ioengine, sizeof(j->ioengine), "%s", "psync");
}

const char *rw_mode_name(enum rw_mode rw)
{
    if ((unsigned)rw >= RW__COUNT)
        return "?";
    return rw_names[rw];
}

int rw_mode_from_name(const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < RW__COUNT; i++)
        if (strcmp(s, rw_names[i]) == 0)
            return i;
    for (size_t i = 0; i < sizeof(rw_aliases) / sizeof(rw_aliases[0]); i++)
        if (strcmp(s, rw_aliases[i].name) == 0)
            return (int)rw_aliases[i].rw;
    return -1;
}

int rw_mode_reads(enum rw_mode rw)
{
    return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RW || rw == RW_RANDRW;
}

int rw_mode_writes(enum rw_mode rw)
{
    return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RW || rw == RW_RANDRW;
}

int rw_mode_random(enum rw_mode rw)
{
    return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

void plan_init(struct plan *p)
{
    p->nphases = 0;
    p->phases = NULL;
}

void plan_free(struct plan *p)
{
    for (uint32_t i = 0; i < p->nphases; i++)
        free(p->phases[i].jobs);
    free(p->phases);
    plan_init(p);
}

/* Limits (PLAN_MAX_PHASES, PLAN_MAX_JOBS) are the parser's and the wire
 * decoder's to enforce with a proper message; here a job is always kept,
 * because silently starting a new phase would change what runs together. */
void plan_add_job(struct plan *p, const struct job_spec *j)
{
    if (p->nphases == 0 || j->stonewall) {
        p->phases = xrealloc(p->phases, (p->nphases + 1) * sizeof(*p->phases));
        struct phase *ph = &p->phases[p->nphases++];
        memset(ph, 0, sizeof(*ph));
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

static int engine_known(const char *e)
{
    for (size_t i = 0; i < sizeof(known_engines) / sizeof(known_engines[0]); i++)
        if (strcmp(e, known_engines[i]) == 0)
            return 1;
    return 0;
}

/* snprintf into err with the "job '<name>': " prefix every message shares. */
__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, const struct job_spec *j, const char *fmt, ...)
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

int job_spec_validate(const struct job_spec *j, char *err, size_t errlen)
{
    /* Strings first: the messages below print the name. */
    if (!terminated(j->name, sizeof(j->name)) || !terminated(j->filename, sizeof(j->filename)) ||
        !terminated(j->directory, sizeof(j->directory)) ||
        !terminated(j->ioengine, sizeof(j->ioengine)) ||
        !terminated(j->nfs_url, sizeof(j->nfs_url))) {
        if (err && errlen)
            snprintf(err, errlen, "job has an unterminated string field");
        return -EINVAL;
    }
    if (j->name[0] == '\0') {
        if (err && errlen)
            snprintf(err, errlen, "job has no name");
        return -EINVAL;
    }
    if ((unsigned)j->rw >= RW__COUNT)
        return fail(err, errlen, j, "bad rw mode %u", (unsigned)j->rw);
    /* nrfiles before size: with nrfiles=0 a size derived from filesize is 0
     * too, and "size is required" would point at the wrong key. */
    if (j->nrfiles < 1 || j->nrfiles > PLAN_MAX_NRFILES)
        return fail(err, errlen, j, "nrfiles must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_NRFILES, j->nrfiles);
    if (j->size == 0)
        return fail(err, errlen, j, "size is required (set size= or filesize=)");
    if (j->numjobs < 1 || j->numjobs > PLAN_MAX_NUMJOBS)
        return fail(err, errlen, j, "numjobs must be 1..%u (got %" PRIu32 ")",
                    (unsigned)PLAN_MAX_NUMJOBS, j->numjobs);
    if (j->iodepth < 1)
        return fail(err, errlen, j, "iodepth must be at least 1");
    if (j->bs == 0)
        return fail(err, errlen, j, "bs must be greater than 0");
    uint64_t fsz = job_file_size(j);
    if (j->bs > fsz)
        return fail(err, errlen, j,
                    "bs (%" PRIu64 ") is larger than the per-file size (%" PRIu64 ")",
                    j->bs, fsz);
    if (j->rwmixread > 100)
        return fail(err, errlen, j, "rwmixread must be 0..100 (got %" PRIu32 ")", j->rwmixread);
    if (!engine_known(j->ioengine))
        return fail(err, errlen, j, "unknown ioengine '%s'", j->ioengine);
    if (strcmp(j->ioengine, "nfs") == 0 && j->nfs_url[0] == '\0')
        return fail(err, errlen, j, "ioengine=nfs requires nfs_url=");
    if (j->nfs_url[0] != '\0' && strcmp(j->ioengine, "nfs") != 0)
        return fail(err, errlen, j, "nfs_url= requires ioengine=nfs");
    /* Without a runtime a time_based job would loop over its files forever. */
    if (j->time_based && j->runtime_ns == 0)
        return fail(err, errlen, j, "time_based requires runtime=");
    return 0;
}
