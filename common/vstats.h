/* vstats: what verification found in a phase: counts by kind and the first
 * offending blocks, mergeable (counts summed; first lists concatenated up
 * to the cap) from job to agent to fleet.
 *
 * Plain data of fixed size (no pointers), so it is copied, sent and merged
 * without ownership questions; about 6 KB, allocated only for phases that
 * verify. */
#ifndef NFSTORM_VSTATS_H
#define NFSTORM_VSTATS_H

#include <stdint.h>
#include "common/vblock.h"

#define VSTATS_FIRST_MAX 16    /* offending blocks kept (also the wire's cap) */
#define VSTATS_PATH_MAX  256   /* a file's path, truncated to fit */
#define VSTATS_RUNS_MAX  8     /* runs told apart in "runs" (also the wire's cap) */

struct vstats_bad {
    char file[VSTATS_PATH_MAX];   /* as the reading agent named it */
    uint64_t offset;              /* of the unit in the file */
    uint32_t kind;                /* enum vblock_kind, never VB_OK */
    uint32_t reader;              /* agent that read it */
    uint32_t expected_writer;     /* VBLOCK_ANY_WRITER: any */
    uint64_t expected_gen;        /* VBLOCK_ANY_GEN: any (verify_only: the newest seen) */
    /* from the unit's header; all 0 when it had none (zeroes, corrupt header) */
    uint32_t found_writer;
    uint32_t found_job;
    uint64_t found_gen;
    uint64_t found_offset;
    uint64_t expected_run;        /* 0: any run */
    uint64_t found_run;           /* the header's run id (0 with no header) */
};

/* Blocks whose header one run wrote: which run, its start (ms since the
 * epoch, from the generation) and how many of the checked blocks. */
struct vstats_run {
    uint64_t run;
    uint64_t started_ms;
    uint64_t blocks;
};

struct vstats {
    uint32_t on;                  /* the phase verified (verify= set on a job) */
    uint64_t checked;             /* units checked */
    uint64_t count[VB__COUNT];    /* by kind; count[VB_OK] + the rest == checked */
    uint32_t nfirst;
    struct vstats_bad first[VSTATS_FIRST_MAX];
    uint32_t only;                /* a verify_only job checked these: a mix of runs fails */
    uint32_t nruns;               /* runs[]: who wrote the blocks that had a header */
    struct vstats_run runs[VSTATS_RUNS_MAX];
    uint64_t runs_more;           /* blocks of runs beyond VSTATS_RUNS_MAX */
};

void vstats_init(struct vstats *v);
/* Count one checked unit; a bad one is also kept while fewer than
 * VSTATS_FIRST_MAX are. */
void vstats_add(struct vstats *v, enum vblock_kind k, const struct vstats_bad *bad);
/* Count one block with a header written by run (started at started_ms). */
void vstats_add_run(struct vstats *v, uint64_t run, uint64_t started_ms, uint64_t blocks);
/* dst += src: counts summed, src's first entries appended while room is
left, runs merged by id. */
void vstats_merge(struct vstats *dst, const struct vstats *src);
/* Units that were not ok. */
uint64_t vstats_bad_total(const struct vstats *v);
/* 0 when v is consistent (kinds sum to checked, nfirst <= cap, kinds in
 * range, each first[] not ok, nfirst <= bad units); else -EINVAL with err
 * naming what.  For everything that arrives from the wire or a file. */
int vstats_check(const struct vstats *v, char *err, size_t errlen);
/* vstats_check on what a reader has filled in, then v counts as sent (on);
 * or -EINVAL with err "verify: " and what is wrong. */
int vstats_accept(struct vstats *v, char *err, size_t errlen);

#endif
