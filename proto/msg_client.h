/* msg_client: the wire form of common/client_stats.h, the optional "host"
 * "mountstats" and "proxy" maps of interval and phase-done (docs/protocol.md).
 * Private to proto/: field tables that msg_codec.c walks like any other,
 * and the checks the generic decoder cannot make (names are words, mount
 * points and notes printable, no operation listed twice, a proxy's port
 * 1..65535 and strings printable). */
#ifndef NFSTORM_MSG_CLIENT_H
#define NFSTORM_MSG_CLIENT_H

#include <stddef.h>
#include "common/client_stats.h"
#include "proto/msg_codec.h"

/* One optional map, by field kind (F_HOST, F_MSTATS, F_PROXY, in that
 * order): its fields (mountstats': mount and note; xprt and ops apart),
 * the size of its sample, whether a sample is sent at all (the agent
 * measured it: host, proxy; has counters or a note: mountstats), and what
 * follows the generic decode: the sample marked present and the checks
 * the generic decoder cannot make (0, or -EBADMSG with a reason, no
 * prefix, in why). */
struct msg_client_map {
    const struct field *f;
    size_t n;
    size_t size;
    int (*sent)(const void *sample);
    int (*accept)(void *sample, char *why, size_t len);
};
extern const struct msg_client_map msg_client_maps[3];
#define MSG_CLIENT_MAP(kind) (&msg_client_maps[(kind) - F_HOST])

extern const struct field msg_xprt_fields[];
extern const size_t msg_xprt_nfields;
extern const struct field msg_msop_fields[];
extern const size_t msg_msop_nfields;

/* 1 when s may name an interface or an operation: [A-Za-z0-9_.:-]. */
int msg_client_word(const char *s);

#endif
