/* fuzz_plan: libFuzzer harness for the fio job-file parser
 * (common/plan_parse.c, plan_keys.c, plan_matrix.c).
 *
 * The input is the text of a job file.  Checks: no crash (ASan/UBSan), a
 * failure is -errno with a reason, and a plan that parses respects the caps
 * and passes job_spec_validate for every job, as the coordinator relies on
 * before it sends the plan.
 *
 * The same text, written to a file, also goes through the compatibility
 * report (coordinator/cli/fio_compat.c, plan_visit_keys): no crash, and its
 * exit status says "runs" exactly when the parser accepts the plan.
 *
 * The harness works in a private temporary directory holding one small
 * file, so `include inc.fio` is exercised and relative includes cannot
 * wander over the real file system. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "coordinator/cli/fio_compat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__, err); } while (0)

static void die(const char *what, int line, const char *why)
{
    fprintf(stderr, "fuzz_plan.c:%d: check failed: %s (%s)\n", line, what, why);
    abort();
}

/* "<private dir>/fuzz.fio": includes resolve next to it.  Set once. */
static char plan_name[64] = "fuzz.fio";
static char inc_dir[64];

static void cleanup(void)
{
    char path[80];

    if (inc_dir[0]) {
        snprintf(path, sizeof path, "%s/inc.fio", inc_dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/report.fio", inc_dir);
        unlink(path);
        rmdir(inc_dir);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[] = "/tmp/nfstorm-fuzz-plan.XXXXXX", path[64];
    FILE *f;

    (void)argc;
    (void)argv;
    /* no chdir: libFuzzer resolves the corpus paths after this returns */
    if (!mkdtemp(dir))
        return 0;
    snprintf(path, sizeof path, "%s/inc.fio", dir);
    if ((f = fopen(path, "w")) != NULL) {
        fputs("[global]\nrw=randread\nbs=4k\nsize=1m\n", f);
        fclose(f);
    }
    snprintf(plan_name, sizeof plan_name, "%s/fuzz.fio", dir);
    snprintf(inc_dir, sizeof inc_dir, "%s", dir);
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    char *text = malloc(size + 1);
    struct plan p;
    int rc;

    memcpy(text, data, size);
    text[size] = '\0';
    rc = plan_parse_string(plan_name, text, &p, err, sizeof err);
    if (rc != 0) {
        CHECK(rc < 0 && err[0] != '\0');
    } else {
        CHECK(p.nphases <= PLAN_MAX_PHASES);
        for (uint32_t i = 0; i < p.nphases; i++) {
            const struct phase *ph = &p.phases[i];
            CHECK(ph->njobs >= 1 && ph->njobs <= PLAN_MAX_JOBS);
            for (uint32_t j = 0; j < ph->njobs; j++) {
                CHECK(job_spec_validate(&ph->jobs[j], err, sizeof err) == 0);
                CHECK(ph->jobs[j].nbssplit <= PLAN_MAX_BSSPLIT);
                CHECK(ph->jobs[j].n_md_ops <= PLAN_MAX_MD_OPS);
            }
        }
        plan_free(&p);
    }
    /* the report reads a file: the same text, next to inc.fio, there only
     * while the report runs (so the string parse above cannot include it) */
    char rpath[80];
    snprintf(rpath, sizeof rpath, "%s/report.fio", inc_dir);
    FILE *f = inc_dir[0] ? fopen(rpath, "w") : NULL;
    FILE *null = fopen("/dev/null", "w");
    if (f && null) {
        fwrite(data, 1, size, f);
        fclose(f);
        f = NULL;
        int st = fio_compat_report(null, rpath, 0, NULL);
        unlink(rpath);
        CHECK(st == 0 || st == 2);
        /* a NUL in the text: the file reader refuses what the string
         * parser saw cut short, so only NUL-free texts must agree */
        if (strlen(text) == size)
            CHECK((st == 0) == (rc == 0));
    }
    if (f)
        fclose(f);
    if (null)
        fclose(null);
    free(text);
    return 0;
}
