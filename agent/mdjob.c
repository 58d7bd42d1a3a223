/* mdjob: see mdjob.h.  Ops are synchronous engine calls (one in flight per
 * job thread); numjobs gives concurrency.  The names are built once up
 * front so the timed loop only formats nothing and allocates nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/mdjob.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define MD_NAME_MAX PLAN_PATH_MAX

struct md {
    struct job *j;
    uint32_t n;            /* files */
    uint32_t ndirs;        /* subdirectories (files_per_dir), 0 = none */
    char (*file)[MD_NAME_MAX];     /* current name of file i */
    char (*orig)[MD_NAME_MAX];     /* name at create */
    char (*dir)[MD_NAME_MAX];      /* subdirectories, or the work dir alone */
    uint8_t *exists;       /* file i exists now */
    uint8_t *dexists;      /* mkdir'ed i.d exists now */
    char *buf;             /* filesize bytes of data for create */
    int made_workdir;
    int fatal;             /* the engine gave up (its text in ej.err): stop */
};

static void md_record(struct md *m, enum op_type op, uint64_t bytes, uint64_t t0, int rc)
{
    struct job *j = m->j;
    uint64_t now = clock_now_ns();
    atomic_store(&j->recording, 1);
    op_rec_record(&j->stats[atomic_load(&j->active)], op, bytes, now - t0, rc == 0);
    atomic_store(&j->recording, 0);
}

/* One engine call, published as in flight while it runs (stall detection). */
static int md_raw(struct md *m, enum op_type op, const char *a, const char *b, uint64_t size)
{
    uint64_t count = 0;
    atomic_store_explicit(&m->j->oldest_issue_ns, clock_now_ns(), memory_order_relaxed);
    atomic_store_explicit(&m->j->inflight, 1, memory_order_relaxed);
    int rc = m->j->eng->md(&m->j->ej, op, a, b, m->buf, size, &count);
    atomic_store_explicit(&m->j->inflight, 0, memory_order_relaxed);
    /* an op failing is counted; the engine failing (e.g. the server gone
     * past server_timeout, with its reason in ej.err) ends the job */
    if (rc < 0 && m->j->ej.err[0] && !m->fatal)
        m->fatal = rc;
    return rc;
}

static int md_call(struct md *m, enum op_type op, const char *a, const char *b, uint64_t size,
                   int counted)
{
    uint64_t t0 = clock_now_ns();
    int rc = md_raw(m, op, a, b, size);
    if (counted)
        md_record(m, op, op == OP_CREATE ? size : 0, t0, rc);
    return rc;
}

/* A create-like op (create, mkdir) on file i.  With shared_dir and
 * files_per_dir the subdirectories are shared: a job (or agent) that
 * finished may have removed one while it was empty.  It is then made again,
 * uncounted, and the op is measured once, as it finally went. */
static int md_call_in_dir(struct md *m, enum op_type op, const char *a, uint64_t size, uint32_t i)
{
    const struct job_spec *sp = m->j->spec;
    uint64_t t0 = clock_now_ns();
    int rc = md_raw(m, op, a, NULL, size);
    if (rc == -ENOENT && m->ndirs && sp->shared_dir) {
        md_raw(m, OP_MKDIR, m->dir[i / sp->files_per_dir], NULL, 0);
        t0 = clock_now_ns();
        rc = md_raw(m, op, a, NULL, size);
    }
    md_record(m, op, op == OP_CREATE ? size : 0, t0, rc);
    return rc;
}

static int md_stop(const struct md *m)
{
    const struct job *j = m->j;
    return m->fatal || atomic_load_explicit(&j->stop, memory_order_relaxed) ||
           (j->t_end_ns && clock_now_ns() >= j->t_end_ns);
}

/* One pass of md_ops over all files.  Returns 1 if stopped early. */
static int md_pass(struct md *m)
{
    const struct job_spec *sp = m->j->spec;
    char tmp[MD_NAME_MAX + 8];

    for (uint32_t k = 0; k < sp->n_md_ops; k++) {
        enum op_type op = (enum op_type)sp->md_ops[k];
        if (op == OP_READDIR) {
            for (uint32_t d = 0; d < (m->ndirs ? m->ndirs : 1); d++) {
                if (md_stop(m))
                    return 1;
                md_call(m, op, m->dir[d], NULL, 0, 1);
            }
            continue;
        }
        for (uint32_t i = 0; i < m->n; i++) {
            int rc;
            if (md_stop(m))
                return 1;
            switch (op) {
            case OP_CREATE:
                rc = md_call_in_dir(m, op, m->file[i], sp->filesize, i);
                if (rc == 0)
                    m->exists[i] = 1;
                break;
            case OP_RENAME:
                snprintf(tmp, sizeof tmp, "%s.r", m->orig[i]);
                if (strcmp(m->file[i], tmp) == 0)   /* renamed already: back */
                    snprintf(tmp, sizeof tmp, "%s", m->orig[i]);
                if (md_call(m, op, m->file[i], tmp, 0, 1) == 0)
                    snprintf(m->file[i], MD_NAME_MAX, "%s", tmp);
                break;
            case OP_UNLINK:
                if (md_call(m, op, m->file[i], NULL, 0, 1) == 0)
                    m->exists[i] = 0;
                break;
            case OP_MKDIR:
            case OP_RMDIR:
                snprintf(tmp, sizeof tmp, "%s.d", m->orig[i]);
                rc = op == OP_MKDIR ? md_call_in_dir(m, op, tmp, 0, i) : md_call(m, op, tmp, NULL, 0, 1);
                if (rc == 0)
                    m->dexists[i] = op == OP_MKDIR;
                break;
            default:   /* OP_STAT, OP_OPEN */
                md_call(m, op, m->file[i], NULL, 0, 1);
                break;
            }
        }
    }
    return 0;
}

/* Remove what a pass left, uncounted. */
static void md_clean(struct md *m)
{
    char tmp[MD_NAME_MAX + 8];
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->exists[i] && md_call(m, OP_UNLINK, m->file[i], NULL, 0, 0) == 0)
            m->exists[i] = 0;
        snprintf(m->file[i], MD_NAME_MAX, "%s", m->orig[i]);
        if (m->dexists[i]) {
            snprintf(tmp, sizeof tmp, "%s.d", m->orig[i]);
            md_call(m, OP_RMDIR, tmp, NULL, 0, 0);
            m->dexists[i] = 0;
        }
    }
}

int mdjob_run(struct job *j)
{
    const struct job_spec *sp = j->spec;
    const char *base = j->workdir;
    struct md m;
    int rc = 0;

    if (!j->eng->md) {
        snprintf(j->ej.err, sizeof j->ej.err, "ioengine=%s has no metadata ops", j->eng->name);
        return -ENOTSUP;
    }
    memset(&m, 0, sizeof m);
    m.j = j;
    m.n = sp->nrfiles;
    m.ndirs = sp->files_per_dir ? (m.n + sp->files_per_dir - 1) / sp->files_per_dir : 0;
    m.file = xcalloc(m.n, MD_NAME_MAX);
    m.orig = xcalloc(m.n, MD_NAME_MAX);
    m.dir = xcalloc(m.ndirs ? m.ndirs : 1, MD_NAME_MAX);
    m.exists = xcalloc(m.n, 1);
    m.dexists = xcalloc(m.n, 1);
    m.buf = xcalloc(1, sp->filesize ? sp->filesize : 1);
    if (!sp->shared_dir) {
        rc = md_call(&m, OP_MKDIR, base, NULL, 0, 0);
        m.made_workdir = rc == 0;
        if (rc == -EEXIST)
            rc = 0;
    }
    if (m.ndirs == 0)
        snprintf(m.dir[0], MD_NAME_MAX, "%s", base);
    for (uint32_t d = 0; d < m.ndirs && rc == 0; d++) {
        snprintf(m.dir[d], MD_NAME_MAX, "%s/d%u", base, d);
        rc = md_call(&m, OP_MKDIR, m.dir[d], NULL, 0, 0);
        if (rc == -EEXIST)      /* shared_dir: another thread or agent made it */
            rc = 0;
    }
    if (rc < 0) {
        snprintf(j->ej.err, sizeof j->ej.err, "%s: cannot create the job's directory: %s",
                 base, strerror(-rc));
        goto out;
    }
    for (uint32_t i = 0; i < m.n; i++) {
        snprintf(m.orig[i], MD_NAME_MAX, "%s/%s.%u.%u.%u", m.dir[m.ndirs ? i / sp->files_per_dir : 0],
                 sp->name, j->ej.agent_index, j->ej.job_index, i);
        snprintf(m.file[i], MD_NAME_MAX, "%s", m.orig[i]);
    }
    j->t_first_ns = clock_now_ns();
    do {
        if (md_pass(&m))
            break;
        md_clean(&m);
    } while (sp->time_based && !md_stop(&m));
    if (m.fatal)
        rc = m.fatal;
out:
    md_clean(&m);
    /* subdirectories and the work dir go if empty (shared ones may not be) */
    for (uint32_t d = 0; d < m.ndirs; d++)
        md_call(&m, OP_RMDIR, m.dir[d], NULL, 0, 0);
    if (m.made_workdir)
        md_call(&m, OP_RMDIR, base, NULL, 0, 0);
    free(m.file);
    free(m.orig);
    free(m.dir);
    free(m.exists);
    free(m.dexists);
    free(m.buf);
    return rc;
}
