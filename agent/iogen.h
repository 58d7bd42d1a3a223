/* iogen: what a job thread does next: which file, which offset, how many
 * bytes, read or write.  Pure computation over a seeded generator, so the
 * same plan, agent and job give the same sequence (fio's randrepeat). */
#ifndef NFSTORM_IOGEN_H
#define NFSTORM_IOGEN_H

#include <stdint.h>
#include "common/plan.h"
#include "common/zones.h"

struct iogen_file {
    uint64_t start;        /* first byte of this thread's region in the file */
    uint64_t len;          /* region length */
    uint64_t pos;          /* sequential: next offset within the region */
    uint64_t step;         /* random: permutation step within the pass */
    uint64_t a, c;         /* random: permutation parameters of this pass */
    uint64_t cur;          /* random: (a * step + c) mod units, kept by adding a
                              each op (a < units): no 128-bit division per op */
    uint64_t last_off;     /* rw=rand*:N: where the last op began and ended */
    uint64_t last_end;
};

/* One direction's zoned distribution over a region of n units: zone i
 * takes the units [first[i], first[i] + count[i]) and acc[i] percent of
 * the draws (running total, so the last is 100). */
struct iogen_zones {
    uint32_t n;
    uint32_t acc[ZONES_MAX];
    uint64_t first[ZONES_MAX];
    uint64_t count[ZONES_MAX];
};

struct iogen {
    const struct job_spec *spec;
    uint64_t rng;
    uint64_t unit;         /* offset granularity: the smallest block size */
    uint64_t max_bs;
    uint32_t nfiles;
    struct iogen_file *f;
    uint32_t file;         /* current file (roundrobin/sequential service) */
    uint64_t ops;          /* generated so far */
    uint64_t file_ops;     /* ops on the current file (sequential service) */
    uint64_t seq_left;     /* rw=rand*:N: ops left before the next random offset */
    /* openfiles=N below nfiles: the N files in use; a file leaves after a
     * pass over its region and the next unused one takes its slot */
    uint32_t nwin;         /* 0 = every file is in use */
    uint32_t *win;         /* file in each slot */
    uint64_t *win_ops;     /* ops on it since it entered */
    uint32_t win_next;     /* the next file to enter */
    uint64_t win_rr;       /* roundrobin over the slots */
    struct job_bs bs[2];   /* block sizes of reads [0] and writes [1] */
    struct iogen_zones zones[2];  /* zoned, zoned_abs: reads [0], writes [1] */
    /* skewed distributions */
    double zipf_zetan, zipf_eta, zipf_alpha, zipf_theta;
    double pareto_pow;
};

struct iogen_op {
    uint32_t file;
    uint64_t offset;
    uint64_t len;
    int write;
};

/* Every file holds a region of len bytes at start (same for all files).
 * 0, -EINVAL if no block fits in the region, -ERANGE if zoned_abs zones
 * pass its end. */
int iogen_init(struct iogen *g, const struct job_spec *spec, uint64_t seed,
               uint32_t nfiles, uint64_t start, uint64_t len);
void iogen_free(struct iogen *g);
void iogen_next(struct iogen *g, struct iogen_op *op);
/* As iogen_next with the direction given (write 0 or 1) rather than drawn
 * from the rw mode and rwmixread: per-direction rate schedules decide which
 * direction is due.  A direction the rw mode never issues is not asked. */
void iogen_next_dir(struct iogen *g, struct iogen_op *op, int write);
uint64_t iogen_rand(struct iogen *g);       /* the generator, for other draws */
double iogen_rand01(struct iogen *g);        /* uniform in (0, 1) */

/* Largest block any op can have (to size buffers). */
static inline uint64_t iogen_max_bs(const struct iogen *g) { return g->max_bs; }

#endif
