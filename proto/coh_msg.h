/* coh_msg: the coherence message, agent -> coordinator: what one agent, as
 * the reader, measured in a phase of rw=coherence (common/coherence.h).
 * Sent after the phase's last interval, before its phase-done; only by an
 * agent that polled a writer in that phase.
 *
 *   {type: "coherence", phase: u32,
 *    pairs: [{writer: u32, seen: u64, never: u64, lag: hist}, ...]}
 *
 * hist is common/hist_codec.h's form, as in an op set.  At most
 * COH_PAIRS_MAX pairs, each writer once; the reader is the sending agent
 * (the decoder sets reader to the `reader` argument).  A pure codec, as
 * msg.c: unknown keys ignored, missing ones and bad values rejected with
 * one line "coherence: why". */
#ifndef NFSTORM_COH_MSG_H
#define NFSTORM_COH_MSG_H

#include <stddef.h>
#include <stdint.h>
#include "common/coherence.h"
#include "proto/msg.h"

struct msg_coherence {
    uint32_t phase;
    struct coh_set set;       /* decode: owned by the message, coh_set_free */
};

void msg_coherence_encode(struct buf *out, const struct msg_coherence *m);
/* 0, or -EBADMSG with err set (m->set then empty). */
int msg_coherence_decode(const struct msg_frame *f, uint32_t reader, struct msg_coherence *m,
                         char *err, size_t errlen);

#endif
