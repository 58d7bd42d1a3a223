/* posix_md: metadata ops and cache dropping on a kernel mount, shared by
 * the engines that work on paths (psync, io_uring).
 *
 * Both are synchronous POSIX calls whatever engine moves the data: io_uring
 * could issue some of them (openat, statx, renameat, unlinkat, mkdirat) but
 * not readdir, and metadata jobs run one op at a time anyway.
 *
 * Confinement: no op takes a plain path.  Each path is split into a
 * directory and a last name; the directory is opened with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) relative to the --allow
 * root's fd (ej->root), and the op is an *at() call on that directory fd
 * (openat2, mkdirat, unlinkat, renameat2, fstatat with AT_SYMLINK_NOFOLLOW).
 * A metadata job's work directory (ej->md_base) is opened once, at its
 * first use, and every later op on a name in it (or in one of its
 * subdirectories d<k>, resolved beneath it) goes through that fd: a symlink
 * swapped in for the directory while the job runs is never followed, and
 * one swapped in for a subdirectory cannot lead out of the work directory.
 *
 * Renames never replace: renameat2(RENAME_NOREPLACE), or where the file
 * system refuses that flag (an NFS kernel mount does), a fstatat of the
 * target first, so an existing target fails the op with EEXIST (with a
 * window between the check and the rename on such file systems). */
#ifndef NFSTORM_POSIX_MD_H
#define NFSTORM_POSIX_MD_H

#include <stdint.h>
#include "agent/engine.h"

/* engine_ops.md for path engines: one metadata op, 0 or -errno.  path and
 * path2 are absolute and beneath ej->root (-EXDEV if not, or if resolving
 * them would leave it).  Directory fds are kept in ej->md_state between
 * calls: the engine's teardown calls posix_md_release.  Only the job's own
 * thread calls it (or a worker once that thread ended, as engine.h says). */
int posix_md_run(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                 const char *buf, uint64_t size, uint64_t *count);

/* Close what posix_md_run keeps open for ej (idempotent). */
void posix_md_release(struct engine_job *ej);

/* Drop cached pages of nfd open files (fio's invalidate=1): fdatasync first,
 * since dirty pages are not dropped; fds < 0 are skipped.  Best effort. */
void posix_md_invalidate(const int *fd, uint32_t nfd);

#endif
