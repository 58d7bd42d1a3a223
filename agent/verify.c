/* verify: data verification inside the job loop (see verify.h).
 *
 * Costs: per write, one header and a checksum pass per unit (vblock_fill);
 * per read, the same pass and compares (vblock_check).  No buffer is
 * copied and nothing is allocated per op: the unit is checked where the
 * engine put it.  VERIFY_SCAN keeps, per generation found, a count and the
 * first offenders it would be if that generation turns out stale, so a
 * file rewritten by a later phase is judged against its newest generation
 * without a second pass. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/verify.h"
#include "common/plan_verify.h"
#include "common/xmalloc.h"

struct seen_unit {             /* where a unit was, and its header */
    uint32_t file;
    uint64_t offset;
    struct vblock_id found;
};

struct verify_seen {
    uint64_t gen;
    uint64_t units;            /* units found with this generation */
    uint32_t nbad;             /* of them, kept as would-be offenders */
    struct seen_unit bad[VSTATS_FIRST_MAX];
};

uint64_t verify_job_bytes(uint64_t nfiles)
{
    return sizeof(struct vstats) + sizeof(struct verify_job) + VERIFY_GENS * sizeof(struct verify_seen) +
           nfiles * sizeof(uint64_t);
}

uint64_t verify_file_id(const struct engine_job *ej, uint32_t f)
{
    const char *p = ej->files[f].path;
    size_t rl = ej->root ? strlen(ej->root) : 0;
    if (rl && strncmp(p, ej->root, rl) == 0 && (p[rl] == '/' || p[rl] == '\0'))
        p += rl;
    while (*p == '/')
        p++;
    return vblock_file_id(p);
}

int verify_init(struct verify_job *v, const struct job_spec *spec, const struct engine_job *ej,
                uint32_t writer, uint32_t job, uint64_t gen, struct vstats *out,
                char *err, size_t errlen)
{
    unsigned char pat[256];
    size_t plen = 0;
    int rc;

    memset(v, 0, sizeof *v);
    if (spec->verify_pattern[0] && plan_pattern_bytes(spec->verify_pattern, pat, sizeof pat, &plen) < 0) {
        snprintf(err, errlen, "job '%s': bad verify_pattern", spec->name);
        return -EINVAL;
    }
    if ((rc = vblock_ctx_init(&v->ctx, (enum vblock_csum)spec->verify, spec->verify_offset, pat, plen)) < 0) {
        snprintf(err, errlen, "job '%s': cannot verify with verify=%s", spec->name,
                 vblock_csum_name((enum vblock_csum)spec->verify));
        return rc;
    }
    v->spec = spec;
    v->ej = ej;
    v->writer = v->reader = writer;
    v->scan_writer = VBLOCK_ANY_WRITER;
    v->job = job;
    v->gen = gen;
    v->out = out;
    if (out)
        out->on = 1;
    v->file_id = xcalloc(ej->nfiles ? ej->nfiles : 1, sizeof *v->file_id);
    for (uint32_t f = 0; f < ej->nfiles; f++)
        v->file_id[f] = verify_file_id(ej, f);
    return 0;
}

void verify_free(struct verify_job *v)
{
    vblock_ctx_close(&v->ctx);
    free(v->file_id);
    free(v->seen);
    v->file_id = NULL;
    v->seen = NULL;
}

void verify_stamp(struct verify_job *v, struct io_req *r, uint64_t unit, uint64_t gen, uint64_t now_ns)
{
    struct vblock_id id = { .file_id = v->file_id[r->file], .writer = v->writer, .job = v->job,
                            .gen = gen, .time_ns = now_ns, .run = v->run };
    for (uint64_t at = 0; at + unit <= r->len; at += unit) {
        id.offset = r->offset + at;
        vblock_fill(&v->ctx, r->buf + at, (uint32_t)unit, &id);
    }
}

static void bad_of(const struct verify_job *v, uint32_t file, uint64_t off,
                   const struct vblock_expect *e, const struct vblock_id *found, struct vstats_bad *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->file, sizeof b->file, "%s", v->ej->files[file].path);
    b->offset = off;
    b->reader = v->reader;
    b->expected_writer = e->writer;
    b->expected_gen = e->gen;
    b->found_writer = found->writer;
    b->found_job = found->job;
    b->found_gen = found->gen;
    b->found_offset = found->offset;
    b->expected_run = e->run;
    b->found_run = found->run;
}

/* Units of generation s->gen, which is not the newest (newest is): stale,
 * the kept ones as offenders. */
static void seen_stale(struct verify_job *v, struct verify_seen *s, uint64_t newest)
{
    for (uint32_t k = 0; k < s->nbad; k++) {
        struct vblock_expect e = { .writer = VBLOCK_ANY_WRITER, .gen = newest };
        struct vstats_bad b;
        bad_of(v, s->bad[k].file, s->bad[k].offset, &e, &s->bad[k].found, &b);
        vstats_add(v->out, VB_STALE, &b);
    }
    v->out->checked += s->units - s->nbad;
    v->out->count[VB_STALE] += s->units - s->nbad;
    v->failed = 1;
}

/* VERIFY_SCAN: an ok unit of generation gen; keep it as a would-be
 * offender of its generation.  With every slot taken, the oldest
 * generation held (or this one, if older still) cannot be the newest: it
 * is judged stale now and its slot reused, so every unit is judged. */
static void scan_note(struct verify_job *v, uint32_t file, uint64_t off, const struct vblock_id *found)
{
    struct verify_seen *s = NULL;
    uint64_t gen = found->gen;
    if (!v->seen)
        v->seen = xcalloc(VERIFY_GENS, sizeof *v->seen);
    for (uint32_t i = 0; i < v->nseen; i++)
        if (v->seen[i].gen == gen)
            s = &v->seen[i];
    if (!s && v->nseen < VERIFY_GENS) {
        s = &v->seen[v->nseen++];
        s->gen = gen;
    }
    if (!s) {
        struct verify_seen *old = &v->seen[0];
        uint64_t newest = gen;
        for (uint32_t i = 0; i < v->nseen; i++) {
            if (v->seen[i].gen < old->gen)
                old = &v->seen[i];
            if (v->seen[i].gen > newest)
                newest = v->seen[i].gen;
        }
        if (gen < old->gen) {
            struct verify_seen one = { .gen = gen, .units = 1, .nbad = 1 };
            one.bad[0] = (struct seen_unit){ .file = file, .offset = off, .found = *found };
            seen_stale(v, &one, newest);
            return;
        }
        seen_stale(v, old, newest);
        memset(old, 0, sizeof *old);
        old->gen = gen;
        s = old;
    }
    s->units++;
    if (s->nbad < VSTATS_FIRST_MAX) {
        struct seen_unit *u = &s->bad[s->nbad++];
        u->file = file;
        u->offset = off;
        u->found = *found;
    }
}

int verify_read(struct verify_job *v, const struct io_req *r, enum verify_mode mode)
{
    uint64_t unit = plan_verify_unit(v->spec, r->len);
    struct vblock_expect e = { .file_id = v->file_id[r->file],
                               .writer = mode == VERIFY_READBACK ? v->writer : v->scan_writer,
                               .gen = mode == VERIFY_READBACK ? v->gen : VBLOCK_ANY_GEN };
    int any_bad = 0;

    if (mode == VERIFY_READBACK) {
        e.run = v->run;
    } else {
        /* a file this run wrote earlier must hold this run's blocks, of that
         * phase or later: a previous run's (every write lost) is stale */
        e.run = v->written_by ? v->written_by : v->min_gen ? v->run : 0;
        e.min_gen = v->min_gen;
    }
    for (uint64_t at = 0; at + unit <= r->len; at += unit) {
        struct vblock_id found;
        struct vstats_bad b;
        enum vblock_kind k;
        e.offset = r->offset + at;
        k = vblock_check(&v->ctx, r->buf + at, (uint32_t)unit, &e, &found);
        if (found.run || found.gen)
            vstats_add_run(v->out, found.run, vblock_generation_ms(found.gen), 1);
        if (k == VB_OK && mode == VERIFY_SCAN && v->ctx.csum != VB_CSUM_PATTERN &&
            v->ctx.csum != VB_CSUM_NULL) {
            scan_note(v, r->file, e.offset, &found);
            continue;
        }
        if (k != VB_OK) {
            bad_of(v, r->file, e.offset, &e, &found, &b);
            any_bad = 1;
        }
        vstats_add(v->out, k, k == VB_OK ? NULL : &b);
    }
    if (any_bad)
        v->failed = 1;
    return any_bad;
}

void verify_end(struct verify_job *v)
{
    uint64_t newest = 0;
    for (uint32_t i = 0; i < v->nseen; i++)
        if (v->seen[i].gen > newest)
            newest = v->seen[i].gen;
    for (uint32_t i = 0; i < v->nseen; i++) {
        struct verify_seen *s = &v->seen[i];
        if (s->gen == newest) {
            v->out->checked += s->units;
            v->out->count[VB_OK] += s->units;
            continue;
        }
        seen_stale(v, s, newest);
    }
    v->nseen = 0;
}
