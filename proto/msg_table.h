/* msg_table: the message table, one row per message coded from a field
 * table (as common/engine_table.h lists the engines).
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
 * A new message: its enum value and name (msg.h, msg_type_name), its
 * struct, a field table in msg.c, one row here, and its keys in
 * docs/protocol.md and tests/unit/test_msg_contract.c.  Messages that
 * carry what a field table cannot (variable-length bytes, arrays of
 * pairs) have a codec of their own that takes a parsed frame all the same:
 * proto/pool_msg.h, proto/coh_msg.h. */
#ifndef NFSTORM_MSG_TABLE_H
#define NFSTORM_MSG_TABLE_H

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
