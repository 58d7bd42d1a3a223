/* mp: see mp.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "proto/mp.h"

int mp_buf_put(void *data, const char *p, size_t len)
{
    buf_append(data, p, len);
    return 0;
}

size_t mp_frame_begin(struct buf *out, msgpack_packer *pk, const char *type_name, uint32_t nkeys)
{
    static const unsigned char zero[FRAME_HEADER_LEN];
    size_t start = out->len;

    buf_append(out, zero, sizeof zero);
    msgpack_packer_init(pk, out, mp_buf_put);
    msgpack_pack_map(pk, nkeys + 1);
    mp_pack_key(pk, "type");
    mp_pack_key(pk, type_name);
    return start;
}

void mp_frame_end(struct buf *out, size_t start)
{
    frame_put_header((unsigned char *)out->data + start, (uint32_t)(out->len - start - FRAME_HEADER_LEN));
}

void mp_pack_str(msgpack_packer *pk, const char *s, size_t n)
{
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

void mp_pack_key(msgpack_packer *pk, const char *k)
{
    mp_pack_str(pk, k, strlen(k));
}

void mp_pack_u64(msgpack_packer *pk, const char *k, uint64_t v)
{
    mp_pack_key(pk, k);
    msgpack_pack_uint64(pk, v);
}

void mp_pack_kstr(msgpack_packer *pk, const char *k, const char *s, size_t max)
{
    mp_pack_key(pk, k);
    mp_pack_str(pk, s ? s : "", s ? strnlen(s, max) : 0);
}

void mp_pack_karray(msgpack_packer *pk, const char *k, size_t n)
{
    mp_pack_key(pk, k);
    msgpack_pack_array(pk, n);
}

const char *mp_show(char dst[40], const msgpack_object_str *s)
{
    size_t n = s->size < 32 ? s->size : 32, i;

    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s->ptr[i];
        dst[i] = isprint(ch) ? (char)ch : '?';
    }
    if (s->size > n) {
        memcpy(dst + i, "...", 3);
        i += 3;
    }
    dst[i] = '\0';
    return dst;
}

int mp_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EBADMSG;
}

int mp_cstr(const msgpack_object *o, char *dst, size_t size)
{
    dst[0] = '\0';
    if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size ||
        memchr(o->via.str.ptr, '\0', o->via.str.size))
        return -1;
    memcpy(dst, o->via.str.ptr, o->via.str.size);
    dst[o->via.str.size] = '\0';
    return 0;
}

const msgpack_object *mp_lookup(const msgpack_object *map, const char *key)
{
    size_t kl = strlen(key);

    if (map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == kl && memcmp(k->via.str.ptr, key, kl) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

int mp_get_u(const msgpack_object *map, const char *where, const char *key, uint64_t max, uint64_t *out,
             char *err, size_t errlen)
{
    const msgpack_object *o = mp_lookup(map, key);

    if (!o)
        return mp_fail(err, errlen, "%smissing '%s'", where, key);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
        return mp_fail(err, errlen, "%s'%s' is not an integer in 0..%llu", where, key, (unsigned long long)max);
    *out = o->via.u64;
    return 0;
}

int mp_get_str(const msgpack_object *map, const char *where, const char *key, char *out, size_t size,
               char *err, size_t errlen)
{
    const msgpack_object *o = mp_lookup(map, key);

    if (!o || mp_cstr(o, out, size) < 0)
        return mp_fail(err, errlen, "%s'%s' %s", where, key, o ? "is not a string that fits" : "is missing");
    return 0;
}
