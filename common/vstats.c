/* vstats: verification counts and first offenders (see vstats.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/vstats.h"
#include "common/sat.h"
#include "common/why.h"

void vstats_init(struct vstats *v)
{
    memset(v, 0, sizeof *v);
}

void vstats_add(struct vstats *v, enum vblock_kind k, const struct vstats_bad *bad)
{
    v->checked++;
    v->count[k]++;
    if (k != VB_OK && bad && v->nfirst < VSTATS_FIRST_MAX) {
        v->first[v->nfirst] = *bad;
        v->first[v->nfirst].kind = k;
        v->nfirst++;
    }
}

void vstats_add_run(struct vstats *v, uint64_t run, uint64_t started_ms, uint64_t blocks)
{
    for (uint32_t i = 0; i < v->nruns; i++)
        if (v->runs[i].run == run) {
            v->runs[i].blocks = sat_add_u64(v->runs[i].blocks, blocks);
            return;
        }
    if (v->nruns < VSTATS_RUNS_MAX) {
        v->runs[v->nruns++] = (struct vstats_run){ .run = run, .started_ms = started_ms, .blocks = blocks };
        return;
    }
    v->runs_more = sat_add_u64(v->runs_more, blocks);
}

void vstats_merge(struct vstats *dst, const struct vstats *src)
{
    dst->on |= src->on;
    dst->only |= src->only;
    for (uint32_t i = 0; i < src->nruns && i < VSTATS_RUNS_MAX; i++)
        vstats_add_run(dst, src->runs[i].run, src->runs[i].started_ms, src->runs[i].blocks);
    dst->runs_more = sat_add_u64(dst->runs_more, src->runs_more);
    dst->checked = sat_add_u64(dst->checked, src->checked);
    for (int k = 0; k < VB__COUNT; k++)
        dst->count[k] = sat_add_u64(dst->count[k], src->count[k]);
    for (uint32_t i = 0; i < src->nfirst && dst->nfirst < VSTATS_FIRST_MAX; i++)
        dst->first[dst->nfirst++] = src->first[i];
}

uint64_t vstats_bad_total(const struct vstats *v)
{
    uint64_t n = 0;
    for (int k = VB_OK + 1; k < VB__COUNT; k++)
        n += v->count[k];
    return n;
}

int vstats_check(const struct vstats *v, char *err, size_t errlen)
{
    uint64_t sum = 0;
    for (int k = 0; k < VB__COUNT; k++)
        if (__builtin_add_overflow(sum, v->count[k], &sum))
            return why_fail(err, errlen, "verify counts overflow");
    if (sum != v->checked)
        return why_fail(err, errlen, "verify counts sum to %llu, not checked=%llu", (unsigned long long)sum,
                        (unsigned long long)v->checked);
    if (v->nfirst > VSTATS_FIRST_MAX || v->nfirst > vstats_bad_total(v))
        return why_fail(err, errlen, "verify first: %u entries for %llu bad blocks (at most %d)", v->nfirst,
                        (unsigned long long)vstats_bad_total(v), VSTATS_FIRST_MAX);
    if (v->nruns > VSTATS_RUNS_MAX)
        return why_fail(err, errlen, "verify runs: %u entries (at most %d)", v->nruns, VSTATS_RUNS_MAX);
    for (uint32_t i = 0; i < v->nfirst; i++) {
        if (v->first[i].kind == VB_OK || v->first[i].kind >= VB__COUNT)
            return why_fail(err, errlen, "verify first[%u]: bad kind %u", i, v->first[i].kind);
        if (memchr(v->first[i].file, '\0', sizeof v->first[i].file) == NULL)
            return why_fail(err, errlen, "verify first[%u]: file name not terminated", i);
    }
    return 0;
}

int vstats_accept(struct vstats *v, char *err, size_t errlen)
{
    char why[160];   /* vstats_check's texts are under 100 bytes */
    if (vstats_check(v, why, sizeof why) < 0)
        return why_fail(err, errlen, "verify: %s", why);
    v->on = 1;
    return 0;
}
