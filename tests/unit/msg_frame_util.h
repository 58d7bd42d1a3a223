/* msg_frame_util: the unit tests' shorthand for "parse this payload once
 * and decode it": DECODE(msg_hello_decode, p, n, &m, err, errlen) is
 * msg_parse, then the decoder on the frame, then msg_frame_free; the parse
 * error (as "message: ...") when the payload does not parse (the decoder
 * still runs, on a frame without a root, so what it empties is empty). */
#ifndef NFSTORM_TEST_MSG_FRAME_UTIL_H
#define NFSTORM_TEST_MSG_FRAME_UTIL_H

#include "proto/msg.h"

#define DECODE(fn, p, n, m, err, errlen)                                        \
    __extension__({                                                          \
        struct msg_frame f_;                                                 \
        char e_[256];                                                        \
        int r_ = msg_parse((const char *)(p), (n), &f_, (err), (errlen));    \
        int d_ = fn(&f_, (m), r_ > 0 ? (err) : e_, r_ > 0 ? (errlen) : sizeof e_);   \
        msg_frame_free(&f_);                                                 \
        r_ > 0 ? d_ : r_;                                                    \
    })

/* The same for the calls that take one more argument (the coherence
 * reader, now_ns) or no struct (the version). */
#define COH_DECODE(p, n, reader, m, err, errlen)                                        \
    __extension__({                                                          \
        struct msg_frame f_;                                                 \
        char e_[256];                                                        \
        int r_ = msg_parse((const char *)(p), (n), &f_, (err), (errlen));    \
        int d_ = msg_coherence_decode(&f_, (reader), (m), r_ > 0 ? (err) : e_, r_ > 0 ? (errlen) : sizeof e_);   \
        msg_frame_free(&f_);                                                 \
        r_ > 0 ? d_ : r_;                                                    \
    })
#define PONG(p, n, now, out, err, errlen)                                        \
    __extension__({                                                          \
        struct msg_frame f_;                                                 \
        char e_[256];                                                        \
        int r_ = msg_parse((const char *)(p), (n), &f_, (err), (errlen));    \
        int d_ = peer_pong(NULL, &f_, (now), (out), r_ > 0 ? (err) : e_, r_ > 0 ? (errlen) : sizeof e_);   \
        msg_frame_free(&f_);                                                 \
        r_ > 0 ? d_ : r_;                                                    \
    })
#define VERSION_PEEK(p, n, v, err, errlen)                                        \
    __extension__({                                                          \
        struct msg_frame f_;                                                 \
        char e_[256];                                                        \
        int r_ = msg_parse((const char *)(p), (n), &f_, (err), (errlen));    \
        int d_ = msg_version_peek(&f_, (v), r_ > 0 ? (err) : e_, r_ > 0 ? (errlen) : sizeof e_);   \
        msg_frame_free(&f_);                                                 \
        r_ > 0 ? d_ : r_;                                                    \
    })

/* The type of payload p (msg_parse's result), the frame freed. */
static inline int peek_type(const void *p, size_t n, char *err, size_t errlen)
{
    struct msg_frame f;
    int rc = msg_parse(p, n, &f, err, errlen);
    msg_frame_free(&f);
    return rc;
}

#endif
