/* iogen: the op generator (see iogen.h).
 *
 * Uniform random offsets visit every block of a region once per pass in a
 * pseudo-random order: an affine permutation i -> (a*i + c) mod n with
 * gcd(a, n) = 1 (a new a, c each pass).  That gives fio's random-map
 * coverage (a size-bound random write fills the file) with no bitmap;
 * norandommap=1 draws each offset on its own instead, as fio then does.
 * Skewed distributions follow fio's definitions: zipf by Gray et al.'s
 * method ("Quickly generating billion-record synthetic databases"), pareto
 * as u^(log h / log(1-h)), normal with sigma as a percentage of the region
 * around its middle; their hot blocks are then spread over the region by a
 * fixed affine permutation, as fio hashes them.  Zoned distributions
 * (fio's zoned, zoned_abs) pick a zone by its access share, then a unit
 * uniformly inside it.
 *
 * Reads and writes draw their block sizes from their own lists (fio's
 * "bs=4k,64k"); offsets keep one granularity, the smallest size of either.
 * fio's rw_sequencer: rw=randread:N takes a new random offset every N ops,
 * the ops between continue sequentially from the last (or repeat its
 * offset: rw_sequencer=identical); rw=write:SIZE leaves a SIZE hole after
 * each op.  openfiles=N (fewer than the job's files) serves only N files
 * at once, as fio does with N open: a file leaves after a pass over its
 * region and the next takes its slot. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agent/iogen.h"
#include "common/xmalloc.h"

#define ZIPF_MAX_TERMS 10000000u   /* zeta(n) beyond this is extrapolated */

uint64_t iogen_rand(struct iogen *g)
{
    /* xorshift64*: fast, and good enough to pick offsets */
    uint64_t x = g->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->rng = x;
    return x * UINT64_C(2685821657736338717);
}

double iogen_rand01(struct iogen *g)
{
    return ((double)(iogen_rand(g) >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static uint64_t units_in(const struct iogen *g, const struct iogen_file *f)
{
    return f->len / g->unit;
}

static void new_pass(struct iogen *g, struct iogen_file *f)
{
    uint64_t n = units_in(g, f);
    f->step = 0;
    if (n <= 1) {
        f->a = 1;
        f->c = f->cur = 0;
        return;
    }
    do
        f->a = iogen_rand(g) % n;
    while (f->a == 0 || gcd_u64(f->a, n) != 1);
    f->c = iogen_rand(g) % n;
    f->cur = f->c;
}

static void zipf_init(struct iogen *g, uint64_t n, double theta)
{
    uint64_t terms = n < ZIPF_MAX_TERMS ? n : ZIPF_MAX_TERMS;
    double zetan = 0, zeta2 = 1.0 + pow(0.5, theta);
    for (uint64_t i = 1; i <= terms; i++)
        zetan += pow((double)i, -theta);
    if (terms < n)   /* tail by the integral of x^-theta */
        zetan += (pow((double)n, 1 - theta) - pow((double)terms, 1 - theta)) / (1 - theta);
    g->zipf_theta = theta;
    g->zipf_zetan = zetan;
    g->zipf_alpha = 1.0 / (1.0 - theta);
    g->zipf_eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta2 / zetan);
}

/* Zone boundaries in units for each direction.  zoned: a zone of P percent
 * starts where the earlier zones' percentages end; zoned_abs: at the sum of
 * the earlier zones' bytes, which must not pass the region (fio refuses
 * that too). */
static int zones_init(struct iogen *g, const struct job_spec *spec, uint64_t len)
{
    struct zone_list l[2];
    int abs = spec->random_distribution == DIST_ZONED_ABS;
    uint64_t n = len / g->unit;
    if (zones_parse(spec->zones, abs, &l[0], &l[1], NULL, 0) < 0)
        return -EINVAL;
    for (int w = 0; w < 2; w++) {
        struct iogen_zones *z = &g->zones[w];
        uint64_t pos = 0;
        uint32_t acc = 0;
        if (abs && zones_abs_bytes(&l[w]) > len)
            return -EINVAL;
        z->n = l[w].n;
        for (uint32_t i = 0; i < l[w].n; i++) {
            uint64_t end = abs ? (pos * g->unit + l[w].z[i].size) / g->unit
                               : 0;
            if (!abs) {
                uint64_t pct = 0;
                for (uint32_t k = 0; k <= i; k++)
                    pct += l[w].z[k].size;
                end = (uint64_t)(((unsigned __int128)n * pct) / 100);
            }
            if (end > n)
                end = n;
            acc += l[w].z[i].access_pct;
            z->acc[i] = acc;
            z->first[i] = pos;
            z->count[i] = end > pos ? end - pos : 0;
            pos = end;
        }
    }
    return 0;
}

int iogen_init(struct iogen *g, const struct job_spec *spec, uint64_t seed,
               uint32_t nfiles, uint64_t start, uint64_t len)
{
    memset(g, 0, sizeof *g);
    g->spec = spec;
    g->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    g->unit = UINT64_MAX;
    g->max_bs = 0;
    for (int w = 0; w < 2; w++) {
        struct job_bs *b = &g->bs[w];
        uint64_t lo, hi;
        job_dir_bs(spec, w, b);
        if (b->nsplit) {
            lo = UINT64_MAX;
            hi = 0;
            for (uint32_t i = 0; i < b->nsplit; i++) {
                lo = b->split[i].bs < lo ? b->split[i].bs : lo;
                hi = b->split[i].bs > hi ? b->split[i].bs : hi;
            }
        } else if (b->lo) {
            lo = b->lo;
            hi = b->hi;
        } else {
            lo = hi = b->bs;
        }
        /* only the directions the mode issues set the granularity */
        if (w ? !rw_mode_writes(spec->rw) : !rw_mode_reads(spec->rw))
            continue;
        g->unit = lo < g->unit ? lo : g->unit;
        g->max_bs = hi > g->max_bs ? hi : g->max_bs;
    }
    if (g->unit == UINT64_MAX)     /* a mode with neither: cannot run */
        return -EINVAL;
    if (g->unit == 0 || g->max_bs > len)
        return -EINVAL;
    g->nfiles = nfiles;
    g->f = xcalloc(nfiles, sizeof *g->f);
    if (spec->openfiles && spec->openfiles < nfiles && spec->file_service_type != FSERV_SEQUENTIAL) {
        g->nwin = spec->openfiles;
        g->win = xcalloc(g->nwin, sizeof *g->win);
        g->win_ops = xcalloc(g->nwin, sizeof *g->win_ops);
        for (uint32_t i = 0; i < g->nwin; i++)
            g->win[i] = i;
        g->win_next = g->nwin;
    }
    for (uint32_t i = 0; i < nfiles; i++) {
        g->f[i].start = start;
        g->f[i].len = len;
        new_pass(g, &g->f[i]);
    }
    switch (spec->random_distribution) {
    case DIST_ZIPF:
        zipf_init(g, len / g->unit, spec->dist_param);
        break;
    case DIST_PARETO:
        g->pareto_pow = log(spec->dist_param) / log(1.0 - spec->dist_param);
        break;
    case DIST_ZONED:
    case DIST_ZONED_ABS:
        if (zones_init(g, spec, len) < 0) {
            iogen_free(g);
            return -ERANGE;
        }
        break;
    default:
        break;
    }
    return 0;
}

void iogen_free(struct iogen *g)
{
    free(g->f);
    free(g->win);
    free(g->win_ops);
    memset(g, 0, sizeof *g);          /* as iogen_init found it: a second free is harmless */
}

/* openfiles: a file of the window, by the service type over the slots. */
static uint32_t pick_window_file(struct iogen *g)
{
    uint32_t slot = g->spec->file_service_type == FSERV_RANDOM ? (uint32_t)(iogen_rand(g) % g->nwin)
                  : (uint32_t)(g->win_rr++ % g->nwin);
    uint32_t file = g->win[slot];
    if (++g->win_ops[slot] >= units_in(g, &g->f[file])) {
        /* its pass is done: the next file not in use takes the slot */
        uint32_t next = g->win_next;
        for (uint32_t tries = 0; tries < g->nfiles; tries++, next = (next + 1) % g->nfiles) {
            uint32_t i = 0;
            while (i < g->nwin && g->win[i] != next)
                i++;
            if (i == g->nwin || next == file)
                break;
        }
        g->win[slot] = next;
        g->win_ops[slot] = 0;
        g->win_next = (next + 1) % g->nfiles;
    }
    return file;
}

static uint64_t pick_bs(struct iogen *g, int write)
{
    const struct job_bs *b = &g->bs[write];
    if (b->nsplit) {
        uint32_t r = (uint32_t)(iogen_rand(g) % 100), acc = 0;
        for (uint32_t i = 0; i < b->nsplit; i++) {
            acc += b->split[i].pct;
            if (r < acc)
                return b->split[i].bs;
        }
        return b->split[b->nsplit - 1].bs;
    }
    if (b->lo) {
        uint64_t steps = (b->hi - b->lo) / b->lo + 1;
        return b->lo * (1 + iogen_rand(g) % steps);
    }
    return b->bs;
}

/* A unit index in [0, n) of a zoned distribution. */
static uint64_t zoned_unit(struct iogen *g, const struct iogen_zones *z, uint64_t n)
{
    uint32_t r = (uint32_t)(iogen_rand(g) % 100), i = 0;
    while (i + 1 < z->n && (r >= z->acc[i] || z->count[i] == 0))
        i++;
    if (z->count[i] == 0)          /* a zone too small for one unit */
        return z->first[i] < n ? z->first[i] : n - 1;
    return z->first[i] + iogen_rand(g) % z->count[i];
}

static uint32_t pick_file(struct iogen *g)
{
    if (g->nfiles == 1)
        return 0;
    if (g->nwin)
        return pick_window_file(g);
    switch (g->spec->file_service_type) {
    case FSERV_RANDOM:
        return (uint32_t)(iogen_rand(g) % g->nfiles);
    case FSERV_SEQUENTIAL: {
        /* stay on a file for one pass over it, then move on */
        const struct iogen_file *f = &g->f[g->file];
        if (g->file_ops > 0 && g->file_ops >= units_in(g, f)) {
            g->file = (g->file + 1) % g->nfiles;
            g->file_ops = 0;
        }
        g->file_ops++;
        return g->file;
    }
    default:
        return (uint32_t)(g->ops % g->nfiles);
    }
}

/* A unit index in [0, n) drawn from the job's distribution. */
static uint64_t skewed_unit(struct iogen *g, uint64_t n)
{
    double u = iogen_rand01(g), x;
    uint64_t i;
    switch (g->spec->random_distribution) {
    case DIST_ZIPF: {
        double uz = u * g->zipf_zetan;
        if (uz < 1.0)
            x = 0;
        else if (uz < 1.0 + pow(0.5, g->zipf_theta))
            x = 1;
        else
            x = (double)n * pow(g->zipf_eta * u - g->zipf_eta + 1.0, g->zipf_alpha);
        break;
    }
    case DIST_PARETO:
        x = (double)(n - 1) * pow(u, g->pareto_pow);
        break;
    default: {   /* DIST_NORMAL: Box-Muller around the middle */
        double z = sqrt(-2.0 * log(u)) * cos(2 * M_PI * iogen_rand01(g));
        x = (double)n / 2 + z * (g->spec->dist_param / 100.0) * (double)n;
        if (x < 0)
            x = 0;
        break;
    }
    }
    i = x >= (double)n ? n - 1 : (uint64_t)x;
    /* spread the hot units over the region: a fixed bijection */
    return n > 1 ? (uint64_t)(((unsigned __int128)i * 0x9e3779b97f4a7c15ull + 7) % n) : 0;
}

static void next_op(struct iogen *g, struct iogen_op *op, int write)
{
    const struct job_spec *s = g->spec;
    struct iogen_file *f;
    uint64_t len, off;

    op->write = write;
    len = pick_bs(g, write);
    op->file = pick_file(g);
    f = &g->f[op->file];
    if (!rw_mode_random(s->rw) && (int64_t)s->rw_seq_bytes < 0) {
        /* backwards (rw=read:-8k), as fio: the first op at the region's
         * start, then each the step back from the last one's end; passing
         * the start, from the region's end minus the step */
        uint64_t back = -s->rw_seq_bytes;
        if (!f->pos)
            off = 0;
        else if (f->pos >= back)
            off = f->pos - back;
        else
            off = f->len >= back ? f->len - back : 0;
        if (off + len > f->len || off + len < off)
            off = 0;
        f->pos = off + len;
    } else if (!rw_mode_random(s->rw)) {
        /* a hole after every op but at the region's start, as fio */
        off = f->pos && s->rw_seq_bytes ? f->pos + s->rw_seq_bytes : f->pos;
        if (off < f->pos || off + len > f->len || off + len < off)
            off = 0;
        f->pos = off + len;
    } else if (s->rw_seq_nr > 1 && g->seq_left > 0) {
        /* between two random offsets: carry on from the last op */
        g->seq_left--;
        off = s->rw_sequencer == RWSEQ_IDENTICAL ? f->last_off : f->last_end;
        if (off + len > f->len)
            off = 0;
    } else {
        uint64_t n = units_in(g, f), u;
        g->seq_left = s->rw_seq_nr > 1 ? s->rw_seq_nr - 1 : 0;
        if (s->random_distribution == DIST_ZONED || s->random_distribution == DIST_ZONED_ABS) {
            u = zoned_unit(g, &g->zones[write], n);
        } else if (s->random_distribution != DIST_RANDOM) {
            u = skewed_unit(g, n);
        } else if (s->norandommap) {
            u = iogen_rand(g) % n;           /* fio's norandommap: blocks may repeat */
        } else {
            if (f->step >= n)
                new_pass(g, f);
            /* u = (a * step + c) mod n, incrementally: a and cur are
             * below n (n < 2^63: a region's bytes), so cur + a cannot wrap */
            u = f->cur;
            f->step++;
            f->cur += f->a;
            if (f->cur >= n)
                f->cur -= n;
        }
        off = u * g->unit;
        if (off + len > f->len)            /* a larger block near the end */
            off = (f->len - len) / g->unit * g->unit;
    }
    f->last_off = off;
    f->last_end = off + len;
    op->offset = f->start + off;
    op->len = len;
    g->ops++;
}

void iogen_next(struct iogen *g, struct iogen_op *op)
{
    const struct job_spec *s = g->spec;
    int write;
    switch (s->rw) {
    case RW_READ: case RW_RANDREAD: write = 0; break;
    case RW_WRITE: case RW_RANDWRITE: write = 1; break;
    default: write = iogen_rand(g) % 100 >= s->rwmixread; break;
    }
    next_op(g, op, write);
}

void iogen_next_dir(struct iogen *g, struct iogen_op *op, int write)
{
    next_op(g, op, write != 0);
}
