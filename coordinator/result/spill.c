/* spill: see spill.h.  Addresses with SPILL_MEM set are in the heap buffer,
 * the others in the file; a write that fails sends later puts to the heap.
 * Reads go through a small cache, so the pointer spill_get returns stays
 * valid for the next SPILL_CACHE - 1 reads too (callers rely on one). */
#include "coordinator/result/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/varint.h"
#include "common/xmalloc.h"

#define SPILL_MEM (1ull << 63)
#define SPILL_CACHE 16
#define SPILL_WINDOW (64 * 1024)   /* bytes read at a time: the next ones too */

struct spill {
    int fd;                       /* the unlinked file, -1: none (heap only) */
    uint64_t end;                 /* bytes in the file */
    int write_failed;             /* later puts go to the heap */
    struct spill_buf mem;         /* the heap fallback */
    /* the last SPILL_CACHE windows read (the bytes asked for and those
     * written after them): readers go through the intervals in order */
    struct {
        uint64_t at;
        uint32_t len;
        struct spill_buf b;
    } cache[SPILL_CACHE];
    uint32_t next;                /* the cache entry to reuse */
};

/* Room for n more bytes in w. */
static void reserve(struct spill_buf *w, size_t n)
{
    if (w->len + n <= w->cap)
        return;
    while (w->cap < w->len + n)
        w->cap = w->cap ? w->cap * 2 : 256;
    w->b = xrealloc(w->b, w->cap);
}

void spill_buf_byte(struct spill_buf *w, uint8_t v)
{
    reserve(w, 1);
    w->b[w->len++] = v;
}

void spill_buf_bytes(struct spill_buf *w, const void *p, size_t n)
{
    if (n == 0)
        return;           /* p may be NULL (an empty histogram's buckets) */
    reserve(w, n);
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

void spill_buf_varint(struct spill_buf *w, uint64_t v)
{
    uint8_t tmp[VARINT_MAX];

    spill_buf_bytes(w, tmp, varint_put(tmp, v));
}

struct spill *spill_new(void)
{
    struct spill *sp = xcalloc(1, sizeof(*sp));
    const char *dir = getenv("TMPDIR");
    char path[4096];

    if (!dir || dir[0] != '/')
        dir = "/tmp";
    /* an unnamed file from the start (O_TMPFILE): a name between mkstemp
     * and unlink was left behind by a kill -9 in between (t0862); close-on-
     * exec, not for the agents --local starts; mode 0600 */
    sp->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (sp->fd < 0) {             /* a file system without O_TMPFILE */
        snprintf(path, sizeof(path), "%s/nfstorm-spill.XXXXXX", dir);
        sp->fd = mkostemp(path, O_CLOEXEC);
        if (sp->fd >= 0)
            unlink(path);
    }
    return sp;
}

void spill_free(struct spill *sp)
{
    if (!sp)
        return;
    if (sp->fd >= 0)
        close(sp->fd);
    free(sp->mem.b);
    for (int i = 0; i < SPILL_CACHE; i++)
        free(sp->cache[i].b.b);
    free(sp);
}

uint64_t spill_put(struct spill *sp, const void *b, uint32_t len)
{
    if (sp->fd >= 0 && !sp->write_failed) {
        if (pwrite(sp->fd, b, len, (off_t)sp->end) == (ssize_t)len) {
            sp->end += len;
            return sp->end - len;
        }
        sp->write_failed = 1;     /* full: what it holds stays readable */
    }
    spill_buf_bytes(&sp->mem, b, len);
    return SPILL_MEM | (sp->mem.len - len);
}

const uint8_t *spill_get(struct spill *sp, uint64_t at, uint32_t len)
{
    struct spill_buf *c;
    size_t got = 0;

    if (at & SPILL_MEM)
        return sp->mem.b + (at & ~SPILL_MEM);
    for (int i = 0; i < SPILL_CACHE; i++)
        if (sp->cache[i].b.b && at >= sp->cache[i].at && at + len <= sp->cache[i].at + sp->cache[i].len)
            return sp->cache[i].b.b + (at - sp->cache[i].at);
    /* at + len <= end: the window is at least what was asked */
    len = (uint32_t)(sp->end - at < SPILL_WINDOW ? sp->end - at : len > SPILL_WINDOW ? len : SPILL_WINDOW);
    sp->cache[sp->next].at = at;
    sp->cache[sp->next].len = len;
    c = &sp->cache[sp->next].b;
    sp->next = (sp->next + 1) % SPILL_CACHE;
    c->len = 0;
    reserve(c, len ? len : 1);
    while (got < len) {
        ssize_t n = pread(sp->fd, c->b + got, len - got, (off_t)(at + got));

        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            /* our own file, written whole: as fatal as a failed malloc */
            fprintf(stderr, "nfstorm: reading back the spilled intervals: %s\n",
                    n < 0 ? strerror(errno) : "short file");
            abort();
        }
        got += n > 0 ? (size_t)n : 0;
    }
    return c->b;
}
