/* iogen: what a job thread does next: which file, which offset, how many
 * bytes, read or write.  Pure computation over a seeded generator, so the
 * same plan, agent and job give the same sequence (fio's randrepeat). */
#ifndef NFSTORM_IOGEN_H
#define NFSTORM_IOGEN_H

#include <stdint.h>
#include "common/plan.h"

struct iogen_file {
    uint64_t start;        /* first byte of this thread's region in the file */
    uint64_t len;          /* region length */
    uint64_t pos;          /* sequential: next offset within the region */
    uint64_t step;         /* random: permutation step within the pass */
    uint64_t a, c;         /* random: permutation parameters of this pass */
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
 * 0, or -EINVAL if no block fits in the region. */
int iogen_init(struct iogen *g, const struct job_spec *spec, uint64_t seed,
               uint32_t nfiles, uint64_t start, uint64_t len);
void iogen_free(struct iogen *g);
void iogen_next(struct iogen *g, struct iogen_op *op);
uint64_t iogen_rand(struct iogen *g);       /* the generator, for other draws */
double iogen_rand01(struct iogen *g);        /* uniform in (0, 1) */

/* Largest block any op can have (to size buffers). */
static inline uint64_t iogen_max_bs(const struct iogen *g) { return g->max_bs; }

#endif
