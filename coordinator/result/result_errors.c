/* result_errors: failed ops by cause in the result (see result_errors.h).
 * Kept apart from result.c as result_verify is: a phase without a failed
 * op never allocates anything here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sat.h"
#include "common/why.h"
#include "common/xmalloc.h"
#include "coordinator/result/result_errors.h"

void result_errors_free(struct phase_result *ph, uint32_t nagents)
{
    for (uint32_t a = 0; ph->errors && a < nagents; a++)
        free(ph->errors[a]);
    free(ph->errors);
    ph->errors = NULL;
}

int result_set_agent_errors(struct run_result *r, uint32_t phase, uint32_t agent, const struct errcause_set *s)
{
    struct phase_result *ph;
    if (phase >= r->nphases || agent >= r->nagents)
        return -EINVAL;
    ph = &r->phases[phase];
    if (errcause_empty(s))
        return 0;
    if (!ph->errors)
        ph->errors = xcalloc(r->nagents, sizeof *ph->errors);
    if (!ph->errors[agent])
        ph->errors[agent] = xmalloc(sizeof *ph->errors[agent]);
    *ph->errors[agent] = *s;
    /* an agent's path: printable, valid UTF-8 (a JSON string), as verify's */
    for (int t = 0; t < OP__COUNT; t++)
        for (uint32_t i = 0; i < ph->errors[agent]->op[t].n && i < ERRCAUSE_MAX; i++)
            result_clean_utf8(ph->errors[agent]->op[t].c[i].file);
    return 0;
}

const struct errcause_set *result_agent_errors(const struct run_result *r, uint32_t phase, uint32_t agent)
{
    if (phase >= r->nphases || agent >= r->nagents || !r->phases[phase].errors)
        return NULL;
    return r->phases[phase].errors[agent];
}

int result_errors_match(const struct errcause_set *s, const struct op_set *totals, char *err, size_t errlen)
{
    for (int t = 0; t < OP__COUNT; t++) {
        uint64_t n = errcause_failed(s, (enum op_type)t);
        if (n != totals->op[t].errors)
            return why_fail(err, errlen, "its causes account for %llu of %llu failed %s ops",
                            (unsigned long long)n, (unsigned long long)totals->op[t].errors,
                            op_type_name((enum op_type)t));
    }
    return 0;
}

void result_phase_errors(const struct run_result *r, uint32_t phase, struct errcause_set *out,
                         uint32_t first_agent[OP__COUNT][ERRCAUSE_MAX])
{
    errcause_set_init(out);
    if (first_agent)
        memset(first_agent, 0, sizeof(uint32_t) * OP__COUNT * ERRCAUSE_MAX);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct errcause_set *s = result_agent_errors(r, phase, a);
        uint32_t before[OP__COUNT];
        if (!s)
            continue;
        for (int t = 0; t < OP__COUNT; t++)
            before[t] = out->op[t].n;
        errcause_merge(out, s);
        for (int t = 0; first_agent && t < OP__COUNT; t++)
            for (uint32_t i = before[t]; i < out->op[t].n; i++)
                first_agent[t][i] = a;     /* causes new with this agent */
    }
}

static int cause_errno(const struct errcause *c)
{
    switch (c->kind) {
    case ERRC_ERRNO: return (int)c->code;
    case ERRC_SHORT_READ: return ENODATA;
    case ERRC_TIMEOUT: return ETIMEDOUT;
    case ERRC_CUT_OFF: return ECANCELED;
    default: return EIO;
    }
}

int result_errors_fio_error(const struct run_result *r, uint32_t phase, int agent)
{
    const struct phase_result *ph = &r->phases[phase];
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct errcause_set *s;
        if (agent >= 0 && (uint32_t)agent != a)
            continue;
        s = result_agent_errors(r, phase, a);
        for (int t = 0; t < OP__COUNT; t++) {
            if (!ph->agents[a].sealed.count[t].errors)
                continue;
            return s && s->op[t].n ? cause_errno(&s->op[t].c[0]) : EIO;
        }
    }
    return 0;
}

static int is_md(enum op_type t)
{
    return t != OP_READ && t != OP_WRITE;
}

void result_errors_cause_line(const struct errcause *c, enum op_type t, char *buf, size_t len)
{
    char text[160];
    errcause_text(c, text, sizeof text);
    if (c->kind == ERRC_SHORT_READ)      /* the offset is in the text */
        snprintf(buf, len, "%llu x %s%s%s", (unsigned long long)c->count, text, c->file[0] ? " in " : "",
                 c->file);
    else if (is_md(t))
        snprintf(buf, len, "%llu x %s%s%s", (unsigned long long)c->count, text, c->file[0] ? ", first on " : "",
                 c->file);
    else
        snprintf(buf, len, "%llu x %s, first at offset %llu%s%s", (unsigned long long)c->count, text,
                 (unsigned long long)c->offset, c->file[0] ? " in " : "", c->file);
}

static const char *agent_name(const struct run_result *r, uint32_t a)
{
    const struct agent_info *ai = &r->agents[a];
    return ai->host[0] ? ai->host : ai->addr[0] ? ai->addr : "?";
}

/* Agent a's lines; 1 when it had a failed op. */
static int agent_lines(FILE *out, const struct run_result *r, uint32_t phase, uint32_t a, int print)
{
    const struct agent_phase *ap = &r->phases[phase].agents[a];
    const struct errcause_set *s = result_agent_errors(r, phase, a);
    int any = 0;
    for (int t = 0; t < OP__COUNT; t++) {
        uint64_t failed = ap->sealed.count[t].errors, told = 0;
        if (failed == 0)
            continue;
        any = 1;
        if (!print)
            continue;
        for (uint32_t i = 0; s && i < s->op[t].n; i++) {
            char line[640];
            result_errors_cause_line(&s->op[t].c[i], (enum op_type)t, line, sizeof line);
            fprintf(out, "  agent %u (%s) %s: %s\n", r->agents[a].id, agent_name(r, a),
                    op_type_name((enum op_type)t), line);
            told = sat_add_u64(told, s->op[t].c[i].count);
        }
        if (s && s->op[t].other)
            fprintf(out, "  agent %u (%s) %s: %llu x other causes (beyond the %d kept)\n", r->agents[a].id,
                    agent_name(r, a), op_type_name((enum op_type)t), (unsigned long long)s->op[t].other,
                    ERRCAUSE_MAX);
        if (s)
            told = sat_add_u64(told, s->op[t].other);
        if (told < failed)
            fprintf(out, "  agent %u (%s) %s: %llu x cause not reported (%s)\n", r->agents[a].id,
                    agent_name(r, a), op_type_name((enum op_type)t), (unsigned long long)(failed - told),
                    ap->salvaged ? "no phase-done" : "the agent sent none");
    }
    return any;
}

void result_errors_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    uint32_t shown = 0, more = 0;
    for (uint32_t a = 0; a < r->nagents; a++) {
        if (!r->phases[phase].agents[a].done)
            continue;
        if (shown < RESULT_ERRORS_AGENTS_MAX)
            shown += (uint32_t)agent_lines(out, r, phase, a, 1);
        else
            more += (uint32_t)agent_lines(out, r, phase, a, 0);
    }
    if (more)
        fprintf(out, "  ... and %u more agents with failed ops (their causes are in the JSON result)\n", more);
}
