/* names: an enum's words, kept in a table indexed by the enum's value.
 * The plan keys, the wire and the JSON spell every enum this way, so the
 * two lookups live here once instead of beside each table. */
#ifndef NFSTORM_NAMES_H
#define NFSTORM_NAMES_H

#include <stddef.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* names[v], or NULL when v is past the table's n entries. */
const char *names_word(const char *const *names, size_t n, unsigned v);
/* The index of the word s in names, or -1 (also for s NULL). */
int names_index(const char *const *names, size_t n, const char *s);

#endif
