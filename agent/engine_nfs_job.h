/* engine_nfs_job: the nfs engine's job state, private to the engine's two
 * files: agent/engine_nfs.c (files, requests, their completion, teardown)
 * and agent/engine_nfs_md.c (metadata calls, rw=metadata).  Both run on the
 * job thread only; nothing outside the engine includes this. */
#ifndef NFSTORM_ENGINE_NFS_JOB_H
#define NFSTORM_ENGINE_NFS_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "agent/engine.h"
#include "agent/nfs_conn.h"

struct nfs_context;
struct nfsfh;
struct nfse_op;
struct nfse_part;

/* Records (ops, parts, md calls) are reused through a free list and freed
 * only at teardown: no malloc per request once warmed up.  Each record
 * type starts with its struct nfse_rec. */
struct nfse_rec { struct nfse_rec *next_free, *all_next; };
struct nfse_pool { struct nfse_rec *free, *all; };
/* A record of size bytes (zeroed when new), NULL when out of memory. */
void *nfse_pool_get(struct nfse_pool *p, size_t size);
void nfse_pool_put(struct nfse_pool *p, void *rec);

/* One metadata call (md()); heap-allocated because a late callback after
 * an abandon must find it alive.  Abandoned ones are kept until teardown. */
struct nfse_md {
    struct nfse_rec rec;
    struct nfse_job *j;
    enum op_type op;
    int done, result, abandoned;
    const char *buf;           /* create: the data to write */
    uint64_t size, off, count;
    struct nfsfh *fh;
    char path[PLAN_PATH_MAX + 2], path2[PLAN_PATH_MAX + 2];
};

struct nfse_job {
    struct engine_job *ej;
    struct nfs_conn conn[NFS_CONN_MAX];   /* md() and sync calls use conn[0] */
    unsigned nconn;            /* opened (each closed by teardown) */
    unsigned next_conn;        /* where nfse_pick's round-robin starts */
    struct nfsfh **fh;         /* fh[c * nfiles + file]: handles are per context */
    uint32_t nfh;              /* files open on every connection */
    int v4;
    uint64_t readmax, writemax;

    unsigned inflight;         /* ops started, not yet done */
    struct nfse_op *ifl;       /* those ops, to fail them if a connection dies */
    struct nfse_op *done_head, *done_tail;
    unsigned ndone;
    struct nfse_pool ops, parts;

    int dead;                  /* a connection died: the job is over */
    int tearing_down;          /* io_reqs may be gone: do not touch them */

    uint64_t *eof_size;        /* [nfh]: a file's size as a GETATTR after a short
                                  read saw it, ERRCAUSE_SIZE_UNKNOWN until then */
    char st_text[64];          /* the last status name parsed, and its code: */
    uint32_t st_code;          /* nfs_status_from_name is slow, a failing run repeats one */

    struct nfse_md *md_cur;    /* the md call in flight, if any */
    struct nfse_pool mds;
};

/* Keep libnfs's words for a failed RPC of c, for the job's message. */
void nfse_note_error(struct nfse_job *j, const struct nfs_conn *c);
/* A libnfs callback for calls whose answer nobody waits for. */
void nfse_noop_cb(int status, struct nfs_context *nfs, void *data, void *private_data);
/* engine_ops.md: one metadata call, waited for on the job's loop. */
int nfse_md(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
            const char *buf, uint64_t size, uint64_t *count);
#endif
