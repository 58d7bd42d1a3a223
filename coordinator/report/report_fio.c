/* report_fio: fio's own output formats (normal, json, json+, terse), so
 * scripts, plotting and dashboard tools built around fio read nfstorm.
 *
 * Design: without group_reporting one fio "job" per job and clone, in
 * fio's order, each the fleet's sum of that clone (result_clones.h); with
 * it, or when the agents' per-clone figures are incomplete, one per phase
 * (the fleet totals, like fio's group entry).  Plus one client_stats entry
 * per agent and phase as fio writes in client/server mode (with
 * "hostname").  The numbers are the ones
 * nfstorm's own JSON holds: iops, bw_bytes and the percentiles come from
 * the same result.c helpers and the same histogram, so a phase's entry's
 * read.iops equals phases[i].ops.read.iops and clat_ns.percentile["99.000000"]
 * equals lat_ns.p99.  nfstorm measures one latency per op (submit to
 * completion), reported as fio's clat_ns and lat_ns; slat is 0.  A
 * rate-limited job's latency runs from when the op was due (lat_ns) and
 * its service time (svc) is fio's clat_ns.  fio's
 * "bw" fields are KiB/s integers and its runtimes milliseconds.
 * bw_min/max/mean and iops_min/max/mean are over the phase's intervals
 * (the last, partial, interval left out when there are others).
 *
 * The JSON follows fio 3.33's layout key for key and type for type (t1560
 * compares the two trees): "global options" and "job options" are the
 * plan's keys as written, read back from the recorded plan text
 * (fio_opts.h); percentiles go where clat_percentiles/lat_percentiles put
 * them and json+ bins use fio's bucket values (the layouts agree,
 * fiolog.h); disk_util is left out as fio leaves it out without local
 * disks; nfstorm's own figures sit under "nfstorm". */
#include "coordinator/report/report.h"
#include "common/sat.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/units.h"
#include "common/version.h"
#include "common/xmalloc.h"
#include "coordinator/cli/fio_opts.h"
#include "coordinator/run/fiolog.h"
#include "coordinator/report/report_fio_ctl.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/report/jint.h"

static const double fio_pct[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };
#define NPCT (sizeof(fio_pct) / sizeof(fio_pct[0]))

int report_fio_parse_formats(const char *s, unsigned *mask)
{
    *mask = 0;
    while (*s) {
        size_t n = strcspn(s, ",");

        if (n == 6 && !strncmp(s, "normal", n))
            *mask |= REPORT_FIO_NORMAL;
        else if (n == 4 && !strncmp(s, "json", n))
            *mask |= REPORT_FIO_JSON;
        else if (n == 5 && !strncmp(s, "json+", n))
            *mask |= REPORT_FIO_JSON_PLUS;
        else if (n == 5 && !strncmp(s, "terse", n))
            *mask |= REPORT_FIO_TERSE;
        else
            return -EINVAL;
        s += n + (s[n] == ',');
    }
    return *mask ? 0 : -EINVAL;
}

/* Standard deviation from the histogram (bucket midpoints). */
static double hist_stddev(const struct hist *h)
{
    double mean = hist_mean(h), acc = 0;

    if (h->count < 2)
        return 0;
    for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
        double mid, d;

        if (!h->bucket[i])
            continue;
        mid = (double)hist_bucket_low(i) + (double)(hist_bucket_high(i) - hist_bucket_low(i)) / 2;
        d = mid - mean;
        acc += d * d * (double)h->bucket[i];
    }
    return sqrt(acc / (double)(h->count - 1));
}

struct minmax {
    double min, max, mean, dev;
    uint32_t n;
};

/* Stats of per-interval rates of op type t; agent < 0 for the fleet. */
static void interval_rates(const struct phase_result *ph, int agent, enum op_type t, int bw,
                           struct minmax *m)
{
    uint32_t n = ph->nintervals > 1 ? ph->nintervals - 1 : ph->nintervals;
    double secs = ph->interval_ms / 1000.0, sum = 0, sq = 0;

    memset(m, 0, sizeof(*m));
    for (uint32_t k = 0; k < n && secs > 0; k++) {
        const struct interval_slot *s = &ph->intervals[k];
        struct counters c;
        double v;

        if (agent >= 0)
            result_slot_agent(s, (uint32_t)agent, &c);
        /* successful ops only: a failed op is not throughput */
        v = agent < 0 ? (double)(bw ? s->count[t].bytes
                                    : result_ok_count(s->count[t].ops, s->count[t].errors))
                      : (double)(bw ? c.bytes[t] : result_ok_count(c.ops[t], c.errors[t]));

        v /= secs;
        if (bw)
            v /= 1024.0;
        if (m->n == 0 || v < m->min)
            m->min = v;
        if (m->n == 0 || v > m->max)
            m->max = v;
        sum += v;
        sq += v * v;
        m->n++;
    }
    if (m->n) {
        m->mean = sum / m->n;
        m->dev = m->n > 1 ? sqrt(fmax(0, (sq - sum * sum / m->n) / (m->n - 1))) : 0;
    }
}

/* fio's json+ bin key of nfstorm bucket i: fio's plat_idx_to_val, the
 * bucket's low end plus half its width (the layouts agree, fiolog.h). */
static uint64_t fio_bin_value(unsigned i)
{
    if (i < 128)
        return i;
    return hist_bucket_low(i) + (hist_bucket_high(i) - hist_bucket_low(i) + 1) / 2;
}

static json_t *lat_obj(const struct hist *h, int pct, int bins)
{
    json_t *o = json_object();

    json_object_set_new(o, "min", jint(h->count ? h->min_ns : 0));
    json_object_set_new(o, "max", jint(h->count ? h->max_ns : 0));
    json_object_set_new(o, "mean", json_real(hist_mean(h)));
    json_object_set_new(o, "stddev", json_real(hist_stddev(h)));
    json_object_set_new(o, "N", jint(h->count));
    if (pct && h->count) {
        json_t *p = json_object();
        char key[32];

        for (size_t i = 0; i < NPCT; i++) {
            snprintf(key, sizeof(key), "%f", fio_pct[i]);
            json_object_set_new(p, key, jint(hist_percentile(h, fio_pct[i])));
        }
        json_object_set_new(o, "percentile", p);
    }
    /* as fio: bins go with the percentiles, in fio's 1856 bins (the last
     * holds everything above it) */
    if (pct && bins && h->count) {
        json_t *b = json_object();
        uint64_t top = 0;
        char key[32];

        for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
            if (!h->bucket[i])
                continue;
            if (i >= FIOLOG_PLAT_NR - 1) {
                top += h->bucket[i];
                continue;
            }
            snprintf(key, sizeof(key), "%llu", (unsigned long long)fio_bin_value(i));
            json_object_set_new(b, key, jint(h->bucket[i]));
        }
        if (top) {
            snprintf(key, sizeof(key), "%llu", (unsigned long long)fio_bin_value(FIOLOG_PLAT_NR - 1));
            json_object_set_new(b, key, jint(top));
        }
        json_object_set_new(o, "bins", b);
    }
    return o;
}

/* What fio's JSON needs of a phase's options (from the recorded plan text). */
struct fio_job_opts {
    json_t *opts;                /* "job options" (owned until handed to the job) */
    int clat_pct, lat_pct;       /* clat_percentiles (default 1), lat_percentiles */
    uint32_t iodepth;            /* as set (fio's latency_depth) */
    uint32_t depth;              /* in flight: 1 for a synchronous engine, as fio caps it */
};

static const char *opt_str(json_t *job, json_t *global, const char *key)
{
    json_t *v = json_object_get(job, key);

    if (!v)
        v = json_object_get(global, key);
    return v ? json_string_value(v) : NULL;
}

static int opt_bool(json_t *job, json_t *global, const char *key, int dflt)
{
    const char *v = opt_str(job, global, key);

    if (!v)
        return dflt;
    return !(!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "no"));
}

/* name: the job whose section holds the options (the phase's name for a
 * phase's entry, a job's for a clone's). */
static void job_opts(const struct run_result *r, const struct phase_result *ph, const char *name,
                     json_t *global, struct fio_job_opts *jo)
{
    const char *d;
    char buf[32];
    char nm[PLAN_NAME_MAX], *dash;

    snprintf(nm, sizeof(nm), "%s", name);
    jo->opts = fio_opts_section(r->record.plan_text, nm);
    /* a matrix= phase is "JOB-v1-v2": its options are JOB's section's */
    while (r->record.plan_text && !json_object_size(jo->opts) && (dash = strrchr(nm, '-'))) {
        *dash = '\0';
        json_decref(jo->opts);
        jo->opts = fio_opts_section(r->record.plan_text, nm);
    }
    if (!r->record.plan_text) {  /* a result without its plan text: what the result knows */
        json_object_set_new(jo->opts, "name", json_string(name));
        json_object_set_new(jo->opts, "rw", json_string(rw_mode_name(ph->rw)));
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ph->bs);
        json_object_set_new(jo->opts, "bs", json_string(buf));
        snprintf(buf, sizeof(buf), "%u", ph->numjobs);
        json_object_set_new(jo->opts, "numjobs", json_string(buf));
    }
    jo->clat_pct = opt_bool(jo->opts, global, "clat_percentiles", 1);
    jo->lat_pct = opt_bool(jo->opts, global, "lat_percentiles", 0);
    d = opt_str(jo->opts, global, "iodepth");
    jo->iodepth = d ? (uint32_t)strtoul(d, NULL, 10) : 1;
    if (!jo->iodepth)
        jo->iodepth = 1;
    d = opt_str(jo->opts, global, "ioengine");
    jo->depth = !d || !strcmp(d, "psync") || !strcmp(d, "sync") || !strcmp(d, "pvsync") ||
                !strcmp(d, "pvsync2") || !strcmp(d, "vsync") ? 1 : jo->iodepth;
    if (r->record.plan_text) {
        /* what the JSON shows is fio's form: its names, no bare flags */
        json_decref(jo->opts);
        jo->opts = fio_opts_section_as(r->record.plan_text, nm, 1);
    }
}

/* rates: the entry's per-interval samples exist (a phase's or an agent's;
 * a clone's are not kept: its bw and iops samples are 0). */
static json_t *ddir(const struct phase_result *ph, int agent, enum op_type t,
                    const struct op_stats *o, uint64_t dur_ns, int plus, const struct fio_job_opts *jo,
                    int rates)
{
    json_t *d = json_object();
    struct minmax bw = { 0 }, io = { 0 };
    double bw_total = result_bw(&ph->totals.op[t], ph->duration_ns);
    int used = o->ops > 0;

    if (used && rates) {         /* a direction without ops has no samples, as fio's */
        interval_rates(ph, agent, t, 1, &bw);
        interval_rates(ph, agent, t, 0, &io);
    }
    json_object_set_new(d, "io_bytes", jint(o->bytes));
    json_object_set_new(d, "io_kbytes", jint(o->bytes / 1024));
    json_object_set_new(d, "bw_bytes", jint((uint64_t)result_bw(o, dur_ns)));
    json_object_set_new(d, "bw", jint((uint64_t)(result_bw(o, dur_ns) / 1024.0)));
    json_object_set_new(d, "iops", json_real(result_iops(o, dur_ns)));
    json_object_set_new(d, "runtime", jint(used ? dur_ns / NS_PER_MS : 0));
    json_object_set_new(d, "total_ios", jint(o->ops));
    json_object_set_new(d, "short_ios", jint(0));
    json_object_set_new(d, "drop_ios", jint(0));
    {
        struct hist *empty = xmalloc(sizeof(*empty));
        hist_init(empty);
        json_object_set_new(d, "slat_ns", lat_obj(empty, 0, 0));
        free(empty);
    }
    /* slat 0; lat is the op latency (from when a rate-limited op was due);
     * clat the service time, issue to completion, where every op has one,
     * else the same numbers as lat */
    json_object_set_new(d, "clat_ns", lat_obj(o->svc.count && o->svc.count == o->lat.count ? &o->svc
                                              : &o->lat, jo->clat_pct, plus));
    json_object_set_new(d, "lat_ns", lat_obj(&o->lat, jo->lat_pct, plus));
    json_object_set_new(d, "bw_min", jint((uint64_t)bw.min));
    json_object_set_new(d, "bw_max", jint((uint64_t)bw.max));
    json_object_set_new(d, "bw_agg", json_real(bw_total > 0 ? result_bw(o, dur_ns) * 100 / bw_total : 0));
    json_object_set_new(d, "bw_mean", json_real(bw.mean));
    json_object_set_new(d, "bw_dev", json_real(bw.dev));
    json_object_set_new(d, "bw_samples", jint(bw.n));
    json_object_set_new(d, "iops_min", jint((uint64_t)io.min));
    json_object_set_new(d, "iops_max", jint((uint64_t)io.max));
    json_object_set_new(d, "iops_mean", json_real(io.mean));
    json_object_set_new(d, "iops_stddev", json_real(io.dev));
    json_object_set_new(d, "iops_samples", jint(io.n));
    return d;
}

/* Percent of ops with latency in [lo_ns, hi_ns). */
static double lat_share(const struct hist *h, uint64_t lo_ns, uint64_t hi_ns)
{
    uint64_t n = 0;

    if (!h->count)
        return 0;
    for (unsigned i = 0; i < HIST_NBUCKETS; i++)
        if (h->bucket[i] && hist_bucket_low(i) >= lo_ns && hist_bucket_low(i) < hi_ns)
            n = sat_add_u64(n, h->bucket[i]);
    return (double)n * 100.0 / (double)h->count;
}

/* fio's latency buckets: key E holds [previous E, E) of its unit, the first
 * of each unit from the unit's start (ns from 0, us from 1 us, ms from 1 ms) */
static const uint64_t lat_us_edges[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };
static const uint64_t lat_ms_edges[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000 };
#define NEDGES(e) (sizeof(e) / sizeof((e)[0]))

static json_t *lat_buckets(const struct hist *h, uint64_t unit_ns, const uint64_t *edges, size_t n)
{
    json_t *o = json_object();
    char buf[32];

    for (size_t e = 0; e < n; e++) {
        uint64_t lo = e ? edges[e - 1] * unit_ns : (unit_ns == 1 ? 0 : unit_ns);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)edges[e]);
        json_object_set_new(o, buf, json_real(lat_share(h, lo, edges[e] * unit_ns)));
    }
    return o;
}

/* fio's depth distributions.  nfstorm does not sample the queue depth: a
 * job keeps its depth in flight (iodepth; 1 for a synchronous engine, as
 * fio caps it), so its whole share sits in that bucket ("1" .. ">=64"),
 * and each submission and completion is of 1-4 ops (the "4" bucket), as
 * fio counts for a sync engine.  No ops: all 0. */
static json_t *depth_obj(uint32_t iodepth, int submit, int any)
{
    static const char *const lvl[] = { "1", "2", "4", "8", "16", "32", ">=64" };
    static const char *const sub[] = { "0", "4", "8", "16", "32", "64", ">=64" };
    json_t *o = json_object();
    size_t hit = 0;

    if (!submit)
        while (hit + 1 < 7 && (1u << (hit + 1)) <= iodepth)
            hit++;
    else
        hit = 1;
    for (size_t i = 0; i < 7; i++)
        json_object_set_new(o, submit ? sub[i] : lvl[i], json_real(any && i == hit ? 100.0 : 0.0));
    return o;
}

/* One jobs[] (or client_stats[]) entry: phase i's fleet (agent < 0,
 * clone < 0), one agent's (agent >= 0), or one job's clone (clone >= 0: the
 * fleet's sum of entry clone of result_clones, scratch holding it). */
static json_t *job_json(const struct run_result *r, uint32_t i, int agent, int clone, int plus,
                        json_t *global, struct op_set *scratch)
{
    const struct phase_result *ph = &r->phases[i];
    const struct clone_result *cr = clone >= 0 ? &ph->clones->c[clone] : NULL;
    const struct op_set *set = cr ? result_clone_totals(r, i, (uint32_t)clone, scratch)
                             : agent < 0 ? &ph->totals : result_agent_totals(r, i, (uint32_t)agent);
    uint64_t dur = cr ? (cr->runtime_ns ? cr->runtime_ns : ph->duration_ns)
                 : agent < 0 || !ph->agents[agent].duration_ns ? ph->duration_ns
                                                                : ph->agents[agent].duration_ns;
    json_t *j = json_object(), *sync = json_object();
    struct fio_job_opts jo;
    struct op_stats all, none = { 0 };
    double user = 0, sys = 0, avail = 0;

    job_opts(r, ph, cr ? cr->name : ph->name, global, &jo);
    json_object_set_new(j, "jobname", json_string(cr ? cr->name : ph->name));
    json_object_set_new(j, "groupid", jint(i));
    json_object_set_new(j, "error", jint((uint64_t)result_errors_fio_error(r, i, agent)));   /* fio: the first error's errno */
    json_object_set_new(j, "eta", jint(0));
    json_object_set_new(j, "elapsed", jint(dur / NS_PER_SEC));
    if (agent >= 0) {
        json_object_set_new(j, "hostname", json_string(r->agents[agent].host));
        json_object_set_new(j, "port", jint(0));
    }
    json_object_set_new(j, "job options", jo.opts);
    for (int t = OP_READ; t <= OP_WRITE; t++)   /* fio's data directions */
        json_object_set_new(j, op_type_name((enum op_type)t),
                            ddir(ph, agent, (enum op_type)t, &set->op[t], dur, plus, &jo, !cr));
    hist_init(&none.lat);
    json_object_set_new(j, "trim", ddir(ph, agent, OP_READ, &none, dur, 0, &jo, !cr));
    /* fio's "sync": the fsync/fdatasync calls (OP_SYNC), their latency with
     * fio's percentiles (etcd's disk check reads
     * sync.lat_ns.percentile["99.000000"]) and, in json+, bins */
    json_object_set_new(sync, "total_ios", jint(set->op[OP_SYNC].ops));
    json_object_set_new(sync, "lat_ns", lat_obj(&set->op[OP_SYNC].lat, 1, plus));
    json_object_set_new(j, "sync", sync);
    json_object_set_new(j, "job_runtime", jint(dur / NS_PER_MS));
    /* CPU percent of the cores the counted agents had over their run */
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];

        if ((agent >= 0 && (uint32_t)agent != a) || !ap->done)
            continue;
        user += ap->cpu_user_s;
        sys += ap->cpu_sys_s;
        avail += (double)ap->duration_ns / 1e9 * ap->cores;
    }
    json_object_set_new(j, "usr_cpu", json_real(avail > 0 ? user * 100 / avail : 0));
    json_object_set_new(j, "sys_cpu", json_real(avail > 0 ? sys * 100 / avail : 0));
    json_object_set_new(j, "ctx", jint(0));
    json_object_set_new(j, "majf", jint(0));
    json_object_set_new(j, "minf", jint(0));
    result_all_ops(set, &all);
    json_object_set_new(j, "iodepth_level", depth_obj(jo.depth, 0, all.ops > 0));
    json_object_set_new(j, "iodepth_submit", depth_obj(jo.iodepth, 1, all.ops > 0));
    json_object_set_new(j, "iodepth_complete", depth_obj(jo.iodepth, 1, all.ops > 0));
    json_object_set_new(j, "latency_ns", lat_buckets(&all.lat, 1, lat_us_edges, NEDGES(lat_us_edges)));
    json_object_set_new(j, "latency_us", lat_buckets(&all.lat, 1000, lat_us_edges, NEDGES(lat_us_edges)));
    {
        json_t *lm = lat_buckets(&all.lat, NS_PER_MS, lat_ms_edges, NEDGES(lat_ms_edges));
        json_object_set_new(lm, ">=2000", json_real(lat_share(&all.lat, 2000 * NS_PER_MS, UINT64_MAX)));
        json_object_set_new(j, "latency_ms", lm);
    }
    json_object_set_new(j, "latency_depth", jint(jo.iodepth));
    json_object_set_new(j, "latency_target", jint(0));
    json_object_set_new(j, "latency_percentile", json_real(100.0));
    json_object_set_new(j, "latency_window", jint(0));
    report_fio_ctl(j, ph, r->nagents, agent);   /* latency_target's fields, steadystate */
    return j;
}

/* nfstorm's own figures, under a key fio's readers do not look at. */
static json_t *nfstorm_obj(const struct run_result *r)
{
    json_t *o = json_object(), *phases = json_array();

    json_object_set_new(o, "version", json_string(NFSTORM_VERSION));
    json_object_set_new(o, "label", json_string(r->label));
    json_object_set_new(o, "agents", jint(r->nagents));
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];
        json_t *p;
        uint32_t done = 0;

        if (!ph->finished)
            continue;
        p = json_object();
        for (uint32_t a = 0; a < r->nagents; a++)
            done += ph->agents[a].done != 0;
        json_object_set_new(p, "name", json_string(ph->name));
        json_object_set_new(p, "jobs", jint(ph->njobs));
        json_object_set_new(p, "threads_per_agent", jint(ph->numjobs));
        json_object_set_new(p, "agents_done", jint(done));
        json_object_set_new(p, "interval_ms", jint(ph->interval_ms));
        json_object_set_new(p, "duration_ns", jint(ph->duration_ns));
        json_object_set_new(p, "start_skew_ns", jint(ph->start_skew_ns));
        json_array_append_new(phases, p);
    }
    json_object_set_new(o, "phases", phases);
    json_object_set_new(o, "notes", json_string(
        "one latency per op (submit to completion): clat_ns and lat_ns hold it, slat_ns is empty; "
        "a rate-limited job's lat_ns runs from when each op was due, its clat_ns is the service time; "
        "iodepth_* are the jobs' iodepth, not sampled; ctx, majf, minf are not measured; "
        "client_stats holds one entry per agent and phase"));
    return o;
}

static int write_json(FILE *out, const struct run_result *r, int plus)
{
    json_t *root = json_object(), *jobs = json_array(), *clients = json_array();
    json_t *global = fio_opts_section(r->record.plan_text, NULL);
    struct op_set *scratch = NULL;   /* a clone's totals, expanded */
    time_t t = (time_t)r->started_unix;
    char when[64] = "";
    struct tm tm;
    int rc;

    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
    json_object_set_new(root, "fio version", json_string("nfstorm-" NFSTORM_VERSION));
    json_object_set_new(root, "timestamp", json_integer((json_int_t)r->started_unix));
    json_object_set_new(root, "timestamp_ms", json_integer(r->record.start_ms ? (json_int_t)r->record.start_ms
                                                           : (json_int_t)r->started_unix * 1000));
    json_object_set_new(root, "time", json_string(when));
    json_t *shown = fio_opts_section_as(r->record.plan_text, NULL, 1);
    if (json_object_size(shown))     /* fio leaves it out when there is none */
        json_object_set(root, "global options", shown);
    json_decref(shown);
    for (uint32_t i = 0; i < r->nphases; i++) {
        if (!r->phases[i].finished)
            continue;
        /* without group_reporting fio writes an entry per job and clone,
         * in job order, clones together; with it (or without per-clone
         * figures: result_clones.h) the phase's one */
        if (result_clones_usable(r, i)) {
            if (!scratch)
                scratch = xmalloc(sizeof(*scratch));
            for (uint32_t c = 0; c < r->phases[i].clones->n; c++)
                json_array_append_new(jobs, job_json(r, i, -1, (int)c, plus, global, scratch));
        } else {
            json_array_append_new(jobs, job_json(r, i, -1, -1, plus, global, NULL));
        }
        for (uint32_t a = 0; a < r->nagents; a++)
            if (r->phases[i].agents[a].done)
                json_array_append_new(clients, job_json(r, i, (int)a, -1, plus, global, NULL));
    }
    free(scratch);
    json_decref(global);
    json_object_set_new(root, "jobs", jobs);
    json_object_set_new(root, "client_stats", clients);
    /* disk_util: fio writes it only for local block devices it watched;
     * nfstorm's agents watch none, so it is left out, as fio leaves it out */
    json_object_set_new(root, "nfstorm", nfstorm_obj(r));
    rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', out);
    json_decref(root);
    /* json_dumpf fails on a failed write as on a failed allocation: the
     * stream's error flag tells them apart */
    return rc == 0 ? 0 : ferror(out) ? -EIO : -ENOMEM;
}

/* terse version 3: fio's documented field order, times in microseconds. */
static void terse_ddir(FILE *out, const struct phase_result *ph, enum op_type t)
{
    const struct op_stats *o = &ph->totals.op[t];
    const struct hist *h = &o->lat;
    struct minmax bw;
    double us = 1000.0;

    interval_rates(ph, -1, t, 1, &bw);
    fprintf(out, ";%llu;%llu;%llu;%llu", (unsigned long long)(o->bytes / 1024),
            (unsigned long long)(result_bw(o, ph->duration_ns) / 1024),
            (unsigned long long)llround(result_iops(o, ph->duration_ns)),
            (unsigned long long)(ph->duration_ns / NS_PER_MS));
    fprintf(out, ";0;0;0.000000;0.000000");
    fprintf(out, ";%llu;%llu;%f;%f", (unsigned long long)((h->count ? h->min_ns : 0) / 1000),
            (unsigned long long)((h->count ? h->max_ns : 0) / 1000), hist_mean(h) / us,
            hist_stddev(h) / us);
    for (size_t i = 0; i < 20; i++) {
        if (i < NPCT && h->count)
            fprintf(out, ";%f%%=%llu", fio_pct[i], (unsigned long long)(hist_percentile(h, fio_pct[i]) / 1000));
        else
            fprintf(out, ";0%%=0");
    }
    fprintf(out, ";%llu;%llu;%f;%f", (unsigned long long)((h->count ? h->min_ns : 0) / 1000),
            (unsigned long long)((h->count ? h->max_ns : 0) / 1000), hist_mean(h) / us,
            hist_stddev(h) / us);
    fprintf(out, ";%llu;%llu;%f%%;%f;%f", (unsigned long long)bw.min, (unsigned long long)bw.max,
            o->ops ? 100.0 : 0.0, bw.mean, bw.dev);
}

static void write_terse(FILE *out, const struct run_result *r)
{
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];
        struct op_stats all;
        double user = 0, sys = 0, avail = 0;

        if (!ph->finished)
            continue;
        fprintf(out, "3;nfstorm-0.1;%s;%u;0", ph->name, i);
        terse_ddir(out, ph, OP_READ);
        terse_ddir(out, ph, OP_WRITE);
        for (uint32_t a = 0; a < r->nagents; a++) {
            if (!ph->agents[a].done)
                continue;
            user += ph->agents[a].cpu_user_s;
            sys += ph->agents[a].cpu_sys_s;
            avail += (double)ph->agents[a].duration_ns / 1e9 * ph->agents[a].cores;
        }
        fprintf(out, ";%f%%;%f%%;0;0;0", avail > 0 ? user * 100 / avail : 0,
                avail > 0 ? sys * 100 / avail : 0);
        fprintf(out, ";100.0%%;0.0%%;0.0%%;0.0%%;0.0%%;0.0%%;0.0%%");
        result_all_ops(&ph->totals, &all);
        for (size_t e = 0; e < NEDGES(lat_us_edges); e++)
            fprintf(out, ";%.2f%%", lat_share(&all.lat, e ? lat_us_edges[e - 1] * 1000 : 0,
                                              lat_us_edges[e] * 1000));
        for (size_t e = 0; e < NEDGES(lat_ms_edges); e++)
            fprintf(out, ";%.2f%%", lat_share(&all.lat, e ? lat_ms_edges[e - 1] * NS_PER_MS : NS_PER_MS,
                                              lat_ms_edges[e] * NS_PER_MS));
        fprintf(out, ";%.2f%%\n", lat_share(&all.lat, 2000 * NS_PER_MS, UINT64_MAX));
    }
}

/* fio's "normal" output, abridged: per phase the job block, then per agent
 * one line, then the group's run status. */
static void normal_ddir(FILE *out, enum op_type t, const struct op_stats *o, uint64_t dur,
                        int base, int detail)
{
    const char *indent = detail ? "  " : "    ";
    char iops[32], bw[32], bw2[32], io[32];
    const struct hist *h = &o->lat;

    if (!o->ops)
        return;
    fprintf(out, "%s%5s: IOPS=%s, BW=%s (%s)(%s/%llumsec)\n", indent, op_type_name(t),
            units_fmt_count(iops, sizeof(iops), result_iops(o, dur)),
            units_fmt_rate(bw, sizeof(bw), result_bw(o, dur), base),
            units_fmt_rate(bw2, sizeof(bw2), result_bw(o, dur), base == 1000 ? 1024 : 1000),
            units_fmt_bytes(io, sizeof(io), (double)o->bytes, base), (unsigned long long)(dur / NS_PER_MS));
    if (!detail)
        return;
    for (int k = 0; k < 2; k++)    /* one latency per op: clat and lat alike */
        fprintf(out, "%s (nsec): min=%llu, max=%llu, avg=%.2f, stdev=%.2f\n", k ? "     lat" : "    clat",
                (unsigned long long)(h->count ? h->min_ns : 0), (unsigned long long)(h->count ? h->max_ns : 0),
                hist_mean(h), hist_stddev(h));
    fprintf(out, "    clat percentiles (nsec):\n");
    for (size_t i = 0; i < NPCT; i++)
        fprintf(out, "%s%5.2fth=[%llu]%s", i % 4 == 0 ? "     | " : " ", fio_pct[i],
                (unsigned long long)hist_percentile(h, fio_pct[i]),
                i + 1 == NPCT ? "\n" : i % 4 == 3 ? ",\n" : ",");
}

static void write_normal(FILE *out, const struct run_result *r, int base)
{
    for (uint32_t i = 0; i < r->nphases; i++) {
        const struct phase_result *ph = &r->phases[i];

        if (!ph->finished)
            continue;
        fprintf(out, "%s: (groupid=%u, jobs=%u): err= 0: agents=%u\n", ph->name, i,
                ph->numjobs * r->nagents, r->nagents);
        for (int t = OP_READ; t <= OP_WRITE; t++)
            normal_ddir(out, (enum op_type)t, &ph->totals.op[t], ph->duration_ns, base, 1);
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct agent_phase *ap = &ph->agents[a];

            if (!ap->done)
                continue;
            fprintf(out, "  client %u (%s):\n", r->agents[a].id, r->agents[a].host);
            for (int t = OP_READ; t <= OP_WRITE; t++)
                normal_ddir(out, (enum op_type)t, &result_agent_totals(r, i, a)->op[t],
                            ap->duration_ns ? ap->duration_ns : ph->duration_ns, base, 0);
        }
        fprintf(out, "\nRun status group %u (all jobs):\n", i);
        for (int t = OP_READ; t <= OP_WRITE; t++) {
            const struct op_stats *o = &ph->totals.op[t];
            char bw[32], io[32];

            if (!o->ops)
                continue;
            fprintf(out, "  %5s: bw=%s, io=%s, run=%llumsec\n", t == OP_READ ? "READ" : "WRITE",
                    units_fmt_rate(bw, sizeof(bw), result_bw(o, ph->duration_ns), base),
                    units_fmt_bytes(io, sizeof(io), (double)o->bytes, base),
                    (unsigned long long)(ph->duration_ns / NS_PER_MS));
        }
        fputc('\n', out);
    }
}

int report_fio(FILE *out, const struct run_result *r, unsigned mask, int unit_base)
{
    int rc = 0;

    if (mask & REPORT_FIO_TERSE)
        write_terse(out, r);
    if (mask & (REPORT_FIO_JSON | REPORT_FIO_JSON_PLUS))
        rc = write_json(out, r, (mask & REPORT_FIO_JSON_PLUS) != 0);
    if (mask & REPORT_FIO_NORMAL)
        write_normal(out, r, unit_base);
    return rc;
}
