/* session_state: the rules between a session's state parts (see
 * session_state.h).  Each rule is one line and says what it protects. */
#include <stdlib.h>
#include "agent/session_state.h"
#include "common/log.h"

int session_state_has_plan(const struct session_state *st)
{
    return st->run == RUN_PENDING || st->run == RUN_ON || st->run == RUN_STOPPING;
}

int session_state_check(const struct session_state *st, const char **why)
{
    int phased = st->talk >= S_PREPARING;     /* PREPARING, READY, RUNNING, FINISHING */
    int quiet = st->talk == S_HELLO || st->talk == S_AUTH || st->talk == S_WAITING;
    int ending = st->life != LIFE_OPEN;

#define RULE(ok, text) if (!(ok)) { *why = text; return -1; }
    RULE(st->work != WORK_PREPARE || (st->talk == S_PREPARING && st->phase == PH_LIVE),
         "a prepare is queued only for a live phase while PREPARING");
    RULE(st->work != WORK_FINISH || (st->talk == S_FINISHING && st->phase == PH_PREPARED),
         "a finish is queued only for a prepared phase while FINISHING");
    RULE(st->phase != PH_LIVE || st->work == WORK_PREPARE,
         "a phase not yet prepared has its prepare queued");
    RULE(st->phase != PH_PREPARED || st->talk == S_READY || st->talk == S_RUNNING ||
         st->talk == S_FINISHING, "a prepared phase exists only from READY to FINISHING");
    RULE(!(st->talk == S_READY || st->talk == S_RUNNING) || st->phase == PH_PREPARED,
         "READY and RUNNING hold a prepared phase");
    RULE(!(st->talk == S_PREPARING || st->talk == S_FINISHING) || st->work != WORK_NONE ||
         (ending && st->phase == PH_NONE),
         "PREPARING and FINISHING have their work queued, unless the session ended");
    RULE(!phased || st->run == RUN_ON || st->run == RUN_STOPPING,
         "a phase runs only for an admitted plan");
    RULE(phased || !(st->run == RUN_ON || st->run == RUN_STOPPING),
         "an admitted plan is in a phase until it is over");
    RULE(st->run != RUN_PENDING || st->talk == S_WAITING, "a plan is pending only while WAITING");
    RULE(!quiet || st->run == RUN_NONE || st->run == RUN_PENDING,
         "no run before the session is served");
    RULE(st->link != LINK_DIALLING || st->talk == S_HELLO, "nothing is said before the connect");
    RULE(st->life != LIFE_CLOSED || (st->work == WORK_NONE && st->phase == PH_NONE &&
                                     st->talk != S_RUNNING && st->talk != S_CLEANING),
         "handles close only once no work, phase, job thread or clean remains");
#undef RULE
    return 0;
}

void session_state_assert(const struct session_state *st)
{
    /* tests and fuzzing build sanitized or unoptimized: a broken rule
     * stops them there; a release agent says so, once, and serves on */
    static int told;
    int fatal = 0;
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
    fatal = 1;
#endif
    const char *why;
    if (session_state_check(st, &why) == 0 || (!fatal && told++))
        return;
    log_msg(fatal ? LOG_ERROR : LOG_WARN, "session state: talk %d life %d work %d phase %d run %d link %d: %s",
            st->talk, st->life, st->work, st->phase, st->run, st->link, why);
    if (fatal)
        abort();
}
