/* engine: the I/O backends behind one small ops table.
 *
 * The job loop (agent/job.c) owns timing, offsets, rates and stats; an
 * engine only moves bytes.  It is a queue/reap interface so one loop drives
 * both synchronous engines (psync: queue does the I/O and completes at once)
 * and asynchronous ones (nfs: queue starts an RPC, reap services the
 * connection until enough RPCs completed).
 *
 * Threads: setup() is called for every job of a phase one at a time from a
 * single worker thread (libnfs touches unguarded statics while connecting),
 * before the job threads start; so are file_size, extend, space and the
 * layout's queue/reap.  While the phase runs only the job's own thread
 * calls the engine.  teardown() (and md() for unlink=1) is called from the
 * job thread when its ops could not be drained, else from a worker thread
 * after every job thread of the phase was joined.  Never from the agent's
 * loop thread: it must keep heartbeats flowing whatever the storage does.
 *
 * Errors: functions return 0 or a negative errno; human text goes into
 * ej->err (one line, naming the file or URL) for the agent to report. */
#ifndef NFSTORM_ENGINE_H
#define NFSTORM_ENGINE_H

#include <stdint.h>
#include <stddef.h>
#include "common/engine_table.h"
#include "common/errcause.h"
#include "common/plan.h"
#include "common/stats.h"

struct nfs_rpcstat;

#define ENGINE_ERR_MAX 512

enum io_kind {
    IO_READ = OP_READ,
    IO_WRITE = OP_WRITE,
    IO_SYNC,           /* fsync / NFS COMMIT of one file; len and buf unused */
    IO_DATASYNC        /* fdatasync (NFS: COMMIT as well) */
};

struct io_req {
    enum io_kind kind;
    uint32_t file;        /* index into engine_job.files */
    uint64_t offset;
    uint64_t len;
    char *buf;            /* len bytes, owned by the job loop, aligned for O_DIRECT */
    uint64_t t_due_ns;    /* set by the job loop */
    uint64_t t_issue_ns;  /* set by the job loop */
    int result;           /* set by the engine on completion: 0 or -errno;
                             -ENODATA for a read that met the file's end */
    /* Why it failed, beyond result (both reset by the job loop before
     * queue, set by the engine with a failed result): */
    uint32_t status;      /* the engine's own status (nfs: the reply's NFS
                             status, common/nfs_rpc.h NFS_STATUS_CODE), 0 none */
    uint64_t eof_size;    /* -ENODATA: the file's size then,
                             ERRCAUSE_SIZE_UNKNOWN if not known */
    uint64_t t_done_ns;   /* set by a model engine (null with null_capacity_iops or
                             null_latency): when the op completes in the model,
                             recorded as its end; 0 (the job loop's reset at
                             each issue) = when it was reaped */
    void *udata;          /* the job loop's */
    /* nfs engine, set on completion when every RPC of the op was timed
     * (split_known; 0 otherwise): the round trip of its slowest RPC (the
     * last to complete) and that RPC's wait in the client before its last
     * byte was handed to the socket (common/nfs_rpc.h, nfs_op_split) */
    int split_known;
    uint64_t rpc_rtt_ns, rpc_queued_ns;
};

struct engine_file {
    char path[PLAN_PATH_MAX];  /* posix: absolute, resolved under --allow;
                                  nfs: path relative to the URL's export dir */
    uint64_t size;             /* bytes this job may touch in the file */
    uint64_t start;            /* first byte of the region layout fills
                                  (the job's, or every sharer's, offset) */
    int created;               /* set by setup: this job created the file */
};

struct halt;

struct engine_job {
    const struct job_spec *spec;
    const struct halt *halt;   /* the phase's stop signal: engine work that can
                                  take long (preallocation) checks it */
    const char *nfs_url;       /* spec->nfs_url after expansion (nfs only) */
    uint32_t agent_index;
    uint32_t job_index;        /* thread number within this agent's job */
    struct engine_file *files;
    uint32_t nfiles;
    const char *root;          /* posix: the --allow root the files are beneath */
    const char *md_base;       /* rw=metadata: the job's work directory (set by
                                  mdjob; posix md() keeps it open, see posix_md.h) */
    void *md_state;            /* posix md(): its directory fds, freed by teardown */
    int create;                /* open files for writing, creating them */
    int no_create;             /* with create: open for writing but never create a
                                  missing file (setup fails with -ENOENT): fio's
                                  allow_file_create=0, a job sized from its file */
    int sync_queue;            /* set by setup: queue() completes every request
                                  before it returns and reap() never waits (psync,
                                  null without its model): the job loop's batched
                                  path (agent/job.c, loop_run_sync) */
    uint32_t dio_align;        /* direct=1: offsets and sizes must be
                                  multiples of this (set by setup); 0 = any */
    int *fd;                   /* kernel-mount engines (psync, io_uring, libaio):
                                  [nfiles] descriptors, agent/posix_open.h */
    void *priv;                /* engine state */
    char err[ENGINE_ERR_MAX];
    char detail[ENGINE_ERR_MAX];  /* the engine's own words for the last
                                  failed request (an NFS status), or "" */
    struct nfs_rpcstat *rpcstat;  /* nfs: per-RPC telemetry the engine records
                                  (agent/nfs_rpcstat.h); owned by the job, NULL
                                  for other engines */
};

/* What space() tells: jobs with the same fs are summed against one avail
 * (two jobs in one directory share its free space, whatever their paths). */
struct engine_space {
    uint64_t avail;            /* bytes free to an unprivileged writer */
    uint64_t fs;               /* the file system's identity (see phase_check_space) */
    uint64_t file;             /* the job's first file on it (inode, or a hash of its path) */
    char where[PLAN_PATH_MAX]; /* a path or URL on it, for messages */
};

struct engine_ops {
    const char *name;
    /* Connect/open everything; when ej->create, missing files are created
     * (an existing file is never truncated) and marked files[i].created. */
    int (*setup)(struct engine_job *ej);
    /* Start one request of any len (an engine with a transfer limit, like
     * NFS rsize/wsize, splits it and completes it once).  May complete it before returning (sync engines);
     * either way it is handed back exactly once by reap.  Returns <0 only if
     * the request could not be started; then it is never handed back. */
    int (*queue)(struct engine_job *ej, struct io_req *r);
    /* Wait until at least min requests completed or timeout_ns passed;
     * store up to max of them in done[]; returns how many, or <0 on a fatal
     * engine error (text in err). */
    int (*reap)(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                struct io_req **done, unsigned max);
    /* Size of a file as the server/file system sees it (for layout):
     * 0 with *size set, -ENOENT if missing. */
    int (*file_size)(struct engine_job *ej, uint32_t file, uint64_t *size);
    void (*teardown)(struct engine_job *ej);
    /* One metadata op, synchronous: OP_CREATE (create path exclusively:
     * -EEXIST if it exists; write size bytes from buf, close), OP_STAT,
     * OP_OPEN (open and close), OP_READDIR (list directory path; *count =
     * entries), OP_RENAME (path -> path2, never replacing an existing path2:
     * -EEXIST), OP_UNLINK, OP_MKDIR, OP_RMDIR.  Paths are like
     * engine_file.path (posix: resolved beneath root, see posix_md.h).
     * 0 or -errno.  NULL if the engine has no metadata support. */
    int (*md)(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
              const char *buf, uint64_t size, uint64_t *count);
    /* Drop cached data of the job's files (fio's invalidate=1), so a read
     * phase after layout reads from storage.  NULL if there is no cache. */
    void (*invalidate)(struct engine_job *ej);
    /* Grow a file to at least size bytes without shrinking it (agents
     * sharing a file may extend it concurrently) and without the I/O
     * path's constraints (O_DIRECT alignment).  NULL: layout writes one
     * byte at size - 1 through queue(). */
    int (*extend)(struct engine_job *ej, uint32_t file, uint64_t size);
    /* Bytes free to this job where its files live (statvfs, NFS FSSTAT),
     * which file system that is and a name for it in messages.  NULL: not
     * known. */
    int (*space)(struct engine_job *ej, struct engine_space *out);
    /* After setup: the protocol version the server agreed to (3, 4; 0 if
     * unknown) and the largest read and write in bytes the engine sends,
     * for the result's record; returns 1 when those sizes are the server's
     * (NFSv3 FSINFO), 0 when it gave none and they are the engine's own
     * split size (libnfs reports none for NFSv4).  NULL: a kernel mount
     * (its options say, mountinfo.h). */
    int (*negotiated)(struct engine_job *ej, uint32_t *version, uint64_t *rsize, uint64_t *wsize);
    /* Take (hold=1) or release (hold=0) the layout lock of a file, held
     * by whoever opened the same file (its identity, not its path: every
     * agent and job sharing it), so a shared file is laid out once.  Never
     * waits: 0 taken or released, -EAGAIN held by another, another
     * negative errno when the file system has no locks.  NULL: no locks
     * (who lays out then goes by the plan: owns_files in agent/phase.c). */
    int (*lock)(struct engine_job *ej, uint32_t file, int hold);
};

/* "ENOSPC (No space left on device)": the errno's name and text, for
 * messages; err is positive or negative. */
const char *engine_strerror(int err, char *buf, size_t len);
/* Errors that no retry cures (full, read-only, over quota, too big, no
 * permission, stale handle): a job that meets one ends at once with it. */
int engine_error_persistent(int err);

/* Engines known to this build; NULL if name is unknown. */
const struct engine_ops *engine_find(const char *name);

/* one per row of common/engine_table.h, each defined in its engine_*.c */
#define ENGINE_OPS_DECL(name, aliases, target, flags, ops) extern const struct engine_ops ops;
ENGINE_TABLE(ENGINE_OPS_DECL)
#undef ENGINE_OPS_DECL

#endif
