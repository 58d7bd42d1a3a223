/* spawn: agents started over ssh for one run (see spawn.h).
 *
 * Why fork+exec rather than uv_spawn: the children must die with us even
 * when we are killed with -9 (PR_SET_PDEATHSIG, set between fork and exec,
 * which neither uv_spawn nor posix_spawn can do), and must not get the
 * terminal's Ctrl-C (their own process group): the run stops the agents
 * itself, with their results, and then ends their sessions.  Starting a
 * child does not block: fork returns at once and ssh connects on its own
 * while the coordinator waits for the agents to dial in; a child that
 * ends early (host unreachable, authentication refused, no agent binary)
 * is found by spawn_fleet_check, polled from that wait.
 *
 * Why ssh -tt: a remote command without a terminal keeps running when its
 * session ends (sshd only closes its pipes); with a terminal, the hang-up
 * sends SIGHUP to the agent, whose default action ends it.  Our end of
 * each child's stdin is a pipe we never write and keep open: end-of-file
 * comes only when we are gone. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/clock.h"
#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/xmalloc.h"
#include "coordinator/fleet/spawn.h"

#define SPAWN_CMD_MAX 65536
#define SPAWN_LOG_TAIL 4096      /* bytes read back for a child's last line */
#define SPAWN_LOG_MAX (1u << 20) /* a log past this starts again (O_APPEND: at 0) */

int spawn_shell_quote(const char *s, char *buf, size_t cap, size_t *len)
{
    size_t n = *len;
    if (n + 1 >= cap)
        return -ENOSPC;
    buf[n++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            if (n + 5 >= cap)
                return -ENOSPC;
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            if (n + 2 >= cap)
                return -ENOSPC;
            buf[n++] = *s;
        }
    }
    if (n + 2 > cap)
        return -ENOSPC;
    buf[n++] = '\'';
    buf[n] = '\0';
    *len = n;
    return 0;
}

static int append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t l = strlen(s);
    if (*len + l + 1 > cap)
        return -ENOSPC;
    memcpy(buf + *len, s, l + 1);
    *len += l;
    return 0;
}

/* " --opt 'value'" */
static int append_opt(char *buf, size_t cap, size_t *len, const char *opt, const char *val)
{
    int rc;
    if ((rc = append(buf, cap, len, " ")) < 0 || (rc = append(buf, cap, len, opt)) < 0 ||
        (rc = append(buf, cap, len, " ")) < 0)
        return rc;
    return spawn_shell_quote(val, buf, cap, len);
}

static int bad_text(const char *what, const char *s, char *err, size_t errlen)
{
    if (strchr(s, '\n') || strchr(s, '\r')) {
        snprintf(err, errlen, "%s '%s' holds a line break", what, s);
        return -EINVAL;
    }
    return 0;
}

/* The remote command: a POSIX shell line. */
static int remote_command(const struct spawn_options *o, const char *labels, char **out, char *err,
                          size_t errlen)
{
    char *buf = xmalloc(SPAWN_CMD_MAX), port[8];
    size_t len = 0;
    int rc = 0;

    snprintf(port, sizeof port, "%u", o->port);
    buf[0] = '\0';
    if (!o->address) {
        /* the client end of this ssh connection, as the host saw it; an
         * IPv6 address in brackets for HOST:PORT */
        rc = append(buf, SPAWN_CMD_MAX, &len,
                    "c=${SSH_CONNECTION%% *}; case $c in *:*) c=\"[$c]\";; esac; exec ");
    } else {
        rc = append(buf, SPAWN_CMD_MAX, &len, "exec ");
    }
    if (rc == 0)
        rc = spawn_shell_quote(o->agent_path ? o->agent_path : "nfstorm-agent", buf, SPAWN_CMD_MAX, &len);
    if (rc == 0 && !o->address) {
        rc = append(buf, SPAWN_CMD_MAX, &len, " --coordinator \"$c\":");
        if (rc == 0)
            rc = append(buf, SPAWN_CMD_MAX, &len, port);
    } else if (rc == 0) {
        char target[300];
        int v6 = strchr(o->address, ':') && o->address[0] != '[';
        snprintf(target, sizeof target, "%s%s%s:%s", v6 ? "[" : "", o->address, v6 ? "]" : "", port);
        rc = append_opt(buf, SPAWN_CMD_MAX, &len, "--coordinator", target);
    }
    if (rc == 0 && o->remote_secret)
        rc = append_opt(buf, SPAWN_CMD_MAX, &len, "--secret-file", o->remote_secret);
    else if (rc == 0)
        rc = append(buf, SPAWN_CMD_MAX, &len, " --insecure");
    for (uint32_t i = 0; rc == 0 && i < o->nallow; i++)
        rc = append_opt(buf, SPAWN_CMD_MAX, &len, "--allow", o->allow[i]);
    for (uint32_t i = 0; rc == 0 && i < o->nallow_nfs; i++)
        rc = append_opt(buf, SPAWN_CMD_MAX, &len, "--allow-nfs", o->allow_nfs[i]);
    if (rc == 0 && labels && labels[0])
        rc = append_opt(buf, SPAWN_CMD_MAX, &len, "--label", labels);
    if (rc < 0) {
        snprintf(err, errlen, "the remote command is longer than %d bytes", SPAWN_CMD_MAX - 1);
        free(buf);
        return rc;
    }
    *out = buf;
    return 0;
}

int spawn_ssh_argv(const struct spawn_options *o, const char *host, const char *labels,
                   const char **out, size_t max, char **cmd, char *err, size_t errlen)
{
    size_t n = 0;
    int rc;
    static const char *const fixed[] = {
        /* never prompt (a password or a new host key would hang the run);
         * give up on an unreachable host, and notice a dead link */
        "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
        "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
    };

    *cmd = NULL;
    if (!host[0] || host[0] == '-') {
        snprintf(err, errlen, "host '%s': not an ssh destination", host);
        return -EINVAL;
    }
    if ((rc = bad_text("host", host, err, errlen)) < 0 ||
        (labels && (rc = bad_text("label", labels, err, errlen)) < 0) ||
        (o->agent_path && (rc = bad_text("--agent-path", o->agent_path, err, errlen)) < 0) ||
        (o->remote_secret && (rc = bad_text("--remote-secret-file", o->remote_secret, err, errlen)) < 0) ||
        (o->address && (rc = bad_text("--spawn-address", o->address, err, errlen)) < 0))
        return rc;
    if (o->address && strlen(o->address) > 255) {
        snprintf(err, errlen, "--spawn-address: longer than 255 bytes");
        return -EINVAL;
    }
    for (uint32_t i = 0; i < o->nallow; i++)
        if ((rc = bad_text("--remote-allow", o->allow[i], err, errlen)) < 0)
            return rc;
    for (uint32_t i = 0; i < o->nallow_nfs; i++)
        if ((rc = bad_text("--remote-allow-nfs", o->allow_nfs[i], err, errlen)) < 0)
            return rc;
    /* ssh, -F, user -o's, our -o's, -tt, --, host, command, NULL */
    if (max < 1 + 2 + 2 * (size_t)o->nssh_opts + sizeof fixed / sizeof fixed[0] + 1 + 1 + 1 + 1 + 1) {
        snprintf(err, errlen, "too many ssh options");
        return -ENOSPC;
    }
    if ((rc = remote_command(o, labels, cmd, err, errlen)) < 0)
        return rc;
    out[n++] = o->ssh ? o->ssh : "ssh";
    if (o->ssh_config) {
        out[n++] = "-F";
        out[n++] = o->ssh_config;
    }
    /* ssh keeps the first value it gets for an option: the user's first */
    for (uint32_t i = 0; i < o->nssh_opts; i++) {
        out[n++] = "-o";
        out[n++] = o->ssh_opts[i];
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        out[n++] = fixed[i];
    out[n++] = "-tt";
    out[n++] = "--";
    out[n++] = host;
    out[n++] = *cmd;
    out[n] = NULL;
    return (int)n;
}

void spawn_fixed_dir(const char *path, int is_file, char *out, size_t len)
{
    const char *var = strstr(path, "${");
    size_t n = var ? (size_t)(var - path) : strlen(path);
    char *slash;
    if (n >= len)
        n = len - 1;
    memcpy(out, path, n);
    out[n] = '\0';
    if (var || is_file) {
        slash = strrchr(out, '/');
        if (slash)
            *(slash == out ? slash + 1 : slash) = '\0';
        else
            out[0] = '\0';
    }
}

static uint32_t add_unique(char **out, uint32_t n, uint32_t max, const char *d)
{
    if (d[0] != '/' || n == max)
        return n;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(out[i], d) == 0)
            return n;
    out[n] = xstrdup(d);
    return n + 1;
}

uint32_t spawn_plan_allow(const struct plan *plan, char **out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < plan->nphases; i++)
        for (uint32_t k = 0; k < plan->phases[i].njobs; k++) {
            const struct job_spec *js = &plan->phases[i].jobs[k];
            char d[PLAN_PATH_MAX], one[PLAN_PATH_MAX];
            if (engine_table_takes_url(js->ioengine))
                continue;
            if (js->directory[0]) {
                spawn_fixed_dir(js->directory, 0, d, sizeof d);
                n = add_unique(out, n, max, d);
                continue;
            }
            for (uint32_t f = 0; f < plan_filename_count(js->filename); f++)
                if (plan_filename_at(js->filename, f, one, sizeof one) == 0 && one[0] == '/') {
                    spawn_fixed_dir(one, 1, d, sizeof d);
                    n = add_unique(out, n, max, d);
                }
        }
    return n;
}

static int log_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;
#ifdef O_TMPFILE
    fd = open(dir && dir[0] ? dir : "/tmp", O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    snprintf(path, sizeof path, "%s/nfstorm-spawn.XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkostemp(path, O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    unlink(path);
    return fd;
}

static int start_child(struct spawn_child *c, const struct spawn_options *o, char *err, size_t errlen)
{
    const char *argv[2 * SPAWN_MAX_OPTS + 32];
    char *cmd = NULL;
    int in[2] = { -1, -1 }, rc;
    pid_t parent = getpid(), pid;

    rc = spawn_ssh_argv(o, c->host, c->labels, argv, sizeof argv / sizeof argv[0], &cmd, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = log_file()) < 0) {
        snprintf(err, errlen, "host %s: cannot make a log file: %s", c->host, strerror(-rc));
        free(cmd);
        return rc;
    }
    c->log_fd = rc;
    if (pipe2(in, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
        /* in[] is open when the pipe was made and fork failed */
        rc = -errno;
        snprintf(err, errlen, "host %s: %s: %s", c->host, in[0] >= 0 ? "fork" : "pipe", strerror(errno));
        if (in[0] >= 0) {
            close(in[0]);
            close(in[1]);
        }
        close(c->log_fd);
        c->log_fd = -1;
        free(cmd);
        return rc;
    }
    if (pid == 0) {
        /* child: only async-signal-safe calls until exec */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        setpgid(0, 0);             /* the terminal's Ctrl-C is the coordinator's */
        signal(SIGPIPE, SIG_DFL);
        if (dup2(in[0], 0) < 0 || dup2(c->log_fd, 1) < 0 || dup2(c->log_fd, 2) < 0)
            _exit(127);
        execvp(argv[0], (char *const *)argv);
        {
            static const char msg[] = "cannot run ssh\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
        }
        _exit(127);
    }
    close(in[0]);
    c->stdin_fd = in[1];
    c->pid = pid;
    free(cmd);
    return 0;
}

int spawn_fleet_start(struct spawn_fleet *f, const struct spawn_options *o, char **hosts, char **labels,
                      uint32_t n, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (o->nallow == 0) {
        snprintf(err, errlen, "the remote agents need a directory they may use (--remote-allow DIR)");
        return -EINVAL;
    }
    f->child = xcalloc(n ? n : 1, sizeof *f->child);
    for (uint32_t i = 0; i < n; i++) {
        struct spawn_child *c = &f->child[i];
        c->host = xstrdup(hosts[i]);
        c->labels = labels && labels[i] ? xstrdup(labels[i]) : NULL;
        c->log_fd = c->stdin_fd = -1;
        f->n = i + 1;
        int rc = start_child(c, o, err, errlen);
        if (rc < 0) {
            spawn_fleet_stop(f, 0);
            return rc;
        }
    }
    return 0;
}

/* "Connection to HOST closed." or "Shared connection to HOST closed." */
static int ssh_closed_notice(const char *line)
{
    size_t n = strlen(line);
    static const char tail[] = " closed.";
    if (strncmp(line, "Shared ", 7) == 0)
        line += 7, n -= 7;
    return strncmp(line, "Connection to ", 14) == 0 && n > 14 + sizeof tail - 1 &&
           strcmp(line + n - (sizeof tail - 1), tail) == 0;
}

void spawn_child_last_line(const struct spawn_child *c, char *out, size_t len)
{
    char buf[SPAWN_LOG_TAIL + 1];
    struct stat st;
    off_t from;
    ssize_t got;
    char *end, *start;

    out[0] = '\0';
    if (c->log_fd < 0 || fstat(c->log_fd, &st) < 0)
        return;
    from = st.st_size > SPAWN_LOG_TAIL ? st.st_size - SPAWN_LOG_TAIL : 0;
    got = pread(c->log_fd, buf, SPAWN_LOG_TAIL, from);
    if (got <= 0)
        return;
    buf[got] = '\0';
    for (ssize_t i = 0; i < got; i++)       /* a terminal's \r\n, and stray NULs */
        if (buf[i] == '\r' || buf[i] == '\0')
            buf[i] = '\n';
    end = buf + got;
    for (;;) {
        while (end > buf && (end[-1] == '\n' || end[-1] == ' '))
            end--;
        *end = '\0';
        start = strrchr(buf, '\n');
        start = start ? start + 1 : buf;
        /* ssh's own notice at its default log level (with -tt) comes after
         * the remote agent's error; the agent's line is the one that says
         * why, so it is skipped (not hidden with -o LogLevel: a user's
         * ssh_config may say otherwise, and ssh's real errors must stay) */
        if (start == buf || !ssh_closed_notice(start))
            break;
        end = start;
    }
    /* printable bytes only: it ends up on the user's terminal */
    size_t k = 0;
    for (; *start && k + 1 < len; start++)
        out[k++] = (*start >= 0x20 && *start < 0x7f) ? *start : '?';
    out[k] = '\0';
}

static void describe(const struct spawn_child *c, char *out, size_t len)
{
    char line[256];
    spawn_child_last_line(c, line, sizeof line);
    if (WIFEXITED(c->status))
        snprintf(out, len, "host %s: ssh exited with status %d%s%s", c->host, WEXITSTATUS(c->status),
                 line[0] ? ": " : "", line);
    else if (WIFSIGNALED(c->status))
        snprintf(out, len, "host %s: ssh killed by SIG%s%s%s", c->host, sigabbrev_np(WTERMSIG(c->status)),
                 line[0] ? ": " : "", line);
    else
        snprintf(out, len, "host %s: ssh ended", c->host);
}

int spawn_fleet_check(struct spawn_fleet *f, char *err, size_t errlen)
{
    int ended = 0;
    size_t used = 0;

    if (errlen)
        err[0] = '\0';
    for (uint32_t i = 0; i < f->n; i++) {
        struct spawn_child *c = &f->child[i];
        if (c->pid > 0) {
            int st = 0;
            pid_t r = waitpid(c->pid, &st, WNOHANG);
            if (r == c->pid) {
                c->status = st;
                c->pid = 0;
            } else if (r == 0 || (r < 0 && errno == EINTR)) {
                /* a long run's agent log must not fill the disk; only its
                 * last line matters, and only if the child ends */
                struct stat lst;
                if (c->log_fd >= 0 && fstat(c->log_fd, &lst) == 0 && lst.st_size > SPAWN_LOG_MAX) {
                    int trc = ftruncate(c->log_fd, 0);
                    (void)trc;      /* a log that cannot shrink only costs disk */
                }
                continue;
            } else {
                c->pid = 0;     /* not ours any more: count it as ended */
            }
        }
        if (c->pid == 0) {
            char one[512];
            describe(c, one, sizeof one);
            if (used < errlen) {
                int w = snprintf(err + used, errlen - used, "%s%s", ended ? "; " : "", one);
                used += w > 0 ? (size_t)w : 0;
            }
            ended++;
        }
    }
    return ended;
}

void spawn_fleet_stop(struct spawn_fleet *f, uint32_t grace_ms)
{
    uint64_t deadline;
    int left;

    if (!f->child)
        return;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->child[i].pid > 0)
            kill(f->child[i].pid, SIGTERM);
    deadline = clock_now_ns() + (uint64_t)grace_ms * 1000000u;
    for (;;) {
        left = 0;
        for (uint32_t i = 0; i < f->n; i++) {
            struct spawn_child *c = &f->child[i];
            pid_t r = c->pid > 0 ? waitpid(c->pid, &c->status, WNOHANG) : 0;
            if (r == c->pid || (r < 0 && errno != EINTR))
                c->pid = 0;
            left += c->pid > 0;
        }
        if (!left || clock_now_ns() >= deadline)
            break;
        poll(NULL, 0, 10);
    }
    for (uint32_t i = 0; i < f->n; i++) {
        struct spawn_child *c = &f->child[i];
        if (c->pid > 0) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &c->status, 0);
            c->pid = 0;
        }
        if (c->stdin_fd >= 0)
            close(c->stdin_fd);
        if (c->log_fd >= 0)
            close(c->log_fd);
        free(c->host);
        free(c->labels);
    }
    free(f->child);
    memset(f, 0, sizeof *f);
}
