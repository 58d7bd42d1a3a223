/* engine: the registry of I/O engines, so the core names none of them. */
#include <string.h>
#include "agent/engine.h"

static const struct engine_ops *const engines[] = {
    &engine_psync,
    &engine_null,
    &engine_nfs,
    &engine_uring,
};

const struct engine_ops *engine_find(const char *name)
{
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}
