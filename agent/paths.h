/* paths: confining plan paths to the files an agent may touch.
 *
 * (Naming and ${...} expansion are in common/plan_files.)  A path is allowed only if it resolves (with
 * every symlink in its existing part followed) to a place beneath one of
 * the agent's --allow roots.  The part that does not exist yet may not
 * contain "..", so creating it cannot climb out either. */
#ifndef NFSTORM_PATHS_H
#define NFSTORM_PATHS_H

#include <stddef.h>
#include <stdint.h>

#define PATHS_MAX_ROOTS 64

struct allow_list {
    char *root[PATHS_MAX_ROOTS];  /* canonical (realpath) directories, owned */
    size_t n;
};

void allow_list_init(struct allow_list *a);
void allow_list_free(struct allow_list *a);
/* Add a root; it must exist and be a directory. 0 or -errno (text in err). */
int allow_list_add(struct allow_list *a, const char *dir, char *err, size_t errlen);

/* Resolve path (absolute) beneath the allow list into out (canonical).
 * -EACCES with "PATH is outside the allowed directories (ROOTS)" in err. */
int paths_confine(const struct allow_list *a, const char *path,
                  char *out, size_t outlen, char *err, size_t errlen);

/* The allow root a canonical path is beneath (the longest), or NULL. */
const char *paths_root_of(const struct allow_list *a, const char *path);

/* mkdir -p of the directory part of file (its parents must be confined). */
int paths_make_parents(const char *file);

#endif
