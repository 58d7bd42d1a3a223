/* hist_msgpack: a latency histogram as a msgpack map, the form of
 * common/hist_codec.h ({count, sum, min, max, runs}), shared by every
 * message that carries one (stats, nfs RPC times, coherence lags). */
#ifndef NFSTORM_HIST_MSGPACK_H
#define NFSTORM_HIST_MSGPACK_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>
#include "common/hist.h"

void hist_msgpack_pack(msgpack_packer *pk, const struct hist *h);

/* Fill h from the scalars the caller read and the runs array, bounded by
 * HIST_CODEC_MAX_VALUES before any value is looked at.  0, or -EINVAL with
 * why (h left empty). */
int hist_msgpack_runs(struct hist *h, uint64_t count, uint64_t sum, uint64_t min, uint64_t max,
                      const msgpack_object_array *runs, char *why, size_t whylen);

#endif
