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
#include "common/plan_log.h"
#include "common/plan_sweep.h"

#define PLAN_NAME_MAX   64
#define PLAN_PATH_MAX   1024
#define PLAN_ENGINE_MAX 16
#define PLAN_BATCH_DEPTH UINT32_MAX   /* iodepth_batch_submit=0: the job's iodepth */
#define PLAN_MAX_PHASES 256
#define PLAN_MAX_JOBS   64     /* per phase */
#define PLAN_MAX_NUMJOBS 4096
#define PLAN_MAX_IODEPTH 4096  /* requests in flight per job thread */
#define PLAN_MAX_NCONNECT 16   /* nfs: TCP connections per job thread */
#define PLAN_MAX_NRFILES 1000000
/* The largest byte offset a file can have (off_t is signed): every job's
 * region, offset + offset_increment x global job number + its length, ends
 * at or below it. */
#define PLAN_MAX_FILE_OFFSET ((uint64_t)INT64_MAX)
/* Longest time a plan may name, in ns: startdelay + ramp_time + runtime
 * together, and thinktime, op_deadline, server_timeout each (100 years; far
 * from where the monotonic clock's uint64_t ns could wrap). */
#define PLAN_MAX_TIME_NS (UINT64_C(100) * 365 * 24 * 3600 * 1000000000)
/* More ops per second than one per ns cannot be scheduled. */
#define PLAN_MAX_RATE_IOPS UINT64_C(1000000000)

enum rw_mode {
    RW_READ = 0,
    RW_WRITE,
    RW_RANDREAD,
    RW_RANDWRITE,
    RW_RW,        /* sequential mix, fio's rw/readwrite */
    RW_RANDRW,
    RW_METADATA,  /* nfstorm: md_ops over the job's files */
    RW_COHERENCE, /* nfstorm: visibility lag between agents (common/coherence.h) */
    RW__COUNT
};

#define PLAN_MAX_BSSPLIT 16
#define PLAN_MAX_MD_OPS  16
#define PLAN_AGENTS_MAX  256

enum rate_process { RATE_LINEAR = 0, RATE_POISSON };
enum rand_dist { DIST_RANDOM = 0, DIST_ZIPF, DIST_PARETO, DIST_NORMAL,
                 DIST_ZONED, DIST_ZONED_ABS };  /* zones in job_spec.zones */
enum rw_sequencer { RWSEQ_SEQUENTIAL = 0, RWSEQ_IDENTICAL };
enum file_service { FSERV_ROUNDROBIN = 0, FSERV_SEQUENTIAL, FSERV_RANDOM };

struct bssplit_entry {
    uint64_t bs;
    uint32_t pct;              /* percent of ops with this bs; entries sum to 100 */
};

struct job_spec {
    char name[PLAN_NAME_MAX];
    enum rw_mode rw;
    uint32_t rwmixread;        /* percent reads for RW_RW/RW_RANDRW; default 50 */
    uint64_t bs;               /* bytes per op; default 4096 */
    uint64_t size;             /* bytes of I/O per job thread (fio's size); required */
    uint64_t filesize;         /* bytes per file; 0 = size / nrfiles */
    uint32_t size_pct;         /* fio's size=N%: 1..100 of each existing file (size is
                                * then 0; the agent sizes the job, agent/job_files.h); 0 = none */
    uint32_t kb_base;          /* fio's kb_base for the plan's sizes: 1000, else 1024
                                * (0 = 1024); parse-time only, not on the wire */
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
    char ioengine[PLAN_ENGINE_MAX]; /* a row of common/engine_table.h; "psync" by default */
    uint32_t iodepth;          /* async ops in flight per job; default 1 */
    /* fio's batching of an async engine (libaio), each clamped to iodepth
     * by the engine: ops submitted in one go (0 = unset: what the job loop
     * issued, at its next wait; the plan's 0, fio's "iodepth", is
     * PLAN_BATCH_DEPTH), the fewest and most completions taken in one go
     * (0 = 1, and 0 = as many as are ready) */
    uint32_t iodepth_batch_submit;
    uint32_t iodepth_batch_complete_min;
    uint32_t iodepth_batch_complete_max;
    char nfs_url[PLAN_PATH_MAX];

    /* fio dialect, wider */
    char description[256];
    char buffer_pattern[256];  /* fio's: 0x-hex, 'text' or a number; "" = random data */
    /* write buffer contents (common/wbuf.h): fio's keys; scramble_buffers
     * and refill_buffers are -1 until set, and wbuf_resolve turns the
     * lot into buf_mode at the end of the job's section */
    int zero_buffers;
    int scramble_buffers;
    int refill_buffers;
    uint32_t buffer_compress_percentage;  /* 0..100 */
    uint32_t buffer_compress_chunk;       /* bytes; 0 = 512 */
    uint32_t dedupe_percentage;           /* 0..100 */
    uint32_t dedupe_mode;                 /* enum wbuf_dedupe */
    uint32_t dedupe_working_set_percentage;  /* working_set: share of the job's
                                             size held as unique pages; 0 = 5 */
    int dedupe_global;                    /* working_set: one set for every job */
    uint32_t buf_mode;                    /* enum wbuf_mode (the wire's) */
    uint32_t fallocate;                   /* enum plan_fallocate: how a write
                                             phase's files get their size */
    uint32_t fadvise_hint;                /* enum plan_fadvise */
    uint64_t bsrange_min;      /* bsrange=a-b: random bs in [a,b], multiples of a; 0 = unset */
    uint64_t bsrange_max;
    uint32_t nbssplit;         /* bssplit=4k/50:64k/50; 0 = unset */
    struct bssplit_entry bssplit[PLAN_MAX_BSSPLIT];
    uint64_t offset;           /* first byte used in each file */
    uint64_t offset_increment; /* added per global job number (see docs/plans.md) */
    uint64_t io_size;          /* bytes of I/O per job; 0 = size (fio io_size/io_limit) */
    uint64_t number_ios;       /* stop after this many ops; 0 = no limit */
    uint32_t loops;            /* repeat the job's I/O this many times; default 1 */
    uint64_t startdelay_ns;
    uint64_t thinktime_ns;     /* pause after each op */
    uint32_t flow;             /* fio's flow weight (agent/flow.h); 0 = none */
    uint32_t flow_id;          /* which flow group */
    uint64_t flow_sleep_ns;    /* wait when ahead of its weight; 0 = 50 us */
    uint64_t rate_bps;         /* bytes/s per job thread; 0 = unlimited */
    uint64_t rate_iops;        /* ops/s per job thread; 0 = unlimited */
    enum rate_process rate_process;
    int randrepeat;            /* default 1: same offsets every run */
    uint64_t randseed;         /* 0 = derived from agent and job */
    enum rand_dist random_distribution;
    double dist_param;         /* zipf theta, pareto h, normal sigma (percent) */
    int unlink;                /* delete the job's files at its end */
    int sync;                  /* O_SYNC */
    uint32_t fdatasync;        /* fdatasync after every N writes; 0 = never */
    int invalidate;            /* drop cached pages of the files before the phase; default 1 */
    enum file_service file_service_type;
    char filename_format[PLAN_PATH_MAX]; /* fio's $jobname.$jobnum.$filenum form; "" = default */
    int new_group;             /* accepted: reporting is per phase */
    char agents[PLAN_AGENTS_MAX];  /* which agents run it: "" = all, "0-3,7"; labels resolved by
                                      the coordinator before sending */
    /* metadata jobs (rw=metadata) */
    uint32_t n_md_ops;
    uint32_t md_ops[PLAN_MAX_MD_OPS];  /* enum op_type values, run in this order */
    uint32_t files_per_dir;    /* 0 = all files in one directory */
    int shared_dir;            /* all agents work in one directory */
    /* multi-client checks (docs/verify.md) */
    uint32_t rotate;           /* use the files of agent (i + rotate) mod N (common/rotate.h) */
    /* rw=coherence (common/coherence.h): size / bs generations per writer */
    char coherence_writers[PLAN_AGENTS_MAX]; /* index list of the writing agents; "" = agent 0 */
    char coherence_close[8];   /* after each write: "close" (default), "fsync", "none" */
    char coherence_poll[8];    /* readers: "read" (open/read/close, default) or "stat" */
    uint64_t coherence_period_ns;        /* between generations; default 50 ms */
    uint64_t coherence_deadline_ns;      /* never visible after this; default 5 s */
    uint64_t coherence_poll_interval_ns; /* between polls; default 100 us */
    uint32_t coherence_never_warn;       /* coherence_never_visible=warn (1); fail (0, default):
                                            a never-visible generation fails the phase */
    /* failure handling */
    uint64_t op_deadline_ns;   /* an op outstanding longer counts as timed out; default 60 s */
    uint64_t server_timeout_ns;/* nfs: give up after the server is away this long; default 30 s */
    uint32_t nconnect;         /* nfs: TCP connections per job, 1..PLAN_MAX_NCONNECT;
                                  0 = not set (1; an older coordinator omits it) */
    /* fio's per-direction lists ("bs=4k,64k": reads, writes[, trims]) and
     * sequence modifiers.  The fields above hold the reads' value (or the
     * one value for both); these hold the writes' where the list gave them
     * apart, 0 = as reads.  On the wire only when set. */
    uint64_t bs_w;
    uint64_t bsrange_w_min, bsrange_w_max;
    uint32_t nbssplit_w;
    struct bssplit_entry bssplit_w[PLAN_MAX_BSSPLIT];
    uint32_t rate_per_dir;     /* rate/rate_iops given as a list: each direction has its own
                                  schedule, rate_bps/rate_iops for reads (0 = unlimited),
                                  rate_w_bps/rate_w_iops for writes; 0: one schedule for both */
    uint64_t rate_w_bps;
    uint64_t rate_w_iops;
    uint64_t rate_min_bps;     /* rate_min: fail the job when reads (or the one value: each
                                  direction) fall below this over a ratecycle; 0 = none */
    uint64_t rate_min_w_bps;   /* ... writes */
    uint64_t rate_min_iops;    /* rate_iops_min, likewise */
    uint64_t rate_min_w_iops;
    uint64_t ratecycle_ns;     /* the window of rate_min; 0 = 1 s */
    uint64_t rw_seq_nr;        /* rw=randread:N: a new random offset every N ops; 0/1 = each op */
    uint64_t rw_seq_bytes;     /* rw=write:4k: a hole of this many bytes after each op; as
                                  int64_t below 0: rw=read:-8k, each op that many bytes back
                                  from the last one's end (fio's backwards I/O) */
    uint32_t rw_sequencer;     /* enum rw_sequencer: the N-1 ops between: sequential (default) or identical */
    char zones[256];           /* random_distribution=zoned:/zoned_abs: its text after the
                                  colon (common/zones.h), "" otherwise */
    /* files that must exist */
    uint32_t no_file_create;   /* fio's allow_file_create=0: a missing file is an error */
    uint32_t openfiles;        /* files in use at once (fio's openfiles); 0 = all */
    uint32_t norandommap;      /* uniform random offsets may repeat within a pass */
    uint32_t overwrite;        /* fio's overwrite=1: a write job's files are laid out with
                                  data first (plan_layout_fills) */
    /* verdicts (coordinator only, not sent to agents): failed ops a phase
     * tolerates before it fails; default 0 and 0.0 = any failed op fails it */
    uint64_t error_threshold;  /* a count ... */
    double error_threshold_pct;/* ... or a percentage of the phase's ops (> 0 wins) */
    struct job_log log;        /* fio's log files (coordinator only, common/plan_log.h) */
    /* phase control (common/plan_ctl.h): exitall goes to the agents (a
     * thread of the job that ends ends its phase there), the rest is the
     * coordinator's */
    uint32_t exitall;          /* 0 or 1 */
    uint32_t exitall_on_error; /* 0 or 1: a thread of the job that ends on an error ends the
                                * phase on its agent (agent/job.c), the coordinator the fleet's */
    uint32_t exit_what;        /* enum plan_exit_what */
    char wait_for[PLAN_NAME_MAX];  /* "" = none */
    uint32_t ss;               /* enum plan_ss; PLAN_SS_NONE = no steady state */
    double ss_limit;           /* the threshold ... */
    int ss_pct;                /* ... as a percentage of the window's mean */
    uint64_t ss_dur_ns;        /* rolling window; 0 disables ss (fio) */
    uint64_t ss_ramp_ns;       /* phase time before the window starts */
    /* fio's latency_target (agent/latctl.h; on the wire, optional keys) */
    uint32_t latency_target_us;  /* 0 = none */
    uint32_t latency_window_us;  /* 0 = the run's interval */
    uint32_t latency_pct_milli;  /* latency_percentile x 1000; 0 = 100% */
    /* data verification (fio's verify keys; docs/verify.md, common/vblock.h) */
    uint32_t verify;           /* enum vblock_csum; 0 (VB_CSUM_OFF) = no verification */
    int no_do_verify;          /* do_verify=0, stored inverted (fio's default is 1) */
    int verify_only;           /* re-read and check what an earlier phase or run wrote */
    int verify_fatal;          /* end the job at the first bad block */
    uint32_t verify_backlog;   /* read back after every N writes; 0 = after the pass */
    char verify_pattern[256];  /* as buffer_pattern; the data of verify=pattern */
    uint32_t verify_interval;  /* bytes per header; 0 = the block size */
    uint32_t verify_offset;    /* where in each unit the header sits */
    char verify_written_by[24];/* "" or the run id (16 hex digits) whose blocks
                                  alone are right (vblock_run_parse) */
    /* ioengine=null's model server (agent/engine_null.c): at most this many
     * ops/s per agent through one FIFO queue (0 = no model: complete at once),
     * each taking null_latency_ns of service on top of its wait */
    uint64_t null_capacity_iops;
    uint64_t null_latency_ns;
    /* agent-local, never sent: nfstorm-agent --null-capacity-swing, the
     * model's capacity halved for every other span of this long (0 = steady) */
    uint64_t null_swing_ns;
    /* sweeps (common/plan_sweep.h; coordinator only, not sent to agents):
     * the keys as written, and once the job is complete and expanded into
     * its points, the parsed sweep with this job's point (dim 0: no sweep) */
    struct sweep_text sweep_text;
    struct sweep_spec sweep;
};

struct phase {
    char name[PLAN_NAME_MAX];  /* the first job's name */
    uint32_t njobs;
    struct job_spec *jobs;     /* owned */
};

struct plan {
    uint32_t nphases;
    struct phase *phases;      /* owned */
    /* Parser warnings ("plan.fio:7: 'cpus_allowed' is not implemented by
     * nfstorm; ignored"), for the CLI to print.  Owned; never on the wire. */
    uint32_t nwarnings;
    char **warnings;
};

/* A job with fio's defaults (rw=read, bs=4k, numjobs=1, nrfiles=1, ...). */
void job_spec_default(struct job_spec *j);
/* fio's fallocate=: what a write phase does to a file before its first
 * write (agent/posix_open.c).  0 is fio's Linux default. */
enum plan_fallocate {
    FALLOC_NATIVE = 0,   /* fallocate(2) over the job's region; where the file
                            system has none (NFSv3), a sparse file as with none */
    FALLOC_NONE = 1,     /* sparse: the size set by one byte at the end */
    FALLOC_POSIX = 2,    /* posix_fallocate(3): glibc writes zeros where the
                            file system has no fallocate */
    FALLOC_KEEP = 3,     /* fallocate(FALLOC_FL_KEEP_SIZE): space, size unchanged */
    FALLOC_TRUNCATE = 4, /* ftruncate(2) to the size (never shrinking it) */
    FALLOC__MAX = FALLOC_TRUNCATE
};
/* fio's fadvise_hint=: the access pattern a kernel-mount job announces on
 * its files (posix_fadvise) right after opening them; the kernel sizes its
 * readahead by it.  0 is fio's default. */
enum plan_fadvise {
    FADV_BY_PATTERN = 0,  /* fio's 1: random jobs RANDOM, others SEQUENTIAL */
    FADV_OFF = 1,         /* fio's 0: no advice (the kernel's readahead) */
    FADV_RANDOM_HINT = 2, /* random */
    FADV_SEQ_HINT = 3,    /* sequential */
    FADV__MAX = FADV_SEQ_HINT
};

const char *plan_fallocate_name(uint32_t m);

/* The words of a key whose value is one of a few (fallocate, fadvise_hint,
 * dedupe_mode): name to value, ended by a NULL name; an alias (fio's older
 * spellings) is accepted but not offered in the "want ..." of an error. */
struct plan_enum {
    const char *name;
    uint32_t value;
    int alias;
};
extern const struct plan_enum plan_fallocate_words[], plan_fadvise_words[], plan_dedupe_words[],
    plan_coh_never_words[];

const char *rw_mode_name(enum rw_mode rw);     /* fio's word: "randread" */
int rw_mode_from_name(const char *s);          /* accepts fio's aliases; -1 if unknown */
int rw_mode_reads(enum rw_mode rw);            /* 1 if the mode issues reads */
int rw_mode_writes(enum rw_mode rw);
/* 1 if the job lays its files out with data before it starts (any job
 * that reads, and overwrite=1), 0 if it only sizes them (or, for
 * rw=metadata and verify_only, leaves them alone).  A file already as long
 * as the job's region is left as it is, as in fio. */
int plan_layout_fills(const struct job_spec *j);
int rw_mode_random(enum rw_mode rw);

void plan_init(struct plan *p);
void plan_free(struct plan *p);
/* Append a job; starts a new phase when the plan is empty, j->stonewall, or
 * the last phase is a sweep's load point (common/plan_sweep.h). */
void plan_add_job(struct plan *p, const struct job_spec *j);
/* Deep copy (warnings included). */
void plan_copy(struct plan *dst, const struct plan *src);
/* Append a copy of msg to p->warnings. */
void plan_add_warning(struct plan *p, const char *msg);

/* Names of the enums as plan files spell them; NULL when out of range.
 * The _from_name functions return the enum value or -1. */
const char *rate_process_name(enum rate_process r);
int rate_process_from_name(const char *s);
const char *rand_dist_name(enum rand_dist d);
int rand_dist_from_name(const char *s);          /* also fio's "gauss" */
/* Why p is no parameter of distribution d ("zipf theta must be ..."), or NULL. */
const char *rand_dist_param_bad(enum rand_dist d, double p);
const char *rw_sequencer_name(enum rw_sequencer q);
int rw_sequencer_from_name(const char *s);
const char *file_service_name(enum file_service f);
int file_service_from_name(const char *s);
/* 1 if op (an enum op_type value) is one md_ops= may name (create..rmdir). */
int plan_md_op_valid(uint32_t op);

/* Format "job '<name>': " and the reason into err (when given) and return
 * -EINVAL: how a job's checks report. */
int plan_job_fail(char *err, size_t errlen, const struct job_spec *j, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Check a finished job for consistency (size set, bs <= filesize, ...) and
 * its arithmetic as if it ran on one agent (job_spec_check_range with
 * nagents 1).  0 or -EINVAL with a message naming the key in err. */
int job_spec_validate(const struct job_spec *j, char *err, size_t errlen);
/* Checked size, offset and time arithmetic of a job whose highest global
 * job number (fio's, counted across agents: agent a's thread t is
 * a x numjobs + t) is gjob_max: offset + offset_increment x gjob_max + the
 * per-file size must not pass PLAN_MAX_FILE_OFFSET, filesize x nrfiles and
 * io_size x loops must fit in 64 bits, durations PLAN_MAX_TIME_NS, rates
 * PLAN_MAX_RATE_IOPS.  Every product and sum is computed with
 * __builtin_*_overflow, never wrapped.  0, or -EINVAL with err naming the
 * key and its value ("job 'x': offset_increment=... exceeds ..."). */
int job_spec_check_range(const struct job_spec *j, uint64_t gjob_max, char *err, size_t errlen);
/* The whole plan for a run on nagents agents (labels in agents= already
 * resolved): every job valid (job_spec_validate) and its arithmetic checked
 * for the highest global job number any agent it runs on will use.  The
 * coordinator calls it once the agent count is known; an agent calls it on
 * the plan it received.  0 or -EINVAL with err as above. */
int plan_validate(const struct plan *p, uint32_t nagents, char *err, size_t errlen);

/* Bytes of a buffer_pattern value: 0xHEX, 'text' or "text", or a decimal
 * number (its big-endian bytes, as fio).  0, or -EINVAL. */
int plan_pattern_bytes(const char *text, unsigned char *out, size_t cap, size_t *len);

/* 1 if the job has no size of its own: an I/O job without size or filesize
 * that names its files (filename=); each agent then sizes it from the
 * existing files, as fio does (agent/job_files.h). */
int job_sized_by_file(const struct job_spec *j);
/* Bytes per file after defaults: filesize, or size / nrfiles (0 for a job
 * sized by its file, until the agent sizes it). */
uint64_t job_file_size(const struct job_spec *j);
/* Largest block size the job may issue: bs, or the top of bsrange/bssplit,
 * of either direction. */
uint64_t job_max_bs(const struct job_spec *j);

/* The block sizes of one direction (write 0: reads, 1: writes), the
 * writes' per-direction values (bs_w, ...) applied: bssplit when nsplit,
 * else bsrange when lo, else bs.  split points into j. */
struct job_bs {
    uint64_t bs, lo, hi;
    uint32_t nsplit;
    const struct bssplit_entry *split;
};
void job_dir_bs(const struct job_spec *j, int write, struct job_bs *out);

#include "common/plan_agents.h"   /* agents= specs, wherever plans are */

#endif
