/* client_sampler: see client_sampler.h.  The phase's totals are the
 * difference between now and the start, not a sum of intervals, so they
 * are exact even when an interval's read failed. */
#include "agent/client_sampler.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/engine.h"
#include "agent/job.h"
#include "agent/nicstat.h"
#include "common/cpu_seconds.h"
#include "common/xmalloc.h"

#define TEST_MOUNTSTATS_ENV "NFSTORM_TEST_MOUNTSTATS"

static uint32_t allowed_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
    return 1;
}

/* The directory the first job on storage s works in (for the note). */
static void job_dir_of(const struct phase_run *pr, const struct storage_info *s, char *out,
                       size_t len)
{
    snprintf(out, len, "%s", s->where);
    for (uint32_t i = 0; i < pr->njobs; i++) {
        const struct job *j = &pr->jobs[i];
        char *slash;
        if (strcmp(j->spec->name, s->job) != 0)
            continue;
        snprintf(out, len, "%s", j->ej.nfiles ? j->ej.files[0].path : j->workdir);
        if (j->ej.nfiles && (slash = strrchr(out, '/')) != NULL)
            slash == out ? (void)(out[1] = '\0') : (void)(*slash = '\0');
        return;
    }
}

static void pick_nic(struct client_sampler *c, const struct phase_run *pr,
                     const struct sockaddr *ctl_local)
{
    char host[256] = "";

    /* behind a local proxy the data crosses the NIC on the route to the
     * proxy's remote end, not lo */
    if (c->proxy_pid && c->px_prev.first_host[0]) {
        snprintf(host, sizeof host, "%s", c->px_prev.first_host);
        snprintf(c->route_host, sizeof c->route_host, "%s", host);
    }
    for (uint32_t i = 0; i < pr->nstorage && !host[0]; i++) {
        const struct storage_info *s = &pr->storage[i];
        if (s->kind == STORAGE_NFS)
            (void)proxyproc_url_host(s->where, host, sizeof host);
        else if (mountstats_is_nfs(s->fstype))
            (void)proxyproc_mount_opt(s->options, "addr", host, sizeof host);
    }
    c->nic[0] = '\0';
    c->nic_route = host[0] && nicstat_route_to(host, c->nic, sizeof c->nic) == 0;
    if (!c->nic_route && ctl_local && nicstat_iface_of(ctl_local, c->nic, sizeof c->nic) < 0)
        c->nic[0] = '\0';
    if (c->nic[0] && nicstat_read(c->nic, &c->rx_base, &c->tx_base) < 0) {
        c->nic[0] = '\0';
        c->nic_route = 0;
    }
    c->rx_prev = c->rx_base;
    c->tx_prev = c->tx_base;
    c->speed_mbps = c->nic[0] ? nicstat_speed_mbps(c->nic) : 0;
}

/* Read the mountstats of c->mount into m: 0, -ENODATA when the file does
 * not list it, or mountstats_find's codes, or the read's -errno. */
static int ms_read(struct client_sampler *c, struct mountstats *m)
{
    char *text = mountstats_read(c->ms_path);
    int rc;
    if (!text)
        return -errno;
    rc = mountstats_find(text, c->mount, m);
    free(text);
    return rc == -ENOENT ? -ENODATA : rc;
}

static void pick_mount(struct client_sampler *c, const struct phase_run *pr)
{
    const char *test = getenv(TEST_MOUNTSTATS_ENV);
    const struct storage_info *s = NULL;
    char dir[PLAN_PATH_MAX];
    int rc;

    for (uint32_t i = 0; i < pr->nstorage && !s; i++)
        if (pr->storage[i].kind == STORAGE_MOUNT)
            s = &pr->storage[i];
    if (!s)
        return;                        /* libnfs or null jobs only: no kernel mount */
    job_dir_of(pr, s, dir, sizeof dir);
    if (!test && !mountstats_is_nfs(s->fstype)) {
        snprintf(c->note, sizeof c->note, "%s: not an NFS mount (%s); no mountstats", dir,
                 s->fstype[0] ? s->fstype : "unknown type");
        return;
    }
    snprintf(c->ms_path, sizeof c->ms_path, "%s", test ? test : "/proc/self/mountstats");
    snprintf(c->mount, sizeof c->mount, "%s", s->where);
    c->ms_base = xcalloc(1, sizeof *c->ms_base);
    c->ms_prev = xcalloc(1, sizeof *c->ms_prev);
    c->ms_now = xcalloc(1, sizeof *c->ms_now);
    rc = ms_read(c, c->ms_base);
    if (rc == 0) {
        *c->ms_prev = *c->ms_base;
        return;
    }
    if (rc == -EMEDIUMTYPE)
        snprintf(c->note, sizeof c->note, "%s: not an NFS mount (%s); no mountstats", dir,
                 c->ms_base->fstype);
    else
        snprintf(c->note, sizeof c->note, "%s: no mountstats for %s (%s)", dir, c->mount,
                 rc == -EBADMSG ? "malformed" : rc == -ENODATA ? "not listed" : strerror(-rc));
    client_sampler_stop(c);
    c->running = 1;
}

/* The loopback port of kernel mount s by its mountstats section (the
 * device and opts: lines), for when mountinfo did not tell it (the
 * test-only NFSTORM_TEST_MOUNTSTATS file names mounts mountinfo lacks). */
static int mountstats_port(const struct storage_info *s, uint32_t *port)
{
    const char *test = getenv(TEST_MOUNTSTATS_ENV);
    char *text = mountstats_read(test ? test : "/proc/self/mountstats");
    int rc = text ? proxyproc_mountstats_port(text, s->where, port) : -ENOENT;
    free(text);
    return rc;
}

/* The first storage that points at a loopback port, and its proxy. */
static void pick_proxy(struct client_sampler *c, const struct phase_run *pr)
{
    proxyproc_root(c->proc_root, sizeof c->proc_root);
    for (uint32_t i = 0; i < pr->nstorage && !c->proxy_port; i++) {
        const struct storage_info *s = &pr->storage[i];
        uint32_t port;
        if ((s->kind == STORAGE_NFS && proxyproc_url_port(s->where, &port) == 0) ||
            (s->kind == STORAGE_MOUNT && mountstats_is_nfs(s->fstype) &&
             proxyproc_mount_port(s->source, s->options, &port) == 0) ||
            (s->kind == STORAGE_MOUNT && (mountstats_is_nfs(s->fstype) || getenv(TEST_MOUNTSTATS_ENV)) &&
             mountstats_port(s, &port) == 0))
            c->proxy_port = port;
    }
    if (c->proxy_port && proxyproc_find(c->proc_root, c->proxy_port, &c->proxy_pid) == 0 &&
        proxyproc_read(c->proc_root, c->proxy_pid, c->proxy_port, &c->px_prev) < 0)
        c->proxy_pid = 0;
}

static uint64_t grew(uint64_t now, uint64_t then)
{
    return now >= then ? now - then : 0;
}

/* The proxy over the interval that just closed into out; a proxy that
 * went away is looked for again (its successor counts from its first
 * look).  Once it has a connection, the NIC follows its route. */
static void proxy_interval(struct client_sampler *c, struct proxy_sample *out)
{
    struct proxyproc_now now;
    struct proxy_sample *t = &c->px_total;

    memset(out, 0, sizeof *out);
    if (!c->proxy_port)
        return;
    if (c->proxy_pid && proxyproc_read(c->proc_root, c->proxy_pid, c->proxy_port, &now) < 0)
        c->proxy_pid = 0;
    if (!c->proxy_pid) {
        if (c->px_wait > 0) {
            c->px_wait--;
            return;
        }
        if (proxyproc_find(c->proc_root, c->proxy_port, &c->proxy_pid) < 0 ||
            proxyproc_read(c->proc_root, c->proxy_pid, c->proxy_port, &c->px_prev) < 0) {
            c->proxy_pid = 0;
            c->px_backoff = c->px_backoff ? (c->px_backoff < 64 ? c->px_backoff * 2 : 64) : 1;
            c->px_wait = c->px_backoff;
            return;
        }
        c->px_backoff = 0;
        now = c->px_prev;
    }
    out->present = 1;
    out->pid = c->proxy_pid;
    out->port = c->proxy_port;
    snprintf(out->name, sizeof out->name, "%s", now.name);
    out->cpu_user_us = grew(now.utime_us, c->px_prev.utime_us);
    out->cpu_sys_us = grew(now.stime_us, c->px_prev.stime_us);
    proxyproc_bytes_delta(&now, &c->px_prev, &out->rx_bytes, &out->tx_bytes);
    out->conns = now.conns;
    snprintf(out->remotes, sizeof out->remotes, "%s", now.remotes);
    c->px_prev = now;
    if (!c->route_host[0] && now.first_host[0]) {
        char nic[CLIENT_NIC_MAX];
        if (nicstat_route_to(now.first_host, nic, sizeof nic) == 0) {
            snprintf(c->route_host, sizeof c->route_host, "%s", now.first_host);
            if (strcmp(nic, c->nic) != 0 && nicstat_read(nic, &c->rx_prev, &c->tx_prev) == 0) {
                /* another interface: its bytes count from here */
                snprintf(c->nic, sizeof c->nic, "%s", nic);
                c->rx_base = c->rx_prev;
                c->tx_base = c->tx_prev;
                c->speed_mbps = nicstat_speed_mbps(nic);
            }
            c->nic_route = strcmp(nic, c->nic) == 0;
        }
    }
    snprintf(out->route_host, sizeof out->route_host, "%s", c->route_host);
    /* the phase: sums, and the last look's statics */
    t->cpu_user_us += out->cpu_user_us;
    t->cpu_sys_us += out->cpu_sys_us;
    t->rx_bytes += out->rx_bytes;
    t->tx_bytes += out->tx_bytes;
    t->present = 1;
    t->pid = out->pid;
    t->port = out->port;
    t->conns = out->conns;
    memcpy(t->name, out->name, sizeof t->name);
    memcpy(t->remotes, out->remotes, sizeof t->remotes);
    memcpy(t->route_host, out->route_host, sizeof t->route_host);
}

void client_sampler_start(struct client_sampler *c, const struct phase_run *pr,
                          const struct sockaddr *ctl_local)
{
    client_sampler_stop(c);
    memset(c, 0, sizeof *c);
    c->running = 1;
    c->cores = allowed_cores();
    c->threads = pr->njobs;
    getrusage(RUSAGE_SELF, &c->ru_base);
    c->ru_prev = c->ru_base;
    pick_proxy(c, pr);
    pick_nic(c, pr, ctl_local);
    pick_mount(c, pr);
}

static void host_fill(const struct client_sampler *c, const struct rusage *from,
                      const struct rusage *to, uint64_t rx0, uint64_t tx0, uint64_t rx1,
                      uint64_t tx1, struct host_sample *h)
{
    memset(h, 0, sizeof *h);
    h->present = 1;
    h->cpu_user_s = cpu_seconds_between(&from->ru_utime, &to->ru_utime);
    h->cpu_sys_s = cpu_seconds_between(&from->ru_stime, &to->ru_stime);
    if (h->cpu_user_s < 0)
        h->cpu_user_s = 0;
    if (h->cpu_sys_s < 0)
        h->cpu_sys_s = 0;
    h->cores = c->cores;
    h->threads = c->threads;
    snprintf(h->nic, sizeof h->nic, "%s", c->nic);
    h->rx_bytes = rx1 >= rx0 ? rx1 - rx0 : 0;
    h->tx_bytes = tx1 >= tx0 ? tx1 - tx0 : 0;
    h->speed_mbps = c->speed_mbps;
    h->nic_route = c->nic_route;
}

void client_sampler_interval(struct client_sampler *c, struct client_sample *out)
{
    struct rusage ru;
    uint64_t rx = c->rx_prev, tx = c->tx_prev;

    memset(&out->ms, 0, sizeof out->ms);
    memset(&out->proxy, 0, sizeof out->proxy);
    if (!c->running) {
        memset(&out->host, 0, sizeof out->host);
        return;
    }
    proxy_interval(c, &out->proxy);    /* first: it may move the NIC to the proxy's route */
    getrusage(RUSAGE_SELF, &ru);
    if (c->nic[0] && nicstat_read(c->nic, &rx, &tx) < 0) {
        rx = c->rx_prev;
        tx = c->tx_prev;
    }
    host_fill(c, &c->ru_prev, &ru, c->rx_prev, c->tx_prev, rx, tx, &out->host);
    c->ru_prev = ru;
    c->rx_prev = rx;
    c->tx_prev = tx;
    if (c->ms_path[0] && ms_read(c, c->ms_now) == 0) {
        mountstats_delta(c->ms_now, c->ms_prev, &out->ms);
        *c->ms_prev = *c->ms_now;
    }
}

void client_sampler_phase(const struct client_sampler *c, struct client_sample *out)
{
    /* up to the last interval sent, so the intervals sum to the phase */
    memset(&out->ms, 0, sizeof out->ms);
    out->proxy = c->px_total;
    if (!c->running) {
        memset(&out->host, 0, sizeof out->host);
        return;
    }
    host_fill(c, &c->ru_base, &c->ru_prev, c->rx_base, c->tx_base, c->rx_prev, c->tx_prev,
              &out->host);
    if (c->ms_path[0])
        mountstats_delta(c->ms_prev, c->ms_base, &out->ms);
    snprintf(out->ms.note, sizeof out->ms.note, "%s", c->note);
}

void client_sampler_rebase(struct client_sampler *c)
{
    if (!c->running)
        return;
    getrusage(RUSAGE_SELF, &c->ru_prev);
    c->ru_base = c->ru_prev;
    if (c->nic[0] && nicstat_read(c->nic, &c->rx_prev, &c->tx_prev) == 0) {
        c->rx_base = c->rx_prev;
        c->tx_base = c->tx_prev;
    }
    if (c->ms_path[0] && ms_read(c, c->ms_now) == 0) {
        *c->ms_prev = *c->ms_now;
        *c->ms_base = *c->ms_now;
    }
    if (c->proxy_pid && proxyproc_read(c->proc_root, c->proxy_pid, c->proxy_port, &c->px_prev) < 0)
        c->proxy_pid = 0;
    memset(&c->px_total, 0, sizeof c->px_total);
}

void client_sampler_stop(struct client_sampler *c)
{
    free(c->ms_base);
    free(c->ms_prev);
    free(c->ms_now);
    c->ms_base = c->ms_prev = c->ms_now = NULL;
    c->ms_path[0] = '\0';
    c->running = 0;
}
