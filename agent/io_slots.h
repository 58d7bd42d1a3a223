/* io_slots: the request slots of the asynchronous engines (libaio,
 * io_uring, posixaio).
 *
 * Each of them keeps iodepth slots, allocated in setup: a request queued
 * takes one, its transfer moves through it (a short transfer continues
 * with the remainder from the same slot, so one request is one op of its
 * full length), and when it is done the slot waits on a ring until reap()
 * hands the request back and frees the slot.  How a transfer is issued is
 * each engine's own (an iocb, an SQE, an aiocb lives beside struct
 * io_slot in the engine's slot); what a result means is the same for all,
 * and written here once: EINTR issues the same part again (as psync
 * retries), an error completes the op with it, 0 bytes read is past the
 * end (-ENODATA, with the file's size then, as psync), a sync completes
 * with its status.  Nothing is allocated after io_slots_init. */
#ifndef NFSTORM_IO_SLOTS_H
#define NFSTORM_IO_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#include "agent/engine.h"

/* The first member of every engine's slot. */
struct io_slot {
    struct io_req *r;
    uint64_t done;                /* bytes moved so far */
};

struct io_slots {
    char *mem;                    /* depth slots of size bytes */
    size_t size;
    struct io_slot **free, **ring;
    unsigned depth, nfree, head, ndone;
};

/* depth slots of slot_size bytes (>= sizeof(struct io_slot)), zeroed. */
void io_slots_init(struct io_slots *q, unsigned depth, size_t slot_size);
void io_slots_free(struct io_slots *q);

/* A free slot for r (done 0), or NULL when all are in flight. */
struct io_slot *io_slots_take(struct io_slots *q, struct io_req *r);
/* Give back a slot taken for a request that was not issued. */
void io_slots_untake(struct io_slots *q, struct io_slot *sl);

/* sl's request is finished with result (0 or -errno): onto the ring. */
void io_slots_complete(struct io_slots *q, struct io_slot *sl, int result);

/* What queue() can finish without the kernel's queue: an empty transfer
 * (the kernel would answer 0 = EOF), and with sync_here a fsync or
 * fdatasync on fd, run now (the job loop drains before it syncs).  1 when
 * sl completed, 0 when it is to be issued. */
int io_slots_finish_now(struct io_slots *q, struct io_slot *sl, int fd, int sync_here);

/* Account the result res of sl's last transfer on fd: 1 when the rest (or
 * the same part, after EINTR) is to be issued again, 0 when the request
 * completed (all moved, an error, past the end). */
int io_slots_account(struct io_slots *q, struct io_slot *sl, long res, int fd);

/* Move up to max finished requests into out, freeing their slots; how many. */
unsigned io_slots_hand_back(struct io_slots *q, struct io_req **out, unsigned max);

#endif
