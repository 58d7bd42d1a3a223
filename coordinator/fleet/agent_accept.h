/* agent_accept: the coordinator's side of a dialled-in agent's handshake
 * and idle keep-alive, shared by `run --listen` (gather.c) and `nfstorm
 * serve` (serve.c).
 *
 * Both accept agents on a listener of their own, send hello, check the
 * welcome's proof, answer with auth, and then hold the connection until a
 * run takes it: keeping the agent's system frame for the run, answering
 * its pings.  What differs is what happens around that (gather waits for N
 * and hands them over once; serve keeps a pool and tells submitters
 * apart), so this module holds the steps, not the loops: pure functions
 * over a decoded welcome, a frame, a peer's address, and the hand-over of
 * a connection; and the two steps of the same handshake seen from the
 * paths that dial agents instead.  None of them blocks or owns a handle;
 * none calls back.  The agent_accept_peer_* steps are the same steps on a
 * listener's peer: they send, and close it when it must go.
 * Texts they write are one line, ready for a log and an error message. */
#ifndef NFSTORM_AGENT_ACCEPT_H
#define NFSTORM_AGENT_ACCEPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <uv.h>
#include "coordinator/fleet/gather.h"
#include "net/listener.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msg.h"


/* Who takes the agents, in the refusal texts. */
struct agent_accept_role {
    const char *taker;            /* "a listening coordinator", "a pool" */
    const char *owner;            /* "coordinator", "pool": whose secret */
    const char *log_prefix;       /* its log lines' ("nfstorm: ") */
};

/* A decoded welcome w answering our hello (its nonce cnonce): the agent
 * authenticates, its proof matches secret, its labels are valid (its host
 * is cleaned for printing on the way).  0, or -EACCES with the refusal
 * text in why (to send the agent in an error and to log). */
int agent_accept_check_welcome(const struct auth_secret *secret, const struct agent_accept_role *role,
                               const unsigned char cnonce[AUTH_NONCE_LEN], struct msg_welcome *w,
                               char *why, size_t whylen);

/* A welcome (frame f, from addr) of another PROTO_VERSION, however it
 * decodes otherwise (its version is read first: proto/msg_version.h): 1,
 * with line "agent ADDR speaks protocol V, this <role->owner> P: upgrade
 * one of them" and the error refusing it (carrying our version) appended
 * to out.  0 when it is our version, or has none to read. */
int agent_accept_other_version(const struct agent_accept_role *role, const struct msg_frame *f,
                               const char *addr, char *line, size_t linelen, struct buf *out);

/* Append our auth frame (the coordinator's proof) for a checked welcome. */
void agent_accept_auth_reply(const struct auth_secret *secret, const unsigned char cnonce[AUTH_NONCE_LEN],
                             const struct msg_welcome *w, struct buf *out);

/* One frame (f, of type type, or < 0 when it did not parse) from an authenticated agent waiting
 * for a run: its system frame is kept, framed again, in kept (once: a
 * second is refused), a ping is answered into reply (append), a pong is
 * taken.  1 handled; 0 not one of these (the caller decides); -EBADMSG
 * with why when the agent must be dropped. */
int agent_accept_idle_frame(int type, const struct msg_frame *f, struct buf *kept, int *have_system,
                            uint64_t now_ns, struct buf *reply, char *why, size_t whylen);

/* Hand the waiting agent src (on tcp, read through rd) to a run: dst gets
 * a dup of its socket, its address and welcome, and its unparsed bytes
 * (the kept system frame, then what followed the last whole frame).  0, or
 * -errno (dst untouched) when the socket cannot be had. */
int agent_accept_take(uv_tcp_t *tcp, const struct frame_reader *rd, const struct gather_agent *src,
                      struct gather_agent *dst);

/* The other direction, for the paths that dial agents (run/run.c,
 * fleet/clean.c): our hello with a fresh nonce in cnonce, appended to
 * out.  0, or -EIO when there is no randomness for the nonce. */
int agent_dial_hello(unsigned char cnonce[AUTH_NONCE_LEN], struct buf *out);

/* The frame (type, payload pl) answering the hello of agent_dial_hello
 * (nonce cnonce) on a connection to the agent at addr; secret NULL when
 * we run --insecure.  0: *w is its welcome, and our auth (with a secret)
 * is appended to out.  Else a one-line reason in why, to follow "agent N
 * (ADDR): " unless *named (the version refusal names the agent itself),
 * and: -EPROTO another protocol version (the error telling the agent so
 * appended to out), -EACCES a proof that does not match (an error for the
 * agent's log appended to out), -EBADMSG anything else. */
int agent_dial_welcome(const struct auth_secret *secret, const unsigned char cnonce[AUTH_NONCE_LEN],
                       const char *addr, int type, const struct msg_frame *f, struct msg_welcome *w,
                       struct buf *out, char *why, size_t whylen, int *named);

/* The log line "PREFIX<fmt>\n" on log (none when log is NULL), flushed. */
void agent_accept_log(FILE *log, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Accepted q: a gets its address, q our hello with a fresh nonce; q is
 * closed when there is no randomness for it. */
void agent_accept_peer_open(struct peer *q, struct gather_agent *a, unsigned char cnonce[AUTH_NONCE_LEN]);

/* An error message saying text to q, then q closed with text. */
void agent_accept_peer_refuse(struct peer *q, const char *text);

/* The frame f (of type type) answering q's hello: its welcome decoded into
 * a->welcome and checked, refused with full (when not NULL) if it passes,
 * and answered with our auth (q trusted, its ping clock started).  0, or
 * q is closed: -EPROTO another version (refused naming both, on log too),
 * -EACCES or -EBADMSG. */
int agent_accept_peer_welcome(struct peer *q, const struct auth_secret *secret, const struct agent_accept_role *role,
                              FILE *log, const unsigned char cnonce[AUTH_NONCE_LEN], struct gather_agent *a,
                              int type, const struct msg_frame *f, const char *full);

/* An idle agent's tick: our own stall (stall ns, stall.h) forgiven, q
 * closed when silent for timeout_ms, else pinged each second (its lease). */
void agent_accept_keepalive(struct peer *q, uint64_t now_ns, uint64_t stall, uint32_t timeout_ms);

/* agent_accept_idle_frame on q (the agent a): the reply sent, q closed
 * with the reason when it must go.  1 handled, 0 not one of these, -1 closed. */
int agent_accept_peer_idle(struct peer *q, struct gather_agent *a, int *have_system, int type,
                           const struct msg_frame *f);

/* The listening loop gather and serve each run, embedded in their state. */
struct agent_accept_loop {
    uv_loop_t loop;
    struct listener l;            /* every open peer, newest first, and the caps */
    uv_timer_t tick;
    uint64_t last_tick_ns;        /* the tick's last run (common/stall.h) */
};

/* Its start: the loop and its tick (data owner) opened, l given ops and
 * owner and the caps on strangers and held bytes that gather and serve
 * share; the caller sets the rest (max_peers, the why_* texts) and calls
 * listener_start. */
void agent_accept_loop_open(struct agent_accept_loop *h, const struct listener_ops *ops, void *owner);

/* Its end: stop listening, close the tick, run the loop until both are
 * closed, and close it. */
void agent_accept_loop_close(struct agent_accept_loop *h);

#endif
