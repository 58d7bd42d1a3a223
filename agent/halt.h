/* halt: the stop signal of a phase, and the one way its threads sleep.
 *
 * Every wait a job thread or the preparing worker makes (until the start
 * instant, startdelay, thinktime, a rate-limited schedule, a ramp, a
 * backoff) goes through halt_sleep_until, which returns as soon as
 * halt_raise is called from any thread.  So stop, Ctrl-C, a lost
 * coordinator or an expired lease end a phase within a scheduling delay,
 * never after a sleep runs out (clock_nanosleep cannot be interrupted by
 * another thread short of a signal).
 *
 * Implementation: a mutex and a condition variable on CLOCK_MONOTONIC (the
 * clock of common/clock.h), plus an atomic flag so hot loops can poll
 * halt_raised without a lock.  halt_kick wakes sleepers without stopping
 * them, so one that sleeps until a deadline held in an atomic variable
 * (the start instant, unknown while threads are being created) re-reads it.
 *
 * Threads: every function may be called from any thread once halt_init
 * returned and until halt_destroy; the owner destroys it after the last
 * sleeper has returned (the phase joins its threads first). */
#ifndef NFSTORM_HALT_H
#define NFSTORM_HALT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define HALT_NEVER UINT64_MAX

struct halt {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int raised;
};

void halt_init(struct halt *h);
void halt_destroy(struct halt *h);
/* Stop: every sleeper returns now, every later sleep returns at once. */
void halt_raise(struct halt *h);
/* Has halt_raise been called?  A relaxed load: cheap enough per op. */
int halt_raised(const struct halt *h);
/* Wake sleepers so they re-read their deadline (halt_sleep_until_var). */
void halt_kick(struct halt *h);
/* Sleep until the monotonic instant t_ns (clock_now_ns).  0 when it came,
 * 1 when the halt was raised first (or already). */
int halt_sleep_until(struct halt *h, uint64_t t_ns);
/* The same for a deadline another thread may still move (HALT_NEVER:
 * not known yet); re-read after every halt_kick. */
int halt_sleep_until_var(struct halt *h, const atomic_uint_fast64_t *t_ns);

#endif
