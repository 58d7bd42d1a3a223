/* run_record: what a result knows about what it measured.
 *
 * The run as given (the plan text after includes and ${VAR}, the command
 * line, the --target label), the software (nfstorm and protocol versions),
 * the wall-clock start and end and whether it was interrupted; per agent
 * its machine (kernel, CPU model, memory: struct agent_system in
 * agent_info); per phase and agent the storage its jobs ran on (a kernel
 * mount with its options, or a libnfs URL with what the server negotiated:
 * common/storage.h, kept in agent_phase).
 *
 * One JSON form for all of it, written and read here, used by the JSON
 * result (report_json.c, result_load.c) and the journal (journal.c), so a
 * record survives both round trips exactly.  Reports show it as a short
 * header (run_record_text); compare asks run_record_diff what differs
 * between runs.  Single-threaded, like the result. */
#ifndef NFSTORM_RUN_RECORD_H
#define NFSTORM_RUN_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "common/storage.h"

#define RECORD_TARGET_MAX 256
#define RECORD_ARGV_MAX   1024         /* arguments kept (more are dropped) */
#define RECORD_ARG_MAX    4096         /* bytes per argument kept */
#define RECORD_PLAN_MAX   (1u << 20)   /* plan text kept, bytes */

struct agent_system {          /* an agent's machine, from its "system" message */
    uint8_t known;             /* the agent sent it */
    char kernel[128];          /* uname -r */
    char cpu_model[128];
    uint64_t mem_bytes;        /* MemTotal */
};

struct run_record {
    uint8_t present;           /* results written before records have none */
    char target[RECORD_TARGET_MAX];   /* --target, "" if not given */
    char *plan_text;           /* owned; NULL: not known */
    char **argv;               /* owned, [argc]: the coordinator's command line */
    uint32_t argc;
    char version[32];          /* NFSTORM_VERSION of the coordinator */
    uint32_t proto_version;
    int64_t start_ms;          /* wall clock, unix milliseconds */
    int64_t end_ms;            /* 0: not known (a journal cut short) */
    uint8_t interrupted;       /* SIGINT/SIGTERM, or cut short */
};

struct run_result;
struct agent_phase;

void run_record_init(struct run_record *rec);
void run_record_free(struct run_record *rec);
/* Start a record now: versions, start time, target (may be NULL), the
 * command line (argv[0..argc), each argument kept as given) and the plan
 * text (may be NULL; copied). */
void run_record_begin(struct run_record *rec, const char *target, int argc, char **argv,
                      const char *plan_text);
/* The run ended now; interrupted as the run says. */
void run_record_finish(struct run_record *rec, int interrupted);

/* Record one storage place of an agent in a phase (strings cleaned with
 * result_clean_text).  -EINVAL out of range, -ENOSPC beyond
 * STORAGE_PER_PHASE_MAX (the place is dropped). */
int run_record_add_storage(struct run_result *r, uint32_t phase, uint32_t agent,
                           const struct storage_info *s);
/* Record an agent's machine (strings cleaned).  -EINVAL out of range. */
int run_record_set_system(struct run_result *r, uint32_t agent, const struct agent_system *sys);

/* JSON forms (schema in docs/results.md).  New references; NULL only on
 * allocation failure. */
json_t *run_record_json(const struct run_record *rec);
json_t *run_record_system_json(const struct agent_system *sys);
json_t *run_record_storage_json(const struct agent_phase *ap);
/* ...and back, strictly: every key present and of its type, strings within
 * their bounds and cleaned.  0 or -EINVAL with a one-line reason naming
 * the key in err (what names the object, e.g. "record"). */
int run_record_from_json(json_t *o, const char *what, struct run_record *rec, char *err, size_t errlen);
int run_record_system_from_json(json_t *o, const char *what, struct agent_system *sys, char *err,
                                size_t errlen);
int run_record_storage_from_json(json_t *arr, const char *what, struct run_result *r, uint32_t phase,
                                 uint32_t agent, char *err, size_t errlen);

/* The report's header block: target and version line, start and end, one
 * line per group of agents with the same machine, one line per distinct
 * storage place (with the agents and phases on it).  Nothing when r has
 * no record. */
void run_record_text(FILE *out, const struct run_result *r);

/* What differs between runs, for compare: one row per record field whose
 * value is not the same in every run, with each run's value as text (a
 * run with several values, e.g. two kernels among its agents, lists them
 * in order of first appearance, separated by "; "). */
struct record_diff_row {
    char key[32];              /* "target", "nfsvers", "plan", ... */
    char **values;             /* [nruns], owned */
};
struct record_diff {
    uint32_t nruns, nrows;
    struct record_diff_row *rows;   /* owned */
};
/* Fill d (caller frees with run_record_diff_free) for runs[0..n).  Fields
 * compared: target, version, agents (count), hosts, kernel, cpu, mem, fstype,
 * source, options, nfsvers, rsize, wsize, nconnect, timeo, mode, url, plan
 * (the text: "same"/"differs" against the first run, as "plan A"/"plan B"
 * letters).  0, or -EINVAL if n == 0. */
int run_record_diff(const struct run_result *const *runs, uint32_t n, struct record_diff *d);
void run_record_diff_free(struct record_diff *d);
/* d as aligned text for compare: "what differs between the runs:" then one
 * line per row, the key and each run's value in columns named by
 * labels[0..nruns) (a header line); or one line saying the records agree.
 * Values longer than 40 bytes are cut with "...". */
void run_record_diff_text(FILE *out, const struct record_diff *d, const char *const *labels);

/* "2026-12-01T16:47:25.123Z" for unix milliseconds ms. */
void run_record_iso8601(int64_t ms, char *out, size_t outlen);

#endif
