/* serve_dir: the private run directories of `nfstorm serve`, and who owns
 * them.
 *
 * Each run of the pool works in a directory nfstorm-serve.XXXXXX (mode
 * 700) under serve_dir_base().  A serve that ends normally removes it; one
 * that is killed (kill -9, OOM, a crash) cannot, so the next serve removes
 * what such a serve left.  It must never remove a directory another live
 * serve is using, nor one that is not a serve's at all, so ownership is
 * marked, not guessed from names or pids:
 *
 *   - the directory holds a marker file SERVE_DIR_MARKER, created with
 *     O_EXCL, which its serve keeps open and flock()ed (LOCK_EX) for as
 *     long as the directory lives; the kernel drops the lock when that
 *     serve dies, however it dies;
 *   - the marker's first line is SERVE_DIR_MAGIC, written after the lock
 *     is held.
 *
 * A directory is stale when all of these hold: it is a real directory
 * (not a symlink) named nfstorm-serve.*, owned by our effective uid, not
 * accessible to group or others; its marker is a regular file owned by us
 * that starts with the magic line; and we get the marker's lock without
 * waiting.  A serve that is making its directory holds the lock before it
 * writes the magic, so a sweep never sees the magic unlocked unless that
 * serve is gone.  Everything is done relative to the directory descriptor
 * that was checked (openat/unlinkat, O_NOFOLLOW), so a name swapped for a
 * symlink meanwhile leads nowhere.
 *
 * Directories of a serve older than the marker are never removed (they
 * are not known to be ours).  Loop thread of serve only. */
#ifndef NFSTORM_SERVE_DIR_H
#define NFSTORM_SERVE_DIR_H

#include <stddef.h>
#include <stdio.h>

#define SERVE_DIR_PREFIX "nfstorm-serve."
#define SERVE_DIR_MARKER ".nfstorm-serve-owner"
#define SERVE_DIR_MAGIC  "nfstorm serve run directory"

/* Where run directories go: $TMPDIR as mktemp(1) has it when it is an
 * absolute path short enough for a dir of len bytes ("" for "/"), else
 * "/tmp".  Writes the base into out (at least len bytes). */
void serve_dir_base(char *out, size_t len);

/* Mark dir (just made by mkdtemp, ours) as this serve's: creates the
 * marker, locks it and writes the magic.  0 with *lock_fd (> 2, close on
 * exec) to keep open until the directory is gone, or -errno. */
int serve_dir_claim(const char *dir, int *lock_fd);

/* A run directory's end: the mark and dir itself are removed when
 * nothing else is left in it (the caller removed the run's files); else
 * the mark stays, so the next serve sweeps what is left.  The lock is
 * released either way.  0, or -ENOTEMPTY. */
int serve_dir_release(const char *dir, int lock_fd);

/* Remove the stale run directories under serve_dir_base() (see the top),
 * each named on log (NULL: quiet).  Returns how many were removed. */
int serve_dir_sweep(FILE *log);

#endif
