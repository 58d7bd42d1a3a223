/* result_verify: verification results in the run's result (see
 * result_verify.h).  The fleet's figures are a merge of the agents' in
 * index order (counts summed, first offenders concatenated up to the
 * cap), redone on every arrival so the order never depends on timing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/plan_verify.h"
#include "common/xmalloc.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/report/verify_json.h"

static void make(struct phase_result *ph, uint32_t nagents)
{
    if (ph->verify)
        return;
    ph->verify = xcalloc(1, sizeof *ph->verify);
    ph->verify->nagents = nagents;
    ph->verify->asked = xcalloc(nagents ? nagents : 1, 1);
    ph->verify->agent = xcalloc(nagents ? nagents : 1, sizeof *ph->verify->agent);
    vstats_init(&ph->verify->fleet);
    ph->verify->fleet.on = 1;
}

void result_verify_init(struct phase_result *ph, const struct phase *src, uint32_t nagents)
{
    for (uint32_t j = 0; j < src->njobs; j++) {
        if (!plan_verify_checks(&src->jobs[j]))
            continue;
        make(ph, nagents);
        for (uint32_t a = 0; a < nagents; a++)
            ph->verify->asked[a] |= (uint8_t)plan_agents_match(src->jobs[j].agents, a);
    }
}

void result_verify_ask(struct phase_result *ph, uint32_t agent, uint32_t nagents)
{
    make(ph, nagents);
    if (agent < ph->verify->nagents)
        ph->verify->asked[agent] = 1;
}

void result_verify_free(struct phase_result *ph)
{
    if (!ph->verify)
        return;
    for (uint32_t a = 0; a < ph->verify->nagents; a++)
        free(ph->verify->agent[a]);
    free(ph->verify->agent);
    free(ph->verify->asked);
    free(ph->verify);
    ph->verify = NULL;
}

int result_set_agent_verify(struct run_result *r, uint32_t phase, uint32_t agent, const struct vstats *v)
{
    struct result_verify *rv;
    if (phase >= r->nphases || !(rv = r->phases[phase].verify) || agent >= rv->nagents)
        return -EINVAL;
    if (!rv->agent[agent])
        rv->agent[agent] = xmalloc(sizeof *rv->agent[agent]);
    *rv->agent[agent] = *v;
    rv->agent[agent]->on = 1;
    /* the agent names the files: any bytes a path may hold, which the text
     * report prints and the JSON must carry as UTF-8 */
    for (uint32_t i = 0; i < rv->agent[agent]->nfirst; i++)
        result_clean_utf8(rv->agent[agent]->first[i].file);
    rv->asked[agent] = 1;
    vstats_init(&rv->fleet);
    rv->fleet.on = 1;
    for (uint32_t a = 0; a < rv->nagents; a++)
        if (rv->agent[a])
            vstats_merge(&rv->fleet, rv->agent[a]);
    return 0;
}

const struct vstats *result_phase_verify(const struct run_result *r, uint32_t phase)
{
    return phase < r->nphases && r->phases[phase].verify ? &r->phases[phase].verify->fleet : NULL;
}

const struct vstats *result_agent_verify(const struct run_result *r, uint32_t phase, uint32_t agent)
{
    const struct result_verify *rv = phase < r->nphases ? r->phases[phase].verify : NULL;
    return rv && agent < rv->nagents ? rv->agent[agent] : NULL;
}

int result_agent_verify_asked(const struct run_result *r, uint32_t phase, uint32_t agent)
{
    const struct result_verify *rv = phase < r->nphases ? r->phases[phase].verify : NULL;
    return rv && agent < rv->nagents && rv->asked[agent];
}

void result_verify_counts(const struct vstats *v, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%" PRIu64 " checked", v->checked);
    for (int k = 0; k < VB__COUNT && n < len; k++)
        if (v->count[k] || k == VB_OK)
            n += (size_t)snprintf(buf + n, len - n, ", %" PRIu64 " %s", v->count[k],
                                  k == VB_OK ? "ok" : vblock_kind_name((enum vblock_kind)k));
}

/* One offender: "FILE offset N: torn: expected writer 0 generation G,
 * found writer 1 job 3 generation H at offset M" (parts that are not
 * known left out). */
static void bad_text(const struct vstats_bad *b, char *buf, size_t len)
{
    char ew[32] = "any writer", eg[48] = "", er[40] = "", fw[160] = "", fo[48] = "";
    int header = b->found_gen || b->found_writer || b->found_offset || b->found_run;
    if (b->expected_writer != VBLOCK_ANY_WRITER)
        snprintf(ew, sizeof ew, "writer %u", b->expected_writer);
    if (b->expected_gen != VBLOCK_ANY_GEN)
        snprintf(eg, sizeof eg, " generation %" PRIu64, b->expected_gen);
    if (b->expected_run) {
        char id[17];
        vblock_run_format(b->expected_run, id);
        snprintf(er, sizeof er, " of run %s", id);
    }
    if (header) {
        char id[17], when[48];
        vblock_run_format(b->found_run, id);
        verify_time_text(vblock_generation_ms(b->found_gen), when, sizeof when);
        if (b->found_run)      /* the run that wrote it, and when (an older agent sends none) */
            snprintf(fw, sizeof fw, "found writer %u job %u generation %" PRIu64 " of run %s (started %s)",
                     b->found_writer, b->found_job, b->found_gen, id, when);
        else
            snprintf(fw, sizeof fw, "found writer %u job %u generation %" PRIu64, b->found_writer,
                     b->found_job, b->found_gen);
    } else {
        snprintf(fw, sizeof fw, "found no header");
    }
    if (b->found_offset != b->offset && header)
        snprintf(fo, sizeof fo, " at offset %" PRIu64, b->found_offset);
    snprintf(buf, len, "%s offset %" PRIu64 ": %s: expected %s%s%s, %s%s", b->file, b->offset,
             vblock_kind_name((enum vblock_kind)b->kind), ew, eg, er, fw, fo);
}

void result_verify_runs(const struct vstats *v, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < v->nruns && i < VSTATS_RUNS_MAX && n < len; i++) {
        char id[17], when[48];
        vblock_run_format(v->runs[i].run, id);
        verify_time_text(v->runs[i].started_ms, when, sizeof when);
        n += (size_t)snprintf(buf + n, len - n, "%srun %s (started %s): %" PRIu64 " block%s", i ? "; " : "",
                              v->runs[i].run ? id : "?", when, v->runs[i].blocks,
                              v->runs[i].blocks == 1 ? "" : "s");
    }
    if (v->runs_more && n < len)
        snprintf(buf + n, len - n, "; other runs: %" PRIu64 " blocks", v->runs_more);
}

int result_verify_phase_reason(const struct run_result *r, uint32_t phase, char *buf, size_t len)
{
    const struct vstats *v = result_phase_verify(r, phase);
    char runs[512];
    if (!v || !v->only || v->nruns + (v->runs_more ? 1u : 0u) < 2)
        return 0;
    result_verify_runs(v, runs, sizeof runs);
    snprintf(buf, len, "verify_only: the blocks were written by %u%s runs, not one: %s", v->nruns,
             v->runs_more ? "+" : "", runs);
    return 1;
}

int result_verify_reason(const struct run_result *r, uint32_t phase, uint32_t agent, char *buf, size_t len)
{
    const struct vstats *v = result_agent_verify(r, phase, agent);
    uint64_t bad;
    char counts[256], first[512];

    if (!result_agent_verify_asked(r, phase, agent))
        return 0;
    if (!v || v->checked == 0) {
        snprintf(buf, len, "verify: asked, but verified nothing");
        return 1;
    }
    if ((bad = vstats_bad_total(v)) == 0)
        return 0;
    counts[0] = '\0';
    for (int k = VB_OK + 1, n = 0; k < VB__COUNT; k++)
        if (v->count[k])
            n += snprintf(counts + n, sizeof counts - (size_t)n, "%s%" PRIu64 " %s", n ? ", " : "",
                          v->count[k], vblock_kind_name((enum vblock_kind)k));
    first[0] = '\0';
    if (v->nfirst)
        bad_text(&v->first[0], first, sizeof first);
    snprintf(buf, len, "verify: %" PRIu64 " of %" PRIu64 " blocks bad (%s)%s%s", bad, v->checked, counts,
             v->nfirst ? "; first: " : "", first);
    return 1;
}

void result_verify_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct vstats *v = result_phase_verify(r, phase);
    char line[768];
    if (!v)
        return;
    result_verify_counts(v, line, sizeof line);
    fprintf(out, "verify: %s\n", line);
    if (v->nruns) {
        result_verify_runs(v, line, sizeof line);
        fprintf(out, "  written by: %s\n", line);
    }
    for (uint32_t i = 0; i < v->nfirst; i++) {
        bad_text(&v->first[i], line, sizeof line);
        fprintf(out, "  bad block (agent %u): %s\n", v->first[i].reader, line);
    }
    if (vstats_bad_total(v) > v->nfirst)
        fprintf(out, "  ... and %" PRIu64 " more bad blocks\n", vstats_bad_total(v) - v->nfirst);
}
