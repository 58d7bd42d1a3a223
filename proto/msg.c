/* msg: msgpack encoding and decoding of every control message.
 *
 * Design: a message is described by a table of fields (wire key, kind,
 * offset, range), and one generic packer and one
 * generic unpacker walk the table.  Each message's encode/decode is then a
 * single call, and the checks every decoder must make (missing key, wrong
 * type, range, string length) live in one place.  Nested values (op_set,
 * histogram, the plan's phases and jobs) are field kinds of their own; a
 * job_spec is itself a field table.  The job's enums travel as their plan
 * words ("poisson", "zipf"), its arrays (bssplit, md_ops) as capped msgpack
 * arrays whose length is the count, so no count can disagree with its
 * array.
 *
 * The packer is msg_pack.c, the unpacker msg_codec.c, the hostile-input
 * prescan and the one unpack msg_parse.c; the messages are the rows of
 * msg_table.h.
 *
 * Errors are one line: "<type>: [<path>: ]<reason>", e.g.
 * "plan: phases[1].jobs[0]: missing key 'size'".  Bytes from the wire that
 * appear in an error are cut short and made printable. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "proto/msg.h"
#include "common/rotate.h"
#include "common/wbuf.h"
#include "proto/msg_codec.h"

static const char *const type_names[MSG__COUNT] = {
#define MSG_NAME(type, wire) [type] = wire,
    MSG_TYPES(MSG_NAME)
#undef MSG_NAME
};

const char *msg_type_name(enum msg_type t)
{
    if ((unsigned)t < MSG__COUNT && type_names[t])
        return type_names[t];
    return "unknown";
}

/* ---- field tables ---------------------------------------------------- */

static const char *rate_process_word(unsigned v) { return rate_process_name((enum rate_process)v); }
static const char *rand_dist_word(unsigned v) { return rand_dist_name((enum rand_dist)v); }
static const char *file_service_word(unsigned v) { return file_service_name((enum file_service)v); }
static const char *rw_word(unsigned v) { return rw_mode_name((enum rw_mode)v); }
static const struct enum_codec rate_process_codec = { rate_process_word, rate_process_from_name, "a known value" };
static const struct enum_codec rand_dist_codec = { rand_dist_word, rand_dist_from_name, "a known value" };
static const struct enum_codec file_service_codec = { file_service_word, file_service_from_name, "a known value" };
static const struct enum_codec rw_codec = { rw_word, rw_mode_from_name, "an rw mode" };
/* A phase index can never reach the phase cap. */


const struct field msg_job_fields[] = {
    FSTR(struct job_spec, "name", name),
    FENUM(struct job_spec, "rw", rw, rw_codec),
    FU32(struct job_spec, "rwmixread", rwmixread, 0, 100),
    FU64(struct job_spec, "bs", bs, 1, UINT64_MAX),
    FANYU64(struct job_spec, "size", size),
    FANYU64(struct job_spec, "filesize", filesize),
    FU32(struct job_spec, "nrfiles", nrfiles, 1, PLAN_MAX_NRFILES),
    FU32(struct job_spec, "numjobs", numjobs, 1, PLAN_MAX_NUMJOBS),
    FANYU64(struct job_spec, "runtime_ns", runtime_ns),
    FANYU64(struct job_spec, "ramp_ns", ramp_ns),
    FBOOL(struct job_spec, "time_based", time_based),
    FBOOL(struct job_spec, "direct", direct),
    FANYU32(struct job_spec, "fsync", fsync),
    FBOOL(struct job_spec, "end_fsync", end_fsync),
    FBOOL(struct job_spec, "stonewall", stonewall),
    FBOOL(struct job_spec, "group_reporting", group_reporting),
    FSTR(struct job_spec, "filename", filename),
    FSTR(struct job_spec, "directory", directory),
    FSTR(struct job_spec, "ioengine", ioengine),
    FU32(struct job_spec, "iodepth", iodepth, 1, PLAN_MAX_IODEPTH),
    FSTR(struct job_spec, "nfs_url", nfs_url),
    FSTR(struct job_spec, "description", description),
    FSTR(struct job_spec, "buffer_pattern", buffer_pattern),
    FANYU64(struct job_spec, "bsrange_min", bsrange_min),
    FANYU64(struct job_spec, "bsrange_max", bsrange_max),
    FKIND(struct job_spec, "bssplit", bssplit, F_BSSPLIT),
    FANYU64(struct job_spec, "offset", offset),
    FANYU64(struct job_spec, "offset_increment", offset_increment),
    FANYU64(struct job_spec, "io_size", io_size),
    FANYU64(struct job_spec, "number_ios", number_ios),
    FU32(struct job_spec, "loops", loops, 1, UINT32_MAX),
    FANYU64(struct job_spec, "startdelay_ns", startdelay_ns),
    FANYU64(struct job_spec, "thinktime_ns", thinktime_ns),
    FANYU64(struct job_spec, "rate_bps", rate_bps),
    FANYU64(struct job_spec, "rate_iops", rate_iops),
    FENUM(struct job_spec, "rate_process", rate_process, rate_process_codec),
    FBOOL(struct job_spec, "randrepeat", randrepeat),
    FANYU64(struct job_spec, "randseed", randseed),
    FENUM(struct job_spec, "random_distribution", random_distribution, rand_dist_codec),
    FDOUBLE(struct job_spec, "dist_param", dist_param),
    FBOOL(struct job_spec, "unlink", unlink),
    FBOOL(struct job_spec, "sync", sync),
    FANYU32(struct job_spec, "fdatasync", fdatasync),
    FBOOL(struct job_spec, "invalidate", invalidate),
    FENUM(struct job_spec, "file_service_type", file_service_type, file_service_codec),
    FSTR(struct job_spec, "filename_format", filename_format),
    FBOOL(struct job_spec, "new_group", new_group),
    FAGENTS(struct job_spec, "agents", agents),
    FKIND(struct job_spec, "md_ops", md_ops, F_MDOPS),
    FANYU32(struct job_spec, "files_per_dir", files_per_dir),
    FBOOL(struct job_spec, "shared_dir", shared_dir),
    FU32(struct job_spec, "rotate", rotate, 0, ROTATE_MAX),
    FAGENTS(struct job_spec, "coherence_writers", coherence_writers),
    FSTR(struct job_spec, "coherence_close", coherence_close),
    FSTR(struct job_spec, "coherence_poll", coherence_poll),
    FANYU64(struct job_spec, "coherence_period_ns", coherence_period_ns),
    FANYU64(struct job_spec, "coherence_deadline_ns", coherence_deadline_ns),
    FANYU64(struct job_spec, "coherence_poll_interval_ns", coherence_poll_interval_ns),
    FU64(struct job_spec, "op_deadline_ns", op_deadline_ns, 1, UINT64_MAX),
    FU64(struct job_spec, "server_timeout_ns", server_timeout_ns, 1, UINT64_MAX),
    /* optional: absent (0) in plans that do not batch, so their bytes are
     * as before */
    FOPTU32(struct job_spec, "iodepth_batch_submit", iodepth_batch_submit),
    FOPTU32(struct job_spec, "iodepth_batch_complete_min", iodepth_batch_complete_min),
    FOPTU32(struct job_spec, "iodepth_batch_complete_max", iodepth_batch_complete_max),
    FOPTU32(struct job_spec, "nconnect", nconnect),
    /* fio's per-direction values and sequence modifiers: sent only when set */
    FOPTU64(struct job_spec, "bs_w", bs_w),
    FOPTU64(struct job_spec, "bsrange_w_min", bsrange_w_min),
    FOPTU64(struct job_spec, "bsrange_w_max", bsrange_w_max),
    FKIND(struct job_spec, "bssplit_w", bssplit_w, F_OPTBSSPLIT),
    { "rate_per_dir", F_OPTU32, offsetof(struct job_spec, rate_per_dir), 0, 0, 1, NULL },
    FOPTU64(struct job_spec, "rate_w_bps", rate_w_bps),
    FOPTU64(struct job_spec, "rate_w_iops", rate_w_iops),
    FOPTU64(struct job_spec, "rate_min_bps", rate_min_bps),
    FOPTU64(struct job_spec, "rate_min_w_bps", rate_min_w_bps),
    FOPTU64(struct job_spec, "rate_min_iops", rate_min_iops),
    FOPTU64(struct job_spec, "rate_min_w_iops", rate_min_w_iops),
    FOPTU64(struct job_spec, "ratecycle_ns", ratecycle_ns),
    FOPTU64(struct job_spec, "rw_seq_nr", rw_seq_nr),
    FOPTU64(struct job_spec, "rw_seq_bytes", rw_seq_bytes),
    { "rw_sequencer", F_OPTU32, offsetof(struct job_spec, rw_sequencer), 0, 0, RWSEQ_IDENTICAL, NULL },
    FOPTSTRNZ(struct job_spec, "zones", zones),
    { "no_file_create", F_OPTU32, offsetof(struct job_spec, no_file_create), 0, 0, 1, NULL },
    FOPTU32(struct job_spec, "openfiles", openfiles),
    { "norandommap", F_OPTU32, offsetof(struct job_spec, norandommap), 0, 0, 1, NULL },
    /* verification: optional (absent = 0), checked by plan_verify_check */
    FOPTU32(struct job_spec, "verify", verify),
    FOPTU32(struct job_spec, "no_do_verify", no_do_verify),
    FOPTU32(struct job_spec, "verify_only", verify_only),
    FOPTU32(struct job_spec, "verify_fatal", verify_fatal),
    FOPTU32(struct job_spec, "verify_backlog", verify_backlog),
    FOPTSTRNZ(struct job_spec, "verify_pattern", verify_pattern),
    FOPTU32(struct job_spec, "verify_interval", verify_interval),
    FOPTU32(struct job_spec, "verify_offset", verify_offset),
    /* write buffer contents (common/wbuf.h), resolved: sent only when not
     * fio's default (random data, scrambled per write) */
    { "buf_mode", F_OPTU32, offsetof(struct job_spec, buf_mode), 0, 0, WBUF_MODE_MAX, NULL },
    { "zero_buffers", F_OPTU32, offsetof(struct job_spec, zero_buffers), 0, 0, 1, NULL },
    { "buffer_compress_percentage", F_OPTU32, offsetof(struct job_spec, buffer_compress_percentage), 0, 0, 99, NULL },
    { "buffer_compress_chunk", F_OPTU32, offsetof(struct job_spec, buffer_compress_chunk), 0, 0, WBUF_CHUNK_MAX, NULL },
    { "fallocate", F_OPTU32, offsetof(struct job_spec, fallocate), 0, 0, FALLOC__MAX, NULL },
    { "fadvise_hint", F_OPTU32, offsetof(struct job_spec, fadvise_hint), 0, 0, FADV__MAX, NULL },
    { "dedupe_percentage", F_OPTU32, offsetof(struct job_spec, dedupe_percentage), 0, 0, 100, NULL },
    { "dedupe_mode", F_OPTU32, offsetof(struct job_spec, dedupe_mode), 0, 0, WBUF_DEDUPE_MAX, NULL },
    { "dedupe_working_set_percentage", F_OPTU32, offsetof(struct job_spec, dedupe_working_set_percentage), 0, 0, 100, NULL },
    { "dedupe_global", F_OPTU32, offsetof(struct job_spec, dedupe_global), 0, 0, 1, NULL },
    FOPTU32(struct job_spec, "exitall", exitall),   /* 1: a thread that ends ends the phase */
    /* 1: a thread that ends on an error ends the phase; sent only when set */
    { "exitall_on_error", F_OPTU32, offsetof(struct job_spec, exitall_on_error), 0, 0, 1, NULL },
    FOPTU32(struct job_spec, "latency_target_us", latency_target_us),
    FOPTU32(struct job_spec, "latency_window_us", latency_window_us),
    FOPTU32(struct job_spec, "latency_pct_milli", latency_pct_milli),
    /* fio's flow control (agent/flow.h): sent only when set */
    FOPTU32(struct job_spec, "flow", flow),
    FOPTU32(struct job_spec, "flow_id", flow_id),
    FOPTU64(struct job_spec, "flow_sleep_ns", flow_sleep_ns),
    { "overwrite", F_OPTU32, offsetof(struct job_spec, overwrite), 0, 0, 1, NULL },
    /* fio's size=N%: the agent sizes the job from its files; sent only when set */
    { "size_pct", F_OPTU32, offsetof(struct job_spec, size_pct), 0, 0, 100, NULL },
    /* verify_written_by= and coherence_never_visible=warn: sent only when set */
    FOPTSTRNZ(struct job_spec, "verify_written_by", verify_written_by),
    { "coherence_never_visible", F_OPTU32, offsetof(struct job_spec, coherence_never_warn), 0, 0, 1, NULL },
    /* ioengine=null's model server: sent only when set */
    FOPTU64(struct job_spec, "null_capacity_iops", null_capacity_iops),
    FOPTU64(struct job_spec, "null_latency_ns", null_latency_ns),
};
const size_t msg_job_nfields = NELEM(msg_job_fields);

static const struct field hello_fields[] = {
    FANYU32(struct msg_hello, "version", version),
    FBIN(struct msg_hello, "nonce", nonce),
};
static const struct field welcome_fields[] = {
    FANYU32(struct msg_welcome, "version", version),
    FSTR(struct msg_welcome, "host", host),
    FANYU32(struct msg_welcome, "ncpus", ncpus),
    FANYU32(struct msg_welcome, "pid", pid),
    FBOOL(struct msg_welcome, "auth", auth),
    FBIN(struct msg_welcome, "nonce", nonce),
    FBIN(struct msg_welcome, "mac", mac),
    FOPTSTR(struct msg_welcome, "labels", labels),
};
static const struct field system_fields[] = {
    FSTR(struct msg_system, "kernel", kernel),
    FSTR(struct msg_system, "cpu_model", cpu_model),
    FANYU64(struct msg_system, "mem_bytes", mem_bytes),
    FOPTSTRNZ(struct msg_system, "waiting_for", waiting_for),
};
static const struct field progress_fields[] = {
    FPHASE(struct msg_progress),
    FANYU64(struct msg_progress, "done_bytes", done_bytes),
    FANYU64(struct msg_progress, "total_bytes", total_bytes),
};
static const struct field auth_fields[] = {
    FBIN(struct msg_auth, "mac", mac),
};
static const struct field plan_fields[] = {
    FANYU32(struct msg_plan, "agent_index", agent_index),   /* < nagents: checked after */
    FU32(struct msg_plan, "nagents", nagents, 1, UINT32_MAX),
    FU32(struct msg_plan, "interval_ms", interval_ms, 1, UINT32_MAX),
    /* the run's identity: optional (a coordinator older than run ids sends
     * none; the agent then draws its own) */
    FOPTU64(struct msg_plan, "run_id", run_id),
    FOPTU64(struct msg_plan, "run_ms", run_ms),
    { "phases", F_PHASES, offsetof(struct msg_plan, plan), 0, 0, 0, NULL },
};
static const struct field cleaned_fields[] = {
    FANYU64(struct msg_cleaned, "files", files),
    FANYU64(struct msg_cleaned, "bytes", bytes),
    FANYU32(struct msg_cleaned, "skipped", skipped),
    FSTR(struct msg_cleaned, "note", note),
    FOPTU64(struct msg_cleaned, "others", others),
};
static const struct field ready_fields[] = {
    FPHASE(struct msg_ready),
};
/* storage: the members of its storage_info, each under its wire key */
static const struct field storage_fields[] = {
    FPHASE(struct msg_storage),
    FU32(struct msg_storage, "kind", info.kind, STORAGE_MOUNT, STORAGE_NFS),
    FSTR(struct msg_storage, "job", info.job),
    FSTR(struct msg_storage, "where", info.where),
    FSTR(struct msg_storage, "source", info.source),
    FSTR(struct msg_storage, "fstype", info.fstype),
    FSTR(struct msg_storage, "options", info.options),
    FSTR(struct msg_storage, "nfsvers", info.nfsvers),
    FANYU64(struct msg_storage, "rsize", info.rsize),
    FANYU64(struct msg_storage, "wsize", info.wsize),
    FANYU32(struct msg_storage, "nconnect", info.nconnect),
    FANYU32(struct msg_storage, "timeo", info.timeo),
    FSTR(struct msg_storage, "mode", info.mode),
};
static const struct field start_fields[] = {
    FPHASE(struct msg_start),
    FANYU64(struct msg_start, "t0_ns", t0_ns),
    FOPTU64(struct msg_start, "rate_iops", rate_iops),
    FOPTU64(struct msg_start, "rate_bps", rate_bps),
    { "skip", F_OPTU32, offsetof(struct msg_start, skip), 0, 0, 1, NULL },
    { "clones", F_OPTU32, offsetof(struct msg_start, clones), 0, 0, 1, NULL },
    { "depth", F_OPTU32, offsetof(struct msg_start, depth), 0, 0, 4096, NULL },
    { "threads", F_OPTU32, offsetof(struct msg_start, threads), 0, 0, 4096, NULL },
};
static const struct field interval_fields[] = {
    FPHASE(struct msg_interval),
    FANYU32(struct msg_interval, "index", index),
    FANYU32(struct msg_interval, "inflight", inflight),
    FANYU64(struct msg_interval, "oldest_ns", oldest_ns),
    FKIND(struct msg_interval, "stats", stats, F_OPSET),
    FKIND(struct msg_interval, "nfs", nfs, F_NFSRPC),
    FKIND(struct msg_interval, "host", client.host, F_HOST),
    FKIND(struct msg_interval, "mountstats", client.ms, F_MSTATS),
    FKIND(struct msg_interval, "proxy", client.proxy, F_PROXY),      /* optional */
    FKIND(struct msg_interval, "clones", clones, F_CLONES),     /* optional */
};
static const struct field phase_done_fields[] = {
    FPHASE(struct msg_phase_done),
    FANYU64(struct msg_phase_done, "started_ns", started_ns),
    FANYU64(struct msg_phase_done, "duration_ns", duration_ns),
    FDOUBLE(struct msg_phase_done, "cpu_user_s", cpu_user_s),
    FDOUBLE(struct msg_phase_done, "cpu_sys_s", cpu_sys_s),
    FANYU32(struct msg_phase_done, "cores", cores),
    FANYU32(struct msg_phase_done, "nintervals", nintervals),
    FKIND(struct msg_phase_done, "totals", totals, F_OPSET),
    FKIND(struct msg_phase_done, "nfs", nfs, F_NFSRPC),
    FKIND(struct msg_phase_done, "host", client.host, F_HOST),
    FKIND(struct msg_phase_done, "mountstats", client.ms, F_MSTATS),
    FOPTU32(struct msg_phase_done, "lat_depth", lat_depth),
    FOPTU32(struct msg_phase_done, "lat_unmet", lat_unmet),
    FOPTU64(struct msg_phase_done, "late_ops", late_ops),
    FOPTU64(struct msg_phase_done, "late_ns", late_ns),
    FKIND(struct msg_phase_done, "verify", verify, F_VERIFY),   /* optional */
    FKIND(struct msg_phase_done, "errors", errors, F_ERRORS),   /* optional */
    FKIND(struct msg_phase_done, "proxy", client.proxy, F_PROXY),  /* optional */
    FKIND(struct msg_phase_done, "clones", clones, F_CLONES),   /* optional */
};
static const struct field stop_fields[] = {
    FSTR(struct msg_stop, "reason", reason),
};
static const struct field phase_end_fields[] = {
    FPHASE(struct msg_phase_end),
    FSTR(struct msg_phase_end, "reason", reason),
};
/* An error is decoded with its optional version; "text" comes first, as
 * msg_error_encode sends it alone. */
static const struct field error_fields[] = {
    FSTR(struct msg_error, "text", text),
    FOPTU32(struct msg_error, "version", version),
};
static const struct field ping_fields[] = {
    FANYU64(struct msg_ping, "seq", seq),
    FANYU64(struct msg_ping, "t_ns", t_ns),
};
static const struct field pong_fields[] = {
    FANYU64(struct msg_pong, "seq", seq),
    FANYU64(struct msg_pong, "t_ping_ns", t_ping_ns),
    FANYU64(struct msg_pong, "t_ns", t_ns),
};

/* ---- the messages: one row each in proto/msg_table.h ------------------ */

/* plan and clean: the agent's index is one of the agents */
static int plan_check(const void *base, char *err, size_t errlen)
{
    const struct msg_plan *m = base;

    if (m->agent_index < m->nagents)
        return 0;
    snprintf(err, errlen, "'agent_index' = %" PRIu32 " out of range for %" PRIu32 " agents",
             m->agent_index, m->nagents);
    return -EBADMSG;
}

#define NONE NULL
static const struct msg_codec_row rows[MSG__COUNT] = {
#define MSG_ROW(name, st, type, fields, check, enc) [type] = { fields, NELEM(fields), check },
    MSG_TABLE(MSG_ROW)
#undef MSG_ROW
};

int msg_decode(const struct msg_frame *f, void *m, char *err, size_t errlen)
{
    return msg_codec_decode(f, f->type, &rows[f->type > 0 && f->type < MSG__COUNT ? f->type : 0], m,
                            err, errlen);
}

/* Each row's pair: the codec's walk of its field table (msg_codec.h). */
#define ENC_GEN(name, st, type)                                                                   \
    void msg_##name##_encode(struct buf *out, const struct st *m)                                 \
    {                                                                                             \
        msg_codec_encode(out, type, rows[type].f, rows[type].n, m);                               \
    }
#define ENC_OWN(name, st, type)
#define MSG_PAIR(name, st, type, fields, check, enc)                                              \
    ENC_##enc(name, st, type)                                                                     \
    int msg_##name##_decode(const struct msg_frame *f, struct st *m, char *err, size_t errlen)    \
    {                                                                                             \
        return msg_codec_decode(f, type, &rows[type], m, err, errlen);                            \
    }
MSG_TABLE(MSG_PAIR)

/* An error goes out from its text alone, so a caller's uninitialised
 * version can never leak onto the wire; only a refusal sends its version
 * (F_OPTU32: when not 0). */
void msg_error_encode(struct buf *out, const struct msg_error *m)
{
    msg_codec_encode(out, MSG_ERROR, error_fields, 1, m);
}

void msg_error_refusal_encode(struct buf *out, const struct msg_error *m)
{
    msg_codec_encode(out, MSG_ERROR, error_fields, NELEM(error_fields), m);
}

void msg_plan_free(struct msg_plan *m)
{
    plan_free(&m->plan);
    plan_init(&m->plan);
}

void msg_interval_free(struct msg_interval *m)
{
    nfs_rpc_set_free(&m->nfs);
    clone_set_free(&m->clones);
}

void msg_phase_done_free(struct msg_phase_done *m)
{
    nfs_rpc_set_free(&m->nfs);
    clone_set_free(&m->clones);
}

/* Labels travel as "a,b,c": names of 1..63 bytes of [A-Za-z0-9_.-], so a
 * label can never smuggle a separator, '@' or a control byte into a plan's
 * agents= or a report. */
int msg_labels_check(const char *labels, char *err, size_t errlen)
{
    size_t len = 0;

    for (const char *p = labels;; p++) {
        if (*p == ',' || *p == '\0') {
            if (len == 0 && (*p == ',' || p != labels)) {
                snprintf(err, errlen, "labels '%.64s': an empty label", labels);
                return -EINVAL;
            }
            if (*p == '\0')
                return 0;
            len = 0;
            continue;
        }
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-')) {
            snprintf(err, errlen, "labels '%.64s': a label may hold only letters, digits, '_', '.' "
                     "and '-'", labels);
            return -EINVAL;
        }
        if (++len > 63) {
            snprintf(err, errlen, "labels '%.64s': a label is longer than 63 bytes", labels);
            return -EINVAL;
        }
    }
}
