/* why: the one-line reason a parser or loader hands back.  Every checker
 * in the project reports a bad value the same way: the text into the
 * caller's (why, whylen) buffer, -EINVAL as the result, so a check reads
 * `return why_fail(why, whylen, "...", ...);`. */
#ifndef NFSTORM_WHY_H
#define NFSTORM_WHY_H

#include <stddef.h>

/* Format a reason into why (when why and whylen are given; truncated to
 * whylen) and return -EINVAL. */
int why_fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
