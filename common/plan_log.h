/* plan_log: fio's log-file keys of a job (write_bw_log, write_lat_log,
 * write_iops_log, write_hist_log, log_avg_msec, log_hist_msec,
 * log_hist_coarseness, per_job_logs, log_offset, log_max_value), and the
 * two that place percentiles in fio's JSON (clat_percentiles,
 * lat_percentiles: coordinator/report_fio.c).
 *
 * Coordinator only: the coordinator writes the logs from the intervals
 * agents stream (coordinator/fiolog.h), so these are never on the wire.
 * Kept as one struct inside job_spec, parsed here, so the key table in
 * plan_keys.c needs one line per key and one case. */
#ifndef NFSTORM_PLAN_LOG_H
#define NFSTORM_PLAN_LOG_H

#include <stddef.h>
#include <stdint.h>

enum plan_log_type { PLAN_LOG_BW = 0, PLAN_LOG_LAT, PLAN_LOG_IOPS, PLAN_LOG_HIST, PLAN_LOG__COUNT };

#define PLAN_LOG_PREFIX_MAX 256
#define PLAN_LOG_MSEC_MAX   3600000u   /* the longest --interval, 1 h */

struct job_log {
    uint8_t mask;                      /* 1 << enum plan_log_type: logs asked for */
    char prefix[PLAN_LOG_PREFIX_MAX * PLAN_LOG__COUNT]; /* per type, "" = the job's name */
    uint32_t avg_msec;                 /* log_avg_msec; 0 = unset */
    uint32_t hist_msec;                /* log_hist_msec; 0 = unset */
    uint32_t hist_coarseness;          /* log_hist_coarseness, 0..10 */
    uint8_t per_job_logs;              /* default 1 */
    uint8_t log_offset;                /* accepted: averaged entries carry offset 0, as fio's */
    uint8_t log_max_value;             /* lat logs: the window's maximum, not its mean */
    uint8_t clat_percentiles;          /* fio JSON: percentiles in clat_ns (default 1) */
    uint8_t lat_percentiles;           /* fio JSON: percentiles in lat_ns (default 0) */
};

/* The defaults: nothing logged, per_job_logs=1, clat_percentiles=1. */
void plan_log_default(struct job_log *l);
/* Set key to value (NULL or "" for a bare key).  0, -ENOENT for a key that
 * is not ours, -EINVAL with why filled for a bad value. */
int plan_log_set(struct job_log *l, const char *key, const char *value, char *why, size_t whylen);
/* The file prefix of log type t: the key's value, or name when it was
 * given bare (fio: "jobname_type.N.log"). */
const char *plan_log_prefix(const struct job_log *l, enum plan_log_type t, const char *name);

#endif
