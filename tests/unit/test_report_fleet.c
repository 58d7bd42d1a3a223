/* test_report_fleet: the text and HTML reports of a hand-built 1,000-agent
 * run (570 ran, 30 lost, 400 idle): the fleet view's counts, distribution,
 * slowest and fastest rows, names bounded to 20 then "... and N more";
 * the text stays short; the HTML stays under 1.5 KB per agent, has no
 * script and no per-agent chart lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/fleet_summary.h"
#include "coordinator/report/report.h"
#include "tests/unit/stats_util.h"

#define NA 1000
#define NRAN 570
#define NLOST 30
#define NINT 3

static void build(struct run_result *r, struct plan *p)
{
    struct job_spec j;
    struct op_set *s = xmalloc(sizeof(*s));

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "fleet");
    j.size = 1 << 20;
    plan_add_job(p, &j);
    result_init(r, p, NA, 1000);
    r->started_unix = 1700000000;
    for (uint32_t a = 0; a < NA; a++) {
        snprintf(r->agents[a].host, sizeof(r->agents[a].host), "client-%u", a);
        snprintf(r->agents[a].addr, sizeof(r->agents[a].addr), "10.0.%u.%u:7878", a / 250, a % 250);
        r->agents[a].ncpus = 2;
        if (a >= NRAN + NLOST)
            r->phases[0].agents[a].participating = 0;
    }
    for (uint32_t a = 0; a < NA; a++) {
        struct agent_phase ap = { .duration_ns = 3000000000ull, .cores = 2, .cpu_user_s = 0.1 };
        uint64_t per_s = a < NRAN + NLOST ? 100 + a : 0;

        for (uint32_t k = 0; k < NINT; k++) {
            op_set_init(s);
            if (a >= NRAN && a < NRAN + NLOST && k == NINT - 1)
                continue;          /* a lost agent sent no last interval */
            s->op[OP_READ].ops = per_s;
            s->op[OP_READ].bytes = per_s * 4096;
            result_add_interval(r, 0, a, k, s);
        }
        op_set_init(s);
        for (uint64_t i = 0; i < per_s * (a >= NRAN ? 2 : 3); i++)   /* idle: per_s 0 */
            op_stats_record(&s->op[OP_READ], 4096, 100000 + (i % 50) * 1000 + a, 1);
        if (a >= NRAN && a < NRAN + NLOST) {
            r->agents[a].lost = 1;
            r->agents[a].lost_at_s = 2.0;
            ap.salvaged = 1;
            ap.duration_ns = 2000000000ull;
        }
        result_set_agent_phase(r, 0, a, &ap, s);
    }
    free(s);
    r->phases[0].ran = 1;
    result_phase_finish(r, 0);
}

static char *render(const struct run_result *r, int html, uint32_t rows, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    assert_non_null(f);
    if (html)
        report_html_rows(f, r, 1024, rows);
    else
        report_text_rows(f, r, 1024, rows);
    fclose(f);
    return buf;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;

    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void test_report_fleet_text_bounded(void **state)
{
    struct run_result r;
    struct plan p;
    size_t len, lines;
    char *t, want[256];

    (void)state;
    build(&r, &p);
    t = render(&r, 0, 0, &len);
    assert_non_null(strstr(t, "agents: 1000 (570 ran, 30 lost, 400 idle)\n"));
    assert_non_null(strstr(t, "per-agent throughput over the 570 agents that ran (nearest rank):\n"));
    /* IOPS 100..669: nearest rank 1, 57, 285, 513, 570 -> 100, 156, 384, 612, 669 */
    assert_non_null(strstr(t, "  IOPS          100        156        384        612        669\n"));
    assert_non_null(strstr(t, "slowest 5:\n"));
    assert_non_null(strstr(t, "\n  0   client-0 "));
    assert_non_null(strstr(t, "fastest 5:\n"));
    assert_true(strstr(t, "\n  569 client-569 ") > strstr(t, "fastest 5:"));
    assert_non_null(strstr(t, "lost (30):\n  570 client-570 (10.0.2.70:7878) at 2.0 s\n"));
    assert_non_null(strstr(t, "  589 client-589 (10.0.2.89:7878) at 2.0 s\n  ... and 10 more\n"));
    assert_null(strstr(t, "client-590 ("));
    assert_non_null(strstr(t, "idle (400):\n  600 client-600 (10.0.2.100:7878)\n"));
    snprintf(want, sizeof(want), "  619 client-619 (10.0.2.119:7878)\n  ... and 380 more\n");
    assert_non_null(strstr(t, want));
    assert_null(strstr(t, "warning: agent 57"));     /* lost agents named once, in the list */
    lines = count(t, "\n");
    assert_true(lines < 90);
    free(t);

    t = render(&r, 0, FLEET_ROWS_ALL, &len);          /* --agent-rows all: a row each */
    assert_null(strstr(t, "slowest 5:"));
    assert_true(count(t, " client-") >= NA);
    free(t);
    result_free(&r);
    plan_free(&p);
}

static void test_report_fleet_html_bounded(void **state)
{
    struct run_result r;
    struct plan p;
    size_t len;
    char *h;

    (void)state;
    build(&r, &p);
    h = render(&r, 1, 0, &len);
    print_message("HTML at 1000 agents: %zu bytes, %zu per agent\n", len, len / NA);
    assert_true(len < (size_t)NA * 1500);
    assert_null(strstr(h, "<script"));
    assert_int_equal(count(h, "<details data-view=\"agent-detail\">"), 1);
    assert_int_equal(count(h, "<tr data-id="), NA);
    assert_int_equal(count(h, "data-view=\"agent-dist\""), 1);
    assert_int_equal(count(h, "data-view=\"agents\""), 0);          /* no 1,000 bars */
    assert_int_equal(count(h, "data-mark=\"slowest\""), 5);
    assert_int_equal(count(h, "data-mark=\"fastest\""), 5);
    assert_int_equal(count(h, "data-mark=\"lost\""), NLOST);
    assert_non_null(strstr(h, "... and 380 more"));
    /* the time charts: the fleet's line, the spread's 3 and 6 agents,
     * never a line per agent */
    assert_true(count(h, "<polyline") < 30);
    free(h);
    result_free(&r);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_fleet_text_bounded),
        cmocka_unit_test(test_report_fleet_html_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
