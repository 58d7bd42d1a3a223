/* errcause_codec: a phase's failed ops by cause (common/errcause.h) as the
 * optional "errors" value of phase-done.  Private to proto/ (msg_codec.c
 * calls it for F_ERRORS fields).
 *
 * Wire form: a map keyed by op type name ("read", "write", "create", ...),
 * only op types with a failed op; each value a map {causes, other}: causes
 * an array of at most ERRCAUSE_MAX maps {kind, code, count, offset, size,
 * file} (kind as its word: "errno", "nfs", "short_read", "timeout",
 * "cut_off"), other a u64.  Every key is required; the decoder checks the
 * whole (errcause_check) before the caller sees it.  That the counts add
 * up to the op type's errors is the coordinator's check (it has both). */
#ifndef NFSTORM_ERRCAUSE_CODEC_H
#define NFSTORM_ERRCAUSE_CODEC_H

#include <msgpack.h>
#include <stddef.h>
#include "common/errcause.h"

void errcause_pack(msgpack_packer *pk, const struct errcause_set *s);
/* o: the "errors" value.  0 (s filled) or -EBADMSG with err. */
int errcause_unpack(const msgpack_object *o, struct errcause_set *s, char *err, size_t errlen);

#endif
