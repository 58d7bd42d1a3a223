/* test_report_csv: the CSV rows and columns of a known result. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "coordinator/report/report.h"
#include "tests/unit/stats_util.h"

/* One randread phase "r,1" (a comma, to check quoting) on 2 agents:
 * agent 0 did 300 reads, agent 1 100, 4 KiB each, all at 1000 ns, 2 s. */
static void build(struct run_result *r, struct plan *p)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof(j.name), "r,1");
    j.rw = RW_RANDREAD;
    j.numjobs = 2;
    j.size = 1 << 20;
    plan_add_job(p, &j);
    result_init(r, p, 2, 1000);
    snprintf(r->label, sizeof(r->label), "lab");
    snprintf(r->agents[0].host, sizeof(r->agents[0].host), "ha");
    snprintf(r->agents[1].host, sizeof(r->agents[1].host), "hb");
    for (uint32_t a = 0; a < 2; a++) {
        struct agent_phase *ap = xcalloc(1, sizeof(*ap));
        struct op_set *tot = xmalloc(sizeof(*tot));
        uint64_t n = a == 0 ? 300 : 100;

        op_set_init(tot);
        for (uint64_t i = 0; i < n; i++)
            op_stats_record(&tot->op[OP_READ], 4096, 1000, 1);
        ap->duration_ns = 2000000000ull;
        result_set_agent_phase(r, 0, a, ap, tot);
        free(tot);
        free(ap);
    }
    result_phase_finish(r, 0);
}

static char *render(const struct run_result *r, int agents)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    report_csv(f, r, agents);
    fclose(f);
    return buf;
}

static void test_report_csv_rows_and_columns(void **state)
{
    struct run_result r;
    struct plan p;
    char *txt, *line, *save = NULL;
    int nlines = 0;

    (void)state;
    build(&r, &p);
    txt = render(&r, 0);
    for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save), nlines++) {
        if (nlines == 0) {
            assert_string_equal(line, REPORT_CSV_HEADER);
            continue;
        }
        /* 400 ops / 2 s = 200 IOPS, 819200 B/s; Jain over 150 and 50 IOPS = 0.8 */
        assert_string_equal(line, "lab,0,\"r,1\",randread,4096,2,2,all,,read,2,400,1638400,0,200,819200,"
                            "1000,1000,1000,1000,1000,1000,1000,1.000000,0.800000,ok");
    }
    assert_int_equal(nlines, 2);
    free(txt);

    txt = render(&r, 1);
    nlines = 0;
    for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save), nlines++) {
        if (nlines == 2)
            assert_string_equal(line, "lab,0,\"r,1\",randread,4096,2,2,0,ha,read,2,300,1228800,0,150,614400,"
                                "1000,1000,1000,1000,1000,1000,1000,0.750000,,");
        if (nlines == 3)
            assert_non_null(strstr(line, ",1,hb,read,2,100,409600,0,50,204800,"));
    }
    assert_int_equal(nlines, 4);
    free(txt);
    result_free(&r);
    plan_free(&p);
}

static void test_report_csv_skips_unfinished_phases(void **state)
{
    struct run_result r;
    struct plan p;
    char *txt;

    (void)state;
    build(&r, &p);
    r.phases[0].finished = 0;
    txt = render(&r, 1);
    assert_string_equal(txt, REPORT_CSV_HEADER "\n");
    free(txt);
    result_free(&r);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_csv_rows_and_columns),
        cmocka_unit_test(test_report_csv_skips_unfinished_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
