/* wbuf: what a job's write buffers hold, with fio's keys.
 *
 * Storage that compresses or deduplicates (inline dedup on filers, zram,
 * compressing file systems) measures the bytes, not only their count: a job
 * that wrote the same 4 KiB from one buffer every time would be measuring a
 * dedup hit.  So, as fio does by default, each write's buffer is made
 * unique before it goes out ("scramble": the block's offset and a per-job
 * stamp written into one cache line of every 512-byte sector), and fio's
 * keys choose other contents:
 *
 *   zero_buffers=1                 zeros (and no scrambling unless
 *                                  scramble_buffers=1 is set too)
 *   buffer_pattern=P               P repeated (no scrambling by default)
 *   scramble_buffers=0             the buffer's first contents, every time
 *   refill_buffers=1               new pseudo-random contents every write
 *   buffer_compress_percentage=N   each buffer_compress_chunk (default 512
 *                                  bytes) is (100-N)% random, then zeros (or
 *                                  the pattern); refilled every write unless
 *                                  refill_buffers=0; 100 is zero_buffers
 *   dedupe_percentage=N            N% of writes repeat another buffer's
 *                                  bytes: the last unique one
 *                                  (dedupe_mode=repeat), or one of a working
 *                                  set of dedupe_working_set_percentage of the
 *                                  job's size in pages (working_set; with
 *                                  dedupe_global=1 one set for every job of
 *                                  every agent, so jobs' files share blocks);
 *                                  refilled every write
 *
 * verify=pattern writes only its pattern, so none of this applies there;
 * the other verify modes stamp a header and sector stamps over these
 * buffers (which defeats dedupe_percentage alone): wbuf_ignored_by_verify.
 *
 * The coordinator resolves the keys once (wbuf_resolve, at the end of each
 * job's section, as fio does in its option callbacks and init) into the
 * wire's buf_mode; the agent only generates (wbuf_init/fill/before_write). */
#ifndef NFSTORM_WBUF_H
#define NFSTORM_WBUF_H

#include <stddef.h>
#include <stdint.h>

struct job_spec;

/* job_spec.buf_mode: what happens to a buffer before each write.  0 is the
 * default so a plan without buffer keys sends no key for it. */
enum wbuf_mode {
    WBUF_SCRAMBLE = 0,   /* stamp each 512-byte sector: fio's default */
    WBUF_FIXED = 1,      /* as first filled */
    WBUF_REFILL = 2,     /* new contents every write */
    WBUF_MODE_MAX = WBUF_REFILL
};

/* job_spec.dedupe_mode: which buffer a deduplicable write repeats */
enum wbuf_dedupe {
    WBUF_DEDUPE_REPEAT = 0,       /* the last unique one (fio's default) */
    WBUF_DEDUPE_WORKING_SET = 1,  /* one of a set of the job's (or, with
                                     dedupe_global, the fleet's) pages */
    WBUF_DEDUPE_MAX = WBUF_DEDUPE_WORKING_SET
};
#define WBUF_WORKING_SET_DEFAULT 5u   /* fio's dedupe_working_set_percentage */

#define WBUF_CHUNK_DEFAULT 512u   /* fio's buffer_compress_chunk default */
#define WBUF_CHUNK_MAX     (1u << 30)
#define WBUF_CHUNK_MIN     64u

/* The plan's keys as set (scramble_buffers/refill_buffers -1: not set) into
 * the resolved fields the agent reads: buf_mode, zero_buffers,
 * buffer_compress_percentage (100 becomes zero buffers), dedupe_percentage. */
void wbuf_resolve(struct job_spec *j);
/* The buffer keys set that a verify= job ignores, as "a, b" in keys; how
 * many (0: none).  verify=pattern writes only verify_pattern: all of them.
 * The header modes stamp each block (header, sector stamps) over the
 * buffer's bytes, which stay: only dedupe_percentage, as no two blocks are
 * then alike.  verify=null: none.  The parser warns of them. */
int wbuf_ignored_by_verify(const struct job_spec *j, char *keys, size_t len);

struct wbuf {
    uint32_t mode;
    int zero;
    uint32_t compress_pct;
    uint32_t chunk;
    uint32_t dedupe_pct;
    unsigned char pat[512];
    size_t plen;              /* 0: no pattern */
    uint64_t seeds;           /* the stream of content seeds */
    uint64_t prev_seed;       /* the last unique buffer's, for dedupe */
    int have_prev;
    uint64_t picks;           /* the stream that picks dedupe writes */
    uint64_t ws_pages;        /* working_set: its size in buffers (0: repeat) */
    uint64_t ws_base;         /* working_set: where its seeds come from */
    int ws_shared;            /* dedupe_global: one set for every job */
    uint64_t uniques;         /* unique buffers made so far */
    uint64_t stamp;           /* scramble: per write, unique in the job */
};

/* seed: the job's own (differs per agent and job, so are the contents) */
void wbuf_init(struct wbuf *w, const struct job_spec *j, uint64_t seed);

/* New contents of len bytes (the slots' first fill, layout chunks). */
void wbuf_fill(struct wbuf *w, void *buf, uint64_t len);

/* Before buf goes out as the write of len bytes at offset: refill or
 * scramble it, as the mode says.  1 if it refilled (time worth taking out
 * of the op's latency: the caller reads the clock after), else 0. */
int wbuf_before_write(struct wbuf *w, void *buf, uint64_t len, uint64_t offset);

/* Before a layout chunk goes out: refilled when the plan refills, else
 * made unique as scrambling does (unless the contents are zeros or a
 * pattern the plan asked for), so a laid-out file is not one chunk over
 * and over that a deduplicating server stores once and serves from cache. */
void wbuf_layout_chunk(struct wbuf *w, void *buf, uint64_t len, uint64_t offset);

#endif
