/* clean: see clean.h.  One request = one heap context that owns the
 * decoded plan; the worker fills the counts, the after-work callback on the
 * loop thread sends the answer and frees the context. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "agent/clean.h"
#include "agent/clean_nfs.h"
#include "agent/phase.h"
#include "common/engine_table.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "proto/msg.h"

struct clean_ctx {
    uv_work_t work;
    struct agent *agent;
    char peer[64];
    struct msg_plan plan;
    struct agent_identity id;
    struct msg_cleaned done;
    char last[PLAN_PATH_MAX];      /* the previous path: shared files come once per thread */
    struct clean_nfs nfs;          /* ioengine=nfs jobs' server, mounted while files share it */
    int rc;
    char err[PHASE_ERR_MAX];
    atomic_int *cancel;            /* the session's: set when it ends */
    void (*on_done)(void *arg);
    void *arg;
};

static void note(struct clean_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct clean_ctx *c, const char *fmt, ...)
{
    va_list ap;
    if (c->done.note[0])
        return;                        /* the first one says enough */
    va_start(ap, fmt);
    vsnprintf(c->done.note, sizeof c->done.note, fmt, ap);
    va_end(ap);
}

/* dir (canonical, beneath root) as an O_PATH fd opened beneath root. */
static int open_dir_beneath(const char *root, const char *dir)
{
    struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    const char *rel = dir + strlen(root);
    int rootfd, fd;

    while (*rel == '/')
        rel++;
    if ((rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof how);
    if (fd < 0 && errno == ENOSYS)     /* kernel < 5.6: the confinement check is what we have */
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    close(rootfd);
    return fd;
}

/* A file of an ioengine=nfs job: through libnfs on the job's server, its
 * URL beneath --allow-nfs (clean_nfs.h).  A server that cannot be reached
 * stops the walk (the clean fails, naming it); a name left alone is noted. */
static int clean_one_nfs(struct clean_ctx *c, const struct job_spec *js, const char *path)
{
    char url[PLAN_PATH_MAX], err[PHASE_ERR_MAX];
    uint64_t bytes;
    int rc;

    if ((rc = phase_job_nfs_url(js, &c->id, url, sizeof url, c->err, sizeof c->err)) < 0)
        return rc;
    rc = clean_nfs_remove(&c->nfs, url, path, &bytes, err, sizeof err);
    if (rc == 1) {
        c->done.files++;
        c->done.bytes += bytes;
    } else if (rc == -EISDIR || rc == -EPERM) {
        note(c, "%s", err);
    } else if (rc < 0 && !c->nfs.nfs) {
        snprintf(c->err, sizeof c->err, "job '%s': %s", js->name, err);
        return rc;                     /* no server: the clean fails here */
    } else if (rc < 0) {
        note(c, "%s", err);
    }
    return 0;
}

/* One file the plan names: remove it if it is a regular file beneath an
 * allowed root.  Only a failure to expand or confine stops the walk. */
static int clean_one(void *arg, const struct job_spec *js, const char *path)
{
    struct clean_ctx *c = arg;
    char parent[PLAN_PATH_MAX], dir[PLAN_PATH_MAX];
    const char *slash, *base, *root;
    struct stat st;
    int dfd, rc;

    if (atomic_load(c->cancel)) {
        snprintf(c->err, sizeof c->err, "stopped: the coordinator went away");
        return -ECANCELED;
    }
    if (strcmp(path, c->last) == 0)
        return 0;
    snprintf(c->last, sizeof c->last, "%s", path);
    if (engine_table_takes_url(js->ioengine))
        return clean_one_nfs(c, js, path);
    if (!engine_table_local(js->ioengine))
        return 0;
    slash = strrchr(path, '/');
    if (!slash || !slash[1]) {
        snprintf(c->err, sizeof c->err, "job '%s': '%s' is not a file path", js->name, path);
        return -EINVAL;
    }
    base = slash + 1;
    snprintf(parent, sizeof parent, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    /* the directory is confined (symlinks in it followed, then checked);
     * the file's own name is never followed */
    if ((rc = paths_confine(c->id.allow, parent, dir, sizeof dir, c->err, sizeof c->err)) < 0)
        return rc;
    if (!(root = paths_root_of(c->id.allow, dir)))
        return 0;
    if ((dfd = open_dir_beneath(root, dir)) < 0) {
        if (errno != ENOENT)
            note(c, "%s: %s", dir, strerror(errno));
        return 0;
    }
    if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode))
            note(c, "%s/%s: not a regular file, left alone", dir, base);
        else if (unlinkat(dfd, base, 0) == 0) {
            c->done.files++;
            c->done.bytes += (uint64_t)st.st_size;
        } else if (errno != ENOENT)   /* another agent sharing it removed it first */
            note(c, "%s/%s: cannot remove it: %s", dir, base, strerror(errno));
    }
    close(dfd);
    return 0;
}

/* The probe of another agent index: does a file it would name exist? */
#define CLEAN_PROBE_INDICES 64         /* msg_cleaned.others' bits */
#define CLEAN_PROBE_FILES   64         /* names tried per index, at most */
struct probe {
    struct clean_ctx *c;
    const struct agent_identity *id;   /* the other index's */
    uint32_t tried;
};

static int probe_one(void *arg, const struct job_spec *js, const char *path)
{
    struct probe *pr = arg;
    char parent[PLAN_PATH_MAX], dir[PLAN_PATH_MAX], err[PHASE_ERR_MAX];
    const char *slash = strrchr(path, '/'), *root;
    struct stat st;
    int dfd, found = 0;

    if (atomic_load(pr->c->cancel) || ++pr->tried > CLEAN_PROBE_FILES)
        return -ECANCELED;
    if (engine_table_takes_url(js->ioengine)) {
        char url[PLAN_PATH_MAX];
        if (phase_job_nfs_url(js, pr->id, url, sizeof url, err, sizeof err) < 0)
            return 0;
        return clean_nfs_exists(&pr->c->nfs, url, path) ? -EEXIST : 0;
    }
    if (!engine_table_local(js->ioengine) || !slash || !slash[1])
        return 0;
    snprintf(parent, sizeof parent, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    if (paths_confine(pr->c->id.allow, parent, dir, sizeof dir, err, sizeof err) < 0 ||
        !(root = paths_root_of(pr->c->id.allow, dir)) || (dfd = open_dir_beneath(root, dir)) < 0)
        return 0;
    found = fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    close(dfd);
    return found ? -EEXIST : 0;
}

/* Nothing was removed: which other agent indices' names are there (a run
 * on another fleet, where this agent had another index, wrote them). */
static void probe_others(struct clean_ctx *c)
{
    const struct plan *p = &c->plan.plan;
    char err[PHASE_ERR_MAX];

    for (uint32_t k = 0; k < CLEAN_PROBE_INDICES; k++) {
        struct agent_identity other = c->id;
        struct probe pr = { c, NULL, 0 };
        if (k == c->id.index)
            continue;
        other.index = k;
        if (other.nagents <= k)
            other.nagents = k + 1;
        pr.id = &other;
        for (uint32_t i = 0; i < p->nphases; i++) {
            int rc = phase_each_file(&p->phases[i], &other, probe_one, &pr, err, sizeof err);
            if (rc == -EEXIST) {
                c->done.others |= 1ull << k;
                break;
            }
            if (rc < 0)
                break;
        }
    }
}

static void clean_work(uv_work_t *w)
{
    struct clean_ctx *c = w->data;
    const struct plan *p = &c->plan.plan;

    for (uint32_t i = 0; i < p->nphases && c->rc == 0; i++)
        c->rc = phase_each_file(&p->phases[i], &c->id, clean_one, c, c->err, sizeof c->err);
    if (c->rc == 0 && c->done.files == 0)
        probe_others(c);
    clean_nfs_close(&c->nfs);
}

static void clean_done(uv_work_t *w, int status)
{
    struct clean_ctx *c = w->data;
    struct buf b;

    buf_init(&b);
    if (status < 0 || c->rc < 0) {
        struct msg_error m;
        snprintf(m.text, sizeof m.text, "agent %u (%s): clean: %s", c->id.index, c->agent->host,
                 status < 0 ? uv_strerror(status) : c->err);
        log_warn("to %s: %s", c->peer, m.text);
        msg_error_encode(&b, &m);
    } else {
        log_info("clean for %s: removed %llu files, %llu bytes", c->peer,
                 (unsigned long long)c->done.files, (unsigned long long)c->done.bytes);
        msg_cleaned_encode(&b, &c->done);
    }
    session_send_active(c->agent, c->peer, &b);
    c->on_done(c->arg);
    msg_plan_free(&c->plan);
    free(c);
}

int clean_request(struct agent *a, const char *peer, const struct msg_frame *f,
                  atomic_int *cancel, void (*on_done)(void *arg), void *arg,
                  char *err, size_t errlen)
{
    struct clean_ctx *c = xcalloc(1, sizeof *c);
    int rc;

    if ((rc = msg_clean_decode(f, &c->plan, err, errlen)) < 0) {
        free(c);
        return rc;
    }
    c->agent = a;
    c->cancel = cancel;
    c->on_done = on_done;
    c->arg = arg;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    c->id.index = c->plan.agent_index;
    c->id.nagents = c->plan.nagents;
    c->id.host = a->host;
    c->id.allow = &a->allow;
    c->id.allow_nfs = &a->allow_nfs;
    /* the same check a plan gets: every path beneath --allow */
    if ((rc = phase_check_plan(&c->plan.plan, &c->id, err, errlen)) < 0)
        goto fail;
    c->work.data = c;
    if ((rc = uv_queue_work(a->loop, &c->work, clean_work, clean_done)) < 0) {
        snprintf(err, errlen, "cannot queue the removal: %s", uv_strerror(rc));
        goto fail;
    }
    log_info("clean from %s: %u phases, agent %u of %u", peer, c->plan.plan.nphases, c->id.index,
             c->id.nagents);
    return 0;
fail:
    msg_plan_free(&c->plan);
    free(c);
    return rc;
}
