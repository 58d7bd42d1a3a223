/* conn: the connection layer both programs share, on libuv.
 *
 * The coordinator's run (coordinator/run/run.c), the listening coordinator
 * (coordinator/fleet/gather.c) and the agent's session (agent/session.c) each
 * own their connections and their state machines; what is the same for
 * all of them lives here once: the write queue (a frame is handed over
 * and freed when the kernel took it, or dropped when the connection is
 * going), the frame loop (bytes in, every complete frame out through a
 * callback, the reader's cap checked before anything is buffered), and
 * the heartbeat (ping out, pong for every ping in).
 *
 * Everything here runs on the loop thread of the stream's loop.  Nothing
 * here logs or makes human text: callers say what went wrong. */
#ifndef NFSTORM_CONN_H
#define NFSTORM_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>
#include "proto/frame.h"

/* Queue the frame in b on stream s; takes ownership of b (freed once
 * written, on failure, or when the stream closes first).  0, or a libuv
 * error when the write could not be queued (the stream is closing). */
int conn_write(uv_stream_t *s, struct buf *b);

/* Called for each complete frame: payload p of n bytes, valid during the
 * call only.  Return 0 to go on, nonzero to stop (the connection ended or
 * must not read further). */
typedef int (*conn_frame_cb)(void *arg, const char *p, uint32_t n);

/* Append len bytes to rd, then hand every complete frame to on_frame
 * until it says stop or more bytes are needed.  0 when all complete
 * frames were handled, 1 when on_frame stopped, -EMSGSIZE when the next
 * frame declares a length over rd's cap (nothing of it was buffered; the
 * stream cannot be resynchronised: close it). */
int conn_feed_frames(struct frame_reader *rd, const void *bytes, size_t len, conn_frame_cb on_frame,
                     void *arg);

/* The heartbeat: a ping {seq, t_ns = now_ns} appended to out. */
void conn_ping(struct buf *out, uint64_t seq, uint64_t now_ns);
/* The answer to the ping frame f: a pong echoing its seq and t_ns, with
 * our now_ns, appended to out.  0, or -EBADMSG with the reason in err (out
 * untouched). */
struct msg_frame;
int conn_pong(const struct msg_frame *f, uint64_t now_ns, struct buf *out, char *err, size_t errlen);

#endif
