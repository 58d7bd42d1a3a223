/* plan: the workload model shared by the parser, the wire and the agent.
 *
 * A plan is a list of phases; a phase is a list of jobs that run together
 * (fio's "group": a job with stonewall starts a new phase).  Every agent runs
 * every job of a phase with numjobs threads each.  Paths are kept as written
 * (with ${agent} and ${host} unexpanded); the agent expands them.
 *
 * job_spec is plain data with fixed-size strings so it can be copied, sent
 * and compared without ownership questions. */
#ifndef NFSTORM_PLAN_H
#define NFSTORM_PLAN_H

#include <stdint.h>
#include <stddef.h>

#define PLAN_NAME_MAX   64
#define PLAN_PATH_MAX   1024
#define PLAN_ENGINE_MAX 16
#define PLAN_MAX_PHASES 256
#define PLAN_MAX_JOBS   64     /* per phase */
#define PLAN_MAX_NUMJOBS 4096
#define PLAN_MAX_NRFILES 1000000

enum rw_mode {
    RW_READ = 0,
    RW_WRITE,
    RW_RANDREAD,
    RW_RANDWRITE,
    RW_RW,        /* sequential mix, fio's rw/readwrite */
    RW_RANDRW,
    RW__COUNT
};

struct job_spec {
    char name[PLAN_NAME_MAX];
    enum rw_mode rw;
    uint32_t rwmixread;        /* percent reads for RW_RW/RW_RANDRW; default 50 */
    uint64_t bs;               /* bytes per op; default 4096 */
    uint64_t size;             /* bytes of I/O per job thread (fio's size); required */
    uint64_t filesize;         /* bytes per file; 0 = size / nrfiles */
    uint32_t nrfiles;          /* files per job thread; default 1 */
    uint32_t numjobs;          /* threads per agent; default 1 */
    uint64_t runtime_ns;       /* 0 = until size is done */
    uint64_t ramp_ns;          /* measured from the start; excluded from stats */
    int time_based;            /* loop over size until runtime */
    int direct;                /* O_DIRECT */
    uint32_t fsync;            /* fsync after every N writes; 0 = never */
    int end_fsync;             /* fsync each file at the end of the job */
    int stonewall;             /* this job starts a new phase */
    int group_reporting;       /* accepted; reporting is always grouped */
    char filename[PLAN_PATH_MAX];   /* "" = generated per job and file */
    char directory[PLAN_PATH_MAX];  /* "" = the agent's first --allow root */
    char ioengine[PLAN_ENGINE_MAX]; /* "psync" (default), "null", "nfs" */
    uint32_t iodepth;          /* async ops in flight per job; default 1 */
    char nfs_url[PLAN_PATH_MAX];
};

struct phase {
    char name[PLAN_NAME_MAX];  /* the first job's name */
    uint32_t njobs;
    struct job_spec *jobs;     /* owned */
};

struct plan {
    uint32_t nphases;
    struct phase *phases;      /* owned */
};

/* A job with fio's defaults (rw=read, bs=4k, numjobs=1, nrfiles=1, ...). */
void job_spec_default(struct job_spec *j);
const char *rw_mode_name(enum rw_mode rw);     /* fio's word: "randread" */
int rw_mode_from_name(const char *s);          /* accepts fio's aliases; -1 if unknown */
int rw_mode_reads(enum rw_mode rw);            /* 1 if the mode issues reads */
int rw_mode_writes(enum rw_mode rw);
int rw_mode_random(enum rw_mode rw);

void plan_init(struct plan *p);
void plan_free(struct plan *p);
/* Append a job; starts a new phase when the plan is empty or j->stonewall. */
void plan_add_job(struct plan *p, const struct job_spec *j);
/* Deep copy. */
void plan_copy(struct plan *dst, const struct plan *src);

/* Check a finished job for consistency (size set, bs <= filesize, ...).
 * 0 or -EINVAL with a message naming the key in err. */
int job_spec_validate(const struct job_spec *j, char *err, size_t errlen);

/* Bytes per file after defaults: filesize, or size / nrfiles. */
uint64_t job_file_size(const struct job_spec *j);

#endif
