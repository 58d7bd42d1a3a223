/* log: see log.h.  One fprintf per line so lines from threads don't mix. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "common/log.h"

static enum log_level log_level = LOG_INFO;

void log_set_level(enum log_level l)
{
    log_level = l;
}

void log_msg(enum log_level l, const char *fmt, ...)
{
    static const char *const names[] = { "error", "warn", "info", "debug" };
    char text[1024], stamp[32];
    struct timespec ts;
    struct tm tm;
    va_list ap;

    if (l > log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    fprintf(stderr, "%s.%03ld nfstorm-agent %s: %s\n", stamp, ts.tv_nsec / 1000000, names[l], text);
}
