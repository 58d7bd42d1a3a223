/* dryrun: print a plan as each agent will run it (see dryrun.h).
 *
 * Design: one walk phase -> agent -> job -> thread, printing as it goes,
 * with the same helpers the agent uses (plan_agents_match, plan_job_base,
 * plan_file_path) so the dry run cannot drift from the real run.  Output is
 * meant for people and for grep in tests: one "agent N (host): idle" or
 * "agent N (host): K jobs" line per agent and phase, then one line per job
 * and one line per file shown. */
#include "coordinator/cli/dryrun.h"
#include "coordinator/run/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/engine_table.h"
#include "common/wbuf.h"
#include "common/plan_files.h"
#include "common/plan_verify.h"
#include "common/stats.h"
#include "common/units.h"
#include "common/vblock.h"
#include "common/xmalloc.h"

#define SHOW_THREADS 4
#define SHOW_FILES   3

static const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
    return units_fmt_bytes(buf, len, (double)bytes, 1024);
}

/* Ops one thread issues: bytes of I/O over bs, times loops, capped by
 * number_ios.  For metadata jobs: one op per file per md op. */
static uint64_t thread_ops(const struct job_spec *j)
{
    if (j->rw == RW_METADATA)
        return (uint64_t)j->nrfiles * j->n_md_ops * (j->loops ? j->loops : 1);
    uint64_t bytes = j->io_size ? j->io_size : j->size;
    uint64_t ops = j->bs ? bytes / j->bs : 0;
    ops *= j->loops ? j->loops : 1;
    if (j->number_ios && j->number_ios < ops)
        ops = j->number_ios;
    return ops;
}

/* One direction's block sizes as fio writes them: bs=4k, bsrange=4k-64k,
 * bssplit=4k/60:64k/40. */
static void print_bs_value(FILE *out, const struct job_bs *b)
{
    char x[32], y[32];
    if (b->nsplit) {
        for (uint32_t i = 0; i < b->nsplit; i++)
            fprintf(out, "%s%s/%" PRIu32, i ? ":" : "", fmt_size(x, sizeof x, b->split[i].bs),
                    b->split[i].pct);
    } else if (b->lo) {
        fprintf(out, "%s-%s", fmt_size(x, sizeof x, b->lo), fmt_size(y, sizeof y, b->hi));
    } else {
        fprintf(out, "%s", fmt_size(x, sizeof x, b->bs));
    }
}

/* What writes carry, when it is not fio's default (random, made unique per
 * write): common/wbuf.h */
static void print_buffers(FILE *out, const struct job_spec *j)
{
    const char *what = j->buffer_pattern[0] ? "pattern" : j->zero_buffers ? "zeros" : "random";

    if (j->buf_mode == WBUF_SCRAMBLE && !j->buffer_pattern[0] && !j->zero_buffers)
        return;
    fprintf(out, " buffers=%s", what);
    if (j->buffer_compress_percentage)
        fprintf(out, " (%" PRIu32 "%% compressible per %" PRIu32 " bytes)", j->buffer_compress_percentage,
                j->buffer_compress_chunk ? j->buffer_compress_chunk : WBUF_CHUNK_DEFAULT);
    if (j->dedupe_percentage && j->dedupe_mode == WBUF_DEDUPE_WORKING_SET)
        fprintf(out, " (%" PRIu32 "%% of writes repeat a page of a %s working set of %" PRIu32 "%% of the size)",
                j->dedupe_percentage, j->dedupe_global ? "fleet-wide" : "per-job",
                j->dedupe_working_set_percentage ? j->dedupe_working_set_percentage : WBUF_WORKING_SET_DEFAULT);
    else if (j->dedupe_percentage)
        fprintf(out, " (%" PRIu32 "%% of writes repeat the last unique buffer)", j->dedupe_percentage);
    fprintf(out, ", %s per write", j->buf_mode == WBUF_REFILL ? "refilled" :
            j->buf_mode == WBUF_SCRAMBLE ? "scrambled" : "unchanged");
}

/* bs (or bsrange, bssplit): one value, or reads,writes when they differ. */
static void print_dir_bs(FILE *out, const struct job_spec *j)
{
    struct job_bs r, w;
    job_dir_bs(j, 0, &r);
    job_dir_bs(j, 1, &w);
    int same = r.bs == w.bs && r.lo == w.lo && r.hi == w.hi && r.nsplit == w.nsplit &&
               (!r.nsplit || memcmp(r.split, w.split, r.nsplit * sizeof *r.split) == 0);
    const char *key = r.nsplit || w.nsplit ? "bssplit" : r.lo || w.lo ? "bsrange" : "bs";
    /* the key of the reads' form; a writes' form of another kind shows as its own */
    if (same || !rw_mode_writes(j->rw) || !rw_mode_reads(j->rw)) {
        const struct job_bs *b = rw_mode_reads(j->rw) ? &r : &w;
        fprintf(out, " %s=", b->nsplit ? "bssplit" : b->lo ? "bsrange" : "bs");
        print_bs_value(out, b);
        return;
    }
    fprintf(out, " %s=", key);
    print_bs_value(out, &r);
    fputc(',', out);
    print_bs_value(out, &w);
}

static void print_job_line(FILE *out, const struct job_spec *j)
{
    char a[32], b[32], c[32];

    fprintf(out, "    job %s: rw=%s", j->name, rw_mode_name(j->rw));
    if (j->rw_seq_nr > 1)
        fprintf(out, ":%" PRIu64 "%s", j->rw_seq_nr,
                j->rw_sequencer == RWSEQ_IDENTICAL ? " rw_sequencer=identical" : "");
    else if ((int64_t)j->rw_seq_bytes < 0)   /* backwards */
        fprintf(out, ":-%s", fmt_size(a, sizeof a, -j->rw_seq_bytes));
    else if (j->rw_seq_bytes)
        fprintf(out, ":%s", fmt_size(a, sizeof a, j->rw_seq_bytes));
    if (j->rw == RW_METADATA) {
        fprintf(out, " md_ops=");
        for (uint32_t i = 0; i < j->n_md_ops; i++)
            fprintf(out, "%s%s", i ? "," : "", op_type_name((enum op_type)j->md_ops[i]));
        fprintf(out, " nrfiles=%" PRIu32 " filesize=%s", j->nrfiles, fmt_size(a, sizeof a, j->filesize));
        if (j->files_per_dir)
            fprintf(out, " files_per_dir=%" PRIu32, j->files_per_dir);
        if (j->shared_dir)
            fprintf(out, " shared_dir");
    } else {
        if (j->rw == RW_RW || j->rw == RW_RANDRW)
            fprintf(out, " rwmixread=%" PRIu32, j->rwmixread);
        if (j->rotate)
            fprintf(out, " rotate=%" PRIu32, j->rotate);
        if (j->rw == RW_COHERENCE)
            fprintf(out, " coherence_writers=%s coherence_close=%s coherence_poll=%s generations=%" PRIu64,
                    j->coherence_writers[0] ? j->coherence_writers : "0", j->coherence_close,
                    j->coherence_poll, j->size / j->bs);
        print_dir_bs(out, j);
        if (job_sized_by_file(j) && j->size_pct)   /* each agent takes N% of its files */
            fprintf(out, " size=(%" PRIu32 "%% of the existing file's, %" PRIu32 " file%s)",
                    j->size_pct, plan_files_per_thread(j), plan_files_per_thread(j) == 1 ? "" : "s");
        else if (job_sized_by_file(j))      /* each agent reads it from the existing files */
            fprintf(out, " size=(the existing file's, %" PRIu32 " file%s)", plan_files_per_thread(j),
                    plan_files_per_thread(j) == 1 ? "" : "s");
        else
            fprintf(out, " size=%s/thread (%s per file, %" PRIu32 " file%s)",
                    fmt_size(b, sizeof b, j->size), fmt_size(c, sizeof c, job_file_size(j)),
                    plan_files_per_thread(j), plan_files_per_thread(j) == 1 ? "" : "s");
        if (j->no_file_create)
            fprintf(out, " allow_file_create=0");
        if (j->openfiles && j->openfiles < plan_files_per_thread(j))
            fprintf(out, " openfiles=%" PRIu32, j->openfiles);
    }
    const struct engine_desc *eng = engine_table_find(j->ioengine);
    fprintf(out, " ioengine=%s", j->ioengine);
    if (j->iodepth > 1)
        fprintf(out, " iodepth=%" PRIu32 "%s", j->iodepth,
                eng && !(eng->flags & ENGINE_F_DEPTH) ? " (1 in flight: a synchronous engine)" : "");
    if (j->nconnect > 1)
        fprintf(out, " nconnect=%" PRIu32, j->nconnect);
    fprintf(out, " numjobs=%" PRIu32 " ops/thread=%" PRIu64 "%s", j->numjobs, thread_ops(j),
            j->bsrange_min || j->nbssplit || j->bs_w || j->bsrange_w_min || j->nbssplit_w ? " (at bs)" : "");
    if (rw_mode_writes(j->rw) && !j->verify)
        print_buffers(out, j);
    if (j->verify)   /* docs/verify.md: a read-back reads every write again */
        fprintf(out, " verify=%s%s", vblock_csum_name((enum vblock_csum)j->verify),
                j->verify_only ? " (verify_only: reads, no writes)"
                : plan_verify_readback(j) ? " (then reads back every write)" : "");
    if (j->runtime_ns)
        fprintf(out, " runtime=%s%s", units_fmt_ns(a, sizeof a, (double)j->runtime_ns),
                j->time_based ? " time_based" : "");
    if (j->ramp_ns)
        fprintf(out, " ramp_time=%s", units_fmt_ns(a, sizeof a, (double)j->ramp_ns));
    if (j->startdelay_ns)
        fprintf(out, " startdelay=%s", units_fmt_ns(a, sizeof a, (double)j->startdelay_ns));
    if (j->thinktime_ns)
        fprintf(out, " thinktime=%s", units_fmt_ns(a, sizeof a, (double)j->thinktime_ns));
    if (j->rate_per_dir) {
        /* reads,writes as run; 0 = that direction is not capped */
        if (j->rate_bps || j->rate_w_bps)
            fprintf(out, " rate=%s,%s", units_fmt_rate(a, sizeof a, (double)j->rate_bps, 1024),
                    units_fmt_rate(b, sizeof b, (double)j->rate_w_bps, 1024));
        if (j->rate_iops || j->rate_w_iops)
            fprintf(out, " rate_iops=%" PRIu64 ",%" PRIu64, j->rate_iops, j->rate_w_iops);
    } else {
        if (j->rate_bps)
            fprintf(out, " rate=%s", units_fmt_rate(a, sizeof a, (double)j->rate_bps, 1024));
        if (j->rate_iops)
            fprintf(out, " rate_iops=%" PRIu64, j->rate_iops);
    }
    if (j->rate_bps || j->rate_iops || (j->rate_per_dir && (j->rate_w_bps || j->rate_w_iops)))
        fprintf(out, " rate_process=%s", rate_process_name(j->rate_process));
    if (j->rate_min_bps || j->rate_min_w_bps)
        fprintf(out, " rate_min=%s,%s", units_fmt_rate(a, sizeof a, (double)j->rate_min_bps, 1024),
                units_fmt_rate(b, sizeof b, (double)j->rate_min_w_bps, 1024));
    if (j->rate_min_iops || j->rate_min_w_iops)
        fprintf(out, " rate_iops_min=%" PRIu64 ",%" PRIu64, j->rate_min_iops, j->rate_min_w_iops);
    if ((j->rate_min_bps || j->rate_min_w_bps || j->rate_min_iops || j->rate_min_w_iops) &&
        j->ratecycle_ns)
        fprintf(out, " ratecycle=%s", units_fmt_ns(a, sizeof a, (double)j->ratecycle_ns));
    if (j->random_distribution == DIST_ZONED || j->random_distribution == DIST_ZONED_ABS)
        fprintf(out, " random_distribution=%s:%s", rand_dist_name(j->random_distribution), j->zones);
    else if (j->random_distribution != DIST_RANDOM)
        fprintf(out, " random_distribution=%s:%g", rand_dist_name(j->random_distribution),
                j->dist_param);
    if (j->offset)
        fprintf(out, " offset=%s", fmt_size(a, sizeof a, j->offset));
    if (j->offset_increment)
        fprintf(out, " offset_increment=%s", fmt_size(a, sizeof a, j->offset_increment));
    if (j->direct)
        fprintf(out, " direct%s", eng && !(eng->flags & ENGINE_F_DIRECT) ? " (no effect: no page cache)" : "");
    if (j->agents[0])
        fprintf(out, " agents=%s", j->agents);
    fputc('\n', out);
}

/* What the agent does to the job's files before the phase starts
 * (agent/job.c job_layout; the choice is plan_layout_fills, shared with
 * the agent): data where a file is missing or short, only a size, or
 * nothing. */
static void print_layout(FILE *out, const struct job_spec *j)
{
    char a[32];
    const char *sz = fmt_size(a, sizeof a, job_file_size(j));

    if (j->rw == RW_METADATA || j->rw == RW_COHERENCE)
        return;
    fprintf(out, "      layout: ");
    if (!engine_table_has_files(j->ioengine))
        fprintf(out, "none (ioengine=%s has no files)\n", j->ioengine);
    else if (j->verify_only)
        fprintf(out, "none (verify_only reads the files as they are)\n");
    else if (job_sized_by_file(j))
        fprintf(out, "none (sized by the existing file%s)\n", plan_files_per_thread(j) == 1 ? "" : "s");
    else if (plan_layout_fills(j))
        fprintf(out, "lays out %s per file with data (%s), where a file is missing or shorter\n", sz,
                rw_mode_reads(j->rw) ? "the job reads" : "overwrite=1");
    else if (engine_table_takes_url(j->ioengine))
        fprintf(out, "sizes to %s per file, sparse (no data; %s has no fallocate)\n", sz, j->ioengine);
    else if (j->fallocate == FALLOC_NONE || j->fallocate == FALLOC_TRUNCATE)
        fprintf(out, "sizes to %s per file, sparse (no data; fallocate=%s)\n", sz,
                plan_fallocate_name(j->fallocate));
    else
        fprintf(out, "preallocates %s per file%s (no data; fallocate=%s)\n", sz,
                j->fallocate == FALLOC_KEEP ? ", size unchanged" : "", plan_fallocate_name(j->fallocate));
}

static int print_threads(FILE *out, const struct job_spec *j, const struct plan_vars *base,
                         const char *default_dir, char *err, size_t errlen)
{
    char path[PLAN_PATH_MAX];
    int nfs = engine_table_takes_url(j->ioengine);
    uint32_t nfiles = plan_files_per_thread(j);

    if (nfs) {
        int rc = plan_expand(j->nfs_url, base, path, sizeof path, err, errlen);
        if (rc < 0)
            return rc;
        fprintf(out, "      nfs_url: %s\n", path);
    }
    for (uint32_t t = 0; t < j->numjobs; t++) {
        if (t == SHOW_THREADS) {
            fprintf(out, "      ... %" PRIu32 " more threads\n", j->numjobs - t);
            break;
        }
        struct plan_vars v = *base;
        v.job = base->job + t;
        fprintf(out, "      thread %" PRIu32 " (job %" PRIu32 "):", t, v.job);
        for (uint32_t f = 0; f < nfiles; f++) {
            if (f == SHOW_FILES) {
                fprintf(out, " ... %" PRIu32 " more", nfiles - f);
                break;
            }
            int rc = plan_file_path(j, &v, t, f, nfs ? "" : default_dir, path, sizeof path,
                                    err, errlen);
            if (rc < 0) {
                fputc('\n', out);
                return rc;
            }
            fprintf(out, " %s", path);
        }
        fputc('\n', out);
    }
    return 0;
}

/* Print every phase, and for every agent the jobs it runs (or "idle"),
 * with their settings, sizes, op counts and the expanded file paths of each
 * thread (a few per thread, then "... N more").  Labels must already be
 * resolved (plan_resolve_labels).  default_dir stands for the agent's
 * default directory (its first --allow root).  0, or -errno with err set
 * when a path cannot be expanded. */
static int dryrun_print(FILE *out, const struct plan *p, const struct dryrun_agent *agents,
                        uint32_t nagents, const char *default_dir, char *err, size_t errlen)
{
    fprintf(out, "dry run: %" PRIu32 " phase%s on %" PRIu32 " agent%s; nothing is connected to "
            "and no I/O is done\n", p->nphases, p->nphases == 1 ? "" : "s", nagents,
            nagents == 1 ? "" : "s");
    sweep_dry_run(out, p);
    for (uint32_t i = 0; i < p->nphases; i++) {
        const struct phase *ph = &p->phases[i];
        fprintf(out, "phase %" PRIu32 "/%" PRIu32 " '%s'\n", i + 1, p->nphases, ph->name);
        for (uint32_t a = 0; a < nagents; a++) {
            uint32_t njobs = 0, nthreads = 0;
            for (uint32_t k = 0; k < ph->njobs; k++) {
                if (plan_agents_match(ph->jobs[k].agents, a)) {
                    njobs++;
                    nthreads += ph->jobs[k].numjobs;
                }
            }
            fprintf(out, "  agent %" PRIu32 " (%s%s%s): ", a, agents[a].host,
                    agents[a].label ? " label=" : "", agents[a].label ? agents[a].label : "");
            if (njobs == 0) {
                fprintf(out, "idle\n");
                continue;
            }
            fprintf(out, "%" PRIu32 " job%s, %" PRIu32 " thread%s\n", njobs, njobs == 1 ? "" : "s",
                    nthreads, nthreads == 1 ? "" : "s");
            for (uint32_t k = 0; k < ph->njobs; k++) {
                const struct job_spec *j = &ph->jobs[k];
                if (!plan_agents_match(j->agents, a))
                    continue;
                struct plan_vars v = { .agent = a, .nagents = nagents, .host = agents[a].host,
                                       .job = plan_job_base(ph, k, a) };
                print_job_line(out, j);
                print_layout(out, j);
                int rc = print_threads(out, j, &v, default_dir, err, errlen);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* "host:port" or "[v6]:port" -> host */
static char *host_of(const char *addr)
{
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (close)
            return dup_n(addr + 1, (size_t)(close - addr - 1));
    }
    const char *colon = strrchr(addr, ':');
    return colon ? dup_n(addr, (size_t)(colon - addr)) : xstrdup(addr);
}

int dryrun_main(FILE *out, struct plan *p, char *const *addrs, const char *const *labels,
                uint32_t naddrs, uint32_t nlocal)
{
    uint32_t n = addrs ? naddrs : nlocal;
    struct dryrun_agent *ag = xcalloc(n ? n : 1, sizeof(*ag));
    char **hosts = xcalloc(n ? n : 1, sizeof(*hosts));
    char self[256] = "localhost", err[1024] = "";
    int status = 0;

    if (!addrs && gethostname(self, sizeof self - 1) < 0)
        snprintf(self, sizeof self, "localhost");
    for (uint32_t i = 0; i < n; i++) {
        hosts[i] = addrs ? host_of(addrs[i]) : xstrdup(self);
        ag[i].host = hosts[i];
        ag[i].label = labels ? labels[i] : NULL;
    }
    if (plan_resolve_labels(p, labels, n, err, sizeof err) < 0 ||
        plan_validate(p, n, err, sizeof err) < 0 ||
        dryrun_print(out, p, ag, n, addrs ? "<allow root>" : "<temp dir>", err, sizeof err) < 0) {
        fflush(out);
        fprintf(stderr, "nfstorm: %s\n", err);
        status = 2;
    }
    for (uint32_t i = 0; i < n; i++)
        free(hosts[i]);
    free(hosts);
    free(ag);
    return status;
}
