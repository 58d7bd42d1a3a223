/* json_file: write a JSON document into a file the user named, so that a
 * reader (or a crash) never sees half of it and an old file is replaced
 * only by a complete new one.
 *
 * The document goes into a temp file next to the target and is renamed
 * into place; the temp file is fsynced before the rename and the directory
 * after it, so the rename cannot outlive the data on a crash.  Where the
 * file system has O_TMPFILE the data is written to an unnamed file that
 * gets its temp name only once complete, just before the rename: even
 * kill -9 during the write leaves nothing behind.  A path that is not a
 * regular file (a device, a FIFO) is written into, never replaced; a
 * symlink's target is replaced and the link stays. */
#ifndef NFSTORM_JSON_FILE_H
#define NFSTORM_JSON_FILE_H

#include <jansson.h>

/* Writes the document through write(buf, size, sink) (jansson's
 * json_dump_callback_t, so json_dump_callback can be handed it as is);
 * 0, or -1 when a write or the encoding failed. */
typedef int (*json_file_body)(json_dump_callback_t write, void *sink, void *arg);

/* What body(arg) writes, into path as above, buffered (a write(2) per
 * 64 KB).  0 or -errno: -ENOMEM when body failed with no write error. */
int json_file_write(const char *path, json_file_body body, void *arg);

#endif
