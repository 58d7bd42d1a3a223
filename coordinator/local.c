/* local: spawning the agents of `--local N` (see local.h).
 *
 * Each agent listens on 127.0.0.1:0 and prints the port it got on its
 * stdout; reading that line avoids the race of picking a "free" port here
 * and having it taken before the agent binds it. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "coordinator/local.h"

#define LOCAL_MAX_ALLOW 64

/* The fixed part of a plan path: everything before the first ${...}, cut
 * back to a whole directory. */
static void fixed_dir(const char *path, int is_file, char *out, size_t len)
{
    const char *var = strstr(path, "${");
    size_t n = var ? (size_t)(var - path) : strlen(path);
    if (n >= len)
        n = len - 1;
    memcpy(out, path, n);
    out[n] = '\0';
    if (var || is_file) {
        char *slash = strrchr(out, '/');
        if (slash)
            *(slash == out ? slash + 1 : slash) = '\0';
        else
            out[0] = '\0';
    }
}

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
            if (strcmp(js->ioengine, "nfs") == 0) {
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
            if (js->directory[0])
                fixed_dir(js->directory, 0, d, sizeof d);
            else if (js->filename[0] == '/')
                fixed_dir(js->filename, 1, d, sizeof d);
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
    return 0;
}

static int spawn_one(struct local_fleet *f, uint32_t i, const char *agent_path, const char *secret_path,
                     char dirs[][PATH_MAX], int ndirs, char nfs[][PATH_MAX], int nnfs, int verbose,
                     char *err, size_t errlen)
{
    int out[2];
    char line[256], logpath[300];
    const char *argv[10 + 4 * LOCAL_MAX_ALLOW + 2];
    int a = 0;
    pid_t pid, parent;
    FILE *fp;

    if (pipe(out) < 0)
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
    snprintf(logpath, sizeof logpath, "%s.agent%u.log", f->tmpdir, i);
    parent = getpid();
    pid = fork();
    if (pid < 0) {
        close(out[0]);
        close(out[1]);
        return -errno;
    }
    if (pid == 0) {
        /* our agents die with us, even if we are killed with -9 */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
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
    fp = fdopen(out[0], "r");
    if (!fp || !fgets(line, sizeof line, fp) || strncmp(line, "listening on ", 13) != 0) {
        snprintf(err, errlen, "local agent %u did not start (%s); see %s", i, agent_path, logpath);
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

/* A random secret, hex-encoded so the file is plain text. */
static int write_secret(struct auth_secret *s, const char *path)
{
    struct auth_secret raw;
    static const char hex[] = "0123456789abcdef";
    int fd, rc = 0;

    if (auth_random_secret(&raw) < 0)
        return -EIO;
    for (size_t i = 0; i < raw.len; i++) {
        s->key[2 * i] = (unsigned char)hex[raw.key[i] >> 4];
        s->key[2 * i + 1] = (unsigned char)hex[raw.key[i] & 15];
    }
    s->len = 2 * raw.len;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (write(fd, s->key, s->len) != (ssize_t)s->len)
        rc = -EIO;
    close(fd);
    return rc;
}

int local_fleet_start(struct local_fleet *f, uint32_t n, const char *agent_path,
                      const struct plan *plan, int verbose, char *err, size_t errlen)
{
    static char dirs[LOCAL_MAX_ALLOW][PATH_MAX], nfs[LOCAL_MAX_ALLOW][PATH_MAX];
    char secret_path[300];
    int ndirs = 0, nnfs = 0, rc;
    const char *tmp = getenv("TMPDIR");

    memset(f, 0, sizeof *f);
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
    snprintf(secret_path, sizeof secret_path, "%s.secret", f->tmpdir);
    if ((rc = write_secret(&f->secret, secret_path)) < 0) {
        snprintf(err, errlen, "cannot write a one-time secret to %s: %s", secret_path, strerror(-rc));
        local_fleet_stop(f);
        return rc;
    }
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = spawn_one(f, i, agent_path, secret_path, dirs, ndirs, nfs, nnfs, verbose, err, errlen)) < 0) {
            if (!err[0])
                snprintf(err, errlen, "cannot start local agent %u: %s", i, strerror(-rc));
            local_fleet_stop(f);
            return rc;
        }
    }
    return 0;
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

void local_fleet_stop(struct local_fleet *f)
{
    char log[300];
    for (uint32_t i = 0; i < f->n; i++)
        if (f->pid[i] > 0)
            kill(f->pid[i], SIGTERM);
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->pid[i] > 0)
            waitpid(f->pid[i], NULL, 0);
        free(f->addr[i]);
        snprintf(log, sizeof log, "%s.agent%u.log", f->tmpdir, i);
        unlink(log);
    }
    if (f->tmpdir[0]) {
        snprintf(log, sizeof log, "%s.secret", f->tmpdir);
        unlink(log);
    }
    if (f->tmpdir[0])
        remove_tree(f->tmpdir);
    free(f->pid);
    free(f->addr);
    memset(f, 0, sizeof *f);
}
