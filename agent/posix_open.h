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
 * which files it created: the only ones unlink=1 may delete.  Its missing
 * directories are made the same way, each with mkdirat in its parent
 * opened beneath the root.
 *
 * direct=1: the file system's direct I/O alignment (statx STATX_DIOALIGN)
 * goes into ej->dio_align so a misaligned plan is refused by name instead
 * of failing every op with EINVAL, and files are extended for layout
 * through a second, buffered open of the same file: an O_DIRECT fd refuses
 * the unaligned one-byte write that extends without shrinking. */
#ifndef NFSTORM_POSIX_OPEN_H
#define NFSTORM_POSIX_OPEN_H

#include "agent/engine.h"

/* Open every file of ej into fd[] (set to -1 first): read-write and created
 * when ej->create, else read-only; O_DIRECT/O_SYNC from the job.  Sets
 * ej->files[i].created.  0, or -errno with "PATH: open failed: ..." in
 * ej->err (the fds opened so far stay in fd[] for the caller to close). */
int posix_open_files(struct engine_job *ej, int *fd);

/* The kernel-mount engines differ only in how they issue I/O: their files
 * are ej->fd, opened, sized, extended and closed by the posix_fds_* below,
 * which fill their engine_ops slots directly.  This one allocates ej->fd
 * and opens every file (posix_open_files). */
int posix_fds_open(struct engine_job *ej);
/* The end of every kernel-mount engine's teardown, after it ended what it
 * had in flight and freed what its state points to: posix_md_release,
 * ej->fd closed and freed (none open: nothing), ej->priv freed. */
void posix_fds_teardown(struct engine_job *ej);
int posix_fds_file_size(struct engine_job *ej, uint32_t file, uint64_t *size);
/* The size of the file open on fd, ERRCAUSE_SIZE_UNKNOWN if fstat fails:
 * what a read that met the file's end reports (io_req.eof_size). */
uint64_t posix_fd_size(int fd);
void posix_fds_invalidate(struct engine_job *ej);
/* Before a write phase: the job's fallocate= over [start, size) of the
 * file, then (unless keep or truncate said otherwise) grow it to at least
 * size bytes, never shrinking it.  0 or -errno. */
int posix_fds_extend(struct engine_job *ej, uint32_t file, uint64_t size);
/* Bytes free to unprivileged writers on the first file's file system, its
 * identity (st_dev and statfs's size), and a name for it (the --allow
 * root, else the job's first file).  0 or -errno. */
int posix_fds_space(struct engine_job *ej, struct engine_space *out);
int posix_fds_lock(struct engine_job *ej, uint32_t file, int hold);
/* A kernel-mount engine's engine_ops: its own setup, queue, reap and
 * teardown; the rest are the posix_fds_* above and posix_md_run
 * (agent/posix_md.h), the same in each. */
#define POSIX_ENGINE_OPS(name_, setup_, queue_, reap_, teardown_)                              \
    { .name = name_, .setup = setup_, .queue = queue_, .reap = reap_, .teardown = teardown_,  \
      .file_size = posix_fds_file_size, .md = posix_md_run, .invalidate = posix_fds_invalidate, \
      .extend = posix_fds_extend, .space = posix_fds_space, .lock = posix_fds_lock }

#endif
