/* zones: parsing fio's zone lists (see zones.h).  Kept apart from the op
 * generator so the coordinator can check a plan with the same code the
 * agent runs it with. */
#include "common/zones.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "common/why.h"

/* One list, "60/10:30/20:10/70", n bytes of text at s. */
static int parse_list(const char *s, size_t n, int absolute, struct zone_list *l,
                      char *why, size_t whylen)
{
    char buf[256];
    uint32_t acc = 0, nempty = 0;
    uint64_t size_pct = 0;

    if (n == 0)
        return why_fail(why, whylen, "an empty zone list");
    if (n >= sizeof buf)
        return why_fail(why, whylen, "zone list longer than %zu characters", sizeof buf - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    l->n = 0;
    for (char *z = buf, *next; z; z = next) {
        char *slash;
        uint64_t pct, size;
        next = strchr(z, ':');
        if (next)
            *next++ = '\0';
        if (l->n == ZONES_MAX)
            return why_fail(why, whylen, "at most %d zones", ZONES_MAX);
        slash = strchr(z, '/');
        if (!slash)
            return why_fail(why, whylen, "zone '%s' is not ACCESS/SIZE", z);
        *slash++ = '\0';
        if (units_parse_u64(z, &pct) || pct > 100)
            return why_fail(why, whylen, "bad access percentage '%s'", z);
        if (!absolute && !*slash) {
            /* fio: a zone without a size shares what the others leave */
            size = 0;
            nempty++;
        } else if (absolute ? units_parse_size(slash, &size) || size == 0
                            : units_parse_u64(slash, &size) || size == 0 || size > 100)
            return why_fail(why, whylen, absolute ? "bad zone size '%s'" : "bad zone size '%s' "
                           "(a percentage of the region, 1 to 100)", slash);
        acc += (uint32_t)pct;
        size_pct += absolute ? 0 : size;
        l->z[l->n].access_pct = (uint32_t)pct;
        l->z[l->n].size = size;
        l->n++;
    }
    if (acc != 100)
        return why_fail(why, whylen, "access percentages add up to %u, not 100", (unsigned)acc);
    if (size_pct > 100 || (nempty && size_pct + nempty > 100))
        return why_fail(why, whylen, "zone sizes add up to %llu%% of the region, more than 100",
                       (unsigned long long)(size_pct + nempty));
    for (uint32_t i = 0, left = (uint32_t)(100 - size_pct); nempty && i < l->n; i++) {
        if (l->z[i].size)
            continue;
        l->z[i].size = left / nempty--;
        left -= (uint32_t)l->z[i].size;
    }
    return 0;
}

int zones_parse(const char *text, int absolute, struct zone_list *rd, struct zone_list *wr,
                char *why, size_t whylen)
{
    size_t n = strcspn(text, ",");
    int rc = parse_list(text, n, absolute, rd, why, whylen);
    if (rc < 0)
        return rc;
    if (!text[n]) {
        *wr = *rd;
        return 0;
    }
    const char *w = text + n + 1;
    size_t m = strcspn(w, ",");
    if ((rc = parse_list(w, m, absolute, wr, why, whylen)) < 0)
        return rc;
    if (w[m]) {   /* trims' list: checked, never used (nfstorm issues no trims) */
        struct zone_list t;
        const char *tr = w + m + 1;
        if (strchr(tr, ','))
            return why_fail(why, whylen, "at most three lists (reads, writes, trims)");
        if ((rc = parse_list(tr, strlen(tr), absolute, &t, why, whylen)) < 0)
            return rc;
    }
    return 0;
}

uint64_t zones_abs_bytes(const struct zone_list *l)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (__builtin_add_overflow(sum, l->z[i].size, &sum))
            return UINT64_MAX;
    return sum;
}
