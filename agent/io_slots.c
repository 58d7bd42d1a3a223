/* io_slots: see io_slots.h. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "agent/io_slots.h"
#include "agent/posix_open.h"
#include "common/xmalloc.h"

void io_slots_init(struct io_slots *q, unsigned depth, size_t slot_size)
{
    q->depth = depth ? depth : 1;
    q->size = slot_size;
    q->mem = xcalloc(q->depth, slot_size);
    q->free = xcalloc(q->depth, sizeof *q->free);
    q->ring = xcalloc(q->depth, sizeof *q->ring);
    q->nfree = q->head = q->ndone = 0;
    for (unsigned i = 0; i < q->depth; i++)
        q->free[q->nfree++] = (struct io_slot *)(q->mem + (size_t)i * slot_size);
}

void io_slots_free(struct io_slots *q)
{
    free(q->mem);
    free(q->free);
    free(q->ring);
    q->mem = NULL;
    q->free = q->ring = NULL;
}

struct io_slot *io_slots_take(struct io_slots *q, struct io_req *r)
{
    struct io_slot *sl;

    if (q->nfree == 0)
        return NULL;
    sl = q->free[--q->nfree];
    sl->r = r;
    sl->done = 0;
    return sl;
}

void io_slots_untake(struct io_slots *q, struct io_slot *sl)
{
    sl->r = NULL;
    q->free[q->nfree++] = sl;
}

void io_slots_complete(struct io_slots *q, struct io_slot *sl, int result)
{
    sl->r->result = result;
    q->ring[(q->head + q->ndone++) % q->depth] = sl;
}

int io_slots_finish_now(struct io_slots *q, struct io_slot *sl, int fd, int sync_here)
{
    struct io_req *r = sl->r;

    if (r->kind == IO_SYNC || r->kind == IO_DATASYNC) {
        if (!sync_here)
            return 0;
        int rc = r->kind == IO_SYNC ? fsync(fd) : fdatasync(fd);
        io_slots_complete(q, sl, rc < 0 ? -errno : 0);
        return 1;
    }
    if (r->len == 0) {
        io_slots_complete(q, sl, 0);
        return 1;
    }
    return 0;
}

int io_slots_account(struct io_slots *q, struct io_slot *sl, long res, int fd)
{
    struct io_req *r = sl->r;

    if (r->kind == IO_SYNC || r->kind == IO_DATASYNC) {
        io_slots_complete(q, sl, res < 0 ? (int)res : 0);
        return 0;
    }
    if (res == -EINTR)
        return 1;
    if (res < 0) {
        io_slots_complete(q, sl, (int)res);
        return 0;
    }
    if (res == 0) {               /* read past the end: the file is shorter than planned */
        r->eof_size = posix_fd_size(fd);
        io_slots_complete(q, sl, -ENODATA);
        return 0;
    }
    sl->done += (uint64_t)res;
    if (sl->done >= r->len) {
        io_slots_complete(q, sl, 0);
        return 0;
    }
    return 1;
}

unsigned io_slots_hand_back(struct io_slots *q, struct io_req **out, unsigned max)
{
    unsigned n = 0;

    while (n < max && q->ndone > 0) {
        struct io_slot *sl = q->ring[q->head];
        q->head = (q->head + 1) % q->depth;
        q->ndone--;
        out[n++] = sl->r;
        sl->r = NULL;
        q->free[q->nfree++] = sl;
    }
    return n;
}
