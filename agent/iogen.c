/* iogen: the op generator (see iogen.h).
 *
 * Uniform random offsets visit every block of a region once per pass in a
 * pseudo-random order: an affine permutation i -> (a*i + c) mod n with
 * gcd(a, n) = 1 (a new a, c each pass).  That gives fio's random-map
 * coverage (a size-bound random write fills the file) with no bitmap.
 * Skewed distributions follow fio's definitions: zipf by Gray et al.'s
 * method ("Quickly generating billion-record synthetic databases"), pareto
 * as u^(log h / log(1-h)), normal with sigma as a percentage of the region
 * around its middle; their hot blocks are then spread over the region by a
 * fixed affine permutation, as fio hashes them. */
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
        f->c = 0;
        return;
    }
    do
        f->a = iogen_rand(g) % n;
    while (f->a == 0 || gcd_u64(f->a, n) != 1);
    f->c = iogen_rand(g) % n;
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

int iogen_init(struct iogen *g, const struct job_spec *spec, uint64_t seed,
               uint32_t nfiles, uint64_t start, uint64_t len)
{
    memset(g, 0, sizeof *g);
    g->spec = spec;
    g->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    g->unit = g->max_bs = spec->bs;
    if (spec->nbssplit) {
        g->unit = UINT64_MAX;
        g->max_bs = 0;
        for (uint32_t i = 0; i < spec->nbssplit; i++) {
            if (spec->bssplit[i].bs < g->unit)
                g->unit = spec->bssplit[i].bs;
            if (spec->bssplit[i].bs > g->max_bs)
                g->max_bs = spec->bssplit[i].bs;
        }
    } else if (spec->bsrange_min) {
        g->unit = spec->bsrange_min;
        g->max_bs = spec->bsrange_max;
    }
    if (g->unit == 0 || g->max_bs > len)
        return -EINVAL;
    g->nfiles = nfiles;
    g->f = xcalloc(nfiles, sizeof *g->f);
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
    default:
        break;
    }
    return 0;
}

void iogen_free(struct iogen *g)
{
    free(g->f);
    g->f = NULL;
}

static uint64_t pick_bs(struct iogen *g)
{
    const struct job_spec *s = g->spec;
    if (s->nbssplit) {
        uint32_t r = (uint32_t)(iogen_rand(g) % 100), acc = 0;
        for (uint32_t i = 0; i < s->nbssplit; i++) {
            acc += s->bssplit[i].pct;
            if (r < acc)
                return s->bssplit[i].bs;
        }
        return s->bssplit[s->nbssplit - 1].bs;
    }
    if (s->bsrange_min) {
        uint64_t steps = (s->bsrange_max - s->bsrange_min) / s->bsrange_min + 1;
        return s->bsrange_min * (1 + iogen_rand(g) % steps);
    }
    return s->bs;
}

static uint32_t pick_file(struct iogen *g)
{
    if (g->nfiles == 1)
        return 0;
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

void iogen_next(struct iogen *g, struct iogen_op *op)
{
    const struct job_spec *s = g->spec;
    struct iogen_file *f;
    uint64_t len = pick_bs(g), off;

    op->file = pick_file(g);
    f = &g->f[op->file];
    switch (s->rw) {
    case RW_READ: case RW_RANDREAD: op->write = 0; break;
    case RW_WRITE: case RW_RANDWRITE: op->write = 1; break;
    default: op->write = iogen_rand(g) % 100 >= s->rwmixread; break;
    }
    if (!rw_mode_random(s->rw)) {
        if (f->pos + len > f->len)
            f->pos = 0;
        off = f->pos;
        f->pos += len;
    } else {
        uint64_t n = units_in(g, f), u;
        if (s->random_distribution != DIST_RANDOM) {
            u = skewed_unit(g, n);
        } else {
            if (f->step >= n)
                new_pass(g, f);
            u = (uint64_t)(((unsigned __int128)f->a * f->step++ + f->c) % n);
        }
        off = u * g->unit;
        if (off + len > f->len)            /* a larger block near the end */
            off = (f->len - len) / g->unit * g->unit;
    }
    op->offset = f->start + off;
    op->len = len;
    g->ops++;
}
