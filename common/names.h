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
/* 1 if the n bytes at word are an item of list (items separated by runs
 * of sep; list may be NULL). */
int names_list_has(const char *list, char sep, const char *word, size_t n);

/* Define a module's two lookups over its word table (n entries):
 * `const char *name_fn(type v)` (NULL past the table) and
 * `int from_fn(const char *s)` (-1 for no such word). */
#define NAMES_LOOKUPS(name_fn, from_fn, type, table, n)                      \
    const char *name_fn(type v) { return names_word(table, n, (unsigned)v); } \
    int from_fn(const char *s) { return names_index(table, n, s); }

#endif
