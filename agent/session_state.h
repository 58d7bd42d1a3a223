/* session_state: what one agent session is doing, as a few small enums
 * instead of a heap of int flags, and the one check of which combinations
 * can exist (session_state_check).
 *
 * talk is the conversation with the coordinator (the diagram atop
 * agent/session.c); life says whether the session is ending; work is the
 * one job it has on libuv's thread pool; phase is the phase_run it holds;
 * run is where its plan stands; link is how the connection was made.  Each
 * part alone is plain; what the check pins down is how they go together
 * (a prepare is queued only while PREPARING, a prepared phase exists only
 * from READY to FINISHING, a plan waits only while WAITING, ...).  The
 * session calls session_state_assert after every change. */
#ifndef NFSTORM_SESSION_STATE_H
#define NFSTORM_SESSION_STATE_H

enum session_talk { S_HELLO, S_AUTH, S_WAITING, S_IDLE, S_CLEANING, S_PREPARING, S_READY,
                    S_RUNNING, S_FINISHING };
enum session_life {
    LIFE_OPEN,
    LIFE_ENDING,    /* ended: waits for its work, job threads and clean */
    LIFE_CLOSED,    /* its handles are closing: freed when the last one is */
};
enum session_work { WORK_NONE, WORK_PREPARE, WORK_FINISH };   /* queued on the thread pool */
enum session_phase {
    PH_NONE,
    PH_LIVE,        /* phase_init done, phase_prepare not over */
    PH_PREPARED,    /* phase_prepare succeeded, phase_finish not done */
};
enum session_run {
    RUN_NONE,       /* no plan yet */
    RUN_PENDING,    /* a plan decoded while WAITING: served when the agent is ours */
    RUN_ON,         /* a plan admitted and running its phases */
    RUN_STOPPING,   /* ... and the coordinator asked it to stop */
    RUN_OVER,       /* its plan is done: a new coordinator may take over */
};
enum session_link {
    LINK_ACCEPTED,
    LINK_DIALLING,  /* session_dial, not connected yet */
    LINK_DIALLED,   /* dialled: why it ended is dial.c's to log */
};

struct session_state {
    enum session_talk talk;
    enum session_life life;
    enum session_work work;
    enum session_phase phase;
    enum session_run run;
    enum session_link link;
};

/* 0 when st is a combination the session can be in; else -1 and *why
 * (static text) names the rule it breaks. */
int session_state_check(const struct session_state *st, const char **why);

/* session_state_check on the loop thread after a change: a broken rule
 * aborts in a sanitized or unoptimized build (tests, fuzzing); a release
 * agent logs it, once, and carries on. */
void session_state_assert(const struct session_state *st);

/* The plan decoded into the session (held until the run is over). */
int session_state_has_plan(const struct session_state *st);

#endif
