/* client_json: see client_json.h. */
#include "coordinator/report/client_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/why.h"
#include "common/xmalloc.h"
#include "coordinator/report/jint.h"

/* Per-op counters in the order nfsiostat and the kernel give them. */
struct key_off {
    const char *key;
    size_t off;
};
#define OP_KEY(f) { #f, offsetof(struct ms_op, f) }
#define XPRT_KEY(f) { #f, offsetof(struct ms_xprt, f) }
static const struct key_off op_keys[] = {
    OP_KEY(ops), OP_KEY(ntrans), OP_KEY(timeouts), OP_KEY(bytes_sent), OP_KEY(bytes_recv),
    OP_KEY(queue_ms), OP_KEY(rtt_ms), OP_KEY(execute_ms), OP_KEY(errors),
}, xprt_keys[] = {
    XPRT_KEY(connects), XPRT_KEY(sends), XPRT_KEY(recvs), XPRT_KEY(bad_xids), XPRT_KEY(req_u), XPRT_KEY(backlog_u),
};
#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

static void set(json_t *o, const char *key, json_t *v)
{
    if (o && v)
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

json_t *client_json_host(const struct host_sample *h, double span_s)
{
    json_t *o = json_object(), *nic = json_object();
    double busy = h->cpu_user_s + h->cpu_sys_s;

    set(o, "cpu_user_s", json_real(h->cpu_user_s));
    set(o, "cpu_sys_s", json_real(h->cpu_sys_s));
    set(o, "cpu_util", json_real(h->cores && span_s > 0 ? busy / span_s / h->cores : 0.0));
    set(o, "cores", jint(h->cores));
    set(o, "threads", jint(h->threads));
    set(nic, "name", json_string(h->nic));
    set(nic, "rx_bytes", jint(h->rx_bytes));
    set(nic, "tx_bytes", jint(h->tx_bytes));
    set(nic, "speed_mbps", jint(h->speed_mbps));
    set(nic, "route", json_boolean(h->nic_route));
    set(o, "nic", nic);
    return o;
}

json_t *client_json_ms(const struct ms_store *st, const char *mount, const char *note)
{
    json_t *o = json_object(), *x, *per;

    set(o, "mount", json_string(mount));
    if (note && note[0])
        set(o, "note", json_string(note));
    if (!st)
        return o;
    x = json_object();
    for (size_t i = 0; i < NKEYS(xprt_keys); i++)
        set(x, xprt_keys[i].key, jint(*(const uint64_t *)((const char *)&st->xprt + xprt_keys[i].off)));
    set(o, "xprt", x);
    per = json_object();
    for (uint32_t n = 0; n < st->nops; n++) {
        json_t *op = json_object();
        for (size_t i = 0; i < NKEYS(op_keys); i++)
            set(op, op_keys[i].key, jint(*(const uint64_t *)((const char *)&st->op[n] + op_keys[i].off)));
        set(per, st->op[n].name, op);
    }
    set(o, "per_op", per);
    return o;
}

json_t *client_json_proxy(const struct proxy_sample *p)
{
    json_t *o = json_object(), *rem = json_array();
    char one[CLIENT_PROXY_REMOTES_MAX];

    set(o, "pid", jint(p->pid));
    set(o, "name", json_string(p->name));
    set(o, "port", jint(p->port));
    set(o, "cpu_user_us", jint(p->cpu_user_us));
    set(o, "cpu_sys_us", jint(p->cpu_sys_us));
    set(o, "connections", jint(p->conns));
    for (const char *s = p->remotes; *s;) {
        size_t n = strcspn(s, " ");
        if (n) {
            snprintf(one, sizeof one, "%.*s", (int)n, s);
            json_array_append_new(rem, json_string(one));
        }
        s += n + (s[n] == ' ');
    }
    set(o, "remotes", rem);
    set(o, "rx_bytes", jint(p->rx_bytes));
    set(o, "tx_bytes", jint(p->tx_bytes));
    if (p->route_host[0])
        set(o, "route_host", json_string(p->route_host));
    return o;
}

/* An interval's CPU as one number: user + sys in microseconds, getrusage's
 * own unit, so it prints short and reads back exactly. */
static uint64_t cpu_us(const struct host_sample *h)
{
    double v = (h->cpu_user_s + h->cpu_sys_s) * 1e6;
    return v <= 0 ? 0 : (uint64_t)llround(v);
}

static json_t *iv_host_json(const struct host_sample *h, int with_static)
{
    json_t *o = json_object();
    set(o, "cpu_us", jint(cpu_us(h)));
    set(o, "rx_bytes", jint(h->rx_bytes));
    set(o, "tx_bytes", jint(h->tx_bytes));
    if (with_static) {
        set(o, "cores", jint(h->cores));
        set(o, "threads", jint(h->threads));
        set(o, "nic", json_string(h->nic));
        set(o, "speed_mbps", jint(h->speed_mbps));
    }
    return o;
}

void client_json_put_iv(json_t *obj, const struct client_iv *iv, const char *mount, int with_static)
{
    if (!iv)
        return;
    if (iv->host.present)
        set(obj, "host", iv_host_json(&iv->host, with_static));
    if (iv->ms)
        set(obj, "mountstats", client_json_ms(iv->ms, mount, NULL));
    if (iv->proxy)
        set(obj, "proxy", client_json_proxy(iv->proxy));
}

void client_json_put_iv_compact(json_t *obj, const struct client_iv *iv, const char *mount)
{
    if (!iv)
        return;
    if (iv->host.present) {
        set(obj, "h", json_pack("[III]", (json_int_t)cpu_us(&iv->host), (json_int_t)iv->host.rx_bytes,
                                (json_int_t)iv->host.tx_bytes));
        if (iv->static_new)
            set(obj, "hs", json_pack("{sIsIsssI}", "cores", (json_int_t)iv->host.cores, "threads",
                                     (json_int_t)iv->host.threads, "nic", iv->host.nic, "speed_mbps",
                                     (json_int_t)iv->host.speed_mbps));
    }
    if (iv->ms)
        set(obj, "mountstats", client_json_ms(iv->ms, mount, NULL));
    if (iv->proxy)
        set(obj, "proxy", client_json_proxy(iv->proxy));
}

/* ---- parsing ---- */

static int u64_at(const json_t *o, const char *key, uint64_t max, uint64_t *v, char *why,
                  size_t len)
{
    if (jcount(json_object_get(o, key), max, v) == 0)
        return 0;
    return why_fail(why, len, "'%s' is not an integer in 0..%llu", key, (unsigned long long)max);
}

static int u32_at(const json_t *o, const char *key, uint64_t max, uint32_t *v, char *why, size_t len)
{
    uint64_t x;

    if (u64_at(o, key, max, &x, why, len))
        return -EINVAL;
    *v = (uint32_t)x;
    return 0;
}

static int real_at(const json_t *o, const char *key, double *v, char *why, size_t len)
{
    const json_t *j = json_object_get(o, key);
    double d = json_is_real(j) ? json_real_value(j) : json_is_integer(j) ? (double)json_integer_value(j) : -1;
    if (!isfinite(d) || d < 0)
        return why_fail(why, len, "'%s' is not a number >= 0", key);
    *v = d;
    return 0;
}

/* A printable string of fewer than size bytes (word: [A-Za-z0-9_.:-] only). */
static int str_at(const json_t *o, const char *key, char *dst, size_t size, int word, char *why,
                  size_t len)
{
    const json_t *j = json_object_get(o, key);
    const char *s = json_string_value(j);
    size_t n = s ? json_string_length(j) : 0;

    if (!s || n >= size || strlen(s) != n)
        goto bad;
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (u < 0x20 || u == 0x7f)
            goto bad;
        if (word && !((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') ||
                      u == '_' || u == '.' || u == ':' || u == '-'))
            goto bad;
    }
    memcpy(dst, s, n + 1);
    return 0;
bad:
    return why_fail(why, len, "'%s' is not a %s of at most %zu bytes", key, word ? "name" : "string", size - 1);
}

static int parse_host(const json_t *o, struct host_sample *h, char *why, size_t len)
{
    const json_t *nic = json_object_get(o, "nic");

    if (!json_is_object(o) || !json_is_object(nic))
        return why_fail(why, len, "'host' or 'host.nic' is not an object");
    if (real_at(o, "cpu_user_s", &h->cpu_user_s, why, len) ||
        real_at(o, "cpu_sys_s", &h->cpu_sys_s, why, len) ||
        u32_at(o, "cores", UINT32_MAX, &h->cores, why, len) ||
        u32_at(o, "threads", UINT32_MAX, &h->threads, why, len) ||
        str_at(nic, "name", h->nic, sizeof h->nic, 1, why, len) ||
        u64_at(nic, "rx_bytes", INT64_MAX, &h->rx_bytes, why, len) ||
        u64_at(nic, "tx_bytes", INT64_MAX, &h->tx_bytes, why, len) ||
        u32_at(nic, "speed_mbps", UINT32_MAX, &h->speed_mbps, why, len))
        return -EINVAL;
    /* optional: results written before the route was told */
    h->nic_route = json_is_true(json_object_get(nic, "route"));
    h->present = 1;
    return 0;
}

static int parse_ms(const json_t *o, struct ms_sample *m, char *why, size_t len)
{
    const json_t *x, *per, *op;
    const char *name;

    if (!json_is_object(o) || str_at(o, "mount", m->mount, sizeof m->mount, 0, why, len))
        return -EINVAL;
    if (json_object_get(o, "note") && str_at(o, "note", m->note, sizeof m->note, 0, why, len))
        return -EINVAL;
    x = json_object_get(o, "xprt");
    per = json_object_get(o, "per_op");
    if (!x && !per)
        return 0;                          /* a note alone */
    if (!json_is_object(x) || !json_is_object(per) || json_object_size(per) > MS_OPS_MAX)
        return why_fail(why, len, "'mountstats' needs 'xprt' and 'per_op' objects (at most %u ops)", MS_OPS_MAX);
    for (size_t i = 0; i < NKEYS(xprt_keys); i++)
        if (u64_at(x, xprt_keys[i].key, INT64_MAX, (uint64_t *)((char *)&m->xprt + xprt_keys[i].off), why, len))
            return -EINVAL;
    json_object_foreach((json_t *)per, name, op) {
        struct ms_op *d = &m->op[m->nops];
        json_t *holder = json_pack("{ss}", "name", name);
        int rc = holder ? str_at(holder, "name", d->name, sizeof d->name, 1, why, len) : -EINVAL;
        json_decref(holder);
        if (rc || !json_is_object(op) || !d->name[0]) {
            if (!rc)
                snprintf(why, len, "'per_op.%.24s' is not an object", name);
            return -EINVAL;
        }
        for (size_t i = 0; i < NKEYS(op_keys); i++)
            if (u64_at(op, op_keys[i].key, INT64_MAX, (uint64_t *)((char *)d + op_keys[i].off), why, len))
                return -EINVAL;
        m->nops++;
    }
    m->present = 1;
    return 0;
}

static int parse_proxy(const json_t *o, struct proxy_sample *p, char *why, size_t len)
{
    const json_t *rem = json_object_get(o, "remotes"), *e;
    size_t i, have = 0;

    if (!json_is_object(o) || !json_is_array(rem))
        return why_fail(why, len, "'proxy' is not an object with a 'remotes' array");
    if (u32_at(o, "pid", UINT32_MAX, &p->pid, why, len) ||
        str_at(o, "name", p->name, sizeof p->name, 0, why, len) ||
        u32_at(o, "port", 65535, &p->port, why, len) ||
        u64_at(o, "cpu_user_us", INT64_MAX, &p->cpu_user_us, why, len) ||
        u64_at(o, "cpu_sys_us", INT64_MAX, &p->cpu_sys_us, why, len) ||
        u32_at(o, "connections", UINT32_MAX, &p->conns, why, len) ||
        u64_at(o, "rx_bytes", INT64_MAX, &p->rx_bytes, why, len) ||
        u64_at(o, "tx_bytes", INT64_MAX, &p->tx_bytes, why, len))
        return -EINVAL;
    if (json_object_get(o, "route_host") &&
        str_at(o, "route_host", p->route_host, sizeof p->route_host, 0, why, len))
        return -EINVAL;
    json_array_foreach(rem, i, e) {
        const char *s = json_string_value(e);
        size_t n = s ? strlen(s) : 0;
        if (!s || !n || n != json_string_length(e) || strchr(s, ' ') ||
            have + (have ? 1 : 0) + n >= sizeof p->remotes) {
            return why_fail(why, len, "'proxy.remotes' holds a value that is not an address, or too many");
        }
        for (const char *c = s; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
                return why_fail(why, len, "'proxy.remotes' holds a control byte");
        snprintf(p->remotes + have, sizeof p->remotes - have, "%s%s", have ? " " : "", s);
        have = strlen(p->remotes);
    }
    p->present = 1;
    return 0;
}

/* What every form has after its host: "mountstats" and "proxy". */
static int parse_ms_proxy(const json_t *obj, struct client_sample *out, char *why, size_t len)
{
    const json_t *m = json_object_get(obj, "mountstats"), *px = json_object_get(obj, "proxy");

    if (m && parse_ms(m, &out->ms, why, len))
        return -EINVAL;
    if (px && parse_proxy(px, &out->proxy, why, len))
        return -EINVAL;
    return 0;
}

int client_json_parse(const json_t *obj, struct client_sample *out, char *why, size_t len)
{
    const json_t *h = json_object_get(obj, "host");

    memset(out, 0, sizeof *out);
    if (h && parse_host(h, &out->host, why, len))
        return -EINVAL;
    return parse_ms_proxy(obj, out, why, len);
}

/* An interval's host (iv_host_json's form). */
static int parse_iv_host(const json_t *o, struct host_sample *h, int *has_static, char *why, size_t len)
{
    uint64_t us;

    if (!json_is_object(o))
        return why_fail(why, len, "'host' is not an object");
    if (u64_at(o, "cpu_us", 1ull << 53, &us, why, len) ||
        u64_at(o, "rx_bytes", INT64_MAX, &h->rx_bytes, why, len) ||
        u64_at(o, "tx_bytes", INT64_MAX, &h->tx_bytes, why, len))
        return -EINVAL;
    h->cpu_user_s = (double)us / 1e6;
    h->cpu_sys_s = 0;
    *has_static = json_object_get(o, "cores") != NULL;
    if (*has_static && (u32_at(o, "cores", UINT32_MAX, &h->cores, why, len) ||
                        u32_at(o, "threads", UINT32_MAX, &h->threads, why, len) ||
                        str_at(o, "nic", h->nic, sizeof h->nic, 1, why, len) ||
                        u32_at(o, "speed_mbps", UINT32_MAX, &h->speed_mbps, why, len)))
        return -EINVAL;
    h->present = 1;
    return 0;
}

int client_json_parse_iv(const json_t *obj, struct client_sample *out, int *has_static, char *why,
                         size_t len)
{
    const json_t *h = json_object_get(obj, "host");

    memset(out, 0, sizeof *out);
    *has_static = 0;
    if (h && parse_iv_host(h, &out->host, has_static, why, len))
        return -EINVAL;
    return parse_ms_proxy(obj, out, why, len);
}

int client_json_parse_iv_compact(const json_t *obj, struct client_sample *out, int *has_static,
                                 char *why, size_t len)
{
    const json_t *h = json_object_get(obj, "h"), *hs = json_object_get(obj, "hs");
    json_t *host;
    int rc = 0;

    memset(out, 0, sizeof *out);
    *has_static = 0;
    if (h) {
        if (!json_is_array(h) || json_array_size(h) != 3 || (hs && !json_is_object(hs)))
            return why_fail(why, len, "'client.h' is not [cpu_us, rx_bytes, tx_bytes]");
        host = hs ? json_deep_copy(hs) : json_object();
        json_object_set(host, "cpu_us", json_array_get(h, 0));
        json_object_set(host, "rx_bytes", json_array_get(h, 1));
        json_object_set(host, "tx_bytes", json_array_get(h, 2));
        rc = parse_iv_host(host, &out->host, has_static, why, len);
        json_decref(host);
        if (rc)
            return -EINVAL;
    }
    return parse_ms_proxy(obj, out, why, len);
}

/* ---- the result's interval columns ---- */

/* The columns: always the changing figures, the statics only in an
 * interval where some agent's changed (its first, mostly). */
static const char *const var_cols[] = { "cpu_us", "rx_bytes", "tx_bytes" };
static const char *const static_cols[] = { "cores", "threads", "nic", "speed_mbps" };

json_t *client_json_interval(const struct run_result *r, uint32_t phase, uint32_t k)
{
    static const struct client_iv none;
    json_t *o, **cells;
    int any = 0, all = 1, anyms = 0, anystatic = 0, anypx = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_iv *iv = client_result_iv(r, phase, a, k);
        any |= iv != NULL;
        all &= iv && iv->host.present;
        anyms |= iv && iv->ms;
        anypx |= iv && iv->proxy;
        anystatic |= iv && iv->host.present && iv->static_new;
    }
    if (!any)
        return NULL;
    cells = xcalloc(r->nagents ? r->nagents : 1, sizeof *cells);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_iv *iv = client_result_iv(r, phase, a, k);
        cells[a] = iv_host_json(iv && iv->host.present ? &iv->host : &none.host, anystatic);
    }
    o = json_object();
    for (size_t c = 0; c < NKEYS(var_cols) + (anystatic ? NKEYS(static_cols) : 0); c++) {
        const char *key = c < NKEYS(var_cols) ? var_cols[c] : static_cols[c - NKEYS(var_cols)];
        json_t *col = json_array();
        for (uint32_t a = 0; a < r->nagents; a++)
            json_array_append(col, json_object_get(cells[a], key));
        set(o, key, col);
    }
    for (uint32_t a = 0; a < r->nagents; a++)
        json_decref(cells[a]);
    free(cells);
    if (!all) {
        json_t *sent = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            json_array_append_new(sent, jint(iv && iv->host.present));
        }
        set(o, "sent", sent);
    }
    if (anyms) {
        json_t *ms = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            const struct client_agent *ca = client_result_agent(r, phase, a);
            json_array_append_new(ms, iv && iv->ms ? client_json_ms(iv->ms, ca->mount, NULL) : json_null());
        }
        set(o, "mountstats", ms);
    }
    if (anypx) {
        json_t *px = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            json_array_append_new(px, iv && iv->proxy ? client_json_proxy(iv->proxy) : json_null());
        }
        set(o, "proxy", px);
    }
    return o;
}

static int column_ok(const json_t *col, const char *key, uint32_t n, int need, char *why, size_t len)
{
    const json_t *a = json_object_get(col, key);
    if ((!a && !need) || (json_is_array(a) && json_array_size(a) == n))
        return 0;
    return why_fail(why, len, "'client.%s' is not an array of %u values", key, n);
}

int client_json_load_interval(const json_t *col, struct run_result *r, uint32_t phase, uint32_t k,
                              char *why, size_t len)
{
    const json_t *sent = json_object_get(col, "sent"), *ms = json_object_get(col, "mountstats");
    const json_t *pxc = json_object_get(col, "proxy");
    int statics = json_is_object(col) && json_object_get(col, "cores") != NULL, rc = 0;
    struct client_sample *s;

    if (!json_is_object(col) || column_ok(col, "sent", r->nagents, 0, why, len) ||
        column_ok(col, "mountstats", r->nagents, 0, why, len) ||
        column_ok(col, "proxy", r->nagents, 0, why, len)) {
        if (!json_is_object(col))
            snprintf(why, len, "'client' is not an object of columns");
        return -EINVAL;
    }
    for (size_t c = 0; c < NKEYS(var_cols); c++)
        if (column_ok(col, var_cols[c], r->nagents, 1, why, len))
            return -EINVAL;
    for (size_t c = 0; statics && c < NKEYS(static_cols); c++)
        if (column_ok(col, static_cols[c], r->nagents, 1, why, len))
            return -EINVAL;
    s = xmalloc(sizeof *s);
    for (uint32_t a = 0; a < r->nagents && rc == 0; a++) {
        json_t *cell = json_object();
        const json_t *m = ms ? json_array_get(ms, a) : NULL;
        const json_t *px = pxc ? json_array_get(pxc, a) : NULL;
        const json_t *sa = sent ? json_array_get(sent, a) : NULL;
        int has_static = 0;

        if (sent && !(json_is_integer(sa) && (json_integer_value(sa) == 0 || json_integer_value(sa) == 1))) {
            snprintf(why, len, "'client.sent' holds a value other than 0 or 1");
            rc = -EINVAL;
        }
        if (rc == 0 && (!sent || json_integer_value(sa) == 1)) {
            json_t *h = json_object();
            for (size_t c = 0; c < NKEYS(var_cols); c++)
                json_object_set(h, var_cols[c], json_array_get(json_object_get(col, var_cols[c]), a));
            for (size_t c = 0; statics && c < NKEYS(static_cols); c++)
                json_object_set(h, static_cols[c], json_array_get(json_object_get(col, static_cols[c]), a));
            json_object_set_new(cell, "host", h);
        }
        if (rc == 0 && m && !json_is_null(m))
            json_object_set(cell, "mountstats", (json_t *)m);
        if (rc == 0 && px && !json_is_null(px))
            json_object_set(cell, "proxy", (json_t *)px);
        if (rc == 0)
            rc = client_json_parse_iv(cell, s, &has_static, why, len);
        if (rc == 0 && s->host.present && !has_static)
            client_result_inherit_static(r, phase, a, &s->host);
        if (rc == 0)
            rc = client_result_add_interval(r, phase, a, k, s);
        json_decref(cell);
    }
    free(s);
    return rc < 0 ? -EINVAL : 0;
}
