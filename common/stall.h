/* stall: a periodic timer that notices its own process did not run.
 *
 * Every side of a session judges the other's silence on a timer: the
 * coordinator its agents (--agent-timeout), an agent its coordinator
 * (--lease), the pool and dial-in gatherers their idle agents.  When the
 * process itself was stopped (SIGSTOP, Ctrl-Z) or starved, the peer's
 * messages wait unread in the socket, and libuv runs timers before it
 * reads: without this, the first tick after a stall would blame the peer.
 * A tick more than two periods after the last one is a stall; the time
 * beyond one period is added to each peer's last-heard instant (never
 * past now), so silence is measured on our own running time. */
#ifndef NFSTORM_STALL_H
#define NFSTORM_STALL_H

#include <stdint.h>

/* Call on every tick; *last_tick_ns 0 means the timer was just started.
 * Returns how long this process did not run (0: no stall). */
static inline uint64_t stall_tick(uint64_t *last_tick_ns, uint64_t period_ns, uint64_t now)
{
    uint64_t gap = *last_tick_ns ? now - *last_tick_ns : 0;
    *last_tick_ns = now;
    return gap > 2 * period_ns ? gap - period_ns : 0;
}

/* A last-heard instant t_ns moved forward by a stall, never past now. */
static inline uint64_t stall_forgive(uint64_t t_ns, uint64_t stall_ns, uint64_t now)
{
    return t_ns + stall_ns < now ? t_ns + stall_ns : now;
}

#endif
