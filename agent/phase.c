/* phase: building the job threads of one phase and running them.
 *
 * Files: a job with filename= uses that one file for all its threads (as
 * fio does); otherwise each thread gets nrfiles files named
 * <directory>/<name>.<agent>.<thread>.<file>, so agents sharing a directory
 * never share files unless the plan says so.  Engines are set up one job at
 * a time from the preparing thread because libnfs is not safe to connect
 * from several threads at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/phase.h"
#include "common/clock.h"
#include "common/plan_files.h"
#include "common/xmalloc.h"

/* Path of file f of thread t (global job number g), confined when local. */
static int job_file_path(const struct job_spec *js, const struct agent_identity *id,
                         uint32_t t, uint32_t g, uint32_t f, char *out, size_t outlen,
                         char *err, size_t errlen)
{
    struct plan_vars v = { .agent = id->index, .nagents = id->nagents, .host = id->host, .job = g };
    char full[PLAN_PATH_MAX];
    int nfs = strcmp(js->ioengine, "nfs") == 0;
    const char *root = nfs ? "" : id->allow->n ? id->allow->root[0] : NULL;
    int rc;

    if (!root) {
        snprintf(err, errlen, "job '%s': the agent has no --allow directory", js->name);
        return -EACCES;
    }
    if ((rc = plan_file_path(js, &v, t, f, root, full, sizeof full, err, errlen)) < 0)
        return rc;
    if (nfs) {
        snprintf(out, outlen, "%s", full);
        return 0;
    }
    if (full[0] != '/') {
        snprintf(err, errlen, "job '%s': relative path '%s'", js->name, full);
        return -EINVAL;
    }
    return paths_confine(id->allow, full, out, outlen, err, errlen);
}

static int nfs_url_allowed(const struct allow_list *allow_nfs, const char *url)
{
    for (size_t i = 0; allow_nfs && i < allow_nfs->n; i++) {
        size_t n = strlen(allow_nfs->root[i]);
        if (strncmp(url, allow_nfs->root[i], n) == 0 &&
            (url[n] == '\0' || url[n] == '/' || url[n] == '?' || allow_nfs->root[i][n - 1] == '/'))
            return 1;
    }
    return 0;
}

/* Expanded NFS URL of a job, checked against --allow-nfs. */
static int job_nfs_url(const struct job_spec *js, const struct agent_identity *id,
                       char *out, size_t outlen, char *err, size_t errlen)
{
    struct plan_vars v = { .agent = id->index, .nagents = id->nagents, .host = id->host };
    int rc = plan_expand(js->nfs_url, &v, out, outlen, err, errlen);
    if (rc < 0)
        return rc;
    if (!nfs_url_allowed(id->allow_nfs, out)) {
        snprintf(err, errlen, "%s is outside the allowed NFS exports (--allow-nfs)", out);
        return -EACCES;
    }
    return 0;
}

int phase_check_plan(const struct plan *p, const struct agent_identity *id,
                     char *err, size_t errlen)
{
    char path[PLAN_PATH_MAX];
    for (uint32_t i = 0; i < p->nphases; i++) {
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            const struct job_spec *js = &p->phases[i].jobs[k];
            int rc;
            if (!engine_find(js->ioengine)) {
                snprintf(err, errlen, "job '%s': unknown ioengine '%s'", js->name, js->ioengine);
                return -EINVAL;
            }
            if (strcmp(js->ioengine, "nfs") == 0)
                rc = job_nfs_url(js, id, path, sizeof path, err, errlen);
            else
                rc = job_file_path(js, id, 0, 0, 0, path, sizeof path, err, errlen);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static void on_job_finished(void *arg)
{
    struct phase_run *pr = arg;
    if (atomic_fetch_sub(&pr->running, 1) == 1 && pr->on_all_finished)
        pr->on_all_finished(pr->arg);
}

static void phase_free_jobs(struct phase_run *pr)
{
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        if (j->ej.priv)
            j->eng->teardown(&j->ej);
        free(j->ej.files);
        free((char *)j->ej.nfs_url);
    }
    free(pr->jobs);
    pr->jobs = NULL;
    pr->njobs = 0;
}

/* Fill thread t of job js: its files, engine, seed. */
static int build_job(struct job *j, const struct job_spec *js, const struct agent_identity *id,
                     uint32_t t, uint32_t global, char *err, size_t errlen)
{
    uint32_t nfiles = plan_files_per_thread(js);
    uint64_t seed = 0x2545f4914f6cdd1dull ^ ((uint64_t)id->index << 40) ^ ((uint64_t)global << 20) ^ t;
    int rc;

    job_init(j, js, engine_find(js->ioengine), seed);
    j->ej.agent_index = id->index;
    j->ej.job_index = t;
    j->ej.nfiles = nfiles;
    j->ej.files = xcalloc(nfiles, sizeof *j->ej.files);
    j->ej.create = rw_mode_writes(js->rw);
    if (strcmp(js->ioengine, "nfs") == 0) {
        char url[PLAN_PATH_MAX];
        if ((rc = job_nfs_url(js, id, url, sizeof url, err, errlen)) < 0)
            return rc;
        j->ej.nfs_url = xstrdup(url);
    }
    for (uint32_t f = 0; f < nfiles; f++) {
        struct engine_file *ef = &j->ej.files[f];
        if ((rc = job_file_path(js, id, t, global, f, ef->path, sizeof ef->path, err, errlen)) < 0)
            return rc;
        ef->size = job_file_size(js);
        if (ef->path[0] == '/' && strcmp(js->ioengine, "psync") == 0 &&
            (rc = paths_make_parents(ef->path)) < 0) {
            snprintf(err, errlen, "%s: cannot create its directory: %s", ef->path, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int phase_prepare(struct phase_run *pr, const struct phase *ph,
                  const struct agent_identity *id, char *err, size_t errlen)
{
    uint32_t total = 0, n = 0;
    int rc = 0;

    memset(pr, 0, sizeof *pr);
    pr->ph = ph;
    for (uint32_t k = 0; k < ph->njobs; k++) {
        total += ph->jobs[k].numjobs;
        if (ph->jobs[k].ramp_ns > pr->ramp_ns)
            pr->ramp_ns = ph->jobs[k].ramp_ns;
    }
    pr->jobs = xcalloc(total, sizeof *pr->jobs);
    for (uint32_t k = 0; k < ph->njobs && rc == 0; k++) {
        const struct job_spec *js = &ph->jobs[k];
        for (uint32_t t = 0; t < js->numjobs && rc == 0; t++) {
            struct job *j = &pr->jobs[n];
            pr->njobs = n + 1;
            rc = build_job(j, js, id, t, n++, err, errlen);
            if (rc == 0) {
                /* read phases need data there; layout writes, so open for writing */
                int fill = rw_mode_reads(js->rw) && !rw_mode_writes(js->rw);
                j->ej.create = 1;
                rc = j->eng->setup(&j->ej);
                if (rc == 0)
                    rc = job_layout(j, fill, &pr->layout_bytes);
                if (rc < 0)
                    snprintf(err, errlen, "job '%s': %s", js->name, j->ej.err);
            }
        }
    }
    if (rc < 0)
        phase_free_jobs(pr);
    return rc;
}

int phase_start(struct phase_run *pr, uint64_t t0_ns)
{
    atomic_store(&pr->running, pr->njobs);
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        const struct job_spec *js = j->spec;
        j->t_start_ns = t0_ns;
        j->t_end_ns = js->runtime_ns ? t0_ns + js->ramp_ns + js->runtime_ns : 0;
        j->on_finish = on_job_finished;
        j->on_finish_arg = pr;
        int rc = job_start(j);
        if (rc < 0) {
            /* the threads already started still count down; stop them */
            atomic_fetch_sub(&pr->running, pr->njobs - i);
            phase_stop(pr);
            return rc;
        }
    }
    return 0;
}

void phase_harvest(struct phase_run *pr, struct op_set *acc)
{
    for (uint32_t i = 0; i < pr->njobs; i++)
        job_harvest(&pr->jobs[i], acc);
}

void phase_stop(struct phase_run *pr)
{
    for (uint32_t i = 0; i < pr->njobs; i++)
        atomic_store(&pr->jobs[i].stop, 1);
}

int phase_finish(struct phase_run *pr, char *err, size_t errlen)
{
    int rc = 0;
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        job_join(j);
        if (j->error && rc == 0) {
            rc = j->error;
            snprintf(err, errlen, "job '%s': %s", j->spec->name, j->ej.err);
        }
    }
    phase_free_jobs(pr);
    return rc;
}
