/* msg_version: what both ends do when their PROTO_VERSIONs differ.
 *
 * A peer of another version may send a hello or welcome this version
 * cannot decode (a key renamed, a new required key), so the version is
 * read on its own first (msg_version_peek): a mismatch is then always
 * reported as one, at connect time, never as a decode error.  The frame,
 * the "type" key, hello's and welcome's "version" and error's "text" stay
 * the same in every version (docs/protocol.md, "The contract").
 *
 * The side that finds the mismatch sends an error whose text names both
 * versions and whose optional "version" key carries its own, so the other
 * side can print the same line in its own words; both print
 * "<peer> <addr> speaks protocol N, this <self> M: upgrade one of them". */
#ifndef NFSTORM_MSG_VERSION_H
#define NFSTORM_MSG_VERSION_H

#include <stddef.h>
#include <stdint.h>
#include "proto/msg.h"

/* The "version" of frame f (any type), before and whatever decoding it
 * would say: 0 with *version set (0 when the key is absent, as in an
 * older peer's error), or -EBADMSG with a one-line reason when it is not
 * a u32. */
int msg_version_peek(const struct msg_frame *f, uint32_t *version, char *err, size_t errlen);

/* The one line both programs print: "<peer_role> <peer_addr> speaks
 * protocol <peer_version>, this <self_role> <PROTO_VERSION>: upgrade one
 * of them". */
void msg_version_refusal(char *out, size_t size, const char *peer_role, const char *peer_addr,
                         uint32_t peer_version, const char *self_role);

/* Append the error frame that refuses a peer speaking peer_version: text
 * "protocol version mismatch: <self_role> speaks <PROTO_VERSION>,
 * <peer_role> <peer_version>" (what older peers print), version
 * PROTO_VERSION. */
void msg_version_error_encode(struct buf *out, const char *self_role, const char *peer_role,
                              uint32_t peer_version);

#endif
