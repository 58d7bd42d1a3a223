/* frame: growable buffers and the length-prefixed frame reader.
 *
 * Design: the reader keeps every received byte in one contiguous buffer and
 * hands out frames as pointers into it, so a frame is never copied twice.
 * Returned frames are not dropped one by one (that would memmove the rest of
 * the buffer for each frame: quadratic for a burst of small frames); instead
 * the reader advances a read position and compacts lazily in feed(), only
 * when the consumed prefix is at least as large as what is left.  Each byte
 * is then moved at most a constant number of times on average.
 *
 * The cap on the declared length is enforced as soon as the four header
 * bytes are present, and feed() stops buffering once the pending frame is
 * known to be oversized, so a hostile peer cannot grow the buffer past one
 * maximal frame plus one read's worth. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "proto/frame.h"

void buf_init(struct buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_free(struct buf *b)
{
    free(b->data);
    buf_init(b);
}

void buf_append(struct buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;                 /* doubling: amortised O(1) per byte */
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void buf_consume(struct buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void frame_put_header(unsigned char hdr[FRAME_HEADER_LEN], uint32_t len)
{
    hdr[0] = (unsigned char)(len >> 24);
    hdr[1] = (unsigned char)(len >> 16);
    hdr[2] = (unsigned char)(len >> 8);
    hdr[3] = (unsigned char)len;
}

static uint32_t get_header(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

void frame_reader_init(struct frame_reader *r, uint32_t max_payload)
{
    buf_init(&r->in);
    r->pos = 0;
    /* 0 would make every non-empty frame fatal: take it as "the default" */
    r->max_payload = max_payload ? max_payload : FRAME_MAX_PAYLOAD;
}

void frame_reader_set_max(struct frame_reader *r, uint32_t max_payload)
{
    r->max_payload = max_payload ? max_payload : FRAME_MAX_PAYLOAD;
}

void frame_reader_free(struct frame_reader *r)
{
    buf_free(&r->in);
    r->pos = 0;
}

/* 1 when the frame at the read position has a complete header that declares
 * more than the cap. */
static int pending_oversized(const struct frame_reader *r)
{
    return r->in.len - r->pos >= FRAME_HEADER_LEN &&
           get_header(r->in.data + r->pos) > r->max_payload;
}

void frame_reader_feed(struct frame_reader *r, const void *p, size_t n)
{
    size_t avail = r->in.len - r->pos;

    /* Lazy compaction: move the unread tail down only when it is no larger
     * than the consumed prefix, which bounds the copying by the bytes
     * consumed.  Frames handed out earlier become invalid here, as the
     * header allows. */
    if (r->pos > 0 && avail <= r->pos) {
        memmove(r->in.data, r->in.data + r->pos, avail);
        r->in.len = avail;
        r->pos = 0;
    }
    if (pending_oversized(r))
        return;                       /* stream is dead: buffer nothing more */
    if (avail < FRAME_HEADER_LEN) {
        /* Complete the header first so the cap is checked before payload. */
        size_t h = FRAME_HEADER_LEN - avail;
        if (h > n)
            h = n;
        buf_append(&r->in, p, h);
        p = (const char *)p + h;
        n -= h;
        if (pending_oversized(r))
            return;
    }
    buf_append(&r->in, p, n);
}

int frame_reader_next(struct frame_reader *r, const char **payload, uint32_t *len)
{
    size_t avail = r->in.len - r->pos;
    uint32_t declared;

    if (avail < FRAME_HEADER_LEN) {
        if (avail == 0)               /* everything consumed: rewind for free */
            r->in.len = r->pos = 0;
        return 0;
    }
    declared = get_header(r->in.data + r->pos);
    if (declared > r->max_payload)
        return -EMSGSIZE;
    if (avail - FRAME_HEADER_LEN < declared)
        return 0;
    *payload = r->in.data + r->pos + FRAME_HEADER_LEN;
    *len = declared;
    r->pos += FRAME_HEADER_LEN + (size_t)declared;
    return 1;
}
