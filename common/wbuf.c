/* wbuf: what a job's write buffers hold (see the header). */
#include "common/wbuf.h"

#include "common/clock.h"
#include "common/plan.h"
#include "common/vblock.h"

#include <stdio.h>
#include <string.h>

void wbuf_resolve(struct job_spec *j)
{
    int pattern = j->buffer_pattern[0] != '\0';
    int refill = j->refill_buffers, scramble = j->scramble_buffers;

    if (pattern)
        j->zero_buffers = 0;          /* fio: a pattern is the contents */
    if (j->buffer_compress_percentage == 100) {
        /* fio: fully compressible is zero buffers (or the pattern) */
        j->buffer_compress_percentage = 0;
        j->zero_buffers = !pattern;
    }
    /* fio refills when compressing unless told not to, and a pattern job
     * that also reads refills so its reads cannot leave other bytes in the
     * buffer its next write sends */
    if (refill < 0)
        refill = j->buffer_compress_percentage > 0 || (pattern && rw_mode_reads(j->rw));
    if (j->dedupe_percentage > 0)
        refill = 1;
    if (scramble < 0)
        scramble = !(j->zero_buffers || pattern);
    if (j->buffer_compress_percentage > 0 || j->dedupe_percentage > 0)
        scramble = 0;                 /* the bytes are the point: keep them */
    j->buf_mode = refill ? WBUF_REFILL : scramble ? WBUF_SCRAMBLE : WBUF_FIXED;
}

int wbuf_ignored_by_verify(const struct job_spec *j, char *keys, size_t len)
{
    const char *set[4];
    int n = 0;
    size_t at = 0;

    if (len)
        keys[0] = '\0';
    if (j->verify == VB_CSUM_OFF || j->verify == VB_CSUM_NULL)
        return 0;
    /* verify=pattern writes only its pattern; the header modes stamp the
     * buffer (header, sector stamps) and keep the rest of its bytes */
    if (j->verify == VB_CSUM_PATTERN && j->buffer_pattern[0])
        set[n++] = "buffer_pattern";
    if (j->verify == VB_CSUM_PATTERN && j->zero_buffers)
        set[n++] = "zero_buffers";
    if (j->verify == VB_CSUM_PATTERN && j->buffer_compress_percentage)
        set[n++] = "buffer_compress_percentage";
    if (j->dedupe_percentage)
        set[n++] = "dedupe_percentage";
    for (int i = 0; i < n && at < len; i++) {
        int w = snprintf(keys + at, len - at, "%s%s", i ? ", " : "", set[i]);
        at += w > 0 ? (size_t)w : 0;
    }
    return n;
}

/* xorshift64: cheap, never zero from a non-zero state */
static uint64_t next64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static uint64_t nonzero(uint64_t s)
{
    return s ? s : 0x9e3779b97f4a7c15ull;
}

/* splitmix64's finaliser: near seeds (a chunk's, the next buffer's) give
 * unrelated streams, so no chunk repeats another's bytes a compressor
 * could find */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* the smallest write a job makes: a working set counts pages of it */
static uint64_t min_write_bs(const struct job_spec *j)
{
    struct job_bs b;
    uint64_t bs;

    job_dir_bs(j, 1, &b);
    bs = b.lo ? b.lo : b.bs;
    for (uint32_t i = 0; i < b.nsplit; i++)
        if (b.split[i].bs && (i == 0 || b.split[i].bs < bs))
            bs = b.split[i].bs;
    return bs;
}

void wbuf_init(struct wbuf *w, const struct job_spec *j, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->mode = j->buf_mode <= WBUF_MODE_MAX ? j->buf_mode : WBUF_SCRAMBLE;
    w->zero = j->zero_buffers;
    w->compress_pct = j->buffer_compress_percentage < 100 ? j->buffer_compress_percentage : 0;
    w->chunk = j->buffer_compress_chunk ? j->buffer_compress_chunk : WBUF_CHUNK_DEFAULT;
    if (min_write_bs(j) && w->chunk > min_write_bs(j))
        w->chunk = (uint32_t)min_write_bs(j);   /* fio: a segment is at most the smallest write */
    w->dedupe_pct = j->dedupe_percentage <= 100 ? j->dedupe_percentage : 100;
    if (j->buffer_pattern[0] && (plan_pattern_bytes(j->buffer_pattern, w->pat, sizeof w->pat, &w->plen) < 0))
        w->plen = 0;
    w->seeds = nonzero(seed);
    w->picks = nonzero(seed ^ 0xd1b54a32d192ed03ull);
    if (w->dedupe_pct > 0 && j->dedupe_mode == WBUF_DEDUPE_WORKING_SET) {
        uint64_t pct = j->dedupe_working_set_percentage ? j->dedupe_working_set_percentage
                                                        : WBUF_WORKING_SET_DEFAULT;
        uint64_t bs = min_write_bs(j);
        w->ws_pages = bs ? (uint64_t)((unsigned __int128)j->size * pct / 100 / bs) : 0;
        if (w->ws_pages == 0)
            w->ws_pages = 1;
        /* dedupe_global: a constant every job and agent shares, so the same
         * set index gives the same bytes everywhere */
        w->ws_shared = j->dedupe_global != 0;
        w->ws_base = w->ws_shared ? 0x6a09e667f3bcc908ull : mix(seed ^ 0xbb67ae8584caa73bull);
    }
    /* the stamps differ from run to run (fio stamps the issue time): with
     * randrepeat the same offsets come again, and a rerun must not write
     * the bytes a deduplicating server already holds there */
    w->stamp = mix(seed ^ clock_now_ns());
}

static void fill_random(unsigned char *p, uint64_t len, uint64_t seed)
{
    uint64_t s = nonzero(mix(seed)), i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x = next64(&s);
        memcpy(p + i, &x, 8);
    }
    if (i < len) {
        uint64_t x = next64(&s);
        memcpy(p + i, &x, (size_t)(len - i));
    }
}

/* the pattern repeated, or zeros: a buffer's compressible part */
static void fill_plain(const struct wbuf *w, unsigned char *p, uint64_t len)
{
    if (w->plen == 0)
        memset(p, 0, (size_t)len);
    else
        vblock_pattern_fill(p, len, w->pat, w->plen);
}

/* one buffer from one seed, so a dedupe repeat reproduces it exactly */
static void fill_from(const struct wbuf *w, unsigned char *p, uint64_t len, uint64_t seed)
{
    if (w->compress_pct == 0) {
        if ((w->plen || w->zero) && w->dedupe_pct == 0)   /* fio: dedupe data is random */
            fill_plain(w, p, len);
        else
            fill_random(p, len, seed);
        return;
    }
    for (uint64_t at = 0; at < len; at += w->chunk) {
        uint64_t n = len - at < w->chunk ? len - at : w->chunk;
        uint64_t rnd = n * (100 - w->compress_pct) / 100;
        fill_random(p + at, rnd, seed + at);
        fill_plain(w, p + at + rnd, n - rnd);
    }
}

void wbuf_fill(struct wbuf *w, void *buf, uint64_t len)
{
    uint64_t seed;

    if (w->ws_pages) {
        /* working set: a deduplicable write is one of its pages; the job's
         * first unique writes are its pages too (not with dedupe_global,
         * whose pages belong to no one job), as fio's */
        if (next64(&w->picks) % 100 < w->dedupe_pct) {
            fill_from(w, buf, len, mix(w->ws_base + next64(&w->picks) % w->ws_pages));
            return;
        }
        if (!w->ws_shared && w->uniques < w->ws_pages) {
            fill_from(w, buf, len, mix(w->ws_base + w->uniques++));
            return;
        }
        w->uniques++;
        fill_from(w, buf, len, next64(&w->seeds));
        return;
    }
    if (w->dedupe_pct > 0 && w->have_prev &&
        next64(&w->picks) % 100 < w->dedupe_pct) {
        fill_from(w, buf, len, w->prev_seed);   /* a repeat: the same bytes again */
        return;
    }
    seed = next64(&w->seeds);
    w->prev_seed = seed;
    w->have_prev = 1;
    fill_from(w, buf, len, seed);
}

/* Every 512-byte sector gets the sector's offset and the write's stamp in
 * one of its eight cache lines (which one varies with the stamp), so no two
 * sectors a job writes are alike and the cost is two stores per sector. */
static void scramble(struct wbuf *w, unsigned char *p, uint64_t len, uint64_t offset)
{
    uint64_t stamp = ++w->stamp;
    unsigned line = (unsigned)((stamp ^ (offset >> 9)) & 7) * 64;

    for (uint64_t at = 0; at + 512 <= len; at += 512) {
        uint64_t off = offset + at;
        memcpy(p + at + line, &off, 8);
        memcpy(p + at + line + 56, &stamp, 8);
    }
}

int wbuf_before_write(struct wbuf *w, void *buf, uint64_t len, uint64_t offset)
{
    if (w->mode == WBUF_REFILL) {
        wbuf_fill(w, buf, len);
        return 1;
    }
    if (w->mode == WBUF_SCRAMBLE)
        scramble(w, buf, len, offset);
    return 0;
}

void wbuf_layout_chunk(struct wbuf *w, void *buf, uint64_t len, uint64_t offset)
{
    if (w->mode == WBUF_REFILL)
        wbuf_fill(w, buf, len);
    else if (w->mode == WBUF_SCRAMBLE || (!w->zero && w->plen == 0))
        scramble(w, buf, len, offset);
}
