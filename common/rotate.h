/* rotate: cross-client read-back (plan key rotate=K).
 *
 * A job with rotate=K uses, on agent i of N, the files (and the regions of a
 * shared file, through offset_increment's global job number) that agent
 * (i + K) mod N would use: in a read phase after a write phase every agent
 * then reads what another client wrote, so its own page cache cannot answer
 * for the server.  This is IOR's -C/-Q (reorder tasks by a node offset) and
 * elbencho's --rotatehosts; the name is elbencho's, the shift is IOR's.
 * K mod N == 0 is no rotation.  Pure arithmetic: used by the agent and by
 * the coordinator's --dry-run, so both name the same files. */
#ifndef NFSTORM_ROTATE_H
#define NFSTORM_ROTATE_H

#include <stdint.h>

/* Largest rotate= value a plan may give (a shift beyond any fleet). */
#define ROTATE_MAX 65535u

/* The agent whose files agent `agent` of `nagents` uses with rotate=k: the
 * expected writer of every block it reads.  agent itself when k mod nagents
 * is 0 or nagents is 0. */
static inline uint32_t rotate_source(uint32_t agent, uint32_t k, uint32_t nagents)
{
    if (nagents == 0)
        return agent;
    return (uint32_t)(((uint64_t)agent + k % nagents) % nagents);
}

#endif
