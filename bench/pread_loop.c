/* pread_loop: the bare system call, the reference of bench/oploop.sh's psync
 * row.  It reads bs-sized blocks at random bs-aligned offsets of one file
 * with pread(2) for a number of seconds and prints the ops done and the CPU
 * (user + system) the process spent, so the bench can set nfstorm's CPU per
 * op against the least any program can spend on the same reads.
 *
 * Deliberately nothing else: no clock per op (the loop checks the time every
 * 4096 reads), no statistics, an xorshift generator.  Not part of nfstorm.
 * Usage: pread_loop FILE BS_BYTES SECONDS
 * Prints: ops=N cpu_s=X */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct stat st;
    struct rusage ru;
    char *buf;
    uint64_t bs, blocks, x = 0x9e3779b97f4a7c15ull, ops = 0;
    double secs, end;
    int fd;

    if (argc != 4 || (bs = strtoull(argv[2], NULL, 10)) == 0 || (secs = atof(argv[3])) <= 0) {
        fprintf(stderr, "usage: pread_loop FILE BS_BYTES SECONDS\n");
        return 2;
    }
    if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
        perror(argv[1]);
        return 1;
    }
    blocks = (uint64_t)st.st_size / bs;
    if (blocks == 0 || posix_memalign((void **)&buf, 4096, bs) != 0) {
        fprintf(stderr, "pread_loop: %s is smaller than one block\n", argv[1]);
        return 1;
    }
    end = now_s() + secs;
    do {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (pread(fd, buf, bs, (off_t)((x % blocks) * bs)) != (ssize_t)bs) {
                perror("pread");
                return 1;
            }
        }
        ops += 4096;
    } while (now_s() < end);
    getrusage(RUSAGE_SELF, &ru);
    printf("ops=%llu cpu_s=%.6f\n", (unsigned long long)ops,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    return 0;
}
