/* fuzz_journal: libFuzzer harness for the journal reader
 * (coordinator/run/journal.c), which `nfstorm report JOURNAL` runs on a file
 * that may have been cut short, corrupted or edited.
 *
 * journal_load takes a path, so the input is written to a memfd and loaded
 * through /proc/self/fd/N.  Checks: no crash (ASan/UBSan), a failure is
 * -errno with a reason, and a loaded result is internally consistent
 * enough to be freed (LeakSanitizer checks that nothing is left over).
 * Every histogram the one decoder (common/hist_codec.h) let in, merged into
 * an agent's totals, is again a valid form: encoding it and decoding it
 * gives it back exactly (what the JSON result then writes re-reads). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coordinator/report/hist_json.h"
#include "coordinator/run/journal.h"
#include "coordinator/result/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__, err); } while (0)

static void die(const char *what, int line, const char *why)
{
    fprintf(stderr, "fuzz_journal.c:%d: check failed: %s (%s)\n", line, what, why);
    abort();
}

static void check_round_trip(const struct op_set *s, char *err)
{
    static struct hist back;

    for (int t = 0; t < OP__COUNT; t++)
        for (int k = 0; k < 2; k++) {
            const struct hist *h = k ? &s->op[t].svc : &s->op[t].lat;
            json_t *o;

            /* JSON integers are signed: a merged count or sum at 2^63 and
             * above (292 years of latency) is out of its range */
            if (h->count > INT64_MAX || h->sum_ns > INT64_MAX)
                continue;
            o = hist_json_encode(h);
            CHECK(o != NULL);
            CHECK(hist_json_decode(o, &back, err, 512) == 0);
            CHECK(hist_equal(h, &back));
            json_decref(o);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    static struct run_result r;
    char err[512] = "";
    int rc;

    if (fd < 0) {
        fd = memfd_create("fuzz-journal", 0);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("memfd write");
        abort();
    }
    rc = journal_load(path, &r, err, sizeof err);
    if (rc != 0) {
        CHECK(rc < 0 && err[0] != '\0');
        return 0;
    }
    CHECK(r.nagents >= 1);
    for (uint32_t p = 0; p < r.nphases; p++)
        CHECK(r.phases[p].agents != NULL);
    for (uint32_t p = 0; p < r.nphases && p < 4; p++)
        for (uint32_t a = 0; a < r.nagents && a < 4; a++)
            check_round_trip(result_agent_totals(&r, p, a), err);
    result_free(&r);
    return 0;
}
