/* done_ring: the completed-request queue of the synchronous engines (psync,
 * null), which complete a request inside queue() and hand it back in
 * reap().  Fixed size, no allocation; the job loop never has more requests
 * out than its iodepth, so a full ring is a caller bug reported as -EAGAIN. */
#ifndef NFSTORM_DONE_RING_H
#define NFSTORM_DONE_RING_H

#include <errno.h>
#include "agent/engine.h"

#define DONE_RING_SIZE 4096

struct done_ring {
    struct io_req *r[DONE_RING_SIZE];
    unsigned head, count;
};

static inline int done_ring_push(struct done_ring *d, struct io_req *r)
{
    if (d->count == DONE_RING_SIZE)
        return -EAGAIN;
    d->r[(d->head + d->count++) % DONE_RING_SIZE] = r;
    return 0;
}

/* Move up to max completed requests into out; how many. */
static inline int done_ring_pop(struct done_ring *d, struct io_req **out, unsigned max)
{
    unsigned n = 0;
    while (n < max && d->count > 0) {
        out[n++] = d->r[d->head];
        d->head = (d->head + 1) % DONE_RING_SIZE;
        d->count--;
    }
    return (int)n;
}

#endif
