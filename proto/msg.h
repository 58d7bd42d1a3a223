/* msg: every control message, and one encode/decode pair per type.
 *
 * A message is a msgpack map with string keys; "type" (a string) and, in
 * hello/welcome, "version" are always present.  Decoders ignore unknown keys,
 * reject missing required keys and values of the wrong type or out of range,
 * and never trust a count from the wire for an allocation without a cap.
 *
 * A payload is unpacked once (msg_parse): the receiver dispatches on the
 * frame's type and hands the frame to that type's decoder, which reads the
 * values from the already unpacked map.  Every message coded from a field
 * table is one row of proto/msg_table.h, which generates its pair:
 *     void msg_NAME_encode(struct buf *out, const struct msg_STRUCT *m);
 *         appends one complete frame (header + payload) to out;
 *     int  msg_NAME_decode(const struct msg_frame *f, struct msg_STRUCT *m,
 *                          char *err, size_t errlen);
 *         0 on success; -EBADMSG with a one-line reason in err on anything
 *         malformed or when f is another type ("NAME: got a 'x' message").
 * See docs/protocol.md for the conversation. */
#ifndef NFSTORM_MSG_H
#define NFSTORM_MSG_H

#include <stdint.h>
#include <stddef.h>
#include "common/client_stats.h"
#include "common/clone_set.h"
#include "common/errcause.h"
#include "common/plan.h"
#include "common/nfs_rpc.h"
#include "common/stats.h"
#include "common/storage.h"
#include "common/vstats.h"
#include "proto/auth.h"
#include "proto/frame.h"

#define PROTO_VERSION 5
#define MSG_TEXT_MAX  512     /* error text, host names */
#define MSG_SYS_MAX   128     /* kernel release, CPU model */
#define MSG_LABELS_MAX 256    /* an agent's labels, comma-separated */
/* The largest frame a coordinator takes from an agent once it is welcomed:
 * an op_set with every histogram bucket used (per op type two histograms
 * of HIST_NBUCKETS index/count pairs of at most 14 bytes), plus headroom
 * for the keys.  An agent keeps its optional per-thread figures ("clones")
 * out of a message they would push past it. */
#define MSG_AGENT_FRAME_MAX ((uint32_t)OP__COUNT * 2 * HIST_NBUCKETS * 14 + (64u << 10))

#include "proto/msg_table.h"

enum msg_type {
    MSG__NONE,         /* 0: not a message type */
#define MSG_ENUM(type, wire) type,
    MSG_TYPES(MSG_ENUM)
#undef MSG_ENUM
    MSG__COUNT
};

const char *msg_type_name(enum msg_type t);   /* "hello", "phase-done", ... */

/* One payload, unpacked once.  payload/len are the bytes given to
 * msg_parse (string and binary values point into them: they must outlive
 * the frame); root and zone are proto/'s (the unpacked map and its
 * storage).  Free with msg_frame_free, also after a failed parse. */
struct msgpack_object;
struct msgpack_zone;
struct msg_frame {
    enum msg_type type;
    const char *payload;
    size_t len;
    const struct msgpack_object *root;
    struct msgpack_zone *zone;
};
/* Check the payload's bytes against every bound (no count beyond the bytes
 * left, no truncation, no trailing bytes, at most a few million objects:
 * what msgpack-c allocates stays a small multiple of len), unpack it once,
 * and read its "type".  The type (> 0), or -EBADMSG with a one-line reason
 * ("message: ...") in err. */
int msg_parse(const char *payload, size_t len, struct msg_frame *f, char *err, size_t errlen);
void msg_frame_free(struct msg_frame *f);
/* A receiver's frame loop in one call: msg_parse the payload, hand fn the
 * frame and its type (or < 0 with why, the frame then without a root),
 * free the frame. */
typedef void (*msg_frame_fn)(void *arg, const struct msg_frame *f, int type, const char *why);
void msg_dispatch(const char *payload, size_t len, msg_frame_fn fn, void *arg);

struct msg_hello {           /* coordinator -> agent */
    uint32_t version;
    unsigned char nonce[AUTH_NONCE_LEN];   /* fresh per connection */
};
struct msg_welcome {         /* agent -> coordinator */
    uint32_t version;
    char host[MSG_TEXT_MAX];  /* agent's host name */
    uint32_t ncpus;
    uint32_t pid;
    int auth;                 /* 1: the agent authenticates (nonce, mac set);
                                 0: it runs --insecure */
    unsigned char nonce[AUTH_NONCE_LEN];
    unsigned char mac[AUTH_MAC_LEN];        /* the agent's proof */
    /* the agent's --label list, comma-separated ("" when none; optional on
     * the wire: an agent without labels, or an older one, omits nothing
     * a coordinator needs).  The coordinator validates it (msg_labels_check). */
    char labels[MSG_LABELS_MAX];
};
/* system: sent once the coordinator authenticated (not to strangers: a
 * kernel release helps an attacker), before any pong. */
struct msg_system {
    char kernel[MSG_SYS_MAX];     /* uname -r */
    char cpu_model[MSG_SYS_MAX];  /* /proc/cpuinfo "model name", or "" */
    uint64_t mem_bytes;           /* MemTotal, or 0 */
    /* optional, sent only when set: the coordinator whose run this agent is
     * still winding down (a preparation stuck in a storage call); this one
     * is served when it ends */
    char waiting_for[MSG_SYS_MAX];
};
struct msg_progress {
    uint32_t phase;
    uint64_t done_bytes;      /* laid out (or already present) so far */
    uint64_t total_bytes;     /* to lay out before the phase can start */
};
struct msg_auth {            /* coordinator -> agent */
    unsigned char mac[AUTH_MAC_LEN];        /* the coordinator's proof */
};
struct msg_plan {
    uint32_t agent_index;     /* this agent's ${agent} */
    uint32_t nagents;
    uint32_t interval_ms;     /* stats interval */
    uint64_t run_id;          /* the run's identity (common/vblock.h); 0: not sent */
    uint64_t run_ms;          /* the coordinator's wall clock at the run's start, ms
                                 since the epoch: every agent's generations */
    struct plan plan;         /* decode: owned by the message; free with msg_plan_free */
};
/* clean: a struct msg_plan (the plan whose files go, this agent's index and
 * the agent count; interval_ms unused), sent instead of a plan. */
struct msg_cleaned {
    uint64_t files;           /* regular files removed */
    uint64_t bytes;           /* their sizes, summed */
    uint32_t skipped;         /* jobs whose files this agent cannot remove (nfs) */
    char note[MSG_TEXT_MAX];  /* the first thing left alone and why, or "" */
    uint64_t others;          /* optional; when it removed nothing: bit k set when files the
                                 plan names for agent index k (not this agent's, k < 64) are
                                 there, so the coordinator can say why nothing matched */
};
struct msg_ready {
    uint32_t phase;
};
/* storage: one place phase's jobs do I/O on (deduplicated by the agent, at
 * most STORAGE_PER_PHASE_MAX per phase), sent after preparing, before
 * ready. */
struct msg_storage {
    uint32_t phase;
    struct storage_info info;
};
struct msg_start {
    uint32_t phase;
    uint64_t t0_ns;           /* in the agent's CLOCK_MONOTONIC */
    /* a sweep point (coordinator/run/sweep.h), optional: the per-thread rate every
     * job of the phase runs at instead of its plan's (0 = the plan's), and
     * skip=1 for a point the search no longer needs (the phase ends without I/O) */
    uint64_t rate_iops;
    uint64_t rate_bps;
    uint32_t skip;
    /* optional: 1 when the coordinator writes fio logs of the phase: the
     * agent then sends each thread's ops in every interval ("clones") */
    uint32_t clones;
    /* a searched sweep=iodepth / numjobs point (optional, 0 = the plan's):
     * the phase was laid out at sweep_max; every job keeps at most depth
     * ops in flight per thread, and runs only its first threads threads
     * (the others end without I/O) */
    uint32_t depth;
    uint32_t threads;
};
struct msg_interval {
    uint32_t phase;
    uint32_t index;           /* k: covers [t0 + k*interval, t0 + (k+1)*interval) */
    uint32_t inflight;        /* ops outstanding when the interval closed */
    uint64_t oldest_ns;       /* age of the oldest of them (0 if none) */
    struct op_set stats;      /* on the wire: only op types with ops, histograms as runs (hist_codec.h) */
    /* nfs engine's RPC telemetry of the interval (optional on the wire: sent
     * when not empty).  Decode allocates: msg_interval_free. */
    struct nfs_rpc_set nfs;
    /* the agent's CPU, NIC and mountstats over the interval (optional on
     * the wire: "host", "mountstats"; zeroed, present 0, when absent) */
    struct client_sample client;
    /* each thread's ops of the interval (optional: sent only for a phase
     * whose jobs write fio logs, of at most CLONE_SET_MAX threads on the
     * agent; runtime_ns 0).  Decode allocates: msg_interval_free. */
    struct clone_set clones;
};
struct msg_phase_done {
    uint32_t phase;
    uint64_t started_ns;      /* agent clock: when I/O actually began */
    uint64_t duration_ns;     /* measured phase time (after ramp) */
    double cpu_user_s;
    double cpu_sys_s;
    uint32_t cores;
    uint32_t nintervals;      /* intervals sent for this phase */
    struct op_set totals;     /* == sum of this phase's intervals */
    struct nfs_rpc_set nfs;   /* == sum of the intervals' (optional, as there);
                                 decode allocates: msg_phase_done_free */
    /* latency_target (optional, sent when not 0): the depth its search
     * found, or lat_unmet 1 when even depth 1 missed the target */
    uint32_t lat_depth;
    uint32_t lat_unmet;
    /* schedule debt of the rated jobs (optional): ops issued later than due
     * by more than one gap of their rate, after ramp_time, and their summed
     * lateness, ns */
    uint64_t late_ops;
    uint64_t late_ns;
    struct client_sample client;  /* == sum of the intervals' (optional, as there) */
    struct vstats verify;     /* what verification found (verify.on = 0: the
                                 phase did not verify; then not on the wire) */
    struct errcause_set errors;  /* why its failed ops failed (optional: sent
                                 when some op failed); the causes' counts of
                                 an op type sum to its totals' errors */
    /* each thread's totals (optional: sent for a phase of at most
     * CLONE_SET_MAX threads on the agent); their sum is totals.  Decode
     * allocates: msg_phase_done_free. */
    struct clone_set clones;
};
struct msg_stop {
    char reason[MSG_TEXT_MAX];
};
/* phase-end: the coordinator decided the running phase is over (fio's
 * exitall on another agent, steady state reached).  The agent stops that
 * phase's jobs as at the end of their runtime, sends its phase-done and
 * goes on with the next phase; for any other phase (one already over) it
 * does nothing. */
struct msg_phase_end {
    uint32_t phase;
    char reason[MSG_TEXT_MAX];
};
struct msg_error {
    char text[MSG_TEXT_MAX];
    /* decode: the sender's PROTO_VERSION when it refuses the peer's
     * version, else 0 (optional on the wire; older peers never send it).
     * Sent only by msg_error_refusal_encode: msg_error_encode ignores it. */
    uint32_t version;
};
struct msg_ping {
    uint64_t seq;
    uint64_t t_ns;            /* sender's clock */
};
struct msg_pong {
    uint64_t seq;
    uint64_t t_ping_ns;       /* echoed from the ping */
    uint64_t t_ns;            /* replier's clock when it answered */
};

#define MSG_PROTOS(name, st, type, fields, check, enc)                                            \
    void msg_##name##_encode(struct buf *out, const struct st *m);                                 \
    int msg_##name##_decode(const struct msg_frame *f, struct st *m, char *err, size_t errlen);
MSG_TABLE(MSG_PROTOS)
#undef MSG_PROTOS

/* Decode f into m, the struct of f's row in the message table (a
 * struct msg_plan for clean): 0, or -EBADMSG when malformed or f's type
 * has no row (the pool messages, coherence: their own modules). */
int msg_decode(const struct msg_frame *f, void *m, char *err, size_t errlen);
/* error: encode sends the text only; a refusal also its version. */
void msg_error_refusal_encode(struct buf *out, const struct msg_error *m);
/* Release what a successful decode allocated (plan, nfs telemetry, clones). */
void msg_plan_free(struct msg_plan *m);
void msg_interval_free(struct msg_interval *m);
void msg_phase_done_free(struct msg_phase_done *m);
/* 0 when labels is "" or "NAME[,NAME...]" with each NAME 1..63 bytes of
 * [A-Za-z0-9_.-]; else -EINVAL and a one-line reason in err. */
int  msg_labels_check(const char *labels, char *err, size_t errlen);

#endif
