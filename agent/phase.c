/* phase: building the job threads of one phase and running them.
 *
 * Files: a job with filename= uses that one file for all its threads (as
 * fio does); otherwise each thread gets nrfiles files named
 * <directory>/<name>.<agent>.<thread>.<file>, so agents sharing a directory
 * never share files unless the plan says so.  Engines are set up one job at
 * a time from the preparing thread because libnfs is not safe to connect
 * from several threads at once.
 *
 * Everything slow happens on worker threads, before the start instant or
 * after the last job ended: connects, opens, the free-space check, layout,
 * buffers and thread creation in phase_prepare; joins, unlink and engine
 * teardown in phase_finish.  Every failure on the way (a refused open, a
 * full disk, pthread_create) unwinds what was made, threads included, so
 * the agent is idle again whatever went wrong. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/job_files.h"
#include "agent/job_layout.h"
#include "agent/cohjob.h"
#include "agent/nfs_allow.h"
#include "agent/nfs_rpcstat.h"
#include "agent/phase.h"
#include "agent/flow.h"
#include "agent/phase_prior.h"
#include "agent/phase_storage.h"
#include "common/clock.h"
#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/plan_verify.h"
#include "common/rotate.h"
#include "common/sat.h"
#include "common/units.h"
#include "common/vblock.h"
#include "common/xmalloc.h"

/* File and NFS work never runs on the agent's loop thread (heartbeats and
 * the lease must go on whatever the storage does). */
#define ASSERT_NOT_LOOP(pr) assert(!pthread_equal(pthread_self(), (pr)->loop_thread))

int phase_file_name(const struct job_spec *js, const struct agent_identity *id,
                    uint32_t t, uint32_t g, uint32_t f, char *out, size_t outlen,
                    char *err, size_t errlen)
{
    struct plan_vars v = { .agent = id->index, .nagents = id->nagents, .host = id->host, .job = g };
    int nfs = engine_table_takes_url(js->ioengine);
    const char *root = nfs ? "" : id->allow->n ? id->allow->root[0] : NULL;

    if (!root) {
        snprintf(err, errlen, "job '%s': the agent has no --allow directory", js->name);
        return -EACCES;
    }
    return plan_file_path(js, &v, t, f, root, out, outlen, err, errlen);
}

/* Path of file f of thread t (global job number g), confined when local. */
static int job_file_path(const struct job_spec *js, const struct agent_identity *id,
                         uint32_t t, uint32_t g, uint32_t f, char *out, size_t outlen,
                         char *err, size_t errlen)
{
    char full[PLAN_PATH_MAX];
    int nfs = engine_table_takes_url(js->ioengine);
    int rc;

    if ((rc = phase_file_name(js, id, t, g, f, full, sizeof full, err, errlen)) < 0)
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

/* Expanded NFS URL of a job, checked against --allow-nfs. */
int phase_job_nfs_url(const struct job_spec *js, const struct agent_identity *id,
                       char *out, size_t outlen, char *err, size_t errlen)
{
    struct plan_vars v = { .agent = id->index, .nagents = id->nagents, .host = id->host };
    int rc = plan_expand(js->nfs_url, &v, out, outlen, err, errlen);
    if (rc < 0)
        return rc;
    /* the whole URL: server, export, path and every parameter */
    return nfs_allow_check(id->allow_nfs, out, err, errlen);
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
            if (engine_table_takes_url(js->ioengine))
                rc = phase_job_nfs_url(js, id, path, sizeof path, err, errlen);
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
        job_release(j);
        cohjob_free(j);
        if (j->ej.priv)
            j->eng->teardown(&j->ej);
        free(j->ej.files);
        free((char *)j->ej.nfs_url);
        nfs_rpcstat_free(j->ej.rpcstat);
    }
    free(pr->jobs);
    pr->jobs = NULL;
    pr->njobs = 0;
    flow_free(pr);
}

/* Does this job's file name depend on the agent?  If not, every agent
 * running the job names the same file; for libnfs that is the same file
 * (its URL names the server and export, so nfs_url counts as part of the
 * name), for a kernel mount only if the agents' --allow roots are one
 * directory, which no agent can tell (see owns_files). */
static int job_file_per_agent(const struct job_spec *js)
{
    return !js->filename[0] || strstr(js->filename, "${agent}") || strstr(js->filename, "${host}") ||
           strstr(js->directory, "${agent}") || strstr(js->directory, "${host}") ||
           strstr(js->nfs_url, "${agent}") || strstr(js->nfs_url, "${host}");
}

/* The lowest agent index that runs js, and the highest. */
static void job_runners(const struct job_spec *js, uint32_t nagents, uint32_t *lo, uint32_t *hi)
{
    *lo = UINT32_MAX;
    *hi = 0;
    for (uint32_t a = 0; a < nagents; a++)
        if (plan_agents_match(js->agents, a) == 1) {
            if (*lo == UINT32_MAX)
                *lo = a;
            *hi = a;
        }
}

/* The metadata job's work directory: the job's directory itself when
 * shared_dir=1, else its own subdirectory <name>.<agent>.<thread>. */
static int md_workdir(const struct job_spec *js, const struct agent_identity *id, uint32_t t,
                      char *out, size_t outlen, char *err, size_t errlen)
{
    struct plan_vars v = { .agent = id->index, .nagents = id->nagents, .host = id->host };
    char dir[PLAN_PATH_MAX], full[PLAN_PATH_MAX * 2];
    int nfs = engine_table_takes_url(js->ioengine);
    int rc = plan_expand(js->directory, &v, dir, sizeof dir, err, errlen);
    if (rc < 0)
        return rc;
    if (nfs || dir[0] == '/')
        snprintf(full, sizeof full, "%s", dir);
    else if (id->allow->n)
        snprintf(full, sizeof full, "%s%s%s", id->allow->root[0], dir[0] ? "/" : "", dir);
    else {
        snprintf(err, errlen, "job '%s': the agent has no --allow directory", js->name);
        return -EACCES;
    }
    if (!js->shared_dir) {
        size_t n = strlen(full);
        snprintf(full + n, sizeof full - n, "%s%s.%u.%u", n && full[n - 1] != '/' ? "/" : "",
                 js->name, id->index, t);
    }
    if (nfs) {
        snprintf(out, outlen, "%s", full[0] ? full : ".");
        return 0;
    }
    /* its parents are made beneath the root by mdjob_prepare */
    return paths_confine(id->allow, full, out, outlen, err, errlen);
}

/* Fill thread t (global job number g on this agent) of job js: its
 * region, files, engine and seed. */
static int build_job(struct job *j, const struct job_spec *js, const struct agent_identity *id,
                     struct halt *halt, uint32_t t, uint32_t g, char *err, size_t errlen)
{
    uint32_t nfiles = js->rw == RW_METADATA ? 1 : plan_files_per_thread(js);
    uint32_t lo, hi;
    uint64_t gjob, seed;
    int per_agent = job_file_per_agent(js);
    int rc;

    /* fio's randrepeat: the same offsets every run, unless randseed or
     * randrepeat=0 says otherwise; distinct per agent and thread */
    seed = js->randseed ? js->randseed : 0x2545f4914f6cdd1dull;
    if (!js->randrepeat)
        seed ^= clock_now_ns();
    seed ^= ((uint64_t)id->index << 40) ^ ((uint64_t)g << 20) ^ t;
    job_init(j, js, engine_find(js->ioengine), seed);
    j->halt = halt;
    j->ej.halt = halt;
    j->ej.agent_index = id->index;
    j->ej.job_index = t;
    j->ej.create = 1;
    /* rotate=K: the source agent's files and regions (common/rotate.h) */
    j->source_agent = rotate_source(id->index, js->rotate, id->nagents);
    if (engine_table_takes_url(js->ioengine)) {
        char url[PLAN_PATH_MAX];
        if ((rc = phase_job_nfs_url(js, id, url, sizeof url, err, errlen)) < 0)
            return rc;
        j->ej.nfs_url = xstrdup(url);
    }
    if (js->rw == RW_METADATA) {
        rc = md_workdir(js, id, t, j->workdir, sizeof j->workdir, err, errlen);
        if (rc == 0 && !engine_table_takes_url(js->ioengine))
            j->ej.root = paths_root_of(id->allow, j->workdir);  /* md ops resolve beneath it */
        return rc;
    }
    if (js->rw == RW_COHERENCE)
        return cohjob_build(j, js, id, err, errlen);

    /* offset_increment counts jobs across all agents (fio's global job
     * number): agent a's thread t is job a*numjobs + t */
    job_runners(js, id->nagents, &lo, &hi);
    gjob = (uint64_t)j->source_agent * js->numjobs + t;
    j->region_start = js->offset + js->offset_increment * gjob;
    j->region_len = job_file_size(js);
    j->verify_gen = vblock_generation(id->run_ms, id->phase, 1);
    j->verify_job = (uint32_t)gjob;
    /* a file shared by threads is laid out by thread 0, to the extent
     * every agent's threads need.  A name shared by agents: where files
     * can be locked (kernel mounts: engine_ops.lock) thread 0 of every
     * agent lays out its file if it is missing or short, under the file's
     * lock, so a file that really is one is laid out once and a name that
     * resolves to a file per agent (--allow roots that differ) is laid out
     * on each; libnfs names one file for every agent (the URL says where),
     * laid out by the lowest agent running the job */
    j->owns_files = js->filename[0] ? t == 0 && (per_agent || id->index == lo || j->eng->lock) : 1;
    j->verify_run = id->run_id;
    if (plan_verify_checks(js) && !js->verify_written_by[0])
        j->verify_min_gen = phase_prior_gen(js, id, t, g, nfiles);
    j->ej.nfiles = nfiles;
    j->ej.files = xcalloc(nfiles, sizeof *j->ej.files);
    for (uint32_t f = 0; f < nfiles; f++) {
        struct engine_file *ef = &j->ej.files[f];
        /* the extent the file must have: this thread's region for its own
         * files, every thread's of this agent (or of all agents) for shared */
        uint64_t last = !js->filename[0] ? gjob
                      : per_agent ? (uint64_t)j->source_agent * js->numjobs + js->numjobs - 1
                      : (uint64_t)hi * js->numjobs + js->numjobs - 1;
        uint64_t first = !js->filename[0] ? gjob
                       : per_agent ? (uint64_t)j->source_agent * js->numjobs
                       : (uint64_t)lo * js->numjobs;
        if ((rc = job_file_path(js, id, t, g, f, ef->path, sizeof ef->path, err, errlen)) < 0)
            return rc;
        ef->size = js->offset + js->offset_increment * last + j->region_len;
        ef->start = js->offset + js->offset_increment * first;
        if (!engine_table_local(js->ioengine))
            continue;
        /* kernel-mount engines open beneath the root the path is under
         * (and make its missing directories there: posix_open); one root
         * per job, so a filename=a:b list may not span two roots */
        const char *root = paths_root_of(id->allow, ef->path);
        if (f > 0 && root != j->ej.root) {
            snprintf(err, errlen, "job '%s': filename list: %s and %s are beneath different --allow "
                     "roots; a job's files must share one", js->name, j->ej.files[0].path, ef->path);
            return -EINVAL;
        }
        j->ej.root = root;
    }
    return 0;
}

void phase_init(struct phase_run *pr, void (*on_all_finished)(void *), void *arg)
{
    memset(pr, 0, sizeof *pr);
    halt_init(&pr->halt);
    pr->on_all_finished = on_all_finished;
    pr->arg = arg;
}

/* Refuse before laying out when a file system cannot hold what the phase
 * will add to it: the jobs' needs summed per file system (by its identity,
 * not its path: two jobs in one directory share its free space) against
 * what it has free.  Identities are compared within one space() (st_dev and
 * the statfs size for the kernel-mount engines, the server and the export
 * root's fsid for libnfs): an export and a kernel mount of it are two
 * places to this check, and so are two btrfs subvolumes of one pool.  A
 * file that several jobs share (filename=) is counted once. */
static int phase_check_space(struct phase_run *pr, char *err, size_t errlen)
{
    struct place {
        struct engine_space sp;
        uint64_t need;
        const char *job;
        int (*space)(struct engine_job *, struct engine_space *);   /* whose identities */
    } *pl;
    /* jobs whose first file is one already counted (filename= shared
     * between jobs) add only what they need beyond it */
    struct counted { uint32_t place; uint64_t file, need; } *seen;
    struct engine_space *sp = xmalloc(sizeof *sp);
    uint32_t npl = 0, nseen = 0;
    int rc = 0;

    pl = xcalloc(pr->njobs ? pr->njobs : 1, sizeof *pl);
    seen = xcalloc(pr->njobs ? pr->njobs : 1, sizeof *seen);
    for (uint32_t i = 0; i < pr->njobs && rc == 0; i++) {
        struct job *j = &pr->jobs[i];
        uint64_t need = 0;
        uint32_t k, s;
        if (!j->eng->space || job_space_needed(j, &need) < 0 || need == 0)
            continue;
        memset(sp, 0, sizeof *sp);
        if (j->eng->space(&j->ej, sp) < 0)
            continue;            /* not known: the I/O will say */
        for (k = 0; k < npl && !(pl[k].sp.fs == sp->fs && pl[k].space == j->eng->space); k++)
            ;
        if (k == npl) {
            pl[npl].sp = *sp;
            pl[npl].space = j->eng->space;
            pl[npl++].job = j->spec->name;
        }
        for (s = 0; s < nseen && !(seen[s].place == k && seen[s].file == sp->file); s++)
            ;
        if (s == nseen) {
            seen[nseen++] = (struct counted){ .place = k, .file = sp->file, .need = need };
            pl[k].need = sat_add_u64(pl[k].need, need);
        } else if (need > seen[s].need) {
            pl[k].need = sat_add_u64(pl[k].need, need - seen[s].need);
            seen[s].need = need;
        }
    }
    for (uint32_t k = 0; k < npl; k++) {
        char need[32], avail[32];
        if (pl[k].need <= pl[k].sp.avail)
            continue;
        snprintf(err, errlen, "job '%s': not enough space: needs %s, %s free on %s", pl[k].job,
                 units_fmt_bytes(need, sizeof need, (double)pl[k].need, 1024),
                 units_fmt_bytes(avail, sizeof avail, (double)pl[k].sp.avail, 1024), pl[k].sp.where);
        rc = -ENOSPC;
        break;
    }
    free(pl);
    free(seen);
    free(sp);
    return rc;
}

/* Stop and join the threads made so far, remove the files this phase
 * created (a failed or stopped prepare leaves nothing of its own behind),
 * then free everything. */
static void phase_unwind(struct phase_run *pr)
{
    halt_raise(&pr->halt);
    for (uint32_t i = 0; i < pr->njobs; i++)
        job_join(&pr->jobs[i]);
    for (uint32_t i = 0; i < pr->njobs; i++)
        if (pr->jobs[i].spec->rw != RW_METADATA)
            job_unlink_files(&pr->jobs[i]);
    phase_free_jobs(pr);
}

/* latency_target: the jobs that have it share one depth, found by one
 * search over their ops (the first such job's settings); depth 1 first. */
static void latency_setup(struct phase_run *pr)
{
    for (uint32_t i = 0; i < pr->njobs; i++) {
        const struct job_spec *js = pr->jobs[i].spec;
        if (!js->latency_target_us || js->rw == RW_METADATA)
            continue;
        if (!pr->lat_on) {
            latctl_init(&pr->lat, (uint64_t)js->latency_target_us * 1000u,
                        js->latency_pct_milli ? js->latency_pct_milli / 1000.0 : 100.0,
                        (uint64_t)js->latency_window_us * 1000u, js->iodepth);
            atomic_store(&pr->depth_cap, pr->lat.cur);
            pr->lat_on = 1;
        }
        pr->jobs[i].depth_cap = &pr->depth_cap;
    }
}

void phase_latency_interval(struct phase_run *pr, const struct op_set *s, uint64_t iv_ns)
{
    if (!pr->lat_on || pr->lat.done || !latctl_interval(&pr->lat, s, iv_ns))
        return;
    atomic_store(&pr->depth_cap, pr->lat.cur);
    if (pr->lat.done)
        halt_raise(&pr->halt);   /* fio's latency_run=0: found, the job ends */
}

int phase_prepare(struct phase_run *pr, const struct phase *ph,
                  const struct agent_identity *id, char *err, size_t errlen)
{
    uint32_t total = 0, n = 0;
    int rc = 0;

    pr->loop_thread = id->loop_thread;
    ASSERT_NOT_LOOP(pr);
    pr->ph = ph;
    for (uint32_t k = 0; k < ph->njobs; k++) {
        if (plan_agents_match(ph->jobs[k].agents, id->index) != 1)
            continue;            /* agents= leaves this agent idle for the job */
        total += ph->jobs[k].numjobs;
        if (ph->jobs[k].ramp_ns > pr->ramp_ns)
            pr->ramp_ns = ph->jobs[k].ramp_ns;
    }
    pr->jobs = xcalloc(total ? total : 1, sizeof *pr->jobs);
    for (uint32_t k = 0; k < ph->njobs && rc == 0; k++) {
        const struct job_spec *js = &ph->jobs[k];
        if (plan_agents_match(js->agents, id->index) != 1)
            continue;
        for (uint32_t t = 0; t < js->numjobs && rc == 0; t++) {
            struct job *j = &pr->jobs[n];
            if (halt_raised(&pr->halt)) {
                rc = -ECANCELED;
                snprintf(err, errlen, "stopped while preparing");
                break;
            }
            pr->njobs = n + 1;
            rc = build_job(j, js, id, &pr->halt, t, n++, err, errlen);
            if (rc < 0)
                break;
            job_files_before_setup(j);
            if ((rc = j->eng->setup(&j->ej)) < 0)
                snprintf(err, errlen, "job '%s': %s", js->name, j->ej.err);
            rc = job_files_after_setup(j, rc, err, errlen);
        }
    }
    /* before writing anything: does it fit? */
    if (rc == 0)
        rc = phase_check_space(pr, err, errlen);
    /* jobs that read (and overwrite=1) need data there, other writers the
     * full size: lay out after every engine is up, so a bad URL fails
     * before any writing, and with a known total for the progress the
     * agent reports */
    for (uint32_t i = 0; i < pr->njobs && rc == 0; i++)
        if (plan_layout_fills(pr->jobs[i].spec) && pr->jobs[i].owns_files)
            for (uint32_t f = 0; f < pr->jobs[i].ej.nfiles; f++)
                atomic_fetch_add(&pr->layout_total,
                                 pr->jobs[i].ej.files[f].size - pr->jobs[i].ej.files[f].start);
    /* the whole total before the first progress: a total that grew while
     * shown read as the layout getting bigger (52% of 512MiB, then 54% of 1GiB) */
    atomic_store(&pr->layout_known, 1);
    for (uint32_t i = 0; i < pr->njobs && rc == 0; i++) {
        struct job *j = &pr->jobs[i];
        if (j->spec->rw == RW_METADATA)
            continue;
        /* verify_only never changes the file it checks (no size, no data):
         * a short file's missing blocks read as missing.  Data or only a
         * size: plan_layout_fills (with verify= the data carries headers,
         * so a mixed phase's reads of what it did not write verify too) */
        if (!j->spec->verify_only)
            rc = job_layout(j, plan_layout_fills(j->spec), &pr->layout_done);
        if (rc == 0 && j->spec->invalidate && j->eng->invalidate)
            j->eng->invalidate(&j->ej);
        if (rc == -ECANCELED)
            snprintf(err, errlen, "stopped while laying out");
        else if (rc < 0)
            snprintf(err, errlen, "job '%s': %s", j->spec->name, j->ej.err);
    }
    /* what the result records of where this phase runs (engines are up) */
    if (rc == 0) {
        pr->storage = xcalloc(STORAGE_PER_PHASE_MAX, sizeof *pr->storage);
        pr->nstorage = phase_storage_describe(pr, pr->storage, STORAGE_PER_PHASE_MAX);
    }
    /* everything a thread needs before its first op, then the threads,
     * which wait for the start: the timed window holds only I/O */
    for (uint32_t i = 0; i < pr->njobs && rc == 0; i++)
        if ((rc = job_prepare(&pr->jobs[i])) < 0)
            snprintf(err, errlen, "job '%s': %s", pr->jobs[i].spec->name, pr->jobs[i].ej.err);
    if (rc == 0) {
        latency_setup(pr);
        flow_setup(pr);
        phase_clones_setup(pr);
    }
    if (rc == 0)
        atomic_store(&pr->running, pr->njobs);
    for (uint32_t i = 0; i < pr->njobs && rc == 0; i++) {
        struct job *j = &pr->jobs[i];
        j->on_finish = on_job_finished;
        j->on_finish_arg = pr;
        if ((rc = job_spawn(j)) < 0) {
            char e[128];
            snprintf(err, errlen, "cannot create job thread %u of %u: %s", i + 1, pr->njobs,
                     engine_strerror(rc, e, sizeof e));
            /* the threads not made will never count down */
            atomic_fetch_sub(&pr->running, pr->njobs - i);
        }
    }
    if (rc < 0) {
        /* threads that did start end without I/O; none may call back */
        pr->on_all_finished = NULL;
        phase_unwind(pr);
    }
    return rc;
}

void phase_sweep_point(struct phase_run *pr, uint32_t depth, uint32_t threads)
{
    uint32_t t = 0;
    /* a sweep never shares its phase with latency_target (plan_parse
     * refuses the pair), so the depth is the point's alone */
    if (depth) {
        atomic_store(&pr->depth_cap, depth);
        for (uint32_t i = 0; i < pr->njobs; i++)
            pr->jobs[i].depth_cap = &pr->depth_cap;
    }
    /* a job's numjobs threads are consecutive in jobs[] (phase_prepare) */
    for (uint32_t i = 0; threads && i < pr->njobs; i++) {
        t = i > 0 && pr->jobs[i - 1].spec == pr->jobs[i].spec ? t + 1 : 0;
        pr->jobs[i].benched = t >= threads;
    }
}

void phase_start(struct phase_run *pr, uint64_t t0_ns)
{
    if (pr->njobs == 0) {
        if (pr->on_all_finished)
            pr->on_all_finished(pr->arg);   /* idle in this phase (agents=) */
        return;
    }
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        const struct job_spec *js = j->spec;
        uint64_t t = t0_ns + js->startdelay_ns;
        j->t_end_ns = js->runtime_ns ? t + js->ramp_ns + js->runtime_ns : 0;
        atomic_store(&j->t_start_ns, t);
    }
    halt_kick(&pr->halt);
}

void phase_harvest(struct phase_run *pr, struct op_set *acc, struct errcause_set *causes)
{
    phase_clones_harvest(pr, acc, causes);   /* and each thread's own figures */
}

void phase_harvest_nfs(struct phase_run *pr, struct nfs_rpc_set *acc)
{
    for (uint32_t i = 0; i < pr->njobs; i++)
        nfs_rpcstat_harvest(pr->jobs[i].ej.rpcstat, acc);
}

void phase_inflight(struct phase_run *pr, uint32_t *n, uint64_t *oldest_age_ns)
{
    uint64_t oldest = UINT64_MAX, now = clock_now_ns();
    *n = 0;
    for (uint32_t i = 0; i < pr->njobs; i++) {
        uint32_t k;
        uint64_t t;
        job_inflight(&pr->jobs[i], &k, &t);
        *n += k;
        if (t < oldest)
            oldest = t;
    }
    *oldest_age_ns = oldest != UINT64_MAX && now > oldest ? now - oldest : 0;
}

void phase_stop(struct phase_run *pr)
{
    halt_raise(&pr->halt);
}

int phase_first_error(struct phase_run *pr, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        if (j->error) {
            snprintf(err, errlen, "job '%s': %s", j->spec->name, j->ej.err);
            return j->error;
        }
    }
    return 0;
}

void phase_finish(struct phase_run *pr)
{
    ASSERT_NOT_LOOP(pr);
    for (uint32_t i = 0; i < pr->njobs; i++)
        job_join(&pr->jobs[i]);
    for (uint32_t i = 0; i < pr->njobs; i++) {
        struct job *j = &pr->jobs[i];
        if (j->spec->unlink && j->spec->rw != RW_METADATA)
            job_unlink_files(j);
    }
    phase_free_jobs(pr);
}

void phase_release(struct phase_run *pr)
{
    phase_clones_free(pr);
    halt_destroy(&pr->halt);
    free(pr->storage);
    pr->storage = NULL;
    pr->nstorage = 0;
}

int phase_each_file(const struct phase *ph, const struct agent_identity *id,
                    int (*fn)(void *arg, const struct job_spec *js, const char *path), void *arg,
                    char *err, size_t errlen)
{
    char path[PLAN_PATH_MAX];
    uint32_t n = 0;
    int rc;

    /* the walk of phase_prepare: g counts this agent's threads across jobs */
    for (uint32_t k = 0; k < ph->njobs; k++) {
        const struct job_spec *js = &ph->jobs[k];
        if (plan_agents_match(js->agents, id->index) != 1)
            continue;
        for (uint32_t t = 0; t < js->numjobs; t++, n++) {
            if (js->rw == RW_METADATA)
                continue;
            for (uint32_t f = 0; f < plan_files_per_thread(js); f++) {
                if ((rc = phase_file_name(js, id, t, n, f, path, sizeof path, err, errlen)) < 0 ||
                    (rc = fn(arg, js, path)) < 0)
                    return rc;
            }
        }
    }
    return 0;
}
