/* plan_parse: fio job files and fio-style command lines into a struct plan.
 *
 * Design.  Both front ends funnel every key through plan_job_set, which is
 * driven by one table of {key, kind, offset}: adding a key is one line there
 * plus its docs in docs/plans.md.  Values are parsed into a temporary and
 * stored only when valid, so a failed set never leaves a half-written field.
 *
 * Job files go through libinih, with a line reader in front of it that
 * adapts fio's dialect, for four reasons found in the Debian 12 build (r55):
 *  - lines without '=' ("time_based") are errors unless INI_ALLOW_NO_VALUE,
 *    which the library was built without.  (Debian's patch does export the
 *    options as variables, ini_allow_no_value among them, but those are
 *    process-wide state and upstream inih has no such variables, so we do
 *    not rely on them.)  The reader turns a bare "key" into "key=".
 *  - the handler gets no line number (INI_HANDLER_LINENO is 0 in the build);
 *    inih calls the handler right after the reader hands it a line, so the
 *    reader's own count is the line of the key being handled, and the reader
 *    never adds or drops lines so inih's count stays the same as ours.
 *  - the handler is not called for a section with no keys, yet "[job]" alone
 *    is a complete fio job inheriting [global]; so the reader recognises
 *    section headers itself (it ends the previous job there) and passes inih
 *    an empty line instead.
 *  - lines are cut at INI_MAX_LINE (200) bytes, shorter than a path may be;
 *    a line that would not fit is handled by the reader directly.
 * The reader also strips leading blanks (an indented line would otherwise
 * continue the previous value, a Python-configparser rule fio does not have)
 * and inline comments (';' or '#' after a blank, as fio allows both).
 *
 * Errors stop the parse at the first one: the message is filled in, the
 * reader then reports end of input, and the partial plan is thrown away. */
#include "common/plan_parse.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"

/* ---- the key table ---------------------------------------------------- */

enum key_kind {
    K_STR,       /* char[cap]; value must fit */
    K_NAME,      /* like K_STR but must not be empty */
    K_RW,        /* enum rw_mode from fio's words */
    K_MIXREAD,   /* percent 0..100 */
    K_MIXWRITE,  /* percent 0..100, stored as rwmixread = 100 - value */
    K_SIZE,      /* uint64_t bytes, k/m/g suffixes */
    K_U32,       /* uint32_t plain decimal */
    K_DURATION,  /* uint64_t ns; a bare number is seconds, as fio's runtime */
    K_BOOL,      /* int; no value or empty means 1 */
    K_ENGINE,    /* char[cap] ioengine name, aliases folded */
};

struct key_def {
    const char *name;
    enum key_kind kind;
    size_t off;
    size_t cap;          /* K_STR/K_NAME/K_ENGINE buffer size */
};

#define FIELD(f)     offsetof(struct job_spec, f), 0
#define STRFIELD(f)  offsetof(struct job_spec, f), sizeof(((struct job_spec *)0)->f)

/* fio's spellings, aliases included (fio: "readwrite" is an alias of the rw
 * key, "blocksize" of bs, "timeout" of runtime, "wait_for_previous" of
 * stonewall). */
static const struct key_def keys[] = {
    { "name",              K_NAME,     STRFIELD(name) },
    { "rw",                K_RW,       FIELD(rw) },
    { "readwrite",         K_RW,       FIELD(rw) },
    { "rwmixread",         K_MIXREAD,  FIELD(rwmixread) },
    { "rwmixwrite",        K_MIXWRITE, FIELD(rwmixread) },
    { "bs",                K_SIZE,     FIELD(bs) },
    { "blocksize",         K_SIZE,     FIELD(bs) },
    { "size",              K_SIZE,     FIELD(size) },
    { "filesize",          K_SIZE,     FIELD(filesize) },
    { "nrfiles",           K_U32,      FIELD(nrfiles) },
    { "numjobs",           K_U32,      FIELD(numjobs) },
    { "runtime",           K_DURATION, FIELD(runtime_ns) },
    { "timeout",           K_DURATION, FIELD(runtime_ns) },
    { "time_based",        K_BOOL,     FIELD(time_based) },
    { "ramp_time",         K_DURATION, FIELD(ramp_ns) },
    { "direct",            K_BOOL,     FIELD(direct) },
    { "fsync",             K_U32,      FIELD(fsync) },
    { "end_fsync",         K_BOOL,     FIELD(end_fsync) },
    { "filename",          K_STR,      STRFIELD(filename) },
    { "directory",         K_STR,      STRFIELD(directory) },
    { "stonewall",         K_BOOL,     FIELD(stonewall) },
    { "wait_for_previous", K_BOOL,     FIELD(stonewall) },
    { "group_reporting",   K_BOOL,     FIELD(group_reporting) },
    { "ioengine",          K_ENGINE,   STRFIELD(ioengine) },
    { "iodepth",           K_U32,      FIELD(iodepth) },
    { "nfs_url",           K_STR,      STRFIELD(nfs_url) },
};

/* ioengine spellings: fio's sync and pvsync do the same positioned,
 * blocking I/O as far as a load generator is concerned, so they all run the
 * psync engine. */
static const struct {
    const char *name;
    const char *engine;
} engines[] = {
    { "psync", "psync" }, { "sync", "psync" }, { "pvsync", "psync" },
    { "null", "null" },
    { "nfs", "nfs" },
};

static const struct key_def *key_lookup(const char *key)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(key, keys[i].name) == 0)
            return &keys[i];
    return NULL;
}

int plan_is_key(const char *key)
{
    return key && key_lookup(key) != NULL;
}

static int parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (units_parse_u64(s, &v) || v > UINT32_MAX)
        return -EINVAL;
    *out = (uint32_t)v;
    return 0;
}

static int parse_percent(const char *s, uint32_t *out)
{
    if (parse_u32(s, out) || *out > 100)
        return -EINVAL;
    return 0;
}

int plan_job_set(struct job_spec *j, const char *key, const char *value)
{
    const struct key_def *k = key ? key_lookup(key) : NULL;
    if (!k)
        return -ENOENT;
    if (!value)
        value = "";      /* a bare flag: "--time_based", "stonewall" */
    char *field = (char *)j + k->off;
    uint64_t u64;
    uint32_t u32;
    int b;

    switch (k->kind) {
    case K_NAME:
    case K_STR:
        if (k->kind == K_NAME && value[0] == '\0')
            return -EINVAL;
        if (strlen(value) >= k->cap)
            return -EINVAL;
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case K_RW: {
        int rw = rw_mode_from_name(value);
        if (rw < 0)
            return -EINVAL;
        *(enum rw_mode *)(void *)field = (enum rw_mode)rw;
        return 0;
    }
    case K_MIXREAD:
        if (parse_percent(value, &u32))
            return -EINVAL;
        memcpy(field, &u32, sizeof(u32));
        return 0;
    case K_MIXWRITE:
        if (parse_percent(value, &u32))
            return -EINVAL;
        u32 = 100 - u32;
        memcpy(field, &u32, sizeof(u32));
        return 0;
    case K_SIZE:
        if (units_parse_size(value, &u64))
            return -EINVAL;
        memcpy(field, &u64, sizeof(u64));
        return 0;
    case K_U32:
        if (parse_u32(value, &u32))
            return -EINVAL;
        memcpy(field, &u32, sizeof(u32));
        return 0;
    case K_DURATION:
        if (units_parse_duration(value, NS_PER_SEC, &u64))
            return -EINVAL;
        memcpy(field, &u64, sizeof(u64));
        return 0;
    case K_BOOL:
        if (units_parse_bool(value, &b))
            return -EINVAL;
        memcpy(field, &b, sizeof(b));
        return 0;
    case K_ENGINE:
        for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
            if (strcmp(value, engines[i].name) == 0) {
                snprintf(field, k->cap, "%s", engines[i].engine);
                return 0;
            }
        }
        return -EINVAL;
    }
    return -EINVAL;
}

/* ---- shared by both front ends ---------------------------------------- */

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Fill what fio derives, then validate.  fio: with only filesize given, the
 * job's size is filesize * nrfiles. */
static int job_finish(struct job_spec *j, char *err, size_t errlen)
{
    if (j->size == 0 && j->filesize != 0 &&
        __builtin_mul_overflow(j->filesize, (uint64_t)j->nrfiles, &j->size)) {
        set_err(err, errlen, "job '%s': filesize * nrfiles is too large", j->name);
        return -EINVAL;
    }
    return job_spec_validate(j, err, errlen);
}

/* plan_add_job keeps any job; the limits are checked here so the user gets
 * a message instead of a plan the wire would refuse. */
static int add_checked(struct plan *p, const struct job_spec *j, char *err, size_t errlen)
{
    if (p->nphases == 0 || j->stonewall) {
        if (p->nphases >= PLAN_MAX_PHASES) {
            set_err(err, errlen, "too many phases (max %d)", PLAN_MAX_PHASES);
            return -EINVAL;
        }
    } else if (p->phases[p->nphases - 1].njobs >= PLAN_MAX_JOBS) {
        set_err(err, errlen, "too many jobs in phase '%s' (max %d; use stonewall to start a new phase)",
                p->phases[p->nphases - 1].name, PLAN_MAX_JOBS);
        return -EINVAL;
    }
    plan_add_job(p, j);
    return 0;
}

/* ---- job files ---------------------------------------------------------- */

enum section { SEC_NONE, SEC_GLOBAL, SEC_JOB };

struct ini_ctx {
    const char *file;        /* name used in messages */
    const char *pos, *end;   /* unread text */
    unsigned line;           /* line last handed to inih (1-based) */
    unsigned sec_line;       /* line of the current section header */
    enum section sec;
    struct job_spec global;  /* [global] settings so far */
    struct job_spec job;     /* the job section being read */
    struct plan plan;
    char *err;
    size_t errlen;
    int rc;                  /* first error; the parse stops on it */
};

__attribute__((format(printf, 2, 3)))
static void ctx_fail(struct ini_ctx *c, const char *fmt, ...)
{
    if (c->rc)
        return;
    c->rc = -EINVAL;
    if (!c->err || !c->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
}

static void section_end(struct ini_ctx *c)
{
    if (c->sec != SEC_JOB || c->rc)
        return;
    char why[512];
    if (job_finish(&c->job, why, sizeof(why))) {
        ctx_fail(c, "%s: %s", c->file, why);
        return;
    }
    if (add_checked(&c->plan, &c->job, why, sizeof(why)))
        ctx_fail(c, "%s:%u: %s", c->file, c->sec_line, why);
}

static void section_begin(struct ini_ctx *c, const char *name, size_t len)
{
    section_end(c);
    if (c->rc)
        return;
    c->sec_line = c->line;
    if (len == 6 && memcmp(name, "global", 6) == 0) {
        /* A later [global] adds to the earlier ones, for the jobs after it. */
        c->sec = SEC_GLOBAL;
        return;
    }
    if (len >= PLAN_NAME_MAX) {
        ctx_fail(c, "%s:%u: section name too long (max %d characters)",
                 c->file, c->line, PLAN_NAME_MAX - 1);
        return;
    }
    c->job = c->global;
    memcpy(c->job.name, name, len);
    c->job.name[len] = '\0';
    c->sec = SEC_JOB;
}

static void apply_key(struct ini_ctx *c, const char *key, const char *value)
{
    if (c->rc)
        return;
    if (c->sec == SEC_NONE) {
        ctx_fail(c, "%s:%u: key '%s' before any [section]", c->file, c->line, key);
        return;
    }
    /* The job name comes from the section; a name in [global] would be
     * silently overridden by every section, so say so instead. */
    if (c->sec == SEC_GLOBAL && strcmp(key, "name") == 0) {
        ctx_fail(c, "%s:%u: 'name' cannot be set in [global]", c->file, c->line);
        return;
    }
    struct job_spec *j = c->sec == SEC_GLOBAL ? &c->global : &c->job;
    int rc = plan_job_set(j, key, value);
    if (rc == -ENOENT)
        ctx_fail(c, "%s:%u: unknown key '%s'", c->file, c->line, key);
    else if (rc)
        ctx_fail(c, "%s:%u: bad value for '%s': '%s'", c->file, c->line, key, value);
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* inih's handler: inih split "key=value" and trimmed both. */
static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
    (void)section;   /* sections are tracked by the reader, see the top */
    struct ini_ctx *c = user;
    apply_key(c, name, value ? value : "");
    return c->rc == 0;
}

/* inih's fgets-style reader over the text; see the design note for what it
 * rewrites.  Every source line yields exactly one line for inih. */
static char *ini_reader_cb(char *str, int num, void *stream)
{
    struct ini_ctx *c = stream;
    if (c->rc || c->pos >= c->end)
        return NULL;
    const char *s = c->pos;
    const char *nl = memchr(s, '\n', (size_t)(c->end - s));
    const char *e = nl ? nl : c->end;
    c->pos = nl ? nl + 1 : c->end;
    c->line++;
    str[0] = '\0';

    if (c->line == 1 && e - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;      /* UTF-8 byte order mark */
    if (e > s && e[-1] == '\r')
        e--;         /* CRLF files */
    while (s < e && is_blank(*s))
        s++;
    if (s == e || *s == ';' || *s == '#')
        return str;

    if (*s == '[') {
        const char *close = memchr(s, ']', (size_t)(e - s));
        if (!close) {
            ctx_fail(c, "%s:%u: missing ']' in section header", c->file, c->line);
            return NULL;
        }
        const char *after = close + 1;
        while (after < e && is_blank(*after))
            after++;
        if (after < e && *after != ';' && *after != '#') {
            ctx_fail(c, "%s:%u: unexpected text after section header", c->file, c->line);
            return NULL;
        }
        const char *n = s + 1, *ne = close;
        while (n < ne && is_blank(*n))
            n++;
        while (ne > n && is_blank(ne[-1]))
            ne--;
        if (n == ne) {
            ctx_fail(c, "%s:%u: empty section name", c->file, c->line);
            return NULL;
        }
        section_begin(c, n, (size_t)(ne - n));
        return c->rc ? NULL : str;
    }

    /* Inline comment: ';' or '#' after a blank, so "nfs_url=...#x" keeps
     * its '#'. */
    for (const char *p = s + 1; p < e; p++) {
        if ((*p == ';' || *p == '#') && is_blank(p[-1])) {
            e = p;
            break;
        }
    }
    while (e > s && is_blank(e[-1]))
        e--;

    const char *eq = memchr(s, '=', (size_t)(e - s));
    size_t len = (size_t)(e - s);
    /* Room for the text, a '=' we may add and the NUL, with one byte spare
     * so inih never mistakes a full buffer for a cut line. */
    if (num > 0 && len + 3 <= (size_t)num) {
        memcpy(str, s, len);
        if (!eq)
            str[len++] = '=';    /* bare flag: "time_based" */
        str[len] = '\0';
        return str;
    }

    /* Too long for inih's buffer: split it here, the way inih would. */
    const char *ke = eq ? eq : e;
    while (ke > s && is_blank(ke[-1]))
        ke--;
    const char *v = eq ? eq + 1 : e;
    while (v < e && is_blank(*v))
        v++;
    char *key = xmalloc((size_t)(ke - s) + 1);
    memcpy(key, s, (size_t)(ke - s));
    key[ke - s] = '\0';
    char *val = xmalloc((size_t)(e - v) + 1);
    memcpy(val, v, (size_t)(e - v));
    val[e - v] = '\0';
    apply_key(c, key, val);
    free(key);
    free(val);
    return c->rc ? NULL : str;
}

int plan_parse_string(const char *name, const char *text, struct plan *out, char *err, size_t errlen)
{
    struct ini_ctx c;
    memset(&c, 0, sizeof(c));
    c.file = name ? name : "<string>";
    c.pos = text ? text : "";
    c.end = c.pos + strlen(c.pos);
    c.err = err;
    c.errlen = errlen;
    job_spec_default(&c.global);
    plan_init(&c.plan);
    plan_init(out);
    if (err && errlen)
        err[0] = '\0';

    int r = ini_parse_stream(ini_reader_cb, &c, ini_handler_cb, &c);
    if (!c.rc && r > 0)      /* inih refused a line the reader let through */
        ctx_fail(&c, "%s:%d: syntax error", c.file, r);
    else if (!c.rc && r < 0)
        ctx_fail(&c, "%s: parser out of memory", c.file);
    section_end(&c);
    if (!c.rc && c.plan.nphases == 0)
        ctx_fail(&c, "%s: no job sections", c.file);
    if (c.rc) {
        plan_free(&c.plan);
        return c.rc;
    }
    *out = c.plan;
    return 0;
}

/* Plans are a few lines; anything this big is not a job file. */
#define PLAN_FILE_MAX (16u << 20)

int plan_parse_file(const char *path, struct plan *out, char *err, size_t errlen)
{
    plan_init(out);
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return -e;
    }
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (cap - len < 2) {
            if (cap >= PLAN_FILE_MAX) {
                fclose(f);
                free(buf);
                set_err(err, errlen, "%s: file too large (max %u bytes)", path, PLAN_FILE_MAX);
                return -EFBIG;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        fclose(f);
        free(buf);
        set_err(err, errlen, "%s: cannot read: %s", path, strerror(e));
        return -e;
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        set_err(err, errlen, "%s: not a text file (contains a NUL byte)", path);
        return -EINVAL;
    }
    int rc = plan_parse_string(path, buf, out, err, errlen);
    free(buf);
    return rc;
}

/* ---- command line --------------------------------------------------------- */

/* fio's command line: options before the first --name are global (they
 * apply to every job that follows); each --name starts a job.  With no
 * --name at all the options make one job called "job". */
int plan_parse_args(int argc, char **argv, struct plan *out, char *err, size_t errlen)
{
    plan_init(out);
    if (err && errlen)
        err[0] = '\0';
    if (argc <= 0 || !argv) {
        set_err(err, errlen, "no job given");
        return -EINVAL;
    }
    struct job_spec global, job;
    job_spec_default(&global);
    int have_job = 0;
    struct plan p;
    plan_init(&p);
    int rc = 0;

    for (int i = 0; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!a || a[0] != '-') {
            set_err(err, errlen, "unknown option '%s'", a ? a : "");
            rc = -EINVAL;
            break;
        }
        const char *k = a + (a[1] == '-' ? 2 : 1);
        const char *eq = strchr(k, '=');
        size_t klen = eq ? (size_t)(eq - k) : strlen(k);
        const char *value = eq ? eq + 1 : NULL;
        char key[32];
        if (klen < sizeof(key)) {
            memcpy(key, k, klen);
            key[klen] = '\0';
        }
        if (klen >= sizeof(key) || !plan_is_key(key)) {
            set_err(err, errlen, "unknown option '%s'", a);
            rc = -EINVAL;
            break;
        }
        if (strcmp(key, "name") == 0) {
            if (have_job) {
                rc = job_finish(&job, err, errlen);
                if (!rc)
                    rc = add_checked(&p, &job, err, errlen);
                if (rc)
                    break;
            }
            job = global;
            have_job = 1;
        }
        if (plan_job_set(have_job ? &job : &global, key, value)) {
            set_err(err, errlen, "--%s: bad value '%s'", key, value ? value : "");
            rc = -EINVAL;
        }
    }
    if (!rc) {
        if (!have_job) {
            job = global;
            snprintf(job.name, sizeof(job.name), "%s", "job");
        }
        rc = job_finish(&job, err, errlen);
        if (!rc)
            rc = add_checked(&p, &job, err, errlen);
    }
    if (rc) {
        plan_free(&p);
        return rc;
    }
    *out = p;
    return 0;
}
