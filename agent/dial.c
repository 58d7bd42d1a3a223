/* dial: the agent's reconnect loop (see dial.h).  Every attempt is one
 * session (session_dial); the session's end (a->session_freed) schedules
 * the next attempt, so there is never more than one connection out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agent/dial.h"
#include "common/log.h"
#include "proto/auth.h"

static void dial_attempt(uv_timer_t *t);

int dial_parse_target(const char *s, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *colon = strrchr(s, ':');
    size_t hl;
    char *end;
    long p;

    if (!colon || colon == s || !colon[1])
        return -EINVAL;
    hl = (size_t)(colon - s);
    if (s[0] == '[') {
        if (hl < 3 || s[hl - 1] != ']')
            return -EINVAL;
        s++;
        hl -= 2;
    }
    if (hl >= hostlen)
        return -EINVAL;
    p = strtol(colon + 1, &end, 10);
    if (*end || p < 1 || p > 65535 || strlen(colon + 1) >= portlen)
        return -EINVAL;
    memcpy(host, s, hl);
    host[hl] = '\0';
    snprintf(port, portlen, "%ld", p);
    return 0;
}

uint64_t dial_backoff_ms(uint32_t attempt, uint64_t r)
{
    uint64_t cap = attempt >= 20 ? DIAL_CAP_MS : (uint64_t)DIAL_BASE_MS << attempt;
    if (cap > DIAL_CAP_MS)
        cap = DIAL_CAP_MS;
    return r % (cap + 1);
}

static uint64_t dial_rand(struct dial *d)
{
    /* xorshift64: jitter needs spread, not secrecy */
    uint64_t x = d->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return d->rng = x;
}

/* Log why an attempt failed when the reason changed since the last one. */
static void dial_note(struct dial *d, const char *why)
{
    if (strcmp(d->last_why, why) == 0)
        return;
    snprintf(d->last_why, sizeof d->last_why, "%s", why);
    log_warn("coordinator %s: %s (retrying with backoff, at most %u s apart)", d->target, why,
             DIAL_CAP_MS / 1000);
}

static void dial_schedule(struct dial *d)
{
    uint64_t ms = dial_backoff_ms(d->attempt, dial_rand(d));
    if (d->attempt < UINT32_MAX)
        d->attempt++;
    uv_timer_start(&d->timer, dial_attempt, ms, 0);
}

static void on_session_freed(void *arg, int served, const char *why)
{
    struct dial *d = arg;

    if (served) {
        d->attempt = 0;          /* a coordinator took us: start over quickly */
        d->sessions++;
        d->last_why[0] = '\0';
        log_info("session %u with coordinator %s over (%s): dialling again", d->sessions,
                 d->target, why);
    } else {
        dial_note(d, why);
    }
    dial_schedule(d);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct dial *d = req->data;
    char peer[300], ip[64] = "?";

    d->resolving = 0;
    if (status < 0 || !res) {
        char why[160];
        snprintf(why, sizeof why, "cannot resolve '%s': %s", d->host,
                 status < 0 ? uv_strerror(status) : "no address");
        dial_note(d, why);
        if (res)
            uv_freeaddrinfo(res);
        dial_schedule(d);
        return;
    }
    if (res->ai_family == AF_INET6)
        uv_ip6_name((struct sockaddr_in6 *)res->ai_addr, ip, sizeof ip);
    else
        uv_ip4_name((struct sockaddr_in *)res->ai_addr, ip, sizeof ip);
    snprintf(peer, sizeof peer, res->ai_family == AF_INET6 ? "[%s]:%s" : "%s:%s", ip, d->port);
    log_debug("dialling coordinator %s (%s)", d->target, peer);
    session_dial(d->agent, res->ai_addr, peer);   /* its end calls on_session_freed */
    uv_freeaddrinfo(res);
}

static void dial_attempt(uv_timer_t *t)
{
    struct dial *d = t->data;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    int rc;

    d->gai.data = d;
    d->resolving = 1;
    rc = uv_getaddrinfo(d->agent->loop, &d->gai, on_resolved, d->host, d->port, &hints);
    if (rc < 0) {
        char why[160];
        d->resolving = 0;
        snprintf(why, sizeof why, "cannot resolve '%s': %s", d->host, uv_strerror(rc));
        dial_note(d, why);
        dial_schedule(d);
    }
}

int dial_start(struct dial *d, struct agent *a, const char *target)
{
    unsigned char seed[AUTH_NONCE_LEN];

    memset(d, 0, sizeof *d);
    if (dial_parse_target(target, d->host, sizeof d->host, d->port, sizeof d->port) < 0)
        return -EINVAL;
    snprintf(d->target, sizeof d->target, "%s", target);
    d->agent = a;
    if (auth_nonce(seed) == 0)
        memcpy(&d->rng, seed, sizeof d->rng);
    d->rng ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
    if (d->rng == 0)
        d->rng = 0x9e3779b97f4a7c15ull;
    a->session_freed = on_session_freed;
    a->session_freed_arg = d;
    uv_timer_init(a->loop, &d->timer);
    d->timer.data = d;
    uv_timer_start(&d->timer, dial_attempt, 0, 0);
    log_info("dialling coordinator %s", target);
    return 0;
}
