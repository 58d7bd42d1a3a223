/* plan_sweep: the sweep keys' parsing and the arithmetic of a search's
 * points (see plan_sweep.h for why a search is laid out as its most
 * points).  Pure functions over plain data. */
#include "common/plan_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/names.h"
#include "common/units.h"
#include "common/why.h"

/* by enum sweep_dim: the key's word and the unit of its values */
static const char *const dim_names[] = { "", "rate_iops", "rate", "iodepth", "numjobs", "agents" };
static const char *const dim_units[] = { "", "IOPS", "B/s", "iodepth", "threads per agent", "agents" };

const char *plan_sweep_dim_name(uint32_t dim)
{
    return dim < NELEM(dim_names) ? dim_names[dim] : "";
}

const char *plan_sweep_unit(uint32_t dim)
{
    return dim < NELEM(dim_units) ? dim_units[dim] : "";
}

/* One point's value as the dimension reads it: rates in bytes take size
 * suffixes (k = 1024, as rate=), the rest decimal ones (50k = 50000). */
static int sweep_value(uint32_t dim, const char *text, uint64_t *v)
{
    int rc = dim == SWEEP_RATE ? units_parse_size(text, v) : units_parse_count(text, v);
    if (rc == 0 && *v == 0)
        rc = -EINVAL;
    if (rc == 0 && (dim == SWEEP_IODEPTH || dim == SWEEP_NUMJOBS || dim == SWEEP_AGENTS) && *v > 4096)
        rc = -ERANGE;
    return rc;
}

int plan_sweep_parse_slo(const char *text, struct sweep_spec *s, char *why, size_t whylen)
{
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *le = strstr(tok, "<=");
        struct sweep_slo *o;
        if (s->nslo == SWEEP_MAX_SLO)
            return why_fail(why, whylen, "sweep_slo: at most %d conditions", SWEEP_MAX_SLO);
        o = &s->slo[s->nslo];
        if (!le)
            return why_fail(why, whylen, "sweep_slo: '%s' is not pNN<=DURATION or mean<=DURATION", tok);
        *le = '\0';
        if (strcmp(tok, "mean") == 0) {
            o->pct_milli = 0;
        } else {
            char *end;
            double p = tok[0] == 'p' ? strtod(tok + 1, &end) : -1;
            if (tok[0] != 'p' || end == tok + 1 || *end || !(p > 0 && p <= 100))
                return why_fail(why, whylen, "sweep_slo: '%s' is not a percentile (p50, p99, p99.9) or mean", tok);
            o->pct_milli = (uint32_t)llround(p * 1000);
        }
        if (units_parse_duration(le + 2, 1000000ull, &o->limit_ns) || o->limit_ns == 0)
            return why_fail(why, whylen, "sweep_slo: '%s' is not a duration such as 5ms (a bare number is ms)", le + 2);
        s->nslo++;
    }
    if (s->nslo == 0)
        return why_fail(why, whylen, "sweep_slo: no condition");
    return 0;
}

static int parse_valid(const char *text, struct sweep_spec *s, char *why, size_t whylen)
{
    static const char *const rules[] = { "achieved", "agent", "cv" };
    double *pct[] = { &s->achieved_pct, &s->agent_pct, &s->cv_pct };
    char buf[64], *save = NULL;
    int r;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':'), *end;
        double v;
        if (!colon)
            return why_fail(why, whylen, "sweep_valid: '%s' is not RULE:PERCENT (achieved, agent, cv)", tok);
        *colon = '\0';
        v = strtod(colon + 1, &end);
        if (end == colon + 1 || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 100))
            return why_fail(why, whylen, "sweep_valid: '%s' for %s is not a percentage 0..100", colon + 1, tok);
        if ((r = names_index(rules, NELEM(rules), tok)) < 0)
            return why_fail(why, whylen, "sweep_valid: unknown rule '%s' (want achieved, agent or cv)", tok);
        *pct[r] = v;
    }
    return 0;
}

int plan_sweep_parse(const struct sweep_text *t, struct sweep_spec *s, char *why, size_t whylen)
{
    *s = (struct sweep_spec){ .resolution_pct = SWEEP_DEFAULT_RESOLUTION, .achieved_pct = SWEEP_DEFAULT_ACHIEVED,
                              .agent_pct = SWEEP_DEFAULT_AGENT, .cv_pct = SWEEP_DEFAULT_CV };
    for (uint32_t d = 1; d < NELEM(dim_names); d++)
        if (strcmp(t->dim, dim_names[d]) == 0)
            s->dim = d;
    if (!s->dim)
        return why_fail(why, whylen, "sweep='%s': want rate_iops, rate, iodepth, numjobs or agents", t->dim);
    if (t->values[0] && (t->start[0] || t->max[0]))
        return why_fail(why, whylen, "sweep_values= and sweep_start=/sweep_max= exclude each other");
    if (t->values[0]) {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", t->values);
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (s->nvalues == SWEEP_MAX_VALUES)
                return why_fail(why, whylen, "sweep_values: at most %d points", SWEEP_MAX_VALUES);
            if (sweep_value(s->dim, tok, &s->values[s->nvalues]))
                return why_fail(why, whylen, "sweep_values: '%s' is not a positive %s", tok,
                                s->dim == SWEEP_RATE ? "rate such as 100m" : "count such as 8 or 50k (at most 4096 "
                                "for iodepth, numjobs, agents)");
            s->nvalues++;
        }
        if (!s->nvalues)
            return why_fail(why, whylen, "sweep_values: no value");
        s->npoints = s->nvalues;
    } else {
        if (!t->start[0] || !t->max[0])
            return why_fail(why, whylen, "sweep=%s needs sweep_values=, or sweep_start= and sweep_max=", t->dim);
        const char *what = s->dim == SWEEP_RATE ? "rate such as 100m"
                           : s->dim == SWEEP_RATE_IOPS ? "rate such as 50k" : "count of at most 4096";
        if (sweep_value(s->dim, t->start, &s->start))
            return why_fail(why, whylen, "sweep_start: '%s' is not a positive %s", t->start, what);
        if (sweep_value(s->dim, t->max, &s->max))
            return why_fail(why, whylen, "sweep_max: '%s' is not a positive %s", t->max, what);
        if (s->max < s->start)
            return why_fail(why, whylen, "sweep_max (%s) is below sweep_start (%s)", t->max, t->start);
    }
    if (t->resolution[0]) {
        char *end;
        double r = strtod(t->resolution, &end);
        if (end == t->resolution || (*end && strcmp(end, "%") != 0) || !(r > 0 && r < 100))
            return why_fail(why, whylen, "sweep_resolution: '%s' is not a percentage above 0 and below 100",
                            t->resolution);
        s->resolution_pct = r;
    }
    if (t->slo[0] && plan_sweep_parse_slo(t->slo, s, why, whylen))
        return -EINVAL;
    if (t->valid[0] && parse_valid(t->valid, s, why, whylen))
        return -EINVAL;
    if (!s->nvalues) {
        s->npoints = plan_sweep_max_points(s->start, s->max, s->resolution_pct,
                                           s->dim != SWEEP_RATE_IOPS && s->dim != SWEEP_RATE);
        if (s->npoints > SWEEP_MAX_VALUES)
            return why_fail(why, whylen, "sweep_start..sweep_max at sweep_resolution=%g%% may take %u points "
                            "(at most %d): narrow the range or coarsen the resolution", s->resolution_pct,
                            s->npoints, SWEEP_MAX_VALUES);
    }
    return 0;
}

uint32_t plan_sweep_doubling(uint64_t start, uint64_t max, uint64_t *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint64_t v = start; n < cap; v = v > max / 2 ? max : v * 2) {
        out[n++] = v;
        if (v >= max)
            break;
    }
    return n;
}

uint32_t plan_sweep_max_points(uint64_t start, uint64_t max, double resolution_pct, int integer)
{
    uint64_t pts[64];
    uint32_t d = plan_sweep_doubling(start, max, pts, 64);
    /* the last doubling bracket is at most as wide as its low end; each
     * bisection halves it, until it is within resolution of that low end */
    uint32_t b = (uint32_t)ceil(log2(100.0 / resolution_pct)) + 1;
    /* an integer dimension's bracket also ends at adjacent values: the
     * widest doubling bracket (the last two points, or the two before a
     * clipped max) is halved until its ends are neighbours */
    if (integer && d > 1) {
        uint64_t width = 0;
        uint32_t bi = 0;
        for (uint32_t k = 1; k < d; k++)
            if (pts[k] - pts[k - 1] > width)
                width = pts[k] - pts[k - 1];
        while (width > 1) {
            width = (width + 1) / 2;
            bi++;
        }
        if (bi < b)
            b = bi;
    }
    return d + (d > 1 ? b : 0);
}

char *plan_sweep_slo_text(const struct sweep_spec *s, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < s->nslo && n < len; i++) {
        char d[32];
        units_fmt_ns(d, sizeof d, (double)s->slo[i].limit_ns);
        if (s->slo[i].pct_milli)
            n += (size_t)snprintf(buf + n, len - n, "%sp%g<=%s", i ? "," : "", s->slo[i].pct_milli / 1000.0, d);
        else
            n += (size_t)snprintf(buf + n, len - n, "%smean<=%s", i ? "," : "", d);
    }
    return buf;
}
