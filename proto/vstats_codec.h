/* vstats_codec: a phase's verification results (common/vstats.h) as the
 * optional "verify" value of phase-done.  Private to proto/ (msg_codec.c
 * calls it for F_VERIFY fields).
 *
 * Wire form: a map {checked, ok, corrupt_checksum, wrong_offset, wrong_file,
 * stale_generation, torn, zeroes, wrong_writer, first}; every count
 * required, first an array of at most VSTATS_FIRST_MAX maps {file, offset,
 * kind, reader, expected_writer, expected_generation, found_writer,
 * found_job, found_generation, found_offset, expected_run, found_run} (kind
 * as its word); only (verify_only), runs [{run, started_ms, blocks}] (at
 * most VSTATS_RUNS_MAX) and runs_more, which the decoder also takes absent
 * (an agent older than run ids; expected_run and found_run too).  The
 * decoder checks the whole (vstats_accept) before the caller sees it. */
#ifndef NFSTORM_VSTATS_CODEC_H
#define NFSTORM_VSTATS_CODEC_H

#include <msgpack.h>
#include <stddef.h>
#include "common/vstats.h"

void vstats_pack(msgpack_packer *pk, const struct vstats *v);
/* o: the "verify" value.  0 (v filled, v->on = 1) or -EBADMSG with err. */
int vstats_unpack(const msgpack_object *o, struct vstats *v, char *err, size_t errlen);

#endif
