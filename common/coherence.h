/* coherence: visibility lag between clients (rw=coherence), the data it
 * measures and the block stamp it measures it with.
 *
 * A writer agent writes generation g (1, 2, ...) of its coherence file as
 * the block at offset (g-1) x bs, one every coherence_period, each followed
 * by a close or an fsync (or nothing), as coherence_close says.  Every other
 * agent of the job polls each writer's file (open/read/close, or stat, as
 * coherence_poll says) until block g holds generation g, and records the
 * lag: the instant it first saw g minus the instant the writer began to
 * write it.  Both instants are nanoseconds since the phase's start instant
 * t0, which the coordinator sends each agent in its own clock (the offset
 * measured from the ping with the smallest round trip), so the lag's clock
 * error is at most (rtt_writer + rtt_reader) / 2 (docs/verify.md).  A
 * generation not seen coherence_deadline after it was due is counted as
 * never visible.
 *
 * One coh_pair per (writer, reader): mergeable by construction (counts
 * summed, histograms merged exactly, common/hist.h). */
#ifndef NFSTORM_COHERENCE_H
#define NFSTORM_COHERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "common/hist.h"

#define COH_PAIRS_MAX   256          /* (writer, reader) pairs one agent reports */
#define COH_GENS_MAX    100000       /* coherence_gens */
#define COH_STAMP_LEN   32           /* the stamp at the start of each block */
#define COH_MAGIC       0x4353464eu  /* "NFSC" little-endian */

struct coh_pair {
    uint32_t writer, reader;         /* agent indexes */
    uint64_t seen;                   /* generations the reader saw in time */
    uint64_t never;                  /* ... and did not, within the deadline */
    struct hist lag;                 /* lag_ns of each seen generation */
};

/* What one agent (or, merged, a phase) measured: pairs ordered as added.
 * Heap array owned by the set; coh_set_free releases it. */
struct coh_set {
    uint32_t n;
    struct coh_pair *pair;
};

void coh_set_init(struct coh_set *s);
void coh_set_free(struct coh_set *s);
/* The pair (writer, reader), appended empty if new.  NULL when the set
 * already holds cap pairs and this one is not among them.  The pointer
 * is valid until the set next grows (coh_set_pair, coh_set_merge). */
struct coh_pair *coh_set_pair(struct coh_set *s, uint32_t writer, uint32_t reader, uint32_t cap);
/* dst += src, pair by pair (0), or -E2BIG past cap pairs (dst unchanged). */
int coh_set_merge(struct coh_set *dst, const struct coh_set *src, uint32_t cap);
/* One pair summing all: writer and reader UINT32_MAX. */
void coh_set_total(const struct coh_set *s, struct coh_pair *out);

/* Block stamp: magic, writer, generation, issue instant (ns since t0),
 * little-endian, in the first COH_STAMP_LEN bytes of blk (len >= that). */
void coh_stamp_put(unsigned char *blk, uint32_t writer, uint64_t gen, uint64_t t_ns);
/* 0 and the stamp's fields if blk holds one, -EINVAL if not (zeroes, a
 * short read, anything else). */
int coh_stamp_get(const unsigned char *blk, size_t len, uint32_t *writer, uint64_t *gen,
                  uint64_t *t_ns);

#endif
