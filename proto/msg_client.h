/* msg_client: the wire form of common/client_stats.h, the optional "host"
 * "mountstats" and "proxy" maps of interval and phase-done (docs/protocol.md).
 * Private to proto/: field tables that msg_codec.c walks like any other,
 * and the checks the generic decoder cannot make (names are words, mount
 * points and notes printable, no operation listed twice). */
#ifndef NFSTORM_MSG_CLIENT_H
#define NFSTORM_MSG_CLIENT_H

#include <stddef.h>
#include "common/client_stats.h"
#include "proto/msg_codec.h"

extern const struct field msg_host_fields[];
extern const size_t msg_host_nfields;
extern const struct field msg_ms_fields[];      /* mount, note; xprt and ops apart */
extern const size_t msg_ms_nfields;
extern const struct field msg_xprt_fields[];
extern const size_t msg_xprt_nfields;
extern const struct field msg_msop_fields[];
extern const size_t msg_msop_nfields;

/* Sent at all: the agent measured it (host), or has counters or a note
 * (mountstats). */
int msg_client_host_sent(const struct host_sample *h);
int msg_client_ms_sent(const struct ms_sample *m);
/* 1 when s may name an interface or an operation: [A-Za-z0-9_.:-]. */
int msg_client_word(const char *s);
/* After the generic decode: 0, or -EBADMSG with a reason (no prefix) in
 * why. */
int msg_client_host_check(const struct host_sample *h, char *why, size_t len);
int msg_client_ms_check(const struct ms_sample *m, char *why, size_t len);
/* The "proxy" map (the local NFS proxy, agent/proxyproc.h): sent when
 * present; checked: port 1..65535, strings printable. */
extern const struct field msg_proxy_fields[];
extern const size_t msg_proxy_nfields;
int msg_client_proxy_sent(const struct proxy_sample *p);
int msg_client_proxy_check(const struct proxy_sample *p, char *why, size_t len);

#endif
