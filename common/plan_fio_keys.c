/* plan_fio_keys: the inventory of fio 3.33's keys (see the header).
 *
 * Design.  A flat table, one line per fio option name, sorted by name so a
 * reader finds a key at a glance; lookups are a linear scan (a few hundred
 * short strcmp, done once per key of a plan).  The list of names is checked
 * against tests/fixtures/fio-3.33-options.txt (extracted from fio's source
 * by scripts/fio-option-names.sh) by tests/unit/test_plan_fio_keys.c, so a
 * key fio has cannot be missing here.  Reasons are short and user-facing:
 * they are printed after "ignored (" or "refused (".  docs/plans.md groups
 * the same reasons for readers. */
#include "common/plan_fio_keys.h"
#include "common/names.h"

#include <stddef.h>
#include <string.h>

#define IMPL(n)         { n, FIO_KEY_IMPLEMENTED, NULL }
#define ALIAS(n, t)     { n, FIO_KEY_ALIAS, t }
#define SAME(n, why)    { n, FIO_KEY_SAME, why }
#define IGN(n, why)     { n, FIO_KEY_IGNORED, why }
#define REF(n, why)     { n, FIO_KEY_REFUSED, why }
/* Planned: the reason says so, and the key's implementation replaces the
 * line (a plan key in plan_keys.c wins over this table anyway). */
#define NOTYET(n, why)  { n, FIO_KEY_REFUSED, "not yet implemented: " why }
/* fio registers its profiles' options with its own, so a job without
 * profile= may set them (examples/steadystate.fio sets tiobench's
 * threads=1): they do nothing there, in fio too.  profile= stays refused. */
#define IGN_PROFILE(n, p) { n, FIO_KEY_IGNORED, "an option of fio's " p " profile; without profile=" p " it does nothing, in fio too" }
#define REF_ENGINE(n, e) { n, FIO_KEY_REFUSED, "an option of fio's " e " engine, which nfstorm does not have" }

#define WHY_CPU      "placement and priority of the load generator's own threads"
#define WHY_CLOCK    "nfstorm uses one monotonic clock"
#define WHY_LAT      "latency is always measured"
#define WHY_PCT      "nfstorm reports its own percentile set"
#define WHY_LOGFMT   "a detail of fio's log files"
#define WHY_LOGS     "fio's log files; nfstorm's --json has the time series"
#define WHY_MEM      "memory of the load generator's buffers"
#define WHY_ZONES    "zoned block devices; nfstorm works on files"
#define WHY_TRIM     "trim (discard) is for block devices"
#define WHY_IOLOG    "I/O log record and replay is not implemented"
#define WHY_URING    "submission tuning of fio's io_uring/libaio/sync engines; nfstorm's engines set their own"
#define WHY_CMDPRIO  "per-command I/O priority; block devices only"
#define WHY_NOTIMPL  "not implemented"
#define WHY_STEADY   "steady state (ss) detection"
#define WHY_LATTGT   "latency_target search"

static const struct fio_key table[] = {
    IMPL("allow_file_create"),
    IGN("allow_mounted_write", "guards mounted block devices; nfstorm writes files"),
    IGN("allrandrepeat", "nfstorm's random streams follow randrepeat"),
    REF("arguments", "an option of fio's exec engine, which nfstorm does not have"),
    REF("atomic", "O_ATOMIC writes do not exist for Linux file systems"),
    NOTYET("ba", "random offsets are aligned to the block size"),
    REF("block_error_percentiles", WHY_TRIM),
    ALIAS("blockalign", "ba"),
    ALIAS("blocksize", "bs"),
    ALIAS("blocksize_range", "bsrange"),
    ALIAS("blocksize_unaligned", "bs_unaligned"),
    IMPL("bs"),
    NOTYET("bs_is_seq_rand", "block sizes by sequential/random instead of read/write"),
    REF("bs_unaligned", "bsrange sizes are multiples of its minimum"),
    IMPL("bsrange"),
    IMPL("bssplit"),
    IMPL("buffer_compress_chunk"),
    IMPL("buffer_compress_percentage"),
    IMPL("buffer_pattern"),
    IMPL("buffered"),
    IGN("bwavgtime", "nfstorm reports per --interval"),
    IGN("cgroup", "resource control of the load generator itself"),
    IGN("cgroup_nodelete", "resource control of the load generator itself"),
    IGN("cgroup_weight", "resource control of the load generator itself"),
    IMPL("clat_percentiles"),
    IGN("clocksource", WHY_CLOCK),
    IGN("cmdprio", WHY_CMDPRIO),
    IGN("cmdprio_bssplit", WHY_CMDPRIO),
    IGN("cmdprio_class", WHY_CMDPRIO),
    IGN("cmdprio_percentage", WHY_CMDPRIO),
    REF("cmd_type", "NVMe passthrough commands; nfstorm works on files"),
    IGN("continue_on_error", "nfstorm counts failed ops and goes on; see error_threshold"),
    IGN("cpumask", WHY_CPU),
    IGN("cpus_allowed", WHY_CPU),
    IGN("cpus_allowed_policy", WHY_CPU),
    IGN("create_fsync", "file layout is not measured"),
    IGN("create_on_open", "file layout is not measured"),
    REF("create_only", WHY_NOTIMPL),
    IGN("create_serialize", "file layout is not measured"),
    IMPL("dedupe_global"),
    IMPL("dedupe_mode"),
    IMPL("dedupe_percentage"),
    IMPL("dedupe_working_set_percentage"),
    IMPL("description"),
    IMPL("direct"),
    IMPL("directory"),
    ALIAS("disable_bw", "disable_bw_measurement"),
    IGN("disable_bw_measurement", "bandwidth is always measured"),
    IGN("disable_clat", WHY_LAT),
    IGN("disable_lat", WHY_LAT),
    IGN("disable_slat", WHY_LAT),
    IGN("disk_util", "no local block device to sample"),
    IMPL("do_verify"),
    IMPL("end_fsync"),
    IGN("error_dump", "failed ops are counted by error in the report"),
    REF("exec_postrun", "a plan does not run commands on agents"),
    REF("exec_prerun", "a plan does not run commands on agents"),
    IMPL("exit_what"),
    IMPL("exitall"),
    IMPL("exitall_on_error"),
    IGN("experimental_verify", "verification is nfstorm's own (docs/verify.md)"),
    IMPL("fadvise_hint"),
    IMPL("fallocate"),
    IMPL("fdatasync"),
    REF("file_append", WHY_NOTIMPL),
    IMPL("file_service_type"),
    IMPL("filename"),
    IMPL("filename_format"),
    ALIAS("fileoffset", "offset"),
    IMPL("filesize"),
    REF("fill_device", "filling the file system is not a load nfstorm runs; size= bounds every job"),
    ALIAS("fill_fs", "fill_device"),
    IMPL("flow"),
    IMPL("flow_id"),
    IMPL("flow_sleep"),
    REF("flow_watermark", WHY_NOTIMPL),
    IGN("fixedbufs", WHY_URING),
    IGN("force_async", WHY_URING),
    IMPL("fsync"),
    REF("fsync_on_close", "not implemented; end_fsync=1 syncs each file at the job's end"),
    REF("gid", "nfstorm does not switch credentials; run the agent as that user"),
    REF("gpu_dev_id", "GPU memory buffers are not supported"),
    IMPL("group_reporting"),
    IGN("gtod_cpu", WHY_CLOCK),
    IGN("gtod_reduce", WHY_CLOCK),
    IGN("hipri", WHY_URING),
    IGN("hipri_percentage", WHY_URING),
    IGN("hugepage-size", WHY_MEM),
    IGN("ignore_error", "nfstorm counts failed ops and goes on; see error_threshold"),
    REF("ignore_zone_limits", WHY_ZONES),
    IMPL("invalidate"),
    ALIAS("io_limit", "io_size"),
    IMPL("io_size"),
    IGN("io_submit_mode", "how fio's threads submit; nfstorm's engines keep iodepth in flight"),
    IMPL("iodepth"),
    IMPL("iodepth_batch"),
    ALIAS("iodepth_batch_complete", "iodepth_batch_complete_min"),
    IMPL("iodepth_batch_complete_max"),
    IMPL("iodepth_batch_complete_min"),
    ALIAS("iodepth_batch_submit", "iodepth_batch"),
    IGN("iodepth_low", "nfstorm's engines keep iodepth ops in flight"),
    IMPL("ioengine"),
    ALIAS("iomem", "mem"),
    IGN("iomem_align", WHY_MEM),
    IGN("iopsavgtime", "nfstorm reports per --interval"),
    IGN("ioscheduler", "a block device's scheduler; a network file system has none"),
    REF("job_max_open_zones", WHY_ZONES),
    IMPL("kb_base"),
    IMPL("lat_percentiles"),
    IMPL("latency_percentile"),
    NOTYET("latency_run", WHY_LATTGT),
    IMPL("latency_target"),
    IMPL("latency_window"),
    REF("lockfile", "file locking between a job's threads is not implemented"),
    IGN("lockmem", WHY_MEM),
    IGN("log_alternate_epoch", WHY_LOGFMT),
    IGN("log_alternate_epoch_clock_id", WHY_LOGFMT),
    IMPL("log_avg_msec"),
    IGN("log_compression", WHY_LOGFMT),
    IGN("log_compression_cpus", WHY_LOGFMT),
    IGN("log_entries", WHY_LOGFMT),
    IMPL("log_hist_coarseness"),
    IMPL("log_hist_msec"),
    IMPL("log_max_value"),
    IMPL("log_offset"),
    IGN("log_prio", WHY_LOGFMT),
    IGN("log_store_compressed", WHY_LOGFMT),
    IGN("log_unix_epoch", WHY_LOGFMT),
    IMPL("loops"),
    REF("max_latency", "failing a job above a latency is not implemented"),
    REF("max_open_zones", WHY_ZONES),
    IGN("mem", WHY_MEM),
    ALIAS("mem_align", "iomem_align"),
    REF("merge_blktrace_file", WHY_IOLOG),
    REF("merge_blktrace_iters", WHY_IOLOG),
    REF("merge_blktrace_scalars", WHY_IOLOG),
    IMPL("name"),
    IMPL("new_group"),
    IMPL("nfs_url"),
    IGN("nice", WHY_CPU),
    IGN("nonvectored", WHY_URING),
    IMPL("norandommap"),
    IGN("nowait", WHY_URING),
    ALIAS("nr_files", "nrfiles"),
    IMPL("nrfiles"),
    IGN("numa_cpu_nodes", WHY_CPU),
    IGN("numa_mem_policy", WHY_CPU),
    IMPL("number_ios"),
    IMPL("numjobs"),
    IMPL("offset"),
    REF("offset_align", WHY_NOTIMPL),
    IMPL("offset_increment"),
    REF("opendir", "not implemented; name the files with filename=a:b or nrfiles"),
    IMPL("openfiles"),
    IMPL("overwrite"),
    IMPL("per_job_logs"),
    REF("percentage_random", WHY_NOTIMPL),
    REF("percentage_sequential", WHY_NOTIMPL),
    IGN("percentile_list", WHY_PCT),
    IGN("pre_read", "nfstorm does not pre-read files into the cache"),
    IGN("prio", WHY_CPU),
    IGN("prioclass", WHY_CPU),
    REF("profile", "fio's built-in profiles are not implemented"),
    IMPL("ramp_time"),
    IMPL("random_distribution"),
    IGN("random_generator", "nfstorm has one random generator"),
    IMPL("randrepeat"),
    IMPL("randseed"),
    IMPL("rate"),
    IMPL("rate_cycle"),
    REF("rate_ignore_thinktime", WHY_NOTIMPL),
    IMPL("rate_iops"),
    IMPL("rate_iops_min"),
    IMPL("rate_min"),
    IMPL("rate_process"),
    ALIAS("ratecycle", "rate_cycle"),
    ALIAS("ratemin", "rate_min"),
    REF("read_beyond_wp", WHY_ZONES),
    REF("read_iolog", WHY_IOLOG),
    REF("read_iolog_chunked", WHY_IOLOG),
    ALIAS("readwrite", "rw"),
    IMPL("refill_buffers"),
    IGN("registerfiles", WHY_URING),
    REF("replay_align", WHY_IOLOG),
    REF("replay_no_stall", WHY_IOLOG),
    REF("replay_redirect", WHY_IOLOG),
    REF("replay_scale", WHY_IOLOG),
    REF("replay_skip", WHY_IOLOG),
    REF("replay_time_scale", WHY_IOLOG),
    IMPL("runtime"),
    IMPL("rw"),
    IMPL("rw_sequencer"),
    IGN("rwmixcycle", "fio itself ignores it (deprecated)"),
    IMPL("rwmixread"),
    IMPL("rwmixwrite"),
    IMPL("scramble_buffers"),
    REF("serialize_overlap", WHY_NOTIMPL),
    IGN("significant_figures", WHY_PCT),
    IMPL("size"),
    IGN("slat_percentiles", WHY_PCT),
    IGN("softrandommap", "applies to fio's random map, which nfstorm does not keep"),
    IGN("sqthread_poll", WHY_URING),
    IGN("sqthread_poll_cpu", WHY_URING),
    ALIAS("ss", "steadystate"),
    ALIAS("ss_dur", "steadystate_duration"),
    ALIAS("ss_ramp", "steadystate_ramp_time"),
    IMPL("startdelay"),
    IGN("stat_type", "nfstorm's filestat calls stat(); on a regular file lstat and statx ask the server the same"),
    IGN("stats", "nfstorm always keeps statistics"),
    IMPL("steadystate"),
    IMPL("steadystate_duration"),
    IMPL("steadystate_ramp_time"),
    IMPL("stonewall"),
    IMPL("sync"),
    REF("sync_file_range", WHY_NOTIMPL),
    IMPL("thinktime"),
    REF("thinktime_blocks", WHY_NOTIMPL),
    REF("thinktime_blocks_type", WHY_NOTIMPL),
    REF("thinktime_iotime", WHY_NOTIMPL),
    IGN("thinktime_spin", "nfstorm sleeps for all of thinktime"),
    SAME("thread", "nfstorm always runs a job's clones as threads"),
    IMPL("time_based"),
    ALIAS("timeout", "runtime"),
    REF("trim_backlog", WHY_TRIM),
    REF("trim_backlog_batch", WHY_TRIM),
    REF("trim_percentage", WHY_TRIM),
    REF("trim_verify_zero", WHY_TRIM),
    REF("uid", "nfstorm does not switch credentials; run the agent as that user"),
    IGN("uncached", WHY_URING),
    IGN("unified_rw_reporting", "nfstorm reports reads and writes apart and together"),
    IGN("unique_filename", "agents share filename=; write ${agent} in it for a file per agent"),
    IGN("unit_base", "see --unit-base"),
    IMPL("unlink"),
    REF("unlink_each_loop", WHY_NOTIMPL),
    IGN("use_os_rand", "fio 2's; nfstorm has one random generator"),
    IGN("userspace_reap", WHY_URING),
    IMPL("verify"),
    IGN("verify_async", "blocks are verified inline by the job thread"),
    IGN("verify_async_cpus", "blocks are verified inline by the job thread"),
    IMPL("verify_backlog"),
    IGN("verify_backlog_batch", "verify_backlog reads back every block of the backlog"),
    IGN("verify_dump", "the first bad blocks are in the results"),
    IMPL("verify_fatal"),
    IMPL("verify_interval"),
    IMPL("verify_offset"),
    IMPL("verify_only"),
    IMPL("verify_pattern"),
    IGN("verify_state_load", "verify_only needs no state: the headers say what was written"),
    IGN("verify_state_save", "verify_only needs no state: the headers say what was written"),
    IGN("verifysort", "read-back follows the write order"),
    IGN("verifysort_nr", "read-back follows the write order"),
    IMPL("wait_for"),
    ALIAS("wait_for_previous", "stonewall"),
    REF("write_barrier", WHY_NOTIMPL),
    IMPL("write_bw_log"),
    IGN("write_hint", "a lifetime hint for the device; network file systems drop it"),
    IMPL("write_hist_log"),
    REF("write_iolog", WHY_IOLOG),
    IMPL("write_iops_log"),
    IMPL("write_lat_log"),
    IMPL("zero_buffers"),
    REF("zone_reset_frequency", WHY_ZONES),
    REF("zone_reset_threshold", WHY_ZONES),
    REF("zonecapacity", WHY_ZONES),
    REF("zonemode", WHY_ZONES),
    REF("zonerange", WHY_ZONES),
    REF("zonesize", WHY_ZONES),
    REF("zoneskip", WHY_ZONES),
    /* options of fio's built-in profiles (profile=act|tiobench): ignored */
    IGN_PROFILE("block", "tiobench"),
    IGN_PROFILE("device-names", "act"),
    IGN_PROFILE("dir", "tiobench"),
    IGN_PROFILE("large-block-op-kbytes", "act"),
    IGN_PROFILE("load", "act"),
    IGN_PROFILE("numruns", "tiobench"),
    IGN_PROFILE("prep", "act"),
    IGN_PROFILE("read-req-num-512-blocks", "act"),
    IGN_PROFILE("test-duration", "act"),
    IGN_PROFILE("threads", "tiobench"),
    IGN_PROFILE("threads-per-queue", "act"),
    /* options of engines nfstorm does not have */
    REF_ENGINE("bindname", "rdma"),
    REF_ENGINE("brick", "glusterfs"),
    REF_ENGINE("busy_poll", "rados/rbd"),
    REF_ENGINE("busy_wait_polling", "librpma_fio"),
    REF_ENGINE("chunck_size", "libhdfs"),
    REF_ENGINE("chunk_size", "dfs/libhdfs"),
    REF_ENGINE("clientname", "rados/rbd"),
    REF_ENGINE("clustername", "rados/rbd"),
    REF_ENGINE("conf", "rados"),
    REF_ENGINE("cont", "dfs"),
    REF_ENGINE("cpuchunks", "cpu"),
    REF_ENGINE("cpuload", "cpu"),
    REF_ENGINE("cpumode", "cpu"),
    REF_ENGINE("cuda_io", "libcufile"),
    REF_ENGINE("direct_write_to_pmem", "librpma_fio"),
    REF_ENGINE("donorname", "e4defrag"),
    REF_ENGINE("dummy", "skeleton_external"),
    REF_ENGINE("exit_on_io_done", "cpu"),
    REF_ENGINE("gpu_dev_ids", "libcufile"),
    REF_ENGINE("grace_time", "exec"),
    REF_ENGINE("hdfs_use_direct", "libhdfs"),
    REF_ENGINE("hdfsdirectory", "libhdfs"),
    REF_ENGINE("hostname", "libhdfs/net/rdma"),
    REF_ENGINE("http_host", "http"),
    REF_ENGINE("http_mode", "http"),
    REF_ENGINE("http_pass", "http"),
    REF_ENGINE("http_s3_key", "http"),
    REF_ENGINE("http_s3_keyid", "http"),
    REF_ENGINE("http_s3_region", "http"),
    REF_ENGINE("http_s3_sse_customer_algorithm", "http"),
    REF_ENGINE("http_s3_sse_customer_key", "http"),
    REF_ENGINE("http_s3_storage_class", "http"),
    REF_ENGINE("http_swift_auth_token", "http"),
    REF_ENGINE("http_user", "http"),
    REF_ENGINE("http_verbose", "http"),
    REF_ENGINE("https", "http"),
    REF_ENGINE("initiator", "libiscsi"),
    REF_ENGINE("inplace", "e4defrag"),
    REF_ENGINE("interface", "net"),
    REF_ENGINE("listen", "net"),
    REF_ENGINE("mss", "net"),
    REF_ENGINE("namenode", "libhdfs"),
    REF_ENGINE("no_completion_thread", "windowsaio"),
    REF_ENGINE("nodelay", "net"),
    REF_ENGINE("object_class", "dfs"),
    REF_ENGINE("pingpong", "net"),
    REF_ENGINE("pool", "dfs/rados/rbd"),
    REF_ENGINE("port", "libhdfs/librpma_fio/net/rdma"),
    REF_ENGINE("program", "exec"),
    REF_ENGINE("proto", "net/rdma"),
    REF_ENGINE("protocol", "net"),
    REF_ENGINE("rbdname", "rbd"),
    REF_ENGINE("readfua", "sg"),
    REF_ENGINE("serverip", "librpma_fio"),
    REF_ENGINE("sg_write_mode", "sg"),
    REF_ENGINE("single-instance", "glusterfs"),
    REF_ENGINE("single_instance", "libhdfs"),
    REF_ENGINE("skip_bad", "mtd"),
    REF_ENGINE("std_redirect", "exec"),
    REF_ENGINE("stream_id", "sg"),
    REF_ENGINE("svcl", "dfs"),
    REF_ENGINE("thp", "mmap"),
    REF_ENGINE("touch_objects", "rados"),
    REF_ENGINE("ttl", "net"),
    REF_ENGINE("uri", "nbd"),
    REF_ENGINE("verb", "rdma"),
    REF_ENGINE("volume", "glusterfs"),
    REF_ENGINE("window_size", "net"),
    REF_ENGINE("writefua", "sg"),
    REF_ENGINE("xnvme_admin", "xnvme"),
    REF_ENGINE("xnvme_async", "xnvme"),
    REF_ENGINE("xnvme_be", "xnvme"),
    REF_ENGINE("xnvme_dev_nsid", "xnvme"),
    REF_ENGINE("xnvme_iovec", "xnvme"),
    REF_ENGINE("xnvme_sync", "xnvme"),
};


const struct fio_key *plan_fio_key_find(const char *name)
{
    for (size_t i = 0; name && i < NELEM(table); i++)
        if (strcmp(name, table[i].name) == 0)
            return &table[i];
    return NULL;
}

const struct fio_key *plan_fio_key_resolve(const char *name)
{
    const struct fio_key *k = plan_fio_key_find(name);
    for (int hops = 0; k && k->status == FIO_KEY_ALIAS && hops < 4; hops++)
        k = plan_fio_key_find(k->note);
    return k && k->status == FIO_KEY_ALIAS ? NULL : k;
}

const char *plan_fio_key_alias(const char *name)
{
    const struct fio_key *k = plan_fio_key_find(name);
    return k && k->status == FIO_KEY_ALIAS ? k->note : NULL;
}

const char *plan_fio_key_status_name(enum fio_key_status s)
{
    switch (s) {
    case FIO_KEY_IMPLEMENTED: return "implemented";
    case FIO_KEY_ALIAS: return "alias";
    case FIO_KEY_SAME: return "accepted";
    case FIO_KEY_IGNORED: return "ignored";
    case FIO_KEY_REFUSED: return "refused";
    }
    return "?";
}

const struct fio_key *plan_fio_keys(unsigned *n)
{
    *n = (unsigned)NELEM(table);
    return table;
}
