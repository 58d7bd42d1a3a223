/* input_file: a file the user names with a flag (--limits, --metrics),
 * opened for reading only when it is a regular file under a size cap.  It
 * is opened without blocking and checked with fstat, so a FIFO or device
 * named by mistake is refused instead of waited on or read without end. */
#ifndef NFSTORM_INPUT_FILE_H
#define NFSTORM_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>

/* path for reading (the caller fcloses it), or NULL with "<flag> <path>:
 * <why>" in err and -errno in *rc.  max is the cap in bytes, told in MiB
 * when mib is set. */
FILE *input_file_open(const char *flag, const char *path, uint32_t max, int mib, char *err, size_t errlen,
                      int *rc);

#endif
