/* frame: the wire framing. A frame is a 4-byte big-endian payload length
 * followed by that many bytes of msgpack.  Pure over buffers: no sockets.
 *
 * The reader checks the declared length against its cap before it buffers
 * a single payload byte, so a peer cannot make us allocate more than
 * FRAME_MAX_PAYLOAD plus one read's worth. */
#ifndef NFSTORM_FRAME_H
#define NFSTORM_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_HEADER_LEN  4
#define FRAME_MAX_PAYLOAD (16u << 20)   /* 16 MiB: a plan or a full histogram set fits easily */
/* Before a peer has authenticated: hello, welcome, auth and an error text
 * fit in well under 1 KiB, so a stranger gets 4 KiB, not 16 MiB (raised
 * with frame_reader_set_max once the peer proved the secret). */
#define FRAME_PREAUTH_MAX (4u << 10)

/* Growable byte buffer (used by encoders and the reader). */
struct buf {
    char *data;
    size_t len;
    size_t cap;
};
void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_consume(struct buf *b, size_t n);   /* drop n bytes from the front */

/* Write the 4-byte header for a payload of len bytes into hdr. */
void frame_put_header(unsigned char hdr[FRAME_HEADER_LEN], uint32_t len);

struct frame_reader {
    struct buf in;
    size_t pos;              /* bytes of in already returned; dropped lazily */
    uint32_t max_payload;    /* 0 at init means FRAME_MAX_PAYLOAD */
};
void frame_reader_init(struct frame_reader *r, uint32_t max_payload);
void frame_reader_free(struct frame_reader *r);
/* Change the cap for the frames not yet returned (0 means FRAME_MAX_PAYLOAD);
 * a pending header is checked against the new cap on the next call. */
void frame_reader_set_max(struct frame_reader *r, uint32_t max_payload);
/* Bytes received of a frame not complete yet (0: none pending). */
static inline size_t frame_reader_pending(const struct frame_reader *r)
{
    return r->in.len - r->pos;
}
/* Append received bytes. */
void frame_reader_feed(struct frame_reader *r, const void *p, size_t n);
/* Next complete frame: 1 and *payload, *len point into the reader's buffer
 * (valid until the next feed/next call), 0 when more bytes are needed,
 * -EMSGSIZE when the declared length exceeds the cap (the stream is then
 * unusable: close the connection). */
int frame_reader_next(struct frame_reader *r, const char **payload, uint32_t *len);

#endif
