/* fuzz_journal: libFuzzer harness for the journal reader
 * (coordinator/journal.c), which `nfstorm report JOURNAL` runs on a file
 * that may have been cut short, corrupted or edited.
 *
 * journal_load takes a path, so the input is written to a memfd and loaded
 * through /proc/self/fd/N.  Checks: no crash (ASan/UBSan), a failure is
 * -errno with a reason, and a loaded result is internally consistent
 * enough to be freed (LeakSanitizer checks that nothing is left over). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coordinator/journal.h"
#include "coordinator/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__, err); } while (0)

static void die(const char *what, int line, const char *why)
{
    fprintf(stderr, "fuzz_journal.c:%d: check failed: %s (%s)\n", line, what, why);
    abort();
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
    result_free(&r);
    return 0;
}
