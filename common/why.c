/* why: see why.h. */
#include "common/why.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int why_fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}
