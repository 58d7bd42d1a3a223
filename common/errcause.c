/* errcause: failed ops by cause (see errcause.h).
 *
 * Design: a cause is the pair (kind, code); an op type keeps the first
 * ERRCAUSE_MAX pairs it meets, in that order, so the table never grows
 * with what a failing file system (or a hostile agent) comes up with, and
 * `other` keeps the sums exact. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/errcause.h"
#include "common/names.h"
#include "common/nfs_rpc.h"
#include "common/sat.h"
#include "common/why.h"

#define KIND_WORD(e, word) [e] = word,
static const char *const kind_names[ERRC__COUNT] = { ERRCAUSE_KINDS(KIND_WORD) };

NAMES_LOOKUPS(errcause_kind_name, errcause_kind_from_name, enum errcause_kind, kind_names, ERRC__COUNT)

void errcause_set_init(struct errcause_set *s)
{
    memset(s, 0, sizeof *s);
}

/* The slot of cause (kind, code): its own, or a new one while the table
 * has room (*fresh set: the caller fills in its details), else NULL. */
static struct errcause *slot(struct errcause_op *o, uint32_t kind, uint32_t code, int *fresh)
{
    *fresh = 0;
    for (uint32_t i = 0; i < o->n; i++)
        if (o->c[i].kind == kind && o->c[i].code == code)
            return &o->c[i];
    if (o->n >= ERRCAUSE_MAX)
        return NULL;
    *fresh = 1;
    o->c[o->n] = (struct errcause){ .kind = kind, .code = code };
    return &o->c[o->n++];
}

void errcause_add(struct errcause_set *s, enum op_type t, enum errcause_kind kind, uint32_t code,
                  uint64_t offset, uint64_t size, const char *file, uint64_t n)
{
    struct errcause_op *o = &s->op[t];
    struct errcause *c;
    int fresh;
    if (n == 0)
        return;
    if ((c = slot(o, kind, code, &fresh)) != NULL && fresh) {
        c->offset = offset;
        c->size = kind == ERRC_SHORT_READ ? size : 0;
        snprintf(c->file, sizeof c->file, "%s", file ? file : "");
        for (char *q = c->file; *q; q++)      /* a name may hold any byte; the wire takes none of these */
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                *q = '?';
    }
    if (c)
        c->count = sat_add_u64(c->count, n);
    else
        o->other = sat_add_u64(o->other, n);
}

void errcause_merge(struct errcause_set *dst, const struct errcause_set *src)
{
    for (int t = 0; t < OP__COUNT; t++) {
        struct errcause_op *d = &dst->op[t];
        const struct errcause_op *s = &src->op[t];
        for (uint32_t i = 0; i < s->n && i < ERRCAUSE_MAX; i++) {
            int fresh;
            struct errcause *c = slot(d, s->c[i].kind, s->c[i].code, &fresh);
            if (fresh)
                *c = s->c[i];
            else if (c)
                c->count = sat_add_u64(c->count, s->c[i].count);
            else
                d->other = sat_add_u64(d->other, s->c[i].count);
        }
        d->other = sat_add_u64(d->other, s->other);
    }
}

uint64_t errcause_failed(const struct errcause_set *s, enum op_type t)
{
    const struct errcause_op *o = &s->op[t];
    uint64_t n = o->other;
    for (uint32_t i = 0; i < o->n && i < ERRCAUSE_MAX; i++)
        n = sat_add_u64(n, o->c[i].count);
    return n;
}

int errcause_empty(const struct errcause_set *s)
{
    for (int t = 0; t < OP__COUNT; t++)
        if (s->op[t].n || s->op[t].other)
            return 0;
    return 1;
}

static int check_cause(const struct errcause *c, char *err, size_t errlen)
{
    if (c->kind >= ERRC__COUNT)
        return why_fail(err, errlen, "unknown kind %u", c->kind);
    if (c->kind == ERRC_ERRNO && (c->code == 0 || c->code > ERRCAUSE_ERRNO_MAX))
        return why_fail(err, errlen, "errno %u out of range 1..%d", c->code, ERRCAUSE_ERRNO_MAX);
    if (c->kind == ERRC_NFS && !nfs_status_valid(c->code))
        return why_fail(err, errlen, "NFS status %u of no known class", c->code);
    if (c->kind != ERRC_ERRNO && c->kind != ERRC_NFS && c->code != 0)
        return why_fail(err, errlen, "%s with code %u", kind_names[c->kind], c->code);
    if (c->kind != ERRC_SHORT_READ && c->size != 0)
        return why_fail(err, errlen, "%s with a file size", kind_names[c->kind]);
    if (c->count == 0)
        return why_fail(err, errlen, "count 0");
    if (memchr(c->file, '\0', sizeof c->file) == NULL)
        return why_fail(err, errlen, "file name not terminated");
    for (const char *p = c->file; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return why_fail(err, errlen, "file name with a control byte");
    return 0;
}

int errcause_check(const struct errcause_set *s, char *err, size_t errlen)
{
    char why[128];
    for (int t = 0; t < OP__COUNT; t++) {
        const struct errcause_op *o = &s->op[t];
        const char *op = op_type_name((enum op_type)t);
        uint64_t sum = o->other;
        if (o->n > ERRCAUSE_MAX)
            return why_fail(err, errlen, "errors: %s: %u causes (at most %d)", op, o->n, ERRCAUSE_MAX);
        for (uint32_t i = 0; i < o->n; i++) {
            if (check_cause(&o->c[i], why, sizeof why) < 0)
                return why_fail(err, errlen, "errors: %s: cause %u: %s", op, i, why);
            for (uint32_t k = 0; k < i; k++)
                if (o->c[k].kind == o->c[i].kind && o->c[k].code == o->c[i].code)
                    return why_fail(err, errlen, "errors: %s: cause %u repeats cause %u", op, i, k);
            if (__builtin_add_overflow(sum, o->c[i].count, &sum))
                return why_fail(err, errlen, "errors: %s: counts overflow", op);
        }
    }
    return 0;
}

static void size_words(uint64_t size, char *buf, size_t len)
{
    if (size == ERRCAUSE_SIZE_UNKNOWN)
        snprintf(buf, len, "file size unknown");
    else
        snprintf(buf, len, "file is %llu bytes", (unsigned long long)size);
}

const char *errcause_name(const struct errcause *c, char *buf, size_t len)
{
    const char *n;
    switch (c->kind) {
    case ERRC_ERRNO:
        n = strerrorname_np((int)c->code);
        if (n)
            snprintf(buf, len, "%s", n);
        else
            snprintf(buf, len, "errno %u", c->code);
        break;
    case ERRC_NFS:
        nfs_status_name(c->code, buf, len);
        break;
    default:
        snprintf(buf, len, "%s", c->kind < ERRC__COUNT ? kind_names[c->kind] : "?");
        break;
    }
    return buf;
}

const char *errcause_text(const struct errcause *c, char *buf, size_t len)
{
    char sz[48], name[64];
    switch (c->kind) {
    case ERRC_ERRNO:
        snprintf(buf, len, "%s (%s)", errcause_name(c, name, sizeof name), strerror((int)c->code));
        break;
    case ERRC_NFS:
        nfs_status_name(c->code, buf, len);
        break;
    case ERRC_SHORT_READ:
        size_words(c->size, sz, sizeof sz);
        snprintf(buf, len, "short read at offset %llu (%s)", (unsigned long long)c->offset, sz);
        break;
    case ERRC_TIMEOUT:
        snprintf(buf, len, "completed after op_deadline");
        break;
    case ERRC_CUT_OFF:
        snprintf(buf, len, "cut off: still outstanding when the job ended");
        break;
    default:
        snprintf(buf, len, "unknown cause");
        break;
    }
    return buf;
}
