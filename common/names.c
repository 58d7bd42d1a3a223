/* names: see names.h. */
#include "common/names.h"

#include <string.h>

const char *names_word(const char *const *names, size_t n, unsigned v)
{
    return v < n ? names[v] : NULL;
}

int names_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (names[i] && strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}
