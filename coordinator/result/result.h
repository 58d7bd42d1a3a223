/* result: the run's measurements as the coordinator merges them.
 *
 * Filled while the run goes (intervals and phase totals as agents send
 * them), then read by the reporters.  Everything merged is an exact sum of
 * what agents sent: op counts, bytes, errors and histogram buckets.
 * Per-agent intervals keep only counters (no histograms) to bound memory on
 * long runs, packed to a few bytes an agent once the interval is sealed
 * (agent_pack.h; read them with result_slot_agent(s) or
 * result_interval_agent), and per-agent phase totals are kept sealed (see
 * below), so a phase costs what its agents measured, not ~400 KB per agent.
 * Merged intervals keep their histograms exactly but compactly: in the
 * chunked recording form (an op_rec, a few KB) only while agents are still
 * sending the interval, then "sealed" into counters plus sparse, varint
 * packed histograms of the op types that had ops (a few hundred bytes),
 * written to the run's spill file (spill.h), so they cost the heap
 * nothing once sealed.
 * Read them through result_interval_ops / result_interval_op /
 * result_interval_all, or slot->count for counters.
 *
 * Single-threaded: owned and touched by the coordinator's loop thread. */
#ifndef NFSTORM_RESULT_H
#define NFSTORM_RESULT_H

#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "common/coherence.h"
#include "common/errcause.h"
#include "common/stats.h"
#include "coordinator/run/run_record.h"

#define RESULT_HOST_MAX 256
/* The JSON result's and the journal's "schema" (docs/results.md): 2 since
 * exact interval histograms, per-agent interval columns and run records. */
#define RESULT_SCHEMA 2

struct agent_info {
    uint32_t id;                  /* index, the plan's ${agent} */
    char addr[RESULT_HOST_MAX];   /* host:port as dialled */
    char host[RESULT_HOST_MAX];   /* the agent's own host name */
    char labels[RESULT_HOST_MAX]; /* its labels, comma-separated ("" none): a
                                     hosts file's label=, a dialled-in agent's --label */
    uint32_t ncpus;
    int64_t clock_offset_ns;      /* agent clock - coordinator clock */
    uint64_t rtt_ns;              /* best ping round trip */
    int lost;                     /* the agent went away during the run */
    uint64_t client_cap_bps;      /* --client-cap for it (client_cap.h), 0 none */
    double lost_at_s;             /* when, seconds since the run started */
    struct agent_system sys;      /* its machine (run_record.h), if it said */
};

/* Why a run ended early, for the verdicts (coordinator/run/verdict.h). */
enum run_end {
    RUN_END_NONE = 0,             /* ran every phase it could */
    RUN_END_INTERRUPTED,          /* SIGINT/SIGTERM */
    RUN_END_FAILED,               /* a fatal error (r->end_text says which) */
};

struct counters {                 /* per op type, no latency */
    uint64_t ops[OP__COUNT];
    uint64_t bytes[OP__COUNT];
    uint64_t errors[OP__COUNT];
    uint8_t reported;             /* the agent sent this interval (membership) */
    uint32_t inflight;            /* ops outstanding when the interval closed */
    uint64_t oldest_ns;           /* age of the oldest of them */
};

struct op_counts {                /* one op type's counters, as in op_stats */
    uint64_t ops, bytes, errors, timeouts;
};

struct sealed_op {                /* latency of one op type of a sealed interval */
    uint8_t type;                 /* enum op_type */
    struct hist_sparse lat, svc;
};

/* An op_set kept compactly: every op type's counters, and the histograms of
 * the op types that are not blank in sparse form (a few KB instead of the
 * ~400 KB of an op_set).  Lossless: result_agent_totals gives the op_set
 * back exactly. */
struct op_set_sealed {
    struct op_counts count[OP__COUNT];
    struct sealed_op *op;         /* [n] */
    uint8_t n;
};

struct agent_phase {
    int done;                     /* phase-done received */
    struct op_set_sealed sealed;  /* the agent's totals: read them with
                                     result_agent_totals, set them with
                                     result_set_agent_phase */
    uint64_t duration_ns;
    uint64_t start_ns;            /* coordinator clock, converted */
    double cpu_user_s, cpu_sys_s;
    uint32_t cores;
    uint32_t nintervals;          /* as the agent counted */
    uint32_t lat_depth;           /* latency_target: the depth its search found (0: none) */
    uint8_t lat_unmet;            /* ... the target was missed even at depth 1 */
    uint64_t late_ops, late_ns;   /* schedule debt (msg_phase_done): the client fell behind */
    /* verdict inputs (verdict.c) */
    uint8_t participating;        /* runs a job of this phase (agents=); set by result_init */
    uint8_t salvaged;             /* no phase-done: totals are the sum of its intervals */
    char *error;                  /* the agent's error text for this phase, or NULL;
                                     owned (result_set_agent_error), kept by
                                     result_set_agent_phase */
    struct storage_info *storage; /* where its jobs ran, [nstorage]: owned,
                                     set by run_record_add_storage, kept by
                                     result_set_agent_phase */
    uint32_t nstorage;
};

struct spill;                     /* spill.h */

/* The merged interval (sum over agents) is *pending (chunked) and the
 * agents' counters agent[] (dense) while the slot fills; result_interval_seal
 * packs the histograms into the run's spill (spill.h) and the agents into
 * packed (agent_pack.h), and frees both.  A slot with neither (never written) is an
 * empty interval.  count[] is kept exact in all states. */
struct interval_slot {
    struct op_counts count[OP__COUNT]; /* merged counters, always valid */
    struct op_rec *pending;       /* the merge while filling (chunked, common/stats.h) */
    struct counters *agent;       /* [nagents] while filling, else NULL: read them
                                     with result_slot_agent(s) */
    uint8_t *packed;              /* else their pack (agent_pack.h), exactly sized:
                                     read a few bytes an agent by every per-agent
                                     series, so kept in memory */
    struct spill *spill;          /* where the sealed histograms are, or NULL */
    uint64_t at;                  /* ... there, hist_len bytes */
    uint32_t hist_len;
    uint32_t nreported;           /* agents that sent this interval */
    uint8_t is_sealed;            /* result_interval_seal ran (late data re-seals) */
};

/* Phase control (coordinator/run/phase_ctl.h): whether the coordinator ended
 * the phase early, and fio's steady state as judged on the merged intervals. */
struct phase_end_info {
    uint8_t ended_early;          /* a phase-end went to the agents */
    uint8_t skipped;              /* not run: exit_what=all ended the run before it */
    char why[400];                /* "exitall: agent 0 finished", "steady state: ...",
                                   * "exitall_on_error: agent 0: job 'w': ..." (the error) */
    uint32_t ss;                  /* enum plan_ss of the phase; 0: no steady state asked */
    double ss_limit;              /* as the plan gave it ... */
    int ss_pct;                   /* ... in percent of the window's mean */
    uint64_t ss_dur_ns, ss_ramp_ns;
    uint8_t ss_attained;
    double ss_value;              /* the criterion when judged last: max deviation or |slope| */
    double ss_mean;               /* the window's mean IOPS or bytes/s */
    double ss_at_s;               /* phase time it was attained, s */
    uint32_t lat_target_us;       /* latency_target of the phase (0: none), its */
    uint32_t lat_window_us;       /* window and */
    double lat_pct;               /* percentile */
};
#define RESULT_MIX_UNKNOWN UINT32_MAX

struct phase_result {
    char name[PLAN_NAME_MAX];
    enum rw_mode rw;              /* of the phase's first job */
    uint64_t bs;                  /* of the phase's first job */
    uint32_t rwmixread;           /* of the phase's first job when it mixes (rw, randrw);
                                     RESULT_MIX_UNKNOWN in an older result without it */
    uint8_t jobs_differ;          /* its jobs differ in rw, rwmixread or block size, or
                                     its reads' and writes' block sizes differ: no one
                                     cell of the summary table holds its figures */
    uint32_t numjobs;             /* threads per agent, summed over the phase's jobs */
    uint32_t njobs;               /* jobs (sections) in the phase */
    double asked_iops, asked_bps; /* open loop: the fleet's rate its rated jobs asked
                                     (sched_debt.h; a rate sweep's point: its value);
                                     both 0: closed loop */
    uint32_t interval_ms;
    struct agent_phase *agents;   /* [nagents] */
    struct interval_slot *intervals;
    struct counters *spare_agents; /* a sealed slot's dense array, for the next slot */
    uint32_t nintervals;          /* slots allocated and in use */
    /* set by result_phase_finish: */
    int finished;
    struct op_set totals;         /* sum over agents */
    uint64_t duration_ns;         /* longest agent */
    uint64_t start_skew_ns;       /* latest minus earliest agent start, over the
                                     agents that issued ops (never idle or lost ones) */
    uint32_t nstarted;            /* agents the skew is taken over */
    /* verdict inputs (verdict.c) */
    uint8_t ran;                  /* the phase was started (t0 sent) */
    uint8_t interrupted;          /* SIGINT/SIGTERM while it ran (or before it started) */
    uint64_t t0_ns;               /* start instant, coordinator clock (0: unknown) */
    int64_t t0_unix_ms;           /* where interval 0 begins on the wall clock (t0 plus
                                     the phase's ramp_time), ms since the epoch (0:
                                     unknown, an older result): external metrics are
                                     aligned to it (ext_metrics.h) */
    uint64_t error_threshold;     /* failed ops tolerated (count), the largest of its jobs' */
    double error_threshold_pct;   /* or percent of its ops; 0 = the count applies */
    struct result_nfs *nfs;       /* NFS RPC telemetry (result_nfs.h), NULL if none */
    struct phase_end_info ctl;    /* how phase control ended it (phase_ctl.h) */
    struct client_phase *client;  /* agents' CPU, NIC, mountstats (client_result.h), or NULL */
    struct coh_set coh;           /* rw=coherence: every reader's pairs (coherence_report.h) */
    uint8_t coh_never_warn;       /* coherence_never_visible=warn on every coherence job:
                                     a never-visible generation is a warning, not a failure */
    struct result_verify *verify; /* verify= results (result_verify.h); owned;
                                     NULL when no job of the phase verifies */
    struct errcause_set **errors; /* [nagents]: each agent's failed ops by cause
                                     (result_errors.h); owned; NULL until one
                                     arrives, NULL entries for the others */
    struct result_clones *clones; /* each job's and clone's fleet figures
                                     (result_clones.h); owned; NULL until an
                                     agent sends them */
};

struct result_nfs;                /* result_nfs.h */
struct result_view;               /* result.c: one expanded agent total */
struct client_phase;              /* client_result.h */
struct result_verify;             /* result_verify.h */
struct result_clones;             /* result_clones.h */
struct sweep_set;                 /* sweep.h */
struct limits;                    /* limits.h */
struct limits_forecast;           /* limits_model.h */
struct ext_metrics;               /* ext_metrics.h */

struct run_result {
    char label[PLAN_NAME_MAX];
    struct spill *spill;          /* sealed histograms, host samples (spill.h); owned,
                                     made at the first seal */
    int64_t started_unix;         /* wall clock at start, seconds */
    uint64_t run_id;              /* the run's identity (vblock.h), in every verified
                                     block it wrote; 0: not known (an older result) */
    uint32_t nagents;
    struct agent_info *agents;    /* [nagents] */
    uint32_t nphases;
    struct phase_result *phases;  /* [nphases] */
    /* how the run ended (verdict.c) */
    enum run_end end;
    uint32_t end_phase;           /* the phase running when it ended early */
    double end_at_s;              /* when, seconds since the run started */
    char end_text[512];           /* "SIGINT", or the fatal error */
    struct result_view *view;     /* result_agent_totals' expansion, owned */
    struct run_record record;     /* what was run, against what (run_record.h); owned */
    struct sweep_set *sweeps;     /* the run's sweeps, judged (sweep.h); owned; NULL = none */
    /* step detection (changes.h): --change-min-pct, --change-min-intervals,
     * kept in the JSON result ("change_detection"); 0: the defaults */
    double change_min_pct;
    uint32_t change_min_intervals;
    /* --limits (limits.h), its forecast (limits_model.h) and --metrics
     * (ext_metrics.h): set by the CLI for the renderers; not owned, NULL = none */
    const struct limits *limits;
    const struct limits_forecast *forecast;
    const struct ext_metrics *metrics;
};

/* The run's spill file (spill.h), made on first use; freed by result_free. */
struct spill *result_spill(struct run_result *r);

/* Lay out a result for plan on nagents agents; agent infos zeroed. */
void result_init(struct run_result *r, const struct plan *p, uint32_t nagents, uint32_t interval_ms);
void result_free(struct run_result *r);

/* Add one agent's interval k of phase: merged[k] += s, agent counters too.
 * Grows the interval array as needed; -EINVAL if phase/agent out of range
 * or k beyond RESULT_MAX_INTERVALS.  Works on a sealed slot too (late data,
 * journal replay): the slot is expanded, added to and sealed again, exactly. */
#define RESULT_MAX_INTERVALS (7u * 24 * 3600)
int result_add_interval(struct run_result *r, uint32_t phase, uint32_t agent,
                        uint32_t k, const struct op_set *s);
/* Add latency only to merged interval k of phase: its histograms (lat,
 * svc) += s's; s's counters must be 0 and no report is counted.  The
 * journal's compact form replays this way: per-agent counters on arrival,
 * the merged histograms once per interval (journal.c).  -EINVAL like
 * result_add_interval, also when s carries counters. */
int result_add_interval_latency(struct run_result *r, uint32_t phase, uint32_t k, const struct op_set *s);
/* Interval k of phase is complete: drop its dense form for the compact one.
 * Lossless; no-op when out of range or already sealed. */
void result_interval_seal(struct run_result *r, uint32_t phase, uint32_t k);
/* Agent a's counters of interval k of phase into *out (zeroes when k or a
 * is out of range).  Cheap on a sealed slot too (agent_pack_get). */
void result_interval_agent(const struct run_result *r, uint32_t phase, uint32_t k, uint32_t a,
                           struct counters *out);
/* The same from a slot: agent a (< the run's nagents) into *out, or all
 * nagents of them into out[0..nagents) (one pass, for loops over agents). */
void result_slot_agent(const struct interval_slot *slot, uint32_t a, struct counters *out);
void result_slot_agents(const struct interval_slot *slot, uint32_t nagents, struct counters *out);
/* Dense views of merged interval k (k < nintervals).  Each expands the
 * pending (chunked) or sealed form into the caller's scratch and returns
 * scratch (an op_set is ~440 KB: allocate it once per report, on the
 * heap).  The pointer is valid until the next change to scratch. */
const struct op_set *result_interval_ops(const struct run_result *r, uint32_t phase, uint32_t k,
                                         struct op_set *scratch);
/* The same for one op type (expands ~40 KB, not 400). */
const struct op_stats *result_interval_op(const struct run_result *r, uint32_t phase, uint32_t k,
                                          enum op_type t, struct op_stats *scratch);
/* result_all_ops of interval k's merged op_set, without expanding it. */
void result_interval_all(const struct run_result *r, uint32_t phase, uint32_t k, struct op_stats *out);
/* Ops outstanding on an agent when its interval k closed (stall detection). */
void result_set_interval_inflight(struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k,
                                  uint32_t inflight, uint64_t oldest_ns);
/* A stall is no op completing for much longer than the ops in flight should
 * take at the phase's recent pace, not a fixed age: 32 MiB ops that take
 * 2.3 s each on a slow, healthy server are not stalled at 1 s.  The limit
 * for agent's ops at the end of interval k is STALL_FACTOR times their
 * expected time (bytes outstanding / the agent's bandwidth over the
 * STALL_WINDOW intervals before k, else over its whole phase), at least one
 * interval (the floor); when the agent completed nothing in the phase
 * there is no pace, and the limit is STALL_UNKNOWN_FLOORS intervals. */
#define STALL_WINDOW 10
#define STALL_FACTOR 4
#define STALL_UNKNOWN_FLOORS 4
uint64_t result_stall_limit_ns(const struct run_result *r, uint32_t phase, uint32_t agent, uint32_t k);
/* Stall seen in interval k: 0 none; otherwise how many live agents had an op
 * outstanding longer than their stall limit (above) and completed no op in k
 * (slow ops that keep completing are load, not a stall), *age_ns the
 * longest age. */
uint32_t result_interval_stalled(const struct run_result *r, uint32_t phase, uint32_t k, uint64_t *age_ns);
/* The least stall limit of the agents stalled in interval k (UINT64_MAX:
 * none), for saying what the silence was measured against. */
uint64_t result_interval_stall_limit(const struct run_result *r, uint32_t phase, uint32_t k);
/* 1 when interval k is a server stall: no op completed on any agent in it
 * while ops were outstanding longer than their stall limit. */
int result_interval_fleet_stalled(const struct run_result *r, uint32_t phase, uint32_t k);
/* A phase whose ops are so long against its duration that each thread
 * completed about one op (the mean op latency is more than half the
 * phase's duration): its latency and throughput are a sample of *ops ops
 * from *threads threads (the phase's threads on its participating agents),
 * *mean_ns their mean latency.  1 when so, else 0 (outputs untouched). */
int result_phase_thin_sample(const struct run_result *r, uint32_t phase, uint64_t *ops,
                             uint64_t *threads, uint64_t *mean_ns);
/* Record an agent's phase: ap's scalars (its `sealed`, `error` and `storage` are
 * ignored) and its totals, kept sealed (ap->salvaged: from its intervals,
 * no phase-done).  The agent's error text already set is kept.  Marks the
 * agent done. */
int result_set_agent_phase(struct run_result *r, uint32_t phase, uint32_t agent,
                           const struct agent_phase *ap, const struct op_set *totals);
/* The sealed form of an op_set, for modules that keep totals as the
 * result does: seal s into dst (empty on entry), add a sealed form to a
 * dense op_set (as op_set_merge would), free one. */
void result_seal(struct op_set_sealed *dst, const struct op_set *s);
void result_sealed_merge(struct op_set *dst, const struct op_set_sealed *sd);
void result_sealed_free(struct op_set_sealed *sd);
/* Agent's totals of phase as an op_set, expanded from the sealed form into
 * a buffer the result owns (one, ~400 KB, made on first use): the pointer
 * is valid until the next result_agent_totals or change to the result.
 * phase and agent must be in range; a blank op_set if the agent is not done. */
const struct op_set *result_agent_totals(const struct run_result *r, uint32_t phase, uint32_t agent);
/* 1 when the agent's totals hold no op (op_set_empty of them, without
 * expanding).  Counters alone need no expansion either:
 * ap->sealed.count[t].ops, .bytes, .errors, .timeouts. */
int result_agent_empty(const struct agent_phase *ap);
/* The agent reported an error in this phase (its text, copied and cleaned
 * by result_clean_text; a second one is appended after "; ", up to
 * RESULT_ERROR_MAX bytes in all, more is dropped).  -EINVAL if out of range. */
#define RESULT_ERROR_MAX 2048
int result_set_agent_error(struct run_result *r, uint32_t phase, uint32_t agent, const char *text);
/* Make text from the network safe to print and to store as a JSON string:
 * control and non-ASCII bytes become '?'.  In place. */
void result_clean_text(char *text);
/* The same for text a person gave (--label, --target, the command line):
 * well-formed UTF-8 stays (labels in any script), control bytes, C1
 * controls, bidirectional overrides and malformed bytes become '?'.  The
 * result is valid UTF-8 (a JSON string).  In place; idempotent, and a
 * no-op on result_clean_text's output. */
void result_clean_utf8(char *text);
/* The run was cut short (the coordinator died: a journal without its end,
 * a torn last line): r->end becomes RUN_END_INTERRUPTED with why as its
 * text (unless an end is already known); each phase that ran but did not
 * finish is marked interrupted (the last one that ran when all finished), so
 * its verdict says "cut short" (partial, exit 3) and what came later says
 * "not run".  Phases whose end was recorded keep their own verdicts. */
void result_cut_short(struct run_result *r, const char *why);
/* 1 when some phase of r was started (ran). */
int result_any_phase_ran(const struct run_result *r);
/* Sum agents into the phase totals, duration and skew; seals every
 * interval of the phase. */
void result_phase_finish(struct run_result *r, uint32_t phase);

/* Derived figures used by every reporter.  Throughput counts successful
 * ops only (ops - errors): a failed op moved nothing. */
double result_iops(const struct op_stats *o, uint64_t duration_ns);
double result_bw(const struct op_stats *o, uint64_t duration_ns);   /* bytes/s */
/* Successful ops of o (ops - errors, never below 0). */
uint64_t result_ok_ops(const struct op_stats *o);
/* The same for a pair of counters (errors above ops, as a peer may send,
 * give 0, never a wrapped count). */
static inline uint64_t result_ok_count(uint64_t ops, uint64_t errors)
{
    return ops > errors ? ops - errors : 0;
}
/* 1 when an agent used >= 90% of its cores during the phase. */
int result_agent_client_bound(const struct agent_phase *ap);

/* Sum of every op type of s but OP_SYNC (flushes are no load of their
 * own) into one op_stats (counts and latency). */
void result_all_ops(const struct op_set *s, struct op_stats *out);


/* Reporters. unit_base: 1024 (IEC, default) or 1000 (SI). */
void report_text(FILE *out, const struct run_result *r, int unit_base);
/* The same with --agent-rows: a row per agent up to agent_rows agents
 * (0: FLEET_ROWS_DEFAULT, FLEET_ROWS_ALL: always), beyond them per phase
 * the fleet view (docs/reports.md); report_text is agent_rows 0. */
void report_text_rows(FILE *out, const struct run_result *r, int unit_base, uint32_t rows);
/* Write the JSON result (schema in docs/results.md) atomically: a temp file
 * in the same directory renamed into place.  0 or -errno. */
int report_json_write(const char *path, const struct run_result *r);

#endif
