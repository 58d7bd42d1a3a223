/* msg_table: the message tables (as common/engine_table.h lists the
 * engines).
 *
 * MSG_TYPES lists every message, in the order of enum msg_type (proto/msg.h
 * generates the enum from it, msg.c msg_type_name):
 *
 *   X(type, wire)
 *
 * type    its enum msg_type;
 * wire    its "type" on the wire.
 *
 * MSG_TABLE has one row per message coded from a field table:
 *
 *   X(name, struct, type, fields, check, enc)
 *
 * name    gives msg_<name>_encode and msg_<name>_decode (proto/msg.h);
 * struct  the C struct both take;
 * type    its enum msg_type;
 * fields  its wire keys: a struct field[] in proto/msg.c;
 * check   a rule across fields run after a successful decode (a
 *         function in msg.c), or NONE;
 * enc     GEN: encode walks fields; OWN: msg.c writes encode by hand.
 *
 * A new message: a row of MSG_TYPES, its struct, a field table in msg.c,
 * one row of MSG_TABLE, and its keys in docs/protocol.md and
 * tests/unit/test_msg_contract.c.  Messages that carry what a field table
 * cannot (variable-length bytes, arrays of pairs) are rows of MSG_TYPES
 * only, with a codec of their own that takes a parsed frame all the same:
 * proto/pool_msg.h, proto/coh_msg.h. */
#ifndef NFSTORM_MSG_TABLE_H
#define NFSTORM_MSG_TABLE_H

#define MSG_TYPES(X)                                                                    \
    X(MSG_HELLO, "hello")            /* coordinator -> agent: first message */          \
    X(MSG_WELCOME, "welcome")        /* agent -> coordinator: reply to hello */         \
    X(MSG_PLAN, "plan")              /* coordinator -> agent */                         \
    X(MSG_READY, "ready")            /* agent -> coordinator: phase laid out, checked */ \
    X(MSG_START, "start")            /* coordinator -> agent: start phase at t0 (agent clock) */ \
    X(MSG_INTERVAL, "interval")      /* agent -> coordinator: stats of one interval */  \
    X(MSG_PHASE_DONE, "phase-done")  /* agent -> coordinator: totals of one phase */    \
    X(MSG_STOP, "stop")              /* coordinator -> agent: abort the run */          \
    X(MSG_ERROR, "error")            /* either way: fatal for the run, with a reason */ \
    X(MSG_PING, "ping")              /* either way */                                   \
    X(MSG_PONG, "pong")                                                                 \
    X(MSG_AUTH, "auth")              /* coordinator -> agent: its proof, after welcome */ \
    X(MSG_PROGRESS, "progress")      /* agent -> coordinator: layout progress while preparing */ \
    X(MSG_CLEAN, "clean")            /* coordinator -> agent: remove the files a plan lays out */ \
    X(MSG_CLEANED, "cleaned")        /* agent -> coordinator: what it removed */        \
    X(MSG_STORAGE, "storage")        /* agent -> coordinator: where a phase's jobs do I/O, before ready */ \
    X(MSG_SYSTEM, "system")          /* agent -> coordinator: its machine, once authenticated */ \
    X(MSG_SUBMIT, "submit")          /* submitter -> nfstorm serve: a run (proto/pool_msg.h) */ \
    X(MSG_BUSY, "busy")              /* serve -> submitter: another run holds the pool */ \
    X(MSG_OUTPUT, "output")          /* serve -> submitter: the run's stdout, stderr, files */ \
    X(MSG_EXIT, "exit")              /* serve -> submitter: the run's exit status */    \
    X(MSG_PHASE_END, "phase-end")    /* coordinator -> agent: end the running phase now, the run goes on */ \
    X(MSG_COHERENCE, "coherence")    /* agent -> coordinator: rw=coherence lags (proto/coh_msg.h) */

#define MSG_TABLE(X)                                                            \
    X(hello, msg_hello, MSG_HELLO, hello_fields, NONE, GEN)                     \
    X(welcome, msg_welcome, MSG_WELCOME, welcome_fields, NONE, GEN)             \
    X(plan, msg_plan, MSG_PLAN, plan_fields, plan_check, GEN)                   \
    X(ready, msg_ready, MSG_READY, ready_fields, NONE, GEN)                     \
    X(start, msg_start, MSG_START, start_fields, NONE, GEN)                     \
    X(interval, msg_interval, MSG_INTERVAL, interval_fields, NONE, GEN)         \
    X(phase_done, msg_phase_done, MSG_PHASE_DONE, phase_done_fields, NONE, GEN) \
    X(stop, msg_stop, MSG_STOP, stop_fields, NONE, GEN)                         \
    X(error, msg_error, MSG_ERROR, error_fields, NONE, OWN)                     \
    X(ping, msg_ping, MSG_PING, ping_fields, NONE, GEN)                         \
    X(pong, msg_pong, MSG_PONG, pong_fields, NONE, GEN)                         \
    X(auth, msg_auth, MSG_AUTH, auth_fields, NONE, GEN)                         \
    X(progress, msg_progress, MSG_PROGRESS, progress_fields, NONE, GEN)         \
    X(clean, msg_plan, MSG_CLEAN, plan_fields, plan_check, GEN)                 \
    X(cleaned, msg_cleaned, MSG_CLEANED, cleaned_fields, NONE, GEN)             \
    X(storage, msg_storage, MSG_STORAGE, storage_fields, NONE, GEN)             \
    X(system, msg_system, MSG_SYSTEM, system_fields, NONE, GEN)                 \
    X(phase_end, msg_phase_end, MSG_PHASE_END, phase_end_fields, NONE, GEN)

#endif
