/* halt: see halt.h.  One condition variable per phase: waits are rare (a
 * sleeping thread is by definition not doing I/O), so a shared lock costs
 * nothing measurable, and a raise reaches every sleeper with one
 * broadcast. */
#include <errno.h>
#include <time.h>
#include "agent/halt.h"
#include "common/clock.h"

void halt_init(struct halt *h)
{
    pthread_condattr_t ca;
    pthread_mutex_init(&h->mu, NULL);
    pthread_condattr_init(&ca);
    /* the deadlines are clock_now_ns instants: CLOCK_MONOTONIC */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&h->raised, 0);
}

void halt_destroy(struct halt *h)
{
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
}

void halt_raise(struct halt *h)
{
    pthread_mutex_lock(&h->mu);
    atomic_store(&h->raised, 1);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

int halt_raised(const struct halt *h)
{
    return atomic_load_explicit(&h->raised, memory_order_relaxed);
}

void halt_kick(struct halt *h)
{
    pthread_mutex_lock(&h->mu);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static int halt_wait(struct halt *h, const atomic_uint_fast64_t *var, uint64_t fixed)
{
    int rc = 0;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        uint64_t t = var ? atomic_load(var) : fixed;
        if (atomic_load(&h->raised)) {
            rc = 1;
            break;
        }
        if (t != HALT_NEVER && clock_now_ns() >= t)
            break;
        if (t == HALT_NEVER) {
            pthread_cond_wait(&h->cv, &h->mu);
        } else {
            struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
                                   .tv_nsec = (long)(t % 1000000000u) };
            pthread_cond_timedwait(&h->cv, &h->mu, &ts);
        }
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

int halt_sleep_until(struct halt *h, uint64_t t_ns)
{
    if (halt_raised(h))
        return 1;
    if (t_ns != HALT_NEVER && clock_now_ns() >= t_ns)
        return 0;
    return halt_wait(h, NULL, t_ns);
}

int halt_sleep_until_var(struct halt *h, const atomic_uint_fast64_t *t_ns)
{
    return halt_wait(h, t_ns, 0);
}
