/* nfs_json: the JSON form of an nfs_rpc_set, written and read back. */
#include "coordinator/report/nfs_json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/report/hist_json.h"
#include "coordinator/report/jint.h"
#include "common/why.h"

/* Which errors are answers (a LOOKUP's NOENT) is known only where the
 * statuses account for every error: not in an interval's set, which keeps
 * none.  There "failed" and "expected_errors" are left out, not guessed. */
static int expected_known(unsigned id, const struct nfs_rpc_proc *p)
{
    uint64_t sum = 0;
    if (id != NFSP_LOOKUP || p->errors == 0)
        return 1;
    for (uint32_t k = 0; k < p->nstatus; k++)
        sum += p->status[k].n;
    return p->status_other == 0 && sum == p->errors;
}

static void failed_json(json_t *o, const struct nfs_rpc_set *s)
{
    if (s->proc[NFSP_LOOKUP] && !expected_known(NFSP_LOOKUP, s->proc[NFSP_LOOKUP]))
        return;
    uint64_t expected, failed = nfs_rpc_set_failed(s, &expected);
    json_object_set_new(o, "failed", jint(failed));
    json_object_set_new(o, "expected_errors", jint(expected));
}

/* "split": {"read": {ops, lat_ns, rtt_ns, queued_ns, late_ns, client_ns,
 * mean: {...}}, "write": ...}: sums (they add up: lat = rtt + queued +
 * late + client), and per op means; only kinds with ops. */
static void split_json(json_t *o, const struct nfs_rpc_set *s)
{
    json_t *sp = NULL;
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const struct nfs_op_split *x = &s->split[k];
        if (!x->ops)
            continue;
        json_t *j = json_object(), *m = json_object();
        uint64_t client = nfs_op_split_client(x);
        double n = (double)x->ops;
        json_object_set_new(j, "ops", jint(x->ops));
        json_object_set_new(j, "lat_ns", jint(x->lat_ns));
        json_object_set_new(j, "rtt_ns", jint(x->rtt_ns));
        json_object_set_new(j, "queued_ns", jint(x->queued_ns));
        json_object_set_new(j, "late_ns", jint(x->late_ns));
        json_object_set_new(j, "client_ns", jint(client));
        json_object_set_new(m, "lat_ns", json_real((double)x->lat_ns / n));
        json_object_set_new(m, "rtt_ns", json_real((double)x->rtt_ns / n));
        json_object_set_new(m, "queued_ns", json_real((double)x->queued_ns / n));
        json_object_set_new(m, "late_ns", json_real((double)x->late_ns / n));
        json_object_set_new(m, "client_ns", json_real((double)client / n));
        json_object_set_new(j, "mean", m);
        if (!sp)
            sp = json_object();
        json_object_set_new(sp, nfs_op_split_name(k), j);
    }
    if (sp)
        json_object_set_new(o, "split", sp);
}

/* A procedure's calls, bytes and errors (and its expected errors where
 * they are known), the part of it every form carries. */
static void proc_counts_json(json_t *j, unsigned i, const struct nfs_rpc_proc *p)
{
    json_object_set_new(j, "calls", jint(p->calls));
    json_object_set_new(j, "bytes_out", jint(p->bytes_out));
    json_object_set_new(j, "bytes_in", jint(p->bytes_in));
    json_object_set_new(j, "errors", jint(p->errors));
    if (expected_known(i, p))
        json_object_set_new(j, "expected_errors", jint(nfs_rpc_proc_expected(i, p)));
}

/* The full form (every status, the RTT histogram) or the summary's. */
static json_t *nfs_json(const struct nfs_rpc_set *s, int full)
{
    json_t *o = json_object(), *rpc = json_object();
    char name[48];

    json_object_set_new(o, "retransmits", jint(s->retransmits));
    json_object_set_new(o, "timeouts", jint(s->timeouts));
    json_object_set_new(o, "reconnects", jint(s->reconnects));
    failed_json(o, s);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        json_t *j = json_object(), *st = full ? json_object() : NULL;
        proc_counts_json(j, i, p);
        json_object_set_new(j, "rtt_ns", hist_json_summary(&p->rtt, !full));
        for (uint32_t k = 0; full && k < p->nstatus; k++)
            json_object_set_new(st, nfs_status_name(p->status[k].code, name, sizeof name),
                                jint(p->status[k].n));
        if (full) {
            json_object_set_new(j, "status", st);
            json_object_set_new(j, "status_other", jint(p->status_other));
        }
        json_object_set_new(rpc, nfs_proc_name(i), j);
    }
    json_object_set_new(o, "rpc", rpc);
    split_json(o, s);
    return o;
}

json_t *nfs_json_encode(const struct nfs_rpc_set *s)
{
    return nfs_json(s, 1);
}

json_t *nfs_json_summary(const struct nfs_rpc_set *s)
{
    return nfs_json(s, 0);
}

static int get_count(json_t *o, const char *key, uint64_t *v, char *why, size_t whylen)
{
    if (jcount(json_object_get(o, key), UINT64_MAX, v) == 0)
        return 0;
    return why_fail(why, whylen, "'%s' is not a count", key);
}

static int proc_decode(json_t *j, struct nfs_rpc_proc *p, char *why, size_t whylen)
{
    json_t *rtt, *st, *v;
    const char *key;
    uint64_t sum = 0;
    char sub[128];

    if (!json_is_object(j))
        return why_fail(why, whylen, "not an object");
    if (get_count(j, "calls", &p->calls, why, whylen) ||
        get_count(j, "bytes_out", &p->bytes_out, why, whylen) ||
        get_count(j, "bytes_in", &p->bytes_in, why, whylen) ||
        get_count(j, "errors", &p->errors, why, whylen))
        return -EINVAL;
    if (json_object_get(j, "status_other") &&
        get_count(j, "status_other", &p->status_other, why, whylen))
        return -EINVAL;
    rtt = json_object_get(j, "rtt_ns");
    if (!json_is_object(rtt) || hist_json_decode(json_object_get(rtt, "hist"), &p->rtt, sub, sizeof sub))
        return why_fail(why, whylen, "'rtt_ns': %s", json_is_object(rtt) ? sub : "not an object");
    if (p->errors > p->calls || p->rtt.count > p->calls)
        return why_fail(why, whylen, "more errors or round trips than calls");
    st = json_object_get(j, "status");
    if (st && !json_is_object(st))
        return why_fail(why, whylen, "'status' is not an object");
    json_object_foreach(st, key, v) {
        int64_t code = nfs_status_from_name(key);
        if (code < 0 || !json_is_integer(v) || json_integer_value(v) <= 0)
            return why_fail(why, whylen, "'status' entry '%.40s' is not a known status with a count", key);
        sum += (uint64_t)json_integer_value(v);
        if (p->nstatus >= NFS_RPC_STATUS_MAX || sum > p->errors)
            return why_fail(why, whylen, "'status' holds more than 'errors'");
        nfs_rpc_proc_error(p, (uint32_t)code, (uint64_t)json_integer_value(v));
    }
    return 0;
}

static int split_decode(json_t *o, struct nfs_rpc_set *s, char *why, size_t whylen)
{
    json_t *sp = json_object_get(o, "split");
    char sub[96];
    if (!sp)
        return 0;
    if (!json_is_object(sp))
        return why_fail(why, whylen, "'split' is not an object");
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        json_t *j = json_object_get(sp, nfs_op_split_name(k));
        struct nfs_op_split *x = &s->split[k];
        if (!j)
            continue;
        if (!json_is_object(j) || get_count(j, "ops", &x->ops, sub, sizeof sub) ||
            get_count(j, "lat_ns", &x->lat_ns, sub, sizeof sub) ||
            get_count(j, "rtt_ns", &x->rtt_ns, sub, sizeof sub) ||
            get_count(j, "queued_ns", &x->queued_ns, sub, sizeof sub) ||
            get_count(j, "late_ns", &x->late_ns, sub, sizeof sub)) {
            return why_fail(why, whylen, "'split.%s': %s", nfs_op_split_name(k),
                            json_is_object(j) ? sub : "not an object");
        }
        if (!nfs_op_split_valid(x))
            return why_fail(why, whylen, "'split.%s': its parts exceed its latency", nfs_op_split_name(k));
    }
    return 0;
}

int nfs_json_decode(json_t *o, struct nfs_rpc_set *s, char *why, size_t whylen)
{
    json_t *rpc, *v;
    const char *key;
    char sub[160];

    if (!json_is_object(o))
        return why_fail(why, whylen, "'nfs' is not an object");
    if (get_count(o, "retransmits", &s->retransmits, why, whylen) ||
        get_count(o, "timeouts", &s->timeouts, why, whylen) ||
        get_count(o, "reconnects", &s->reconnects, why, whylen))
        return -EINVAL;
    rpc = json_object_get(o, "rpc");
    if (!json_is_object(rpc))
        return why_fail(why, whylen, "'rpc' is not an object");
    json_object_foreach(rpc, key, v) {
        int id = nfs_proc_from_name(key);
        if (id < 0)
            continue;                   /* a procedure this build does not name */
        if (proc_decode(v, nfs_rpc_set_proc(s, (unsigned)id), sub, sizeof sub))
            return why_fail(why, whylen, "'rpc.%.40s': %s", key, sub);
    }
    return split_decode(o, s, why, whylen);
}
