/* proxyproc: see proxyproc.h.  Files are read a line at a time into a
 * fixed buffer, or whole up to a fixed bound (procfs_read): no allocation
 * sized by what the file says.  A look holds at most PROXYPROC_SOCKS_MAX
 * of the proxy's socket inodes. */
#include "agent/proxyproc.h"
#include "agent/procfs.h"
#include "agent/tcpdiag.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TCP_ESTABLISHED 1
#define TCP_LISTEN 10
#define LISTENERS_MAX 8

/* ---- which storage points at a loopback port ---- */

static int loopback_host(const char *h)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (strcmp(h, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, h, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, h, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return 0;
}

/* A port 1..65535 of digits only, ending at end. */
static int port_of(const char *s, const char *end, uint32_t *port)
{
    uint32_t v = 0;
    if (s >= end || end - s > 5)
        return -EINVAL;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        v = v * 10 + (uint32_t)(*s - '0');
    }
    if (v == 0 || v > 65535)
        return -EINVAL;
    *port = v;
    return 0;
}

/* The value of option key= in a ','- (or '&'-) separated list: its start
 * and end, or NULL. */
static const char *opt_value(const char *list, const char *key, char sep, const char **end)
{
    size_t kl = strlen(key);
    for (const char *o = list; o && *o;) {
        size_t len = strcspn(o, (char[]){ sep, '\0' });
        if (len > kl && strncmp(o, key, kl) == 0 && o[kl] == '=') {
            *end = o + len;
            return o + kl + 1;
        }
        o += len;
        if (*o == sep)
            o++;
    }
    return NULL;
}

/* Copy [s, e) into out (len bytes) when it fits: 0 or -EINVAL. */
static int copy_span(const char *s, const char *e, char *out, size_t len)
{
    if (!s || !e || e < s || (size_t)(e - s) >= len)
        return -EINVAL;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return 0;
}

int proxyproc_mount_port(const char *source, const char *options, uint32_t *port)
{
    char host[64];
    const char *v, *e;

    if ((v = opt_value(options, "addr", ',', &e)) != NULL) {
        if (copy_span(v, e, host, sizeof host) < 0)
            return -ENOENT;
    } else if (source[0] == '[') {
        if (copy_span(source + 1, strchr(source, ']'), host, sizeof host) < 0)
            return -ENOENT;
    } else if (copy_span(source, strchr(source, ':'), host, sizeof host) < 0) {
        return -ENOENT;
    }
    if (!loopback_host(host) || !(v = opt_value(options, "port", ',', &e)))
        return -ENOENT;
    return port_of(v, e, port) == 0 ? 0 : -ENOENT;
}

int proxyproc_mountstats_port(const char *text, const char *mount_point, uint32_t *port)
{
    char src[256] = "", mp[256], opts[1024];
    int in = 0, found = -ENOENT;

    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l);
        if (strncmp(l, "device ", 7) == 0) {
            const char *s = l + 7, *se = memchr(s, ' ', (size_t)(end - s));
            const char *on = se && end - se > 12 && strncmp(se, " mounted on ", 12) == 0 ? se + 12 : NULL;
            const char *w = NULL;
            for (const char *q = on; q && q + 13 <= end; q++)
                if (strncmp(q, " with fstype ", 13) == 0)
                    w = q;              /* the last: an escaped mount point holds no space */
            in = on && w && copy_span(s, se, src, sizeof src) == 0 &&
                 procfs_unescape(on, w, mp, sizeof mp) == 0 && strcmp(mp, mount_point) == 0;
        } else if (in && strncmp(l, "\topts:\t", 7) == 0) {
            uint32_t p;
            if (copy_span(l + 7, end, opts, sizeof opts) == 0)
                found = proxyproc_mount_port(src, opts, &p) == 0 ? (*port = p, 0) : -ENOENT;
            in = 0;
        }
        l = nl ? nl + 1 : NULL;
    }
    return found;
}

int proxyproc_mount_opt(const char *options, const char *key, char *out, size_t len)
{
    const char *e, *v = opt_value(options, key, ',', &e);
    return v && copy_span(v, e, out, len) == 0 ? 0 : -ENOENT;
}

const char *proxyproc_url_host(const char *url, char *host, size_t len)
{
    const char *p, *e;

    if (strncmp(url, "nfs://", 6) != 0)
        return NULL;
    p = url + 6;
    if (*p == '[') {
        e = strchr(++p, ']');
        return copy_span(p, e, host, len) < 0 ? NULL : e + 1;
    }
    e = p + strcspn(p, ":/?");
    return copy_span(p, e, host, len) < 0 ? NULL : e;
}

int proxyproc_url_port(const char *url, uint32_t *port)
{
    char host[64];
    const char *e, *q, *v, *ve;

    if (!(e = proxyproc_url_host(url, host, sizeof host)) || !loopback_host(host))
        return -ENOENT;
    q = strchr(e, '?');
    if (q && (v = opt_value(q + 1, "nfsport", '&', &ve)) != NULL)
        return port_of(v, ve, port) == 0 ? 0 : -ENOENT;
    if (*e == ':')                      /* nfs://127.0.0.1:20049/ */
        return port_of(e + 1, e + 1 + strcspn(e + 1, "/?"), port) == 0 ? 0 : -ENOENT;
    return -ENOENT;
}

/* ---- the parsers ---- */

/* n hex digits exactly at s into *v. */
static int hex_n(const char *s, size_t n, uint32_t *v)
{
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
              : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return -EINVAL;
        x = x << 4 | (uint32_t)d;
    }
    *v = x;
    return 0;
}

/* "ADDR:PORT" as the kernel prints it: ADDR 8 (v4) or 32 (v6) hex digits,
 * each 32-bit word in host order, PORT 4 hex digits. */
static int endpoint(const char *t, int v6, uint8_t *addr, uint32_t *port)
{
    size_t n = v6 ? 32 : 8;
    if (strlen(t) != n + 5 || t[n] != ':')
        return -EINVAL;
    memset(addr, 0, 16);
    for (size_t w = 0; w < n / 8; w++) {
        uint32_t word;
        if (hex_n(t + w * 8, 8, &word) < 0)
            return -EINVAL;
        memcpy(addr + w * 4, &word, 4);
    }
    return hex_n(t + n + 1, 4, port);
}

int proxyproc_tcp_line(const char *line, int v6, struct proxyproc_sock *out)
{
    char copy[PROXYPROC_LINE_MAX], *tok[12], *save = NULL, *end;
    int n = 0;
    uint32_t st;
    unsigned long long ino;

    if (strlen(line) >= sizeof copy)
        return -EINVAL;
    strcpy(copy, line);
    for (char *t = strtok_r(copy, " \t\n", &save); t && n < 12; t = strtok_r(NULL, " \t\n", &save))
        tok[n++] = t;
    /* sl: local remote st tx:rx tr:when retrnsmt uid timeout inode */
    if (n < 10 || tok[0][0] < '0' || tok[0][0] > '9' || tok[0][strlen(tok[0]) - 1] != ':')
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->v6 = v6;
    if (endpoint(tok[1], v6, out->local, &out->local_port) < 0 ||
        endpoint(tok[2], v6, out->remote, &out->remote_port) < 0 ||
        strlen(tok[3]) != 2 || hex_n(tok[3], 2, &st) < 0 || tok[9][0] < '0' || tok[9][0] > '9')
        return -EINVAL;
    errno = 0;
    ino = strtoull(tok[9], &end, 10);
    if (errno || *end)
        return -EINVAL;
    out->state = st;
    out->inode = ino;
    return 0;
}

int proxyproc_stat_parse(const char *text, char *name, size_t len, uint64_t *utime,
                         uint64_t *stime)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    const char *p;
    uint64_t v[13];
    size_t n;

    if (!open || !close || close < open || len == 0)
        return -EINVAL;
    n = (size_t)(close - open - 1);
    if (n >= len)
        n = len - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)open[1 + i];
        name[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    name[n] = '\0';
    /* after the name: state ppid pgrp session tty tpgid flags minflt
     * cminflt majflt cmajflt utime stime */
    p = close + 1;
    for (int i = 0; i < 13; i++) {
        char *e;
        while (*p == ' ')
            p++;
        if (i == 0) {                  /* the state letter */
            if (!*p || *p == ' ' || p[1] != ' ')
                return -EINVAL;
            p++;
            v[0] = 0;
            continue;
        }
        if (!((*p >= '0' && *p <= '9') || *p == '-'))
            return -EINVAL;
        errno = 0;
        v[i] = (uint64_t)strtoll(p, &e, 10);
        if (errno || e == p || (*e != ' ' && *e != '\n' && *e != '\0'))
            return -EINVAL;
        p = e;
    }
    if ((int64_t)v[11] < 0 || (int64_t)v[12] < 0)
        return -EINVAL;
    *utime = v[11];
    *stime = v[12];
    return 0;
}

void proxyproc_remote_text(const struct proxyproc_sock *s, char *out, size_t len)
{
    char a[INET6_ADDRSTRLEN] = "?";
    inet_ntop(s->v6 ? AF_INET6 : AF_INET, s->remote, a, sizeof a);
    if (s->v6)
        snprintf(out, len, "[%s]:%u", a, s->remote_port);
    else
        snprintf(out, len, "%s:%u", a, s->remote_port);
}

/* ---- the system ---- */

void proxyproc_root(char *out, size_t len)
{
    const char *t = getenv(PROXYPROC_TEST_ENV);
    snprintf(out, len, "%s", t && t[0] && strlen(t) < 200 ? t : "/proc");
}

typedef int (*sock_fn)(const struct proxyproc_sock *s, void *arg);

/* Each well-formed line of ROOT/net/tcp and tcp6 through fn (stops when it
 * returns non-zero).  Overlong lines are skipped whole. */
static void each_sock(const char *root, sock_fn fn, void *arg)
{
    for (int v6 = 0; v6 < 2; v6++) {
        char path[256], line[PROXYPROC_LINE_MAX];
        FILE *f;
        int skipping = 0;

        snprintf(path, sizeof path, "%s/net/tcp%s", root, v6 ? "6" : "");
        if (!(f = fopen(path, "r")))
            continue;
        while (fgets(line, sizeof line, f)) {
            struct proxyproc_sock s;
            int whole = strchr(line, '\n') != NULL || feof(f);
            if (skipping || !whole) {
                skipping = !whole;
                continue;
            }
            if (proxyproc_tcp_line(line, v6, &s) == 0 && fn(&s, arg)) {
                fclose(f);
                return;
            }
        }
        fclose(f);
    }
}

static int any_or_loopback(const struct proxyproc_sock *s)
{
    static const uint8_t zero[16];
    char a[INET6_ADDRSTRLEN];
    if (memcmp(s->local, zero, s->v6 ? 16 : 4) == 0)
        return 1;
    return inet_ntop(s->v6 ? AF_INET6 : AF_INET, s->local, a, sizeof a) && loopback_host(a);
}

struct listeners {
    uint32_t port, n;
    uint64_t inode[LISTENERS_MAX];
};

static int add_listener(const struct proxyproc_sock *s, void *arg)
{
    struct listeners *l = arg;
    if (s->state == TCP_LISTEN && s->local_port == l->port && s->inode && any_or_loopback(s) &&
        l->n < LISTENERS_MAX)
        l->inode[l->n++] = s->inode;
    return 0;
}

/* The inode of fd link target "socket:[N]", 0 when it is not a socket. */
static uint64_t socket_inode(const char *target)
{
    unsigned long long v;
    char tail;
    if (strncmp(target, "socket:[", 8) != 0 || sscanf(target + 8, "%llu%c", &v, &tail) != 2 ||
        tail != ']')
        return 0;
    return v;
}

static int numeric(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Call fn(inode, arg) for each socket fd of ROOT/PID; *budget readlinks
 * at most.  Stops, returning 1, when fn does. */
static int each_fd_socket(const char *root, const char *pid, uint32_t *budget,
                          int (*fn)(uint64_t inode, void *arg), void *arg)
{
    char dir[300], path[600], target[64];
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof dir, "%s/%s/fd", root, pid);
    if (!(d = opendir(dir)))
        return 0;
    while ((e = readdir(d)) != NULL && *budget > 0) {
        ssize_t n;
        uint64_t ino;
        if (!numeric(e->d_name))
            continue;
        (*budget)--;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if ((ino = socket_inode(target)) != 0 && fn(ino, arg)) {
            closedir(d);
            return 1;
        }
    }
    closedir(d);
    return 0;
}

static int is_listener(uint64_t inode, void *arg)
{
    const struct listeners *l = arg;
    for (uint32_t i = 0; i < l->n; i++)
        if (l->inode[i] == inode)
            return 1;
    return 0;
}

int proxyproc_find(const char *root, uint32_t port, uint32_t *pid)
{
    struct listeners l = { .port = port };
    uint32_t budget = PROXYPROC_SCAN_MAX;
    struct dirent *e;
    DIR *d;
    int rc = -ENOENT;

    each_sock(root, add_listener, &l);
    if (l.n == 0 || !(d = opendir(root)))
        return -ENOENT;
    while ((e = readdir(d)) != NULL && budget > 0) {
        unsigned long v;
        if (!numeric(e->d_name) || strlen(e->d_name) > 9)
            continue;
        v = strtoul(e->d_name, NULL, 10);
        if (v == (unsigned long)getpid() && !getenv(PROXYPROC_TEST_ENV))
            continue;                 /* not this agent's own sockets */
        if (each_fd_socket(root, e->d_name, &budget, is_listener, &l)) {
            *pid = (uint32_t)v;
            rc = 0;
            break;
        }
    }
    closedir(d);
    return rc;
}

struct owned {
    uint32_t n, port;
    int truncated;                    /* sockets left unread: the look is partial */
    uint64_t inode[PROXYPROC_SOCKS_MAX];
    struct proxyproc_now *now;
};

static int add_owned(uint64_t inode, void *arg)
{
    struct owned *o = arg;
    if (o->n < PROXYPROC_SOCKS_MAX)
        o->inode[o->n++] = inode;
    else
        o->truncated = 1;
    return 0;
}

/* A connection of the proxy to the file system: established, not one it
 * accepted on its port. */
static int add_conn(const struct proxyproc_sock *s, void *arg)
{
    struct owned *o = arg;
    struct proxyproc_now *now = o->now;
    char r[CLIENT_PROXY_HOST_MAX + 8];
    size_t have;

    if (s->state != TCP_ESTABLISHED || s->local_port == o->port)
        return 0;
    for (uint32_t i = 0;; i++) {
        if (i == o->n)
            return 0;
        if (o->inode[i] == s->inode)
            break;
    }
    now->conns++;
    if (now->nseen < PROXYPROC_SOCKS_MAX)
        now->seen_inode[now->nseen++] = s->inode;
    if (now->nconn < PROXYPROC_CONNS_MAX)
        now->conn_inode[now->nconn++] = s->inode;
    proxyproc_remote_text(s, r, sizeof r);
    if (!now->first_host[0]) {
        inet_ntop(s->v6 ? AF_INET6 : AF_INET, s->remote, now->first_host, sizeof now->first_host);
    }
    /* distinct addresses, whole ones only */
    have = strlen(now->remotes);
    for (const char *p = now->remotes; *p;) {
        size_t n = strcspn(p, " ");
        if (n == strlen(r) && strncmp(p, r, n) == 0)
            return 0;
        p += n + (p[n] == ' ');
    }
    if (have + (have ? 1 : 0) + strlen(r) < sizeof now->remotes)
        snprintf(now->remotes + have, sizeof now->remotes - have, "%s%s", have ? " " : "", r);
    return 0;
}

int proxyproc_read(const char *root, uint32_t pid, uint32_t port, struct proxyproc_now *out)
{
    char path[300], pids[16], *text;
    const char *state;
    uint64_t ut, st;
    long hz = sysconf(_SC_CLK_TCK);
    uint32_t budget = PROXYPROC_SOCKS_MAX * 16;
    struct owned *o;
    int rc;

    memset(out, 0, sizeof *out);
    if (hz <= 0)
        hz = 100;
    snprintf(path, sizeof path, "%s/%u/stat", root, pid);
    text = procfs_read(path, 1023);
    /* a proxy that exited but was not reaped yet keeps its stat (state Z,
     * no fds): it is gone, and its successor on the port is to be found */
    rc = !text || proxyproc_stat_parse(text, out->name, sizeof out->name, &ut, &st) < 0 ||
         ((state = strrchr(text, ')')) != NULL && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X'));
    free(text);
    if (rc)
        return -ESRCH;
    out->utime_us = ut * (1000000u / (uint64_t)hz);
    out->stime_us = st * (1000000u / (uint64_t)hz);
    o = calloc(1, sizeof *o);
    if (!o)
        return -ENOMEM;
    o->port = port;
    o->now = out;
    snprintf(pids, sizeof pids, "%u", pid);
    each_fd_socket(root, pids, &budget, add_owned, o);
    if (o->n)
        each_sock(root, add_conn, o);
    out->partial = o->truncated || budget == 0;
    free(o);
    if (out->nconn && !getenv(PROXYPROC_TEST_ENV)) {
        uint8_t found[PROXYPROC_CONNS_MAX];
        uint32_t k = 0;
        if (tcpdiag_bytes(out->conn_inode, out->nconn, out->conn_rx, out->conn_tx, found) < 0)
            out->nconn = 0;          /* no byte counts: none claimed */
        /* one the kernel did not answer for (closed meanwhile) is not
         * followed: a 0 here would make its whole life the next interval's */
        for (uint32_t i = 0; i < out->nconn; i++)
            if (found[i]) {
                out->conn_inode[k] = out->conn_inode[i];
                out->conn_rx[k] = out->conn_rx[i];
                out->conn_tx[k] = out->conn_tx[i];
                k++;
            }
        out->nconn = k;
    }
    return 0;
}

void proxyproc_bytes_delta(const struct proxyproc_now *now, const struct proxyproc_now *then,
                           uint64_t *rx, uint64_t *tx)
{
    *rx = *tx = 0;
    for (uint32_t i = 0; i < now->nconn && i < PROXYPROC_CONNS_MAX; i++) {
        uint64_t r0 = 0, t0 = 0;
        int followed = 0, seen = 0;
        for (uint32_t j = 0; j < then->nconn && j < PROXYPROC_CONNS_MAX; j++)
            if (then->conn_inode[j] == now->conn_inode[i]) {
                r0 = then->conn_rx[j];
                t0 = then->conn_tx[j];
                followed = 1;
                break;
            }
        for (uint32_t j = 0; !followed && j < then->nseen && j < PROXYPROC_SOCKS_MAX; j++)
            seen |= then->seen_inode[j] == now->conn_inode[i];
        if (!followed && (seen || then->partial))
            continue;                 /* open then, not counted then: from now on */
        *rx += now->conn_rx[i] >= r0 ? now->conn_rx[i] - r0 : now->conn_rx[i];
        *tx += now->conn_tx[i] >= t0 ? now->conn_tx[i] - t0 : now->conn_tx[i];
    }
}
