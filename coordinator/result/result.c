/* result: the coordinator's model of a run's measurements, and its merge.
 *
 * Design: every figure here is a sum.  Agents send per-interval op_sets and
 * per-phase totals; we add them bucket by bucket (op_set_merge), never
 * average, so fleet numbers are exact and order-independent: intervals may
 * arrive in any order, from any agent, with gaps.
 *
 * Interval slots are grown on demand.  The header has no capacity field, so
 * the capacity is implied: the smallest power of two >= nintervals (min 16,
 * capped at RESULT_MAX_INTERVALS).
 * Growing to k+1 slots reallocates only when that implied capacity changes,
 * which keeps appends amortised O(1).  Slots between nintervals and the
 * capacity are never read; they are initialised when nintervals moves past
 * them.
 *
 * Memory.  A dense op_set is 11 op types x 2 histograms x 2496 buckets,
 * ~440 KB; one per interval would be 1.5 GB for an hour at 1 s.  So a slot
 * holds its merge in the chunked recording form (pending, an op_rec: only
 * the op types and 64-bucket ranges that had ops, a few KB) only while
 * agents are still sending that interval, allocated on its first report
 * (gap slots never get one); a fleet whose slowest agent lags hundreds of
 * short intervals holds hundreds of these, so they must stay small.  Once
 * the run has told its observers about the interval, result_interval_seal
 * keeps the counters (count[], always maintained) and, for each op type
 * that is not empty, the two histograms in sparse form: 2-3 bytes per used
 * bucket (hist.h), typically a few hundred, written to the run's spill
 * file (spill.h: a day of 100 agents would keep ~100 MiB of them in the
 * heap), and packs the per-agent counters (agent_pack.h) in the heap,
 * where every per-agent series reads them.  Sealing is
 * lossless both ways, so a late report into a sealed slot is unpacked to
 * the filling form, added to and sealed again, and every reader sees
 * exactly the sum it would have seen with dense slots.
 *
 * Derived figures (iops, bandwidth, client-bound) live here too so the text
 * and JSON reporters cannot disagree about them.
 *
 * Why one file of ~1,070 lines: an interval slot's life (open on its first
 * report, add, seal into the spill and the packed agents, unseal on a late
 * report, free) and the merge are one invariant, every figure an exact sum
 * however the reports arrive, and each step reads the same slot layout.
 * What only reads the model lives apart: result_load, client_result,
 * result_errors, result_nfs, result_clones, result_verify, the spill. */
#include "coordinator/result/result.h"
#include "coordinator/result/sched_debt.h"
#include "coordinator/run/sweep.h"
#include "common/sat.h"
#include "coordinator/result/result_nfs.h"
#include "coordinator/result/client_result.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/result/result_clones.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/result/agent_pack.h"
#include "coordinator/result/spill.h"

#include <errno.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#include "common/varint.h"
#include "common/xmalloc.h"

#define MIN_SLOTS 16u

static uint32_t slot_capacity(uint32_t n)
{
    uint32_t c = MIN_SLOTS;

    if (n == 0)
        return 0;
    while (c < n)
        c *= 2;   /* n <= RESULT_MAX_INTERVALS < 2^20: no overflow */
    /* Never reserve past the limit: 2^20 slots would be 73% more than the
     * largest array the limit can ask for. */
    return c > RESULT_MAX_INTERVALS ? RESULT_MAX_INTERVALS : c;
}

void result_init(struct run_result *r, const struct plan *p, uint32_t nagents, uint32_t interval_ms)
{
    memset(r, 0, sizeof(*r));
    r->nagents = nagents;
    r->agents = xcalloc(nagents ? nagents : 1, sizeof(*r->agents));
    /* Ids are the agents' indices; the rest is filled as agents connect. */
    for (uint32_t a = 0; a < nagents; a++)
        r->agents[a].id = a;

    r->nphases = p->nphases;
    r->phases = xcalloc(p->nphases ? p->nphases : 1, sizeof(*r->phases));
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *src = &p->phases[i];
        struct phase_result *ph = &r->phases[i];
        uint32_t ncoh = 0, nwarn = 0;

        snprintf(ph->name, sizeof(ph->name), "%s", src->name);
        ph->njobs = src->njobs;
        if (src->njobs > 0) {
            ph->rw = src->jobs[0].rw;
            /* a write-only job's block size is the writes' (bs=4k,64k) */
            ph->bs = !rw_mode_reads(src->jobs[0].rw) && src->jobs[0].bs_w ? src->jobs[0].bs_w
                                                                           : src->jobs[0].bs;
            ph->rwmixread = src->jobs[0].rwmixread;
        }
        for (uint32_t j = 0; j < src->njobs; j++) {
            const struct job_spec *js = &src->jobs[j], *j0 = &src->jobs[0];
            int both = rw_mode_reads(js->rw) && rw_mode_writes(js->rw);

            if (js->rw != j0->rw || js->bs != j0->bs || js->bs_w != j0->bs_w ||
                (both && js->rwmixread != j0->rwmixread) || (both && js->bs_w && js->bs_w != js->bs))
                ph->jobs_differ = 1;
            ph->numjobs += js->numjobs;
            ncoh += js->rw == RW_COHERENCE;
            nwarn += js->rw == RW_COHERENCE && js->coherence_never_warn;
            if (js->error_threshold > ph->error_threshold)
                ph->error_threshold = js->error_threshold;
            if (js->error_threshold_pct > ph->error_threshold_pct)
                ph->error_threshold_pct = js->error_threshold_pct;
        }
        /* the coherence verdict warns when every coherence job says so */
        ph->coh_never_warn = (uint8_t)(ncoh && nwarn == ncoh);
        ph->interval_ms = interval_ms;
        /* agents' totals start sealed and empty: nothing to allocate */
        ph->agents = xcalloc(nagents ? nagents : 1, sizeof(*ph->agents));
        for (uint32_t a = 0; a < nagents; a++) {
            /* an agent takes part when any job of the phase selects it */
            for (uint32_t j = 0; j < src->njobs && !ph->agents[a].participating; j++)
                ph->agents[a].participating = (uint8_t)plan_agents_match(src->jobs[j].agents, a);
        }
        sched_debt_asked(ph, src, nagents);   /* open loop: what it asks */
        op_set_init(&ph->totals);
        result_verify_init(ph, src, nagents);
    }
}

/* Sealed histograms, shared by interval slots and agent totals. */
static void sealed_free(struct sealed_op **op, uint8_t *n)
{
    for (uint8_t i = 0; i < *n; i++) {
        hist_sparse_free(&(*op)[i].lat);
        hist_sparse_free(&(*op)[i].svc);
    }
    free(*op);
    *op = NULL;
    *n = 0;
}

/* Free a filling slot's merged histograms; counters are kept. */
static void slot_drop_pending(struct interval_slot *s)
{
    if (s->pending)
        op_rec_free(s->pending);
    free(s->pending);
    s->pending = NULL;
}

/* An op type that holds nothing at all: it is left out of the sealed form
 * and comes back as op_set_init made it. */
static int op_blank(const struct op_stats *o)
{
    if (o->ops || o->bytes || o->errors || o->timeouts)
        return 0;
    for (int h = 0; h < 2; h++) {
        const struct hist *x = h ? &o->svc : &o->lat;

        if (x->count || x->sum_ns || x->min_ns != UINT64_MAX || x->max_ns)
            return 0;
        for (unsigned i = 0; i < HIST_NBUCKETS; i++)
            if (x->bucket[i])
                return 0;
    }
    return 1;
}

/* op[n] (empty) := the histograms of s's op types that are not blank. */
static void sealed_from(struct sealed_op **op, uint8_t *n, const struct op_set *s)
{
    uint8_t k = 0;

    for (int t = 0; t < OP__COUNT; t++)
        k += !op_blank(&s->op[t]);
    if (k)
        *op = xcalloc(k, sizeof(**op));
    for (int t = 0; t < OP__COUNT; t++) {
        struct sealed_op *so;

        if (op_blank(&s->op[t]))
            continue;
        so = &(*op)[(*n)++];
        so->type = (uint8_t)t;
        hist_sparse_from(&so->lat, &s->op[t].lat);
        hist_sparse_from(&so->svc, &s->op[t].svc);
    }
}

/* Op type t of a sealed form (counters c[t], histograms op[n]) into o. */
static void sealed_to(const struct op_counts *c, const struct sealed_op *op, uint8_t n, int t,
                      struct op_stats *o)
{
    o->ops = c[t].ops;
    o->bytes = c[t].bytes;
    o->errors = c[t].errors;
    o->timeouts = c[t].timeouts;
    for (uint8_t i = 0; i < n; i++)
        if (op[i].type == t) {
            hist_sparse_to(&op[i].lat, &o->lat);
            hist_sparse_to(&op[i].svc, &o->svc);
            return;
        }
    hist_init(&o->lat);
    hist_init(&o->svc);
}

/* Op type t of a filling slot's merge into o (counters from count[], as
 * sealed_to takes them). */
static void pending_op_to(const struct interval_slot *slot, int t, struct op_stats *o)
{
    const struct op_stats_rec *p = slot->pending->op[t];

    sealed_to(slot->count, NULL, 0, t, o);
    if (p) {
        hist_rec_sum(&p->lat, &o->lat);
        hist_rec_sum(&p->svc, &o->svc);
    }
}

/* pending += s's histograms only (s's counters are 0): op_rec_add skips
 * op types without ops, as op_set_merge does. */
static void pending_add_hists(struct op_rec *pending, const struct op_set *s)
{
    for (int t = 0; t < OP__COUNT; t++) {
        struct op_stats_rec *o;

        if (!s->op[t].lat.count && !s->op[t].svc.count)
            continue;
        o = op_rec_get(pending, (enum op_type)t);
        hist_rec_add(&o->lat, &s->op[t].lat);
        hist_rec_add(&o->svc, &s->op[t].svc);
    }
}

struct spill *result_spill(struct run_result *r)
{
    if (!r->spill)
        r->spill = spill_new();
    return r->spill;
}

/* A sealed slot's bytes: n, then per op type its type, lat and svc (each
 * count, sum, min, max, n and len varints, then the len bytes of buckets,
 * hist.h's hist_sparse), then the agents (agent_pack.h). */
static void hist_pack(struct spill_buf *w, const struct hist *h)
{
    struct hist_sparse sp;

    hist_sparse_from(&sp, h);
    const uint64_t head[6] = { sp.count, sp.sum_ns, sp.min_ns, sp.max_ns, sp.n, sp.len };
    for (int i = 0; i < 6; i++)
        spill_buf_varint(w, head[i]);
    spill_buf_bytes(w, sp.buckets, sp.len);
    hist_sparse_free(&sp);
}

/* The op type at *p (hist_pack x 2) into *lat and *svc, their buckets left
 * in place (read only); its type. */
static uint8_t hists_unpack(const uint8_t **p, struct hist_sparse *lat, struct hist_sparse *svc)
{
    struct hist_sparse *both[2] = { lat, svc };
    uint8_t type = *(*p)++;

    for (int h = 0; h < 2; h++) {
        uint64_t v[6];

        for (int i = 0; i < 6; i++)
            v[i] = varint_get(p);
        *both[h] = (struct hist_sparse){ v[0], v[1], v[2], v[3], (uint32_t)v[4], (uint32_t)v[5],
                                         (uint8_t *)(uintptr_t)*p };
        *p += both[h]->len;
    }
    return type;
}

/* A sealed slot's op types that hold something: their number into *n, the
 * first at the pointer returned (NULL: none); step with hists_unpack. */
static const uint8_t *slot_hists(const struct interval_slot *slot, uint8_t *n)
{
    const uint8_t *p;

    *n = 0;
    if (!slot->spill)
        return NULL;
    p = spill_get(slot->spill, slot->at, slot->hist_len);
    *n = *p++;
    return p;
}

/* One op type of a sealed (or never written) slot into o. */
static void sealed_op_to(const struct interval_slot *slot, int t, struct op_stats *o)
{
    uint8_t n;
    const uint8_t *p = slot_hists(slot, &n);

    sealed_to(slot->count, NULL, 0, t, o);
    for (uint8_t i = 0; i < n; i++) {
        struct hist_sparse lat, svc;

        if (hists_unpack(&p, &lat, &svc) == t) {
            hist_sparse_to(&lat, &o->lat);
            hist_sparse_to(&svc, &o->svc);
            return;
        }
    }
}

void result_free(struct run_result *r)
{
    sweep_set_free(r->sweeps);
    r->sweeps = NULL;
    result_nfs_free(r);
    for (uint32_t i = 0; i < r->nphases; i++) {
        struct phase_result *ph = &r->phases[i];

        for (uint32_t k = 0; k < ph->nintervals; k++) {
            slot_drop_pending(&ph->intervals[k]);
            free(ph->intervals[k].agent);
            free(ph->intervals[k].packed);
        }
        free(ph->intervals);
        free(ph->spare_agents);
        for (uint32_t a = 0; ph->agents && a < r->nagents; a++) {
            free(ph->agents[a].error);
            free(ph->agents[a].storage);
            sealed_free(&ph->agents[a].sealed.op, &ph->agents[a].sealed.n);
        }
        free(ph->agents);
        client_result_free(ph);
        coh_set_free(&ph->coh);
        result_verify_free(ph);
        result_errors_free(ph, r->nagents);
        result_clones_free(ph);
    }
    free(r->phases);
    free(r->agents);
    free(r->view);
    spill_free(r->spill);
    run_record_free(&r->record);
    memset(r, 0, sizeof(*r));
}

/* A zeroed dense array of nagents counters: the one the last sealed slot
 * gave back, else a new one.  Reusing it keeps a long run's heap from
 * being carved between the small packed blocks of sealed slots. */
static struct counters *dense_agents(struct phase_result *ph, uint32_t nagents)
{
    struct counters *a = ph->spare_agents;

    if (!a)
        return xcalloc(nagents ? nagents : 1, sizeof(*a));
    ph->spare_agents = NULL;
    memset(a, 0, (nagents ? nagents : 1) * sizeof(*a));
    return a;
}

/* Make slots [0, n) exist; new ones start empty. */
static void grow_intervals(struct phase_result *ph, uint32_t n, uint32_t nagents)
{
    uint32_t cap = slot_capacity(ph->nintervals);

    if (n <= ph->nintervals)
        return;
    if (n > cap) {
        cap = slot_capacity(n);
        ph->intervals = xrealloc(ph->intervals, (size_t)cap * sizeof(*ph->intervals));
    }
    for (uint32_t k = ph->nintervals; k < n; k++) {
        struct interval_slot *s = &ph->intervals[k];

        memset(s, 0, sizeof(*s));
        s->agent = dense_agents(ph, nagents);
    }
    ph->nintervals = n;
}

/* A sealed slot back in the filling form, to be added to (late data, a
 * journal's late lines): rare, so no caching; slot_pack seals it again. */
static void slot_unpack(struct phase_result *ph, struct interval_slot *slot, uint32_t nagents)
{
    struct hist *h;
    uint8_t n;
    const uint8_t *p = slot_hists(slot, &n);

    if (!p)
        return;
    h = xmalloc(sizeof(*h));
    slot->pending = xmalloc(sizeof(*slot->pending));
    op_rec_init(slot->pending);
    for (uint8_t i = 0; i < n; i++) {
        struct hist_sparse lat, svc;
        struct op_stats_rec *o = op_rec_get(slot->pending, (enum op_type)hists_unpack(&p, &lat, &svc));

        hist_sparse_to(&lat, h);
        hist_rec_add(&o->lat, h);
        hist_sparse_to(&svc, h);
        hist_rec_add(&o->svc, h);
    }
    free(h);
    slot->agent = dense_agents(ph, nagents);
    agent_pack_decode(slot->packed, slot->agent, nagents);
    free(slot->packed);
    slot->packed = NULL;
    slot->spill = NULL;
}

/* Slot k of phase (made if new) in the filling form, to be added to. */
static struct interval_slot *slot_open(struct run_result *r, uint32_t phase, uint32_t k)
{
    struct phase_result *ph = &r->phases[phase];
    struct interval_slot *slot;

    grow_intervals(ph, k + 1, r->nagents);
    slot = &ph->intervals[k];
    slot_unpack(ph, slot, r->nagents);
    if (!slot->pending) {
        slot->pending = xmalloc(sizeof(*slot->pending));
        op_rec_init(slot->pending);
    }
    return slot;
}

/* Seal a filling slot into the run's spill: the op types of its merge that
 * hold something (op_type by op type through one dense op_stats, 40 KB, not
 * an op_set, 440 KB), then its agents; a slot not sealed keeps filling. */
static void slot_pack(struct run_result *r, struct phase_result *ph, struct interval_slot *slot)
{
    struct spill_buf w = { 0 };
    struct op_stats *o = xmalloc(sizeof(*o));
    uint8_t n = 0;

    if (!slot->is_sealed || slot->spill)
        return free(o);
    spill_buf_byte(&w, 0);
    for (int t = 0; slot->pending && t < OP__COUNT; t++) {
        if (!slot->pending->op[t])
            continue;
        pending_op_to(slot, t, o);
        if (op_blank(o))
            continue;
        spill_buf_byte(&w, (uint8_t)t);
        hist_pack(&w, &o->lat);
        hist_pack(&w, &o->svc);
        n++;
    }
    free(o);
    w.b[0] = n;
    slot->hist_len = (uint32_t)w.len;
    slot->spill = result_spill(r);
    slot->at = spill_put(slot->spill, w.b, slot->hist_len);
    w.len = 0;
    agent_pack_encode(&w, slot->agent, r->nagents);
    slot->packed = xrealloc(w.b, w.len ? w.len : 1);
    slot_drop_pending(slot);
    if (!ph->spare_agents)
        ph->spare_agents = slot->agent;
    else
        free(slot->agent);
    slot->agent = NULL;
}

void result_slot_agent(const struct interval_slot *slot, uint32_t a, struct counters *out)
{
    if (slot->agent)
        *out = slot->agent[a];
    else if (slot->packed)
        agent_pack_get(slot->packed, a, out);
    else
        memset(out, 0, sizeof(*out));
}

void result_slot_agents(const struct interval_slot *slot, uint32_t nagents, struct counters *out)
{
    if (slot->agent)
        memcpy(out, slot->agent, nagents * sizeof(*out));
    else if (slot->packed)
        agent_pack_decode(slot->packed, out, nagents);
    else
        memset(out, 0, nagents * sizeof(*out));
}

void result_interval_agent(const struct run_result *r, uint32_t phase, uint32_t k, uint32_t a,
                           struct counters *out)
{
    if (phase >= r->nphases || k >= r->phases[phase].nintervals || a >= r->nagents) {
        memset(out, 0, sizeof(*out));
        return;
    }
    result_slot_agent(&r->phases[phase].intervals[k], a, out);
}

int result_add_interval(struct run_result *r, uint32_t phase, uint32_t agent,
                        uint32_t k, const struct op_set *s)
{
    struct interval_slot *slot;
    struct counters *c;

    if (phase >= r->nphases || agent >= r->nagents || k >= RESULT_MAX_INTERVALS)
        return -EINVAL;
    slot = slot_open(r, phase, k);
    op_rec_add(slot->pending, s);
    for (int t = 0; t < OP__COUNT; t++) {
        slot->count[t].ops = sat_add_u64(slot->count[t].ops, s->op[t].ops);
        slot->count[t].bytes = sat_add_u64(slot->count[t].bytes, s->op[t].bytes);
        slot->count[t].errors = sat_add_u64(slot->count[t].errors, s->op[t].errors);
        slot->count[t].timeouts = sat_add_u64(slot->count[t].timeouts, s->op[t].timeouts);
    }
    c = &slot->agent[agent];
    c->reported = 1;
    for (int t = 0; t < OP__COUNT; t++) {
        c->ops[t] = sat_add_u64(c->ops[t], s->op[t].ops);
        c->bytes[t] = sat_add_u64(c->bytes[t], s->op[t].bytes);
        c->errors[t] = sat_add_u64(c->errors[t], s->op[t].errors);
    }
    slot_pack(r, &r->phases[phase], slot);
    /* Counts reports, not distinct agents: an agent never sends the same
     * interval twice, and counting is cheaper than a per-agent flag. */
    slot->nreported++;
    return 0;
}

int result_add_interval_latency(struct run_result *r, uint32_t phase, uint32_t k, const struct op_set *s)
{
    struct interval_slot *slot;

    if (phase >= r->nphases || k >= RESULT_MAX_INTERVALS)
        return -EINVAL;
    for (int t = 0; t < OP__COUNT; t++)
        if (s->op[t].ops || s->op[t].bytes || s->op[t].errors || s->op[t].timeouts)
            return -EINVAL;
    slot = slot_open(r, phase, k);
    pending_add_hists(slot->pending, s);
    slot_pack(r, &r->phases[phase], slot);
    return 0;
}

void result_interval_seal(struct run_result *r, uint32_t phase, uint32_t k)
{
    struct interval_slot *slot;

    if (phase >= r->nphases || k >= r->phases[phase].nintervals)
        return;
    slot = &r->phases[phase].intervals[k];
    if (slot->is_sealed)
        return;
    slot->is_sealed = 1;
    slot_pack(r, &r->phases[phase], slot);
#ifdef __GLIBC__
    /* Sealed intervals leave the heap (spill.h), so what stays there is
     * short-lived: the filling slots' blocks, tens of KB each, hundreds of
     * them while an agent lags.  Hand their freed pages back now and then,
     * or the RSS keeps the worst lag's high-water mark for the whole run. */
    if (k % 64 == 63)
        malloc_trim(0);
#endif
}

const struct op_set *result_interval_ops(const struct run_result *r, uint32_t phase, uint32_t k,
                                         struct op_set *scratch)
{
    const struct interval_slot *slot = &r->phases[phase].intervals[k];

    for (int t = 0; t < OP__COUNT; t++)
        if (slot->pending)
            pending_op_to(slot, t, &scratch->op[t]);
        else
            sealed_op_to(slot, t, &scratch->op[t]);
    return scratch;
}

const struct op_stats *result_interval_op(const struct run_result *r, uint32_t phase, uint32_t k,
                                          enum op_type t, struct op_stats *scratch)
{
    const struct interval_slot *slot = &r->phases[phase].intervals[k];

    if (slot->pending)
        pending_op_to(slot, (int)t, scratch);
    else
        sealed_op_to(slot, (int)t, scratch);
    return scratch;
}

void result_interval_all(const struct run_result *r, uint32_t phase, uint32_t k, struct op_stats *out)
{
    const struct interval_slot *slot = &r->phases[phase].intervals[k];
    const uint8_t *hists;
    uint8_t n;

    /* what result_all_ops does, straight from the pending or sealed form */
    memset(out, 0, sizeof(*out));
    hist_init(&out->lat);
    hist_init(&out->svc);
    for (int t = 0; t < OP__COUNT; t++) {
        if (t == OP_SYNC)
            continue;
        out->ops = sat_add_u64(out->ops, slot->count[t].ops);
        out->bytes = sat_add_u64(out->bytes, slot->count[t].bytes);
        out->errors = sat_add_u64(out->errors, slot->count[t].errors);
    }
    for (int t = 0; slot->pending && t < OP__COUNT; t++)
        if (t != OP_SYNC && slot->pending->op[t])
            hist_rec_sum(&slot->pending->op[t]->lat, &out->lat);
    hists = slot_hists(slot, &n);
    for (uint8_t i = 0; i < n; i++) {
        struct hist_sparse lat, svc;

        if (hists_unpack(&hists, &lat, &svc) != OP_SYNC)
            hist_sparse_merge(&out->lat, &lat);
    }
}

/* The one expanded agent total result_agent_totals hands out. */
struct result_view {
    int valid;
    uint32_t phase, agent;
    struct op_set set;
};

int result_set_agent_phase(struct run_result *r, uint32_t phase, uint32_t agent,
                           const struct agent_phase *ap, const struct op_set *totals)
{
    struct agent_phase *dst;
    char *error;
    uint8_t participating;
    struct storage_info *storage;
    uint32_t nstorage;

    if (phase >= r->nphases || agent >= r->nagents)
        return -EINVAL;
    dst = &r->phases[phase].agents[agent];
    error = dst->error;
    storage = dst->storage;      /* the record's, not the totals' */
    nstorage = dst->nstorage;
    participating = dst->participating;
    sealed_free(&dst->sealed.op, &dst->sealed.n);
    *dst = *ap;
    result_seal(&dst->sealed, totals);
    /* Having totals means the agent is done (or salvaged: ap->salvaged). */
    dst->done = 1;
    dst->error = error;
    dst->storage = storage;
    dst->nstorage = nstorage;
    dst->participating = participating;
    if (r->view)
        r->view->valid = 0;
    return 0;
}

const struct op_set *result_agent_totals(const struct run_result *r, uint32_t phase, uint32_t agent)
{
    struct result_view *v = r->view;
    const struct op_set_sealed *sd = &r->phases[phase].agents[agent].sealed;

    if (!v) {
        /* the result is const to its readers; the view is a cache it owns */
        v = ((struct run_result *)r)->view = xmalloc(sizeof(*v));
        v->valid = 0;
    }
    if (v->valid && v->phase == phase && v->agent == agent)
        return &v->set;
    for (int t = 0; t < OP__COUNT; t++)
        sealed_to(sd->count, sd->op, sd->n, t, &v->set.op[t]);
    v->valid = 1;
    v->phase = phase;
    v->agent = agent;
    return &v->set;
}

int result_agent_empty(const struct agent_phase *ap)
{
    for (int t = 0; t < OP__COUNT; t++)
        if (ap->sealed.count[t].ops)
            return 0;
    return 1;
}

/* dst += an agent's sealed totals, as op_set_merge would add them dense. */
static void sealed_merge(struct op_set *dst, const struct op_set_sealed *sd)
{
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_counts *c = &sd->count[t];

        if (c->ops == 0 && c->errors == 0)
            continue;   /* op_set_merge skips these too */
        dst->op[t].ops = sat_add_u64(dst->op[t].ops, c->ops);
        dst->op[t].bytes = sat_add_u64(dst->op[t].bytes, c->bytes);
        dst->op[t].errors = sat_add_u64(dst->op[t].errors, c->errors);
        dst->op[t].timeouts = sat_add_u64(dst->op[t].timeouts, c->timeouts);
        for (uint8_t i = 0; i < sd->n; i++)
            if (sd->op[i].type == t) {
                hist_sparse_merge(&dst->op[t].lat, &sd->op[i].lat);
                hist_sparse_merge(&dst->op[t].svc, &sd->op[i].svc);
            }
    }
}

void result_seal(struct op_set_sealed *dst, const struct op_set *s)
{
    memset(dst, 0, sizeof(*dst));
    for (int t = 0; t < OP__COUNT; t++) {
        dst->count[t].ops = s->op[t].ops;
        dst->count[t].bytes = s->op[t].bytes;
        dst->count[t].errors = s->op[t].errors;
        dst->count[t].timeouts = s->op[t].timeouts;
    }
    sealed_from(&dst->op, &dst->n, s);
}

void result_sealed_merge(struct op_set *dst, const struct op_set_sealed *sd)
{
    sealed_merge(dst, sd);
}

void result_sealed_free(struct op_set_sealed *sd)
{
    sealed_free(&sd->op, &sd->n);
}

int result_set_agent_error(struct run_result *r, uint32_t phase, uint32_t agent, const char *text)
{
    struct agent_phase *ap;
    size_t old, n = strlen(text);

    if (phase >= r->nphases || agent >= r->nagents)
        return -EINVAL;
    ap = &r->phases[phase].agents[agent];
    old = ap->error ? strlen(ap->error) : 0;
    /* bounded: an agent repeating errors cannot grow the result */
    if ((old && strcmp(ap->error, text) == 0) || old + n + 3 > RESULT_ERROR_MAX)
        return 0;
    ap->error = xrealloc(ap->error, old + n + 3);
    if (old) {
        memcpy(ap->error + old, "; ", 2);
        old += 2;
    }
    memcpy(ap->error + old, text, n + 1);
    result_clean_text(ap->error + old);
    return 0;
}

void result_clean_text(char *text)
{
    for (unsigned char *p = (unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            *p = '?';
}

/* The length of the well-formed UTF-8 sequence at p (2..4 bytes: no
 * overlong form, no surrogate, at most U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : 0;
    uint32_t c;

    if (n == 0 || p[0] >= 0xf5)
        return 0;
    c = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

void result_clean_utf8(char *text)
{
    unsigned char *p = (unsigned char *)text;

    while (*p) {
        uint32_t cp = 0;
        size_t n = *p >= 0x80 ? utf8_seq(p, &cp) : 0;

        /* C1 controls, line/paragraph separators and the bidirectional
         * overrides and isolates would reorder or break a report's lines */
        if (n && !(cp < 0xa0 || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
                   (cp >= 0x2066 && cp <= 0x2069))) {
            p += n;
            continue;
        }
        if (n) {                  /* one '?' for the whole character */
            *p++ = '?';
            memmove(p, p + n - 1, strlen((char *)p + n - 1) + 1);
            continue;
        }
        if (*p < 0x20 || *p >= 0x7f)
            *p = '?';
        p++;
    }
}

void result_phase_finish(struct run_result *r, uint32_t phase)
{
    struct phase_result *ph;
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t ndone = 0;

    result_nfs_finish(r, phase);

    if (phase >= r->nphases)
        return;
    ph = &r->phases[phase];
    /* Recomputed from scratch so a second call (late agent) stays exact. */
    op_set_init(&ph->totals);
    ph->duration_ns = 0;
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_phase *ap = &ph->agents[a];

        if (!ap->done)
            continue;
        sealed_merge(&ph->totals, &ap->sealed);
        if (ap->duration_ns > ph->duration_ns)
            ph->duration_ns = ap->duration_ns;
        /* Skew is over agents that really issued ops: a salvaged (lost)
         * agent has no start instant, an idle one's is only t0. */
        if (ap->salvaged || result_agent_empty(ap))
            continue;
        ndone++;
        if (ap->start_ns < first)
            first = ap->start_ns;
        if (ap->start_ns > last)
            last = ap->start_ns;
    }
    ph->nstarted = ndone;
    ph->ran = 1;          /* it has results, so it was started */
    ph->start_skew_ns = ndone > 1 ? last - first : 0;
    ph->finished = 1;
    for (uint32_t k = 0; k < ph->nintervals; k++)
        result_interval_seal(r, phase, k);
}

uint64_t result_ok_ops(const struct op_stats *o)
{
    return result_ok_count(o->ops, o->errors);
}

double result_iops(const struct op_stats *o, uint64_t duration_ns)
{
    if (duration_ns == 0)
        return 0.0;
    return (double)result_ok_ops(o) * 1e9 / (double)duration_ns;
}

double result_bw(const struct op_stats *o, uint64_t duration_ns)
{
    if (duration_ns == 0)
        return 0.0;
    return (double)o->bytes * 1e9 / (double)duration_ns;
}

int result_agent_client_bound(const struct agent_phase *ap)
{
    double busy, secs;

    if (ap->cores == 0 || ap->duration_ns == 0)
        return 0;
    busy = ap->cpu_user_s + ap->cpu_sys_s;
    secs = (double)ap->duration_ns / 1e9;
    return busy / secs >= 0.9 * (double)ap->cores;
}

void result_all_ops(const struct op_set *s, struct op_stats *out)
{
    memset(out, 0, sizeof(*out));
    hist_init(&out->lat);
    hist_init(&out->svc);
    for (int t = 0; t < OP__COUNT; t++) {
        if (t == OP_SYNC)
            continue;       /* a flush, not an op of the load: not in IOPS or latency */
        out->ops = sat_add_u64(out->ops, s->op[t].ops);
        out->bytes = sat_add_u64(out->bytes, s->op[t].bytes);
        out->errors = sat_add_u64(out->errors, s->op[t].errors);
        hist_merge(&out->lat, &s->op[t].lat);
    }
}

void result_set_interval_inflight(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                                  uint32_t inflight, uint64_t oldest_ns)
{
    if (phase >= r->nphases || agent >= r->nagents || k >= r->phases[phase].nintervals)
        return;
    struct phase_result *ph = &r->phases[phase];
    struct interval_slot *slot = &ph->intervals[k];

    slot_unpack(ph, slot, r->nagents);
    slot->agent[agent].inflight = inflight;
    slot->agent[agent].oldest_ns = oldest_ns;
    slot_pack(r, ph, slot);
}

/* Agent a's counters of interval k into *c; the ops it completed. */
static uint64_t agent_done(const struct run_result *r, uint32_t phase, uint32_t k, uint32_t a, struct counters *c)
{
    uint64_t done = 0;

    result_interval_agent(r, phase, k, a, c);
    for (int t = 0; t < OP__COUNT; t++)
        done = sat_add_u64(done, c->ops[t]);
    return done;
}

/* How long agent a's inflight ops at the end of interval k should take at
 * the agent's recent pace: bytes outstanding / recent bandwidth, where the
 * bytes outstanding are the ops times the recent mean op size, which comes
 * to inflight x time / ops (so ops that move no bytes are judged alike).
 * The pace is that of the STALL_WINDOW intervals before k, or when nothing
 * completed in them, of the agent's whole phase (k left out); 0 when the
 * agent completed nothing at all. */
static uint64_t stall_expected_ns(const struct run_result *r, uint32_t phase, uint32_t a, uint32_t k,
                                  uint32_t inflight)
{
    const struct phase_result *ph = &r->phases[phase];
    struct counters c;
    uint64_t ilen = (uint64_t)ph->interval_ms * 1000000u, ops = 0;
    uint32_t span = 0;
    for (uint32_t j = k > STALL_WINDOW ? k - STALL_WINDOW : 0; j < k; j++, span++)
        ops = sat_add_u64(ops, agent_done(r, phase, j, a, &c));
    if (ops == 0) {
        span = 0;
        for (uint32_t j = 0; j < ph->nintervals; j++)
            if (j != k) {
                span++;
                ops = sat_add_u64(ops, agent_done(r, phase, j, a, &c));
            }
    }
    if (ops == 0)
        return 0;
    double ns = (double)inflight * (double)span * (double)ilen / (double)ops;
    return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)ns;
}

uint64_t result_stall_limit_ns(const struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k)
{
    const struct phase_result *ph = &r->phases[phase];
    uint64_t floor = (uint64_t)ph->interval_ms * 1000000u;
    if (k >= ph->nintervals || agent >= r->nagents)
        return UINT64_MAX;
    struct counters c;
    result_interval_agent(r, phase, k, agent, &c);
    uint64_t expected = stall_expected_ns(r, phase, agent, k, c.inflight);
    if (expected == 0)                 /* no pace known: only a long silence */
        return sat_mul_u64(floor, STALL_UNKNOWN_FLOORS);
    uint64_t limit = sat_mul_u64(expected, STALL_FACTOR);
    return limit > floor ? limit : floor;
}

/* The agents stalled in interval k: how many; the oldest op's age into
 * *age_ns and the least of their limits into *least. */
static uint32_t stall_scan(const struct run_result *r, uint32_t phase, uint32_t k, uint64_t *age_ns,
                           uint64_t *least)
{
    uint32_t n = 0;

    *age_ns = 0;
    *least = UINT64_MAX;
    for (uint32_t a = 0; k < r->phases[phase].nintervals && a < r->nagents; a++) {
        struct counters c;
        uint64_t limit;

        if (agent_done(r, phase, k, a, &c) == 0 && c.inflight &&
            c.oldest_ns > (limit = result_stall_limit_ns(r, phase, a, k))) {
            n++;
            *age_ns = c.oldest_ns > *age_ns ? c.oldest_ns : *age_ns;
            *least = limit < *least ? limit : *least;
        }
    }
    return n;
}

uint32_t result_interval_stalled(const struct run_result *r, uint32_t phase, uint32_t k, uint64_t *age_ns)
{
    uint64_t least;

    return stall_scan(r, phase, k, age_ns, &least);
}

uint64_t result_interval_stall_limit(const struct run_result *r, uint32_t phase, uint32_t k)
{
    uint64_t age, least;

    stall_scan(r, phase, k, &age, &least);
    return least;
}

int result_interval_fleet_stalled(const struct run_result *r, uint32_t phase, uint32_t k)
{
    const struct phase_result *ph = &r->phases[phase];
    uint64_t age;

    if (k >= ph->nintervals || result_interval_stalled(r, phase, k, &age) == 0)
        return 0;
    for (int t = 0; t < OP__COUNT; t++)
        if (ph->intervals[k].count[t].ops)
            return 0;
    return 1;
}

int result_phase_thin_sample(const struct run_result *r, uint32_t phase, uint64_t *ops,
                             uint64_t *threads, uint64_t *mean_ns)
{
    const struct phase_result *ph = &r->phases[phase];
    uint64_t n = 0, agents = 0;
    double sum = 0;

    if (ph->duration_ns == 0)
        return 0;
    for (int t = 0; t < OP__COUNT; t++) {
        const struct hist *h = &ph->totals.op[t].lat;
        n = sat_add_u64(n, h->count);
        sum += hist_mean(h) * (double)h->count;
    }
    for (uint32_t a = 0; a < r->nagents; a++)
        agents += ph->agents[a].participating;
    if (n == 0 || sum / (double)n * 2.0 <= (double)ph->duration_ns)
        return 0;
    *ops = n;
    *threads = (uint64_t)ph->numjobs * agents;
    *mean_ns = (uint64_t)(sum / (double)n);
    return 1;
}

int result_any_phase_ran(const struct run_result *r)
{
    for (uint32_t i = 0; i < r->nphases; i++)
        if (r->phases[i].ran)
            return 1;
    return 0;
}

void result_cut_short(struct run_result *r, const char *why)
{
    uint32_t last = 0, marked = 0;

    for (uint32_t i = 0; i < r->nphases; i++)
        if (r->phases[i].ran)
            last = i;
    if (r->end == RUN_END_NONE) {
        r->end = RUN_END_INTERRUPTED;
        r->end_phase = last;
        snprintf(r->end_text, sizeof(r->end_text), "%s", why);
        result_clean_text(r->end_text);
    }
    /* A phase whose end the journal holds is whole: only the phases that
     * ran without finishing are cut short (those never started say "not
     * run").  When every phase ran and is whole (only the run's end is
     * missing), the last one carries the reason, so the verdict says so. */
    for (uint32_t i = 0; i < r->nphases; i++)
        if (r->phases[i].ran && (!r->phases[i].finished || r->phases[i].interrupted)) {
            r->phases[i].interrupted = 1;   /* (a replay marks those with partial data) */
            marked++;
        }
    if (!marked && r->nphases > 0 && last + 1 == r->nphases && r->phases[last].ran)
        r->phases[last].interrupted = 1;
}
