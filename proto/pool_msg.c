/* pool_msg: see pool_msg.h.  Packed and unpacked with msgpack-c directly:
 * a map {type, ...}; the frame's length was capped by the reader before
 * any of this runs, and each string or byte length is checked here. */
#include <string.h>
#include <msgpack.h>
#include "common/xmalloc.h"
#include "proto/mp.h"
#include "proto/pool_msg.h"

struct dec {
    const msgpack_object *root;
    const char *what;
    char *err;
    size_t errlen;
};

static int fail(struct dec *d, const char *why, const char *key)
{
    return mp_fail(d->err, d->errlen, "%s: '%s' %s", d->what, key, why);
}

/* Worded as msg.c's decoders word it, one form for the whole protocol. */
static int missing(struct dec *d, const char *key)
{
    return mp_fail(d->err, d->errlen, "%s: missing key '%s'", d->what, key);
}

/* f was bounded and unpacked by msg_parse; it must be of type t. */
static int open_msg(struct dec *d, const struct msg_frame *f, enum msg_type t)
{
    d->what = msg_type_name(t);
    d->root = f->root;
    if (f->type != t || !f->root)
        return mp_fail(d->err, d->errlen, "%s: got a '%s' message", d->what, msg_type_name(f->type));
    return 0;
}

static int get_u32(struct dec *d, const char *key, uint32_t *v)
{
    const msgpack_object *o = mp_lookup(d->root, key);
    if (!o)
        return missing(d, key);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > UINT32_MAX)
        return fail(d, "not an unsigned 32-bit integer", key);
    *v = (uint32_t)o->via.u64;
    return 0;
}

static int get_bool(struct dec *d, const char *key, int *v)
{
    const msgpack_object *o = mp_lookup(d->root, key);
    if (!o)
        return missing(d, key);
    if (o->type != MSGPACK_OBJECT_BOOLEAN)
        return fail(d, "not a boolean", key);
    *v = o->via.boolean;
    return 0;
}

/* A str or bin value of at most max bytes. */
static int get_bytes(struct dec *d, const char *key, size_t max, const char **p, size_t *n)
{
    const msgpack_object *o = mp_lookup(d->root, key);
    if (!o)
        return missing(d, key);
    if (o->type != MSGPACK_OBJECT_STR && o->type != MSGPACK_OBJECT_BIN)
        return fail(d, "not a string", key);
    *p = o->via.str.ptr;      /* bin is str's layout (size, ptr): read through either */
    *n = o->via.str.size;
    if (*n > max)
        return fail(d, "too long", key);
    return 0;
}

static int get_str(struct dec *d, const char *key, char *out, size_t size)
{
    const char *p;
    size_t n;
    int rc = get_bytes(d, key, size - 1, &p, &n);
    if (rc)
        return rc;
    if (memchr(p, '\0', n))
        return fail(d, "holds a NUL byte", key);
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

void pool_submit_encode(struct buf *out, const struct pool_submit *m)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(MSG_SUBMIT), m->clean ? 9 : 8);

    mp_pack_karray(&pk, "argv", m->argc);
    for (uint32_t i = 0; i < m->argc; i++)
        mp_pack_str(&pk, m->argv[i], strlen(m->argv[i]));
    mp_pack_key(&pk, "plan");
    msgpack_pack_bin(&pk, m->plan ? m->plan_len : 0);
    if (m->plan)
        msgpack_pack_bin_body(&pk, m->plan, m->plan_len);
    mp_pack_key(&pk, "has_plan");
    m->plan ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    mp_pack_key(&pk, "want_json");
    m->want_json ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    mp_pack_key(&pk, "wait");
    m->wait ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    mp_pack_u64(&pk, "expect", m->expect);
    mp_pack_u64(&pk, "min_agents", m->min_agents);
    mp_pack_u64(&pk, "expect_timeout_ms", m->expect_timeout_ms);
    if (m->clean) {               /* optional: a run's bytes are as before it existed */
        mp_pack_key(&pk, "command");
        mp_pack_key(&pk, "clean");
    }
    mp_frame_end(out, start);
}

int pool_submit_decode(const struct msg_frame *f, struct pool_submit *m, char *err, size_t errlen)
{
    struct dec d = { .err = err, .errlen = errlen };
    const msgpack_object *a;
    const char *plan;
    size_t plan_len;
    int has_plan = 0, rc;

    memset(m, 0, sizeof *m);
    if ((rc = open_msg(&d, f, MSG_SUBMIT)))
        goto out;
    if ((rc = get_bool(&d, "has_plan", &has_plan)) || (rc = get_bool(&d, "want_json", &m->want_json)) ||
        (rc = get_bool(&d, "wait", &m->wait)) || (rc = get_u32(&d, "expect", &m->expect)) ||
        (rc = get_u32(&d, "min_agents", &m->min_agents)) ||
        (rc = get_u32(&d, "expect_timeout_ms", &m->expect_timeout_ms)) ||
        (rc = get_bytes(&d, "plan", POOL_PLAN_MAX, &plan, &plan_len)))
        goto out;
    a = mp_lookup(d.root, "argv");
    if (!a || a->type != MSGPACK_OBJECT_ARRAY) {
        rc = a ? fail(&d, "not an array", "argv") : missing(&d, "argv");
        goto out;
    }
    if (a->via.array.size > POOL_ARGV_MAX) {
        rc = fail(&d, "has too many options", "argv");
        goto out;
    }
    m->argv = xcalloc(a->via.array.size + 1, sizeof *m->argv);
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        const msgpack_object *s = &a->via.array.ptr[i];
        if (s->type != MSGPACK_OBJECT_STR || s->via.str.size > POOL_ARG_MAX ||
            memchr(s->via.str.ptr, '\0', s->via.str.size)) {
            rc = fail(&d, "holds a bad option (not a string, too long or with a NUL)", "argv");
            goto out;
        }
        m->argv[i] = xmalloc(s->via.str.size + 1);
        memcpy(m->argv[i], s->via.str.ptr, s->via.str.size);
        m->argv[i][s->via.str.size] = '\0';
        m->argc = i + 1;
    }
    /* optional: a submission without it is a run (as before there was clean) */
    if ((a = mp_lookup(d.root, "command")) != NULL) {
        if (a->type == MSGPACK_OBJECT_STR && a->via.str.size == 5 && memcmp(a->via.str.ptr, "clean", 5) == 0)
            m->clean = 1;
        else if (a->type != MSGPACK_OBJECT_STR || a->via.str.size != 3 || memcmp(a->via.str.ptr, "run", 3) != 0) {
            rc = fail(&d, "not 'run' or 'clean'", "command");
            goto out;
        }
    }
    if (has_plan) {
        m->plan = xmalloc(plan_len + 1);
        memcpy(m->plan, plan, plan_len);
        m->plan[plan_len] = '\0';
        m->plan_len = plan_len;
    }
out:
    if (rc)
        pool_submit_free(m);
    return rc;
}

void pool_submit_free(struct pool_submit *m)
{
    for (uint32_t i = 0; m->argv && i < m->argc; i++)
        free(m->argv[i]);
    free(m->argv);
    free(m->plan);
    memset(m, 0, sizeof *m);
}

void pool_busy_encode(struct buf *out, const struct pool_busy *m)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(MSG_BUSY), 2);
    mp_pack_kstr(&pk, "from", m->from, sizeof m->from);
    mp_pack_kstr(&pk, "since", m->since, sizeof m->since);
    mp_frame_end(out, start);
}

int pool_busy_decode(const struct msg_frame *f, struct pool_busy *m, char *err, size_t errlen)
{
    struct dec d = { .err = err, .errlen = errlen };
    int rc = open_msg(&d, f, MSG_BUSY);
    if (!rc && !(rc = get_str(&d, "from", m->from, sizeof m->from)))
        rc = get_str(&d, "since", m->since, sizeof m->since);
    return rc;
}

void pool_output_encode(struct buf *out, enum pool_stream s, const void *data, size_t len)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(MSG_OUTPUT), 2);
    mp_pack_u64(&pk, "stream", (uint32_t)s);
    mp_pack_key(&pk, "data");
    msgpack_pack_bin(&pk, len);
    msgpack_pack_bin_body(&pk, data, len);
    mp_frame_end(out, start);
}

/* The data points into f's payload, which must outlive m. */
int pool_output_decode(const struct msg_frame *f, struct pool_output *m, char *err, size_t errlen)
{
    struct dec d = { .err = err, .errlen = errlen };
    uint32_t s = 0;
    int rc = open_msg(&d, f, MSG_OUTPUT);
    if (!rc && !(rc = get_u32(&d, "stream", &s)) && (s < POOL_STDOUT || s > POOL_JOURNAL))
        rc = fail(&d, "is not 1..4", "stream");
    if (!rc)
        rc = get_bytes(&d, "data", POOL_CHUNK_MAX, &m->data, &m->len);
    m->stream = (enum pool_stream)s;
    /* msgpack_unpack_next references the input for str/bin; make sure, as
     * the frame goes before the caller is done with the data */
    if (!rc && m->len && (m->data < f->payload || m->data + m->len > f->payload + f->len))
        rc = fail(&d, "not in the payload", "data");
    return rc;
}

void pool_exit_encode(struct buf *out, uint32_t status)
{
    msgpack_packer pk;
    size_t start = mp_frame_begin(out, &pk, msg_type_name(MSG_EXIT), 1);
    mp_pack_u64(&pk, "status", status);
    mp_frame_end(out, start);
}

int pool_exit_decode(const struct msg_frame *f, uint32_t *status, char *err, size_t errlen)
{
    struct dec d = { .err = err, .errlen = errlen };
    int rc = open_msg(&d, f, MSG_EXIT);
    if (!rc && !(rc = get_u32(&d, "status", status)) && *status > 255)
        rc = fail(&d, "is over 255", "status");
    return rc;
}
