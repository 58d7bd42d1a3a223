/* nfs_json: the JSON form of an nfs_rpc_set, written and read back. */
#include "coordinator/nfs_json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/hist_json.h"

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

static json_t *rtt_json(const struct hist *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "min", jint(h->count ? h->min_ns : 0));
    json_object_set_new(o, "mean", json_real(hist_mean(h)));
    json_object_set_new(o, "p50", jint(hist_percentile(h, 50.0)));
    json_object_set_new(o, "p90", jint(hist_percentile(h, 90.0)));
    json_object_set_new(o, "p99", jint(hist_percentile(h, 99.0)));
    json_object_set_new(o, "p999", jint(hist_percentile(h, 99.9)));
    json_object_set_new(o, "max", jint(h->count ? h->max_ns : 0));
    json_object_set_new(o, "hist", hist_json_encode(h));
    return o;
}

json_t *nfs_json_encode(const struct nfs_rpc_set *s)
{
    json_t *o = json_object(), *rpc = json_object();
    char name[48];

    json_object_set_new(o, "retransmits", jint(s->retransmits));
    json_object_set_new(o, "timeouts", jint(s->timeouts));
    json_object_set_new(o, "reconnects", jint(s->reconnects));
    uint64_t expected, failed = nfs_rpc_set_failed(s, &expected);
    json_object_set_new(o, "failed", jint(failed));
    json_object_set_new(o, "expected_errors", jint(expected));
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        json_t *j = json_object(), *st = json_object();
        json_object_set_new(j, "calls", jint(p->calls));
        json_object_set_new(j, "bytes_out", jint(p->bytes_out));
        json_object_set_new(j, "bytes_in", jint(p->bytes_in));
        json_object_set_new(j, "errors", jint(p->errors));
        json_object_set_new(j, "expected_errors", jint(nfs_rpc_proc_expected(i, p)));
        json_object_set_new(j, "rtt_ns", rtt_json(&p->rtt));
        for (uint32_t k = 0; k < p->nstatus; k++)
            json_object_set_new(st, nfs_status_name(p->status[k].code, name, sizeof name),
                                jint(p->status[k].n));
        json_object_set_new(j, "status", st);
        json_object_set_new(j, "status_other", jint(p->status_other));
        json_object_set_new(rpc, nfs_proc_name(i), j);
    }
    json_object_set_new(o, "rpc", rpc);
    return o;
}

json_t *nfs_json_summary(const struct nfs_rpc_set *s)
{
    json_t *o = json_object(), *rpc = json_object();

    json_object_set_new(o, "retransmits", jint(s->retransmits));
    json_object_set_new(o, "timeouts", jint(s->timeouts));
    json_object_set_new(o, "reconnects", jint(s->reconnects));
    uint64_t expected, failed = nfs_rpc_set_failed(s, &expected);
    json_object_set_new(o, "failed", jint(failed));
    json_object_set_new(o, "expected_errors", jint(expected));
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        json_t *j = json_object(), *rtt = json_object();
        json_object_set_new(j, "calls", jint(p->calls));
        json_object_set_new(j, "bytes_out", jint(p->bytes_out));
        json_object_set_new(j, "bytes_in", jint(p->bytes_in));
        json_object_set_new(j, "errors", jint(p->errors));
        json_object_set_new(j, "expected_errors", jint(nfs_rpc_proc_expected(i, p)));
        json_object_set_new(rtt, "mean", json_real(hist_mean(&p->rtt)));
        json_object_set_new(rtt, "p50", jint(hist_percentile(&p->rtt, 50.0)));
        json_object_set_new(rtt, "p99", jint(hist_percentile(&p->rtt, 99.0)));
        json_object_set_new(rtt, "max", jint(p->rtt.count ? p->rtt.max_ns : 0));
        json_object_set_new(j, "rtt_ns", rtt);
        json_object_set_new(rpc, nfs_proc_name(i), j);
    }
    json_object_set_new(o, "rpc", rpc);
    return o;
}

static int get_count(json_t *o, const char *key, uint64_t *v, char *why, size_t whylen)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_integer(x) || json_integer_value(x) < 0) {
        snprintf(why, whylen, "'%s' is not a count", key);
        return -EINVAL;
    }
    *v = (uint64_t)json_integer_value(x);
    return 0;
}

static int proc_decode(json_t *j, struct nfs_rpc_proc *p, char *why, size_t whylen)
{
    json_t *rtt, *st, *v;
    const char *key;
    uint64_t sum = 0;
    char sub[128];

    if (!json_is_object(j)) {
        snprintf(why, whylen, "not an object");
        return -EINVAL;
    }
    if (get_count(j, "calls", &p->calls, why, whylen) ||
        get_count(j, "bytes_out", &p->bytes_out, why, whylen) ||
        get_count(j, "bytes_in", &p->bytes_in, why, whylen) ||
        get_count(j, "errors", &p->errors, why, whylen))
        return -EINVAL;
    if (json_object_get(j, "status_other") &&
        get_count(j, "status_other", &p->status_other, why, whylen))
        return -EINVAL;
    rtt = json_object_get(j, "rtt_ns");
    if (!json_is_object(rtt) || hist_json_decode(json_object_get(rtt, "hist"), &p->rtt, sub, sizeof sub)) {
        snprintf(why, whylen, "'rtt_ns': %s", json_is_object(rtt) ? sub : "not an object");
        return -EINVAL;
    }
    if (p->errors > p->calls || p->rtt.count > p->calls) {
        snprintf(why, whylen, "more errors or round trips than calls");
        return -EINVAL;
    }
    st = json_object_get(j, "status");
    if (st && !json_is_object(st)) {
        snprintf(why, whylen, "'status' is not an object");
        return -EINVAL;
    }
    json_object_foreach(st, key, v) {
        int64_t code = nfs_status_from_name(key);
        if (code < 0 || !json_is_integer(v) || json_integer_value(v) <= 0) {
            snprintf(why, whylen, "'status' entry '%.40s' is not a known status with a count", key);
            return -EINVAL;
        }
        sum += (uint64_t)json_integer_value(v);
        if (p->nstatus >= NFS_RPC_STATUS_MAX || sum > p->errors) {
            snprintf(why, whylen, "'status' holds more than 'errors'");
            return -EINVAL;
        }
        nfs_rpc_proc_error(p, (uint32_t)code, (uint64_t)json_integer_value(v));
    }
    return 0;
}

int nfs_json_decode(json_t *o, struct nfs_rpc_set *s, char *why, size_t whylen)
{
    json_t *rpc, *v;
    const char *key;
    char sub[160];

    if (!json_is_object(o)) {
        snprintf(why, whylen, "'nfs' is not an object");
        return -EINVAL;
    }
    if (get_count(o, "retransmits", &s->retransmits, why, whylen) ||
        get_count(o, "timeouts", &s->timeouts, why, whylen) ||
        get_count(o, "reconnects", &s->reconnects, why, whylen))
        return -EINVAL;
    rpc = json_object_get(o, "rpc");
    if (!json_is_object(rpc)) {
        snprintf(why, whylen, "'rpc' is not an object");
        return -EINVAL;
    }
    json_object_foreach(rpc, key, v) {
        int id = nfs_proc_from_name(key);
        if (id < 0)
            continue;                   /* a procedure this build does not name */
        if (proc_decode(v, nfs_rpc_set_proc(s, (unsigned)id), sub, sizeof sub)) {
            snprintf(why, whylen, "'rpc.%.40s': %s", key, sub);
            return -EINVAL;
        }
    }
    return 0;
}
