/* test_run: the coordinator's run code against scripted agents
 * (run_feed_script): the messages are made by the real encoders, the
 * clock is the script's.  What an agent says is bounded and checked:
 * totals against intervals, intervals against the clock, text cleaned,
 * a stranger named as one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/result/result_errors.h"
#include "coordinator/run/run.h"
#include "proto/frame.h"
#include "proto/msg.h"

#define T0 1000000000000ull

struct script {
    struct buf b;
};

/* a record: agent a sends the frame in m (freed) */
static void say(struct script *s, unsigned a, struct buf *m)
{
    unsigned char hdr[3] = { (unsigned char)a, (unsigned char)(m->len >> 8), (unsigned char)m->len };
    assert_true(m->len < 65536);
    buf_append(&s->b, hdr, sizeof hdr);
    buf_append(&s->b, m->data, m->len);
    buf_free(m);
}

static void tick(struct script *s, unsigned tenths)
{
    unsigned char t = (unsigned char)(0x80 | tenths);
    buf_append(&s->b, &t, 1);
}

/* welcome and clock sync; ready for phase 0 unless no_ready */
static void handshake_ready(struct script *s, const char *host, int no_ready)
{
    struct msg_welcome w;
    struct buf m;

    memset(&w, 0, sizeof w);
    w.version = PROTO_VERSION;
    snprintf(w.host, sizeof w.host, "%s", host);
    w.ncpus = 2;
    buf_init(&m);
    msg_welcome_encode(&m, &w);
    say(s, 0, &m);
    for (uint64_t i = 0; i < 8; i++) {
        struct msg_pong p = { .seq = i, .t_ping_ns = T0, .t_ns = T0 };
        buf_init(&m);
        msg_pong_encode(&m, &p);
        say(s, 0, &m);
    }
    if (no_ready)
        return;
    struct msg_ready r = { .phase = 0 };
    buf_init(&m);
    msg_ready_encode(&m, &r);
    say(s, 0, &m);
}

static void handshake(struct script *s, const char *host)
{
    handshake_ready(s, host, 0);
}

/* one second passes, and the agent answers a ping (it is not silent) */
static void second_with_pong(struct script *s)
{
    struct msg_pong p = { .seq = 0, .t_ping_ns = T0, .t_ns = T0 };
    struct buf m;
    tick(s, 10);
    buf_init(&m);
    msg_pong_encode(&m, &p);
    say(s, 0, &m);
}

static void progress(struct script *s, uint64_t done, uint64_t total)
{
    struct msg_progress p = { .phase = 0, .done_bytes = done, .total_bytes = total };
    struct buf m;
    buf_init(&m);
    msg_progress_encode(&m, &p);
    say(s, 0, &m);
}

static void reads(struct op_set *o, uint64_t n)
{
    op_set_init(o);
    for (uint64_t i = 0; i < n; i++) {
        o->op[OP_READ].ops++;
        o->op[OP_READ].bytes += 4096;
        hist_record(&o->op[OP_READ].lat, 1000);
    }
}

static void interval(struct script *s, uint32_t k, uint64_t n)
{
    struct msg_interval *m = xcalloc(1, sizeof *m);
    struct buf b;

    m->index = k;
    reads(&m->stats, n);
    buf_init(&b);
    msg_interval_encode(&b, m);
    say(s, 0, &b);
    free(m);
}

static void phase_done(struct script *s, uint32_t nint, uint64_t total)
{
    struct msg_phase_done *m = xcalloc(1, sizeof *m);
    struct buf b;

    m->started_ns = T0;
    m->duration_ns = 2000000000ull;
    m->cores = 2;
    m->nintervals = nint;
    reads(&m->totals, total);
    buf_init(&b);
    msg_phase_done_encode(&b, m);
    say(s, 0, &b);
    free(m);
}

/* Interval k with n reads of which e failed (no latency for those). */
static void failing_interval(struct script *s, uint32_t k, uint64_t n, uint64_t e)
{
    struct msg_interval *m = xcalloc(1, sizeof *m);
    struct buf b;

    m->index = k;
    reads(&m->stats, n - e);
    m->stats.op[OP_READ].ops = n;
    m->stats.op[OP_READ].errors = e;
    buf_init(&b);
    msg_interval_encode(&b, m);
    say(s, 0, &b);
    free(m);
}

/* phase-done of nint intervals: n reads, e failed, and causes telling of
 * told of them (EIO). */
static void failing_phase_done(struct script *s, uint32_t nint, uint64_t n, uint64_t e, uint64_t told)
{
    struct msg_phase_done *m = xcalloc(1, sizeof *m);
    struct buf b;

    m->started_ns = T0;
    m->duration_ns = 2000000000ull;
    m->cores = 2;
    m->nintervals = nint;
    reads(&m->totals, n - e);
    m->totals.op[OP_READ].ops = n;
    m->totals.op[OP_READ].errors = e;
    errcause_add(&m->errors, OP_READ, ERRC_ERRNO, EIO, 8192, 0, "/d/f", told);
    buf_init(&b);
    msg_phase_done_encode(&b, m);
    say(s, 0, &b);
    free(m);
}

struct fixture {
    struct plan plan;
    struct run_options opt;
    struct run_result r;
    char err[1024];
};

static char *addrs[] = { "127.0.0.1:7001" };
static uint32_t prepare_ms;      /* the next play's --prepare-timeout (0: default) */

static int play(struct fixture *f, struct script *s)
{
    struct job_spec j;

    plan_init(&f->plan);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "r");
    j.size = 1 << 20;
    plan_add_job(&f->plan, &j);
    f->opt = (struct run_options){ .addrs = addrs, .naddrs = 1, .interval_ms = 1000,
                                   .connect_timeout_ms = 10000, .agent_timeout_ms = 10000,
                                   .prepare_timeout_ms = prepare_ms };
    f->err[0] = '\0';
    return run_feed_script(&f->plan, &f->opt, (const unsigned char *)s->b.data, s->b.len, &f->r,
                           f->err, sizeof f->err);
}

static void done(struct fixture *f, struct script *s)
{
    result_free(&f->r);
    plan_free(&f->plan);
    buf_free(&s->b);
}

static void test_run_honest_agent_counts_its_intervals(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake(&s, "h");
    tick(&s, 13);
    interval(&s, 0, 10);
    tick(&s, 10);
    interval(&s, 1, 10);
    phase_done(&s, 2, 20);
    assert_int_equal(play(&f, &s), RUN_OK);
    assert_true(f.r.phases[0].finished);
    assert_int_equal(f.r.phases[0].totals.op[OP_READ].ops, 20);
    assert_null(f.r.phases[0].agents[0].error);
    done(&f, &s);
}

static void test_run_totals_that_differ_from_intervals_are_flagged(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake(&s, "h");
    tick(&s, 13);
    interval(&s, 0, 10);
    tick(&s, 10);
    interval(&s, 1, 10);
    phase_done(&s, 2, 1000);
    play(&f, &s);
    assert_int_equal(f.r.phases[0].totals.op[OP_READ].ops, 20);     /* the intervals' sum */
    assert_non_null(f.r.phases[0].agents[0].error);
    assert_non_null(strstr(f.r.phases[0].agents[0].error,
                           "phase-done totals differ from the sum of its intervals "
                           "(read ops: 1000 in phase-done, 20 in its intervals)"));
    done(&f, &s);
}

/* Causes that account for the failed ops are kept; causes that do not are
 * dropped, and the phase names the agent. */
static void test_run_error_causes_must_add_up(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    for (int lie = 0; lie < 2; lie++) {
        const struct errcause_set *es;
        buf_init(&s.b);
        handshake(&s, "h");
        tick(&s, 13);
        failing_interval(&s, 0, 10, 3);
        tick(&s, 10);
        failing_interval(&s, 1, 10, 2);
        failing_phase_done(&s, 2, 20, 5, lie ? 4 : 5);
        play(&f, &s);
        assert_int_equal(f.r.phases[0].totals.op[OP_READ].errors, 5);
        es = result_agent_errors(&f.r, 0, 0);
        if (!lie) {
            assert_null(f.r.phases[0].agents[0].error);
            assert_non_null(es);
            assert_int_equal(es->op[OP_READ].c[0].count, 5);
            assert_int_equal(es->op[OP_READ].c[0].code, EIO);
        } else {
            assert_null(es);
            assert_non_null(f.r.phases[0].agents[0].error);
            assert_non_null(strstr(f.r.phases[0].agents[0].error,
                                   "phase-done errors do not match its totals (its causes account for 4 "
                                   "of 5 failed read ops); its causes are dropped"));
        }
        done(&f, &s);
    }
}

static void test_run_intervals_faster_than_the_clock_drop_the_agent(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake(&s, "h");
    for (uint32_t k = 0; k < 50; k++)      /* all at once, 0 s after the start */
        interval(&s, k, 1);
    assert_true(play(&f, &s) < 0);
    assert_true(f.r.agents[0].lost);
    assert_true(f.r.phases[0].nintervals <= 3);
    assert_non_null(f.r.phases[0].agents[0].error);
    assert_non_null(strstr(f.r.phases[0].agents[0].error,
                           "sent interval 3 of phase 0 0.0 s after its start: more than 1000-ms "
                           "intervals allow; dropped"));
    done(&f, &s);
}

static void test_run_agent_text_is_cleaned_and_named(void **state)
{
    struct fixture f;
    struct script s;
    struct msg_error e;
    struct buf m;
    (void)state;

    buf_init(&s.b);
    handshake(&s, "ev\x1b[2J\ril\x07");
    tick(&s, 5);
    snprintf(e.text, sizeof e.text, "agent 9 (10.9.9.9:1): \x1b]0;x\x07on fire\r");
    buf_init(&m);
    msg_error_encode(&m, &e);
    say(&s, 0, &m);
    play(&f, &s);
    assert_string_equal(f.r.agents[0].host, "ev?[2J?il?");
    assert_string_equal(f.r.phases[0].agents[0].error, "?]0;x?on fire?");
    assert_string_equal(f.r.end_text, "agent 0 (127.0.0.1:7001): ?]0;x?on fire?");
    done(&f, &s);
}

static void test_run_stranger_is_not_an_agent(void **state)
{
    struct fixture f;
    struct script s;
    static const char http[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    unsigned char hdr[3] = { 0, 0, sizeof http - 1 };
    (void)state;

    buf_init(&s.b);
    buf_append(&s.b, hdr, sizeof hdr);
    buf_append(&s.b, http, sizeof http - 1);
    assert_true(play(&f, &s) < 0);
    assert_string_equal(f.err, "agent 0 (127.0.0.1:7001): not an nfstorm agent "
                               "(it answered \"HTTP/1.1 400 Bad Request\")");
    done(&f, &s);
}

/* A ready that does not decode fails the run with the decoder's reason
 * (it was decoded twice and reported an uninitialised phase). */
static void test_run_bad_ready_names_the_decoders_reason(void **state)
{
    struct fixture f;
    struct script s;
    /* {"type": "ready", "phase": "x"} */
    static const unsigned char body[] = { 0x82, 0xa4, 't', 'y', 'p', 'e', 0xa5, 'r', 'e', 'a', 'd', 'y',
                                          0xa5, 'p', 'h', 'a', 's', 'e', 0xa1, 'x' };
    unsigned char rec[3 + FRAME_HEADER_LEN] = { 0, 0, FRAME_HEADER_LEN + sizeof body };
    (void)state;

    buf_init(&s.b);
    handshake_ready(&s, "h", 1);
    frame_put_header(rec + 3, sizeof body);
    buf_append(&s.b, rec, sizeof rec);
    buf_append(&s.b, body, sizeof body);
    assert_true(play(&f, &s) < 0);
    assert_non_null(strstr(f.err, "agent 0 (127.0.0.1:7001): bad ready: "));
    assert_non_null(strstr(f.err, "phase"));
    assert_null(strstr(f.err, "unexpected ready"));
    done(&f, &s);
}

/* An agent that answers pings but never gets ready is lost after the
 * prepare timeout, naming why. */
static void test_run_never_ready_is_lost_after_prepare_timeout(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake_ready(&s, "h", 1);
    for (int i = 0; i < 6; i++)
        second_with_pong(&s);
    prepare_ms = 3000;
    assert_true(play(&f, &s) < 0);
    prepare_ms = 0;
    assert_string_equal(f.err, "all agents lost; the last, agent 0 (127.0.0.1:7001): not ready for phase 0 "
                               "after 4.0 s of preparation without layout progress (--prepare-timeout)");
    done(&f, &s);
}

/* A layout that stops advancing is lost after the agent timeout (10 s);
 * one that advances keeps the agent past both timeouts. */
static void test_run_layout_must_advance(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake_ready(&s, "h", 1);
    progress(&s, 4096, 8192);
    for (int i = 0; i < 12; i++) {
        second_with_pong(&s);
        progress(&s, 4096, 8192);
    }
    assert_true(play(&f, &s) < 0);
    assert_string_equal(f.err, "all agents lost; the last, agent 0 (127.0.0.1:7001): its layout for phase 0 "
                               "made no progress for 11.0 s (4096 of 8192 bytes laid out; --agent-timeout)");
    done(&f, &s);

    buf_init(&s.b);
    handshake_ready(&s, "h", 1);
    for (uint64_t i = 0; i < 15; i++) {
        second_with_pong(&s);
        progress(&s, 4096 * (i + 1), 1 << 20);
    }
    prepare_ms = 3000;
    assert_true(play(&f, &s) < 0);
    prepare_ms = 0;
    /* the script ended: it hung up, and only that lost it */
    assert_string_equal(f.err, "all agents lost; the last, agent 0 (127.0.0.1:7001): connection closed");
    done(&f, &s);
}

/* Running, an agent's sampler sends an interval every second whatever its
 * jobs do: one that answers pings but sends none is lost after the agent
 * timeout past the interval it owes. */
static void test_run_running_agent_must_send_intervals(void **state)
{
    struct fixture f;
    struct script s;
    (void)state;

    buf_init(&s.b);
    handshake(&s, "h");
    tick(&s, 3);                  /* the start instant passes */
    interval(&s, 0, 5);
    for (int i = 0; i < 13; i++)
        second_with_pong(&s);
    assert_true(play(&f, &s) < 0);
    assert_non_null(strstr(f.err, "all agents lost; the last, agent 0 (127.0.0.1:7001): answers but sent no "
                                  "interval 1 of phase 0 for 1"));
    assert_non_null(strstr(f.err, " s after it was due (--agent-timeout)"));
    /* what it sent before is kept */
    assert_int_equal(f.r.phases[0].totals.op[OP_READ].ops, 5);
    done(&f, &s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_honest_agent_counts_its_intervals),
        cmocka_unit_test(test_run_totals_that_differ_from_intervals_are_flagged),
        cmocka_unit_test(test_run_error_causes_must_add_up),
        cmocka_unit_test(test_run_intervals_faster_than_the_clock_drop_the_agent),
        cmocka_unit_test(test_run_agent_text_is_cleaned_and_named),
        cmocka_unit_test(test_run_stranger_is_not_an_agent),
        cmocka_unit_test(test_run_bad_ready_names_the_decoders_reason),
        cmocka_unit_test(test_run_never_ready_is_lost_after_prepare_timeout),
        cmocka_unit_test(test_run_layout_must_advance),
        cmocka_unit_test(test_run_running_agent_must_send_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
