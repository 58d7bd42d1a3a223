/* stats: per-op-type counters and latency, the unit every report is built of.
 *
 * An op_set holds one op_stats per op type.  Everything in it is summed when
 * merged (never averaged), so the coordinator's totals are exact sums of the
 * agents', which are exact sums of their jobs'. */
#ifndef NFSTORM_STATS_H
#define NFSTORM_STATS_H

#include <stdint.h>
#include "common/hist.h"

enum op_type {
    OP_READ = 0,
    OP_WRITE,
    /* metadata ops (rw=metadata), each with its own counters and latency */
    OP_CREATE,
    OP_STAT,
    OP_OPEN,
    OP_READDIR,
    OP_RENAME,
    OP_UNLINK,
    OP_MKDIR,
    OP_RMDIR,
    /* fsync/fdatasync of a data job (fsync=, fdatasync=, end_fsync=): no
     * bytes, its own latency (fio's "sync").  Last, so the types before it
     * keep their values; everything keyed by name (wire, journal, result)
     * simply lacks it in older records. */
    OP_SYNC,
    OP__COUNT
};

/* 1 for the op types that are the load (IOPS, fairness, shares): all but
 * OP_SYNC, a data job's flushes, reported on their own. */
static inline int op_type_is_load(int t)
{
    return t != OP_SYNC;
}

struct op_stats {
    uint64_t ops;      /* completed ops, including failed ones */
    uint64_t bytes;    /* bytes moved by successful ops */
    uint64_t errors;   /* failed ops (timed-out ones included) */
    uint64_t timeouts; /* ops that completed after the job's op_deadline */
    struct hist lat;   /* response time of every successful op: from when it was
                          due (rate-limited jobs) or issued (all others); a
                          failed op is counted in errors, never here, so
                          lat.count == ops - errors */
    struct hist svc;   /* service time, issue to completion: recorded only by
                          rate-limited jobs, where it differs from lat;
                          successful ops only, as lat */
};

struct op_set {
    struct op_stats op[OP__COUNT];
};

const char *op_type_name(enum op_type t);     /* "read", "write", "create", ..., "sync" */
int op_type_from_name(const char *name);      /* enum value or -1 */

void op_set_init(struct op_set *s);
void op_set_merge(struct op_set *dst, const struct op_set *src);
/* 1 when no op type has any ops */
int op_set_empty(const struct op_set *s);

/* op_rec: a job thread's recording form of an op_set.  Only the op types a
 * job actually produces get an entry (allocated at their first record), and
 * their histograms are hist_rec, chunked by range: a read job holds one
 * entry, a metadata job one per md_op, and svc histograms stay empty (no
 * chunks) unless the job is rate-limited.  Draining into an op_set gives
 * exactly what recording into the op_set directly would have.
 *
 * One writer at a time, as hist_rec; op_rec_free releases everything. */
struct op_stats_rec {
    uint64_t ops, bytes, errors, timeouts;   /* as in op_stats */
    struct hist_rec lat, svc;
};

struct op_rec {
    struct op_stats_rec *op[OP__COUNT];      /* NULL until first recorded */
};

void op_rec_init(struct op_rec *r);          /* empty, nothing allocated */
struct op_stats_rec *op_rec_alloc(struct op_rec *r, enum op_type t);
/* acc += r (exactly, as op_set_merge), then r is empty; allocations stay. */
void op_rec_drain(struct op_rec *r, struct op_set *acc);
/* r += s exactly (as op_set_merge into r's dense form would); r grows
 * only by the op types and bucket chunks s has. */
void op_rec_add(struct op_rec *r, const struct op_set *s);
/* acc += r exactly, r unchanged. */
void op_rec_sum(const struct op_rec *r, struct op_set *acc);
/* Heap bytes r holds (entries and chunks). */
size_t op_rec_bytes(const struct op_rec *r);
void op_rec_free(struct op_rec *r);

/* The entry of op type t, allocated on first use (t must be < OP__COUNT). */
static inline struct op_stats_rec *op_rec_get(struct op_rec *r, enum op_type t)
{
    struct op_stats_rec *o = r->op[t];
    return __builtin_expect(o != NULL, 1) ? o : op_rec_alloc(r, t);
}

/* Record one op: count it, and add its bytes and response time (when ok)
 * or an error (a failed op's time is no latency of the file system's
 * service: an error can come back in nanoseconds).  svc is recorded
 * separately by rate-limited jobs, for successful ops too. */
static inline struct op_stats_rec *op_rec_record(struct op_rec *r, enum op_type t, uint64_t bytes,
                                                 uint64_t lat_ns, int ok)
{
    struct op_stats_rec *o = op_rec_get(r, t);
    o->ops++;
    if (ok) {
        o->bytes += bytes;
        hist_rec_record(&o->lat, lat_ns);
    } else {
        o->errors++;
    }
    return o;
}

#endif
