/* msg_version: see msg_version.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "proto/msg.h"
#include "proto/mp.h"
#include "proto/msg_version.h"

int msg_version_peek(const struct msg_frame *f, uint32_t *version, char *err, size_t errlen)
{
    const msgpack_object *o = f->root ? mp_lookup(f->root, "version") : NULL;

    *version = 0;
    if (!f->root || (o && (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > UINT32_MAX)))
        return mp_fail(err, errlen, "message: %s",
                       f->root ? "'version' is not an unsigned 32-bit integer" : "not parsed");
    *version = o ? (uint32_t)o->via.u64 : 0;
    return 0;
}

void msg_version_refusal(char *out, size_t size, const char *peer_role, const char *peer_addr,
                         uint32_t peer_version, const char *self_role)
{
    snprintf(out, size, "%s %s speaks protocol %u, this %s %u: upgrade one of them", peer_role,
             peer_addr, peer_version, self_role, PROTO_VERSION);
}

void msg_version_error_encode(struct buf *out, const char *self_role, const char *peer_role,
                              uint32_t peer_version)
{
    struct msg_error e;

    memset(&e, 0, sizeof e);
    snprintf(e.text, sizeof e.text, "protocol version mismatch: %s speaks %u, %s %u", self_role,
             PROTO_VERSION, peer_role, peer_version);
    e.version = PROTO_VERSION;
    msg_error_refusal_encode(out, &e);
}
