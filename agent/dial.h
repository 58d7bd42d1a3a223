/* dial: an agent that connects out to its coordinator (--coordinator).
 *
 * Instead of listening, the agent dials HOST:PORT, serves the coordinator
 * over that connection exactly as an accepted one (session.c: the
 * coordinator still speaks first and both sides prove the secret), and
 * when the session is over (the run ended, the coordinator vanished and
 * the lease stopped the I/O, or it refused us) dials again, forever.
 *
 * Retries back off exponentially with full jitter: attempt k waits a
 * uniformly random time in [0, min(cap, base * 2^k)] (base 100 ms, cap
 * 10 s), so a fleet restarted together does not hammer a coordinator in
 * lock step; a session the coordinator authenticated resets k.  The name
 * is resolved again before every attempt (a Kubernetes Service or DNS
 * name may move), on libuv's thread pool: the loop thread never blocks.
 * Why an attempt failed is logged when it changes, not per attempt. */
#ifndef NFSTORM_DIAL_H
#define NFSTORM_DIAL_H

#include <stdint.h>
#include <uv.h>
#include "agent/session.h"

#define DIAL_BASE_MS 100u
#define DIAL_CAP_MS  10000u

struct dial {
    struct agent *agent;
    char host[256];
    char port[8];
    char target[280];          /* "HOST:PORT" as given, for logs */
    uv_timer_t timer;
    uv_getaddrinfo_t gai;
    int resolving;
    uint32_t attempt;          /* failed attempts since the last served session */
    uint64_t rng;              /* jitter: xorshift state */
    char last_why[192];        /* the last failure logged */
    uint32_t sessions;         /* sessions served so far */
};

/* Parse "HOST:PORT" ([v6]:port too) into host and port: 0, or -EINVAL. */
int dial_parse_target(const char *s, char *host, size_t hostlen, char *port, size_t portlen);

/* Start dialling target (checked by dial_parse_target) for agent a on its
 * loop; sets a->session_freed.  d is embedded by the caller and must stay
 * valid while the loop runs.  0, or -EINVAL for a bad target. */
int dial_start(struct dial *d, struct agent *a, const char *target);

/* The delay before retry number attempt (0-based), given a random draw r:
 * r % (min(cap, base << attempt) + 1) milliseconds.  Exposed for tests. */
uint64_t dial_backoff_ms(uint32_t attempt, uint64_t r);

#endif
