/* plan_agents: the agents= spec (see plan_agents.h): which agents run a
 * job.  Tokens are parsed where they are used, from the text, so the spec
 * the wire carries is the one checked here. */
#include "common/plan_agents.h"
#include "common/names.h"
#include "common/why.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Agent indexes in specs stay below this; far above any real fleet. */
#define AGENT_INDEX_MAX 65535u

static int label_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '.';
}

/* One token of a spec, [s, e): "@label", "N" or "N-M".  Sets lo and hi for
 * numbers; *is_label for labels.  0 or -EINVAL. */
static int agents_token(const char *s, const char *e, uint32_t *lo, uint32_t *hi, int *is_label)
{
    *is_label = 0;
    if (s == e)
        return -EINVAL;
    if (*s == '@') {
        if (e - s < 2)
            return -EINVAL;
        for (const char *p = s + 1; p < e; p++)
            if (!label_char(*p))
                return -EINVAL;
        *is_label = 1;
        return 0;
    }
    uint64_t v[2] = { 0, 0 };
    int n = 0, digits = 0;
    for (const char *p = s; p < e; p++) {
        if (*p >= '0' && *p <= '9') {
            v[n] = v[n] * 10 + (uint64_t)(*p - '0');
            if (v[n] > AGENT_INDEX_MAX)
                return -EINVAL;
            digits++;
        } else if (*p == '-' && n == 0 && digits) {
            n = 1;
            digits = 0;
        } else {
            return -EINVAL;
        }
    }
    if (!digits)
        return -EINVAL;
    *lo = (uint32_t)v[0];
    *hi = n ? (uint32_t)v[1] : (uint32_t)v[0];
    return *lo <= *hi ? 0 : -EINVAL;
}

/* Walk the entries of a non-empty spec: 1 when agent index is one of its
 * numbers or in one of its ranges; *bad is the first malformed entry,
 * [*bad, *bad_end), or NULL. */
static int agents_scan(const char *spec, uint32_t index, const char **bad, const char **bad_end)
{
    int hit = 0;
    *bad = NULL;
    for (const char *s = spec, *e; s; s = *e ? e + 1 : NULL) {
        uint32_t lo, hi;
        int lab;
        e = s + strcspn(s, ",");
        if (agents_token(s, e, &lo, &hi, &lab) == 0)
            hit |= !lab && index >= lo && index <= hi;
        else if (!*bad)
            *bad = s, *bad_end = e;
    }
    return hit;
}

int plan_agents_check(const char *spec, char *err, size_t errlen)
{
    const char *bad = NULL, *end = NULL;
    if (spec && *spec)
        agents_scan(spec, 0, &bad, &end);
    return bad ? why_fail(err, errlen, "bad entry '%.*s' (want N, N-M or @label, comma-separated)",
                          (int)(end - bad), bad) : 0;
}

int plan_agents_match(const char *spec, uint32_t index)
{
    const char *bad, *end;
    return !spec || !*spec || agents_scan(spec, index, &bad, &end);
}

static int spec_append(char *out, size_t cap, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int spec_append(char *out, size_t cap, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *o, cap - *o, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *o)
        return -ENAMETOOLONG;
    *o += (size_t)n;
    return 0;
}

/* Rewrite one job's spec with labels replaced by index ranges. */
static int resolve_job(struct job_spec *j, const char *const *labels, uint32_t nagents,
                       char *err, size_t errlen)
{
    char out[PLAN_AGENTS_MAX];
    size_t o = 0;
    out[0] = '\0';
    for (const char *s = j->agents, *e; s; s = *e ? e + 1 : NULL) {
        uint32_t lo, hi;
        int lab, rc = 0;
        e = s + strcspn(s, ",");
        if (agents_token(s, e, &lo, &hi, &lab))
            return plan_job_fail(err, errlen, j, "agents=%s: bad entry", j->agents);
        if (!lab) {
            rc = spec_append(out, sizeof(out), &o, "%s%.*s", o ? "," : "", (int)(e - s), s);
        } else {
            int found = 0;
            for (uint32_t i = 0; i < nagents && rc == 0; i++) {
                if (!labels || !names_list_has(labels[i], ',', s + 1, (size_t)(e - s - 1)))
                    continue;
                uint32_t k = i;   /* run of consecutive agents with the label */
                while (k + 1 < nagents && names_list_has(labels[k + 1], ',', s + 1, (size_t)(e - s - 1)))
                    k++;
                rc = k > i ? spec_append(out, sizeof(out), &o, "%s%u-%u", o ? "," : "", i, k)
                           : spec_append(out, sizeof(out), &o, "%s%u", o ? "," : "", i);
                i = k;
                found = 1;
            }
            if (!found)
                return plan_job_fail(err, errlen, j, "agents=%s: no agent has the label '%.*s'",
                                     j->agents, (int)(e - s - 1), s + 1);
        }
        if (rc)
            return plan_job_fail(err, errlen, j, "agents=%s: too long once labels are resolved", j->agents);
    }
    memcpy(j->agents, out, o + 1);
    return 0;
}

int plan_resolve_labels(struct plan *p, const char *const *labels, uint32_t nagents,
                        char *err, size_t errlen)
{
    for (uint32_t i = 0; i < p->nphases; i++) {
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            struct job_spec *j = &p->phases[i].jobs[k];
            if (!j->agents[0])
                continue;
            if (strchr(j->agents, '@')) {
                int rc = resolve_job(j, labels, nagents, err, errlen);
                if (rc)
                    return rc;
            }
            uint32_t a;
            for (a = 0; a < nagents; a++)
                if (plan_agents_match(j->agents, a))
                    break;
            if (a == nagents)
                return plan_job_fail(err, errlen, j, "agents=%s selects none of the %" PRIu32 " agents",
                            j->agents, nagents);
        }
    }
    return 0;
}

uint32_t plan_job_base(const struct phase *ph, uint32_t k, uint32_t agent)
{
    uint32_t base = 0;
    for (uint32_t i = 0; i < k && i < ph->njobs; i++)
        if (plan_agents_match(ph->jobs[i].agents, agent))
            base += ph->jobs[i].numjobs;
    return base;
}
