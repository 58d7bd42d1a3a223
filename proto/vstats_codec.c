/* vstats_codec: verification results on the wire (see vstats_codec.h).
 * Counts are plain u64s; the first offenders carry their own keys so a
 * reader never depends on positions. */
#include <errno.h>
#include <stdio.h>
#include "proto/mp.h"
#include "proto/vstats_codec.h"

void vstats_pack(msgpack_packer *pk, const struct vstats *v)
{
    uint32_t n = v->nfirst < VSTATS_FIRST_MAX ? v->nfirst : VSTATS_FIRST_MAX;
    uint32_t nr = v->nruns < VSTATS_RUNS_MAX ? v->nruns : VSTATS_RUNS_MAX;
    msgpack_pack_map(pk, 5 + VB__COUNT);
    mp_pack_u64(pk, "checked", v->checked);
    mp_pack_u64(pk, "only", v->only);
    mp_pack_u64(pk, "runs_more", v->runs_more);
    mp_pack_karray(pk, "runs", nr);
    for (uint32_t i = 0; i < nr; i++) {
        msgpack_pack_map(pk, 3);
        mp_pack_u64(pk, "run", v->runs[i].run);
        mp_pack_u64(pk, "started_ms", v->runs[i].started_ms);
        mp_pack_u64(pk, "blocks", v->runs[i].blocks);
    }
    for (int k = 0; k < VB__COUNT; k++)
        mp_pack_u64(pk, vblock_kind_name((enum vblock_kind)k), v->count[k]);
    mp_pack_karray(pk, "first", n);
    for (uint32_t i = 0; i < n; i++) {
        const struct vstats_bad *b = &v->first[i];
        msgpack_pack_map(pk, 12);
        mp_pack_kstr(pk, "file", b->file, sizeof b->file);
        mp_pack_u64(pk, "offset", b->offset);
        mp_pack_kstr(pk, "kind", vblock_kind_name((enum vblock_kind)b->kind), SIZE_MAX);
        mp_pack_u64(pk, "reader", b->reader);
        mp_pack_u64(pk, "expected_writer", b->expected_writer);
        mp_pack_u64(pk, "expected_generation", b->expected_gen);
        mp_pack_u64(pk, "found_writer", b->found_writer);
        mp_pack_u64(pk, "found_job", b->found_job);
        mp_pack_u64(pk, "found_generation", b->found_gen);
        mp_pack_u64(pk, "found_offset", b->found_offset);
        mp_pack_u64(pk, "expected_run", b->expected_run);
        mp_pack_u64(pk, "found_run", b->found_run);
    }
}

static int unpack_bad(const msgpack_object *o, uint32_t i, struct vstats_bad *b, char *err, size_t errlen)
{
    char where[48], kind[32];
    uint64_t u[7];
    int k;
    snprintf(where, sizeof where, "verify.first[%u]: ", i);
    if (o->type != MSGPACK_OBJECT_MAP)
        return mp_fail(err, errlen, "%snot a map", where);
    if (mp_get_str(o, where, "file", b->file, sizeof b->file, err, errlen) ||
        mp_get_u(o, where, "offset", UINT64_MAX, &b->offset, err, errlen) ||
        mp_get_str(o, where, "kind", kind, sizeof kind, err, errlen) ||
        mp_get_u(o, where, "reader", UINT32_MAX, &u[0], err, errlen) ||
        mp_get_u(o, where, "expected_writer", UINT32_MAX, &u[1], err, errlen) ||
        mp_get_u(o, where, "expected_generation", UINT64_MAX, &b->expected_gen, err, errlen) ||
        mp_get_u(o, where, "found_writer", UINT32_MAX, &u[2], err, errlen) ||
        mp_get_u(o, where, "found_job", UINT32_MAX, &u[3], err, errlen) ||
        mp_get_u(o, where, "found_generation", UINT64_MAX, &b->found_gen, err, errlen) ||
        mp_get_u(o, where, "found_offset", UINT64_MAX, &b->found_offset, err, errlen))
        return -EBADMSG;
    if ((k = vblock_kind_from_name(kind)) <= VB_OK)
        return mp_fail(err, errlen, "%s'kind' = '%s' is not a failure kind", where, kind);
    /* optional: absent from an agent older than run ids (0: not known) */
    if ((mp_lookup(o, "expected_run") &&
         mp_get_u(o, where, "expected_run", UINT64_MAX, &b->expected_run, err, errlen)) ||
        (mp_lookup(o, "found_run") && mp_get_u(o, where, "found_run", UINT64_MAX, &b->found_run, err, errlen)))
        return -EBADMSG;
    b->kind = (uint32_t)k;
    b->reader = (uint32_t)u[0];
    b->expected_writer = (uint32_t)u[1];
    b->found_writer = (uint32_t)u[2];
    b->found_job = (uint32_t)u[3];
    return 0;
}

/* only, runs, runs_more: optional (an older agent sends none). */
static int unpack_runs(const msgpack_object *o, struct vstats *v, char *err, size_t errlen)
{
    const msgpack_object *runs = mp_lookup(o, "runs");
    uint64_t u;
    if (mp_lookup(o, "only")) {
        if (mp_get_u(o, "verify: ", "only", 1, &u, err, errlen))
            return -EBADMSG;
        v->only = (uint32_t)u;
    }
    if (mp_lookup(o, "runs_more") && mp_get_u(o, "verify: ", "runs_more", UINT64_MAX, &v->runs_more, err, errlen))
        return -EBADMSG;
    if (!runs)
        return 0;
    if (runs->type != MSGPACK_OBJECT_ARRAY || runs->via.array.size > VSTATS_RUNS_MAX)
        return mp_fail(err, errlen, "verify: 'runs' must be an array of at most %d entries", VSTATS_RUNS_MAX);
    for (uint32_t i = 0; i < runs->via.array.size; i++) {
        const msgpack_object *r = &runs->via.array.ptr[i];
        struct vstats_run *vr = &v->runs[i];
        if (r->type != MSGPACK_OBJECT_MAP || mp_get_u(r, "verify.runs: ", "run", UINT64_MAX, &vr->run, err, errlen) ||
            mp_get_u(r, "verify.runs: ", "started_ms", UINT64_MAX, &vr->started_ms, err, errlen) ||
            mp_get_u(r, "verify.runs: ", "blocks", UINT64_MAX, &vr->blocks, err, errlen)) {
            if (r->type != MSGPACK_OBJECT_MAP)
                snprintf(err, errlen, "verify.runs[%u]: not a map", i);
            return -EBADMSG;
        }
    }
    v->nruns = runs->via.array.size;
    return 0;
}

int vstats_unpack(const msgpack_object *o, struct vstats *v, char *err, size_t errlen)
{
    const msgpack_object *first;

    vstats_init(v);
    if (o->type != MSGPACK_OBJECT_MAP)
        return mp_fail(err, errlen, "verify: not a map");
    if (mp_get_u(o, "verify: ", "checked", UINT64_MAX, &v->checked, err, errlen))
        return -EBADMSG;
    for (int k = 0; k < VB__COUNT; k++)
        if (mp_get_u(o, "verify: ", vblock_kind_name((enum vblock_kind)k), UINT64_MAX, &v->count[k], err,
                  errlen))
            return -EBADMSG;
    first = mp_lookup(o, "first");
    if (!first || first->type != MSGPACK_OBJECT_ARRAY || first->via.array.size > VSTATS_FIRST_MAX)
        return mp_fail(err, errlen, "verify: 'first' must be an array of at most %d entries", VSTATS_FIRST_MAX);
    for (uint32_t i = 0; i < first->via.array.size; i++)
        if (unpack_bad(&first->via.array.ptr[i], i, &v->first[i], err, errlen))
            return -EBADMSG;
    v->nfirst = first->via.array.size;
    if (unpack_runs(o, v, err, errlen) < 0 || vstats_accept(v, err, errlen) < 0)
        return -EBADMSG;
    return 0;
}
