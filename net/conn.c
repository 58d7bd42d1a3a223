/* conn: write queue, frame loop and heartbeat shared by every connection
 * (see conn.h).  A write owns its buffer in a small request, so callers
 * never track what is in flight: libuv calls back once per write, also
 * with UV_ECANCELED when the stream closes first. */
#include <errno.h>
#include <stdlib.h>
#include "common/xmalloc.h"
#include "net/conn.h"
#include "proto/msg.h"

struct conn_write_req {
    uv_write_t req;
    struct buf b;
};

static void on_written(uv_write_t *req, int status)
{
    struct conn_write_req *w = (struct conn_write_req *)req;
    (void)status;              /* a failed write shows up as a read error or EOF */
    buf_free(&w->b);
    free(w);
}

int conn_write(uv_stream_t *s, struct buf *b)
{
    struct conn_write_req *w = xmalloc(sizeof *w);
    uv_buf_t ub;
    int rc;

    w->b = *b;
    buf_init(b);
    ub = uv_buf_init(w->b.data, (unsigned)w->b.len);
    if ((rc = uv_write(&w->req, s, &ub, 1, on_written)) < 0) {
        buf_free(&w->b);
        free(w);
    }
    return rc;
}

int conn_feed_frames(struct frame_reader *rd, const void *bytes, size_t len, conn_frame_cb on_frame,
                     void *arg)
{
    const char *p;
    uint32_t n;
    int rc;

    frame_reader_feed(rd, bytes, len);
    while ((rc = frame_reader_next(rd, &p, &n)) != 0) {
        if (rc < 0)
            return rc;
        if (on_frame(arg, p, n))
            return 1;
    }
    return 0;
}

void conn_ping(struct buf *out, uint64_t seq, uint64_t now_ns)
{
    struct msg_ping m = { .seq = seq, .t_ns = now_ns };
    msg_ping_encode(out, &m);
}

int conn_pong(const struct msg_frame *f, uint64_t now_ns, struct buf *out, char *err, size_t errlen)
{
    struct msg_ping pi;
    struct msg_pong po;

    if (msg_ping_decode(f, &pi, err, errlen) < 0)
        return -EBADMSG;
    po.seq = pi.seq;
    po.t_ping_ns = pi.t_ns;
    po.t_ns = now_ns;
    msg_pong_encode(out, &po);
    return 0;
}
