/* timeseries: JSON lines per interval (see timeseries.h).
 *
 * Design: one self-contained JSON object per line, so a tail -f, jq or a
 * plotting script can consume the file while the run goes; each line is
 * flushed as soon as its interval has every agent's data.  run.c notifies
 * an interval only once all agents sent it, so the last (usually partial)
 * intervals of a phase that some agent did not send are written at
 * phase_done from what arrived.  Lines are built with jansson (compact,
 * keys in insertion order) so strings are always escaped correctly. */
#include "coordinator/cli/out_file.h"
#include "coordinator/run/timeseries.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/client_json.h"
#include "coordinator/result/fairness.h"
#include "coordinator/report/nfs_json.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/report/jint.h"

struct timeseries {
    FILE *out;
    uint32_t phase;      /* phase whose intervals are being written */
    uint32_t next_k;     /* first interval of it not written yet */
    int err;
};

struct timeseries *timeseries_new(const char *path)
{
    FILE *f = out_file_open(path);
    struct timeseries *ts;

    if (!f)
        return NULL;
    ts = xcalloc(1, sizeof(*ts));
    ts->out = f;
    return ts;
}

int timeseries_free(struct timeseries *ts)
{
    int rc = ts ? out_file_close(ts->out, ts->err) : 0;
    free(ts);
    return rc;
}

static void emit(FILE *out, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));

    if (s) {
        fputs(s, out);
        fputc('\n', out);
        free(s);
    }
    json_decref(j);
}

static json_t *head(const struct run_result *r, uint32_t phase, uint32_t k)
{
    const struct phase_result *ph = &r->phases[phase];
    json_t *j = json_object();

    json_object_set_new(j, "phase", jint(phase));
    json_object_set_new(j, "name", json_string(ph->name));
    json_object_set_new(j, "k", jint(k));
    json_object_set_new(j, "t", json_real((double)k * ph->interval_ms / 1000.0));
    return j;
}

/* An op type's counters and rates over an interval of len_ns. */
static json_t *counts_json(const struct op_stats *o, uint64_t len_ns)
{
    json_t *oj = json_object();

    json_object_set_new(oj, "ops", jint(o->ops));
    json_object_set_new(oj, "bytes", jint(o->bytes));
    json_object_set_new(oj, "errors", jint(o->errors));
    json_object_set_new(oj, "iops", json_real(result_iops(o, len_ns)));
    json_object_set_new(oj, "bw_bytes", json_real(result_bw(o, len_ns)));
    return oj;
}

/* Interval k of phase to out: one merged line, then one per agent.
 * *scratch: expands a sealed interval's op types, allocated on first need
 * (~40 KB) and left for the caller to free, so a loop allocates it once. */
static void write_interval(FILE *out, const struct run_result *r, uint32_t phase, uint32_t k,
                           struct op_stats **scratch)
{
    const struct phase_result *ph = &r->phases[phase];
    const struct interval_slot *s = &ph->intervals[k];
    uint64_t len_ns = (uint64_t)ph->interval_ms * NS_PER_MS;
    double *share = xcalloc(r->nagents ? r->nagents : 1, sizeof(*share));
    double jain = fairness_interval(r, phase, k, share);
    json_t *j = head(r, phase, k), *ops = json_object();

    json_object_set_new(j, "agent", json_string("all"));
    json_object_set_new(j, "nreported", jint(s->nreported));
    {
        /* membership: a degraded interval is not a slow one */
        json_t *live = json_array();
        uint64_t age;
        uint32_t stalled = result_interval_stalled(r, phase, k, &age);
        for (uint32_t a = 0; a < r->nagents; a++) {
            struct counters c;

            result_slot_agent(s, a, &c);
            if (c.reported)
                json_array_append_new(live, jint(r->agents[a].id));
        }
        json_object_set_new(j, "live", live);
        json_object_set_new(j, "stalled_agents", jint(stalled));
        json_object_set_new(j, "stall_s", json_real((double)age / 1e9));
    }
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o;
        json_t *oj, *lat;

        if (s->count[t].ops == 0 && s->count[t].errors == 0)
            continue;
        if (!*scratch)
            *scratch = xmalloc(sizeof(**scratch));
        o = result_interval_op(r, phase, k, (enum op_type)t, *scratch);
        oj = counts_json(o, len_ns);
        lat = json_object();
        json_object_set_new(lat, "mean", json_real(hist_mean(&o->lat)));
        json_object_set_new(lat, "p50", jint(hist_percentile(&o->lat, 50)));
        json_object_set_new(lat, "p90", jint(hist_percentile(&o->lat, 90)));
        json_object_set_new(lat, "p99", jint(hist_percentile(&o->lat, 99)));
        json_object_set_new(lat, "p999", jint(hist_percentile(&o->lat, 99.9)));
        json_object_set_new(lat, "max", jint(o->lat.count ? o->lat.max_ns : 0));
        json_object_set_new(oj, "lat_ns", lat);
        json_object_set_new(ops, op_type_name((enum op_type)t), oj);
    }
    json_object_set_new(j, "ops", ops);
    json_object_set_new(j, "jain", json_real(jain));
    if (ph->nfs && k < ph->nfs->niv) {     /* the nfs engine's RPCs in the interval */
        struct nfs_rpc_set ns;
        nfs_rpc_set_init(&ns);
        result_nfs_interval(r, phase, k, &ns);
        if (!nfs_rpc_set_empty(&ns))
            json_object_set_new(j, "nfs", nfs_json_summary(&ns));
        nfs_rpc_set_free(&ns);
    }
    emit(out, j);

    for (uint32_t a = 0; a < r->nagents; a++) {
        struct counters cc, *c = &cc;

        result_slot_agent(s, a, &cc);
        j = head(r, phase, k);
        ops = json_object();
        json_object_set_new(j, "agent", jint(r->agents[a].id));
        json_object_set_new(j, "host", json_string(r->agents[a].host));
        for (int t = 0; t < OP__COUNT; t++) {
            struct op_stats o = { .ops = c->ops[t], .bytes = c->bytes[t], .errors = c->errors[t] };

            if (o.ops || o.errors)
                json_object_set_new(ops, op_type_name((enum op_type)t), counts_json(&o, len_ns));
        }
        json_object_set_new(j, "ops", ops);
        json_object_set_new(j, "share", json_real(share[a]));
        json_object_set_new(j, "reported", json_boolean(c->reported));
        json_object_set_new(j, "inflight", jint(c->inflight));
        json_object_set_new(j, "oldest_s", json_real((double)c->oldest_ns / 1e9));
        if (client_result_iv(r, phase, a, k)) {   /* its CPU, NIC, mountstats ("host" is its name) */
            json_t *cl = json_object();
            client_json_put_iv(cl, client_result_iv(r, phase, a, k),
                               client_result_agent(r, phase, a)->mount, 1);
            json_object_set_new(j, "client", cl);
        }
        emit(out, j);
    }
    free(share);
}

void timeseries_write_all(FILE *out, const struct run_result *r)
{
    struct op_stats *scratch = NULL;

    for (uint32_t i = 0; i < r->nphases; i++)
        for (uint32_t k = 0; k < r->phases[i].nintervals; k++)
            write_interval(out, r, i, k, &scratch);
    free(scratch);
}

static void ts_flush(struct timeseries *ts)
{
    if (fflush(ts->out) != 0 && ts->err == 0)
        ts->err = -errno;
}

static void ts_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct timeseries *ts = arg;

    (void)r;
    ts->phase = phase;
    ts->next_k = 0;
}

static void ts_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct timeseries *ts = arg;
    struct op_stats *scratch = NULL;

    if (phase != ts->phase)
        return;
    /* intervals are notified in order; write any skipped before k too */
    while (ts->next_k <= k && ts->next_k < r->phases[phase].nintervals)
        write_interval(ts->out, r, phase, ts->next_k++, &scratch);
    free(scratch);
    ts_flush(ts);
}

static void ts_phase_done(void *arg, const struct run_result *r, uint32_t phase)
{
    ts_interval(arg, r, phase, UINT32_MAX);   /* every interval left */
}

struct run_observer timeseries_observer(struct timeseries *ts)
{
    struct run_observer o = { .phase_start = ts_phase_start, .interval = ts_interval,
                              .phase_done = ts_phase_done, .arg = ts };
    return o;
}
