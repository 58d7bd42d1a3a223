/* job_layout: a job's files around its phase (see job_layout.h): how much
 * room the phase may take, the layout before it (extended, or filled with
 * data, a file shared with others under its engine lock), and unlink=1
 * after it.  Runs on a worker thread through the job's own engine,
 * synchronously: one request in flight, a chunk at a time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "agent/halt.h"
#include "agent/job_layout.h"
#include "agent/verify.h"
#include "common/clock.h"
#include "common/plan_verify.h"
#include "common/wbuf.h"

#define LAYOUT_CHUNK    (1u << 20)

static int layout_write(struct job *j, uint32_t f, uint64_t off, uint64_t len, char *buf)
{
    struct io_req r = { .kind = IO_WRITE, .file = f, .offset = off, .buf = buf, .len = len };
    struct io_req *done[1];
    int rc = j->eng->queue(&j->ej, &r);
    if (rc < 0)
        return rc;
    do
        rc = j->eng->reap(&j->ej, 1, JOB_REAP_WAIT_NS, done, 1);
    while (rc == 0);
    return rc < 0 ? rc : r.result;
}

/* Grow file f to size without writing data and never shrinking it. */
static int layout_extend(struct job *j, uint32_t f, uint64_t size)
{
    static char zero[JOB_BUF_ALIGN] __attribute__((aligned(JOB_BUF_ALIGN)));
    if (j->eng->extend)
        return j->eng->extend(&j->ej, f, size);
    /* one byte at the end extends the file but, unlike ftruncate, never
     * shrinks it: agents sharing a file may extend it concurrently */
    return layout_write(j, f, size - 1, 1, zero);
}

int job_space_needed(struct job *j, uint64_t *bytes)
{
    struct engine_job *ej = &j->ej;
    *bytes = 0;
    if (!j->owns_files || j->spec->rw == RW_METADATA)
        return 0;
    for (uint32_t f = 0; f < ej->nfiles; f++) {
        uint64_t have = 0, want = ej->files[f].size, start = ej->files[f].start;
        int rc = j->eng->file_size(ej, f, &have);
        if (rc < 0 && rc != -ENOENT)
            return rc;
        if (have >= want)
            continue;
        /* a shorter file gets its region rewritten (read phases) or
         * written by the phase (write phases): at most the region */
        *bytes += want - (have > start ? have : start);
    }
    /* a write phase adds no more than it writes (io_size, number_ios),
     * unless its files are preallocated (fallocate= native, posix and keep
     * reserve the whole region before the first write) or laid out with
     * data (a job that also reads, overwrite=1: the whole region) */
    if (rw_mode_writes(j->spec->rw) && !plan_layout_fills(j->spec) &&
        !(j->eng->extend && j->spec->fallocate != FALLOC_NONE && j->spec->fallocate != FALLOC_TRUNCATE)) {
        const struct job_spec *sp = j->spec;
        uint64_t bs = job_max_bs(sp), cap = UINT64_MAX;
        if (sp->io_size && !sp->time_based)
            cap = sp->io_size * (sp->loops ? sp->loops : 1);
        if (sp->number_ios && sp->number_ios < UINT64_MAX / bs && sp->number_ios * bs < cap)
            cap = sp->number_ios * bs;
        if (*bytes > cap)
            *bytes = cap;
    }
    return 0;
}

/* verify=: the layout's data carries headers too (generation pass 0 of
 * the phase), in units on the grid the phase reads: chunks are whole units. */
static uint64_t layout_chunk(const struct job *j)
{
    uint64_t unit;
    if (!j->spec->verify)
        return LAYOUT_CHUNK;
    unit = plan_verify_unit(j->spec, j->spec->bs);
    return unit >= LAYOUT_CHUNK ? unit : LAYOUT_CHUNK - LAYOUT_CHUNK % unit;
}

static void layout_stamp(struct job *j, struct verify_job *v, uint32_t f, uint64_t off, uint64_t len,
                         char *buf)
{
    uint64_t unit = plan_verify_unit(j->spec, j->spec->bs);
    struct io_req r = { .kind = IO_WRITE, .file = f, .offset = off, .buf = buf,
                        .len = len - len % unit };
    verify_stamp(v, &r, unit, j->verify_gen & ~(uint64_t)0xff, clock_now_ns());
}

#define LAYOUT_LOCK_POLL_NS (20ull * 1000 * 1000)

/* Wait for file f's layout lock (engine_ops.lock) while another agent or
 * job lays the same file out.  1 held, 0 no locks here (lay out anyway:
 * a file laid out twice still holds data), -ECANCELED on stop. */
static int layout_lock(struct job *j, uint32_t f)
{
    if (!j->eng->lock)
        return 0;
    for (;;) {
        int rc = j->eng->lock(&j->ej, f, 1);
        if (rc == 0)
            return 1;
        if (rc != -EAGAIN)
            return 0;
        if (halt_sleep_until(j->halt, clock_now_ns() + LAYOUT_LOCK_POLL_NS))
            return -ECANCELED;
    }
}

/* What job_layout carries from one file to the next. */
struct layout_ctx {
    int fill;
    atomic_uint_fast64_t *done;
    char *buf;                  /* one chunk, allocated at the first file that needs data */
    struct wbuf wb;
    struct verify_job v;        /* fill with verify=: stamps the chunks */
    uint64_t align, chunk;
};

/* Lay out file f unless it is already as long as the job needs. */
static int layout_file(struct job *j, struct layout_ctx *c, uint32_t f)
{
    struct engine_job *ej = &j->ej;
    uint64_t have = 0, want = ej->files[f].size, start = ej->files[f].start;
    int rc = j->eng->file_size(ej, f, &have);

    if (rc < 0)
        return rc;
    if (have >= want) {
        if (c->fill)
            atomic_fetch_add(c->done, want - start);
        return 0;
    }
    if (!c->fill)
        return layout_extend(j, f, want);  /* write phases: the planned size, no data needed */
    if (!c->buf) {
        void *p;
        if (posix_memalign(&p, JOB_BUF_ALIGN, c->chunk) != 0)
            return -ENOMEM;
        c->buf = p;
        wbuf_init(&c->wb, j->spec, j->seed | 1);
        wbuf_fill(&c->wb, c->buf, c->chunk);
    }
    /* only the job's region, rewritten whole: a short file may be a
     * half-finished earlier layout.  direct=1 needs aligned offsets
     * and lengths; the last chunk may then end a little past want. */
    for (uint64_t off = start - start % c->align; off < want && rc == 0; off += c->chunk) {
        uint64_t len = want - off < c->chunk ? want - off : c->chunk;
        if (halt_raised(j->halt))
            return -ECANCELED;
        if (len % c->align)
            len += c->align - len % c->align;
        if (j->spec->verify)
            layout_stamp(j, &c->v, f, off, len, c->buf);
        else
            wbuf_layout_chunk(&c->wb, c->buf, len, off);
        rc = layout_write(j, f, off, len, c->buf);
        if (rc == 0)
            atomic_fetch_add(c->done, off + len > want ? want - off : len);
    }
    return rc;
}

int job_layout(struct job *j, int fill, atomic_uint_fast64_t *done)
{
    struct engine_job *ej = &j->ej;
    struct layout_ctx c = { .fill = fill, .done = done, .chunk = layout_chunk(j),
                            .align = ej->dio_align ? ej->dio_align : 1 };
    int rc = 0;

    if (!j->owns_files)
        return 0;
    if (fill && j->spec->verify &&
        (rc = verify_init(&c.v, j->spec, ej, ej->agent_index, j->verify_job, j->verify_gen, NULL,
                          ej->err, sizeof ej->err)) < 0)
        return rc;
    if (fill && j->spec->verify)
        c.v.run = j->verify_run;
    uint32_t f = 0;
    for (; f < ej->nfiles && rc == 0; f++) {
        int locked;
        if (halt_raised(j->halt)) {
            rc = -ECANCELED;
            break;
        }
        /* a file shared by agents or jobs: whoever locks it first lays it
         * out, the others find it long enough (its size is read under the
         * lock) */
        if ((locked = layout_lock(j, f)) < 0) {
            rc = locked;
            break;
        }
        rc = layout_file(j, &c, f);
        if (locked)
            j->eng->lock(ej, f, 0);
        if (rc < 0)
            break;                    /* f: the file it failed on */
    }
    if (rc == -ECANCELED) {
        snprintf(ej->err, sizeof ej->err, "layout stopped");
    } else if (rc < 0 && ej->err[0] == '\0') {
        char e[128], how[48] = "";
        uint32_t bad = f < ej->nfiles ? f : 0;
        if (!fill && j->spec->fallocate != FALLOC_NATIVE)
            snprintf(how, sizeof how, " (fallocate=%s)", plan_fallocate_name(j->spec->fallocate));
        snprintf(ej->err, sizeof ej->err, "laying out %s%s failed: %s%s%s", ej->files[bad].path, how,
                 engine_strerror(rc, e, sizeof e), ej->detail[0] ? ": " : "", ej->detail);
    }
    if (fill && j->spec->verify)
        verify_free(&c.v);
    free(c.buf);
    return rc;
}

void job_unlink_files(struct job *j)
{
    uint64_t n;
    if (!j->eng->md || !j->ej.priv)
        return;
    /* only what this run created: never a file that was there before */
    for (uint32_t f = 0; f < j->ej.nfiles; f++)
        if (j->ej.files[f].created)
            j->eng->md(&j->ej, OP_UNLINK, j->ej.files[f].path, NULL, NULL, 0, &n);
}
