/* limits: what a storage service declares it allows, read from the user's
 * --limits FILE (INI) and --fs-size: throughput and IOPS caps per client and
 * per file system, a burst-credit model, how reads are metered, and prices.
 *
 * Cloud file systems throttle and bill by rules that are published, not
 * measured: EFS Bursting earns credits in proportion to the bytes stored and
 * drops to its baseline when they run out; Provisioned caps the metered
 * rate at what was bought; Elastic caps each client and bills per GB moved.
 * nfstorm cannot observe these rules, so the user declares them and the
 * model (limits_model.h) applies them to the plan before the run and to the
 * measurements after it.  Every number is the user's claim; the file says
 * where it came from (examples/limits/).  The keys are listed in
 * docs/long-runs.md; this module only parses and checks them. */
#ifndef NFSTORM_LIMITS_H
#define NFSTORM_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#define LIMITS_NAME_MAX 128
#define LIMITS_FILE_MAX (1u << 20)    /* a limits file is a few lines */

struct limits {
    char name[LIMITS_NAME_MAX];       /* [limits] name: what the file describes */
    char path[LIMITS_NAME_MAX * 2];   /* the file it was read from */
    /* caps, bytes/s or ops/s; 0: not declared */
    double client_bps, client_iops;   /* per client (agent), bytes moved */
    double fs_bps, fs_iops;           /* the whole file system, metered bytes */
    /* metering: a byte read counts as read_metering metered bytes (EFS: 1/3) */
    double read_metering, write_metering;
    /* burst credits (bytes of metered I/O above the baseline); has_credits: any key given */
    int has_credits;
    double credits_initial;           /* balance at the start of the run */
    double baseline_per_gib_bps;      /* earned per GiB stored, bytes/s */
    double baseline_min_bps;          /* at least this baseline */
    double burst_bps;                 /* burst rate, at least (EFS: 100 MiB/s) */
    double burst_per_tib_bps;         /* ... or this per TiB stored, if more */
    /* prices */
    char currency[16];
    double read_per_gb, write_per_gb; /* per 10^9 bytes moved (not metered) */
    double per_hour;                  /* a fixed price per hour of the run (provisioned) */
    int has_prices;
    /* --fs-size: bytes stored; 0 unknown */
    double fs_size_bytes;
};

/* Read path into *l (zeroed first; metering defaults to 1).  0, or a
 * negative errno with one line in err naming "path:LINE: key: why" (an
 * unknown section or key, a bad value), or the path and why it cannot be
 * read (missing, not a regular file, over LIMITS_FILE_MAX). */
int limits_load(const char *path, struct limits *l, char *err, size_t errlen);

/* --fs-size SIZE (a size, "500GiB", "2TiB", fractions allowed: "1.5TiB")
 * into l->fs_size_bytes.  0, or -EINVAL with err. */
int limits_set_fs_size(struct limits *l, const char *s, char *err, size_t errlen);

/* A size or rate with a decimal part: "2.1TiB", "50KiB/s", "100MiB/s",
 * "3GB/s" (IEC: 1024; SI kB/MB/GB/TB: 1000; bare k/m/g/t: 1024, as fio),
 * or bits with an SI prefix ("10Gbit/s").  per_s: 1 for a rate (the "/s"
 * may be left out), 0 for a size (a "/s" is refused).  0, or -EINVAL. */
int limits_parse_quantity(const char *s, int per_s, double *out);

/* Burst and baseline rates for the declared size (bytes/s), 0 when the
 * model lacks them: baseline = max(baseline_min, baseline_per_gib x GiB),
 * burst = max(burst, burst_per_tib x TiB). */
double limits_baseline_bps(const struct limits *l);
double limits_burst_bps(const struct limits *l);

#endif
