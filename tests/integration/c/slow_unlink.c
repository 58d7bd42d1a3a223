/* An LD_PRELOAD shim for the tests (slow_unlink_build in lib.sh): with
 * SLOW_UNLINK_DIR set, every unlink of a path beneath it and every
 * unlinkat (the agent's confined unlink names files relative to a
 * directory fd, so each is slowed; a test's agent unlinks nothing else)
 * takes 2 ms, so that removing thousands of files lasts seconds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int unlink(const char *p);
int unlinkat(int fd, const char *p, int flags);

static void pause_2ms(void)
{
    struct timespec ts = { 0, 2000000 };
    nanosleep(&ts, NULL);
}

int unlink(const char *p)
{
    static int (*real)(const char *);
    const char *dir = getenv("SLOW_UNLINK_DIR");
    if (!real)
        real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    if (dir && p && strncmp(p, dir, strlen(dir)) == 0)
        pause_2ms();
    return real(p);
}

int unlinkat(int fd, const char *p, int flags)
{
    static int (*real)(int, const char *, int);
    if (!real)
        real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
    if (getenv("SLOW_UNLINK_DIR"))
        pause_2ms();
    return real(fd, p, flags);
}
