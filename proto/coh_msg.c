/* coh_msg: see coh_msg.h.  Packed and read with msgpack-c directly, as
 * pool_msg.c: an array of pairs does not fit msg.c's field tables.  The
 * frame was bounded and unpacked by msg_parse; the pair count is capped
 * here before any copy. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <msgpack.h>
#include "proto/coh_msg.h"
#include "proto/hist_msgpack.h"
#include "proto/mp.h"
#include "proto/msg.h"

void msg_coherence_encode(struct buf *out, const struct msg_coherence *m)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(MSG_COHERENCE), 2);

    mp_pack_u64(&pk, "phase", m->phase);
    mp_pack_karray(&pk, "pairs", m->set.n);
    for (uint32_t i = 0; i < m->set.n; i++) {
        const struct coh_pair *p = &m->set.pair[i];
        msgpack_pack_map(&pk, 4);
        mp_pack_u64(&pk, "writer", p->writer);
        mp_pack_u64(&pk, "seen", p->seen);
        mp_pack_u64(&pk, "never", p->never);
        mp_pack_key(&pk, "lag");
        hist_msgpack_pack(&pk, &p->lag);
    }
    mp_frame_end(out, start);
}

/* The unsigned integer under k of map, at most max: NULL, or why not in
 * why ("missing key 'k'", "'k' out of range"). */
static const char *get_uint(const msgpack_object *map, const char *k, uint64_t max, uint64_t *v,
                            char *why, size_t whylen)
{
    const msgpack_object *o = mp_lookup(map, k);
    if (!o)
        snprintf(why, whylen, "missing key '%s'", k);
    else if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
        snprintf(why, whylen, "'%s' is not an unsigned integer up to %llu", k, (unsigned long long)max);
    else {
        *v = o->via.u64;
        return NULL;
    }
    return why;
}

static int unpack_hist(const msgpack_object *o, struct hist *h, char *why, size_t whylen)
{
    uint64_t count = 0, sum = 0, min = 0, max = 0;
    const msgpack_object *runs;

    hist_init(h);
    if (o->type != MSGPACK_OBJECT_MAP || get_uint(o, "count", UINT64_MAX, &count, why, whylen) ||
        get_uint(o, "sum", UINT64_MAX, &sum, why, whylen) || get_uint(o, "min", UINT64_MAX, &min, why, whylen) ||
        get_uint(o, "max", UINT64_MAX, &max, why, whylen) || !(runs = mp_lookup(o, "runs")) ||
        runs->type != MSGPACK_OBJECT_ARRAY) {
        snprintf(why, whylen, "not a histogram (count, sum, min, max, runs)");
        return -EINVAL;
    }
    return hist_msgpack_runs(h, count, sum, min, max, &runs->via.array, why, whylen);
}

/* The pairs of root into m->set; on failure the caller frees them. */
static int read_pairs(const msgpack_object *root, uint32_t reader, struct msg_coherence *m, char *err,
                      size_t errlen)
{
    const msgpack_object *pairs;
    const char *bad = NULL;
    char why[160] = "";
    uint64_t v = 0;

    if ((bad = get_uint(root, "phase", PLAN_MAX_PHASES - 1, &v, why, sizeof why)) != NULL)
        return mp_fail(err, errlen, "coherence: %s", bad);
    m->phase = (uint32_t)v;
    pairs = mp_lookup(root, "pairs");
    if (!pairs || pairs->type != MSGPACK_OBJECT_ARRAY)
        return mp_fail(err, errlen, "coherence: %s", pairs ? "'pairs' is not an array" : "missing key 'pairs'");
    if (pairs->via.array.size > COH_PAIRS_MAX)
        return mp_fail(err, errlen, "coherence: %u pairs, more than %d", pairs->via.array.size, COH_PAIRS_MAX);
    for (uint32_t i = 0; i < pairs->via.array.size; i++) {
        const msgpack_object *o = &pairs->via.array.ptr[i], *lag;
        uint64_t w = 0, seen = 0, never = 0;
        struct coh_pair *cp;
        if (o->type != MSGPACK_OBJECT_MAP)
            return mp_fail(err, errlen, "coherence: pair %u is not a map", i);
        if ((bad = get_uint(o, "writer", UINT32_MAX - 1, &w, why, sizeof why)) ||
            (bad = get_uint(o, "seen", UINT64_MAX, &seen, why, sizeof why)) ||
            (bad = get_uint(o, "never", UINT64_MAX, &never, why, sizeof why)))
            return mp_fail(err, errlen, "coherence: pair %u: %s", i, bad);
        for (uint32_t k = 0; k < m->set.n; k++)
            if (m->set.pair[k].writer == w)
                return mp_fail(err, errlen, "coherence: pair %u: writer %u twice", i, (unsigned)w);
        cp = coh_set_pair(&m->set, (uint32_t)w, reader, COH_PAIRS_MAX);
        cp->seen = seen;
        cp->never = never;
        if (!(lag = mp_lookup(o, "lag")) || unpack_hist(lag, &cp->lag, why, sizeof why) < 0)
            return mp_fail(err, errlen, "coherence: pair %u: %s%s", i, lag ? "'lag': " : "missing key 'lag'",
                           lag ? why : "");
        if (cp->lag.count != seen)
            return mp_fail(err, errlen, "coherence: pair %u: 'lag' holds %llu values, 'seen' says %llu", i,
                           (unsigned long long)cp->lag.count, (unsigned long long)seen);
    }
    return 0;
}

int msg_coherence_decode(const struct msg_frame *f, uint32_t reader, struct msg_coherence *m,
                         char *err, size_t errlen)
{
    int rc;

    coh_set_init(&m->set);
    m->phase = 0;
    if (f->type != MSG_COHERENCE || !f->root)
        return mp_fail(err, errlen, "coherence: got a '%s' message", msg_type_name(f->type));
    if ((rc = read_pairs(f->root, reader, m, err, errlen)) < 0)
        coh_set_free(&m->set);
    return rc;
}
