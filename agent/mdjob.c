/* mdjob: see mdjob.h.  Ops are synchronous engine calls (one in flight per
 * job thread); numjobs gives concurrency.  Names are generated when an op
 * needs them (one snprintf into a stack buffer, next to a system call or an
 * RPC), not stored: a file costs one byte of state, so nrfiles=1000000 is
 * 1 MB per thread instead of 2 GB of names.  The timed loop allocates
 * nothing.
 *
 * What a job creates it tracks (MD_EXISTS, MD_DEXISTS) and removes at the
 * end, also when a create failed half-way (the file exists, its data did
 * not fit): a full file system must not leave names that make the next
 * run fail with EEXIST.  An error no retry cures (engine_error_persistent)
 * ends the job at once, named. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/halt.h"
#include "agent/mdjob.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define MD_NAME_MAX PLAN_PATH_MAX

/* state[i] of file i */
#define MD_EXISTS   1u     /* the file exists now */
#define MD_DEXISTS  2u     /* its mkdir'ed <name>.d exists now */
#define MD_RENAMED  4u     /* it is called <name>.r now */

struct md {
    struct job *j;
    uint32_t n;            /* files */
    uint32_t ndirs;        /* subdirectories (files_per_dir), 0 = none */
    uint8_t *state;        /* [n] MD_* bits */
    char *buf;             /* filesize bytes of data for create */
    int made_workdir;
    int fatal;             /* the engine gave up (its text in ej.err): stop */
};

static const char *md_op_name(enum op_type op)
{
    switch (op) {
    case OP_CREATE: return "create";
    case OP_STAT: return "stat";
    case OP_OPEN: return "open";
    case OP_READDIR: return "readdir";
    case OP_RENAME: return "rename";
    case OP_UNLINK: return "unlink";
    case OP_MKDIR: return "mkdir";
    case OP_RMDIR: return "rmdir";
    default: return "metadata op";
    }
}

/* Directory d: the work dir itself without files_per_dir, else d<d> in it. */
static const char *md_dir(const struct md *m, uint32_t d, char *out, size_t len)
{
    if (m->ndirs == 0)
        snprintf(out, len, "%s", m->j->workdir);
    else
        snprintf(out, len, "%s/d%u", m->j->workdir, d);
    return out;
}

/* File i's name at create, plus suffix ("", ".r", ".d"). */
static const char *md_name(const struct md *m, uint32_t i, const char *suffix, char *out, size_t len)
{
    const struct job_spec *sp = m->j->spec;
    char dir[MD_NAME_MAX];
    md_dir(m, m->ndirs ? i / sp->files_per_dir : 0, dir, sizeof dir);
    snprintf(out, len, "%s/%s.%u.%u.%u%s", dir, sp->name, m->j->ej.agent_index, m->j->ej.job_index,
             i, suffix);
    return out;
}

/* File i's current name (renamed or not). */
static const char *md_file(const struct md *m, uint32_t i, char *out, size_t len)
{
    return md_name(m, i, m->state[i] & MD_RENAMED ? ".r" : "", out, len);
}

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
    if (rc < 0 && !m->fatal && engine_error_persistent(rc)) {
        char e[128];
        struct engine_job *ej = &m->j->ej;
        m->fatal = rc;
        snprintf(ej->err, sizeof ej->err, "%s: %s failed: %s%s%s", a, md_op_name(op),
                 engine_strerror(rc, e, sizeof e), ej->detail[0] ? ": " : "", ej->detail);
    }
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
        char dir[MD_NAME_MAX];
        md_raw(m, OP_MKDIR, md_dir(m, i / sp->files_per_dir, dir, sizeof dir), NULL, 0);
        t0 = clock_now_ns();
        rc = md_raw(m, op, a, NULL, size);
    }
    md_record(m, op, op == OP_CREATE ? size : 0, t0, rc);
    if (rc < 0 && rc != -EEXIST && rc != -ENOENT)
        md_raw(m, op == OP_CREATE ? OP_UNLINK : OP_RMDIR, a, NULL, 0);  /* half-made: ours */
    return rc;
}

static int md_stop(const struct md *m)
{
    const struct job *j = m->j;
    return m->fatal || halt_raised(j->halt) || atomic_load_explicit(&j->stop, memory_order_relaxed) ||
           (j->t_end_ns && clock_now_ns() >= j->t_end_ns);
}

/* One pass of md_ops over all files.  Returns 1 if stopped early. */
static int md_pass(struct md *m)
{
    const struct job_spec *sp = m->j->spec;
    char name[MD_NAME_MAX + 64], tmp[MD_NAME_MAX + 64];

    for (uint32_t k = 0; k < sp->n_md_ops; k++) {
        enum op_type op = (enum op_type)sp->md_ops[k];
        if (op == OP_READDIR) {
            for (uint32_t d = 0; d < (m->ndirs ? m->ndirs : 1); d++) {
                if (md_stop(m))
                    return 1;
                md_call(m, op, md_dir(m, d, name, sizeof name), NULL, 0, 1);
            }
            continue;
        }
        for (uint32_t i = 0; i < m->n; i++) {
            int rc;
            if (md_stop(m))
                return 1;
            switch (op) {
            case OP_CREATE:
                rc = md_call_in_dir(m, op, md_file(m, i, name, sizeof name), sp->filesize, i);
                if (rc == 0)
                    m->state[i] |= MD_EXISTS;
                break;
            case OP_RENAME:
                /* <name> -> <name>.r, or back when renamed already */
                md_name(m, i, m->state[i] & MD_RENAMED ? "" : ".r", tmp, sizeof tmp);
                if (md_call(m, op, md_file(m, i, name, sizeof name), tmp, 0, 1) == 0)
                    m->state[i] ^= MD_RENAMED;
                break;
            case OP_UNLINK:
                if (md_call(m, op, md_file(m, i, name, sizeof name), NULL, 0, 1) == 0)
                    m->state[i] &= (uint8_t)~MD_EXISTS;
                break;
            case OP_MKDIR:
            case OP_RMDIR:
                md_name(m, i, ".d", tmp, sizeof tmp);
                rc = op == OP_MKDIR ? md_call_in_dir(m, op, tmp, 0, i) : md_call(m, op, tmp, NULL, 0, 1);
                if (rc == 0 && op == OP_MKDIR)
                    m->state[i] |= MD_DEXISTS;
                else if (rc == 0)
                    m->state[i] &= (uint8_t)~MD_DEXISTS;
                break;
            default:   /* OP_STAT, OP_OPEN */
                md_call(m, op, md_file(m, i, name, sizeof name), NULL, 0, 1);
                break;
            }
        }
    }
    return 0;
}

/* Remove what a pass left, uncounted; every file is back to its name. */
static void md_clean(struct md *m)
{
    char tmp[MD_NAME_MAX + 64];
    for (uint32_t i = 0; i < m->n; i++) {
        if ((m->state[i] & MD_EXISTS) && md_call(m, OP_UNLINK, md_file(m, i, tmp, sizeof tmp), NULL, 0, 0) == 0)
            m->state[i] &= (uint8_t)~MD_EXISTS;
        m->state[i] &= (uint8_t)~MD_RENAMED;
        if (m->state[i] & MD_DEXISTS) {
            md_call(m, OP_RMDIR, md_name(m, i, ".d", tmp, sizeof tmp), NULL, 0, 0);
            m->state[i] &= (uint8_t)~MD_DEXISTS;
        }
    }
}

int mdjob_run(struct job *j)
{
    const struct job_spec *sp = j->spec;
    const char *base = j->workdir;
    char dir[MD_NAME_MAX + 16];
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
    m.state = xcalloc(m.n, 1);
    m.buf = xcalloc(1, sp->filesize ? sp->filesize : 1);
    if (!sp->shared_dir) {
        rc = md_call(&m, OP_MKDIR, base, NULL, 0, 0);
        m.made_workdir = rc == 0;
        if (rc == -EEXIST)
            rc = 0;
    }
    for (uint32_t d = 0; d < m.ndirs && rc == 0; d++) {
        rc = md_call(&m, OP_MKDIR, md_dir(&m, d, dir, sizeof dir), NULL, 0, 0);
        if (rc == -EEXIST)      /* shared_dir: another thread or agent made it */
            rc = 0;
    }
    if (rc < 0) {
        snprintf(j->ej.err, sizeof j->ej.err, "%s: cannot create the job's directory: %s",
                 base, strerror(-rc));
        goto out;
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
        md_call(&m, OP_RMDIR, md_dir(&m, d, dir, sizeof dir), NULL, 0, 0);
    if (m.made_workdir)
        md_call(&m, OP_RMDIR, base, NULL, 0, 0);
    free(m.state);
    free(m.buf);
    return rc;
}
