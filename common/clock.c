/* clock: sleeping on the same clock everything is measured with.
 *
 * Design: an absolute deadline (TIMER_ABSTIME) rather than a relative sleep,
 * so a signal interrupting the sleep, or time spent before the call, does not
 * stretch or drift the schedule: retrying with the same deadline is exact. */
#include "common/clock.h"

#include <errno.h>

void clock_sleep_until(uint64_t t_ns)
{
    struct timespec ts = {
        .tv_sec = (time_t)(t_ns / 1000000000u),
        .tv_nsec = (long)(t_ns % 1000000000u),
    };
    /* clock_nanosleep returns the error number rather than setting errno */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}
