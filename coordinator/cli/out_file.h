/* out_file: open an output file the user named (--output, --csv, --html,
 * --timeseries, the journal) without ever blocking on it.
 *
 * Why: fopen(path, "w") on a FIFO that no process reads blocks in open(2)
 * for ever, before the run starts and deaf to SIGTERM.  A pipe someone
 * reads (`--csv /dev/stdout | ...`, a FIFO with a reader) is a real use
 * and must keep working, so the open is non-blocking: it succeeds at once
 * when there is a reader and fails with ENXIO when there is none; the
 * descriptor is then made blocking again for the writes. */
#ifndef NFSTORM_OUT_FILE_H
#define NFSTORM_OUT_FILE_H

#include <stdio.h>

/* As fopen(path, "w") (truncate or create, mode 0644), or NULL with errno
 * set: ENXIO for a FIFO nobody reads. */
FILE *out_file_open(const char *path);
/* strerror(err), but "a FIFO with no reader" for ENXIO. */
const char *out_file_strerror(int err);
/* fclose(f); returns rc, the file's first write error, or else -errno of a
 * failed close (buffered bytes are written only then). */
int out_file_close(FILE *f, int rc);

#endif
