/* errcause_codec: failed ops by cause on the wire (see errcause_codec.h).
 * Each cause carries its own keys so a reader never depends on positions;
 * a count from the wire never sizes an allocation (the set is fixed-size
 * and the array's length is checked against ERRCAUSE_MAX first). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "proto/mp.h"
#include "proto/errcause_codec.h"

void errcause_pack(msgpack_packer *pk, const struct errcause_set *s)
{
    uint32_t nops = 0;
    for (int t = 0; t < OP__COUNT; t++)
        nops += s->op[t].n || s->op[t].other;
    msgpack_pack_map(pk, nops);
    for (int t = 0; t < OP__COUNT; t++) {
        const struct errcause_op *o = &s->op[t];
        uint32_t n = o->n < ERRCAUSE_MAX ? o->n : ERRCAUSE_MAX;
        if (!o->n && !o->other)
            continue;
        mp_pack_key(pk, op_type_name((enum op_type)t));
        msgpack_pack_map(pk, 2);
        mp_pack_karray(pk, "causes", n);
        for (uint32_t i = 0; i < n; i++) {
            const struct errcause *c = &o->c[i];
            msgpack_pack_map(pk, 6);
            mp_pack_kstr(pk, "kind", errcause_kind_name((enum errcause_kind)c->kind), SIZE_MAX);
            mp_pack_u64(pk, "code", c->code);
            mp_pack_u64(pk, "count", c->count);
            mp_pack_u64(pk, "offset", c->offset);
            mp_pack_u64(pk, "size", c->size);
            mp_pack_kstr(pk, "file", c->file, sizeof c->file);
        }
        mp_pack_u64(pk, "other", o->other);
    }
}

static int unpack_cause(const msgpack_object *o, const char *where, struct errcause *c, char *err,
                        size_t errlen)
{
    char kind[16];
    uint64_t code;
    int k;
    if (o->type != MSGPACK_OBJECT_MAP)
        return mp_fail(err, errlen, "%snot a map", where);
    if (mp_get_str(o, where, "kind", kind, sizeof kind, err, errlen) ||
        mp_get_u(o, where, "code", UINT32_MAX, &code, err, errlen) ||
        mp_get_u(o, where, "count", UINT64_MAX, &c->count, err, errlen) ||
        mp_get_u(o, where, "offset", UINT64_MAX, &c->offset, err, errlen) ||
        mp_get_u(o, where, "size", UINT64_MAX, &c->size, err, errlen) ||
        mp_get_str(o, where, "file", c->file, sizeof c->file, err, errlen))
        return -EBADMSG;
    if ((k = errcause_kind_from_name(kind)) < 0)
        return mp_fail(err, errlen, "%s'kind' = '%.15s' is not a cause", where, kind);
    c->kind = (uint32_t)k;
    c->code = (uint32_t)code;
    return 0;
}

int errcause_unpack(const msgpack_object *o, struct errcause_set *s, char *err, size_t errlen)
{
    char why[200], where[64], name[16];
    errcause_set_init(s);
    if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size > OP__COUNT)
        return mp_fail(err, errlen, "errors: not a map of at most %d op types", OP__COUNT);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val, *causes;
        struct errcause_op *eo;
        int t;
        if (mp_cstr(k, name, sizeof name) < 0)
            return mp_fail(err, errlen, "errors: a key is not an op type");
        if ((t = op_type_from_name(name)) < 0)
            return mp_fail(err, errlen, "errors: '%s' is not an op type", name);
        eo = &s->op[t];
        if (eo->n || eo->other)
            return mp_fail(err, errlen, "errors: '%s' twice", name);
        snprintf(where, sizeof where, "errors.%s: ", name);
        if (v->type != MSGPACK_OBJECT_MAP)
            return mp_fail(err, errlen, "%snot a map", where);
        causes = mp_lookup(v, "causes");
        if (!causes || causes->type != MSGPACK_OBJECT_ARRAY || causes->via.array.size > ERRCAUSE_MAX)
            return mp_fail(err, errlen, "%s'causes' must be an array of at most %d entries", where, ERRCAUSE_MAX);
        for (uint32_t c = 0; c < causes->via.array.size; c++) {
            char cw[80];
            snprintf(cw, sizeof cw, "errors.%s.causes[%u]: ", name, c);
            if (unpack_cause(&causes->via.array.ptr[c], cw, &eo->c[c], err, errlen))
                return -EBADMSG;
        }
        eo->n = causes->via.array.size;
        if (mp_get_u(v, where, "other", UINT64_MAX, &eo->other, err, errlen))
            return -EBADMSG;
        if (!eo->n && !eo->other)
            return mp_fail(err, errlen, "%sno failed op", where);
    }
    if (errcause_check(s, why, sizeof why) < 0)
        return mp_fail(err, errlen, "%s", why);
    return 0;
}
