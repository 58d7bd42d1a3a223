/* phase_prior: the earlier phase of this run that wrote a reader's files
 * (see phase_prior.h).  Names are compared by their FNV-1a hash, the
 * reader's sorted once, so each writer's name costs one expansion and one
 * binary search. */
#include <stdlib.h>
#include <string.h>
#include "agent/phase_prior.h"
#include "common/fnv.h"
#include "common/plan_files.h"
#include "common/rotate.h"
#include "common/vblock.h"
#include "common/xmalloc.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t name_hash(const struct job_spec *js, const struct agent_identity *id, uint32_t t,
                          uint32_t g, uint32_t f, int *ok)
{
    char name[PLAN_PATH_MAX], err[256];
    *ok = phase_file_name(js, id, t, g, f, name, sizeof name, err, sizeof err) == 0;
    return *ok ? fnv64_str(FNV64_BASIS, name) : 0;
}

/* This agent's thread numbers start, in phase ph for agent a, at the sum
 * of the threads of the jobs before job k that run on a. */
static uint32_t thread_base(const struct phase *ph, uint32_t k, uint32_t a)
{
    uint32_t g = 0;
    for (uint32_t i = 0; i < k; i++)
        if (plan_agents_match(ph->jobs[i].agents, a) == 1)
            g += ph->jobs[i].numjobs;
    return g;
}

static uint32_t lowest_agent(const struct job_spec *js, uint32_t nagents)
{
    for (uint32_t a = 0; a < nagents; a++)
        if (plan_agents_match(js->agents, a) == 1)
            return a;
    return UINT32_MAX;
}

/* Did job k of ph, run by any of the candidate agents, name one of mine? */
static int job_wrote(const struct phase *ph, uint32_t k, const struct agent_identity *id, uint32_t src,
                     const uint64_t *mine, uint32_t nmine, uint64_t *budget)
{
    const struct job_spec *w = &ph->jobs[k];
    uint32_t cand[3] = { id->index, src, lowest_agent(w, id->nagents) };
    uint32_t nf = plan_files_per_thread(w);

    for (int c = 0; c < 3; c++) {
        struct agent_identity other = *id;
        uint32_t a = cand[c], g0;
        if (a == UINT32_MAX || plan_agents_match(w->agents, a) != 1 || (c == 1 && a == id->index) ||
            (c == 2 && (a == id->index || a == src)))
            continue;
        other.index = a;
        g0 = thread_base(ph, k, a);
        for (uint32_t t = 0; t < w->numjobs; t++)
            for (uint32_t f = 0; f < nf; f++) {
                int ok;
                uint64_t h;
                if (*budget == 0)
                    return 0;
                (*budget)--;
                h = name_hash(w, &other, t, g0 + t, f, &ok);
                if (ok && bsearch(&h, mine, nmine, sizeof *mine, cmp_u64))
                    return 1;
            }
    }
    return 0;
}

uint64_t phase_prior_gen(const struct job_spec *js, const struct agent_identity *id, uint32_t t,
                         uint32_t g, uint32_t nfiles)
{
    uint64_t *mine, budget = PHASE_PRIOR_MAX_NAMES, gen = 0;
    uint32_t nmine = 0, src;

    if (!id->plan || id->phase == 0 || id->phase > id->plan->nphases || nfiles == 0 ||
        nfiles > PHASE_PRIOR_MAX_NAMES)
        return 0;
    mine = xcalloc(nfiles, sizeof *mine);
    for (uint32_t f = 0; f < nfiles; f++) {
        int ok;
        uint64_t h = name_hash(js, id, t, g, f, &ok);
        if (ok)
            mine[nmine++] = h;
    }
    qsort(mine, nmine, sizeof *mine, cmp_u64);
    src = rotate_source(id->index, js->rotate, id->nagents);
    for (uint32_t q = id->phase; q-- > 0 && !gen && budget;) {
        const struct phase *ph = &id->plan->phases[q];
        for (uint32_t k = 0; k < ph->njobs && !gen; k++) {
            const struct job_spec *w = &ph->jobs[k];
            if (!rw_mode_writes(w->rw) || w->verify_only || w->rw == RW_METADATA || w->rw == RW_COHERENCE)
                continue;
            if (job_wrote(ph, k, id, src, mine, nmine, &budget))
                gen = vblock_generation(id->run_ms, q, 0);
        }
    }
    free(mine);
    return gen;
}
