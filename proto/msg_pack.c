/* msg_pack: the encoding half of msg_codec.h: walk a field table (and the
 * nested op_set, histogram, NFS telemetry, clone and plan values) and pack
 * it as one frame.  Optional members left at their zero are not sent, so
 * a message's bytes are those of before the member existed. */
#include <string.h>
#include <msgpack.h>
#include "proto/errcause_codec.h"
#include "proto/hist_msgpack.h"
#include "proto/mp.h"
#include "proto/msg_client.h"
#include "proto/msg_codec.h"
#include "proto/vstats_codec.h"

static int op_stats_sent(const struct op_stats *o)
{
    return o->ops > 0 || o->errors > 0;
}

static void pack_op_set(msgpack_packer *pk, const struct op_set *s)
{
    uint32_t n = 0;

    for (int t = 0; t < OP__COUNT; t++)
        n += op_stats_sent(&s->op[t]);
    msgpack_pack_map(pk, n);
    for (int t = 0; t < OP__COUNT; t++) {
        const struct op_stats *o = &s->op[t];
        if (!op_stats_sent(o))
            continue;
        mp_pack_key(pk, op_type_name((enum op_type)t));
        msgpack_pack_map(pk, 4 + (o->svc.count > 0) + (o->timeouts > 0));
        mp_pack_u64(pk, "ops", o->ops);
        mp_pack_u64(pk, "bytes", o->bytes);
        mp_pack_u64(pk, "errors", o->errors);
        if (o->timeouts)
            mp_pack_u64(pk, "timeouts", o->timeouts);
        mp_pack_key(pk, "lat");
        hist_msgpack_pack(pk, &o->lat);
        if (o->svc.count) {          /* rate-limited jobs only */
            mp_pack_key(pk, "svc");
            hist_msgpack_pack(pk, &o->svc);
        }
    }
}

/* Per-thread figures (common/clone_set.h):
 *     [{job, clone, runtime_ns, stats: op_set}, ...]
 * at most CLONE_SET_MAX entries (the agent sends none beyond). */
static void pack_clones(msgpack_packer *pk, const struct clone_set *s)
{
    uint32_t n = s->n < CLONE_SET_MAX ? s->n : CLONE_SET_MAX;

    msgpack_pack_array(pk, n);
    for (uint32_t i = 0; i < n; i++) {
        const struct clone_stats *e = &s->c[i];

        msgpack_pack_map(pk, 4);
        mp_pack_u64(pk, "job", e->job);
        mp_pack_u64(pk, "clone", e->clone);
        mp_pack_u64(pk, "runtime_ns", e->runtime_ns);
        mp_pack_key(pk, "stats");
        pack_op_set(pk, e->stats);
    }
}

static void pack_fields(msgpack_packer *pk, const struct field *f, size_t n, const void *base);

/* NFS RPC telemetry (common/nfs_rpc.h):
 *     {retransmits, timeouts, reconnects,
 *      rpc: {PROC: {calls, bytes_out, bytes_in, errors, rtt: hist,
 *                   status: [[code, n], ...], status_other}},
 *      [split: {read|write: {ops, lat_ns, rtt_ns, queued_ns, late_ns}}]}
 * Procedure names and status codes come from the fixed tables. */
static void pack_nfs_rpc(msgpack_packer *pk, const struct nfs_rpc_set *s)
{
    uint32_t n = 0;

    uint32_t nsplit = 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        n += s->proc[i] != NULL && s->proc[i]->calls > 0;
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++)
        nsplit += s->split[k].ops > 0;
    msgpack_pack_map(pk, nsplit ? 5 : 4);
    mp_pack_u64(pk, "retransmits", s->retransmits);
    mp_pack_u64(pk, "timeouts", s->timeouts);
    mp_pack_u64(pk, "reconnects", s->reconnects);
    mp_pack_key(pk, "rpc");
    msgpack_pack_map(pk, n);
    for (unsigned i = 0; i < NFSP__COUNT; i++) {
        const struct nfs_rpc_proc *p = s->proc[i];
        if (!p || p->calls == 0)
            continue;
        mp_pack_key(pk, nfs_proc_name(i));
        msgpack_pack_map(pk, 7);
        mp_pack_u64(pk, "calls", p->calls);
        mp_pack_u64(pk, "bytes_out", p->bytes_out);
        mp_pack_u64(pk, "bytes_in", p->bytes_in);
        mp_pack_u64(pk, "errors", p->errors);
        mp_pack_key(pk, "rtt");
        hist_msgpack_pack(pk, &p->rtt);
        mp_pack_karray(pk, "status", p->nstatus);
        for (uint32_t k = 0; k < p->nstatus; k++) {
            msgpack_pack_array(pk, 2);
            msgpack_pack_uint32(pk, p->status[k].code);
            msgpack_pack_uint64(pk, p->status[k].n);
        }
        mp_pack_u64(pk, "status_other", p->status_other);
    }
    if (!nsplit)
        return;
    mp_pack_key(pk, "split");
    msgpack_pack_map(pk, nsplit);
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const struct nfs_op_split *x = &s->split[k];
        if (!x->ops)
            continue;
        mp_pack_key(pk, nfs_op_split_name(k));
        msgpack_pack_map(pk, 5);
        mp_pack_u64(pk, "ops", x->ops);
        mp_pack_u64(pk, "lat_ns", x->lat_ns);
        mp_pack_u64(pk, "rtt_ns", x->rtt_ns);
        mp_pack_u64(pk, "queued_ns", x->queued_ns);
        mp_pack_u64(pk, "late_ns", x->late_ns);
    }
}

/* An optional value left at 0 (or ""), empty NFS telemetry and the
 * verification results of a phase that did not verify are not sent. */
static int field_sent(const struct field *f, const void *base)
{
    switch (f->kind) {
    case F_NFSRPC:
        return !nfs_rpc_set_empty(CAT(base, f, struct nfs_rpc_set));
    case F_HOST:
    case F_MSTATS:
    case F_PROXY:
        return MSG_CLIENT_MAP(f->kind)->sent(CAT(base, f, char));
    case F_VERIFY:
        return CAT(base, f, struct vstats)->on != 0;
    case F_ERRORS:
        return !errcause_empty(CAT(base, f, struct errcause_set));
    case F_CLONES:
        return CAT(base, f, struct clone_set)->n != 0;
    case F_OPTU32:
        return *CAT(base, f, uint32_t) != 0;
    case F_OPTU64:
        return *CAT(base, f, uint64_t) != 0;
    case F_OPTSTRNZ:
        return CAT(base, f, char)[0] != '\0';
    case F_OPTBSSPLIT:
        return ((const struct job_spec *)base)->nbssplit_w != 0;
    default:
        return 1;
    }
}

static uint32_t fields_sent(const struct field *f, size_t n, const void *base)
{
    uint32_t k = 0;

    for (; n > 0; n--, f++)
        k += (uint32_t)field_sent(f, base);
    return k;
}

static void pack_phases(msgpack_packer *pk, const struct plan *p)
{
    msgpack_pack_array(pk, p->nphases);
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *ph = &p->phases[i];
        msgpack_pack_map(pk, 2);
        mp_pack_kstr(pk, "name", ph->name, sizeof ph->name);
        mp_pack_karray(pk, "jobs", ph->njobs);
        for (uint32_t j = 0; j < ph->njobs; j++) {
            msgpack_pack_map(pk, fields_sent(msg_job_fields, msg_job_nfields, &ph->jobs[j]));
            pack_fields(pk, msg_job_fields, msg_job_nfields, &ph->jobs[j]);
        }
    }
}

/* The optional maps of msg_client.h. */
static void pack_client(msgpack_packer *pk, const struct field *f, const void *base)
{
    const struct msg_client_map *cm = MSG_CLIENT_MAP(f->kind);
    const struct ms_sample *m = CAT(base, f, struct ms_sample);
    int ms = f->kind == F_MSTATS;
    uint32_t nops;

    msgpack_pack_map(pk, fields_sent(cm->f, cm->n, CAT(base, f, char)) + (ms ? 2 : 0));
    pack_fields(pk, cm->f, cm->n, CAT(base, f, char));
    if (!ms)
        return;
    /* (only here is the field an ms_sample: the other kinds are smaller) */
    nops = m->nops < MS_OPS_MAX ? m->nops : MS_OPS_MAX;
    mp_pack_key(pk, "xprt");
    msgpack_pack_map(pk, msg_xprt_nfields);
    pack_fields(pk, msg_xprt_fields, msg_xprt_nfields, &m->xprt);
    mp_pack_karray(pk, "ops", nops);
    for (uint32_t i = 0; i < nops; i++) {
        msgpack_pack_map(pk, msg_msop_nfields);
        pack_fields(pk, msg_msop_fields, msg_msop_nfields, &m->op[i]);
    }
}

static void pack_fields(msgpack_packer *pk, const struct field *f, size_t n, const void *base)
{
    for (; n > 0; n--, f++) {
        const char *word;

        if (!field_sent(f, base))
            continue;
        mp_pack_key(pk, f->key);
        switch (f->kind) {
        case F_U32:
        case F_OPTU32:
            msgpack_pack_uint32(pk, *CAT(base, f, uint32_t));
            break;
        case F_U64:
        case F_OPTU64:
            msgpack_pack_uint64(pk, *CAT(base, f, uint64_t));
            break;
        case F_BOOL:
            if (*CAT(base, f, int))
                msgpack_pack_true(pk);
            else
                msgpack_pack_false(pk);
            break;
        case F_DOUBLE:
            msgpack_pack_double(pk, *CAT(base, f, double));
            break;
        case F_BIN:
            msgpack_pack_bin(pk, f->size);
            msgpack_pack_bin_body(pk, CAT(base, f, unsigned char), f->size);
            break;
        case F_STR:
        case F_OPTSTR:
        case F_OPTSTRNZ:
        case F_AGENTS:
            /* strnlen: a buffer filled to the brim must not be overread */
            mp_pack_str(pk, CAT(base, f, char), strnlen(CAT(base, f, char), f->size));
            break;
        case F_OPSET: pack_op_set(pk, CAT(base, f, struct op_set)); break;
        case F_NFSRPC: pack_nfs_rpc(pk, CAT(base, f, struct nfs_rpc_set)); break;
        case F_HOST:
        case F_MSTATS:
        case F_PROXY:
            pack_client(pk, f, base);
            break;
        case F_VERIFY: vstats_pack(pk, CAT(base, f, struct vstats)); break;
        case F_ERRORS: errcause_pack(pk, CAT(base, f, struct errcause_set)); break;
        case F_CLONES: pack_clones(pk, CAT(base, f, struct clone_set)); break;
        case F_PHASES: pack_phases(pk, CAT(base, f, struct plan)); break;
        case F_ENUM: {
            /* an invalid value goes out as "" and the peer rejects it */
            unsigned v = 0;
            memcpy(&v, CAT(base, f, char), f->size < sizeof v ? f->size : sizeof v);
            word = f->codec->name(v);
            mp_pack_key(pk, word ? word : "");
            break;
        }
        case F_BSSPLIT:
        case F_OPTBSSPLIT: {
            const struct job_spec *j = base;
            int w = f->kind == F_OPTBSSPLIT;
            const struct bssplit_entry *e = w ? j->bssplit_w : j->bssplit;
            uint32_t cnt = w ? j->nbssplit_w : j->nbssplit;
            if (cnt > PLAN_MAX_BSSPLIT)
                cnt = PLAN_MAX_BSSPLIT;
            msgpack_pack_array(pk, cnt);
            for (uint32_t i = 0; i < cnt; i++) {
                msgpack_pack_array(pk, 2);
                msgpack_pack_uint64(pk, e[i].bs);
                msgpack_pack_uint32(pk, e[i].pct);
            }
            break;
        }
        case F_MDOPS: {
            const struct job_spec *j = base;
            uint32_t cnt = j->n_md_ops < PLAN_MAX_MD_OPS ? j->n_md_ops : PLAN_MAX_MD_OPS;
            msgpack_pack_array(pk, cnt);
            for (uint32_t i = 0; i < cnt; i++)
                mp_pack_key(pk, j->md_ops[i] < OP__COUNT ? op_type_name((enum op_type)j->md_ops[i]) : "");
            break;
        }
        }
    }
}

/* Appends header + payload; the header is patched once the length is known.
 * Nothing here enforces FRAME_MAX_PAYLOAD: the receiver does, and every
 * message we send is far below it unless a plan is absurd. */
void msg_codec_encode(struct buf *out, enum msg_type t, const struct field *f, size_t n,
                   const void *m)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(t), fields_sent(f, n, m));

    pack_fields(&pk, f, n, m);
    mp_frame_end(out, start);
}
