/* stats_util: the unit tests' way to fill an op_set by hand, one op at a
 * time, as the agent's op_rec_record fills its recording form. */
#ifndef NFSTORM_TEST_STATS_UTIL_H
#define NFSTORM_TEST_STATS_UTIL_H

#include "common/stats.h"

/* Count one op, and add its bytes and latency (ok) or an error. */
static inline void op_stats_record(struct op_stats *o, uint64_t bytes, uint64_t lat_ns, int ok)
{
    o->ops++;
    if (ok) {
        o->bytes += bytes;
        hist_record(&o->lat, lat_ns);
    } else {
        o->errors++;
    }
}

#endif
