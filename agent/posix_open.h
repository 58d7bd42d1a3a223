/* posix_open: opening a job's data files on a kernel mount (psync and
 * io_uring), beneath the --allow root they were confined to.
 *
 * The plan's paths were checked against the roots when the plan arrived;
 * opening them with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * relative to the root closes the window between that check and the open:
 * a symlink swapped in meanwhile cannot lead outside.  Kernels without
 * openat2 (< 5.6) fall back to a plain open of the checked path.
 *
 * A file is created only if it does not exist (O_EXCL), so the job knows
 * which files it created: the only ones unlink=1 may delete. */
#ifndef NFSTORM_POSIX_OPEN_H
#define NFSTORM_POSIX_OPEN_H

#include "agent/engine.h"

/* Open every file of ej into fd[] (set to -1 first): read-write and created
 * when ej->create, else read-only; O_DIRECT/O_SYNC from the job.  Sets
 * ej->files[i].created.  0, or -errno with "PATH: open failed: ..." in
 * ej->err (the fds opened so far stay in fd[] for the caller to close). */
int posix_open_files(struct engine_job *ej, int *fd);

#endif
