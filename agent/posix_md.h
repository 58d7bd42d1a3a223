/* posix_md: metadata ops and cache dropping on a kernel mount, shared by
 * the engines that work on paths (psync, io_uring).
 *
 * Both are synchronous POSIX calls whatever engine moves the data: io_uring
 * could issue some of them (openat, statx, renameat, unlinkat, mkdirat) but
 * not readdir, and metadata jobs run one op at a time anyway. */
#ifndef NFSTORM_POSIX_MD_H
#define NFSTORM_POSIX_MD_H

#include <stdint.h>
#include "agent/engine.h"

/* engine_ops.md for path engines: one metadata op, 0 or -errno.  ej is
 * unused (the signature is the ops table's, so engines can point at it). */
int posix_md_run(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                 const char *buf, uint64_t size, uint64_t *count);

/* Drop cached pages of nfd open files (fio's invalidate=1): fdatasync first,
 * since dirty pages are not dropped; fds < 0 are skipped.  Best effort. */
void posix_md_invalidate(const int *fd, uint32_t nfd);

#endif
