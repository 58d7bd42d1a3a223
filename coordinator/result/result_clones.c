/* result_clones: per-job, per-clone fleet figures (see result_clones.h).
 *
 * Entries are kept sealed (a few KB each) and merged by expanding into a
 * scratch op_set, adding and sealing again: exact, and a phase costs what
 * its threads measured, never ~400 KB per entry. */
#include "coordinator/result/result_clones.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sat.h"
#include "common/why.h"
#include "common/xmalloc.h"

/* The entry of (job, clone), made in order when missing. */
static struct clone_result *entry(struct result_clones *rc, uint32_t job, uint32_t clone,
                                  const char *name)
{
    uint32_t at = 0;

    while (at < rc->n && (rc->c[at].job < job || (rc->c[at].job == job && rc->c[at].clone < clone)))
        at++;
    if (at < rc->n && rc->c[at].job == job && rc->c[at].clone == clone)
        return &rc->c[at];
    rc->c = xrealloc(rc->c, (size_t)(rc->n + 1) * sizeof(*rc->c));
    memmove(&rc->c[at + 1], &rc->c[at], (size_t)(rc->n - at) * sizeof(*rc->c));
    rc->n++;
    memset(&rc->c[at], 0, sizeof(rc->c[at]));
    rc->c[at].job = job;
    rc->c[at].clone = clone;
    snprintf(rc->c[at].name, sizeof(rc->c[at].name), "%s", name);
    return &rc->c[at];
}

/* The clones' counters must be the totals': the clones are a split of
 * them, never extra figures. */
static int check(const struct phase *ph, const struct clone_set *s, const struct op_set *totals,
                 char *err, size_t errlen)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const struct clone_stats *e = &s->c[i];

        if (e->job >= ph->njobs || e->clone >= ph->jobs[e->job].numjobs)
            return why_fail(err, errlen, "clone %u of job %u: the phase has no such thread", e->clone, e->job);
    }
    for (int t = 0; t < OP__COUNT; t++) {
        uint64_t ops = 0, bytes = 0, errors = 0;

        for (uint32_t i = 0; i < s->n; i++) {
            ops = sat_add_u64(ops, s->c[i].stats->op[t].ops);
            bytes = sat_add_u64(bytes, s->c[i].stats->op[t].bytes);
            errors = sat_add_u64(errors, s->c[i].stats->op[t].errors);
        }
        if (ops != totals->op[t].ops || bytes != totals->op[t].bytes || errors != totals->op[t].errors)
            return why_fail(err, errlen, "its clones' %s ops (%llu) or bytes do not sum to its totals' (%llu)",
                            op_type_name((enum op_type)t), (unsigned long long)ops,
                            (unsigned long long)totals->op[t].ops);
    }
    return 0;
}

int result_clones_add(struct run_result *r, uint32_t phase, uint32_t agent, const struct phase *ph,
                      const struct clone_set *s, const struct op_set *totals, char *err, size_t errlen)
{
    struct phase_result *pr;
    struct result_clones *rc;
    struct op_set *sum;
    int rc_;

    if (phase >= r->nphases || agent >= r->nagents)
        return why_fail(err, errlen, "phase %u or agent %u out of range", phase, agent);
    if (!s->n)
        return 0;                 /* nothing per clone: result_clones_usable sees sent[] unset */
    if ((rc_ = check(ph, s, totals, err, errlen)) < 0)
        return rc_;
    pr = &r->phases[phase];
    if (!(rc = pr->clones)) {
        rc = pr->clones = xcalloc(1, sizeof(*rc));
        rc->sent = xcalloc(r->nagents ? r->nagents : 1, 1);
        for (uint32_t j = 0; j < ph->njobs; j++)
            rc->grouped |= ph->jobs[j].group_reporting != 0;
    }
    sum = xmalloc(sizeof(*sum));
    for (uint32_t i = 0; i < s->n; i++) {
        const struct clone_stats *e = &s->c[i];
        struct clone_result *c = entry(rc, e->job, e->clone, ph->jobs[e->job].name);

        op_set_init(sum);
        result_sealed_merge(sum, &c->sealed);
        op_set_merge(sum, e->stats);
        result_sealed_free(&c->sealed);
        result_seal(&c->sealed, sum);
        if (e->runtime_ns > c->runtime_ns)
            c->runtime_ns = e->runtime_ns;
    }
    free(sum);
    rc->sent[agent] = 1;
    return 0;
}

int result_clones_put(struct run_result *r, uint32_t phase, uint32_t job, uint32_t clone, const char *name,
                      uint64_t runtime_ns, const struct op_set *s, char *err, size_t errlen)
{
    struct result_clones *rc;
    struct clone_result *c;

    if (phase >= r->nphases || job >= PLAN_MAX_JOBS || clone >= PLAN_MAX_NUMJOBS)
        return why_fail(err, errlen, "job %u clone %u: beyond the plan's limits", job, clone);
    if (!(rc = r->phases[phase].clones)) {
        rc = r->phases[phase].clones = xcalloc(1, sizeof(*rc));
        rc->sent = xcalloc(r->nagents ? r->nagents : 1, 1);
    }
    if (rc->n >= RESULT_CLONES_MAX)
        return why_fail(err, errlen, "more than %u clones", RESULT_CLONES_MAX);
    for (uint32_t i = 0; i < rc->n; i++)
        if (rc->c[i].job == job && rc->c[i].clone == clone)
            return why_fail(err, errlen, "job %u clone %u given twice", job, clone);
    c = entry(rc, job, clone, name);
    result_seal(&c->sealed, s);
    c->runtime_ns = runtime_ns;
    memset(rc->sent, 1, r->nagents ? r->nagents : 1);
    return 0;
}

int result_clones_usable(const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    const struct result_clones *rc = ph->clones;

    /* one thread in all: its entry is the phase's, as today */
    if (!rc || rc->n < 2 || rc->grouped)
        return 0;
    for (uint32_t a = 0; a < r->nagents; a++)
        if (ph->agents[a].done && !result_agent_empty(&ph->agents[a]) && !rc->sent[a])
            return 0;
    return 1;
}

const struct op_set *result_clone_totals(const struct run_result *r, uint32_t phase, uint32_t i,
                                         struct op_set *scratch)
{
    op_set_init(scratch);
    result_sealed_merge(scratch, &r->phases[phase].clones->c[i].sealed);
    return scratch;
}

void result_clones_free(struct phase_result *ph)
{
    struct result_clones *rc = ph->clones;

    if (!rc)
        return;
    for (uint32_t i = 0; i < rc->n; i++)
        result_sealed_free(&rc->c[i].sealed);
    free(rc->c);
    free(rc->sent);
    free(rc);
    ph->clones = NULL;
}
