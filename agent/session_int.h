/* session_int: the parts of one agent session (agent/session.h) that its
 * two files share.  session.c keeps the connection's life: accepting and
 * dialling, the handshake, heartbeats and the lease, waiting behind another
 * session, ending and freeing.  session_run.c keeps what a served
 * coordinator asks for: the plan, each phase prepared, started, sampled
 * and finished, stops and cleans.  Loop thread only, except where a field
 * says otherwise. */
#ifndef NFSTORM_SESSION_INT_H
#define NFSTORM_SESSION_INT_H

#include <stdatomic.h>
#include <sys/resource.h>
#include <uv.h>
#include "agent/client_sampler.h"
#include "agent/phase.h"
#include "agent/session.h"
#include "agent/session_state.h"
#include "net/peer.h"
#include "proto/frame.h"
#include "proto/msg.h"

struct session {
    struct peer conn;          /* first: the peer layer's callbacks get the session */
    struct agent *agent;
    uv_timer_t sampler;
    uv_timer_t tick;          /* hello deadline, then heartbeats and the lease */
    uv_async_t finished;
    uv_work_t work;
    struct session_state st;  /* agent/session_state.h: one value, checked */
    int open_handles;
    char *clean_pending;      /* a clean frame that arrived while WAITING */
    size_t clean_pending_n;
    atomic_int clean_cancel;  /* set when the session ends: the clean stops */
    char peer[64];
    int served;               /* it became the active session (a->session_freed) */
    char end_why[160];        /* why it ended, first reason (a->session_freed) */
    int indexed;              /* id.index came from an admitted plan */
    uint64_t accepted_ns;
    uint64_t waiting_since_ns;
    uint64_t last_tick_ns;          /* on_tick's last run, or when it was started */
    unsigned char anonce[AUTH_NONCE_LEN];
    unsigned char cnonce[AUTH_NONCE_LEN];

    struct msg_plan plan;     /* held while session_state_has_plan */
    struct agent_identity id;
    uint32_t phase;
    struct phase_run run;     /* st.phase says what of it exists */
    int phase_rc;             /* the phase's first job error */
    int work_rc;
    char work_err[PHASE_ERR_MAX];

    uint64_t t0_ns, interval_ns, ramp_ns;
    int in_ramp;
    uint32_t k;
    struct op_set *acc;       /* this interval */
    struct op_set *totals;    /* this phase: sum of intervals sent */
    struct errcause_set *causes_acc;     /* this interval's failed ops by cause */
    struct errcause_set *causes;         /* this phase's: sum of the intervals sent */
    struct nfs_rpc_set nfs_acc, nfs_totals;   /* nfs RPC telemetry, as acc/totals */
    struct rusage ru0;
    struct client_sampler cs; /* this phase's CPU, NIC, mountstats */
};

/* session.c: send one encoded frame (takes b; dropped once the session
 * ends); send an error text prefixed with this agent's name; end the
 * session (stops its phase; freed when nothing refers to it); free it if
 * nothing refers to it any more. */
void session_send(struct session *s, struct buf *b);
void session_send_error(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_end(struct session *s, const char *why);
void session_maybe_free(struct session *s);
/* A frame's decoder returned rc (err: its text): 1 when it decoded, else
 * the session ends with err (a coordinator that sends a broken message is
 * not trusted further) and 0. */
int session_decoded(struct session *s, int rc, const char *err);

/* session_run.c: the run's messages (one handler each, for session.c's
 * table); a plan decoded into s->plan, the agent ours: check it and start;
 * a clean request; the phase's job threads all ended (s->finished's
 * callback); join and tear the phase down off the loop. */
void session_on_plan(struct session *s, const struct msg_frame *f);
void session_on_start(struct session *s, const struct msg_frame *f);
void session_on_clean(struct session *s, const struct msg_frame *f);
void session_on_stop(struct session *s, const struct msg_frame *f);
void session_on_phase_end(struct session *s, const struct msg_frame *f);
void session_run_plan(struct session *s);
void session_run_clean(struct session *s, const struct msg_frame *f);
void session_on_finished(uv_async_t *h);
void session_finish_phase(struct session *s);

#endif
