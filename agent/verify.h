/* verify: a job thread's data verification (fio's verify= keys) on the
 * buffers the job loop already moves; the engines only move bytes, so this
 * covers every engine.
 *
 * The job loop calls verify_stamp on each write before it is queued (the
 * header of every unit, common/vblock.h) and verify_read on each read that
 * completed, saying what the read was:
 *   VERIFY_READBACK  reading back this phase's own writes (do_verify,
 *                    verify_backlog): the writer must be this agent, the
 *                    run this run and the generation this phase's
 *   VERIFY_SCAN      a read phase or verify_only: the header alone says
 *                    what is right; the generation expected is the newest
 *                    the job sees (older ones are counted stale at the end,
 *                    verify_end), any writer
 *   VERIFY_MIXED     the reads of a rw/randrw phase: any writer and any
 *                    generation (the phase rewrites part of what it reads)
 * In SCAN and MIXED, a file an earlier phase of this run wrote must hold
 * this run's blocks of at least that phase's generation (min_gen), and
 * verify_written_by names the only run whose blocks are right.  Every
 * block with a header is tallied by the run that wrote it (vstats runs).
 *
 * One verify_job per job thread, used only by that thread (init and end
 * before and after it runs). */
#ifndef NFSTORM_VERIFY_H
#define NFSTORM_VERIFY_H

#include <stdint.h>
#include "agent/engine.h"
#include "common/vblock.h"
#include "common/vstats.h"

enum verify_mode { VERIFY_NONE = 0, VERIFY_READBACK, VERIFY_SCAN, VERIFY_MIXED };

#define VERIFY_GENS 8          /* generations VERIFY_SCAN tells apart per job
                                  (under 1 KB each, made on first use) */

struct verify_seen;            /* verify.c: one generation VERIFY_SCAN found */

struct verify_job {
    struct vblock_ctx ctx;
    const struct job_spec *spec;
    const struct engine_job *ej;
    uint64_t *file_id;         /* [ej->nfiles] */
    uint32_t writer;           /* this agent's index */
    uint32_t job;              /* the global job number headers carry */
    uint64_t gen;              /* generation of this phase's writes */
    uint32_t reader;           /* = writer: the agent reading */
    uint32_t scan_writer;      /* the writer VERIFY_SCAN and VERIFY_MIXED expect:
                                  VBLOCK_ANY_WRITER, or with rotate=K the
                                  source agent (common/rotate.h) */
    struct vstats *out;        /* results, not owned */
    int failed;                /* a bad unit was seen */
    struct verify_seen *seen;  /* [VERIFY_GENS] (VERIFY_SCAN), owned */
    uint32_t nseen;
    uint64_t run;              /* this run's id: stamped in every header */
    uint64_t min_gen;          /* SCAN/MIXED: 0, or the generation of the earlier
                                  phase of this run that wrote these files */
    uint64_t written_by;       /* SCAN/MIXED: 0, or verify_written_by's run */
};

/* Set up for ej's files (paths final).  gen: the generation this phase
 * writes with; writer the agent index, job the global job number; out
 * NULL when it only stamps (layout), never reads.  0 or
 * -EINVAL/-ENOMEM (err says why). */
int verify_init(struct verify_job *v, const struct job_spec *spec, const struct engine_job *ej,
                uint32_t writer, uint32_t job, uint64_t gen, struct vstats *out,
                char *err, size_t errlen);
/* Stamp every unit (unit bytes: plan_verify_unit) of r (a write, len
 * bytes in r->buf at r->offset) with generation gen, timestamp now_ns; a
 * tail shorter than a unit is left as it is. */
void verify_stamp(struct verify_job *v, struct io_req *r, uint64_t unit, uint64_t gen, uint64_t now_ns);
/* Check every unit of r (a read that completed with result 0).  Returns 1
 * when a unit was bad, else 0. */
int verify_read(struct verify_job *v, const struct io_req *r, enum verify_mode mode);
/* After the job's last read: VERIFY_SCAN's units of older generations than
 * the newest it saw are counted stale (and become offenders). */
void verify_end(struct verify_job *v);
void verify_free(struct verify_job *v);
/* Heap bytes one verifying job thread of nfiles files may hold (for the
 * agent's memory estimate, admit.h). */
uint64_t verify_job_bytes(uint64_t nfiles);
/* The file id a job's file carries in headers: its path relative to the
 * --allow root (kernel mounts) or to the export (nfs), leading '/' dropped,
 * so clients that mount one file system at different places agree. */
uint64_t verify_file_id(const struct engine_job *ej, uint32_t f);

#endif
