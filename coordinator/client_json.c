/* client_json: see client_json.h. */
#include "coordinator/client_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"

/* Per-op counters in the order nfsiostat and the kernel give them. */
static const struct {
    const char *key;
    size_t off;
} op_keys[] = {
    { "ops", offsetof(struct ms_op, ops) },
    { "ntrans", offsetof(struct ms_op, ntrans) },
    { "timeouts", offsetof(struct ms_op, timeouts) },
    { "bytes_sent", offsetof(struct ms_op, bytes_sent) },
    { "bytes_recv", offsetof(struct ms_op, bytes_recv) },
    { "queue_ms", offsetof(struct ms_op, queue_ms) },
    { "rtt_ms", offsetof(struct ms_op, rtt_ms) },
    { "execute_ms", offsetof(struct ms_op, execute_ms) },
    { "errors", offsetof(struct ms_op, errors) },
}, xprt_keys[] = {
    { "connects", offsetof(struct ms_xprt, connects) },
    { "sends", offsetof(struct ms_xprt, sends) },
    { "recvs", offsetof(struct ms_xprt, recvs) },
    { "bad_xids", offsetof(struct ms_xprt, bad_xids) },
    { "req_u", offsetof(struct ms_xprt, req_u) },
    { "backlog_u", offsetof(struct ms_xprt, backlog_u) },
};
#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

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

void client_json_put_iv(json_t *obj, const struct client_iv *iv, const char *mount, double span_s)
{
    if (!iv)
        return;
    if (iv->host.present)
        set(obj, "host", client_json_host(&iv->host, span_s));
    if (iv->ms)
        set(obj, "mountstats", client_json_ms(iv->ms, mount, NULL));
}

/* ---- parsing ---- */

static int u64_at(const json_t *o, const char *key, uint64_t max, uint64_t *v, char *why,
                  size_t len)
{
    const json_t *j = json_object_get(o, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max) {
        snprintf(why, len, "'%s' is not an integer in 0..%llu", key, (unsigned long long)max);
        return -EINVAL;
    }
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

static int real_at(const json_t *o, const char *key, double *v, char *why, size_t len)
{
    const json_t *j = json_object_get(o, key);
    double d = json_is_real(j) ? json_real_value(j) : json_is_integer(j) ? (double)json_integer_value(j) : -1;
    if (!isfinite(d) || d < 0) {
        snprintf(why, len, "'%s' is not a number >= 0", key);
        return -EINVAL;
    }
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
    snprintf(why, len, "'%s' is not a %s of at most %zu bytes", key, word ? "name" : "string", size - 1);
    return -EINVAL;
}

static int parse_host(const json_t *o, struct host_sample *h, char *why, size_t len)
{
    const json_t *nic = json_object_get(o, "nic");
    uint64_t v;

    if (!json_is_object(o) || !json_is_object(nic)) {
        snprintf(why, len, "'host' or 'host.nic' is not an object");
        return -EINVAL;
    }
    if (real_at(o, "cpu_user_s", &h->cpu_user_s, why, len) ||
        real_at(o, "cpu_sys_s", &h->cpu_sys_s, why, len) ||
        u64_at(o, "cores", UINT32_MAX, &v, why, len))
        return -EINVAL;
    h->cores = (uint32_t)v;
    if (u64_at(o, "threads", UINT32_MAX, &v, why, len))
        return -EINVAL;
    h->threads = (uint32_t)v;
    if (str_at(nic, "name", h->nic, sizeof h->nic, 1, why, len) ||
        u64_at(nic, "rx_bytes", INT64_MAX, &h->rx_bytes, why, len) ||
        u64_at(nic, "tx_bytes", INT64_MAX, &h->tx_bytes, why, len) ||
        u64_at(nic, "speed_mbps", UINT32_MAX, &v, why, len))
        return -EINVAL;
    h->speed_mbps = (uint32_t)v;
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
    if (!json_is_object(x) || !json_is_object(per) || json_object_size(per) > MS_OPS_MAX) {
        snprintf(why, len, "'mountstats' needs 'xprt' and 'per_op' objects (at most %u ops)", MS_OPS_MAX);
        return -EINVAL;
    }
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

int client_json_parse(const json_t *obj, struct client_sample *out, char *why, size_t len)
{
    const json_t *h = json_object_get(obj, "host"), *m = json_object_get(obj, "mountstats");

    memset(out, 0, sizeof *out);
    if (h && parse_host(h, &out->host, why, len))
        return -EINVAL;
    if (m && parse_ms(m, &out->ms, why, len))
        return -EINVAL;
    return 0;
}

/* ---- the result's interval columns ---- */

/* Per-agent host fields of the columns: what each holds and how it is read. */
enum col_kind { COL_REAL, COL_U32, COL_U64, COL_NIC };
static const struct {
    const char *key;
    enum col_kind kind;
    size_t off;
} host_cols[] = {
    { "cpu_user_s", COL_REAL, offsetof(struct host_sample, cpu_user_s) },
    { "cpu_sys_s", COL_REAL, offsetof(struct host_sample, cpu_sys_s) },
    { "cores", COL_U32, offsetof(struct host_sample, cores) },
    { "threads", COL_U32, offsetof(struct host_sample, threads) },
    { "nic", COL_NIC, offsetof(struct host_sample, nic) },
    { "rx_bytes", COL_U64, offsetof(struct host_sample, rx_bytes) },
    { "tx_bytes", COL_U64, offsetof(struct host_sample, tx_bytes) },
    { "speed_mbps", COL_U32, offsetof(struct host_sample, speed_mbps) },
};

static json_t *host_cell(const struct host_sample *h, size_t c)
{
    const char *p = (const char *)h + host_cols[c].off;
    switch (host_cols[c].kind) {
    case COL_REAL: return json_real(*(const double *)(const void *)p);
    case COL_U32: return jint(*(const uint32_t *)(const void *)p);
    case COL_U64: return jint(*(const uint64_t *)(const void *)p);
    case COL_NIC: return json_string(p);
    }
    return NULL;
}

json_t *client_json_interval(const struct run_result *r, uint32_t phase, uint32_t k)
{
    static const struct host_sample none;
    json_t *o, *ms = NULL, *sent = NULL;
    int any = 0, all = 1, anyms = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_iv *iv = client_result_iv(r, phase, a, k);
        any |= iv != NULL;
        all &= iv && iv->host.present;
        anyms |= iv && iv->ms;
    }
    if (!any)
        return NULL;
    o = json_object();
    for (size_t c = 0; c < NKEYS(host_cols); c++) {
        json_t *col = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            json_array_append_new(col, host_cell(iv && iv->host.present ? &iv->host : &none, c));
        }
        set(o, host_cols[c].key, col);
    }
    if (!all) {
        sent = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            json_array_append_new(sent, jint(iv && iv->host.present));
        }
        set(o, "sent", sent);
    }
    if (anyms) {
        ms = json_array();
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            const struct client_agent *ca = client_result_agent(r, phase, a);
            json_array_append_new(ms, iv && iv->ms ? client_json_ms(iv->ms, ca->mount, NULL) : json_null());
        }
        set(o, "mountstats", ms);
    }
    return o;
}

int client_json_load_interval(const json_t *col, struct run_result *r, uint32_t phase, uint32_t k,
                              char *why, size_t len)
{
    const json_t *sent = json_object_get(col, "sent"), *ms = json_object_get(col, "mountstats");
    struct client_sample *s;
    int rc = 0;

    if (!json_is_object(col) || (sent && (!json_is_array(sent) || json_array_size(sent) != r->nagents)) ||
        (ms && (!json_is_array(ms) || json_array_size(ms) != r->nagents))) {
        snprintf(why, len, "'client' is not an object of %u-agent columns", r->nagents);
        return -EINVAL;
    }
    for (size_t c = 0; c < NKEYS(host_cols); c++) {
        const json_t *a = json_object_get(col, host_cols[c].key);
        if (!json_is_array(a) || json_array_size(a) != r->nagents) {
            snprintf(why, len, "'client.%s' is not an array of %u values", host_cols[c].key, r->nagents);
            return -EINVAL;
        }
    }
    s = xmalloc(sizeof *s);
    for (uint32_t a = 0; a < r->nagents && rc == 0; a++) {
        json_t *cell = json_object();
        const json_t *m = ms ? json_array_get(ms, a) : NULL;
        const json_t *sa = sent ? json_array_get(sent, a) : NULL;
        int has_host = !sent || (json_is_integer(sa) && json_integer_value(sa) == 1);

        if (sent && !(json_is_integer(sa) && (json_integer_value(sa) == 0 || json_integer_value(sa) == 1))) {
            snprintf(why, len, "'client.sent' holds a value other than 0 or 1");
            rc = -EINVAL;
        }
        if (rc == 0 && has_host) {
            json_t *h = json_object(), *nic = json_object();
            for (size_t c = 0; c < NKEYS(host_cols); c++) {
                json_t *v = json_array_get(json_object_get(col, host_cols[c].key), a);
                json_object_set(strcmp(host_cols[c].key, "cpu_user_s") && strcmp(host_cols[c].key, "cpu_sys_s") &&
                                strcmp(host_cols[c].key, "cores") && strcmp(host_cols[c].key, "threads") ? nic : h,
                                host_cols[c].kind == COL_NIC ? "name" : host_cols[c].key, v);
            }
            json_object_set_new(h, "nic", nic);
            json_object_set_new(cell, "host", h);
        }
        if (rc == 0 && m && !json_is_null(m))
            json_object_set(cell, "mountstats", (json_t *)m);
        if (rc == 0)
            rc = client_json_parse(cell, s, why, len);
        if (rc == 0)
            rc = client_result_add_interval(r, phase, a, k, s);
        json_decref(cell);
    }
    free(s);
    return rc < 0 ? -EINVAL : 0;
}
