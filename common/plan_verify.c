/* plan_verify: the rules for fio's verify keys (see plan_verify.h).
 *
 * Every op is cut into units (verify_interval bytes, else the op's length)
 * and each unit carries a header (common/vblock.h), so the header must fit
 * in the unit at verify_offset and every block size must be a whole number
 * of units.  A read-back replays the write pass's offsets from the same
 * seed (agent/verify.h), so nothing else may draw from that generator: the
 * poisson arrival process does, and is refused with read-back. */
#include "common/plan_verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/vblock.h"
#include "common/why.h"

uint64_t plan_verify_unit(const struct job_spec *j, uint64_t len)
{
    return j->verify_interval ? j->verify_interval : len;
}

int plan_verify_readback(const struct job_spec *j)
{
    return j->verify != VB_CSUM_OFF && rw_mode_writes(j->rw) && !j->no_do_verify && !j->verify_only;
}

int plan_verify_checks(const struct job_spec *j)
{
    return j->verify != VB_CSUM_OFF && (rw_mode_reads(j->rw) || j->verify_only || plan_verify_readback(j));
}

/* Every block size the job can issue is a multiple of unit. */
static int sizes_divisible(const struct job_spec *j, uint64_t unit, uint64_t *bad)
{
    if (j->bs % unit) {
        *bad = j->bs;
        return 0;
    }
    if (j->bsrange_min && (j->bsrange_min % unit || j->bsrange_max % unit)) {
        *bad = j->bsrange_min % unit ? j->bsrange_min : j->bsrange_max;
        return 0;
    }
    for (uint32_t i = 0; i < j->nbssplit && i < PLAN_MAX_BSSPLIT; i++)
        if (j->bssplit[i].bs % unit) {
            *bad = j->bssplit[i].bs;
            return 0;
        }
    return 1;
}

int plan_verify_check(const struct job_spec *j, char *why, size_t whylen)
{
    unsigned char pat[256];
    size_t plen = 0;
    uint64_t bad = 0;
    int varied = j->bsrange_min || j->nbssplit;

    uint64_t run;

    if (!memchr(j->verify_pattern, '\0', sizeof j->verify_pattern) ||
        !memchr(j->verify_written_by, '\0', sizeof j->verify_written_by))
        return why_fail(why, whylen, "verify_pattern or verify_written_by is not terminated");
    if (j->verify_written_by[0] && vblock_run_parse(j->verify_written_by, &run) < 0)
        return why_fail(why, whylen, "verify_written_by=%s: want a run id, 16 hex digits as a run's "
                        "report prints it", j->verify_written_by);
    if (j->verify == VB_CSUM_OFF) {
        const char *k = j->verify_only ? "verify_only" : j->verify_fatal ? "verify_fatal"
                      : j->verify_backlog ? "verify_backlog" : j->verify_interval ? "verify_interval"
                      : j->verify_offset ? "verify_offset"
                      : j->verify_written_by[0] ? "verify_written_by" : NULL;
        if (k)
            return why_fail(why, whylen, "%s= needs verify= (crc32c, md5, sha256, meta, pattern)", k);
        return 0;
    }
    if (j->verify >= VB_CSUM__COUNT)
        return why_fail(why, whylen, "bad verify %u", j->verify);
    if (strcmp(j->ioengine, "null") == 0)
        return why_fail(why, whylen, "verify= needs an engine that moves data, not ioengine=null");
    if (j->rw == RW_METADATA)
        return why_fail(why, whylen, "verify=%s does not apply to rw=metadata",
                        vblock_csum_name(j->verify));
    if (j->verify_pattern[0] &&
        (plan_pattern_bytes(j->verify_pattern, pat, sizeof pat, &plen) < 0 || plen == 0))
        return why_fail(why, whylen, "verify_pattern=%s: want 0xHEX, 'text' or a number (at most 256 bytes)",
                        j->verify_pattern);
    if (j->verify == VB_CSUM_PATTERN && !j->verify_pattern[0])
        return why_fail(why, whylen, "verify=pattern needs verify_pattern=");
    if (j->verify_written_by[0] && (j->verify == VB_CSUM_NULL || j->verify == VB_CSUM_PATTERN))
        return why_fail(why, whylen, "verify_written_by needs a verify= with a header (crc32c, md5, "
                        "sha256, meta), not verify=%s", vblock_csum_name(j->verify));
    if (j->verify_only && j->time_based)
        return why_fail(why, whylen, "verify_only does not support time_based (as fio)");
    if (plan_verify_readback(j) && j->rate_process == RATE_POISSON)
        return why_fail(why, whylen, "do_verify reads back the write pass's offsets, which "
                        "rate_process=poisson draws from; use rate_process=linear or do_verify=0");
    /* every mode: a set verify_interval divides each block size (a header
     * mode without one and with varied sizes is refused just below) */
    if (j->verify_interval && !sizes_divisible(j, j->verify_interval, &bad))
        return why_fail(why, whylen, "verify_interval=%u must divide every block size (%llu does not)",
                        j->verify_interval, (unsigned long long)bad);
    if (j->verify == VB_CSUM_NULL || j->verify == VB_CSUM_PATTERN)
        return 0;
    if (varied && !j->verify_interval)
        return why_fail(why, whylen, "verify with %s needs verify_interval= (a divisor of every block size)",
                        j->bsrange_min ? "bsrange" : "bssplit");
    uint64_t unit = j->verify_interval ? j->verify_interval : j->bs;
    if (unit < VBLOCK_MIN_UNIT)
        return why_fail(why, whylen, "verify=%s needs %s of at least %d bytes (the header is %d): %llu is not",
                        vblock_csum_name(j->verify), j->verify_interval ? "verify_interval" : "bs",
                        VBLOCK_MIN_UNIT, VBLOCK_HDR_LEN, (unsigned long long)unit);
    if ((uint64_t)j->verify_offset + VBLOCK_HDR_LEN > unit) {
        return why_fail(why, whylen, "verify_offset=%u leaves no room for the %d-byte header in a %llu-byte unit",
                        j->verify_offset, VBLOCK_HDR_LEN, (unsigned long long)unit);
    }
    return 0;
}
