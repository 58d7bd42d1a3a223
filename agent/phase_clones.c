/* phase_clones: per-thread figures of a phase (see phase_clones.h).
 *
 * Why a scratch op_set per harvest: a thread's recording form is drained
 * once (job_harvest empties it), and its ops must reach both the phase's
 * interval and the thread's own figures; draining into a blank op_set and
 * adding that twice keeps every sum exact (the phase totals are the same
 * bytes as without this module). */
#include "agent/phase_clones.h"

#include <stdlib.h>
#include "agent/phase.h"
#include "common/xmalloc.h"

static uint32_t job_of(const struct phase_run *pr, const struct job *j)
{
    return (uint32_t)(j->spec - pr->ph->jobs);
}

/* Blank the op types a harvest filled: a thread fills one or two, and
 * blanking all eleven (~400 KB) per thread per interval would cost the
 * agent more than the harvest itself. */
static void scratch_clear(struct op_set *s)
{
    for (int t = 0; t < OP__COUNT; t++) {
        struct op_stats *o = &s->op[t];

        if (!o->ops && !o->errors && !o->bytes && !o->timeouts && !o->lat.count && !o->svc.count)
            continue;
        o->ops = o->bytes = o->errors = o->timeouts = 0;
        hist_init(&o->lat);
        hist_init(&o->svc);
    }
}

void phase_clones_setup(struct phase_run *pr)
{
    struct phase_clones *c = &pr->clones;

    if (pr->njobs == 0 || pr->njobs > CLONE_SET_MAX)
        return;
    c->n = pr->njobs;
    c->tot = xcalloc(c->n, sizeof(*c->tot));
    c->scratch = xmalloc(sizeof(*c->scratch));
    op_set_init(c->scratch);
    clone_set_init(&c->iv);
    for (uint32_t i = 0; i < c->n; i++)
        op_rec_init(&c->tot[i]);
}

void phase_clones_want_intervals(struct phase_run *pr)
{
    struct phase_clones *c = &pr->clones;

    if (c->iv.n)
        return;                           /* asked already */
    for (uint32_t i = 0; i < c->n; i++)
        clone_set_add(&c->iv, job_of(pr, &pr->jobs[i]), pr->jobs[i].ej.job_index);
}

void phase_clones_harvest(struct phase_run *pr, struct op_set *acc, struct errcause_set *causes)
{
    struct phase_clones *c = &pr->clones;

    for (uint32_t i = 0; i < pr->njobs; i++) {
        if (!c->n) {
            job_harvest(&pr->jobs[i], acc, causes);
            continue;
        }
        job_harvest(&pr->jobs[i], c->scratch, causes);
        if (!op_set_empty(c->scratch)) {
            op_set_merge(acc, c->scratch);
            op_rec_add(&c->tot[i], c->scratch);
            if (i < c->iv.n)
                op_set_merge(c->iv.c[i].stats, c->scratch);
        }
        scratch_clear(c->scratch);
    }
}

void phase_clones_reset(struct phase_run *pr)
{
    struct phase_clones *c = &pr->clones;

    for (uint32_t i = 0; i < c->n; i++) {
        op_rec_free(&c->tot[i]);
        op_rec_init(&c->tot[i]);
    }
    phase_clones_interval_sent(pr);
}

const struct clone_set *phase_clones_interval(const struct phase_run *pr)
{
    return &pr->clones.iv;
}

void phase_clones_interval_sent(struct phase_run *pr)
{
    for (uint32_t i = 0; i < pr->clones.iv.n; i++)
        scratch_clear(pr->clones.iv.c[i].stats);
}

void phase_clones_totals(const struct phase_run *pr, uint64_t window_ns, struct clone_set *out)
{
    const struct phase_clones *c = &pr->clones;

    for (uint32_t i = 0; i < c->n; i++) {
        const struct job *j = &pr->jobs[i];
        struct clone_stats *e = clone_set_add(out, job_of(pr, j), j->ej.job_index);
        uint64_t d = j->spec->startdelay_ns, begin;

        op_rec_sum(&c->tot[i], e->stats);
        if (j->t_first_ns == UINT64_MAX)
            continue;                      /* stopped before it began */
        begin = j->t_first_ns > d ? j->t_first_ns - d : 0;
        if (begin < window_ns)
            begin = window_ns;
        e->runtime_ns = j->t_last_ns > begin ? j->t_last_ns - begin : 0;
    }
}

void phase_clones_free(struct phase_run *pr)
{
    struct phase_clones *c = &pr->clones;

    for (uint32_t i = 0; i < c->n; i++)
        op_rec_free(&c->tot[i]);
    free(c->tot);
    free(c->scratch);
    clone_set_free(&c->iv);
    c->tot = NULL;
    c->scratch = NULL;
    c->n = 0;
}
