/* input_file: see input_file.h. */
#include "coordinator/result/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *input_file_open(const char *flag, const char *path, uint32_t max, int mib, char *err, size_t errlen,
                      int *rc)
{
    struct stat st;
    FILE *f;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        *rc = -errno;
        snprintf(err, errlen, "%s %s: cannot open: %s", flag, path, strerror(-*rc));
        return NULL;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)max) {
        snprintf(err, errlen, "%s %s: not a regular file of at most %u %s", flag, path, mib ? max >> 20 : max,
                 mib ? "MiB" : "bytes");
        *rc = -EINVAL;
    } else if (!(f = fdopen(fd, "r"))) {
        snprintf(err, errlen, "%s %s: cannot read", flag, path);
        *rc = -EIO;
    } else {
        return f;
    }
    close(fd);
    return NULL;
}
