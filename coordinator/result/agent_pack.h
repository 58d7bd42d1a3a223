/* agent_pack: one interval's per-agent counters, packed.
 *
 * The coordinator keeps, for every interval, each agent's counters (ops,
 * bytes, errors per op type, membership, ops outstanding): the per-agent
 * series of the JSON result, the fairness and stall figures.  Dense, that
 * is a struct counters (~290 B) per agent-interval: 0.9 GB for 1,000 agents
 * over an hour.  Once an interval is complete (sealed), result.c packs its
 * agents into one byte string of varints, ~7 B per agent that did one kind
 * of op, and unpacks it only when late data arrives (rare).
 *
 * Layout (little-endian varints, 7 bits a byte):
 *   index: ceil(n / AGENT_PACK_STRIDE) uint32 offsets (from the pack's
 *          start) of agents 0, STRIDE, 2 x STRIDE, ... so one agent is read
 *          by skipping at most STRIDE - 1 others
 *   then per agent: flags byte (AGENT_PACK_*), op-type mask varint, per
 *          type in the mask ops and bytes varints (and errors if
 *          AGENT_PACK_ERRORS), inflight and oldest_ns if AGENT_PACK_INFLIGHT.
 * Lossless: agent_pack_decode(agent_pack_encode(c)) == c field by field.
 * Not a file or wire format: only this process reads it back. */
#ifndef NFSTORM_AGENT_PACK_H
#define NFSTORM_AGENT_PACK_H

#include <stdint.h>

struct counters;                  /* result.h */
struct spill_buf;                 /* spill.h */

#define AGENT_PACK_STRIDE 16

/* Append the pack of c[0..n) to w. */
void agent_pack_encode(struct spill_buf *w, const struct counters *c, uint32_t n);
/* Agent a's counters (a < the n packed) from the pack at p into *out. */
void agent_pack_get(const uint8_t *p, uint32_t a, struct counters *out);
/* All n agents into out[0..n), n as packed. */
void agent_pack_decode(const uint8_t *p, struct counters *out, uint32_t n);

#endif
