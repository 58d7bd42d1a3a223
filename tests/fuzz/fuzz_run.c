/* fuzz_run: libFuzzer harness for the coordinator's handling of what
 * agents send after the handshake (coordinator/run/run.c through its seam
 * run_feed_script, result.c, verdict.c and the text, HTML and CSV reports).
 *
 * The input is a script (run.h): records delivering bytes from one of two
 * agents, or advancing the run's clock by a multiple of 100 ms.  Agents
 * run without authentication, so a script reaches the authenticated
 * surface (intervals, phase-done, errors, progress, pings, ready, in any
 * order and with any values) as a hostile but authenticated agent would.
 * Seeds (tests/fuzz/corpus/run, made by gen_run_seeds.py) play honest and
 * lying agents through a two-phase plan.
 *
 * Checks beyond ASan/UBSan and LeakSanitizer: every string in the result
 * is clean (printable ASCII), each agent's totals are the sum of its
 * intervals, each phase's totals the sum of its agents', every interval's
 * merged counters the sum of its agents', a failure has a reason, and no
 * phase holds more intervals than the script's clock allows. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "coordinator/report/report.h"
#include "coordinator/result/result.h"
#include "coordinator/run/run.h"
#include "coordinator/run/verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAGENTS 2
#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__); } while (0)

static void die(const char *what, int line)
{
    fprintf(stderr, "fuzz_run.c:%d: check failed: %s\n", line, what);
    abort();
}

static int clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

static void make_plan(struct plan *p)
{
    struct job_spec j;

    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "r");
    j.rw = RW_RANDREAD;
    j.size = 1 << 20;
    plan_add_job(p, &j);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "w");
    j.rw = RW_WRITE;
    j.size = 1 << 20;
    j.stonewall = 1;
    plan_add_job(p, &j);
}

/* The invariants of a result, whatever the agents sent. */
static void check_result(const struct run_result *r, size_t script_len)
{
    /* the script's clock advances at most 12.7 s per byte */
    uint64_t max_k = (uint64_t)script_len * 13 + 4;

    for (uint32_t a = 0; a < r->nagents; a++)
        CHECK(clean(r->agents[a].host) && clean(r->agents[a].addr));
    CHECK(clean(r->end_text));
    for (uint32_t p = 0; p < r->nphases; p++) {
        const struct phase_result *ph = &r->phases[p];
        uint64_t sum_ops = 0;

        CHECK(ph->nintervals <= max_k);
        for (uint32_t a = 0; a < r->nagents; a++) {
            const struct agent_phase *ap = &ph->agents[a];
            if (ap->error)
                CHECK(clean(ap->error));
            if (!ap->done)
                continue;
            for (int t = 0; t < OP__COUNT; t++) {
                uint64_t iv = 0;
                for (uint32_t k = 0; k < ph->nintervals; k++)
                    iv += ph->intervals[k].agent[a].ops[t];
                CHECK(ap->sealed.count[t].ops == iv);     /* ops == sum(intervals) */
                sum_ops += ap->sealed.count[t].ops;
            }
        }
        if (ph->finished) {
            uint64_t tot = 0;
            for (int t = 0; t < OP__COUNT; t++)
                tot += ph->totals.op[t].ops;
            CHECK(tot == sum_ops);                           /* == sum(agents) */
        }
        for (uint32_t k = 0; k < ph->nintervals; k++)
            for (int t = 0; t < OP__COUNT; t++) {
                uint64_t s = 0;
                for (uint32_t a = 0; a < r->nagents; a++)
                    s += ph->intervals[k].agent[a].ops[t];
                CHECK(ph->intervals[k].count[t].ops == s);
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null_out;
    static struct plan plan;
    static char *addrs[NAGENTS] = { "127.0.0.1:7001", "127.0.0.1:7002" };
    struct run_options opt = { .addrs = addrs, .naddrs = NAGENTS, .interval_ms = 1000,
                               .connect_timeout_ms = 10000, .agent_timeout_ms = 10000,
                               .prepare_timeout_ms = 5000 };
    struct run_result r;
    struct verdict *v;
    char err[1024] = "", line[2048];
    int rc;

    if (!null_out) {
        null_out = fopen("/dev/null", "w");
        CHECK(null_out != NULL);
        make_plan(&plan);
    }
    rc = run_feed_script(&plan, &opt, data, size, &r, err, sizeof err);
    CHECK(rc == RUN_OK || rc == RUN_PARTIAL || (rc < 0 && err[0]));
    CHECK(clean(err));
    check_result(&r, size);
    v = malloc(sizeof *v);
    CHECK(v != NULL);
    for (uint32_t p = 0; p < r.nphases; p++) {
        verdict_phase(&r, p, v);
        for (uint32_t i = 0; i < v->nreasons; i++)
            CHECK(clean(v->reason[i]));
    }
    free(v);
    verdict_summary(&r, line, sizeof line);
    CHECK(clean(line));
    if (getenv("FUZZ_RUN_VERBOSE"))   /* to see what a seed reaches */
        fprintf(stderr, "fuzz_run: rc %d, %s; err: %s\n", rc, line, err);
    report_text(null_out, &r, 1024);
    report_csv(null_out, &r, 1);
    report_html(null_out, &r, 1024);
    result_free(&r);
    return 0;
}
