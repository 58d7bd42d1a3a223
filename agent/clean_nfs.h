/* clean_nfs: the NFS half of `nfstorm clean` on an agent: a file an
 * ioengine=nfs job names is removed through libnfs, on the server of the
 * job's URL (checked against --allow-nfs by the caller), as the job would
 * reach it: a path beneath the URL's export, never one with a ".."
 * component, and only a regular file (lstat, so a symlink is left alone).
 *
 * One synchronous libnfs context, kept while consecutive files share a URL
 * (a plan's files usually do).  Runs on the clean's worker thread; the
 * caller owns the struct and calls clean_nfs_close once. */
#ifndef NFSTORM_CLEAN_NFS_H
#define NFSTORM_CLEAN_NFS_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

struct nfs_context;

struct clean_nfs {
    struct nfs_context *nfs;       /* mounted for url, or NULL */
    char url[PLAN_PATH_MAX];
};

/* Remove path (relative to url's export) if it is a regular file there.
 * 1 removed (*bytes its size), 0 not there, -EISDIR/-EPERM left alone with
 * err saying why (not a regular file, a ".." component), other -errno when
 * the server cannot be reached or refused (err names the URL). */
int clean_nfs_remove(struct clean_nfs *cn, const char *url, const char *path, uint64_t *bytes, char *err,
                     size_t errlen);
/* 1 when path (beneath url's export) is a regular file there, else 0
 * (also when the server cannot be reached): the probe of clean.c. */
int clean_nfs_exists(struct clean_nfs *cn, const char *url, const char *path);
void clean_nfs_close(struct clean_nfs *cn);

#endif
