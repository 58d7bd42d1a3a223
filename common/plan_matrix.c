/* plan_matrix: matrix= ("rw:read,write bs:4k,32m"), one job expanded into
 * one phase per combination of values.
 *
 * Design: the spec stays a string until the job it belongs to is complete
 * (a [global] matrix applies to every job, and a job's own keys may come
 * after it); then combination i is built on demand by indexing each
 * dimension with the digits of i in a mixed radix whose first dimension is
 * the most significant, so the phases come out in the order the values are
 * written with the first dimension outermost.  No allocation: a spec is at
 * most PLAN_MATRIX_MAX bytes, split in place in a local copy. */
#include "common/plan_parse.h"
#include "common/why.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MATRIX_MAX_DIMS 8
#define MATRIX_MAX_VALS 32

struct matrix {
    char buf[PLAN_MATRIX_MAX];
    uint32_t ndims;
    const char *key[MATRIX_MAX_DIMS];
    uint32_t nvals[MATRIX_MAX_DIMS];
    const char *val[MATRIX_MAX_DIMS][MATRIX_MAX_VALS];
};


static int matrix_split(const char *spec, struct matrix *m, char *why, size_t whylen)
{
    memset(m, 0, sizeof(*m));
    if (strlen(spec) >= sizeof(m->buf))
        return why_fail(why, whylen, "longer than %d characters", PLAN_MATRIX_MAX - 1);
    memcpy(m->buf, spec, strlen(spec) + 1);
    char *save = NULL;
    for (char *tok = strtok_r(m->buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || colon == tok || !colon[1])
            return why_fail(why, whylen, "'%s' is not key:value,value,...", tok);
        if (m->ndims == MATRIX_MAX_DIMS)
            return why_fail(why, whylen, "at most %d dimensions", MATRIX_MAX_DIMS);
        *colon = '\0';
        uint32_t d = m->ndims++;
        m->key[d] = tok;
        if (strcmp(tok, "name") == 0 || strcmp(tok, "matrix") == 0 || !plan_is_key(tok))
            return why_fail(why, whylen, "'%s' cannot be a matrix dimension", tok);
        for (uint32_t e = 0; e < d; e++)
            if (strcmp(m->key[e], tok) == 0)
                return why_fail(why, whylen, "'%s' given twice", tok);
        for (char *v = colon + 1, *next; v; v = next) {
            next = strchr(v, ',');
            if (next)
                *next++ = '\0';
            if (!*v)
                return why_fail(why, whylen, "empty value for '%s'", tok);
            if (m->nvals[d] == MATRIX_MAX_VALS)
                return why_fail(why, whylen, "at most %d values per dimension", MATRIX_MAX_VALS);
            m->val[d][m->nvals[d]++] = v;
        }
    }
    if (m->ndims == 0)
        return why_fail(why, whylen, "no dimensions");
    return 0;
}

int plan_matrix_check(const char *spec, uint32_t *count, char *why, size_t whylen)
{
    struct matrix m;
    struct job_spec scratch;
    uint64_t n = 1;
    char sub[160];
    int rc = matrix_split(spec, &m, why, whylen);
    if (rc)
        return rc;
    for (uint32_t d = 0; d < m.ndims; d++) {
        for (uint32_t v = 0; v < m.nvals[d]; v++) {
            job_spec_default(&scratch);
            if (plan_job_set_why(&scratch, m.key[d], m.val[d][v], sub, sizeof(sub)))
                return why_fail(why, whylen, "bad value for '%s': '%s'%s%s%s", m.key[d],
                                m.val[d][v], sub[0] ? " (" : "", sub, sub[0] ? ")" : "");
        }
        n *= m.nvals[d];
        if (n > PLAN_MAX_PHASES)
            return why_fail(why, whylen, "more than %d combinations", PLAN_MAX_PHASES);
    }
    if (count)
        *count = (uint32_t)n;
    return 0;
}

int plan_matrix_job(const struct job_spec *base, const char *spec, uint32_t index,
                    struct job_spec *out, char *why, size_t whylen)
{
    struct matrix m;
    uint32_t digit[MATRIX_MAX_DIMS];
    char name[PLAN_NAME_MAX * 4];
    int rc = matrix_split(spec, &m, why, whylen);
    if (rc)
        return rc;
    /* last dimension varies fastest */
    for (uint32_t d = m.ndims; d-- > 0;) {
        digit[d] = index % m.nvals[d];
        index /= m.nvals[d];
    }
    if (index)
        return why_fail(why, whylen, "no such combination");
    *out = *base;
    size_t o = (size_t)snprintf(name, sizeof(name), "%s", base->name);
    for (uint32_t d = 0; d < m.ndims; d++) {
        const char *v = m.val[d][digit[d]];
        if (plan_job_set(out, m.key[d], v))
            return why_fail(why, whylen, "bad value for '%s': '%s'", m.key[d], v);
        if (o + 1 + strlen(v) >= PLAN_NAME_MAX)
            return why_fail(why, whylen, "phase name '%s-...' would be longer than %d characters",
                            name, PLAN_NAME_MAX - 1);
        name[o++] = '-';
        /* names become file names: keep path separators out */
        for (const char *p = v; *p; p++)
            name[o++] = (*p == '/' || *p == ':') ? '_' : *p;
        name[o] = '\0';
    }
    memcpy(out->name, name, o + 1);
    out->stonewall = 1;
    return 0;
}
