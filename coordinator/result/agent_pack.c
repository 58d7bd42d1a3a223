/* agent_pack: see agent_pack.h.  Built in one pass after what the caller
 * wrote to the same buffer (a sealed slot's histograms), offsets from the
 * pack's own start. */
#include "coordinator/result/agent_pack.h"

#include <stdlib.h>
#include <string.h>
#include "common/varint.h"
#include "coordinator/result/result.h"
#include "coordinator/result/spill.h"

#define AGENT_PACK_REPORTED 0x01u  /* the agent sent the interval */
#define AGENT_PACK_ERRORS   0x02u  /* errors varints follow ops and bytes */
#define AGENT_PACK_INFLIGHT 0x04u  /* inflight and oldest_ns follow */

static void encode_one(struct spill_buf *w, const struct counters *c)
{
    uint8_t flags = c->reported ? AGENT_PACK_REPORTED : 0;
    uint64_t mask = 0;

    for (int t = 0; t < OP__COUNT; t++) {
        if (c->ops[t] || c->bytes[t] || c->errors[t])
            mask |= 1ull << t;
        if (c->errors[t])
            flags |= AGENT_PACK_ERRORS;
    }
    if (c->inflight || c->oldest_ns)
        flags |= AGENT_PACK_INFLIGHT;
    spill_buf_byte(w, flags);
    spill_buf_varint(w, mask);
    for (int t = 0; t < OP__COUNT; t++) {
        if (!(mask & (1ull << t)))
            continue;
        spill_buf_varint(w, c->ops[t]);
        spill_buf_varint(w, c->bytes[t]);
        if (flags & AGENT_PACK_ERRORS)
            spill_buf_varint(w, c->errors[t]);
    }
    if (flags & AGENT_PACK_INFLIGHT) {
        spill_buf_varint(w, c->inflight);
        spill_buf_varint(w, c->oldest_ns);
    }
}

/* Decode one agent at *p into out (NULL: skip it), advancing *p. */
static void decode_one(const uint8_t **p, struct counters *out)
{
    uint8_t flags = *(*p)++;
    uint64_t mask = varint_get(p);
    struct counters skip;

    if (!out)
        out = &skip;
    memset(out, 0, sizeof(*out));
    out->reported = (flags & AGENT_PACK_REPORTED) ? 1 : 0;
    for (int t = 0; t < OP__COUNT; t++) {
        if (!(mask & (1ull << t)))
            continue;
        out->ops[t] = varint_get(p);
        out->bytes[t] = varint_get(p);
        if (flags & AGENT_PACK_ERRORS)
            out->errors[t] = varint_get(p);
    }
    if (flags & AGENT_PACK_INFLIGHT) {
        out->inflight = (uint32_t)varint_get(p);
        out->oldest_ns = varint_get(p);
    }
}

void agent_pack_encode(struct spill_buf *w, const struct counters *c, uint32_t n)
{
    uint32_t nidx = (n + AGENT_PACK_STRIDE - 1) / AGENT_PACK_STRIDE;
    size_t base = w->len;

    /* room for the index, filled as the agents are written */
    for (uint32_t i = 0; i < nidx * 4; i++)
        spill_buf_byte(w, 0);
    for (uint32_t a = 0; a < n; a++) {
        if (a % AGENT_PACK_STRIDE == 0) {
            uint32_t off = (uint32_t)(w->len - base);
            memcpy(w->b + base + (size_t)(a / AGENT_PACK_STRIDE) * 4, &off, 4);
        }
        encode_one(w, &c[a]);
    }
}

void agent_pack_get(const uint8_t *p, uint32_t a, struct counters *out)
{
    uint32_t off;
    const uint8_t *q;

    memcpy(&off, p + (size_t)(a / AGENT_PACK_STRIDE) * 4, 4);
    q = p + off;
    for (uint32_t i = 0; i < a % AGENT_PACK_STRIDE; i++)
        decode_one(&q, NULL);
    decode_one(&q, out);
}

void agent_pack_decode(const uint8_t *p, struct counters *out, uint32_t n)
{
    const uint8_t *q;
    uint32_t first;

    if (n == 0)
        return;
    memcpy(&first, p, 4);
    q = p + first;
    for (uint32_t a = 0; a < n; a++)
        decode_one(&q, &out[a]);
}
