/* clean: removing the files a plan lays out (`nfstorm clean`, `nfstorm
 * run --cleanup`), on the agent, within its confinement.
 *
 * The coordinator sends a clean message (a plan, this agent's index and
 * the agent count) instead of a plan.  The agent walks the plan's data
 * files with the very functions that name them for a run
 * (phase_each_file), confines each file's directory beneath --allow, and
 * removes the file only if it is a regular file (never a symlink, a
 * directory or a device), through a directory opened with openat2
 * RESOLVE_BENEATH so a symlink swapped in cannot lead it outside.
 * Directories are left; metadata jobs' files are theirs to remove; files
 * of nfs jobs are removed through libnfs on the job's server, its URL
 * checked against --allow-nfs (agent/clean_nfs.h).  When nothing was
 * removed, the names of other agent indices are probed (up to 64 indices,
 * 64 names each) and reported (cleaned.others), so the coordinator can say
 * why nothing matched.  The work runs on libuv's thread pool (the loop thread does no
 * file I/O); the answer is a cleaned message (files, bytes, skipped, a
 * note) or an error. */
#ifndef NFSTORM_AGENT_CLEAN_H
#define NFSTORM_AGENT_CLEAN_H

#include <stdatomic.h>
#include <stddef.h>
#include "agent/session.h"
#include "proto/msg.h"

/* A clean frame f (msg_parse) from the active session of a, whose
 * peer is peer.  Loop thread.  Decodes and checks it, queues the removal
 * and returns 0: the answer goes to that session when done (dropped if it
 * ended meanwhile), then on_done(arg) runs on the loop thread.  cancel
 * (owned by the caller, alive until on_done) set non-zero from the loop
 * thread stops the walk before the next file: a session that ends stops
 * its clean, and must not end before on_done (a new run's files could be
 * removed under it).  -errno with a one-line reason in err when the
 * request is refused; nothing was queued and on_done never runs then. */
int clean_request(struct agent *a, const char *peer, const struct msg_frame *f,
                  atomic_int *cancel, void (*on_done)(void *arg), void *arg,
                  char *err, size_t errlen);

/* Send b (takes it) to a's active session if it is still the one with
 * peer, else drop it.  Loop thread.  Defined in session.c. */
void session_send_active(struct agent *a, const char *peer, struct buf *b);

#endif
