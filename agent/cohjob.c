/* cohjob: rw=coherence on an agent (see cohjob.h).
 *
 * Instants are nanoseconds since the phase's start instant t0 (the start
 * message's, in this agent's clock; startdelay is taken off), which every
 * agent of the run shares to within its clock offset's error: a writer's
 * stamp and a reader's "seen" are thus comparable across machines.
 *
 * A reader keeps, per writer, the next generation it waits for and polls
 * each writer in turn; a generation seen lets it try the next one at once
 * (several may have become visible together), one still invisible
 * coherence_deadline after it was due is counted as never visible and
 * skipped.  Polls and writes are recorded as ops (read or stat, write) so
 * the phase's usual report shows their rate and latency too. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent/cohjob.h"
#include "agent/halt.h"
#include "agent/paths.h"
#include "common/clock.h"
#include "common/plan_files.h"
#include "common/xmalloc.h"

struct cohjob {
    uint32_t self;
    int writes;               /* this agent is a writer */
    uint32_t nw;              /* writers this agent polls (0 for a writer) */
    uint32_t *w;              /* [nw] their indexes */
    char (*path)[PLAN_PATH_MAX]; /* [nw], or [1]: the writer's own file */
    unsigned char *blk;       /* bs bytes */
    struct coh_set res;       /* one pair per polled writer */
};

int cohjob_build(struct job *j, const struct job_spec *js, const struct agent_identity *id,
                 char *err, size_t errlen)
{
    const char *wspec = js->coherence_writers[0] ? js->coherence_writers : "0";
    struct cohjob *c = xcalloc(1, sizeof *c);
    uint32_t n = id->nagents ? id->nagents : 1;
    int rc = 0;

    j->coh = c;
    c->self = id->index;
    c->w = xcalloc(n, sizeof *c->w);
    c->blk = xcalloc(1, js->bs);
    coh_set_init(&c->res);
    /* the writers of the run, whichever job they write in: a reader job
     * may name the writers' files its own way (another directory) */
    for (uint32_t a = 0; a < id->nagents; a++)
        if (plan_agents_match(wspec, a) == 1)
            c->w[c->nw++] = a;
    if (c->nw == 0) {
        snprintf(err, errlen, "job '%s': coherence_writers=%s selects no agent of the %u", js->name,
                 wspec, id->nagents);
        return -EINVAL;
    }
    if (c->nw > COH_PAIRS_MAX) {
        snprintf(err, errlen, "job '%s': more than %d coherence writers", js->name, COH_PAIRS_MAX);
        return -E2BIG;
    }
    c->path = xcalloc(c->nw, sizeof *c->path);   /* at most COH_PAIRS_MAX x PLAN_PATH_MAX */
    for (uint32_t i = 0; i < c->nw && rc == 0; i++) {
        struct agent_identity wid = *id;
        char full[PLAN_PATH_MAX];
        wid.index = c->w[i];
        if ((rc = phase_file_name(js, &wid, 0, 0, 0, full, sizeof full, err, errlen)) == 0)
            rc = paths_confine(id->allow, full, c->path[i], sizeof c->path[i], err, errlen);
        for (uint32_t k = 0; k < i && rc == 0; k++)
            if (strcmp(c->path[k], c->path[i]) == 0) {
                snprintf(err, errlen, "job '%s': coherence writers %u and %u would share %s "
                         "(put ${agent} in filename or directory)", js->name, c->w[k], c->w[i], c->path[i]);
                rc = -EINVAL;
            }
    }
    for (uint32_t i = 0; i < c->nw && rc == 0; i++)
        if (c->w[i] == id->index) {   /* a writer polls no one: only its own file */
            c->writes = 1;
            memmove(c->path[0], c->path[i], sizeof c->path[0]);
        }
    if (rc == 0) {             /* where it works, for the storage report */
        char *slash;
        snprintf(j->workdir, sizeof j->workdir, "%s", c->path[0]);
        if ((slash = strrchr(j->workdir, '/')) != NULL)
            slash == j->workdir ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
    }
    if (c->writes)
        c->nw = 0;
    for (uint32_t i = 0; i < c->nw && rc == 0; i++)
        (void)coh_set_pair(&c->res, c->w[i], c->self, COH_PAIRS_MAX);
    return rc;
}

int cohjob_prepare(struct job *j)
{
    struct cohjob *c = j->coh;
    uint32_t n = c->writes ? 1 : c->nw;

    /* every agent removes the files it will write or poll: an earlier
     * run's generations must not look visible (all agents prepare before
     * any starts, so no write of this run can be removed) */
    for (uint32_t i = 0; i < n; i++)
        if ((c->writes && paths_make_parents(c->path[i]) < 0) ||
            (unlink(c->path[i]) < 0 && errno != ENOENT)) {
            int e = errno;
            snprintf(j->ej.err, sizeof j->ej.err, "%s: %s", c->path[i], strerror(e));
            return -e;
        }
    return 0;
}

static int write_gens(struct job *j, uint64_t t0)
{
    const struct job_spec *sp = j->spec;
    struct cohjob *c = j->coh;
    uint64_t gens = sp->size / sp->bs;
    int fd = -1, rc = 0;

    for (uint64_t g = 1; g <= gens && rc == 0; g++) {
        uint64_t t;
        if (halt_sleep_until(j->halt, t0 + (g - 1) * sp->coherence_period_ns) != 0 || atomic_load(&j->stop))
            break;
        t = clock_now_ns();
        if (fd < 0 && (fd = open(c->path[0], O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
            rc = -errno;
        coh_stamp_put(c->blk, c->self, g, t - t0);
        if (rc == 0 && pwrite(fd, c->blk, sp->bs, (off_t)((g - 1) * sp->bs)) != (ssize_t)sp->bs)
            rc = errno ? -errno : -EIO;
        if (rc == 0 && strcmp(sp->coherence_close, "fsync") == 0 && fsync(fd) < 0)
            rc = -errno;
        if (fd >= 0 && strcmp(sp->coherence_close, "close") == 0) {
            if (close(fd) < 0 && rc == 0)
                rc = -errno;
            fd = -1;
        }
        job_record_op(j, OP_WRITE, sp->bs, t, rc, c->path[0], (g - 1) * sp->bs);
    }
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        snprintf(j->ej.err, sizeof j->ej.err, "%s: coherence write failed: %s", c->path[0], strerror(-rc));
    return rc;
}

/* One poll of generation g of file i: 1 and the writer's stamp time when
 * it is visible, 0 when not yet (missing, short, older). */
static int poll_once(struct job *j, uint32_t i, uint64_t g, uint64_t due_ns, uint64_t *t_ns)
{
    const struct job_spec *sp = j->spec;
    struct cohjob *c = j->coh;
    uint64_t t = clock_now_ns(), gen = 0, t_w = 0;
    uint32_t writer = 0;
    int stat_mode = strcmp(sp->coherence_poll, "stat") == 0, seen = 0, fd;

    if (stat_mode) {
        struct stat st;
        int ok = stat(c->path[i], &st) == 0, e = ok ? 0 : errno;
        job_record_op(j, OP_STAT, 0, t, ok || e == ENOENT ? 0 : -e, c->path[i], 0);
        if (!ok || (uint64_t)st.st_size < g * sp->bs)
            return 0;
        *t_ns = due_ns;        /* unless the stamp is readable already */
        seen = 1;
        t = clock_now_ns();
    }
    fd = open(c->path[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = pread(fd, c->blk, COH_STAMP_LEN, (off_t)((g - 1) * sp->bs));
        int e = n < 0 ? errno : 0;
        if (!stat_mode)
            job_record_op(j, OP_READ, n > 0 ? (uint64_t)n : 0, t, -e, c->path[i], (g - 1) * sp->bs);
        if (n == COH_STAMP_LEN && coh_stamp_get(c->blk, (size_t)n, &writer, &gen, &t_w) == 0 &&
            writer == c->w[i] && gen == g) {
            *t_ns = t_w;
            seen = 1;
        }
        close(fd);
    } else if (!stat_mode)
        job_record_op(j, OP_READ, 0, t, errno == ENOENT ? 0 : -errno, c->path[i], 0);   /* not there: no error */
    return seen;
}

static int read_gens(struct job *j, uint64_t t0)
{
    const struct job_spec *sp = j->spec;
    struct cohjob *c = j->coh;
    uint64_t gens = sp->size / sp->bs;
    uint64_t *next = xcalloc(c->nw, sizeof *next);
    uint32_t left = c->nw;

    for (uint32_t i = 0; i < c->nw; i++)
        next[i] = 1;
    while (left > 0 && !atomic_load(&j->stop)) {
        for (uint32_t i = 0; i < c->nw; i++) {
            struct coh_pair *p = &c->res.pair[i];
            while (next[i] <= gens) {
                uint64_t g = next[i], due = (g - 1) * sp->coherence_period_ns, t_w = 0;
                if (poll_once(j, i, g, due, &t_w)) {
                    uint64_t now = clock_now_ns() - t0;
                    hist_record(&p->lag, now > t_w ? now - t_w : 0);
                    p->seen++;
                } else if (clock_now_ns() - t0 > due + sp->coherence_deadline_ns) {
                    p->never++;
                } else
                    break;
                if (++next[i] > gens)
                    left--;
            }
        }
        if (left && halt_sleep_until(j->halt, clock_now_ns() + sp->coherence_poll_interval_ns) != 0)
            break;
    }
    free(next);
    return 0;
}

int cohjob_run(struct job *j)
{
    uint64_t t0 = atomic_load(&j->t_start_ns) - j->spec->startdelay_ns;

    j->t_first_ns = clock_now_ns();
    return j->coh->writes ? write_gens(j, t0) : read_gens(j, t0);
}

void cohjob_collect(const struct phase_run *pr, struct coh_set *out)
{
    for (uint32_t i = 0; i < pr->njobs; i++)
        if (pr->jobs[i].coh)
            (void)coh_set_merge(out, &pr->jobs[i].coh->res, COH_PAIRS_MAX);
}

void cohjob_free(struct job *j)
{
    struct cohjob *c = j->coh;

    if (!c)
        return;
    coh_set_free(&c->res);
    free(c->w);
    free(c->path);
    free(c->blk);
    free(c);
    j->coh = NULL;
}
