/* ext_metrics: CloudWatch get-metric-data JSON on the run's time axis
 * (ext_metrics.h). */
#include "coordinator/result/ext_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/units.h"
#include "common/why.h"
#include "common/xmalloc.h"
#include "coordinator/result/input_file.h"
#include "coordinator/result/result.h"
#include "coordinator/report/svg.h"

/* Text lines per series: the JSON has every point. */
#define TEXT_POINTS_MAX 40

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* ISO 8601 as the AWS CLI prints it: 2024-05-01T12:00:00[.fff](Z|+HH:MM|-HH:MM). */
static int parse_iso(const char *s, int64_t *ms)
{
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, mo, d, h, mi, sec, frac = 0, tzh = 0, tzm = 0, sign = 1;
    const char *p;
    struct tm tm;
    time_t t;

    if (strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
        digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != ' ') || digits(s + 11, 2, &h) || s[13] != ':' ||
        digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &sec))
        return -EINVAL;
    p = s + 19;
    if (*p == '.') {
        int nd = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, nd++)
            if (nd < 3)
                frac = frac * 10 + (*p - '0');
        if (nd == 0 || nd > 9)
            return -EINVAL;
        for (; nd < 3; nd++)
            frac *= 10;
    }
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        if (digits(p + 1, 2, &tzh) || p[3] != ':' || digits(p + 4, 2, &tzm) || tzh > 23 || tzm > 59)
            return -EINVAL;
        p += 6;
    } else {
        return -EINVAL;
    }
    if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
        return -EINVAL;
    if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return -EINVAL;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    if ((t = timegm(&tm)) == (time_t)-1)
        return -EINVAL;
    *ms = ((int64_t)t - sign * (tzh * 3600 + tzm * 60)) * 1000 + frac;
    return 0;
}

static int cmp_point(const void *a, const void *b)
{
    const struct ext_point *x = a, *y = b;
    return x->unix_ms < y->unix_ms ? -1 : x->unix_ms > y->unix_ms;
}

static int copy_str(json_t *v, char *dst, size_t len)
{
    if (!v) {
        dst[0] = '\0';
        return 0;
    }
    if (!json_is_string(v) || json_string_length(v) >= len)
        return -1;
    snprintf(dst, len, "%s", json_string_value(v));
    /* printed into the reports: no control bytes */
    for (char *c = dst; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return 0;
}

static int load_series(json_t *e, uint32_t i, struct ext_series *s, uint64_t *total, const char *path,
                       char *err, size_t errlen)
{
    json_t *ts, *vs;
    size_t n;

    if (!json_is_object(e))
        return why_fail(err, errlen, "%s: MetricDataResults[%u]: not an object", path, i);
    if (copy_str(json_object_get(e, "Id"), s->id, sizeof s->id) < 0 || !s->id[0])
        return why_fail(err, errlen, "%s: MetricDataResults[%u]: Id: want a string of 1 to %zu bytes", path, i,
                        sizeof s->id - 1);
    if (copy_str(json_object_get(e, "Label"), s->label, sizeof s->label) < 0 ||
        copy_str(json_object_get(e, "StatusCode"), s->status, sizeof s->status) < 0) {
        return why_fail(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): Label or StatusCode: want a short string",
                        path, i, s->id);
    }
    ts = json_object_get(e, "Timestamps");
    vs = json_object_get(e, "Values");
    if (!json_is_array(ts) || !json_is_array(vs))
        return why_fail(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): want Timestamps and Values arrays", path, i,
                        s->id);
    n = json_array_size(ts);
    if (n != json_array_size(vs))
        return why_fail(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): %zu Timestamps but %zu Values "
                        "(want as many)", path, i, s->id, n, json_array_size(vs));
    if (n > EXT_METRICS_POINTS_MAX || *total + n > EXT_METRICS_TOTAL_MAX) {
        snprintf(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): too many points (%zu; at most %u a series, "
                 "%u in all)", path, i, s->id, n, EXT_METRICS_POINTS_MAX, EXT_METRICS_TOTAL_MAX);
        return -E2BIG;
    }
    *total += n;
    s->pt = xcalloc(n ? n : 1, sizeof *s->pt);
    s->n = (uint32_t)n;
    for (size_t k = 0; k < n; k++) {
        json_t *t = json_array_get(ts, k), *v = json_array_get(vs, k);
        if (!json_is_string(t) || parse_iso(json_string_value(t), &s->pt[k].unix_ms) < 0) {
            char shown[64] = "";
            if (json_is_string(t) && copy_str(t, shown, sizeof shown) < 0)
                snprintf(shown, sizeof shown, "(too long)");
            return why_fail(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): Timestamps[%zu]: bad time '%s' "
                            "(want ISO 8601 such as 2024-05-01T12:00:00Z or +00:00)", path, i, s->id, k, shown);
        }
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return why_fail(err, errlen, "%s: MetricDataResults[%u] (Id '%s'): Values[%zu]: want a number",
                            path, i, s->id, k);
        s->pt[k].value = json_number_value(v);
    }
    qsort(s->pt, n, sizeof *s->pt, cmp_point);   /* CloudWatch's default order is newest first */
    return 0;
}

int ext_metrics_load(const char *path, struct ext_metrics *m, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = NULL, *arr;
    FILE *f;
    int rc = 0;
    uint64_t total = 0;

    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    if (!(f = input_file_open("--metrics", path, EXT_METRICS_FILE_MAX, 1, err, errlen, &rc)))
        return rc;
    root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root)
        return why_fail(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
    arr = json_is_object(root) ? json_object_get(root, "MetricDataResults") : NULL;
    if (!json_is_array(arr)) {
        snprintf(err, errlen, "%s: no MetricDataResults array (want the output of aws cloudwatch get-metric-data)",
                 path);
        rc = -EINVAL;
        goto out;
    }
    if (json_array_size(arr) > EXT_METRICS_SERIES_MAX) {
        snprintf(err, errlen, "%s: %zu MetricDataResults (at most %u)", path, json_array_size(arr),
                 EXT_METRICS_SERIES_MAX);
        rc = -E2BIG;
        goto out;
    }
    m->s = xcalloc(json_array_size(arr) + 1, sizeof *m->s);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        m->n = (uint32_t)i + 1;
        if ((rc = load_series(json_array_get(arr, i), (uint32_t)i, &m->s[i], &total, path, err, errlen)) < 0)
            goto out;
    }
out:
    json_decref(root);
    if (rc < 0)
        ext_metrics_free(m);
    return rc;
}

void ext_metrics_free(struct ext_metrics *m)
{
    for (uint32_t i = 0; m->s && i < m->n; i++)
        free(m->s[i].pt);
    free(m->s);
    m->s = NULL;
    m->n = 0;
}

/* Phase p's start on the wall clock: recorded, else (an older result, a
 * journal) the run's start plus the phases before it. */
static int64_t phase_start_ms(const struct run_result *r, uint32_t p)
{
    int64_t t = (int64_t)r->started_unix * 1000;
    for (uint32_t i = 0; i <= p; i++) {
        if (r->phases[i].t0_unix_ms > 0)
            t = r->phases[i].t0_unix_ms;
        if (i < p)
            t += (int64_t)(r->phases[i].duration_ns / 1000000u);
    }
    return t;
}

/* The run's throughput over interval k of ph, bytes/s. */
static double interval_bps(const struct phase_result *ph, uint64_t k)
{
    double bytes = 0;

    for (int t = 0; t < OP__COUNT; t++)
        bytes += (double)ph->intervals[k].count[t].bytes;
    return bytes / (ph->interval_ms / 1000.0);
}

/* The run's start on the wall clock, ms since the epoch. */
static int64_t run_start_ms(const struct run_result *r)
{
    return r->nphases ? phase_start_ms(r, 0) : (int64_t)r->started_unix * 1000;
}

/* A point on the run's axis. */
struct ext_aligned {
    double offset_s;              /* seconds since the first phase's interval 0 began */
    int32_t phase;                /* the phase running then, or -1 */
    int32_t interval;             /* its interval, or -1 */
    double run_bps;               /* the fleet's bytes/s in that interval (when phase >= 0) */
};

/* Point (unix_ms) on r's axis. */
static void align(const struct run_result *r, int64_t unix_ms, struct ext_aligned *a)
{
    a->offset_s = (double)(unix_ms - run_start_ms(r)) / 1000.0;
    a->phase = a->interval = -1;
    a->run_bps = 0;
    for (uint32_t p = 0; p < r->nphases; p++) {
        const struct phase_result *ph = &r->phases[p];
        int64_t t0 = phase_start_ms(r, p);
        if (!ph->interval_ms || unix_ms < t0 || !ph->nintervals)
            continue;
        uint64_t k = (uint64_t)(unix_ms - t0) / ph->interval_ms;
        if (k >= ph->nintervals)
            continue;
        a->phase = (int32_t)p;
        a->interval = (int32_t)k;
        a->run_bps = interval_bps(ph, k);
        return;
    }
}

static void fmt_time(char *buf, size_t len, int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    else
        snprintf(buf, len, "?");
}

/* The run's span on its axis, seconds. */
static double run_span_s(const struct run_result *r)
{
    double end = 0;
    int64_t s0 = run_start_ms(r);
    for (uint32_t p = 0; p < r->nphases; p++) {
        double e = (double)(phase_start_ms(r, p) - s0) / 1000.0 + r->phases[p].duration_ns / 1e9;
        if (e > end)
            end = e;
    }
    return end;
}

void ext_metrics_text(FILE *out, const struct run_result *r, int base)
{
    const struct ext_metrics *m = r->metrics;
    char when[40], b[32];

    if (!m)
        return;
    fmt_time(when, sizeof when, run_start_ms(r));
    fprintf(out, "\nexternal metrics (%s), on the run's clock (0 s = %s):\n", m->path, when);
    for (uint32_t i = 0; i < m->n; i++) {
        const struct ext_series *s = &m->s[i];
        uint32_t in = 0, shown = 0;
        double lo = INFINITY, hi = -INFINITY, sum = 0;

        for (uint32_t k = 0; k < s->n; k++) {
            struct ext_aligned a;
            align(r, s->pt[k].unix_ms, &a);
            if (a.phase < 0)
                continue;
            in++;
            sum += s->pt[k].value;
            lo = fmin(lo, s->pt[k].value);
            hi = fmax(hi, s->pt[k].value);
        }
        fprintf(out, "  %s (%s%s%s): %u point%s, %u during the run", s->label[0] ? s->label : s->id, s->id,
                s->status[0] ? ", " : "", s->status, s->n, s->n == 1 ? "" : "s", in);
        if (in)
            fprintf(out, "; min %.6g, mean %.6g, max %.6g", lo, sum / in, hi);
        fputc('\n', out);
        for (uint32_t k = 0; k < s->n; k++) {
            struct ext_aligned a;
            align(r, s->pt[k].unix_ms, &a);
            if (a.phase < 0)
                continue;
            if (shown++ == TEXT_POINTS_MAX) {
                fprintf(out, "    ... %u more during the run in the JSON (external_metrics)\n", in - TEXT_POINTS_MAX);
                break;
            }
            fprintf(out, "    %+9.1f s  %-14.6g run %s (phase %s, interval %d)\n", a.offset_s, s->pt[k].value,
                    units_fmt_rate(b, sizeof b, a.run_bps, base), r->phases[a.phase].name, a.interval);
        }
    }
}

void ext_metrics_html(FILE *out, const struct run_result *r, int base)
{
    const struct ext_metrics *m = r->metrics;
    struct svg_chart c;
    struct svg_series s;
    size_t n = 0, cap = 0;
    double *x = NULL, *y = NULL, span = run_span_s(r);
    int64_t s0 = run_start_ms(r);

    if (!m)
        return;
    fprintf(out, "<h2 id=\"external-metrics\">External metrics: ");
    svg_escape(out, m->path);
    fprintf(out, "</h2>\n<p class=\"note\">On the run's clock: 0 s is where the first phase's first interval begins.</p>\n");
    /* the run's own throughput, every phase on one axis; then each
     * series in the same buffers */
    for (uint32_t p = 0; p < r->nphases; p++)
        cap += r->phases[p].nintervals;
    for (uint32_t i = 0; i < m->n; i++)
        cap = m->s[i].n > cap ? m->s[i].n : cap;
    x = xcalloc(cap + 1, sizeof *x);
    y = xcalloc(cap + 1, sizeof *y);
    for (uint32_t p = 0; p < r->nphases; p++) {
        const struct phase_result *ph = &r->phases[p];
        double off = (double)(phase_start_ms(r, p) - s0) / 1000.0;
        for (uint32_t k = 0; k < ph->nintervals && ph->interval_ms; k++) {
            x[n] = off + (k + 1) * (ph->interval_ms / 1000.0);
            y[n++] = interval_bps(ph, k);
        }
    }
    memset(&c, 0, sizeof c);
    c.view = "external-run";
    c.title = "the run's throughput (all phases)";
    c.xlabel = "seconds since the run's start";
    c.ylabel = "bytes/s";
    c.yfmt = svg_fmt_rate;
    c.fmt_arg = &base;
    c.fixed_x = 1;
    c.xmin = 0;
    c.xmax = span > 0 ? span : 1;
    memset(&s, 0, sizeof s);
    s.name = "fleet";
    s.x = x;
    s.y = y;
    s.n = n;
    if (n)
        svg_lines(out, &c, &s, 1);
    for (uint32_t i = 0; i < m->n; i++) {
        const struct ext_series *e = &m->s[i];
        n = 0;
        for (uint32_t k = 0; k < e->n; k++) {
            double off = (double)(e->pt[k].unix_ms - s0) / 1000.0;
            if (off < 0 || off > c.xmax)
                continue;
            x[n] = off;
            y[n++] = e->pt[k].value;
        }
        if (n == 0) {
            /* nothing to draw: say so rather than draw an empty axis */
            fprintf(out, "<p class=\"note\" data-view=\"external-empty\">");
            svg_escape(out, e->label[0] ? e->label : e->id);
            fprintf(out, ": no point during the run</p>\n");
            continue;
        }
        c.view = "external";
        c.title = e->label[0] ? e->label : e->id;
        c.ylabel = e->id;
        c.yfmt = NULL;
        s.name = e->label[0] ? e->label : e->id;
        s.n = n;
        svg_lines(out, &c, &s, 1);
    }
    free(x);
    free(y);
}

static int set(json_t *o, const char *k, json_t *v)
{
    return o && v ? json_object_set_new(o, k, v) : -1;
}

int ext_metrics_json(json_t *root, const struct run_result *r)
{
    const struct ext_metrics *m = r->metrics;
    json_t *em, *series;
    int bad = 0;

    if (!m)
        return 0;
    em = json_object();
    series = json_array();
    bad |= set(em, "file", json_string(m->path));
    bad |= set(em, "run_start_unix_ms", json_integer((json_int_t)run_start_ms(r)));
    for (uint32_t i = 0; i < m->n && series; i++) {
        const struct ext_series *s = &m->s[i];
        json_t *sj = json_object(), *pts = json_array();
        uint32_t in = 0;
        bad |= set(sj, "id", json_string(s->id));
        bad |= set(sj, "label", json_string(s->label));
        bad |= set(sj, "status_code", json_string(s->status));
        for (uint32_t k = 0; k < s->n && pts; k++) {
            struct ext_aligned a;
            json_t *pj = json_object();
            align(r, s->pt[k].unix_ms, &a);
            in += a.phase >= 0;
            bad |= set(pj, "unix_ms", json_integer((json_int_t)s->pt[k].unix_ms));
            bad |= set(pj, "offset_s", json_real(a.offset_s));
            bad |= set(pj, "value", json_real(s->pt[k].value));
            bad |= set(pj, "phase", a.phase >= 0 ? json_string(r->phases[a.phase].name) : json_null());
            bad |= set(pj, "interval", a.phase >= 0 ? json_integer(a.interval) : json_null());
            bad |= set(pj, "run_bps", a.phase >= 0 ? json_real(a.run_bps) : json_null());
            bad |= pj ? json_array_append_new(pts, pj) : -1;
        }
        bad |= set(sj, "points_in_run", json_integer(in));
        bad |= set(sj, "points", pts);
        bad |= sj ? json_array_append_new(series, sj) : -1;
    }
    bad |= set(em, "series", series);
    bad |= set(root, "external_metrics", em);
    return bad ? -ENOMEM : 0;
}
