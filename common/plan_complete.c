/* plan_complete: a job section the front ends (plan_parse.c) have read,
 * made into the plan's jobs: fio's derived values filled in, the job
 * validated, a sweep= or matrix= job expanded into its phases, and the
 * plan's limits checked before the job is added, so the user gets a
 * message instead of a plan the wire would refuse. */
#include "common/plan_complete.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/plan_ctl.h"
#include "common/plan_parse.h"
#include "common/stats.h"
#include "common/vblock.h"
#include "common/wbuf.h"
#include "common/why.h"

/* Fill what fio derives, then validate.  fio: with only filesize given, the
 * job's size is filesize * nrfiles.  nrfiles_given: whether the plan set
 * nrfiles, which a metadata job must (it is the job's whole workload). */
static int job_finish(struct job_spec *j, int nrfiles_given, char *err, size_t errlen)
{
    uint32_t nnames = plan_filename_count(j->filename);

    /* fio: filename=a:b names the job's files, and nrfiles follows it */
    for (uint32_t i = 0; nnames > 1 && i < nnames; i++) {
        char one[PLAN_PATH_MAX];
        if (plan_filename_at(j->filename, i, one, sizeof one) < 0 || !one[0])
            return why_fail(err, errlen, "job '%s': filename '%s': name %u of the ':' list is empty "
                    "(write '\\:' for a colon inside a name)", j->name, j->filename, i + 1);
    }
    /* fio's filecreate/filestat/filedelete: a metadata job (nrfiles
     * defaults to 1 there, as in fio) */
    int md_engine = engine_table_fold_md(j);
    if (md_engine < 0)
        return why_fail(err, errlen, "job '%s': ioengine=%s is a fixed set of metadata ops; with md_ops= "
                "use rw=metadata and a file engine (psync, nfs)", j->name, j->ioengine);
    if (md_engine)
        nrfiles_given = 1;
    if (nnames > 1 && j->rw != RW_METADATA)
        j->nrfiles = nnames;
    if (j->size == 0 && j->filesize != 0 &&
        __builtin_mul_overflow(j->filesize, (uint64_t)j->nrfiles, &j->size)) {
        return why_fail(err, errlen, "job '%s': filesize * nrfiles is too large", j->name);
    }
    if (j->rw == RW_METADATA) {
        if (!nrfiles_given)
            return why_fail(err, errlen, "job '%s': rw=metadata requires nrfiles=", j->name);
        if (j->n_md_ops == 0) {
            static const uint32_t dflt[] = { OP_CREATE, OP_STAT, OP_UNLINK };
            j->n_md_ops = 3;
            memcpy(j->md_ops, dflt, sizeof(dflt));
        }
    }
    /* fio: without size= a job takes its existing files' size; it has to
     * name them (filename, filename_format, or nrfiles of the default names)
     * for there to be any.  The agent refuses a missing one. */
    if (j->rw != RW_METADATA && j->size == 0 && j->filesize == 0 && !j->filename[0] &&
        !j->filename_format[0] && !nrfiles_given && !j->size_pct) {
        return why_fail(err, errlen, "job '%s': size is required (set size= or filesize=, or name existing "
                "files with filename=, filename_format= or nrfiles=)", j->name);
    }
    wbuf_resolve(j);
    return job_spec_validate(j, err, errlen);
}

/* plan_add_job keeps any job; the limits are checked here so the user gets
 * a message instead of a plan the wire would refuse. */
static int add_checked(struct plan *p, const struct job_spec *jin, char *err, size_t errlen)
{
    struct job_spec one = *jin;
    const struct job_spec *j = &one;

    if (plan_ctl_wait_for(p, &one, err, errlen) < 0)   /* may start a phase (plan_ctl.h) */
        return -EINVAL;
    if (p->nphases == 0 || j->stonewall) {
        if (p->nphases >= PLAN_MAX_PHASES)
            return why_fail(err, errlen, "too many phases (max %d)", PLAN_MAX_PHASES);
    } else if (p->phases[p->nphases - 1].njobs >= PLAN_MAX_JOBS) {
        return why_fail(err, errlen, "too many jobs in phase '%s' (max %d; use stonewall to start a new phase)",
                p->phases[p->nphases - 1].name, PLAN_MAX_JOBS);
    }
    plan_add_job(p, j);
    return 0;
}

/* verify= stamps or replaces its blocks: a buffer key it defeats is
 * named (wbuf_ignored_by_verify), once per job section and checksum (each matrix combination is checked, as either key
 * may be a dimension, and named by the section's job). */
static void warn_verify_buffers(struct plan *p, const char *name, const struct job_spec *j)
{
    char keys[96], why[320];
    int n = wbuf_ignored_by_verify(j, keys, sizeof(keys));
    if (n == 0)
        return;
    snprintf(why, sizeof(why), "job '%s': %s %s no effect with verify=%s: %s; ignored", name, keys,
             n == 1 ? "has" : "have", vblock_csum_name(j->verify),
             j->verify == VB_CSUM_PATTERN ? "each block written is verify_pattern's bytes"
                                          : "each block written carries its own verify header and "
                                            "sector stamps, so no two are alike");
    for (uint32_t i = 0; i < p->nwarnings; i++)
        if (strcmp(p->warnings[i], why) == 0)
            return;
    plan_add_warning(p, why);
}

/* One job of a section (itself, a matrix combination or a sweep point):
 * derived, checked and added.  *about_job: 1 while the message is about
 * the job, 0 once about plan limits. */
static int finish_add(struct plan *p, const char *section, struct job_spec *one, int nrfiles_given,
                      char *err, size_t errlen, int *about_job)
{
    int rc;
    warn_verify_buffers(p, section, one);
    if ((rc = job_finish(one, nrfiles_given, err, errlen)))
        return rc;
    *about_job = 0;
    return add_checked(p, one, err, errlen);
}

/* A finished sweep job: one phase per point (common/plan_sweep.h), each
 * named JOB@VALUE (a search's points are named by the coordinator when it
 * chooses their values).  The job keeps its name, so its files are the
 * same at every point (laid out once). */
static int sweep_expand(struct plan *p, const struct job_spec *j, int nrfiles_given, char *err,
                        size_t errlen, int *about_job)
{
    struct job_spec one;
    struct sweep_spec sw;
    char why[256];
    int rc;

    if (!j->sweep_text.dim[0])
        return why_fail(err, errlen, "job '%s': sweep_* keys need sweep=", j->name);
    if (plan_sweep_parse(&j->sweep_text, &sw, why, sizeof why)) {
        return why_fail(err, errlen, "job '%s': %s", j->name, why);
    }
    if ((sw.dim == SWEEP_RATE_IOPS || sw.dim == SWEEP_RATE) && j->rate_per_dir)
        return why_fail(err, errlen, "job '%s': sweep=%s varies one total rate: give no per-direction rate list",
                j->name, j->sweep_text.dim);
    if (sw.dim == SWEEP_AGENTS && j->agents[0]) {
        return why_fail(err, errlen, "job '%s': sweep=agents chooses the agents itself: drop agents=", j->name);
    }
    if (sw.dim == SWEEP_IODEPTH && !sw.nvalues && j->latency_target_us) {
        /* both would cap the depth in flight (agent/phase.c's depth_cap) */
        return why_fail(err, errlen, "job '%s': a sweep=iodepth search and latency_target= cannot be combined", j->name);
    }
    snprintf(sw.base, sizeof sw.base, "%s", j->name);
    for (uint32_t i = 0; i < sw.npoints; i++) {
        /* a search's points are laid out at its most (iodepth, threads,
         * agents); each start narrows them to the point's value */
        uint64_t v = sw.nvalues ? sw.values[i] : sw.max;
        *about_job = 1;
        one = *j;
        one.sweep = sw;
        one.sweep.point = i;
        one.stonewall = 1;                   /* each point is a phase of its own */
        if (j->sweep_text.point_ns) {
            one.runtime_ns = j->sweep_text.point_ns;
            one.time_based = 1;
        }
        switch (sw.dim) {
        case SWEEP_RATE_IOPS:
        case SWEEP_RATE:
            /* the coordinator sends each point's per-thread rate in its
             * start; a rate here makes the job a scheduled one meanwhile */
            one.rate_iops = sw.dim == SWEEP_RATE_IOPS ? 1 : 0;
            one.rate_bps = sw.dim == SWEEP_RATE ? 1 : 0;
            break;
        case SWEEP_IODEPTH:
            one.iodepth = (uint32_t)v;
            break;
        case SWEEP_NUMJOBS:
            one.numjobs = (uint32_t)v;
            break;
        case SWEEP_AGENTS:
            if (v == 1)
                snprintf(one.agents, sizeof one.agents, "0");
            else
                snprintf(one.agents, sizeof one.agents, "0-%llu", (unsigned long long)(v - 1));
            break;
        default:
            break;
        }
        if ((rc = finish_add(p, j->name, &one, nrfiles_given, err, errlen, about_job)))
            return rc;                   /* plan_add_job names it JOB@VALUE */
    }
    return 0;
}

int plan_job_complete(struct plan *p, const struct job_spec *j, const char *matrix,
                      int nrfiles_given, char *err, size_t errlen, int *about_job)
{
    struct job_spec one;
    uint32_t n = 1;
    char why[256];
    int rc;

    *about_job = 1;
    if (j->sweep_text.dim[0] || j->sweep_text.values[0] || j->sweep_text.start[0] || j->sweep_text.max[0] ||
        j->sweep_text.slo[0] || j->sweep_text.point_ns || j->sweep_text.resolution[0] || j->sweep_text.valid[0]) {
        if (matrix && *matrix)
            return why_fail(err, errlen, "job '%s': matrix= and sweep= cannot be combined", j->name);
        return sweep_expand(p, j, nrfiles_given, err, errlen, about_job);
    }
    if (!matrix || !*matrix) {
        one = *j;
        return finish_add(p, j->name, &one, nrfiles_given, err, errlen, about_job);
    }
    if (plan_matrix_check(matrix, &n, why, sizeof(why)))
        return why_fail(err, errlen, "job '%s': matrix: %s", j->name, why);
    for (uint32_t i = 0; i < n; i++) {
        *about_job = 1;
        if (plan_matrix_job(j, matrix, i, &one, why, sizeof(why)))
            return why_fail(err, errlen, "job '%s': matrix: %s", j->name, why);
        if ((rc = finish_add(p, j->name, &one, nrfiles_given, err, errlen, about_job)))
            return rc;
    }
    return 0;
}
