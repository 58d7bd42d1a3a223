/* serve_run: one run of the pool as a child process (see serve_run.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "coordinator/fleet/serve_dir.h"
#include "coordinator/fleet/serve_run.h"

static const char *const run_files[] = { "plan.fio", "result.json", "result.json.journal" };

static void on_pipe_closed(uv_handle_t *h)
{
    struct serve_run *r = h->data;
    r->open_pipes--;
}

static void on_pipe_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    struct serve_run *r = h->data;
    (void)suggested;
    *b = uv_buf_init(r->rbuf, sizeof r->rbuf < POOL_CHUNK_MAX ? sizeof r->rbuf : POOL_CHUNK_MAX);
}

static void on_pipe_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *ub)
{
    struct serve_run *r = st->data;

    if (nread < 0) {
        uv_read_stop(st);
        uv_close((uv_handle_t *)st, on_pipe_closed);
        return;
    }
    if (nread > 0 && r->out_fn)
        r->out_fn(r->out_arg, st == (uv_stream_t *)&r->out[0] ? POOL_STDOUT : POOL_STDERR, ub->base,
                  (size_t)nread);
}

static void child(const struct serve_run *r, const struct pool_submit *sub, struct gather_fleet *f,
                  const int *close_fds, size_t nclose, serve_run_fn fn, int outw, int errw, pid_t serve)
{
    char **argv = xcalloc((size_t)sub->argc + 5, sizeof *argv);
    int argc = 0, status, devnull;

    /* the run dies with serve, even a serve killed with SIGKILL: no run
     * goes on driving the agents; a serve gone before the request took is
     * seen by the parent pid changing */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != serve)
        _exit(1);
    devnull = open("/dev/null", O_RDONLY);
    if (r->dir_lock > 0)
        close(r->dir_lock);         /* the mark is serve's to hold */
    /* nothing of the pool's survives into the run but the agents it gets */
    for (size_t i = 0; i < nclose; i++)
        close(close_fds[i]);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(outw, 1);
    dup2(errw, 2);
    if (chdir(r->dir) < 0)
        _exit(1);
    argv[argc++] = "nfstorm";
    argv[argc++] = sub->clean ? "clean" : "run";
    for (uint32_t i = 0; i < sub->argc; i++)
        argv[argc++] = strcmp(sub->argv[i], POOL_PLAN_ARG) == 0 ? "plan.fio" : sub->argv[i];
    if (sub->want_json && !sub->clean) {
        argv[argc++] = "--json";
        argv[argc++] = "result.json";
    }
    argv[argc] = NULL;
    status = fn(argc, argv, f);
    fflush(NULL);
    _exit(status);
}

static int write_file(const char *path, const char *data, size_t len)
{
    /* the run directory is new and ours: a name already there (or a
     * symlink planted in it) is not written through */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    ssize_t w = 0;
    if (fd < 0)
        return -errno;
    while (len > 0 && (w = write(fd, data, len)) > 0) {
        data += w;
        len -= (size_t)w;
    }
    close(fd);
    return w < 0 ? -EIO : 0;
}

static void remove_dir(struct serve_run *r)
{
    char path[128];
    for (size_t i = 0; i < sizeof run_files / sizeof run_files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", r->dir, run_files[i]);
        unlink(path);
    }
    /* with its ownership mark, unless the run left more (serve_dir.h) */
    (void)serve_dir_release(r->dir, r->dir_lock);
    r->dir_lock = 0;
}

int serve_run_start(struct serve_run *r, uv_loop_t *loop, const struct pool_submit *sub,
                    struct gather_fleet *f, const int *close_fds, size_t nclose, serve_run_fn fn,
                    char *err, size_t errlen)
{
    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, rc;
    char path[128], tmp[sizeof r->dir];
    pid_t pid, serve = getpid();

    r->pid = 0;
    r->dir_lock = 0;
    /* $TMPDIR as mktemp(1) has it; a relative or too long one is passed
     * over for /tmp (one that does not exist fails the run, named below) */
    serve_dir_base(tmp, sizeof tmp);
    snprintf(r->dir, sizeof r->dir, "%s/" SERVE_DIR_PREFIX "XXXXXX", tmp);
    if (!mkdtemp(r->dir)) {
        rc = -errno;
        snprintf(err, errlen, "the pool cannot make a directory for the run in %s: %s", tmp[0] ? tmp : "/",
                 strerror(-rc));
        gather_free(f);
        return rc;
    }
    if ((rc = serve_dir_claim(r->dir, &r->dir_lock)) < 0) {
        snprintf(err, errlen, "the pool cannot mark its run directory %s: %s", r->dir, strerror(-rc));
        goto fail;
    }
    snprintf(path, sizeof path, "%s/plan.fio", r->dir);
    if (sub->plan && (rc = write_file(path, sub->plan, sub->plan_len)) < 0) {
        snprintf(err, errlen, "the pool cannot write the plan: %s", strerror(-rc));
        goto fail;
    }
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
        rc = -errno;
        snprintf(err, errlen, "the pool cannot make pipes for the run: %s", strerror(-rc));
        goto fail;
    }
    fflush(NULL);
    if ((pid = fork()) < 0) {
        rc = -errno;
        snprintf(err, errlen, "the pool cannot fork the run: %s", strerror(-rc));
        goto fail;
    }
    if (pid == 0)
        child(r, sub, f, close_fds, nclose, fn, outp[1], errp[1], serve);
    close(outp[1]);
    close(errp[1]);
    gather_free(f);                 /* our copies: the run has its own */
    r->pid = pid;
    r->reaped = 0;
    r->status = 0;
    for (int i = 0; i < 2; i++) {
        uv_pipe_init(loop, &r->out[i], 0);
        r->out[i].data = r;
        uv_pipe_open(&r->out[i], i == 0 ? outp[0] : errp[0]);
        uv_read_start((uv_stream_t *)&r->out[i], on_pipe_alloc, on_pipe_read);
    }
    r->open_pipes = 2;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    gather_free(f);
    remove_dir(r);
    return rc;
}

int serve_run_poll(struct serve_run *r)
{
    int st;
    if (!r->pid)
        return 0;
    if (!r->reaped && waitpid(r->pid, &st, WNOHANG) == r->pid) {
        r->reaped = 1;
        r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return r->reaped && r->open_pipes == 0;
}

static void send_file(struct serve_run *r, enum pool_stream st, const char *name)
{
    char path[128];
    char *chunk;
    size_t got;
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (!(fp = fopen(path, "rb")))
        return;
    chunk = xmalloc(POOL_CHUNK_MAX);
    while ((got = fread(chunk, 1, POOL_CHUNK_MAX, fp)) > 0)
        r->out_fn(r->out_arg, st, chunk, got);
    free(chunk);
    fclose(fp);
}

void serve_run_send_results(struct serve_run *r)
{
    if (!r->out_fn)
        return;
    send_file(r, POOL_JSON, "result.json");
    send_file(r, POOL_JOURNAL, "result.json.journal");
}

int serve_run_cleanup(struct serve_run *r)
{
    char dir[sizeof r->dir];
    int rc;

    remove_dir(r);
    rc = access(r->dir, F_OK) == 0 ? -ENOTEMPTY : 0;
    memcpy(dir, r->dir, sizeof dir);
    memset(r, 0, sizeof *r);
    memcpy(r->dir, dir, sizeof dir);
    return rc;
}
