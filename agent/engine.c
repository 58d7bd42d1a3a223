/* engine: the registry of I/O engines, so the core names none of them,
 * and the one place errors get their names for messages.  The registry is
 * the ops column of common/engine_table.h's rows: an engine listed there
 * is found here, under the same name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "agent/engine.h"
#include "common/engine_table.h"

#define OPS(name, aliases, target, flags, ops) &ops,
static const struct engine_ops *const engines[] = { ENGINE_TABLE(OPS) };
#undef OPS

const struct engine_ops *engine_find(const char *name)
{
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return engines[i];
    return NULL;
}

const char *engine_strerror(int err, char *buf, size_t len)
{
    const char *name;
    if (err < 0)
        err = -err;
    name = strerrorname_np(err);
    if (name)
        snprintf(buf, len, "%s (%s)", name, strerror(err));
    else
        snprintf(buf, len, "error %d (%s)", err, strerror(err));
    return buf;
}

int engine_error_persistent(int err)
{
    switch (err < 0 ? -err : err) {
    case ENOSPC: case EDQUOT: case EROFS: case EFBIG:
    case EACCES: case EPERM: case ESTALE:
        return 1;
    default:
        return 0;
    }
}
