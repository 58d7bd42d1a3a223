/* cpu_seconds: the seconds between two rusage time stamps as the double
 * nearest to their whole microseconds.  Results print 15 significant
 * digits (report_json.c), and the nearest double to a decimal reads back as
 * itself, so a re-rendered report derives the same figures from a CPU time
 * the run wrote (cpu_util, schedule_debt's cpu_pct); sec + usec / 1e6 is an
 * ulp off for about 8% of values, and a figure derived from it then
 * differs in its last digit after a re-read (t1360; tests/unit/test_sched_debt.c). */
#ifndef NFSTORM_CPU_SECONDS_H
#define NFSTORM_CPU_SECONDS_H

#include <stdint.h>
#include <sys/time.h>

static inline double cpu_seconds_between(const struct timeval *a, const struct timeval *b)
{
    int64_t us = ((int64_t)b->tv_sec - a->tv_sec) * 1000000 + ((int64_t)b->tv_usec - a->tv_usec);
    return (double)us / 1e6;
}

#endif
