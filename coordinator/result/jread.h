/* jread: the checked reading of a JSON document nfstorm wrote (a result,
 * a journal's record lines): a cursor that names the file and the path of
 * the value being read ("phases[2].agents[0].ops"), so every check fails
 * with one line saying exactly what is wrong, like plan_parse does for job
 * files.  The first failure sets failed and the error text; later getters
 * return zeros, and the caller checks the flag once, so readers go
 * straight through without an error check on every key. */
#ifndef NFSTORM_JREAD_H
#define NFSTORM_JREAD_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct jr {
    const char *file;    /* said first ("a.json: ..."), or NULL: not said */
    const char *where;   /* path of the document inside the file ("repetitions[1]"), or "" */
    char *err;
    size_t errlen;
    int failed;
};

/* The first failure: "file: where.path: reason". */
void jr_fail(struct jr *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* obj.key (obj at path; sub gets "path.key"): NULL when it is missing or
 * obj is not an object (a failure), or when one came before. */
json_t *jr_get(struct jr *c, json_t *obj, const char *path, const char *key, char *sub, size_t sublen);

/* obj.key when it is there and nothing failed yet, its path in sub; else
 * NULL (the optional parts: decoded by their own readers). */
json_t *jr_opt(struct jr *c, json_t *obj, const char *path, const char *key, char *sub, size_t sublen);

/* The value of obj.key, checked: an integer in 0..max, any integer, a
 * finite number >= 0, a boolean; 0 on a failure. */
uint64_t jr_u64(struct jr *c, json_t *obj, const char *path, const char *key, uint64_t max);
int64_t jr_i64(struct jr *c, json_t *obj, const char *path, const char *key);
double jr_num(struct jr *c, json_t *obj, const char *path, const char *key);
int jr_bool(struct jr *c, json_t *obj, const char *path, const char *key);

/* The string obj.key into dst (shorter than len, made valid UTF-8); "" on
 * a failure. */
void jr_str(struct jr *c, json_t *obj, const char *path, const char *key, char *dst, size_t len);

/* The array at obj.key, checked to hold exactly want elements (or any
 * number up to max when want is 0). */
json_t *jr_array(struct jr *c, json_t *obj, const char *path, const char *key, size_t want, size_t max,
                 char *sub, size_t sublen);

#endif
