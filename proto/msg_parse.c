/* msg_parse: a payload's bytes checked, unpacked once, and its type read.
 *
 * Hostile input: msgpack-c allocates an array's or map's element storage as
 * soon as it reads the count, before the elements, so a 5-byte payload
 * declaring 2^32 elements would ask for ~100 GB.  Before unpacking we walk
 * the payload once (prescan) and reject any container whose count exceeds
 * the bytes left (every element takes at least one byte), any truncation,
 * any trailing bytes and more than MAX_OBJECTS objects.  The unpack zone is
 * then bounded by a small multiple of the payload length, and every
 * decoder (msg_codec.c, pool_msg.c, coh_msg.c) reads the one unpacked map. */
#include <string.h>
#include <msgpack.h>
#include "proto/mp.h"
#include "proto/msg.h"

/* Far above any legitimate message (a full plan is ~2 objects per job field,
 * ~0.7M), far below what would make the zone large. */
#define MAX_OBJECTS (1u << 22)

static uint64_t get_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | *p++;
    return v;
}

/* Walk one msgpack object without building it.  pending counts the objects
 * still to read; as each needs at least one byte, pending > bytes left means
 * a lying count, caught before msgpack-c would allocate for it. */
static int prescan(const char *buf, size_t n, char *err, size_t errlen)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + n;
    uint64_t pending = 1, objects = 0;

    if (n == 0)
        return mp_fail(err, errlen, "message: empty payload");
    while (pending > 0) {
        size_t lenbytes = 0;      /* width of a length/count field */
        uint64_t skip = 0;        /* payload bytes after the header */
        uint64_t items = 0;       /* child objects */
        int kind = 0;             /* with lenbytes: 0 data, 1 ext, 2 array, 3 map */
        unsigned b;

        if (p == end)
            return mp_fail(err, errlen, "message: truncated msgpack");
        b = *p++;
        pending--;
        if (++objects > MAX_OBJECTS)
            return mp_fail(err, errlen, "message: more than %u msgpack objects", MAX_OBJECTS);
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
            ;                                       /* fixint, nil, bool */
        else if (b <= 0x8f)
            items = 2u * (b & 0x0f);                /* fixmap */
        else if (b <= 0x9f)
            items = b & 0x0f;                       /* fixarray */
        else if (b <= 0xbf)
            skip = b & 0x1f;                        /* fixstr */
        else {
            switch (b) {
            case 0xc4: case 0xd9: lenbytes = 1; break;          /* bin8, str8 */
            case 0xc5: case 0xda: lenbytes = 2; break;
            case 0xc6: case 0xdb: lenbytes = 4; break;
            case 0xc7: lenbytes = 1; kind = 1; break;           /* ext8/16/32 */
            case 0xc8: lenbytes = 2; kind = 1; break;
            case 0xc9: lenbytes = 4; kind = 1; break;
            case 0xca: skip = 4; break;                         /* float32 */
            case 0xcb: skip = 8; break;
            case 0xcc: case 0xd0: skip = 1; break;              /* (u)int8..64 */
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;                         /* fixext 1..16 */
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: lenbytes = 2; kind = 2; break;           /* array16/32 */
            case 0xdd: lenbytes = 4; kind = 2; break;
            case 0xde: lenbytes = 2; kind = 3; break;           /* map16/32 */
            case 0xdf: lenbytes = 4; kind = 3; break;
            default:
                return mp_fail(err, errlen, "message: invalid msgpack byte 0x%02x", b);
            }
        }
        if (lenbytes) {
            uint64_t len;
            if ((size_t)(end - p) < lenbytes)
                return mp_fail(err, errlen, "message: truncated msgpack");
            len = get_be(p, lenbytes);
            p += lenbytes;
            if (kind == 2)
                items = len;
            else if (kind == 3)
                items = 2 * len;
            else
                skip = len + (kind == 1);           /* ext: type byte + data */
        }
        if ((uint64_t)(end - p) < skip)
            return mp_fail(err, errlen, "message: truncated msgpack");
        p += skip;
        pending += items;
        if (pending > (uint64_t)(end - p))
            return mp_fail(err, errlen, "message: truncated msgpack (a count exceeds the payload)");
    }
    if (p != end)
        return mp_fail(err, errlen, "message: %zu trailing bytes after the message", (size_t)(end - p));
    return 0;
}


static int type_of(const msgpack_object *root, char *err, size_t errlen)
{
    const msgpack_object *o = mp_lookup(root, "type");
    char shown[40];

    if (!o)
        return mp_fail(err, errlen, "message: missing key 'type'");
    if (o->type != MSGPACK_OBJECT_STR)
        return mp_fail(err, errlen, "message: 'type' is not a string");
    for (int t = 1; t < MSG__COUNT; t++) {
        const char *name = msg_type_name((enum msg_type)t);
        size_t len = strlen(name);
        if (o->via.str.size == len && memcmp(o->via.str.ptr, name, len) == 0)
            return t;
    }
    return mp_fail(err, errlen, "message: unknown type '%s'", mp_show(shown, &o->via.str));
}

int msg_parse(const char *p, size_t n, struct msg_frame *f, char *err, size_t errlen)
{
    msgpack_unpacked u;
    msgpack_object *root;
    size_t off = 0;
    int rc;

    memset(f, 0, sizeof *f);
    f->payload = p;
    f->len = n;
    if ((rc = prescan(p, n, err, errlen)))
        return rc;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, p, n, &off) != MSGPACK_UNPACK_SUCCESS || off != n)
        rc = mp_fail(err, errlen, "message: malformed msgpack");
    else if (u.data.type != MSGPACK_OBJECT_MAP)
        rc = mp_fail(err, errlen, "message: payload is not a map");
    else if ((rc = type_of(&u.data, err, errlen)) > 0) {
        /* the root object moves into the zone, which the frame keeps */
        root = msgpack_zone_malloc(u.zone, sizeof *root);
        *root = u.data;
        f->root = root;
        f->zone = msgpack_unpacked_release_zone(&u);
        f->type = (enum msg_type)rc;
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}

void msg_frame_free(struct msg_frame *f)
{
    if (f->zone)
        msgpack_zone_free(f->zone);
    f->zone = NULL;
    f->root = NULL;
}

void msg_dispatch(const char *p, size_t n, msg_frame_fn fn, void *arg)
{
    struct msg_frame f;
    char why[256];

    fn(arg, &f, msg_parse(p, n, &f, why, sizeof why), why);
    msg_frame_free(&f);
}
