/* hist_msgpack: see hist_msgpack.h. */
#include "proto/hist_msgpack.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/hist_codec.h"
#include "proto/mp.h"

void hist_msgpack_pack(msgpack_packer *pk, const struct hist *h)
{
    struct hist_enc e;
    uint32_t n = hist_enc_begin(&e, h);
    uint64_t v;

    msgpack_pack_map(pk, 5);
    mp_pack_u64(pk, "count", h->count);
    mp_pack_u64(pk, "sum", h->sum_ns);
    mp_pack_u64(pk, "min", hist_enc_min(h));
    mp_pack_u64(pk, "max", h->max_ns);
    mp_pack_karray(pk, "runs", n);
    while (hist_enc_next(&e, &v))
        msgpack_pack_uint64(pk, v);
}

int hist_msgpack_runs(struct hist *h, uint64_t count, uint64_t sum, uint64_t min, uint64_t max,
                      const msgpack_object_array *runs, char *why, size_t whylen)
{
    struct hist_dec d;
    int rc;

    hist_init(h);
    if (runs->size > HIST_CODEC_MAX_VALUES) {
        snprintf(why, whylen, "'runs' has %u entries, allowed 0..%u", (unsigned)runs->size,
                 (unsigned)HIST_CODEC_MAX_VALUES);
        return -EINVAL;
    }
    rc = hist_dec_begin(&d, h, count, sum, min, max, runs->size);
    for (uint32_t i = 0; rc == 0 && i < runs->size; i++)
        rc = runs->ptr[i].type != MSGPACK_OBJECT_POSITIVE_INTEGER ?
             hist_dec_fail(&d, "'runs' holds a value that is not an unsigned integer") :
             hist_dec_value(&d, runs->ptr[i].via.u64);
    if (rc == 0)
        rc = hist_dec_end(&d);
    if (rc < 0)
        snprintf(why, whylen, "%s", d.why);
    return rc;
}
