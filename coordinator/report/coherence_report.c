/* coherence_report: see coherence_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "coordinator/report/coherence_report.h"
#include "coordinator/report/hist_json.h"
#include "common/units.h"
#include "common/why.h"
#include "common/xmalloc.h"
#include "coordinator/report/jint.h"

static int by_writer_reader(const void *a, const void *b)
{
    const struct coh_pair *x = a, *y = b;
    if (x->writer != y->writer)
        return x->writer < y->writer ? -1 : 1;
    return x->reader < y->reader ? -1 : x->reader > y->reader;
}

int coherence_result_add(struct run_result *r, uint32_t phase, const struct coh_set *s)
{
    struct coh_set *dst;
    int rc;

    if (phase >= r->nphases)
        return -EINVAL;
    dst = &r->phases[phase].coh;
    /* in (writer, reader) order, whatever order the readers' reports came in */
    if ((rc = coh_set_merge(dst, s, COH_RUN_PAIRS_MAX)) == 0 && dst->n > 1)
        qsort(dst->pair, dst->n, sizeof *dst->pair, by_writer_reader);
    return rc;
}

uint64_t coherence_error_bound(const struct run_result *r, uint32_t writer, uint32_t reader)
{
    uint64_t w = writer < r->nagents ? r->agents[writer].rtt_ns : 0;
    uint64_t rd = reader < r->nagents ? r->agents[reader].rtt_ns : 0;
    return w / 2 + rd / 2;
}

static json_t *pair_json(const struct run_result *r, const struct coh_pair *p);

json_t *coherence_json(const struct run_result *r, uint32_t phase)
{
    const struct coh_set *s;
    struct coh_pair *all;
    json_t *o, *pairs, *m;
    uint64_t bound = 0;

    if (phase >= r->nphases || r->phases[phase].coh.n == 0)
        return NULL;
    s = &r->phases[phase].coh;
    o = json_object();
    pairs = json_array();
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t b = coherence_error_bound(r, s->pair[i].writer, s->pair[i].reader);
        json_array_append_new(pairs, pair_json(r, &s->pair[i]));
        if (b > bound)
            bound = b;
    }
    all = xmalloc(sizeof *all);
    coh_set_total(s, all);
    m = json_object();
    json_object_set_new(m, "seen", jint(all->seen));
    json_object_set_new(m, "never_visible", jint(all->never));
    json_object_set_new(m, "lag", hist_json_summary(&all->lag, 0));
    free(all);
    json_object_set_new(o, "pairs", pairs);
    json_object_set_new(o, "merged", m);
    json_object_set_new(o, "error_bound_ns", jint(bound));
    return o;
}

static json_t *pair_json(const struct run_result *r, const struct coh_pair *p)
{
    json_t *pj = json_object();
    json_object_set_new(pj, "writer", jint(p->writer));
    json_object_set_new(pj, "reader", jint(p->reader));
    json_object_set_new(pj, "seen", jint(p->seen));
    json_object_set_new(pj, "never_visible", jint(p->never));
    json_object_set_new(pj, "error_bound_ns", jint(coherence_error_bound(r, p->writer, p->reader)));
    json_object_set_new(pj, "lag", hist_json_summary(&p->lag, 0));
    return pj;
}

json_t *coherence_reader_json(const struct run_result *r, uint32_t phase, uint32_t reader)
{
    json_t *a = NULL;

    if (phase >= r->nphases)
        return NULL;
    for (uint32_t i = 0; i < r->phases[phase].coh.n; i++)
        if (r->phases[phase].coh.pair[i].reader == reader) {
            if (!a)
                a = json_array();
            json_array_append_new(a, pair_json(r, &r->phases[phase].coh.pair[i]));
        }
    return a;
}

static int u64_at(json_t *o, const char *k, uint64_t max, uint64_t *v)
{
    return jcount(json_object_get(o, k), max, v);
}

int coherence_from_json(json_t *pairs, uint32_t nagents, struct coh_set *out, char *why, size_t whylen)
{
    size_t i;
    json_t *pj;

    if (!json_is_array(pairs) || json_array_size(pairs) > COH_RUN_PAIRS_MAX)
        return why_fail(why, whylen, "coherence pairs: not an array of at most %d", COH_RUN_PAIRS_MAX);
    json_array_foreach(pairs, i, pj) {
        uint64_t w = 0, rd = 0, seen = 0, never = 0;
        struct coh_pair *p;
        char hwhy[160];
        if (!json_is_object(pj) || u64_at(pj, "writer", nagents ? nagents - 1 : 0, &w) ||
            u64_at(pj, "reader", nagents ? nagents - 1 : 0, &rd) || nagents == 0 ||
            u64_at(pj, "seen", INT64_MAX, &seen) || u64_at(pj, "never_visible", INT64_MAX, &never)) {
            snprintf(why, whylen, "coherence pair %zu: writer, reader (< %u agents), seen and "
                     "never_visible must be unsigned integers", i, nagents);
            goto bad;
        }
        for (uint32_t k = 0; k < out->n; k++)
            if (out->pair[k].writer == w && out->pair[k].reader == rd) {
                snprintf(why, whylen, "coherence pair %zu: %u->%u twice", i, (unsigned)w, (unsigned)rd);
                goto bad;
            }
        p = coh_set_pair(out, (uint32_t)w, (uint32_t)rd, COH_RUN_PAIRS_MAX);
        p->seen = seen;
        p->never = never;
        if (hist_json_decode(json_object_get(json_object_get(pj, "lag"), "hist"), &p->lag, hwhy,
                             sizeof hwhy) < 0) {
            snprintf(why, whylen, "coherence pair %zu: lag.hist: %s", i, hwhy);
            goto bad;
        }
        if (p->lag.count != seen) {
            snprintf(why, whylen, "coherence pair %zu: lag.hist holds %llu values, seen is %llu", i,
                     (unsigned long long)p->lag.count, (unsigned long long)seen);
            goto bad;
        }
    }
    return 0;
bad:
    coh_set_free(out);
    return -EINVAL;
}

void coherence_rows(FILE *out, const struct run_result *r, uint32_t phase, coherence_row_fn row)
{
    const struct coh_set *s = &r->phases[phase].coh;
    struct coh_pair *all = xmalloc(sizeof *all);
    uint64_t bound = 0;

    for (uint32_t i = 0; i <= s->n; i++) {
        const struct coh_pair *p = i < s->n ? &s->pair[i] : all;
        uint64_t b = i < s->n ? coherence_error_bound(r, p->writer, p->reader) : bound;
        const struct hist *h = &p->lag;
        char q[4][32];

        if (i == s->n)
            coh_set_total(s, all);
        units_fmt_ns(q[0], sizeof q[0], (double)hist_percentile(h, 50.0));
        units_fmt_ns(q[1], sizeof q[1], (double)hist_percentile(h, 99.0));
        units_fmt_ns(q[2], sizeof q[2], (double)(h->count ? h->max_ns : 0));
        units_fmt_ns(q[3], sizeof q[3], (double)b);
        row(out, i < s->n, p, q);
        if (b > bound)
            bound = b;
    }
    free(all);
}

static void text_row(FILE *out, int pair, const struct coh_pair *p, char q[4][32])
{
    char who[32];

    snprintf(who, sizeof who, "%u->%u", p->writer, p->reader);
    fprintf(out, "  %-10s seen %6" PRIu64 "  never visible %4" PRIu64 "  lag p50 %8s  p99 %8s  max %8s"
            "  +-%s\n", pair ? who : "merged", p->seen, p->never, q[0], q[1], q[2], q[3]);
}

void coherence_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    if (phase >= r->nphases || r->phases[phase].coh.n == 0)
        return;
    fprintf(out, "coherence (writer->reader: generations seen, never visible, lag; +- clock error bound):\n");
    coherence_rows(out, r, phase, text_row);
}
