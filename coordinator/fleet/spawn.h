/* spawn: `nfstorm run --hosts FILE --spawn ssh`: an agent started over ssh
 * on each host of the file for one run, dialling back to this coordinator,
 * and stopped when the run ends.
 *
 * Each host gets one `ssh` child process (the system's ssh: its own config,
 * keys and agent; never a password prompt, BatchMode=yes) running
 *   exec AGENT_PATH --coordinator ME:PORT --secret-file REMOTE_SECRET
 *        --allow DIR ... [--allow-nfs URL ...] [--label NAME ...]
 * in a pseudo-terminal (ssh -tt): when the ssh session ends, for whatever
 * reason (we stop it, the coordinator dies, the network goes), the remote
 * kernel hangs the terminal up and the agent gets SIGHUP, so no agent
 * outlives its session.  ssh children die with the coordinator
 * (PR_SET_PDEATHSIG), so a coordinator killed with -9 ends them too.
 *
 * ME is --spawn-address when given; otherwise the remote shell takes it
 * from $SSH_CONNECTION (the address this machine's connection came from,
 * as the host saw it: the one it can reach us at, unless NAT is between),
 * which needs a POSIX shell as the remote user's login shell.
 *
 * Each child's stdout and stderr (ssh's messages and, through the
 * terminal, the agent's log) go to an unlinked temporary file whose last
 * line names why a host failed (spawn_fleet_check): nothing stays on disk,
 * and a file past 1 MiB starts again (checked on every spawn_fleet_check).
 * Single-threaded: call from the coordinator's main thread only. */
#ifndef NFSTORM_SPAWN_H
#define NFSTORM_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/plan.h"

#define SPAWN_MAX_OPTS 64     /* --ssh-option, --remote-allow, --remote-allow-nfs each */

struct spawn_options {
    const char *ssh;                 /* the ssh binary; NULL: "ssh" on PATH */
    const char *ssh_config;          /* --ssh-config F: ssh -F F; NULL: ssh's defaults */
    const char *ssh_opts[SPAWN_MAX_OPTS];   /* --ssh-option OPT: ssh -o OPT, in order */
    uint32_t nssh_opts;
    const char *agent_path;          /* --agent-path; NULL: "nfstorm-agent" */
    const char *remote_secret;       /* --remote-secret-file; NULL: no secret (--insecure) */
    const char *address;             /* --spawn-address HOST; NULL: from $SSH_CONNECTION */
    uint16_t port;                   /* the port the coordinator listens on */
    const char *allow[SPAWN_MAX_OPTS];      /* --allow of the remote agents (at least one) */
    uint32_t nallow;
    const char *allow_nfs[SPAWN_MAX_OPTS];  /* --allow-nfs of the remote agents */
    uint32_t nallow_nfs;
};

struct spawn_child {
    char *host;                      /* ssh destination, as in the hosts file */
    char *labels;                    /* comma-joined, or NULL */
    pid_t pid;                       /* 0 once reaped */
    int status;                      /* waitpid status once reaped */
    int log_fd;                      /* unlinked file: its stdout + stderr */
    int stdin_fd;                    /* write end of its stdin (kept open, never written) */
};

struct spawn_fleet {
    uint32_t n;
    struct spawn_child *child;
};

/* The remote agents' default --allow list when none is given: the fixed
 * part (before any ${...}, cut to a whole directory) of each absolute
 * directory= or filename= the plan names, without duplicates, at most max
 * (xmalloc'd strings in out; the caller frees them).  Relative paths are
 * the agent's business (its first --allow), so they add nothing.  The
 * number found. */
uint32_t spawn_plan_allow(const struct plan *plan, char **out, uint32_t max);
/* path's fixed directory into out: before the first ${, back to a '/'; a
 * file name (is_file) loses its last component.  What --remote-allow and
 * --local's --allow (local.c) default to. */
void spawn_fixed_dir(const char *path, int is_file, char *out, size_t len);

/* The ssh command line for one host (argv[0] is the ssh binary), in out
 * (NULL-terminated, at most max entries including the NULL); the last
 * argument is the remote command, quoted for a POSIX shell.  Pure: no
 * process is started.  Number of arguments, or -ENOSPC / -EINVAL (a
 * label or path with a newline or NUL byte cannot be quoted) with a reason
 * in err.  The strings are o's, host's and labels', except the remote
 * command: *cmd (the caller frees it). */
int spawn_ssh_argv(const struct spawn_options *o, const char *host, const char *labels,
                   const char **out, size_t max, char **cmd, char *err, size_t errlen);

/* Quote s for a POSIX shell ('...' with ' as '\''), appended to buf (of
 * cap bytes, *len used).  0, or -ENOSPC. */
int spawn_shell_quote(const char *s, char *buf, size_t cap, size_t *len);

/* Start one ssh child per host (hosts[i], labels[i] may be NULL).  0, or
 * -errno with a reason naming the host in err; on failure nothing is left
 * running.  The fleet copies hosts and labels. */
int spawn_fleet_start(struct spawn_fleet *f, const struct spawn_options *o, char **hosts, char **labels,
                      uint32_t n, char *err, size_t errlen);

/* Without blocking: has any ssh child ended?  0 when all run; otherwise
 * the number that ended, with err naming each ("host h2: ssh exited with
 * status 255: Permission denied (publickey)."), up to errlen. */
int spawn_fleet_check(struct spawn_fleet *f, char *err, size_t errlen);

/* The last non-empty line the child for host i wrote (its ssh's or its
 * agent's), in out; empty if none. */
void spawn_child_last_line(const struct spawn_child *c, char *out, size_t len);

/* Stop every child (SIGTERM to ssh, which ends the session and so the
 * remote agent; SIGKILL after grace_ms), reap them and free.  Safe on a
 * zeroed or already stopped fleet. */
void spawn_fleet_stop(struct spawn_fleet *f, uint32_t grace_ms);

#endif
