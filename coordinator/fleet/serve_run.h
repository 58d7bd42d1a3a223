/* serve_run: one run of `nfstorm serve`, as a child process.
 *
 * The child is forked (no exec), so the ordinary run code runs on the
 * agents' already authenticated connections (struct gather_fleet, as
 * run --listen hands them over) with nothing to serialise.  It runs in a
 * private directory (mode 700: the plan's text as plan.fio, the JSON
 * result and journal it writes), with stdout and stderr on pipes the pool
 * reads on its loop and forwards; every other descriptor of the pool is
 * closed in the child, so a connection the run closes is closed.
 *
 * The child dies with serve (PR_SET_PDEATHSIG): a serve killed with
 * SIGKILL leaves no run driving the agents, whose connections then close
 * and who go idle.  The directory is marked as this serve's while it
 * lives (serve_dir.h), so the next serve removes one that a killed serve
 * left behind, and nothing else.
 *
 * Everything here runs on the pool's loop thread, except the child's side
 * of serve_run_start, which never returns. */
#ifndef NFSTORM_SERVE_RUN_H
#define NFSTORM_SERVE_RUN_H

#include <stddef.h>
#include <sys/types.h>
#include <uv.h>
#include "coordinator/fleet/gather.h"
#include "coordinator/fleet/serve.h"
#include "proto/pool_msg.h"

/* Bytes of the run's stdout or stderr, or of a result file (stream). */
typedef void (*serve_run_out_fn)(void *arg, enum pool_stream stream, const char *data, size_t len);

struct serve_run {
    pid_t pid;                    /* 0: no run */
    char dir[64];                 /* its private directory */
    int dir_lock;                 /* its ownership mark's lock (serve_dir.h); 0: none */
    uv_pipe_t out[2];             /* its stdout, stderr */
    int open_pipes, reaped, status;
    serve_run_out_fn out_fn;      /* NULL: the output is dropped (its submitter went) */
    void *out_arg;
    char rbuf[64 * 1024];
};

/* Start sub's run on fleet f (whose fds are dup'ed copies: closed here in
 * the parent, taken by the run in the child; f is freed either way), in a
 * child that first closes close_fds[0..nclose) and then returns fn's
 * status as its exit status.  0, or -errno with a one-line reason in err
 * (nothing then runs and r holds nothing). */
int serve_run_start(struct serve_run *r, uv_loop_t *loop, const struct pool_submit *sub,
                    struct gather_fleet *f, const int *close_fds, size_t nclose, serve_run_fn fn,
                    char *err, size_t errlen);

/* 1 when the run's process has ended and its output is drained (exit
 * status in r->status, 128 + signal for a signal), else 0. */
int serve_run_poll(struct serve_run *r);

/* Send the JSON result and its journal through out_fn, if it wrote them. */
void serve_run_send_results(struct serve_run *r);

/* Remove its directory: 0, or -errno when files of the run's own are left
 * (the directory is named in r->dir).  r is emptied but for dir. */
int serve_run_cleanup(struct serve_run *r);

#endif
