/* mountstats: see mountstats.h.  The parser walks the text line by line
 * without copying it: a "device" line opens a section, and only the
 * section of the wanted mount point is parsed field by field (the last
 * one wins, so its counters are reset at each such header).  Numbers are
 * unsigned decimal, checked for overflow; an NFS section's per-op and
 * xprt lines must have the field counts the kernel prints. */
#include "agent/mountstats.h"
#include "agent/procfs.h"
#include "proto/msg_client.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_FIELDS 32

/* One line of text, not NUL-terminated: [p, end). */
struct span {
    const char *p, *end;
};

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static void skip_space(struct span *s)
{
    while (s->p < s->end && is_space(*s->p))
        s->p++;
}

/* The next whitespace-separated word of s. */
static struct span next_word(struct span *s)
{
    struct span w;
    skip_space(s);
    w.p = s->p;
    while (s->p < s->end && !is_space(*s->p))
        s->p++;
    w.end = s->p;
    return w;
}

static int word_is(struct span w, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(w.end - w.p) == n && memcmp(w.p, lit, n) == 0;
}

/* s starts with lit (after leading blanks); s is moved past it. */
static int eat(struct span *s, const char *lit)
{
    size_t n = strlen(lit);
    skip_space(s);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
        return 0;
    s->p += n;
    return 1;
}

/* An unsigned decimal word; -EBADMSG when empty, not digits or > 2^64-1. */
static int word_u64(struct span w, uint64_t *v)
{
    uint64_t x = 0;
    if (w.p == w.end)
        return -EBADMSG;
    for (const char *c = w.p; c < w.end; c++) {
        unsigned d;
        if (*c < '0' || *c > '9')
            return -EBADMSG;
        d = (unsigned)(*c - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -EBADMSG;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* All remaining words of s as numbers into v[0..max); the count, or
 * -EBADMSG (a non-number, or more than max). */
static int numbers(struct span *s, uint64_t *v, int max)
{
    int n = 0;
    for (;;) {
        struct span w = next_word(s);
        if (w.p == w.end)
            return n;
        if (n == max || word_u64(w, &v[n]) < 0)
            return -EBADMSG;
        n++;
    }
}

static int word_copy(struct span w, char *dst, size_t size)
{
    size_t n = (size_t)(w.end - w.p);
    if (n >= size)
        return -ENAMETOOLONG;
    memcpy(dst, w.p, n);
    dst[n] = '\0';
    return 0;
}

/* The u64 counter of field f (msg_client.h's tables of struct ms_xprt and
 * struct ms_op) in the struct at base. */
static uint64_t *counter(const void *base, const struct field *f)
{
    return (uint64_t *)((uintptr_t)base + f->off);
}

/* "device SRC mounted on DIR with fstype TYPE[ statvers=V]": mount point,
 * type and version into out; 0, or -EBADMSG if the line is not one. */
static int parse_device(struct span s, struct mountstats *out)
{
    struct span w;
    next_word(&s);                          /* "device" */
    next_word(&s);                          /* its source */
    if (!word_is(next_word(&s), "mounted") || !word_is(next_word(&s), "on"))
        return -EBADMSG;
    w = next_word(&s);
    if (procfs_unescape(w.p, w.end, out->mount, sizeof out->mount) < 0 || !out->mount[0])
        return -EBADMSG;
    if (!word_is(next_word(&s), "with") || !word_is(next_word(&s), "fstype"))
        return -EBADMSG;
    if (word_copy(next_word(&s), out->fstype, sizeof out->fstype) < 0 || !out->fstype[0])
        return -EBADMSG;
    /* the type is quoted in the agent's note, which the wire refuses with
     * a control byte in it: a strange byte is shown as '?' */
    for (char *c = out->fstype; *c; c++)
        if (!msg_client_word((char[2]){ *c, '\0' }))
            *c = '?';
    w = next_word(&s);
    if (w.end - w.p > 9 && memcmp(w.p, "statvers=", 9) == 0) {
        w.p += 9;
        if (word_copy(w, out->statvers, sizeof out->statvers) < 0)
            return -EBADMSG;
    }
    return 0;
}

/* "xprt: PROTO n n n ...": the counters by the protocol's field order
 * (statvers 1.0 prints the first 10 tcp/rdma or 7 udp fields, 1.1 adds
 * max_slots, sending_u and pending_u; rdma appends its own). */
static int parse_xprt(struct span s, struct mountstats *out)
{
    uint64_t v[LINE_MAX_FIELDS];
    struct span proto = next_word(&s);
    int n = numbers(&s, v, LINE_MAX_FIELDS);
    struct ms_xprt x = { 0 };

    /* tcp, rdma: port bind_count connect_count connect_time idle_time sends
     * recvs bad_xids req_u backlog_u [...]; udp: port bind_count sends recvs
     * bad_xids req_u backlog_u [...].  From sends on, the same five. */
    int at;
    if (word_is(proto, "tcp") || word_is(proto, "rdma"))
        at = 5;
    else if (word_is(proto, "udp"))
        at = 2;
    else
        return 0;                           /* a transport we do not know: no counters */
    if (n < at + 5)
        return -EBADMSG;
    x.connects = at == 5 ? v[2] : 0;
    x.sends = v[at];
    x.recvs = v[at + 1];
    x.bad_xids = v[at + 2];
    x.req_u = v[at + 3];
    x.backlog_u = v[at + 4];
    if (word_copy(proto, out->xprt_proto, sizeof out->xprt_proto) < 0)
        return -EBADMSG;
    for (size_t i = 0; i < msg_xprt_nfields; i++)
        *counter(&out->xprt, &msg_xprt_fields[i]) += *counter(&x, &msg_xprt_fields[i]);
    out->nxprt++;
    return 0;
}

/* "NAME: ops ntrans timeouts bytes_sent bytes_recv queue rtt execute
 * [errors]" */
static int parse_op(struct span s, struct mountstats *out)
{
    uint64_t v[LINE_MAX_FIELDS];
    struct span name = next_word(&s);
    struct ms_op *op;
    int n;

    if (name.end - name.p < 2 || name.end[-1] != ':')
        return -EBADMSG;
    name.end--;
    if (out->nops == MS_OPS_MAX)
        return -EBADMSG;
    op = &out->op[out->nops];
    memset(op, 0, sizeof *op);
    /* an operation name as the wire takes it: a strange file is
     * "malformed" here, not a broken message that drops the agent */
    if (word_copy(name, op->name, sizeof op->name) < 0 || !msg_client_word(op->name))
        return -EBADMSG;
    /* the wire refuses a name listed twice (proto/msg_client.c, ms_accept) */
    for (uint32_t i = 0; i < out->nops; i++)
        if (strcmp(out->op[i].name, op->name) == 0)
            return -EBADMSG;
    n = numbers(&s, v, LINE_MAX_FIELDS);
    if (n != 8 && n != 9)
        return -EBADMSG;
    if (n == 8)
        v[8] = 0;                           /* no errors column */
    /* the columns are msg_msop_fields' counters, in their order (after the name) */
    for (size_t i = 1; i < msg_msop_nfields; i++)
        *counter(op, &msg_msop_fields[i]) = v[i - 1];
    out->nops++;
    return 0;
}

int mountstats_is_nfs(const char *fstype)
{
    return strcmp(fstype, "nfs") == 0 || strcmp(fstype, "nfs4") == 0;
}

int mountstats_find(const char *text, const char *mount_point, struct mountstats *out)
{
    struct mountstats *cur = calloc(1, sizeof *cur);
    int found = 0, in_ours = 0, in_ops = 0, bad = 0, rc;

    if (!cur)
        return -ENOMEM;
    memset(out, 0, sizeof *out);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        struct span line = { p, nl ? nl : p + strlen(p) };
        struct span s = line;

        p = nl ? nl + 1 : line.end;
        skip_space(&s);
        if (s.p == s.end)
            continue;
        if (line.p[0] == 'd' && word_is(next_word(&(struct span){ line.p, line.end }), "device")) {
            /* a new section: ours only if it parses and names the mount */
            if (in_ours && !bad)
                *out = *cur, found = 1;
            else if (in_ours)
                found = -1;
            in_ours = in_ops = bad = 0;
            /* the header and counters; op[] entries are set as parsed */
            memset(cur, 0, offsetof(struct mountstats, op));
            if (parse_device(line, cur) == 0 && strcmp(cur->mount, mount_point) == 0)
                in_ours = 1;
            continue;
        }
        if (!in_ours || !mountstats_is_nfs(cur->fstype))
            continue;
        if (eat(&s, "per-op statistics")) {
            in_ops = 1;
        } else if (in_ops) {
            if (parse_op(s, cur) < 0)
                bad = 1;
        } else if (eat(&s, "xprt:")) {
            if (parse_xprt(s, cur) < 0)
                bad = 1;
        } else if (eat(&s, "age:")) {
            struct span w = next_word(&s);
            if (word_u64(w, &cur->age_s) < 0)
                bad = 1;
        }
    }
    if (in_ours && !bad)
        *out = *cur, found = 1;
    else if (in_ours)
        found = -1;
    free(cur);
    if (found == 0)
        return -ENOENT;
    if (found < 0) {
        memset(out, 0, sizeof *out);
        return -EBADMSG;
    }
    rc = mountstats_is_nfs(out->fstype) ? 0 : -EMEDIUMTYPE;
    return rc;
}

static uint64_t sub(uint64_t now, uint64_t then)
{
    return now >= then ? now - then : now;
}

static const struct ms_op *op_named(const struct mountstats *m, uint32_t hint, const char *name)
{
    if (hint < m->nops && strcmp(m->op[hint].name, name) == 0)
        return &m->op[hint];
    for (uint32_t i = 0; i < m->nops; i++)
        if (strcmp(m->op[i].name, name) == 0)
            return &m->op[i];
    return NULL;
}

void mountstats_delta(const struct mountstats *now, const struct mountstats *then,
                      struct ms_sample *out)
{
    static const struct ms_op zero;

    out->present = 1;
    snprintf(out->mount, sizeof out->mount, "%s", now->mount);
    for (size_t i = 0; i < msg_xprt_nfields; i++)
        *counter(&out->xprt, &msg_xprt_fields[i]) = sub(*counter(&now->xprt, &msg_xprt_fields[i]),
                                                        *counter(&then->xprt, &msg_xprt_fields[i]));
    out->nops = 0;
    for (uint32_t i = 0; i < now->nops && out->nops < MS_OPS_MAX; i++) {
        const struct ms_op *a = &now->op[i];
        const struct ms_op *b = op_named(then, i, a->name);
        struct ms_op *d = &out->op[out->nops];
        uint64_t any = 0;

        if (!b)
            b = &zero;
        memcpy(d->name, a->name, sizeof d->name);
        for (size_t k = 1; k < msg_msop_nfields; k++) {     /* the counters, after the name */
            uint64_t *c = counter(d, &msg_msop_fields[k]);
            *c = sub(*counter(a, &msg_msop_fields[k]), *counter(b, &msg_msop_fields[k]));
            any |= *c;
        }
        if (any)
            out->nops++;
    }
}

char *mountstats_read(const char *path)
{
    return procfs_read(path, MOUNTSTATS_FILE_MAX);
}
