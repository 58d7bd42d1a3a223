/* plan_keys: every plan key, what its value means, and the fio keys that
 * nfstorm knowingly ignores.  Split from plan_parse.c so the job-file and
 * command-line front ends (plan_parse.c) stay about syntax.
 *
 * Design.  One table of {key, kind, offset}: adding a key is one line here
 * plus its docs in docs/plans.md.  Values are parsed into temporaries and
 * stored only when valid, so a failed set never leaves a half-written
 * field.  Where fio has a per-direction "read,write[,trim]" form (bs,
 * bsrange, bssplit, rate, rate_iops) the reads' part goes to the field,
 * the writes' to its _w twin (job_spec: 0 = as reads); an empty part keeps
 * that direction's value, a trims' part is checked and unused (nfstorm
 * issues no trims).
 *
 * Unknown keys get a suggestion from the edit distance to the known keys.
 * fio's keys that are not plan keys (ignored, refused, or fio's aliases of
 * plan keys) are in the inventory of plan_fio_keys.c.
 *
 * Why one file of ~1000 lines: it is one concept, the key table, and the
 * rest is what a row's kind means.  The table (~140 rows) and the setter of
 * each kind are read together: a new kind is a row kind plus its setter
 * and value parser, and splitting them would put a kind's two halves in
 * two files behind a header written only for this one caller. */
#include "common/plan_parse.h"
#include "common/plan_ctl.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/engine_table.h"
#include "common/plan_fio_keys.h"
#include "common/stats.h"
#include "common/units.h"
#include "common/zones.h"
#include "common/vblock.h"
#include "common/why.h"
#include "common/names.h"

enum key_kind {
    K_STR,       /* char[cap]; value must fit */
    K_NAME,      /* like K_STR but must not be empty */
    K_RW,        /* enum rw_mode from fio's words */
    K_MIXREAD,   /* percent 0..100 */
    K_MIXWRITE,  /* percent 0..100, stored as rwmixread = 100 - value */
    K_SIZE,      /* uint64_t bytes, k/m/g suffixes */
    K_U32,       /* uint32_t plain decimal */
    K_U64,       /* uint64_t plain decimal */
    K_DURATION,  /* uint64_t ns; a bare number is seconds, as fio's runtime */
    K_DUR_US,    /* uint64_t ns; a bare number is microseconds (thinktime) */
    K_BOOL,      /* int; no value or empty means 1 */
    K_NOTBOOL,   /* int stored inverted (buffered -> direct) */
    K_ENGINE,    /* char[cap] ioengine name, aliases folded */
    K_BSRANGE,   /* bsrange_min/bsrange_max */
    K_BSSPLIT,   /* nbssplit/bssplit[] */
    K_BS,        /* bs, bs_w: fio's "read,write[,trim]" sizes */
    K_RATE,      /* rate_bps/rate_iops and their _w twins (reads,writes) */
    K_RWSEQ,     /* rw_sequencer: sequential | identical */
    K_RATEMIN,   /* rate_min_bps/rate_min_iops and _w twins (reads,writes) */
    K_DUR_MS,    /* uint64_t ns; a bare number is milliseconds (ratecycle) */
    K_RATE_PROC, /* enum rate_process */
    K_DIST,      /* random_distribution + dist_param */
    K_FSERV,     /* enum file_service */
    K_ENUM,      /* uint32_t, one of key_def.words */
    K_PCT1,      /* uint32_t 1..100 (0 is a plan's "unset") */
    K_MDOPS,     /* n_md_ops/md_ops[] */
    K_AGENTS,    /* char[cap] agents spec, checked */
    K_SYNC,      /* int: fio's bool or none/sync */
    K_PATTERN,   /* char[cap] buffer_pattern, checked by plan_pattern_bytes */
    K_THRESHOLD, /* error_threshold: a count, or a percentage ("2%") */
    K_LOG,       /* fio's log-file keys, into job_spec.log (common/plan_log.h) */
    K_BATCH,     /* uint32_t decimal; 0 = PLAN_BATCH_DEPTH (fio: "use iodepth") */
    K_NCONNECT,  /* uint32_t 1..PLAN_MAX_NCONNECT */
    K_VERIFY,    /* uint32_t enum vblock_csum from verify='s words */
    K_SIZE32,    /* uint32_t bytes, k/m/g suffixes */
    K_SIZE_PCT,  /* size: bytes, or fio's "N%" of the existing files (size_pct) */
    K_KB_BASE,   /* kb_base: 1000 or 1024 */
    K_COUNT,     /* uint64_t count, decimal k/m/g suffixes (units_parse_count) */
};

struct key_def {
    const char *name;
    enum key_kind kind;
    size_t off;
    size_t cap;          /* K_STR/K_NAME/K_ENGINE/K_AGENTS buffer size */
    const struct plan_enum *words;   /* K_ENUM: its values */
    size_t woff;         /* per-direction kinds: the writes' twin, laid out as off */
};

#define FIELD(f)     offsetof(struct job_spec, f), 0, NULL, 0
#define STRFIELD(f)  offsetof(struct job_spec, f), sizeof(((struct job_spec *)0)->f), NULL, 0
#define ENUMFIELD(f, words) offsetof(struct job_spec, f), 0, words, 0
#define DIRFIELD(f, w) offsetof(struct job_spec, f), 0, NULL, offsetof(struct job_spec, w)

/* fio's spellings, aliases included (fio: "readwrite" is an alias of the rw
 * key, "blocksize" of bs, "timeout" of runtime, "wait_for_previous" of
 * stonewall, "io_limit" of io_size). */
static const struct key_def keys[] = {
    { "name",              K_NAME,      STRFIELD(name) },
    { "description",       K_STR,       STRFIELD(description) },
    { "buffer_pattern",    K_PATTERN,   STRFIELD(buffer_pattern) },
    { "zero_buffers",      K_BOOL,      FIELD(zero_buffers) },
    { "scramble_buffers",  K_BOOL,      FIELD(scramble_buffers) },
    { "refill_buffers",    K_BOOL,      FIELD(refill_buffers) },
    { "buffer_compress_percentage", K_U32, FIELD(buffer_compress_percentage) },
    { "buffer_compress_chunk", K_SIZE32, FIELD(buffer_compress_chunk) },
    { "dedupe_percentage", K_U32,       FIELD(dedupe_percentage) },
    { "dedupe_mode",       K_ENUM,      ENUMFIELD(dedupe_mode, plan_dedupe_words) },
    { "dedupe_working_set_percentage", K_PCT1, FIELD(dedupe_working_set_percentage) },
    { "dedupe_global",     K_BOOL,      FIELD(dedupe_global) },
    { "rw",                K_RW,        FIELD(rw) },
    { "readwrite",         K_RW,        FIELD(rw) },
    { "rwmixread",         K_MIXREAD,   FIELD(rwmixread) },
    { "rwmixwrite",        K_MIXWRITE,  FIELD(rwmixread) },
    { "bs",                K_BS,        DIRFIELD(bs, bs_w) },
    { "blocksize",         K_BS,        DIRFIELD(bs, bs_w) },
    { "bsrange",           K_BSRANGE,   DIRFIELD(bsrange_min, bsrange_w_min) },
    { "blocksize_range",   K_BSRANGE,   DIRFIELD(bsrange_min, bsrange_w_min) },
    { "bssplit",           K_BSSPLIT,   DIRFIELD(nbssplit, nbssplit_w) },
    { "size",              K_SIZE_PCT,  FIELD(size) },
    { "kb_base",           K_KB_BASE,   FIELD(kb_base) },
    { "filesize",          K_SIZE,      FIELD(filesize) },
    { "io_size",           K_SIZE,      FIELD(io_size) },
    { "io_limit",          K_SIZE,      FIELD(io_size) },
    { "number_ios",        K_U64,       FIELD(number_ios) },
    { "offset",            K_SIZE,      FIELD(offset) },
    { "offset_increment",  K_SIZE,      FIELD(offset_increment) },
    { "nrfiles",           K_U32,       FIELD(nrfiles) },
    { "numjobs",           K_U32,       FIELD(numjobs) },
    { "loops",             K_U32,       FIELD(loops) },
    { "runtime",           K_DURATION,  FIELD(runtime_ns) },
    { "timeout",           K_DURATION,  FIELD(runtime_ns) },
    { "time_based",        K_BOOL,      FIELD(time_based) },
    { "ramp_time",         K_DURATION,  FIELD(ramp_ns) },
    { "startdelay",        K_DURATION,  FIELD(startdelay_ns) },
    { "thinktime",         K_DUR_US,    FIELD(thinktime_ns) },
    { "flow",              K_U32,       FIELD(flow) },
    { "flow_id",           K_U32,       FIELD(flow_id) },
    { "flow_sleep",        K_DUR_US,    FIELD(flow_sleep_ns) },
    { "rate",              K_RATE,      DIRFIELD(rate_bps, rate_w_bps) },
    { "rate_iops",         K_RATE,      DIRFIELD(rate_iops, rate_w_iops) },
    { "rate_process",      K_RATE_PROC, FIELD(rate_process) },
    { "rate_min",          K_RATEMIN,   DIRFIELD(rate_min_bps, rate_min_w_bps) },
    { "rate_iops_min",     K_RATEMIN,   DIRFIELD(rate_min_iops, rate_min_w_iops) },
    { "ratecycle",         K_DUR_MS,    FIELD(ratecycle_ns) },
    { "rate_cycle",        K_DUR_MS,    FIELD(ratecycle_ns) },
    { "randrepeat",        K_BOOL,      FIELD(randrepeat) },
    { "randseed",          K_U64,       FIELD(randseed) },
    { "random_distribution", K_DIST,    FIELD(random_distribution) },
    { "rw_sequencer",      K_RWSEQ,     FIELD(rw_sequencer) },
    { "direct",            K_BOOL,      FIELD(direct) },
    { "buffered",          K_NOTBOOL,   FIELD(direct) },
    { "sync",              K_SYNC,      FIELD(sync) },
    { "fsync",             K_U32,       FIELD(fsync) },
    { "fdatasync",         K_U32,       FIELD(fdatasync) },
    { "end_fsync",         K_BOOL,      FIELD(end_fsync) },
    { "invalidate",        K_BOOL,      FIELD(invalidate) },
    { "unlink",            K_BOOL,      FIELD(unlink) },
    { "allow_file_create", K_NOTBOOL,   FIELD(no_file_create) },
    { "openfiles",         K_U32,       FIELD(openfiles) },
    { "norandommap",       K_BOOL,      FIELD(norandommap) },
    { "overwrite",         K_BOOL,      FIELD(overwrite) },
    { "filename",          K_STR,       STRFIELD(filename) },
    { "filename_format",   K_STR,       STRFIELD(filename_format) },
    { "directory",         K_STR,       STRFIELD(directory) },
    { "file_service_type", K_FSERV,     FIELD(file_service_type) },
    { "fallocate",         K_ENUM,      ENUMFIELD(fallocate, plan_fallocate_words) },
    { "fadvise_hint",      K_ENUM,      ENUMFIELD(fadvise_hint, plan_fadvise_words) },
    { "stonewall",         K_BOOL,      FIELD(stonewall) },
    { "wait_for_previous", K_BOOL,      FIELD(stonewall) },
    { "new_group",         K_BOOL,      FIELD(new_group) },
    { "group_reporting",   K_BOOL,      FIELD(group_reporting) },
    { "ioengine",          K_ENGINE,    STRFIELD(ioengine) },
    { "iodepth",           K_U32,       FIELD(iodepth) },
    { "iodepth_batch_submit", K_BATCH,  FIELD(iodepth_batch_submit) },
    { "iodepth_batch",     K_BATCH,     FIELD(iodepth_batch_submit) },
    { "iodepth_batch_complete_min", K_U32, FIELD(iodepth_batch_complete_min) },
    { "iodepth_batch_complete", K_U32,  FIELD(iodepth_batch_complete_min) },
    { "iodepth_batch_complete_max", K_U32, FIELD(iodepth_batch_complete_max) },
    { "nfs_url",           K_STR,       STRFIELD(nfs_url) },
    /* nfstorm's own */
    { "agents",            K_AGENTS,    STRFIELD(agents) },
    { "md_ops",            K_MDOPS,     FIELD(n_md_ops) },
    { "files_per_dir",     K_U32,       FIELD(files_per_dir) },
    { "shared_dir",        K_BOOL,      FIELD(shared_dir) },
    { "rotate",            K_U32,       FIELD(rotate) },
    { "coherence_writers", K_AGENTS,    STRFIELD(coherence_writers) },
    { "coherence_close",   K_STR,       STRFIELD(coherence_close) },
    { "coherence_poll",    K_STR,       STRFIELD(coherence_poll) },
    { "coherence_period",  K_DURATION,  FIELD(coherence_period_ns) },
    { "coherence_deadline", K_DURATION, FIELD(coherence_deadline_ns) },
    { "coherence_poll_interval", K_DURATION, FIELD(coherence_poll_interval_ns) },
    { "coherence_never_visible", K_ENUM, ENUMFIELD(coherence_never_warn, plan_coh_never_words) },
    { "op_deadline",       K_DURATION,  FIELD(op_deadline_ns) },
    { "server_timeout",    K_DURATION,  FIELD(server_timeout_ns) },
    { "nconnect",          K_NCONNECT,  FIELD(nconnect) },
    { "error_threshold",   K_THRESHOLD, FIELD(error_threshold) },
    /* fio's log files, written by the coordinator (coordinator/run/fiolog.h) */
    { "write_bw_log",      K_LOG,       FIELD(log) },
    { "write_lat_log",     K_LOG,       FIELD(log) },
    { "write_iops_log",    K_LOG,       FIELD(log) },
    { "write_hist_log",    K_LOG,       FIELD(log) },
    { "log_avg_msec",      K_LOG,       FIELD(log) },
    { "log_hist_msec",     K_LOG,       FIELD(log) },
    { "log_hist_coarseness", K_LOG,     FIELD(log) },
    { "per_job_logs",      K_LOG,       FIELD(log) },
    { "log_offset",        K_LOG,       FIELD(log) },
    { "log_max_value",     K_LOG,       FIELD(log) },
    { "clat_percentiles",  K_LOG,       FIELD(log) },
    { "lat_percentiles",   K_LOG,       FIELD(log) },
    /* data verification (docs/verify.md) */
    { "verify",            K_VERIFY,    FIELD(verify) },
    { "do_verify",         K_NOTBOOL,   FIELD(no_do_verify) },
    { "verify_only",       K_BOOL,      FIELD(verify_only) },
    { "verify_fatal",      K_BOOL,      FIELD(verify_fatal) },
    { "verify_backlog",    K_U32,       FIELD(verify_backlog) },
    { "verify_pattern",    K_PATTERN,   STRFIELD(verify_pattern) },
    { "verify_interval",   K_SIZE32,    FIELD(verify_interval) },
    { "verify_offset",     K_SIZE32,    FIELD(verify_offset) },
    { "verify_written_by", K_STR,       STRFIELD(verify_written_by) },
    /* ioengine=null's model server (agent/engine_null.c) */
    { "null_capacity_iops", K_COUNT,    FIELD(null_capacity_iops) },
    { "null_latency",      K_DUR_US,    FIELD(null_latency_ns) },
    /* sweeps (common/plan_sweep.h): text until the job is complete */
    { "sweep",             K_STR,       STRFIELD(sweep_text.dim) },
    { "sweep_values",      K_STR,       STRFIELD(sweep_text.values) },
    { "sweep_start",       K_STR,       STRFIELD(sweep_text.start) },
    { "sweep_max",         K_STR,       STRFIELD(sweep_text.max) },
    { "sweep_resolution",  K_STR,       STRFIELD(sweep_text.resolution) },
    { "sweep_slo",         K_STR,       STRFIELD(sweep_text.slo) },
    { "sweep_valid",       K_STR,       STRFIELD(sweep_text.valid) },
    { "sweep_point_time",  K_DURATION,  FIELD(sweep_text.point_ns) },
};


/* A plan key, or one of fio's aliases of a plan key (plan_fio_keys.c has
 * fio's whole alias table: nr_files is nrfiles, fileoffset offset, ...). */
static const struct key_def *key_lookup(const char *key)
{
    for (int hop = 0; key && hop < 2; hop++) {
        for (size_t i = 0; i < NELEM(keys); i++)
            if (strcmp(key, keys[i].name) == 0)
                return &keys[i];
        key = plan_fio_key_alias(key);
    }
    return NULL;
}

int plan_is_key(const char *key)
{
    return key && (key_lookup(key) != NULL || strcmp(key, "matrix") == 0 || plan_ctl_is_key(key));
}

int plan_key_takes_value(const char *key)
{
    const struct key_def *k = key ? key_lookup(key) : NULL;
    if (k)
        return k->kind != K_BOOL && k->kind != K_NOTBOOL;
    if (key && strcmp(key, "matrix") == 0)
        return 1;
    if (key && plan_ctl_is_key(key))
        return strcmp(key, "exitall") != 0 && strcmp(key, "exitall_on_error") != 0;  /* flags */
    return -1;
}

int plan_key_reads_size(const char *key)
{
    const struct key_def *k = key ? key_lookup(key) : NULL;
    if (!k)
        return 0;
    switch (k->kind) {
    case K_SIZE: case K_SIZE32: case K_SIZE_PCT: case K_BS: case K_BSRANGE: case K_BSSPLIT:
    case K_RATE: case K_RATEMIN: case K_RW:
        return 1;
    default:
        return 0;
    }
}

/* What a kind of value looks like, for a refused value whose setter gave
 * no reason of its own (kinds without one say enough themselves). */
#define HINT_SIZE "want a size such as 4k, 1m or 2g"
#define HINT_WHOLE "want a whole number"
#define HINT_BOOL "want 1/0, true/false, yes/no or on/off"
#define HINT_PCT "want a percentage from 0 to 100"
#define HINT_DIRS "want a size, or fio's reads,writes form such as 4k,64k"
static const char *const kind_hints[] = {
    [K_SIZE] = HINT_SIZE, [K_SIZE32] = HINT_SIZE, [K_KB_BASE] = "want 1000 or 1024",
    [K_SIZE_PCT] = HINT_SIZE ", or a percentage of the existing files such as 50%",
    [K_COUNT] = "want a count such as 500, 50k or 1.5m",
    [K_U32] = HINT_WHOLE, [K_U64] = HINT_WHOLE, [K_BATCH] = HINT_WHOLE,
    [K_DURATION] = "want a duration such as 30 (seconds), 500ms or 2m",
    [K_DUR_US] = "want a duration such as 100 (microseconds), 2ms or 1s",
    [K_DUR_MS] = "want a duration such as 500 (milliseconds) or 1s",
    [K_BOOL] = HINT_BOOL, [K_NOTBOOL] = HINT_BOOL, [K_MIXREAD] = HINT_PCT, [K_MIXWRITE] = HINT_PCT,
    [K_BS] = HINT_DIRS, [K_RATE] = HINT_DIRS, [K_RATEMIN] = HINT_DIRS,
};

const char *plan_key_value_hint(const char *key)
{
    const struct key_def *k = key ? key_lookup(key) : NULL;
    return k && (size_t)k->kind < NELEM(kind_hints) ? kind_hints[k->kind] : NULL;
}

int plan_key_ignored(const char *key, const char **note)
{
    return plan_key_fio_status(key, note) == FIO_KEY_IGNORED;
}

int plan_key_fio_status(const char *key, const char **note)
{
    const struct fio_key *k;
    if (!key || key_lookup(key) || !(k = plan_fio_key_resolve(key)) ||
        k->status == FIO_KEY_IMPLEMENTED)
        return -1;
    if (note)
        *note = k->note;
    return (int)k->status;
}

/* Levenshtein distance, capped: keys are short, two rows suffice.  Only a
 * distance up to `cap` matters to the caller, so a pair whose lengths differ
 * by more, or a row that is all beyond it, returns cap + 1 at once (the
 * suggestion runs over ~700 names for every unknown key). */
static size_t edit_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[2][64];
    if (la >= 63 || lb >= 63 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    for (size_t j = 0; j <= lb; j++)
        row[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t *cur = row[i & 1], *prev = row[(i - 1) & 1], low;
        low = cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            low = cur[j] < low ? cur[j] : low;
        }
        if (low > cap)
            return cap + 1;      /* every path is past the cap already */
    }
    return row[la & 1][lb];
}

const char *plan_key_suggest(const char *key)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX, len = key ? strlen(key) : 0;
    if (!key || !*key)
        return NULL;
    /* the plan keys, matrix, then fio's other keys (a typo of an ignored
     * key is still worth naming) */
    unsigned nfio = 0;
    const struct fio_key *fio = plan_fio_keys(&nfio);
    for (size_t i = 0; i < NELEM(keys) + 1 + nfio; i++) {
        const char *k = i < NELEM(keys) ? keys[i].name : i == NELEM(keys) ? "matrix"
                      : fio[i - NELEM(keys) - 1].name;
        size_t d = edit_distance(key, k, 2);
        if (d < bestd) {
            bestd = d;
            best = k;
        }
    }
    /* Close enough to be a typo: at most 2 edits, and fewer than a third of
     * the word for short keys ("bz" is not "bs"'s typo as much as a guess). */
    if (bestd <= 2 && bestd * 3 <= len)
        return best;
    return NULL;
}

static int parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (units_parse_u64(s, &v) || v > UINT32_MAX)
        return -EINVAL;
    *out = (uint32_t)v;
    return 0;
}

static int parse_percent(const char *s, uint32_t *out)
{
    if (parse_u32(s, out) || *out > 100)
        return -EINVAL;
    return 0;
}

/* fio's "read,write[,trim]" lists, split into up to three parts (an empty
 * part is ""): *nparts 1 for a single value. */
#define DIR_PART_MAX 512
struct dir_parts {
    int n;
    char part[3][DIR_PART_MAX];
};

static int split_dirs(const char *value, struct dir_parts *d, char *why, size_t whylen)
{
    d->n = 0;
    for (const char *p = value;; p++) {
        size_t n = strcspn(p, ",");
        if (d->n == 3)
            return why_fail(why, whylen, "at most three values (reads, writes, trims)");
        if (n >= DIR_PART_MAX)
            return why_fail(why, whylen, "longer than %d characters", DIR_PART_MAX - 1);
        memcpy(d->part[d->n], p, n);
        d->part[d->n++][n] = '\0';
        p += n;
        if (!*p)
            break;
    }
    if (d->n == 1 && !d->part[0][0])
        return why_fail(why, whylen, "empty value");
    return 0;
}

/* A size as the job's kb_base reads it (fio: kb_base=1000 makes "4k" 4000). */
static int job_size(const struct job_spec *j, const char *s, uint64_t *bytes)
{
    return units_parse_size_kb(s, j->kb_base == 1000 ? 1000 : 1024, bytes);
}

static int parse_bsrange(const struct job_spec *j, const char *v, uint64_t *lo, uint64_t *hi,
                         char *why, size_t whylen)
{
    char a[64];
    const char *dash = strchr(v, '-');
    if (!dash || (size_t)(dash - v) >= sizeof a)
        return why_fail(why, whylen, "want min-max, e.g. 4k-64k");
    memcpy(a, v, (size_t)(dash - v));
    a[dash - v] = '\0';
    if (job_size(j, a, lo) || job_size(j, dash + 1, hi) || *lo == 0 || *lo > *hi)
        return why_fail(why, whylen, "want min-max with 0 < min <= max");
    return 0;
}

/* "4k/10:64k/50:32k" -- entries without a percentage share what is left. */
static int parse_bssplit(const char *value, struct job_spec *tmp, char *why, size_t whylen)
{
    char v[DIR_PART_MAX];
    uint32_t sum = 0, nempty = 0, n = 0;
    int empty[PLAN_MAX_BSSPLIT];
    snprintf(v, sizeof v, "%s", value);
    for (char *s = v, *next; s; s = next) {
        next = strchr(s, ':');
        if (next)
            *next++ = '\0';
        if (n == PLAN_MAX_BSSPLIT)
            return why_fail(why, whylen, "at most %d entries", PLAN_MAX_BSSPLIT);
        char *slash = strchr(s, '/');
        if (slash)
            *slash++ = '\0';
        uint64_t bs;
        uint32_t pct = 0;
        if (job_size(tmp, s, &bs) || bs == 0)
            return why_fail(why, whylen, "bad block size '%s'", s);
        empty[n] = !slash || !*slash;
        if (!empty[n] && parse_percent(slash, &pct))
            return why_fail(why, whylen, "bad percentage '%s'", slash);
        nempty += (uint32_t)empty[n];
        sum += pct;
        tmp->bssplit[n].bs = bs;
        tmp->bssplit[n].pct = pct;
        n++;
    }
    if (sum > 100 || (nempty == 0 && sum != 100))
        return why_fail(why, whylen, "percentages add up to %u, not 100", (unsigned)sum);
    for (uint32_t i = 0, left = 100 - sum; i < n; i++) {
        if (!empty[i])
            continue;
        uint32_t share = left / nempty--;
        tmp->bssplit[i].pct = share;
        left -= share;
    }
    tmp->nbssplit = n;
    return 0;
}

/* random | zipf[:theta] | pareto[:h] | normal[:sigma], defaults as fio's. */
static int parse_dist(const char *value, struct job_spec *tmp, char *why, size_t whylen)
{
    char name[16];
    size_t n = strcspn(value, ":");
    if (n >= sizeof name)
        return why_fail(why, whylen, "want random, zipf:THETA, pareto:H or normal:SIGMA");
    memcpy(name, value, n);
    name[n] = '\0';
    int d = rand_dist_from_name(name);
    if (d < 0)
        return why_fail(why, whylen, "want random, zipf:THETA, pareto:H or normal:SIGMA");
    tmp->zones[0] = '\0';
    if (d == DIST_ZONED || d == DIST_ZONED_ABS) {
        struct zone_list r, w;
        char zwhy[160];
        if (value[n] != ':' || !value[n + 1])
            return why_fail(why, whylen, "want %s:ACCESS/SIZE:...", name);
        if (strlen(value + n + 1) >= sizeof tmp->zones)
            return why_fail(why, whylen, "zone list longer than %zu characters", sizeof tmp->zones - 1);
        if (zones_parse(value + n + 1, d == DIST_ZONED_ABS, &r, &w, zwhy, sizeof zwhy))
            return why_fail(why, whylen, "%s", zwhy);
        snprintf(tmp->zones, sizeof tmp->zones, "%s", value + n + 1);
        tmp->random_distribution = (enum rand_dist)d;
        tmp->dist_param = 0;
        return 0;
    }
    double p = d == DIST_ZIPF ? 1.1 : d == DIST_PARETO ? 0.2 : 0.0;
    if (value[n] == ':') {
        char *end;
        if (d == DIST_RANDOM)
            return why_fail(why, whylen, "random takes no parameter");
        p = strtod(value + n + 1, &end);
        if (end == value + n + 1 || *end || !isfinite(p))
            return why_fail(why, whylen, "bad parameter '%s'", value + n + 1);
    }
    const char *bad = rand_dist_param_bad((enum rand_dist)d, p);
    if (bad)
        return why_fail(why, whylen, "%s%s", bad, d == DIST_NORMAL ? " (percent)" : "");
    tmp->random_distribution = (enum rand_dist)d;
    tmp->dist_param = p;
    return 0;
}

static int parse_md_ops(const char *value, struct job_spec *tmp, char *why, size_t whylen)
{
    uint32_t n = 0;
    for (const char *s = value;;) {
        size_t len = strcspn(s, ",");
        char word[16];
        int op = -1;
        if (len && len < sizeof word) {
            memcpy(word, s, len);
            word[len] = '\0';
            op = op_type_from_name(word);
        }
        if (op < 0 || !plan_md_op_valid((uint32_t)op))
            return why_fail(why, whylen, "'%.*s' is not one of create, stat, open, readdir, "
                            "rename, unlink, mkdir, rmdir", (int)len, s);
        if (n == PLAN_MAX_MD_OPS)
            return why_fail(why, whylen, "at most %d ops", PLAN_MAX_MD_OPS);
        tmp->md_ops[n++] = (uint32_t)op;
        if (!s[len])
            break;
        s += len + 1;
    }
    tmp->n_md_ops = n;
    return 0;
}

/* rw=MODE[:N]: fio's sequence modifier (its rw_sequencer) -- for a
 * random mode a new random offset every N ops, for a sequential one a hole
 * of N bytes after each op. */
static int set_rw(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    char mode[32];
    size_t n = strcspn(value, ":");
    uint64_t nr = 0, bytes = 0;
    int rw;
    (void)k;
    if (n >= sizeof mode)
        return -EINVAL;
    memcpy(mode, value, n);
    mode[n] = '\0';
    if ((rw = rw_mode_from_name(mode)) < 0)
        return strstr(mode, "trim") ? why_fail(why, whylen, "trim (discard) is for block devices")
                                    : -EINVAL;
    if (value[n] == ':') {
        const char *post = value + n + 1;
        if (rw == RW_METADATA)
            return why_fail(why, whylen, "rw=metadata takes no ':' modifier");
        if (rw_mode_random((enum rw_mode)rw)) {
            if (units_parse_u64(post, &nr) || nr == 0)
                return why_fail(why, whylen, "want %s:N with N >= 1 ops per random offset", mode);
        } else if (post[0] == '-') {
            /* fio's backwards I/O: stored as the negative offset step */
            if (job_size(j, post + 1, &bytes) || bytes == 0 || bytes > (uint64_t)INT64_MAX)
                return why_fail(why, whylen, "want %s:-SIZE, the step back after each op", mode);
            bytes = (uint64_t)-(int64_t)bytes;
        } else if (job_size(j, post, &bytes)) {
            return why_fail(why, whylen, "want %s:SIZE, the hole after each op", mode);
        }
    }
    j->rw = (enum rw_mode)rw;
    j->rw_seq_nr = nr;
    j->rw_seq_bytes = bytes;
    return 0;
}

/* Bytes of a per-direction key's fields from k->off: bsrange's min and
 * max, bssplit's count and entries; the twin at k->woff is laid out alike. */
_Static_assert(offsetof(struct job_spec, bsrange_max) - offsetof(struct job_spec, bsrange_min) == 8 &&
               offsetof(struct job_spec, bsrange_w_max) - offsetof(struct job_spec, bsrange_w_min) == 8 &&
               offsetof(struct job_spec, bssplit) - offsetof(struct job_spec, nbssplit) ==
               offsetof(struct job_spec, bssplit_w) - offsetof(struct job_spec, nbssplit_w),
               "a per-direction key's twin is laid out as its reads' fields");

static size_t dir_len(enum key_kind kind)
{
    if (kind == K_BSRANGE)
        return 2 * sizeof(uint64_t);
    if (kind == K_BSSPLIT)
        return offsetof(struct job_spec, bssplit) + PLAN_MAX_BSSPLIT * sizeof(struct bssplit_entry) -
               offsetof(struct job_spec, nbssplit);
    return sizeof(uint64_t);
}

/* One direction's part of a per-direction key into d (reads: write 0),
 * parsed into the reads' fields of a copy and stored at k->off or k->woff. */
static int set_dir_part(struct job_spec *d, const struct key_def *k, int bytes, int write,
                        const char *v, char *why, size_t whylen)
{
    struct job_spec t = *d;
    uint64_t a;
    int rc;
    switch (k->kind) {
    case K_BS:
        rc = job_size(d, v, &t.bs) || t.bs == 0;
        break;
    case K_BSRANGE:
        rc = parse_bsrange(d, v, &t.bsrange_min, &t.bsrange_max, why, whylen);
        break;
    case K_BSSPLIT:
        rc = parse_bssplit(v, &t, why, whylen);
        break;
    default:   /* K_RATE, K_RATEMIN: bytes/s or ops/s */
        rc = bytes ? job_size(d, v, &a) : units_parse_u64(v, &a);
        memcpy((char *)&t + k->off, &a, sizeof a);
        break;
    }
    if (rc)
        return -EINVAL;
    memcpy((char *)d + (write ? k->woff : k->off), (char *)&t + k->off, dir_len(k->kind));
    return 0;
}

/* bs, bsrange, bssplit, rate, rate_iops: one value for both directions,
 * or fio's "read,write[,trim]".  Set into a copy, stored only when every
 * part is valid. */
static int set_dirs(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    struct dir_parts d;
    struct job_spec t = *j;
    int rate = k->kind == K_RATE || k->kind == K_RATEMIN;
    int bytes = strcmp(k->name, "rate") == 0 || strcmp(k->name, "rate_min") == 0;
    if (split_dirs(value, &d, why, whylen))
        return -EINVAL;
    if (d.n == 1) {
        if (set_dir_part(&t, k, bytes, 0, d.part[0], why, whylen))
            return -EINVAL;
        /* one value: a rate's writes' twin is the same (both schedules get
         * it, whichever one runs; fio: each direction keeps a rate_min), a
         * size's is 0, as reads */
        if (rate)
            memcpy((char *)&t + k->woff, (char *)&t + k->off, sizeof(uint64_t));
        else
            memset((char *)&t + k->woff, 0, k->kind == K_BSSPLIT ? sizeof t.nbssplit_w : dir_len(k->kind));
    } else {
        for (int i = 0; i < d.n; i++) {
            struct job_spec scratch = t;
            if (!d.part[i][0]) {
                /* fio's "rate=,2m": an empty rate part is no cap */
                if (rate && i < 2 && set_dir_part(&t, k, bytes, i, "0", why, whylen))
                    return -EINVAL;
                continue;
            }
            /* the trims' part: checked, not kept */
            if (set_dir_part(i < 2 ? &t : &scratch, k, bytes, i == 1, d.part[i], why, whylen))
                return -EINVAL;
        }
        if (k->kind == K_RATE)
            t.rate_per_dir = 1;
    }
    *j = t;
    return 0;
}

/* ---- the setters of plan_job_set_why --------------------------------
 * One per kind of value: each parses value for key k into j (k->off,
 * k->cap) or says why not. */

/* error_threshold: "N" failed ops, or "P%" of the phase's ops (0 < P <= 100) */
static int set_threshold(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    size_t n = strlen(value);
    char one[128], *end;
    uint64_t u64;

    (void)k;
    if (n > 0 && value[n - 1] == '%') {
        double pct;
        if (n == 1 || n >= sizeof one)
            return why_fail(why, whylen, "want a count of failed ops or a percentage like 2%%");
        memcpy(one, value, n - 1);
        one[n - 1] = '\0';
        errno = 0;
        pct = strtod(one, &end);
        if (*end || errno || !(pct >= 0.0 && pct <= 100.0))
            return why_fail(why, whylen, "want a percentage from 0%% to 100%%");
        j->error_threshold = 0;
        j->error_threshold_pct = pct;
        return 0;
    }
    if (units_parse_u64(value, &u64))
        return why_fail(why, whylen, "want a count of failed ops or a percentage like 2%%");
    j->error_threshold = u64;
    j->error_threshold_pct = 0;
    return 0;
}

static int set_pattern(struct job_spec *j, const struct key_def *k, const char *value, char *why,
                       size_t whylen)
{
    unsigned char bytes[512];
    size_t nbytes;

    if (strlen(value) >= k->cap || plan_pattern_bytes(value, bytes, sizeof bytes, &nbytes) < 0)
        return why_fail(why, whylen, "want 0xHEX, 'text' or a number");
    memcpy((char *)j + k->off, value, strlen(value) + 1);
    /* fio: a verify_pattern without verify= verifies that pattern */
    if (k->off == offsetof(struct job_spec, verify_pattern) && j->verify == VB_CSUM_OFF)
        j->verify = VB_CSUM_PATTERN;
    return 0;
}

/* K_NAME, K_STR, K_AGENTS: a string that fits k->cap */
static int set_text(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    if (k->kind == K_NAME && value[0] == '\0')
        return -EINVAL;
    if (strlen(value) >= k->cap)
        return why_fail(why, whylen, "longer than %zu characters", k->cap - 1);
    if (k->kind == K_AGENTS && plan_agents_check(value, why, whylen))
        return -EINVAL;
    memcpy((char *)j + k->off, value, strlen(value) + 1);
    return 0;
}

/* fio's size=N%: N (1..100) percent of each existing file; else a size */
static int set_size_pct(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    size_t n = strlen(value);
    char one[128];
    uint64_t u64;
    uint32_t u32;

    (void)k;
    if (n > 0 && value[n - 1] == '%') {
        if (n == 1 || n >= sizeof one)
            return why_fail(why, whylen, "want a size or a percentage from 1%% to 100%%");
        memcpy(one, value, n - 1);
        one[n - 1] = '\0';
        if (parse_u32(one, &u32) || u32 < 1 || u32 > 100)
            return why_fail(why, whylen, "want a percentage from 1%% to 100%%");
        j->size = 0;
        j->size_pct = u32;
        return 0;
    }
    if (job_size(j, value, &u64))
        return -EINVAL;
    j->size = u64;
    j->size_pct = 0;
    return 0;
}

/* A uint32_t field: K_U32, K_BATCH (0: the depth), K_PCT1, K_NCONNECT,
 * K_KB_BASE, K_SIZE32, K_VERIFY, K_MIXREAD and K_MIXWRITE. */
static int set_u32(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    uint32_t u32;
    uint64_t u64;
    int c;

    switch (k->kind) {
    case K_MIXREAD:
    case K_MIXWRITE:
        if (parse_percent(value, &u32))
            return -EINVAL;
        if (k->kind == K_MIXWRITE)
            u32 = 100 - u32;
        break;
    case K_KB_BASE:
        if (parse_u32(value, &u32) || (u32 != 1000 && u32 != 1024))
            return why_fail(why, whylen, "want 1000 or 1024");
        break;
    case K_SIZE32:
        if (job_size(j, value, &u64) || u64 > UINT32_MAX)
            return why_fail(why, whylen, "want a size below 4g");
        u32 = (uint32_t)u64;
        break;
    case K_VERIFY:
        /* fio's "0" and "none" are its default: no verification */
        c = strcmp(value, "0") == 0 || strcmp(value, "none") == 0 ? VB_CSUM_OFF : vblock_csum_from_name(value);
        if (c < 0)
            return why_fail(why, whylen, "want crc32c, crc32c-intel, md5, sha256, meta, pattern or null");
        u32 = (uint32_t)c;
        break;
    case K_BATCH:
        if (parse_u32(value, &u32))
            return -EINVAL;
        if (u32 == 0)
            u32 = PLAN_BATCH_DEPTH;
        break;
    case K_PCT1:
        if (parse_u32(value, &u32) || u32 < 1 || u32 > 100)
            return why_fail(why, whylen, "want 1 to 100 (percent)");
        break;
    case K_NCONNECT:
        if (parse_u32(value, &u32) || u32 < 1 || u32 > PLAN_MAX_NCONNECT)
            return why_fail(why, whylen, "want 1 to %u TCP connections per job", (unsigned)PLAN_MAX_NCONNECT);
        break;
    default:    /* K_U32 */
        if (parse_u32(value, &u32))
            return -EINVAL;
        break;
    }
    memcpy((char *)j + k->off, &u32, sizeof u32);
    return 0;
}

/* A uint64_t field: K_SIZE, K_COUNT, K_U64 and the durations. */
static int set_u64(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    uint64_t u64;
    int rc;

    (void)why;
    (void)whylen;
    switch (k->kind) {
    case K_SIZE:
        rc = job_size(j, value, &u64);
        break;
    case K_COUNT:
        rc = units_parse_count(value, &u64);
        break;
    case K_U64:
        rc = units_parse_u64(value, &u64);
        break;
    default:    /* K_DURATION, K_DUR_US, K_DUR_MS */
        rc = units_parse_duration(value, k->kind == K_DUR_US ? NS_PER_US : k->kind == K_DUR_MS ? NS_PER_MS
                                                                                               : NS_PER_SEC, &u64);
        break;
    }
    if (rc)
        return -EINVAL;
    memcpy((char *)j + k->off, &u64, sizeof u64);
    return 0;
}

/* An int flag: K_BOOL, K_NOTBOOL, K_SYNC (fio's sync=sync|none|0|1). */
static int set_flag(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    int b;

    if (k->kind == K_SYNC && strcmp(value, "sync") == 0)
        b = 1;
    else if (k->kind == K_SYNC && strcmp(value, "none") == 0)
        b = 0;
    else if (k->kind == K_SYNC && strcmp(value, "dsync") == 0)
        return why_fail(why, whylen, "O_DSYNC is not supported; use fdatasync=1");
    else if (units_parse_bool(value, &b))
        return -EINVAL;
    if (k->kind == K_NOTBOOL)
        b = !b;
    memcpy((char *)j + k->off, &b, sizeof b);
    return 0;
}

/* K_ENUM: one of k->words; else "want a, b or c" from the words offered. */
static int set_enum(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    char want[128];
    size_t n = 0, nwords = 0;

    for (const struct plan_enum *w = k->words; w->name; w++) {
        if (strcmp(value, w->name) == 0) {
            *(uint32_t *)(void *)((char *)j + k->off) = w->value;
            return 0;
        }
        nwords += !w->alias;
    }
    for (const struct plan_enum *w = k->words; w->name && n < sizeof want; w++) {
        if (w->alias)
            continue;
        nwords--;
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%s", w->name,
                              nwords > 1 ? ", " : nwords == 1 ? " or " : "");
    }
    return why_fail(why, whylen, "want %s", want);
}

/* The named small enums: K_RATE_PROC, K_RWSEQ, K_FSERV. */
_Static_assert(sizeof(enum rate_process) == sizeof(int) && sizeof(enum file_service) == sizeof(int) &&
               sizeof(((struct job_spec *)0)->rw_sequencer) == sizeof(int), "the named enums are int-sized");

static int set_named(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    int b = k->kind == K_RATE_PROC ? rate_process_from_name(value)
          : k->kind == K_RWSEQ ? rw_sequencer_from_name(value) : file_service_from_name(value);

    if (b >= 0)
        memcpy((char *)j + k->off, &b, sizeof b);
    else if (k->kind == K_RATE_PROC)
        return why_fail(why, whylen, "want linear or poisson");
    else if (k->kind == K_RWSEQ)
        return why_fail(why, whylen, "want sequential or identical");
    else
        return why_fail(why, whylen, "want roundrobin, sequential or random%s",
                        strchr(value, ':') ? " (the ':N' form is not supported)" : "");
    return 0;
}

/* Values that set several fields at once, parsed into a copy first so a
 * refused value leaves j as it was: K_DIST, K_MDOPS, K_LOG. */
static int set_compound(struct job_spec *j, const struct key_def *k, const char *value, char *why,
                        size_t whylen)
{
    struct job_spec tmp = *j;
    struct job_log l = j->log;

    switch (k->kind) {
    case K_DIST:
        if (parse_dist(value, &tmp, why, whylen))
            return -EINVAL;
        j->random_distribution = tmp.random_distribution;
        j->dist_param = tmp.dist_param;
        memcpy(j->zones, tmp.zones, sizeof j->zones);
        return 0;
    case K_MDOPS:
        if (parse_md_ops(value, &tmp, why, whylen))
            return -EINVAL;
        j->n_md_ops = tmp.n_md_ops;
        memcpy(j->md_ops, tmp.md_ops, sizeof(j->md_ops));
        return 0;
    default:    /* K_LOG */
        if (plan_log_set(&l, k->name, value, why, whylen))
            return -EINVAL;
        j->log = l;
        return 0;
    }
}

/* names, fio's aliases and refusals: common/engine_table.h */
static int set_engine(struct job_spec *j, const struct key_def *k, const char *value, char *why, size_t whylen)
{
    return engine_table_parse(value, (char *)j + k->off, k->cap, why, whylen);
}

/* The setter of each kind of value. */
static int (*const setters[])(struct job_spec *, const struct key_def *, const char *, char *, size_t) = {
    [K_STR] = set_text, [K_NAME] = set_text, [K_AGENTS] = set_text, [K_PATTERN] = set_pattern,
    [K_THRESHOLD] = set_threshold, [K_RW] = set_rw, [K_SIZE_PCT] = set_size_pct, [K_ENGINE] = set_engine,
    [K_MIXREAD] = set_u32, [K_MIXWRITE] = set_u32, [K_KB_BASE] = set_u32, [K_SIZE32] = set_u32,
    [K_VERIFY] = set_u32, [K_U32] = set_u32, [K_BATCH] = set_u32, [K_PCT1] = set_u32, [K_NCONNECT] = set_u32,
    [K_SIZE] = set_u64, [K_COUNT] = set_u64, [K_U64] = set_u64, [K_DURATION] = set_u64, [K_DUR_US] = set_u64,
    [K_DUR_MS] = set_u64, [K_BOOL] = set_flag, [K_NOTBOOL] = set_flag, [K_SYNC] = set_flag,
    [K_BS] = set_dirs, [K_BSRANGE] = set_dirs, [K_BSSPLIT] = set_dirs, [K_RATE] = set_dirs, [K_RATEMIN] = set_dirs,
    [K_ENUM] = set_enum, [K_RATE_PROC] = set_named, [K_RWSEQ] = set_named, [K_FSERV] = set_named,
    [K_DIST] = set_compound, [K_MDOPS] = set_compound, [K_LOG] = set_compound,
};

int plan_job_set_why(struct job_spec *j, const char *key, const char *value,
                     char *why, size_t whylen)
{
    const struct key_def *k = key ? key_lookup(key) : NULL;
    if (why && whylen)
        why[0] = '\0';
    if (!k && key && plan_ctl_is_key(key))
        return plan_ctl_set(j, key, value, why, whylen);    /* phase control: plan_ctl.h */
    if (!k)
        return -ENOENT;
    if (!value)
        value = "";      /* a bare flag: "--time_based", "stonewall" */

    return setters[k->kind](j, k, value, why, whylen);
}

int plan_job_set(struct job_spec *j, const char *key, const char *value)
{
    return plan_job_set_why(j, key, value, NULL, 0);
}
