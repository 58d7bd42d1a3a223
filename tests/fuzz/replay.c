/* replay: a plain main() for the libFuzzer harnesses, so their corpora run
 * under valgrind (tests/integration/t1767_fuzz_valgrind.sh, `make
 * valgrind`).
 *
 * ASan and UBSan do not see a read of an uninitialised value (only MSan
 * does, which needs every library rebuilt); valgrind's memcheck does, but
 * not under libFuzzer's runtime.  So each harness is also linked, built by
 * cc without sanitizers, against this driver: it calls the harness's
 * LLVMFuzzerInitialize (if it has one) once, then LLVMFuzzerTestOneInput
 * once per file named on the command line, a directory standing for the
 * regular files in it (in name order).  Exit 0 when every input ran, 2
 * when an input cannot be read; a harness's own check aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* One input: the whole file, in a buffer of exactly its size (so an
 * overread is valgrind's to see). */
static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *data;
    long len;

    if (!fp || fseek(fp, 0, SEEK_END) < 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) < 0) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        if (fp)
            fclose(fp);
        return -1;
    }
    data = malloc(len ? (size_t)len : 1);
    if (!data || fread(data, 1, (size_t)len, fp) != (size_t)len) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(data);
        fclose(fp);
        return -1;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(data, (size_t)len);
    free(data);
    return 0;
}

static int replay_dir(const char *dir, int *n)
{
    struct dirent **ents;
    int m = scandir(dir, &ents, NULL, alphasort), rc = 0;

    if (m < 0) {
        fprintf(stderr, "replay: %s: cannot list\n", dir);
        return -1;
    }
    for (int i = 0; i < m; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) < 0)
                rc = -1;
            else
                ++*n;
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

int main(int argc, char **argv)
{
    int n = 0, bad = 0;

    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            bad |= replay_dir(argv[i], &n) < 0;
        else if (replay_file(argv[i]) < 0)
            bad = 1;
        else
            n++;
    }
    fprintf(stderr, "replay: %d inputs\n", n);
    return bad ? 2 : 0;
}
