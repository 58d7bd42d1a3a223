/* local: spawning the agents of `--local N` (see local.h).
 *
 * Each agent listens on 127.0.0.1:0 and prints the port it got on its
 * stdout; reading that line avoids the race of picking a "free" port here
 * and having it taken before the agent binds it.
 *
 * Nothing is left behind, even when the coordinator is killed with -9:
 * - the one-time secret never touches a disk: it lives in a memfd (a
 *   mode-600 file in memory), inherited by the agents, who read it through
 *   /proc/self/fd/N; it is gone when the last of us closes it;
 * - the agents' logs are inside the temporary directory;
 * - the temporary directory is removed by a janitor process forked first:
 *   it learns the agents' pids through a pipe whose write end only the
 *   coordinator holds, so end-of-file means the coordinator is gone
 *   (stopped the fleet, or died).  The agents die with the coordinator
 *   (PR_SET_PDEATHSIG); the janitor waits for them to exit (pidfds, so a
 *   reused pid cannot fool it) and removes the directory.  It ignores the
 *   terminal's signals, so Ctrl-C or a hang-up cannot stop it first.
 *
 * Nothing waits for an agent forever either: one whose thread is stuck in a
 * storage call (a fallocate or write on a hung mount) finishes its SIGTERM
 * only when that call returns, minutes later maybe.  Stopping gives the
 * agents LOCAL_STOP_GRACE_MS after SIGTERM, then SIGKILLs the rest (a
 * process blocked on a FUSE or NFS request dies of it), and waits for them
 * at most LOCAL_KILL_WAIT_MS more: one that even SIGKILL cannot end (an
 * uninterruptible sleep) is left to the janitor, which removes the
 * directory when it exits.  The janitor applies the same grace and SIGKILL
 * when the coordinator died without stopping them (docs/fleet.md). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/engine_table.h"
#include "common/xmalloc.h"
#include "common/plan_files.h"
#include "coordinator/fleet/local.h"
#include "coordinator/fleet/spawn.h"

#define LOCAL_MAX_ALLOW 64
#define JANITOR_WAIT_MS (60 * 1000)   /* for agents to exit before removing anyway */
#define LOCAL_STOP_GRACE_MS 2000      /* from SIGTERM to SIGKILL */
#define LOCAL_KILL_WAIT_MS 500        /* after SIGKILL, before leaving them to the janitor */
/* the janitor removes the agents' directory once they are gone: on a
 * loaded machine that alone took over 500 ms (a fresh-clone test said
 * "did not exit after SIGKILL" of agents that had exited) */
#define LOCAL_JANITOR_WAIT_MS 5000
#define LOCAL_POLL_MS 20

static int mkdir_p(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/", dir);
    for (char *s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    return 0;
}

/* The directories the plan names, made absolute and created. */
static int plan_dirs(const struct plan *plan, char dirs[][PATH_MAX], int *n,
                     char nfs[][PATH_MAX], int *nnfs, char *err, size_t errlen)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -errno;
    for (uint32_t i = 0; i < plan->nphases; i++) {
        for (uint32_t k = 0; k < plan->phases[i].njobs; k++) {
            const struct job_spec *js = &plan->phases[i].jobs[k];
            char d[PATH_MAX], abs[PATH_MAX * 2];
            if (engine_table_takes_url(js->ioengine)) {
                /* --allow-nfs for the URL's fixed part, without options */
                size_t ulen = strcspn(js->nfs_url, "?");
                const char *var = strstr(js->nfs_url, "${");
                if (var && (size_t)(var - js->nfs_url) < ulen) {
                    /* back to a whole path segment: nfs://h/e/sub${agent} -> nfs://h/e */
                    ulen = (size_t)(var - js->nfs_url);
                    while (ulen > 6 && js->nfs_url[ulen - 1] != '/')
                        ulen--;
                    if (ulen > 6)
                        ulen--;
                }
                if (*nnfs < LOCAL_MAX_ALLOW && ulen > 6)
                    snprintf(nfs[(*nnfs)++], PATH_MAX, "%.*s", (int)ulen, js->nfs_url);
                continue;
            }
            /* an absolute filename_format without directory=: its fixed
             * directory, before the first $token ($jobname, $agent, ...) */
            if (!js->directory[0] && !js->filename[0] && js->filename_format[0] == '/' &&
                *n < LOCAL_MAX_ALLOW) {
                char fmt[PATH_MAX];
                snprintf(fmt, sizeof fmt, "%.*s", (int)strcspn(js->filename_format, "$"), js->filename_format);
                char *slash = strrchr(fmt, '/');
                *(slash == fmt ? slash + 1 : slash) = '\0';
                if (fmt[0]) {
                    int rc = mkdir_p(fmt);
                    if (rc < 0) {
                        snprintf(err, errlen, "cannot create directory %s: %s", fmt, strerror(-rc));
                        return rc;
                    }
                    snprintf(dirs[(*n)++], PATH_MAX, "%s", fmt);
                }
            }
            /* each name of a filename= list (a:b) may be in a directory of its own */
            uint32_t nnames = js->directory[0] ? 1 : plan_filename_count(js->filename);
            for (uint32_t f = 0; f < nnames; f++) {
                char one[PATH_MAX];
                if (js->directory[0])
                    spawn_fixed_dir(js->directory, 0, d, sizeof d);
                else if (plan_filename_at(js->filename, f, one, sizeof one) == 0 && one[0] == '/')
                    spawn_fixed_dir(one, 1, d, sizeof d);
                else
                    continue;
                if (!d[0])
                    continue;
                snprintf(abs, sizeof abs, "%s%s%s", d[0] == '/' ? "" : cwd, d[0] == '/' ? "" : "/", d);
                if (*n == LOCAL_MAX_ALLOW)
                    continue;
                int rc = mkdir_p(abs);
                if (rc < 0) {
                    snprintf(err, errlen, "cannot create directory %s: %s", abs, strerror(-rc));
                    return rc;
                }
                snprintf(dirs[(*n)++], PATH_MAX, "%s", abs);
            }
        }
    }
    return 0;
}

static int spawn_one(struct local_fleet *f, uint32_t i, const char *agent_path, const char *secret_path,
                     char dirs[][PATH_MAX], int ndirs, char nfs[][PATH_MAX], int nnfs, int verbose,
                     char *err, size_t errlen)
{
    int out[2];
    char line[256], logpath[320];
    const char *argv[10 + 4 * LOCAL_MAX_ALLOW + 2];
    int a = 0;
    pid_t pid, parent;
    FILE *fp;

    if (pipe2(out, O_CLOEXEC) < 0)
        return -errno;
    argv[a++] = agent_path;
    argv[a++] = "--listen";
    argv[a++] = "127.0.0.1:0";
    argv[a++] = "--secret-file";
    argv[a++] = secret_path;
    argv[a++] = "--allow";
    argv[a++] = f->tmpdir;
    for (int d = 0; d < ndirs; d++) {
        argv[a++] = "--allow";
        argv[a++] = dirs[d];
    }
    for (int d = 0; d < nnfs; d++) {
        argv[a++] = "--allow-nfs";
        argv[a++] = nfs[d];
    }
    if (verbose)
        argv[a++] = "--verbose";
    argv[a] = NULL;
    snprintf(logpath, sizeof logpath, "%s/.agent%u.log", f->tmpdir, i);
    parent = getpid();
    pid = fork();
    if (pid < 0) {
        close(out[0]);
        close(out[1]);
        return -errno;
    }
    if (pid == 0) {
        /* our agents die with us, even if we are killed with -9; in a
         * process group of their own, so the terminal's Ctrl-C reaches
         * only us: we stop them and collect their results */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        fcntl(f->secret_fd, F_SETFD, 0);     /* the agent reads it as /proc/self/fd/N */
        if (!verbose) {
            FILE *log = fopen(logpath, "w");
            if (log)
                dup2(fileno(log), 2);
        }
        execv(agent_path, (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", agent_path, strerror(errno));
        _exit(127);
    }
    close(out[1]);
    f->pid[i] = pid;
    if (write(f->janitor_fd, &pid, sizeof pid) != (ssize_t)sizeof pid) {
        /* no janitor to clean up after us: refuse rather than leave litter */
        close(out[0]);
        snprintf(err, errlen, "cannot start local agent %u: the cleanup process is gone", i);
        return -EPIPE;
    }
    fp = fdopen(out[0], "r");
    if (!fp || !fgets(line, sizeof line, fp) || strncmp(line, "listening on ", 13) != 0) {
        /* its log goes with the temporary directory: quote its last line */
        char last[200] = "", l[200];
        FILE *log = fopen(logpath, "r");
        while (log && fgets(l, sizeof l, log))
            if (l[0] != '\n')
                snprintf(last, sizeof last, "%s", l);
        if (log)
            fclose(log);
        last[strcspn(last, "\n")] = '\0';
        snprintf(err, errlen, "local agent %u did not start (%s)%s%s", i, agent_path,
                 last[0] ? ": " : "", last);
        if (fp)
            fclose(fp);
        else
            close(out[0]);
        return -ECHILD;
    }
    fclose(fp);
    line[strcspn(line, "\n")] = '\0';
    f->addr[i] = xstrdup(line + 13);
    return 0;
}

/* A random secret, hex-encoded so the file is plain text, in a memfd:
 * never on a disk.  The fd (close-on-exec; each agent child clears that
 * for itself) or -errno. */
static int make_secret(struct auth_secret *s)
{
    struct auth_secret raw;
    static const char hex[] = "0123456789abcdef";
    int fd, rc;

    if (auth_random_secret(&raw) < 0)
        return -EIO;
    for (size_t i = 0; i < raw.len; i++) {
        s->key[2 * i] = (unsigned char)hex[raw.key[i] >> 4];
        s->key[2 * i + 1] = (unsigned char)hex[raw.key[i] & 15];
    }
    s->len = 2 * raw.len;
    fd = memfd_create("nfstorm-secret", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fchmod(fd, 0600) < 0 || write(fd, s->key, s->len) != (ssize_t)s->len) {
        rc = errno ? -errno : -EIO;
        close(fd);
        return rc;
    }
    return fd;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

/* The temporary directory holds only what our agents laid out. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The janitor (see the top): pids arrive on fd until end-of-file; then wait
 * for those processes to exit and remove dir.  Never returns. */
static void janitor_main(int fd, const char *dir)
{
    struct pollfd pfd[LOCAL_JANITOR_MAX];
    nfds_t n = 0;
    pid_t pid;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);

    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* hold none of the coordinator's files (its stdout and stderr: a
     * reader waiting for end-of-file; its journal); it prints nothing */
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    for (int i = 3; i < 1024; i++)
        if (i != fd)
            close(i);
    while (read(fd, &pid, sizeof pid) == (ssize_t)sizeof pid) {
        int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0 && n < LOCAL_JANITOR_MAX)
            pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
        else if (pidfd >= 0)
            close(pidfd);
    }
    /* the coordinator is gone: each agent got SIGTERM from it or from its
     * own death (PR_SET_PDEATHSIG); one still there after the grace is
     * stuck in a storage call and gets SIGKILL (see the top) */
    for (int waited = 0, killed = 0; waited < JANITOR_WAIT_MS; waited += 50) {
        nfds_t live = 0;
        for (nfds_t i = 0; i < n; i++)
            if (pfd[i].fd >= 0 && poll(&pfd[i], 1, 0) == 1) {
                close(pfd[i].fd);
                pfd[i].fd = -1;
            } else if (pfd[i].fd >= 0) {
                live++;
            }
        if (live == 0)
            break;
        if (!killed && waited >= LOCAL_STOP_GRACE_MS) {
            for (nfds_t i = 0; i < n; i++)
                if (pfd[i].fd >= 0)
                    (void)syscall(SYS_pidfd_send_signal, pfd[i].fd, SIGKILL, NULL, 0);
            killed = 1;
        }
        poll(NULL, 0, 50);
    }
    remove_tree(dir);
    _exit(0);
}

/* Fork the janitor; its pipe's write end goes to f->janitor_fd. */
static int janitor_start(struct local_fleet *f)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    f->janitor = fork();
    if (f->janitor < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return -e;
    }
    if (f->janitor == 0) {
        close(p[1]);
        janitor_main(p[0], f->tmpdir);
    }
    close(p[0]);
    f->janitor_fd = p[1];
    return 0;
}

int local_fleet_start(struct local_fleet *f, uint32_t n, const char *agent_path,
                      const struct plan *plan, int verbose, char *err, size_t errlen)
{
    static char dirs[LOCAL_MAX_ALLOW][PATH_MAX], nfs[LOCAL_MAX_ALLOW][PATH_MAX];
    char secret_path[64];
    int ndirs = 0, nnfs = 0, rc;
    const char *tmp = getenv("TMPDIR");

    memset(f, 0, sizeof *f);
    f->secret_fd = f->janitor_fd = -1;
    if (n > LOCAL_JANITOR_MAX) {
        snprintf(err, errlen, "--local %u: at most %d local agents", n, LOCAL_JANITOR_MAX);
        return -EINVAL;
    }
    snprintf(f->tmpdir, sizeof f->tmpdir, "%s/nfstorm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->tmpdir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return -errno;
    }
    if ((rc = plan_dirs(plan, dirs, &ndirs, nfs, &nnfs, err, errlen)) < 0) {
        rmdir(f->tmpdir);
        return rc;
    }
    f->pid = xcalloc(n, sizeof *f->pid);
    f->addr = xcalloc(n, sizeof *f->addr);
    f->n = n;
    if ((rc = janitor_start(f)) < 0) {
        snprintf(err, errlen, "cannot start the cleanup process: %s", strerror(-rc));
        goto fail;
    }
    if ((rc = make_secret(&f->secret)) < 0) {
        snprintf(err, errlen, "cannot make a one-time secret: %s", strerror(-rc));
        goto fail;
    }
    f->secret_fd = rc;
    snprintf(secret_path, sizeof secret_path, "/proc/self/fd/%d", f->secret_fd);
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = spawn_one(f, i, agent_path, secret_path, dirs, ndirs, nfs, nnfs, verbose, err, errlen)) < 0) {
            if (!err[0])
                snprintf(err, errlen, "cannot start local agent %u: %s", i, strerror(-rc));
            goto fail;
        }
    }
    return 0;
fail:
    local_fleet_stop(f);
    return rc;
}

/* Reap those of pid[0..n) (0: none) that exit within ms, zeroing each one
 * reaped; the number still running. */
static uint32_t reap_within(pid_t *pid, uint32_t n, int ms)
{
    for (int waited = 0;; waited += LOCAL_POLL_MS) {
        uint32_t live = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (pid[i] <= 0)
                continue;
            pid_t r = waitpid(pid[i], NULL, WNOHANG);
            if (r == pid[i] || (r < 0 && errno == ECHILD))
                pid[i] = 0;
            else
                live++;
        }
        if (live == 0 || waited >= ms)
            return live;
        poll(NULL, 0, LOCAL_POLL_MS);
    }
}

void local_fleet_stop(struct local_fleet *f)
{
    uint32_t live;

    for (uint32_t i = 0; i < f->n; i++)
        if (f->pid[i] > 0)
            kill(f->pid[i], SIGTERM);
    live = reap_within(f->pid, f->n, LOCAL_STOP_GRACE_MS);
    if (live) {
        /* a thread stuck in a storage call holds its agent's exit */
        fprintf(stderr, "nfstorm: %u local agent%s still running %.0f s after SIGTERM "
                "(stuck in a storage call?): killing %s\n", live, live == 1 ? "" : "s",
                LOCAL_STOP_GRACE_MS / 1e3, live == 1 ? "it" : "them");
        for (uint32_t i = 0; i < f->n; i++)
            if (f->pid[i] > 0)
                kill(f->pid[i], SIGKILL);
        live = reap_within(f->pid, f->n, LOCAL_KILL_WAIT_MS);
    }
    for (uint32_t i = 0; i < f->n; i++)
        free(f->addr[i]);
    if (f->secret_fd >= 0)
        close(f->secret_fd);
    if (f->janitor_fd >= 0)
        close(f->janitor_fd);           /* end-of-file: the janitor removes tmpdir */
    if (f->janitor > 0) {
        /* it ends as soon as the agents are gone; one that even SIGKILL
         * could not end is the janitor's to wait for, not ours */
        pid_t j = f->janitor;
        if (live)
            fprintf(stderr, "nfstorm: a local agent did not exit after SIGKILL; its cleanup process "
                    "removes %s when it does\n", f->tmpdir);
        else if (reap_within(&j, 1, LOCAL_JANITOR_WAIT_MS))
            fprintf(stderr, "nfstorm: the local agents' directory %s is still being removed (by "
                    "process %d)\n", f->tmpdir, (int)f->janitor);
    } else if (f->tmpdir[0]) {
        remove_tree(f->tmpdir);         /* no janitor was started */
    }
    free(f->pid);
    free(f->addr);
    memset(f, 0, sizeof *f);
    f->secret_fd = f->janitor_fd = -1;
}
