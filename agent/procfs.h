/* procfs: the kernel's text files (/proc, /sys) as the agent's parsers
 * take them: a whole file read at once, bounded (a kernel file may be
 * large, never endless), and proc's octal escapes (\040 for a space in a
 * mount point, and friends) undone. */
#ifndef NFSTORM_PROCFS_H
#define NFSTORM_PROCFS_H

#include <stddef.h>

/* Up to max bytes of path, NUL-terminated; the caller frees it.  NULL
 * with errno set when it cannot be opened. */
char *procfs_read(const char *path, size_t max);

/* [s, e) with its \ooo escapes undone into out (len bytes, NUL-terminated;
 * out may be s itself: the text only shrinks).  0, or -ENAMETOOLONG when
 * it does not fit. */
int procfs_unescape(const char *s, const char *e, char *out, size_t len);

#endif
