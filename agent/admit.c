/* admit: see admit.h.
 *
 * The estimate adds, per job thread: a fixed cost (the touched part of its
 * stack, struct job, its recording stats, its engine's state; measured at
 * 40-60 KiB on the null engine, counted as 128 KiB), its I/O buffers
 * (iodepth x the largest block size), and per file it holds the file's
 * entry, its generator state and its descriptor; a metadata thread holds
 * one byte per file and a create buffer of filesize bytes instead.  Layout
 * adds one 1 MiB buffer (jobs are laid out one at a time).  Sums saturate,
 * so an absurd plan gives an absurd but not wrapped figure. */
#include "agent/admit.h"
#include "agent/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "agent/engine.h"
#include "agent/hostinfo.h"
#include "agent/iogen.h"
#include "agent/job.h"
#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/units.h"
#include "common/sat.h"

#define THREAD_BYTES  (UINT64_C(128) << 10)
#define NFS_THREAD_BYTES (UINT64_C(1) << 20)   /* libnfs context, RPC buffers */
#define FILE_BYTES    (sizeof(struct engine_file) + sizeof(struct iogen_file) + 16)
#define LAYOUT_BYTES  (UINT64_C(1) << 20)

uint64_t admit_phase_bytes(const struct phase *ph, uint32_t index, uint64_t *threads, uint64_t *files)
{
    uint64_t total = LAYOUT_BYTES, nthreads = 0, nfiles = 0;
    for (uint32_t k = 0; k < ph->njobs; k++) {
        const struct job_spec *js = &ph->jobs[k];
        uint64_t per = THREAD_BYTES + sizeof(struct job);
        if (plan_agents_match(js->agents, index) != 1)
            continue;
        if (engine_table_takes_url(js->ioengine))   /* a user-space client's buffers */
            per = sat_add_u64(per, NFS_THREAD_BYTES);
        if (js->rw == RW_METADATA) {
            per = sat_add_u64(per, js->nrfiles);                  /* state bytes */
            per = sat_add_u64(per, js->filesize ? js->filesize : 1); /* create buffer */
            nfiles = sat_add_u64(nfiles, sat_mul_u64(js->numjobs, js->nrfiles));
        } else {
            uint64_t nf = plan_files_per_thread(js);
            per = sat_add_u64(per, sat_mul_u64(js->iodepth, job_max_bs(js)));
            per = sat_add_u64(per, sat_mul_u64(nf, FILE_BYTES));
            if (js->verify)   /* results, checker, generations seen, a file id per file */
                per = sat_add_u64(per, verify_job_bytes(nf));
            nfiles = sat_add_u64(nfiles, sat_mul_u64(js->numjobs, nf));
        }
        total = sat_add_u64(total, sat_mul_u64(js->numjobs, per));
        nthreads += js->numjobs;
    }
    if (threads)
        *threads = nthreads;
    if (files)
        *files = nfiles;
    return total;
}

/* A cgroup v2 file holding one number ("max" = none). */
static int cgroup_value(const char *name, uint64_t *v)
{
    char path[256], buf[64];
    FILE *f;
    int rc = -ENOENT;
    snprintf(path, sizeof path, "/sys/fs/cgroup/%s", name);
    if (!(f = fopen(path, "r")))
        return -errno;
    if (fgets(buf, sizeof buf, f) && units_parse_u64(strtok(buf, "\n"), v) == 0)
        rc = 0;
    fclose(f);
    return rc;
}

int admit_mem_available(uint64_t *bytes)
{
    uint64_t avail, max, cur;
    int rc = hostinfo_meminfo("MemAvailable", &avail);
    if (rc < 0)
        return rc;
    /* the cgroup's limit, when the agent runs in a limited one (in a
     * container the namespace root is the agent's own cgroup); its usage
     * counts reclaimable cache, so a full-looking cgroup is not a refusal */
    if (cgroup_value("memory.max", &max) == 0 && cgroup_value("memory.current", &cur) == 0)
        if (max > cur && max - cur < avail)
            avail = max - cur;
    *bytes = avail;
    return 0;
}

int admit_plan(const struct plan *p, uint32_t index, uint32_t nagents, uint64_t avail_bytes,
               char *err, size_t errlen)
{
    int rc = plan_validate(p, nagents, err, errlen);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < p->nphases; i++) {
        uint64_t threads, files, need = admit_phase_bytes(&p->phases[i], index, &threads, &files);
        char n[32], a[32];
        if (need <= avail_bytes)
            continue;
        snprintf(err, errlen,
                 "phase %" PRIu32 " ('%s') needs ~%s for %" PRIu64 " job thread%s and %" PRIu64
                 " file%s, %s available",
                 i, p->phases[i].name,
                 need == UINT64_MAX ? "more than 16EiB" : units_fmt_bytes(n, sizeof n, (double)need, 1024),
                 threads, threads == 1 ? "" : "s", files, files == 1 ? "" : "s",
                 units_fmt_bytes(a, sizeof a, (double)avail_bytes, 1024));
        return -ENOMEM;
    }
    return 0;
}

int admit_limits_check(const struct plan *p, uint32_t index, const struct admit_limits *l,
                       char *err, size_t errlen)
{
    for (uint32_t i = 0; l && i < p->nphases; i++) {
        uint64_t threads, files, need = admit_phase_bytes(&p->phases[i], index, &threads, &files);
        char n[32], a[32];
        if (l->max_threads && threads > l->max_threads) {
            snprintf(err, errlen, "phase %" PRIu32 " ('%s') has %" PRIu64 " job threads on this agent, "
                     "more than its --max-threads %" PRIu64, i, p->phases[i].name, threads, l->max_threads);
            return -E2BIG;
        }
        if (l->max_files && files > l->max_files) {
            snprintf(err, errlen, "phase %" PRIu32 " ('%s') uses %" PRIu64 " files on this agent, "
                     "more than its --max-files %" PRIu64, i, p->phases[i].name, files, l->max_files);
            return -E2BIG;
        }
        if (l->max_memory && need > l->max_memory) {
            snprintf(err, errlen, "phase %" PRIu32 " ('%s') needs ~%s on this agent, more than its "
                     "--max-memory %s", i, p->phases[i].name,
                     need == UINT64_MAX ? "more than 16EiB" : units_fmt_bytes(n, sizeof n, (double)need, 1024),
                     units_fmt_bytes(a, sizeof a, (double)l->max_memory, 1024));
            return -ENOMEM;
        }
    }
    return 0;
}

int admit_plan_here(const struct plan *p, uint32_t index, uint32_t nagents,
                    const struct admit_limits *l, char *err, size_t errlen)
{
    uint64_t avail;
    int rc;
    if (nagents == 0 || index >= nagents) {
        snprintf(err, errlen, "agent index %" PRIu32 " is not inside a run of %" PRIu32 " agent%s",
                 index, nagents, nagents == 1 ? "" : "s");
        return -EINVAL;
    }
    /* plan_validate first: the figures below assume a well-formed plan */
    if ((rc = plan_validate(p, nagents, err, errlen)) < 0)
        return rc;
    if ((rc = admit_limits_check(p, index, l, err, errlen)) < 0)
        return rc;
    if (admit_mem_available(&avail) < 0)
        avail = UINT64_MAX;    /* not Linux /proc: the plan check alone */
    return admit_plan(p, index, nagents, avail, err, errlen);
}
