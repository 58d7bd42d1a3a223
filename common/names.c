/* names: see names.h. */
#include "common/names.h"

#include <string.h>

const char *names_word(const char *const *names, size_t n, unsigned v)
{
    return v < n ? names[v] : NULL;
}

int names_list_has(const char *list, char sep, const char *word, size_t n)
{
    const char seps[2] = { sep, '\0' };
    for (const char *p = list; p && *p; p += strspn(p, seps)) {
        size_t len = strcspn(p, seps);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p += len;
    }
    return 0;
}

int names_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (names[i] && strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}
