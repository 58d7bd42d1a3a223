/* zones: fio's zoned random distributions, random_distribution=zoned:
 * and zoned_abs:.
 *
 * A zone list is "ACCESS/SIZE:ACCESS/SIZE:...": ACCESS percent of the
 * random offsets fall in a zone of SIZE, the zones laid end to end from the
 * start of the job's region.  With zoned SIZE is a percentage of the
 * region, with zoned_abs a byte size ("60/20m").  As with bssplit, a comma
 * gives reads, writes (and trims, which nfstorm never issues) their own
 * lists; one list applies to both.  The job spec carries the text after the
 * colon (job_spec.zones), parsed here by the plan parser to check it and by
 * the agent's op generator to use it, so the wire carries one string. */
#ifndef NFSTORM_ZONES_H
#define NFSTORM_ZONES_H

#include <stddef.h>
#include <stdint.h>

#define ZONES_MAX 32

struct zone {
    uint32_t access_pct;       /* percent of the offsets drawn */
    uint64_t size;             /* percent of the region (zoned) or bytes (zoned_abs) */
};

struct zone_list {
    uint32_t n;
    struct zone z[ZONES_MAX];
};

/* Parse text into the reads' and writes' lists (the same list twice when
 * no comma).  Each list's access percentages total 100; zoned sizes total
 * at most 100 percent (a zone written "20/" without a size shares what the
 * others leave, as in fio), zoned_abs sizes are > 0.  0, or -EINVAL with why
 * ("access percentages add up to 90, not 100"). */
int zones_parse(const char *text, int absolute, struct zone_list *rd, struct zone_list *wr,
                char *why, size_t whylen);

/* Bytes the zones of l cover (zoned_abs), saturating at UINT64_MAX. */
uint64_t zones_abs_bytes(const struct zone_list *l);

#endif
