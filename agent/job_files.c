/* job_files: files that must exist, and the ops a job may do on their
 * region (see job_files.h).  The size comes from
 * the engine's file_size, so kernel mounts and the NFS engine agree; every
 * file of the job shares one region length (iogen's model), so the smallest
 * file sets it and no op reaches past any file's end. */
#include "agent/job_files.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

/* fio's td_min_bs: the smallest block either direction may use. */
static uint64_t job_min_bs(const struct job_spec *js)
{
    uint64_t m = UINT64_MAX;
    for (int w = 0; w < 2; w++) {
        struct job_bs b;
        job_dir_bs(js, w, &b);
        uint64_t d = b.nsplit ? UINT64_MAX : b.lo ? b.lo : b.bs;
        for (uint32_t i = 0; i < b.nsplit; i++)
            if (b.split[i].bs < d)
                d = b.split[i].bs;
        if (d < m)
            m = d;
    }
    return m == UINT64_MAX || m == 0 ? 1 : m;
}

void job_files_before_setup(struct job *j)
{
    const struct job_spec *js = j->spec;
    /* verify_only checks a file as it is: never creates, sizes or fills one */
    if (js->rw != RW_METADATA && (js->no_file_create || job_sized_by_file(js) || js->verify_only))
        j->ej.no_create = 1;
}

int job_files_after_setup(struct job *j, int setup_rc, char *err, size_t errlen)
{
    const struct job_spec *js = j->spec;
    struct engine_job *ej = &j->ej;
    uint64_t smallest = UINT64_MAX;
    int sized = job_sized_by_file(js);

    if (setup_rc == -ENOENT && ej->no_create) {
        if (js->verify_only)
            snprintf(err, errlen, "job '%s': verify_only and a file to verify is missing: %s",
                     js->name, ej->err);
        else if (sized && js->size_pct)
            snprintf(err, errlen, "job '%s': size=%" PRIu32 "%% and a file to size it from is "
                     "missing: %s (create the file or set size= in bytes)", js->name, js->size_pct,
                     ej->err);
        else if (sized)
            snprintf(err, errlen, "job '%s': no size= and a file to size it from is missing: %s "
                     "(create the file or set size=)", js->name, ej->err);
        else
            snprintf(err, errlen, "job '%s': allow_file_create=0 and a file is missing: %s",
                     js->name, ej->err);
        return setup_rc;
    }
    if (setup_rc < 0 || !sized)
        return setup_rc;
    for (uint32_t f = 0; f < ej->nfiles; f++) {
        uint64_t have = 0;
        int rc = j->eng->file_size(ej, f, &have);
        if (rc < 0) {
            snprintf(err, errlen, "job '%s': no size=, and the size of %s cannot be read (errno %d)",
                     js->name, ej->files[f].path, -rc);
            return rc;
        }
        if (have < smallest)
            smallest = have;
    }
    if (smallest <= j->region_start || smallest - j->region_start < job_max_bs(js)) {
        snprintf(err, errlen, "job '%s': no size=, and its file is too small: %" PRIu64 " bytes, "
                 "the job needs more than %" PRIu64 " (offset) + %" PRIu64 " (bs); set size=",
                 js->name, smallest, j->region_start, job_max_bs(js));
        return -EINVAL;
    }
    j->region_len = smallest - j->region_start;
    if (js->size_pct) {
        /* fio's size=N%: N percent of the whole file, no more than lies
         * past the offset, in whole blocks of the smallest bs */
        uint64_t want = (uint64_t)((unsigned __int128)smallest * js->size_pct / 100);
        if (want < j->region_len)
            j->region_len = want;
        j->region_len -= j->region_len % job_min_bs(js);
        if (j->region_len < job_max_bs(js)) {
            snprintf(err, errlen, "job '%s': size=%" PRIu32 "%% of %" PRIu64 " bytes past offset %"
                     PRIu64 " is less than one block (%" PRIu64 " bytes); set size=", js->name,
                     js->size_pct, smallest, j->region_start, job_max_bs(js));
            return -EINVAL;
        }
    }
    j->sized_bytes = j->region_len * ej->nfiles;
    for (uint32_t f = 0; f < ej->nfiles; f++)
        ej->files[f].size = j->region_start + j->region_len;   /* nothing to lay out */
    return 0;
}

/* direct=1: every op's offset and length a multiple of the file
 * system's direct I/O alignment, else each op fails with EINVAL.  Refuse
 * the plan instead, naming the key and the alignment. */
int job_files_check_align(struct job *j)
{
    const struct job_spec *sp = j->spec;
    uint64_t a = j->ej.dio_align;
    const char *key = NULL;
    uint64_t val = 0;

    for (int w = 0; w < 2 && !key; w++) {
        struct job_bs b;
        job_dir_bs(sp, w, &b);
        if (b.bs % a) {
            key = "bs";
            val = b.bs;
        } else if (b.lo && (b.lo % a || b.hi % a)) {
            key = "bsrange";
            val = b.lo % a ? b.lo : b.hi;
        }
        for (uint32_t i = 0; !key && i < b.nsplit; i++)
            if (b.split[i].bs % a) {
                key = "bssplit";
                val = b.split[i].bs;
            }
    }
    if (!key && j->region_start % a) {
        key = sp->offset % a ? "offset" : "offset_increment";
        val = sp->offset % a ? sp->offset : sp->offset_increment;
    }
    if (!key && sp->rw_seq_bytes % a) {   /* a step back (int64_t < 0) is as aligned as its size */
        key = "rw";
        val = (int64_t)sp->rw_seq_bytes < 0 ? -sp->rw_seq_bytes : sp->rw_seq_bytes;
    }
    if (!key)
        return 0;
    snprintf(j->ej.err, sizeof j->ej.err,
             "direct=1 needs %s in multiples of %llu bytes (the direct I/O alignment of %s): "
             "%s=%llu is not", key, (unsigned long long)a, j->ej.files[0].path, key,
             (unsigned long long)val);
    return -EINVAL;
}

/* The bytes of one pass.  A region whose size is not a multiple of a
 * fixed block size ends in a tail no whole block fits: as fio (an op
 * never crosses the region's end), the pass stops at the last whole
 * block, so no block is done twice and the tail is neither written nor
 * read (nor verified).  io_size= is the user's own byte count: kept. */
uint64_t job_files_pass_bytes(const struct job *j)
{
    const struct job_spec *sp = j->spec;
    uint64_t pass = sp->io_size ? sp->io_size : sp->size ? sp->size : j->sized_bytes;
    struct job_bs r, w;
    uint64_t bs, tail, files = j->ej.nfiles ? j->ej.nfiles : 1;

    if (sp->io_size || !j->region_len)
        return pass;
    job_dir_bs(sp, 0, &r);
    job_dir_bs(sp, 1, &w);
    if (r.nsplit || r.lo || w.nsplit || w.lo)
        return pass;             /* varied sizes: the last op is cut to fit (iogen) */
    bs = rw_mode_writes(sp->rw) && !rw_mode_reads(sp->rw) ? w.bs
       : rw_mode_reads(sp->rw) && !rw_mode_writes(sp->rw) ? r.bs : (r.bs == w.bs ? r.bs : 0);
    if (!bs || (tail = j->region_len % bs) == 0 || pass != j->region_len * files)
        return pass;
    return pass - tail * files;
}
