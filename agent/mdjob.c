/* mdjob: see mdjob.h.  Ops are synchronous engine calls (one in flight per
 * job thread); numjobs gives concurrency.  Names are generated when an op
 * needs them (one snprintf into a stack buffer, next to a system call or an
 * RPC), not stored: a file costs three bits of state (bitmaps by file
 * index), so nrfiles=1000000 is 375 KB per thread instead of 2 GB of names.
 * The timed loop allocates nothing.
 *
 * What a job creates it tracks (mine, dmine) and removes at the end, also
 * when a create failed half-way (the file exists, its data did not fit): a
 * full file system must not leave names that make the next run fail with
 * EEXIST.  Only those names are ever renamed or removed: an op on any other
 * name is counted as failed without being issued.  An error no retry cures
 * (engine_error_persistent) ends the job at once, named. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/halt.h"
#include "agent/mdjob.h"
#include "common/clock.h"
#include "common/xmalloc.h"

#define MD_NAME_MAX PLAN_PATH_MAX

static int bit_get(const uint8_t *b, uint32_t i) { return (b[i >> 3] >> (i & 7)) & 1; }
static void bit_set(uint8_t *b, uint32_t i) { b[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static void bit_clear(uint8_t *b, uint32_t i) { b[i >> 3] &= (uint8_t)~(1u << (i & 7)); }

/* Per file i, one bit in each map: three bits a file, so nrfiles=1000000
 * costs 375 KB per thread. */
struct md {
    struct job *j;
    uint32_t n;            /* files */
    uint32_t ndirs;        /* subdirectories (files_per_dir), 0 = none */
    uint8_t *mine;         /* file i exists and this job created it */
    uint8_t *dmine;        /* its <name>.d exists and this job made it */
    uint8_t *renamed;      /* it is called <name>.r now */
    uint8_t *found;        /* subdirectory d existed before the phase: not
                              this run's to remove (j->md_found, or NULL) */
    char *buf;             /* filesize bytes of data for create */
    int made_workdir;
    int fatal;             /* the engine gave up (its text in ej.err): stop */
    uint64_t foreign;      /* creates, mkdirs, renames that met a name this
                              job did not make (EEXIST): counted failed */
    char foreign_name[MD_NAME_MAX + 64];  /* the first of them */
    enum op_type foreign_op;
};


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
    return md_name(m, i, bit_get(m->renamed, i) ? ".r" : "", out, len);
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
        snprintf(ej->err, sizeof ej->err, "%s: %s failed: %s%s%s", a, op_type_name(op),
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
        job_record_op(m->j, op, op == OP_CREATE ? size : 0, t0, rc, a, 0);
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
    job_record_op(m->j, op, op == OP_CREATE ? size : 0, t0, rc, a, 0);
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

/* An op on a name this job does not hold (never made, or made by someone
 * else): it is not issued, only counted as failed, so nothing the job did
 * not create is ever opened, renamed or removed. */
static void md_not_held(struct md *m, enum op_type op)
{
    job_record_op(m->j, op, 0, clock_now_ns(), -ENOENT, "", 0);
}

/* The op met a name that exists and is not ours: left alone, remembered
 * for the job's error. */
static void md_foreign(struct md *m, enum op_type op, const char *name)
{
    if (m->foreign++ == 0) {
        snprintf(m->foreign_name, sizeof m->foreign_name, "%s", name);
        m->foreign_op = op;
    }
}

/* A create or mkdir of name came back rc: made, the job holds it (bit i
 * of mine); there already, it is someone else's. */
static void md_made(struct md *m, enum op_type op, int rc, uint8_t *mine, uint32_t i, const char *name)
{
    if (rc == 0)
        bit_set(mine, i);
    else if (rc == -EEXIST)
        md_foreign(m, op, name);
}

/* Unlink file i or rmdir directory i (counted: a timed op, else cleanup);
 * gone (ENOENT too), it is not the job's any more. */
static void md_remove(struct md *m, enum op_type op, uint32_t i, int counted)
{
    char name[MD_NAME_MAX + 64];
    int dir = op == OP_RMDIR;
    int rc = md_call(m, op, dir ? md_name(m, i, ".d", name, sizeof name) : md_file(m, i, name, sizeof name),
                     NULL, 0, counted);
    if (rc == 0 || rc == -ENOENT) {
        bit_clear(dir ? m->dmine : m->mine, i);
        if (!dir)
            bit_clear(m->renamed, i);
    }
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
            /* create and mkdir take a name the job does not hold (a create
             * held already: an unlink failed), the others one it holds */
            int dir = op == OP_MKDIR || op == OP_RMDIR, rc;
            if (md_stop(m))
                return 1;
            if (bit_get(dir ? m->dmine : m->mine, i) == (op == OP_CREATE || op == OP_MKDIR)) {
                md_not_held(m, op);
                continue;
            }
            switch (op) {
            case OP_CREATE:
                md_made(m, op, md_call_in_dir(m, op, md_file(m, i, name, sizeof name), sp->filesize, i),
                        m->mine, i, name);
                break;
            case OP_RENAME:
                /* <name> -> <name>.r, or back when renamed already; the
                 * engine never replaces an existing target */
                md_name(m, i, bit_get(m->renamed, i) ? "" : ".r", tmp, sizeof tmp);
                rc = md_call(m, op, md_file(m, i, name, sizeof name), tmp, 0, 1);
                if (rc == 0)
                    m->renamed[i >> 3] ^= (uint8_t)(1u << (i & 7));
                else if (rc == -EEXIST)
                    md_foreign(m, op, tmp);
                break;
            case OP_MKDIR:
                md_name(m, i, ".d", tmp, sizeof tmp);
                md_made(m, op, md_call_in_dir(m, op, tmp, 0, i), m->dmine, i, tmp);
                break;
            case OP_UNLINK:
            case OP_RMDIR:
                md_remove(m, op, i, 1);
                break;
            default:   /* OP_STAT, OP_OPEN: only on what the job holds */
                md_call(m, op, md_file(m, i, name, sizeof name), NULL, 0, 1);
                break;
            }
        }
    }
    return 0;
}

/* Remove what a pass left, uncounted: only what this job made. */
static void md_clean(struct md *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        if (bit_get(m->mine, i))
            md_remove(m, OP_UNLINK, i, 0);
        if (bit_get(m->dmine, i))
            md_remove(m, OP_RMDIR, i, 0);
    }
}

static uint32_t md_ndirs(const struct job_spec *sp)
{
    return sp->files_per_dir ? (sp->nrfiles + sp->files_per_dir - 1) / sp->files_per_dir : 0;
}

/* mkdir -p of the work directory's parents beneath the root (kernel
 * mounts), through the engine's confined mkdir: a symlink on the way that
 * leads out of the root fails it instead of being followed. */
static int md_make_parents(struct job *j)
{
    const char *root = j->ej.root;
    size_t rl = strlen(root);
    char p[MD_NAME_MAX], *last, *s;
    uint64_t n;

    snprintf(p, sizeof p, "%s", j->workdir);
    if (strcmp(root, "/") == 0)
        rl = 0;
    else if (strncmp(p, root, rl) != 0 || p[rl] != '/')
        return 0;              /* the engine refuses it by name later */
    if (!(last = strrchr(p, '/')) || (size_t)(last - p) <= rl)
        return 0;              /* its parent is the root */
    *last = '\0';
    for (s = p + rl + 1;; s++) {
        int rc;
        if ((s = strchr(s, '/')) != NULL)
            *s = '\0';
        rc = j->eng->md(&j->ej, OP_MKDIR, p, NULL, NULL, 0, &n);
        if (rc < 0 && rc != -EEXIST) {
            char e[128];
            snprintf(j->ej.err, sizeof j->ej.err, "%s: cannot create its directory: %s%s", p,
                     engine_strerror(rc, e, sizeof e),
                     rc == -EXDEV ? " (it leads outside the allowed directory)" : "");
            return rc;
        }
        if (!s)
            return 0;
        *s = '/';
    }
}

int mdjob_prepare(struct job *j)
{
    const struct job_spec *sp = j->spec;
    uint32_t ndirs = md_ndirs(sp);
    struct md m;
    char dir[MD_NAME_MAX + 16];
    uint64_t n;

    int rc;

    j->ej.md_base = j->workdir;
    if (!j->eng->md)
        return 0;
    if (j->ej.root && (rc = md_make_parents(j)) < 0)
        return rc;
    if (ndirs == 0)
        return 0;
    memset(&m, 0, sizeof m);
    m.j = j;
    m.ndirs = ndirs;
    /* a work directory that does not exist yet has no subdirectories */
    if (j->eng->md(&j->ej, OP_STAT, j->workdir, NULL, NULL, 0, &n) == -ENOENT)
        return 0;
    j->md_found = xcalloc((ndirs + 7) / 8, 1);
    for (uint32_t d = 0; d < ndirs; d++) {
        if (halt_raised(j->halt)) {
            snprintf(j->ej.err, sizeof j->ej.err, "stopped while preparing");
            return -ECANCELED;
        }
        if (j->eng->md(&j->ej, OP_STAT, md_dir(&m, d, dir, sizeof dir), NULL, NULL, 0, &n) != -ENOENT)
            bit_set(j->md_found, d);
    }
    j->ej.err[0] = '\0';
    return 0;
}

int mdjob_run(struct job *j)
{
    const struct job_spec *sp = j->spec;
    const char *base = j->workdir;
    char dir[MD_NAME_MAX + 16];
    size_t bytes;
    struct md m;
    int rc = 0;

    if (!j->eng->md) {
        snprintf(j->ej.err, sizeof j->ej.err, "ioengine=%s has no metadata ops", j->eng->name);
        return -ENOTSUP;
    }
    memset(&m, 0, sizeof m);
    m.j = j;
    m.n = sp->nrfiles;
    m.ndirs = md_ndirs(sp);
    m.found = j->md_found;
    j->ej.md_base = base;
    bytes = ((size_t)m.n + 7) / 8;
    m.mine = xcalloc(bytes ? bytes : 1, 1);
    m.dmine = xcalloc(bytes ? bytes : 1, 1);
    m.renamed = xcalloc(bytes ? bytes : 1, 1);
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
        char e[128];
        snprintf(j->ej.err, sizeof j->ej.err, "%s: cannot create the job's directory: %s%s", base,
                 engine_strerror(rc, e, sizeof e),
                 rc == -EXDEV ? " (it leads outside the allowed directory)" : "");
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
    else if (m.foreign) {
        char e[128];
        rc = -EEXIST;
        snprintf(j->ej.err, sizeof j->ej.err,
                 "%s: %s failed: %s: this run did not create it, so it was left alone "
                 "(%llu failed op%s like it)", m.foreign_name, op_type_name(m.foreign_op),
                 engine_strerror(rc, e, sizeof e), (unsigned long long)m.foreign,
                 m.foreign == 1 ? "" : "s");
    }
out:
    md_clean(&m);
    /* subdirectories this run made go if empty (shared ones may not be
     * yet: the last job out removes them); never one that was there
     * before the phase */
    for (uint32_t d = 0; d < m.ndirs; d++)
        if (m.made_workdir || !m.found || !bit_get(m.found, d))
            md_call(&m, OP_RMDIR, md_dir(&m, d, dir, sizeof dir), NULL, 0, 0);
    if (m.made_workdir)
        md_call(&m, OP_RMDIR, base, NULL, 0, 0);
    free(m.mine);
    free(m.dmine);
    free(m.renamed);
    free(m.buf);
    free(j->md_found);
    j->md_found = NULL;
    return rc;
}
