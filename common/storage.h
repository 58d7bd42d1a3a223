/* storage: what one job of a phase does its I/O on, as an agent sees it.
 *
 * One description shared by the agent (which fills it: a kernel mount from
 * /proc/self/mountinfo, or the libnfs URL and what the server negotiated),
 * the wire (proto/msg.h, the "storage" message) and the coordinator's
 * result model (run_record.h), so the three can never disagree on a field.
 * Strings are NUL-terminated and bounded by their arrays; "" and 0 mean
 * "not known" (an option the mount does not show, a server that did not
 * say). */
#ifndef NFSTORM_STORAGE_H
#define NFSTORM_STORAGE_H

#include <stdint.h>
#include "common/plan.h"

enum storage_kind {
    STORAGE_MOUNT = 0,        /* a kernel mount (psync, io_uring) */
    STORAGE_NFS = 1,          /* libnfs: the agent's own NFS client */
};

#define STORAGE_SOURCE_MAX  256
#define STORAGE_FSTYPE_MAX  32
#define STORAGE_OPTIONS_MAX 512
/* At most this many distinct places per phase per agent: the agent sends
 * no more, the coordinator keeps no more. */
#define STORAGE_PER_PHASE_MAX 16

struct storage_info {
    uint32_t kind;                    /* enum storage_kind */
    char job[PLAN_NAME_MAX];          /* the first job of the phase that uses it */
    char where[PLAN_PATH_MAX];        /* mount: the mount point; nfs: the URL */
    char source[STORAGE_SOURCE_MAX];  /* mount: its source ("server:/export", "/dev/sda1") */
    char fstype[STORAGE_FSTYPE_MAX];  /* mount: "nfs4", "ext4", "tmpfs"; nfs: "nfs" */
    char options[STORAGE_OPTIONS_MAX];/* mount: per-mount then file-system options */
    char nfsvers[16];                 /* "4.1", "3"; nfs: the negotiated version */
    uint64_t rsize, wsize;            /* bytes; nfs: the negotiated maxima */
    uint32_t nconnect;                /* mount option nconnect= (0: not shown) */
    uint32_t timeo;                   /* mount option timeo= in deciseconds (0: not shown) */
    char mode[8];                     /* "hard" or "soft" (mount), "" */
};

#endif
