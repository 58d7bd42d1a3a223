/* phase_storage: see phase_storage.h.  Kernel mounts are found by the
 * job's directory resolved with realpath (mountinfo lists real paths: a
 * symlinked directory must name the mount it leads to). */
#include "agent/phase_storage.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/engine.h"
#include "agent/mountinfo.h"

/* The directory a kernel-mount job works in: its first file's, or its
 * metadata work directory. */
static void job_dir(const struct job *j, char *out, size_t outlen)
{
    const char *p = j->ej.nfiles ? j->ej.files[0].path : j->workdir;
    char *slash;
    snprintf(out, outlen, "%s", p);
    if (j->ej.nfiles && (slash = strrchr(out, '/')) != NULL)
        slash == out ? (void)(out[1] = '\0') : (void)(*slash = '\0');
}

/* mounts: this process's mountinfo, read on first use (NULL if unreadable) */
static void describe_mount(const char *dir, const char *mounts, struct storage_info *s)
{
    char real[PATH_MAX];
    if (!dir[0] || !realpath(dir, real))
        snprintf(real, sizeof real, "%s", dir);
    if (!mounts || mountinfo_find(mounts, real, s) < 0) {
        memset(s, 0, sizeof *s);
        s->kind = STORAGE_MOUNT;
        snprintf(s->where, sizeof s->where, "%s", real);
    }
}

static void describe_nfs(struct job *j, struct storage_info *s)
{
    uint32_t version = 0;
    memset(s, 0, sizeof *s);
    s->kind = STORAGE_NFS;
    snprintf(s->where, sizeof s->where, "%s", j->ej.nfs_url ? j->ej.nfs_url : "");
    snprintf(s->fstype, sizeof s->fstype, "nfs");
    /* options says whose sizes they are */
    snprintf(s->options, sizeof s->options, "%s",
             j->eng->negotiated(&j->ej, &version, &s->rsize, &s->wsize) ? "sizes=server"
                                                                        : "sizes=engine-default");
    if (version)
        snprintf(s->nfsvers, sizeof s->nfsvers, "%u", version);
}

uint32_t phase_storage_describe(const struct phase_run *pr, struct storage_info *out, uint32_t max)
{
    uint32_t n = 0;
    char *mounts = NULL, dir[PLAN_PATH_MAX], last_dir[PLAN_PATH_MAX] = "";
    int read_mounts = 0;
    for (uint32_t i = 0; i < pr->njobs && n < max; i++) {
        struct job *j = &pr->jobs[i];
        struct storage_info s;
        uint32_t k;
        if (j->eng == &engine_null)
            continue;
        if (j->eng->negotiated) {
            describe_nfs(j, &s);
        } else {
            /* the threads of a job mostly share a directory: look it up once */
            job_dir(j, dir, sizeof dir);
            if (i > 0 && strcmp(dir, last_dir) == 0)
                continue;
            snprintf(last_dir, sizeof last_dir, "%s", dir);
            if (!read_mounts) {
                mounts = mountinfo_read();
                read_mounts = 1;
            }
            describe_mount(dir, mounts, &s);
        }
        snprintf(s.job, sizeof s.job, "%s", j->spec->name);
        for (k = 0; k < n && !(out[k].kind == s.kind && strcmp(out[k].where, s.where) == 0); k++)
            ;
        if (k == n)
            out[n++] = s;
    }
    free(mounts);
    return n;
}
