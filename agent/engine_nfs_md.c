/* engine_nfs_md: the nfs engine's metadata calls (rw=metadata).
 *
 * md() starts one async call (or a short chain: create, write, close;
 * lookup, rename) and waits on the job's own loop until it completes, so
 * the reconnect handling and the server timeout of agent/nfs_conn.c apply
 * to it as to I/O.  Creates are exclusive and a rename looks its target up
 * first and fails with EEXIST if it exists: the job never truncates,
 * replaces or removes a name it did not create (NFS has no rename that
 * refuses an existing target, so a name appearing between the lookup and
 * the rename is the one window left).  A call is heap-allocated because a
 * late callback after an abandon (agent/engine_nfs.c, nfse_abandon) must
 * find it alive; abandoned ones are kept until teardown. */
#include "agent/engine_nfs_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include <nfsc/libnfs.h>

static void nfse_md_finish(struct nfse_md *m, int rc)
{
    struct nfse_job *j = m->j;
    if (m->abandoned)
        return;               /* handed back already; kept until teardown */
    if (m->result == 0)
        m->result = rc;
    m->done = 1;
    if (j->md_cur == m)
        j->md_cur = NULL;
}

/* The status of an async call: note the server's answer, 0 or -errno. */
static int nfse_md_status(struct nfse_md *m, int status)
{
    if (status >= 0 || status == -ENOENT || status == -EEXIST || status == -ENOTEMPTY ||
        status == -EACCES || status == -EPERM || status == -ENOTDIR || status == -EISDIR)
        nfs_conn_server_ok(&m->j->conn[0]);  /* an answer, even a refusal */
    if (status < 0)
        nfse_note_error(m->j, &m->j->conn[0]);
    return status >= 0 ? 0 : nfs_conn_status_errno(&m->j->conn[0], status);
}

static void nfse_md_done_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs; (void)data;
    struct nfse_md *m = priv;
    nfse_md_finish(m, nfse_md_status(m, status));
}

/* Close the handle a chain opened, then finish with the chain's result. */
static void nfse_md_close(struct nfse_md *m, int rc)
{
    struct nfse_job *j = m->j;
    struct nfsfh *fh = m->fh;
    m->fh = NULL;
    if (m->result == 0)
        m->result = rc;
    if (m->abandoned || j->dead || j->tearing_down) {
        (void)nfs_close_async(j->conn[0].nfs, fh, nfse_noop_cb, NULL);
        nfse_md_finish(m, rc);
        return;
    }
    if (nfs_close_async(j->conn[0].nfs, fh, nfse_md_done_cb, m) != 0)
        nfse_md_finish(m, -EIO);
}

static void nfse_md_write_cb(int status, struct nfs_context *nfs, void *data, void *priv);

static void nfse_md_write_next(struct nfse_md *m)
{
    struct nfse_job *j = m->j;
    if (m->off >= m->size || m->abandoned || j->dead || j->tearing_down) {
        nfse_md_close(m, 0);
        return;
    }
    uint64_t n = m->size - m->off < j->writemax ? m->size - m->off : j->writemax;
    if (nfs_pwrite_async(j->conn[0].nfs, m->fh, m->off, n, m->buf + m->off, nfse_md_write_cb, m) != 0)
        nfse_md_close(m, -EIO);
}

static void nfse_md_write_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs; (void)data;
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc == 0 && status == 0)
        rc = -EIO;             /* no progress */
    if (rc < 0) {
        nfse_md_close(m, rc);
        return;
    }
    m->off += (uint64_t)status;
    nfse_md_write_next(m);
}

/* create and open: the handle arrives here; write (create) and close. */
static void nfse_md_open_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)nfs;
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc < 0) {
        nfse_md_finish(m, rc);
        return;
    }
    m->fh = data;
    if (m->op == OP_CREATE)
        nfse_md_write_next(m);
    else
        nfse_md_close(m, 0);
}

static void nfse_md_opendir_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    struct nfse_md *m = priv;
    int rc = nfse_md_status(m, status);
    if (rc < 0) {
        nfse_md_finish(m, rc);
        return;
    }
    struct nfsdir *d = data;
    uint64_t n = 0;
    while (nfs_readdir(nfs, d))   /* entries are all here already */
        n++;
    nfs_closedir(nfs, d);
    m->count = n;
    nfse_md_finish(m, 0);
}

/* rename: the target was looked up first; only a missing one is replaced
 * by the rename (NFS has no rename that refuses an existing target). */
static void nfse_md_rename_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
    (void)data;
    struct nfse_md *m = priv;
    struct nfse_job *j = m->j;
    if (status == 0) {
        nfs_conn_server_ok(&j->conn[0]);
        nfse_md_finish(m, -EEXIST);     /* someone else's name: left alone */
        return;
    }
    if (status != -ENOENT) {
        nfse_md_finish(m, nfse_md_status(m, status));
        return;
    }
    nfs_conn_server_ok(&j->conn[0]);               /* missing: what we hoped for, no error to note */
    if (m->abandoned || j->dead || j->tearing_down) {
        nfse_md_finish(m, -ENOTCONN);
        return;
    }
    if (nfs_rename_async(nfs, m->path, m->path2, nfse_md_done_cb, m) != 0)
        nfse_md_finish(m, -EIO);
}

/* An engine path ("a/b", "/a/b", ".", "") as an absolute export path. */
static void nfse_md_path(const char *in, char *out, size_t outlen)
{
    while (in[0] == '.' && (in[1] == '/' || in[1] == '\0'))
        in += in[1] ? 2 : 1;
    nfs_conn_fmt(out, outlen, "%s%s", in[0] == '/' ? "" : "/", in);
}


int nfse_md(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                   const char *buf, uint64_t size, uint64_t *count)
{
    struct nfse_job *j = ej->priv;
    if (j->dead) {
        if (!ej->err[0])
            nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: not connected", ej->nfs_url);
        return -ENOTCONN;
    }
    struct nfse_md *m = nfse_pool_get(&j->mds, sizeof(*m));
    if (!m)
        return -ENOMEM;
    m->j = j;
    m->done = m->result = m->abandoned = 0;
    m->off = m->count = 0;
    m->fh = NULL;
    m->op = op;
    m->buf = buf;
    m->size = buf ? size : 0;
    nfse_md_path(path, m->path, sizeof(m->path));
    nfse_md_path(path2 ? path2 : "", m->path2, sizeof(m->path2));

    int rc;
    switch (op) {
    case OP_CREATE:
        /* exclusive: a name that exists is not this job's (EEXIST), and an
         * existing file is never truncated */
        rc = nfs_create_async(j->conn[0].nfs, m->path, O_RDWR | O_EXCL, 0644, nfse_md_open_cb, m);
        break;
    case OP_STAT:
        rc = nfs_stat64_async(j->conn[0].nfs, m->path, nfse_md_done_cb, m);
        break;
    case OP_OPEN:
        rc = nfs_open_async(j->conn[0].nfs, m->path, O_RDONLY, nfse_md_open_cb, m);
        break;
    case OP_READDIR:
        rc = nfs_opendir_async(j->conn[0].nfs, m->path, nfse_md_opendir_cb, m);
        break;
    case OP_RENAME:
        rc = path2 ? nfs_stat64_async(j->conn[0].nfs, m->path2, nfse_md_rename_cb, m) : -EINVAL;
        break;
    case OP_UNLINK:
        rc = nfs_unlink_async(j->conn[0].nfs, m->path, nfse_md_done_cb, m);
        break;
    case OP_MKDIR:
        rc = nfs_mkdir2_async(j->conn[0].nfs, m->path, 0755, nfse_md_done_cb, m);
        break;
    case OP_RMDIR:
        rc = nfs_rmdir_async(j->conn[0].nfs, m->path, nfse_md_done_cb, m);
        break;
    default:
        rc = -EINVAL;
        break;
    }
    if (rc != 0) {
        nfs_conn_fmt(ej->err, sizeof(ej->err), "%s: cannot start %s of %s: %s", ej->nfs_url,
                 op_type_name(op), m->path, nfs_conn_errtext(&j->conn[0]));
        nfse_pool_put(&j->mds, m);
        nfs_conn_check(&j->conn[0]);
        return rc == -EINVAL ? -EINVAL : -EIO;
    }
    j->md_cur = m;
    /* One call at a time, driven like reap(): the tick keeps libnfs's RPC
     * timeouts and our server timeout going; a lost connection abandons
     * the call (nfse_abandon marks it done).  Sent at once, as reap()
     * sends I/O. */
    nfs_conn_check(&j->conn[0]);
    j->conn[0].unflushed++;
    nfs_conn_flush(&j->conn[0]);
    while (!m->done && !j->dead)
        nfs_conn_wait(j->conn, j->nconn, UINT64_MAX);
    if (!m->done) {            /* dead without an abandon (cannot happen) */
        m->abandoned = 1;
        m->result = -ENOTCONN;
        j->md_cur = NULL;
    }
    rc = m->result;
    if (count)
        *count = m->count;
    if (!m->abandoned) {
        nfse_pool_put(&j->mds, m);
    }
    return rc;
}
