/* vstats: verification counts and first offenders (see vstats.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/vstats.h"
#include "common/sat.h"

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

void vstats_merge(struct vstats *dst, const struct vstats *src)
{
    dst->on |= src->on;
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
    for (int k = 0; k < VB__COUNT; k++) {
        if (__builtin_add_overflow(sum, v->count[k], &sum)) {
            snprintf(err, errlen, "verify counts overflow");
            return -EINVAL;
        }
    }
    if (sum != v->checked) {
        snprintf(err, errlen, "verify counts sum to %llu, not checked=%llu", (unsigned long long)sum,
                 (unsigned long long)v->checked);
        return -EINVAL;
    }
    if (v->nfirst > VSTATS_FIRST_MAX || v->nfirst > vstats_bad_total(v)) {
        snprintf(err, errlen, "verify first: %u entries for %llu bad blocks (at most %d)", v->nfirst,
                 (unsigned long long)vstats_bad_total(v), VSTATS_FIRST_MAX);
        return -EINVAL;
    }
    for (uint32_t i = 0; i < v->nfirst; i++) {
        if (v->first[i].kind == VB_OK || v->first[i].kind >= VB__COUNT) {
            snprintf(err, errlen, "verify first[%u]: bad kind %u", i, v->first[i].kind);
            return -EINVAL;
        }
        if (memchr(v->first[i].file, '\0', sizeof v->first[i].file) == NULL) {
            snprintf(err, errlen, "verify first[%u]: file name not terminated", i);
            return -EINVAL;
        }
    }
    return 0;
}
