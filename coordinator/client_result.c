/* client_result: see client_result.h. */
#include "coordinator/client_result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"

#define BOUND_SHARE 0.9

static struct client_phase *phase_of(struct run_result *r, uint32_t phase)
{
    struct phase_result *ph = &r->phases[phase];
    if (!ph->client) {
        ph->client = xcalloc(1, sizeof *ph->client);
        ph->client->nagents = r->nagents;
        ph->client->agent = xcalloc(r->nagents ? r->nagents : 1, sizeof *ph->client->agent);
    }
    return ph->client;
}

static struct ms_store *store_of(const struct ms_sample *m)
{
    uint32_t n = m->nops < MS_OPS_MAX ? m->nops : MS_OPS_MAX;
    struct ms_store *st = xmalloc(sizeof *st + n * sizeof st->op[0]);
    st->xprt = m->xprt;
    st->nops = n;
    memcpy(st->op, m->op, n * sizeof st->op[0]);
    return st;
}

int client_result_add_interval(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                               const struct client_sample *s)
{
    struct client_agent *ca;
    struct client_iv *iv;

    if (phase >= r->nphases || agent >= r->nagents || k >= RESULT_MAX_INTERVALS)
        return -EINVAL;
    if (!s->host.present && !s->ms.present && !s->proxy.present)
        return 0;
    ca = &phase_of(r, phase)->agent[agent];
    if (k >= ca->niv) {
        uint32_t n = k + 1 > ca->niv * 2 ? k + 1 : ca->niv * 2;
        if (n > RESULT_MAX_INTERVALS)
            n = RESULT_MAX_INTERVALS;
        ca->iv = xrealloc(ca->iv, n * sizeof *ca->iv);
        memset(ca->iv + ca->niv, 0, (n - ca->niv) * sizeof *ca->iv);
        ca->niv = n;
    }
    iv = &ca->iv[k];
    iv->host = s->host;
    if (s->host.present) {
        const struct host_sample *l = &ca->last;
        iv->static_new = !l->present || l->cores != s->host.cores || l->threads != s->host.threads ||
                         strcmp(l->nic, s->host.nic) != 0 || l->speed_mbps != s->host.speed_mbps;
        ca->last = s->host;
    }
    free(iv->ms);
    iv->ms = s->ms.present ? store_of(&s->ms) : NULL;
    free(iv->proxy);
    iv->proxy = NULL;
    if (s->proxy.present) {
        iv->proxy = xmalloc(sizeof *iv->proxy);
        *iv->proxy = s->proxy;
    }
    if (s->ms.present && !ca->mount[0])
        snprintf(ca->mount, sizeof ca->mount, "%s", s->ms.mount);
    return 0;
}

int client_result_set_phase(struct run_result *r, uint32_t phase, uint32_t agent,
                            const struct client_sample *s)
{
    struct client_agent *ca;

    if (phase >= r->nphases || agent >= r->nagents)
        return -EINVAL;
    if (!s->host.present && !s->ms.present && !s->ms.note[0] && !s->proxy.present)
        return 0;
    ca = &phase_of(r, phase)->agent[agent];
    ca->host = s->host;
    ca->proxy = s->proxy;
    free(ca->ms);
    ca->ms = s->ms.present ? store_of(&s->ms) : NULL;
    if (s->ms.present)
        snprintf(ca->mount, sizeof ca->mount, "%s", s->ms.mount);
    snprintf(ca->note, sizeof ca->note, "%s", s->ms.note);
    return 0;
}

void client_result_inherit_static(const struct run_result *r, uint32_t phase, uint32_t agent,
                                  struct host_sample *h)
{
    const struct client_agent *ca = client_result_agent(r, phase, agent);
    if (!ca || !ca->last.present)
        return;
    h->cores = ca->last.cores;
    h->threads = ca->last.threads;
    memcpy(h->nic, ca->last.nic, sizeof h->nic);
    h->speed_mbps = ca->last.speed_mbps;
}

const struct client_agent *client_result_agent(const struct run_result *r, uint32_t phase,
                                               uint32_t agent)
{
    const struct client_agent *ca;
    if (phase >= r->nphases || !r->phases[phase].client || agent >= r->phases[phase].client->nagents)
        return NULL;
    ca = &r->phases[phase].client->agent[agent];
    return ca->host.present || ca->ms || ca->note[0] || ca->niv || ca->proxy.present ? ca : NULL;
}

const struct client_iv *client_result_iv(const struct run_result *r, uint32_t phase,
                                         uint32_t agent, uint32_t k)
{
    const struct client_agent *ca = client_result_agent(r, phase, agent);
    if (!ca || k >= ca->niv || (!ca->iv[k].host.present && !ca->iv[k].ms && !ca->iv[k].proxy))
        return NULL;
    return &ca->iv[k];
}

void client_result_free(struct phase_result *ph)
{
    struct client_phase *cp = ph->client;
    if (!cp)
        return;
    for (uint32_t a = 0; a < cp->nagents; a++) {
        struct client_agent *ca = &cp->agent[a];
        for (uint32_t k = 0; k < ca->niv; k++) {
            free(ca->iv[k].ms);
            free(ca->iv[k].proxy);
        }
        free(ca->iv);
        free(ca->ms);
    }
    free(cp->agent);
    free(cp);
    ph->client = NULL;
}

int client_result_cpu_bound(const struct agent_phase *ap, const struct host_sample *h,
                            double *busy, uint32_t *limit, const char **rule)
{
    double secs = (double)ap->duration_ns / 1e9;
    double cpu = h && h->present ? h->cpu_user_s + h->cpu_sys_s : ap->cpu_user_s + ap->cpu_sys_s;
    uint32_t cores = h && h->present && h->cores ? h->cores : ap->cores;

    *busy = 0;
    *limit = cores;
    *rule = "cores";
    if (cores == 0 || secs <= 0)
        return 0;
    if (h && h->present && h->threads && h->threads < cores) {
        *limit = h->threads;
        *rule = "threads";
    }
    *busy = cpu / secs;
    return *busy >= BOUND_SHARE * (double)*limit;
}

int client_result_nic_bound(const struct agent_phase *ap, const struct host_sample *h,
                            double *pct)
{
    double secs = (double)ap->duration_ns / 1e9, link, rx, tx;

    *pct = 0;
    if (!h || !h->present || !h->speed_mbps || secs <= 0)
        return 0;
    link = (double)h->speed_mbps * 1e6 / 8.0;      /* bytes per second */
    rx = (double)h->rx_bytes / secs;
    tx = (double)h->tx_bytes / secs;
    *pct = (rx > tx ? rx : tx) / link * 100.0;
    return *pct >= BOUND_SHARE * 100.0;
}
