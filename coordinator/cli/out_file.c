/* out_file: non-blocking open of user-named outputs (see the header). */
#include "coordinator/cli/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

FILE *out_file_open(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0644);
    FILE *f;
    int fl, e;

    if (fd < 0)
        return NULL;
    if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
        !(f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    return f;
}

const char *out_file_strerror(int err)
{
    return err == ENXIO ? "a FIFO with no reader" : strerror(err);
}

int out_file_close(FILE *f, int rc)
{
    return fclose(f) != 0 && rc == 0 ? -errno : rc;
}
