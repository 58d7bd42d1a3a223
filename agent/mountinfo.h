/* mountinfo: which kernel mount holds a path, from /proc/self/mountinfo.
 *
 * A pure parser over the file's text (proc(5): "id parent major:minor root
 * mount-point mount-options [optional...] - fstype source super-options",
 * with space, tab, newline and backslash escaped as \040 \011 \012 \134),
 * so it is unit-tested on fixture text.  The mount of a path is the last
 * mount (in file order: later mounts stack on earlier ones) whose mount
 * point is the longest prefix of the path on a component boundary. */
#ifndef NFSTORM_MOUNTINFO_H
#define NFSTORM_MOUNTINFO_H

#include <stddef.h>
#include "common/storage.h"

/* Fill out (kind STORAGE_MOUNT: where = mount point, source, fstype,
 * options = mount options "," super options, and from those the NFS fields
 * nfsvers (vers= or nfsvers=), rsize, wsize, nconnect, timeo, hard/soft)
 * for the mount holding abs_path (absolute, already resolved).  0, or
 * -ENOENT if no line holds it (or the text has no valid line). */
int mountinfo_find(const char *text, const char *abs_path, struct storage_info *out);
/* The NFS fields of an option list ("rw,vers=4.1,rsize=1048576,hard"), into
 * out's nfsvers, rsize, wsize, nconnect, timeo and mode; others untouched. */
void mountinfo_nfs_fields(const char *options, struct storage_info *out);
/* This process's /proc/self/mountinfo (up to 4 MiB), NUL-terminated; the
 * caller frees it.  NULL with errno set. */
char *mountinfo_read(void);
/* The mount holding abs_path on this machine: mountinfo_find over
 * mountinfo_read.  0 or -errno. */
int mountinfo_lookup(const char *abs_path, struct storage_info *out);

#endif
