/* test_session_state: the one check of a session's state parts
 * (agent/session_state.h).  Every state a session passes through on its
 * real paths (served, waiting, dialled, stopped, refused, hung up in each
 * phase) passes; combinations nothing can reach are caught, each by the
 * rule that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "agent/session_state.h"

#define ST(t, l, w, p, r, k) { S_##t, LIFE_##l, WORK_##w, PH_##p, RUN_##r, LINK_##k }

static void assert_path(const struct session_state *path, size_t n)
{
    const char *why = NULL;
    for (size_t i = 0; i < n; i++) {
        if (session_state_check(&path[i], &why) != 0)
            fail_msg("step %zu (talk %d life %d work %d phase %d run %d link %d) refused: %s", i,
                     path[i].talk, path[i].life, path[i].work, path[i].phase, path[i].run,
                     path[i].link, why);
    }
}
#define PATH(...) do { const struct session_state p_[] = { __VA_ARGS__ }; \
                       assert_path(p_, sizeof p_ / sizeof p_[0]); } while (0)

/* hello, auth, two phases, a clean, the coordinator hangs up */
static void test_session_state_served_run(void **state)
{
    (void)state;
    PATH(ST(HELLO, OPEN, NONE, NONE, NONE, ACCEPTED), ST(AUTH, OPEN, NONE, NONE, NONE, ACCEPTED),
         ST(IDLE, OPEN, NONE, NONE, NONE, ACCEPTED),
         ST(PREPARING, OPEN, PREPARE, LIVE, ON, ACCEPTED),
         ST(READY, OPEN, NONE, PREPARED, ON, ACCEPTED), ST(RUNNING, OPEN, NONE, PREPARED, ON, ACCEPTED),
         ST(FINISHING, OPEN, FINISH, PREPARED, ON, ACCEPTED),
         ST(PREPARING, OPEN, PREPARE, LIVE, ON, ACCEPTED),
         ST(READY, OPEN, NONE, PREPARED, ON, ACCEPTED), ST(RUNNING, OPEN, NONE, PREPARED, ON, ACCEPTED),
         ST(FINISHING, OPEN, FINISH, PREPARED, ON, ACCEPTED), ST(IDLE, OPEN, NONE, NONE, OVER, ACCEPTED),
         ST(CLEANING, OPEN, NONE, NONE, OVER, ACCEPTED), ST(IDLE, OPEN, NONE, NONE, OVER, ACCEPTED),
         ST(IDLE, ENDING, NONE, NONE, OVER, ACCEPTED), ST(IDLE, CLOSED, NONE, NONE, OVER, ACCEPTED));
}

/* stop while ready, stop while preparing (cancelled), a refused plan,
 * an empty one, a sweep point skipped */
static void test_session_state_stops_and_refusals(void **state)
{
    (void)state;
    PATH(ST(READY, OPEN, NONE, PREPARED, STOPPING, ACCEPTED),
         ST(FINISHING, OPEN, FINISH, PREPARED, STOPPING, ACCEPTED),
         ST(IDLE, OPEN, NONE, NONE, OVER, ACCEPTED),
         ST(PREPARING, OPEN, PREPARE, LIVE, STOPPING, ACCEPTED),
         ST(IDLE, OPEN, NONE, NONE, OVER, ACCEPTED),
         ST(RUNNING, OPEN, NONE, PREPARED, ON, ACCEPTED));
}

/* the coordinator gone in each phase: the work and threads end first */
static void test_session_state_hang_ups(void **state)
{
    (void)state;
    PATH(ST(PREPARING, ENDING, PREPARE, LIVE, ON, ACCEPTED),
         ST(PREPARING, ENDING, NONE, NONE, ON, ACCEPTED),
         ST(PREPARING, CLOSED, NONE, NONE, ON, ACCEPTED),
         ST(RUNNING, ENDING, NONE, PREPARED, ON, ACCEPTED),
         ST(FINISHING, ENDING, FINISH, PREPARED, ON, ACCEPTED),
         ST(FINISHING, ENDING, NONE, NONE, ON, ACCEPTED),
         ST(FINISHING, CLOSED, NONE, NONE, ON, ACCEPTED),
         ST(CLEANING, ENDING, NONE, NONE, NONE, ACCEPTED),
         ST(IDLE, CLOSED, NONE, NONE, NONE, ACCEPTED),
         ST(HELLO, CLOSED, NONE, NONE, NONE, ACCEPTED));
}

/* a coordinator behind one winding down, with its plan; a dialled session */
static void test_session_state_waiting_and_dialled(void **state)
{
    (void)state;
    PATH(ST(WAITING, OPEN, NONE, NONE, NONE, ACCEPTED), ST(WAITING, OPEN, NONE, NONE, PENDING, ACCEPTED),
         ST(PREPARING, OPEN, PREPARE, LIVE, ON, ACCEPTED),
         ST(WAITING, CLOSED, NONE, NONE, PENDING, ACCEPTED),
         ST(HELLO, OPEN, NONE, NONE, NONE, DIALLING), ST(HELLO, CLOSED, NONE, NONE, NONE, DIALLING),
         ST(HELLO, OPEN, NONE, NONE, NONE, DIALLED), ST(IDLE, OPEN, NONE, NONE, NONE, DIALLED));
}

static void expect_refused(struct session_state st, const char *rule)
{
    const char *why = NULL;
    assert_int_equal(session_state_check(&st, &why), -1);
    assert_non_null(why);
    if (!strstr(why, rule))
        fail_msg("refused by '%s', expected '%s'", why, rule);
}

static void test_session_state_forbidden(void **state)
{
    (void)state;
    expect_refused((struct session_state)ST(PREPARING, OPEN, FINISH, LIVE, ON, ACCEPTED),
                   "a finish is queued only");
    expect_refused((struct session_state)ST(READY, OPEN, PREPARE, LIVE, ON, ACCEPTED),
                   "a prepare is queued only");
    expect_refused((struct session_state)ST(PREPARING, OPEN, NONE, LIVE, ON, ACCEPTED),
                   "has its prepare queued");
    expect_refused((struct session_state)ST(IDLE, OPEN, NONE, PREPARED, OVER, ACCEPTED),
                   "a prepared phase exists only");
    expect_refused((struct session_state)ST(RUNNING, OPEN, NONE, NONE, ON, ACCEPTED),
                   "READY and RUNNING hold");
    expect_refused((struct session_state)ST(PREPARING, OPEN, NONE, NONE, ON, ACCEPTED),
                   "unless the session ended");
    expect_refused((struct session_state)ST(FINISHING, ENDING, NONE, PREPARED, ON, ACCEPTED),
                   "unless the session ended");
    expect_refused((struct session_state)ST(READY, OPEN, NONE, PREPARED, OVER, ACCEPTED),
                   "only for an admitted plan");
    expect_refused((struct session_state)ST(IDLE, OPEN, NONE, NONE, ON, ACCEPTED),
                   "is in a phase until");
    expect_refused((struct session_state)ST(IDLE, OPEN, NONE, NONE, PENDING, ACCEPTED),
                   "pending only while WAITING");
    expect_refused((struct session_state)ST(AUTH, OPEN, NONE, NONE, OVER, ACCEPTED),
                   "before the session is served");
    expect_refused((struct session_state)ST(IDLE, OPEN, NONE, NONE, NONE, DIALLING),
                   "before the connect");
    expect_refused((struct session_state)ST(RUNNING, CLOSED, NONE, PREPARED, ON, ACCEPTED),
                   "handles close only");
    expect_refused((struct session_state)ST(CLEANING, CLOSED, NONE, NONE, OVER, ACCEPTED),
                   "handles close only");
}

/* The check is no rubber stamp: of every combination of the six parts, it
 * allows only a few, and has_plan follows the run. */
static void test_session_state_most_combinations_refused(void **state)
{
    (void)state;
    int allowed = 0, all = 0;
    const char *why;
    for (int t = S_HELLO; t <= S_FINISHING; t++)
        for (int l = LIFE_OPEN; l <= LIFE_CLOSED; l++)
            for (int w = WORK_NONE; w <= WORK_FINISH; w++)
                for (int p = PH_NONE; p <= PH_PREPARED; p++)
                    for (int r = RUN_NONE; r <= RUN_OVER; r++)
                        for (int k = LINK_ACCEPTED; k <= LINK_DIALLED; k++) {
                            struct session_state st = { t, l, w, p, r, k };
                            all++;
                            allowed += session_state_check(&st, &why) == 0;
                        }
    assert_int_equal(all, 9 * 3 * 3 * 3 * 5 * 3);
    assert_true(allowed > 0 && allowed * 10 < all);
    struct session_state pend = ST(WAITING, OPEN, NONE, NONE, PENDING, ACCEPTED);
    struct session_state over = ST(IDLE, OPEN, NONE, NONE, OVER, ACCEPTED);
    assert_true(session_state_has_plan(&pend));
    assert_false(session_state_has_plan(&over));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_state_served_run),
        cmocka_unit_test(test_session_state_stops_and_refusals),
        cmocka_unit_test(test_session_state_hang_ups),
        cmocka_unit_test(test_session_state_waiting_and_dialled),
        cmocka_unit_test(test_session_state_forbidden),
        cmocka_unit_test(test_session_state_most_combinations_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
