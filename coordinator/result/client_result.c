/* client_result: see client_result.h. */
#include "coordinator/result/client_result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/varint.h"
#include "common/xmalloc.h"
#include "coordinator/result/spill.h"

#define BOUND_SHARE 0.9

/* The CPU figure is the process's over the sampler's span (phase start to
 * its last interval: opening files, the first and last interval's
 * bookkeeping), the divisor the phase's I/O time.  Below a second those
 * differ by more than the rule's 10%, and a span longer than the I/O can
 * read as more cores busy than the agent has (a 158 us phase read 30): no
 * claim is made then, either way. */
#define BOUND_MIN_SECS 1.0
#define BOUND_MAX_OVER 1.1

static struct client_phase *phase_of(struct run_result *r, uint32_t phase)
{
    struct phase_result *ph = &r->phases[phase];
    if (!ph->client) {
        ph->client = xcalloc(1, sizeof *ph->client);
        ph->client->nagents = r->nagents;
        ph->client->agent = xcalloc(r->nagents ? r->nagents : 1, sizeof *ph->client->agent);
        ph->client->spill = result_spill(r);
        for (uint32_t a = 0; a < r->nagents; a++)
            ph->client->agent[a].cache_blk = UINT32_MAX;
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

/* ---- packed blocks ----
 * Per interval of the block: a flags byte (IVP_*), then if IVP_HOST the
 * CPU in microseconds (user + sys, what every interval output takes),
 * rx and tx bytes as varints, and if IVP_STATIC cores, threads, speed,
 * nic_route and the nic name (length, bytes); then if IVP_MS the store's
 * pointer and if IVP_PROXY the proxy sample's (the block owns both).  The
 * static fields are written at a block's first host sample and wherever
 * they change, and carried forward when read.  The bytes are ours (this
 * process wrote them to the run's spill file, spill.h), never input. */
#define IVP_HOST       0x01u
#define IVP_STATIC_NEW 0x02u    /* client_iv.static_new */
#define IVP_STATIC     0x04u
#define IVP_MS         0x08u
#define IVP_PROXY      0x10u    /* the proxy sample's pointer follows (owned) */

/* client_json.c's cpu_us: what the interval outputs print. */
static uint64_t iv_cpu_us(const struct host_sample *h)
{
    double v = (h->cpu_user_s + h->cpu_sys_s) * 1e6;
    return v <= 0 ? 0 : (uint64_t)llround(v);
}

static int statics_differ(const struct host_sample *a, const struct host_sample *b)
{
    return a->cores != b->cores || a->threads != b->threads || a->speed_mbps != b->speed_mbps ||
           a->nic_route != b->nic_route || strcmp(a->nic, b->nic) != 0;
}

static void block_pack(struct spill *sp, struct client_iv_block *bk)
{
    struct spill_buf w = { 0 };
    const struct host_sample *prev = NULL;

    for (uint32_t i = 0; i < CLIENT_IV_BLOCK; i++) {
        const struct client_iv *iv = &bk->dense[i];
        const struct host_sample *h = &iv->host;
        uint8_t f = (h->present ? IVP_HOST : 0) | (iv->static_new ? IVP_STATIC_NEW : 0) |
                    (iv->ms ? IVP_MS : 0) | (iv->proxy ? IVP_PROXY : 0);
        if (h->present && (!prev || statics_differ(prev, h)))
            f |= IVP_STATIC;
        spill_buf_bytes(&w, &f, 1);
        if (h->present) {
            spill_buf_varint(&w, iv_cpu_us(h));
            spill_buf_varint(&w, h->rx_bytes);
            spill_buf_varint(&w, h->tx_bytes);
            prev = h;
        }
        if (f & IVP_STATIC) {
            size_t nl = strnlen(h->nic, sizeof h->nic - 1);
            spill_buf_varint(&w, h->cores);
            spill_buf_varint(&w, h->threads);
            spill_buf_varint(&w, h->speed_mbps);
            spill_buf_varint(&w, h->nic_route);
            spill_buf_varint(&w, nl);
            spill_buf_bytes(&w, h->nic, nl);
        }
        if (iv->ms)
            spill_buf_bytes(&w, &iv->ms, sizeof iv->ms);
        if (iv->proxy)
            spill_buf_bytes(&w, &iv->proxy, sizeof iv->proxy);
    }
    free(bk->dense);
    bk->dense = NULL;
    bk->at = spill_put(sp, w.b, (uint32_t)w.len);
    bk->len = (uint32_t)w.len;
    free(w.b);
}

/* out[CLIENT_IV_BLOCK] := the packed block (its ms and proxy pointers
 * still owned by it). */
static void block_unpack(struct spill *sp, const struct client_iv_block *bk, struct client_iv *out)
{
    const uint8_t *p = spill_get(sp, bk->at, bk->len);
    struct host_sample st = { 0 };    /* the statics carried forward */

    memset(out, 0, CLIENT_IV_BLOCK * sizeof *out);
    for (uint32_t i = 0; i < CLIENT_IV_BLOCK; i++) {
        struct client_iv *iv = &out[i];
        uint8_t f = *p++;
        iv->static_new = (f & IVP_STATIC_NEW) ? 1 : 0;
        if (f & IVP_HOST) {
            iv->host.present = 1;
            iv->host.cpu_user_s = (double)varint_get(&p) / 1e6;   /* as client_json loads it */
            iv->host.rx_bytes = varint_get(&p);
            iv->host.tx_bytes = varint_get(&p);
        }
        if (f & IVP_STATIC) {
            size_t nl;
            st.cores = (uint32_t)varint_get(&p);
            st.threads = (uint32_t)varint_get(&p);
            st.speed_mbps = (uint32_t)varint_get(&p);
            st.nic_route = (uint32_t)varint_get(&p);
            nl = (size_t)varint_get(&p);
            memset(st.nic, 0, sizeof st.nic);
            memcpy(st.nic, p, nl);
            p += nl;
        }
        if (f & IVP_HOST) {
            iv->host.cores = st.cores;
            iv->host.threads = st.threads;
            iv->host.speed_mbps = st.speed_mbps;
            iv->host.nic_route = st.nic_route;
            memcpy(iv->host.nic, st.nic, sizeof st.nic);
        }
        if (f & IVP_MS) {
            memcpy(&iv->ms, p, sizeof iv->ms);
            p += sizeof iv->ms;
        }
        if (f & IVP_PROXY) {
            memcpy(&iv->proxy, p, sizeof iv->proxy);
            p += sizeof iv->proxy;
        }
    }
}

/* Block b of ca, dense, to be written (grown, or unpacked: late data). */
static struct client_iv *block_open(struct spill *sp, struct client_agent *ca, uint32_t b, int *was_packed)
{
    struct client_iv_block *bk;

    if (b >= ca->nblk) {
        uint32_t n = b + 1 > ca->nblk * 2 ? b + 1 : ca->nblk * 2;
        ca->blk = xrealloc(ca->blk, n * sizeof *ca->blk);
        memset(ca->blk + ca->nblk, 0, (n - ca->nblk) * sizeof *ca->blk);
        ca->nblk = n;
    }
    bk = &ca->blk[b];
    *was_packed = bk->len != 0;
    if (!bk->dense) {
        bk->dense = xcalloc(CLIENT_IV_BLOCK, sizeof *bk->dense);
        if (bk->len)
            block_unpack(sp, bk, bk->dense);
        bk->len = 0;
    }
    if (ca->cache_blk == b)
        ca->cache_blk = UINT32_MAX;
    return bk->dense;
}

int client_result_add_interval(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                               const struct client_sample *s)
{
    struct client_agent *ca;
    struct client_iv *iv;
    uint32_t b = k / CLIENT_IV_BLOCK;
    int was_packed;

    if (phase >= r->nphases || agent >= r->nagents || k >= RESULT_MAX_INTERVALS)
        return -EINVAL;
    if (!s->host.present && !s->ms.present && !s->proxy.present)
        return 0;
    ca = &phase_of(r, phase)->agent[agent];
    iv = &block_open(r->spill, ca, b, &was_packed)[k % CLIENT_IV_BLOCK];
    if (k >= ca->niv)
        ca->niv = k + 1;
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
    /* the agent moved on to block b: the one before it is complete */
    if (was_packed)
        block_pack(r->spill, &ca->blk[b]);
    if (b > 0 && ca->blk[b - 1].dense)
        block_pack(r->spill, &ca->blk[b - 1]);
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
    const struct client_iv_block *bk;
    const struct client_iv *iv;
    uint32_t b = k / CLIENT_IV_BLOCK;

    if (!ca || k >= ca->niv || b >= ca->nblk)
        return NULL;
    bk = &ca->blk[b];
    if (bk->dense) {
        iv = &bk->dense[k % CLIENT_IV_BLOCK];
    } else if (bk->len) {
        /* the result is const to its readers; the cache is one it owns */
        struct client_agent *mca = (struct client_agent *)ca;
        if (!mca->cache)
            mca->cache = xmalloc(CLIENT_IV_BLOCK * sizeof *mca->cache);
        if (mca->cache_blk != b) {
            block_unpack(r->phases[phase].client->spill, bk, mca->cache);
            mca->cache_blk = b;
        }
        iv = &mca->cache[k % CLIENT_IV_BLOCK];
    } else {
        return NULL;
    }
    if (!iv->host.present && !iv->ms && !iv->proxy)
        return NULL;
    return iv;
}

void client_result_free(struct phase_result *ph)
{
    struct client_phase *cp = ph->client;
    if (!cp)
        return;
    for (uint32_t a = 0; a < cp->nagents; a++) {
        struct client_agent *ca = &cp->agent[a];
        for (uint32_t b = 0; b < ca->nblk; b++) {
            struct client_iv_block *bk = &ca->blk[b];
            if (bk->len && !bk->dense) {
                bk->dense = xmalloc(CLIENT_IV_BLOCK * sizeof *bk->dense);
                block_unpack(cp->spill, bk, bk->dense);     /* for its ms and proxy pointers */
            }
            for (uint32_t i = 0; bk->dense && i < CLIENT_IV_BLOCK; i++) {
                free(bk->dense[i].ms);
                free(bk->dense[i].proxy);
            }
            free(bk->dense);
        }
        free(ca->blk);
        free(ca->cache);
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
    if (secs < BOUND_MIN_SECS || *busy > BOUND_MAX_OVER * (double)cores)
        return 0;
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
