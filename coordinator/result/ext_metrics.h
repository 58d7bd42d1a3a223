/* ext_metrics: a provider's own metrics of the storage under test, read
 * from the JSON that `aws cloudwatch get-metric-data` writes, and placed on
 * the run's time axis.
 *
 * The service's view (EFS BurstCreditBalance, PermittedThroughput,
 * MeteredIOBytes, PercentIOLimit, ClientConnections ...) explains what the
 * run measured: credits reaching zero as throughput steps down.  The file is
 * {"MetricDataResults": [{"Id", "Label", "Timestamps": [ISO 8601 ...],
 * "Values": [numbers ...], "StatusCode"}, ...], "Messages": [...]}; other
 * keys are ignored.  Each point is placed by its wall-clock time against
 * each phase's recorded start (phase_result.t0_unix_ms): seconds since the
 * run's start, and the phase, interval and fleet throughput at that time.
 * The file is untrusted: its size, the number of series and points are
 * capped before anything is kept, and timestamps, values and the two
 * arrays' lengths are checked, each with a one-line error. */
#ifndef NFSTORM_EXT_METRICS_H
#define NFSTORM_EXT_METRICS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct run_result;

#define EXT_METRICS_FILE_MAX    (64u << 20)   /* bytes of JSON */
#define EXT_METRICS_SERIES_MAX  500u          /* GetMetricData takes at most 500 queries */
#define EXT_METRICS_POINTS_MAX  100800u       /* ... and returns at most 100,800 points per series */
#define EXT_METRICS_TOTAL_MAX   1000000u      /* points over all series */

struct ext_point {
    int64_t unix_ms;
    double value;
};

struct ext_series {
    char id[256];
    char label[256];
    char status[32];              /* StatusCode, "" if absent */
    struct ext_point *pt;         /* [n], sorted by time */
    uint32_t n;
};

struct ext_metrics {
    char path[512];
    struct ext_series *s;         /* [n] */
    uint32_t n;
};

/* Read path.  0, or a negative errno with one line in err naming the file
 * and what is wrong ("m.json: MetricDataResults[1] (Id 'cr'): Timestamps[3]:
 * bad time '2024-13-01T00:00:00Z' (want ISO 8601 ...)"). */
int ext_metrics_load(const char *path, struct ext_metrics *m, char *err, size_t errlen);
void ext_metrics_free(struct ext_metrics *m);

/* Renderers of r->metrics (nothing when NULL): the text section, the HTML
 * charts beside the run's own throughput, and the JSON "external_metrics"
 * put into root (0, or -ENOMEM). */
void ext_metrics_text(FILE *out, const struct run_result *r, int unit_base);
void ext_metrics_html(FILE *out, const struct run_result *r, int unit_base);
int ext_metrics_json(json_t *root, const struct run_result *r);

#endif
