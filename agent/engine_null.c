/* engine_null: no I/O at all, through the same job loop and stats path.
 * For control-plane tests at scale and for measuring nfstorm's own overhead. */
#include <errno.h>
#include <stdlib.h>
#include "agent/done_ring.h"
#include "agent/engine.h"
#include "common/xmalloc.h"

struct null_state {
    struct done_ring done;
};

static int null_setup(struct engine_job *ej)
{
    ej->priv = xcalloc(1, sizeof(struct null_state));
    return 0;
}

static int null_queue(struct engine_job *ej, struct io_req *r)
{
    struct null_state *s = ej->priv;
    r->result = 0;
    return done_ring_push(&s->done, r);
}

static int null_reap(struct engine_job *ej, unsigned min, uint64_t timeout_ns,
                     struct io_req **done, unsigned max)
{
    struct null_state *s = ej->priv;
    (void)min; (void)timeout_ns;
    return done_ring_pop(&s->done, done, max);
}

static int null_file_size(struct engine_job *ej, uint32_t file, uint64_t *size)
{
    *size = ej->files[file].size;   /* pretend every file is laid out */
    return 0;
}

static void null_teardown(struct engine_job *ej)
{
    free(ej->priv);
    ej->priv = NULL;
}

static int null_md(struct engine_job *ej, enum op_type op, const char *path, const char *path2,
                   const char *buf, uint64_t size, uint64_t *count)
{
    (void)ej; (void)op; (void)path; (void)path2; (void)buf; (void)size;
    *count = 0;
    return 0;
}

const struct engine_ops engine_null = {
    .name = "null",
    .setup = null_setup,
    .queue = null_queue,
    .reap = null_reap,
    .file_size = null_file_size,
    .teardown = null_teardown,
    .md = null_md,
};
