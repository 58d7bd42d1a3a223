/* spill: the sealed intervals' bytes kept in a file, not in the heap.
 *
 * A day of 100 agents at 1 s is 8.64 M agent-intervals; packed, each still
 * takes ~20 bytes (its share of the merged histograms, its host samples),
 * ~165 MiB that the run reads back only to render.  So result.c and
 * client_result.c write them here once complete and keep only where they
 * are: the coordinator's memory then follows what is still filling, and
 * the page cache (which the kernel may drop and reread) holds the rest.
 *
 * The file is made in $TMPDIR (an absolute path; else /tmp) and unlinked
 * at once, so nothing is left behind, even after kill -9.  When it cannot
 * be made or written (read-only, full), the bytes stay in a heap buffer:
 * slower to grow, never lost.  Single-threaded, like the result. */
#ifndef NFSTORM_SPILL_H
#define NFSTORM_SPILL_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte string: the packers' output. */
struct spill_buf {
    uint8_t *b;                   /* owned (free it) */
    size_t len, cap;
};
void spill_buf_byte(struct spill_buf *w, uint8_t v);
void spill_buf_varint(struct spill_buf *w, uint64_t v);
void spill_buf_bytes(struct spill_buf *w, const void *p, size_t n);

struct spill;
struct spill *spill_new(void);
void spill_free(struct spill *sp);
/* Store b[0..len); where it is, for spill_get. */
uint64_t spill_put(struct spill *sp, const void *b, uint32_t len);
/* The len bytes put at at (read only): valid until the next spill_put,
 * SPILL_CACHE - 1 more spill_get calls (16 in all), or spill_free. */
const uint8_t *spill_get(struct spill *sp, uint64_t at, uint32_t len);

#endif
