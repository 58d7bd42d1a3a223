/* plan_parse: fio job files and fio-style command lines into a struct plan.
 *
 * Design.  Both front ends funnel every key through plan_job_set, which is
 * driven by one table of {key, kind, offset} in plan_keys.c: adding a key is
 * one line there plus its docs in docs/plans.md.  This file is syntax only:
 * sections, includes, ${VAR}, matrix bookkeeping, messages.
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
 * reader then reports end of input, and the partial plan is thrown away.
 *
 * `include FILE` is the reader's too: it pushes the file on a small stack
 * of sources and hands inih an empty line, so every message names the file
 * and line the key really came from.  inih's own line count then no longer
 * matches ours, but inih only uses it for syntax errors, which the reader's
 * rewriting leaves no way to cause.  ${VAR} is expanded from the
 * environment in each value just before it is set; the four path variables
 * of plan_files.h are kept verbatim for the agent.  matrix= is kept as a
 * string per job and expanded (plan_matrix.c) when the job is complete
 * (plan_complete.c: derived values, checks, sweep and matrix expansion). */
#include "common/plan_parse.h"
#include "common/plan_complete.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/plan_fio_keys.h"
#include "common/names.h"
#include "common/xmalloc.h"
#include "common/why.h"

/* ---- job files ---------------------------------------------------------- */

enum section { SEC_NONE, SEC_GLOBAL, SEC_JOB };

/* What [global] (or the options before the first --name) has set so far,
 * or the job being read on top of it: a job starts as a copy of global. */
struct scope {
    struct job_spec spec;
    char matrix[PLAN_MATRIX_MAX];   /* matrix=, expanded when the job is complete */
    int nrfiles;                    /* nrfiles was set */
};

/* key=value into s: matrix= kept as text once checked, the rest set on the
 * job.  plan_job_set_why's result, why filled in. */
static int scope_set(struct scope *s, const char *key, const char *value, char *why, size_t whylen)
{
    int rc;
    if (strcmp(key, "matrix") == 0) {
        if ((rc = plan_matrix_check(value ? value : "", NULL, why, whylen)) == 0)
            snprintf(s->matrix, sizeof s->matrix, "%s", value);
        return rc;
    }
    rc = plan_job_set_why(&s->spec, key, value, why, whylen);
    if (rc == 0 && strcmp(key, "nrfiles") == 0)
        s->nrfiles = 1;
    return rc;
}

/* One file being read; src[0] is the plan itself, the rest are includes. */
struct source {
    char *file;              /* name used in messages (owned) */
    char *text;              /* owned buffer */
    char *real;              /* realpath, for cycles; NULL for a string (owned) */
    const char *pos, *end;   /* unread text */
    unsigned line;           /* line last handed to inih (1-based) */
};

struct ini_ctx {
    struct source src[PLAN_INCLUDE_DEPTH + 1];
    int depth;               /* index of the source being read */
    char sec_file[PLAN_PATH_MAX];  /* where the current section began */
    unsigned sec_line;
    enum section sec;
    struct scope global;     /* [global] settings so far */
    struct scope job;        /* the job section being read */
    struct plan plan;
    char *err;
    size_t errlen;
    int rc;                  /* first error; the parse stops on it */
    /* the plan as read (plan_parse_file_expanded), or NULL: sections and
     * keys after includes and ${VAR}, comments dropped */
    char *exp;
    size_t exp_len, exp_cap;
    plan_key_visit_fn visit;  /* plan_visit_keys: keys go here, no plan is built */
    void *visit_user;
    /* the section's size-valued keys so far, applied again when a kb_base
     * follows them (fio reads a section's kb_base before its sizes) */
    struct { char key[32]; char value[512]; } sized[32];
    unsigned nsized;
    int raw;                  /* plan_visit_string_raw: no ${VAR}, no include followed */
};

#define CUR(c) (&(c)->src[(c)->depth])

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
    if (c->sec != SEC_JOB || c->rc || c->visit)
        return;
    char why[512];
    int about_job;
    if (plan_job_complete(&c->plan, &c->job.spec, c->job.matrix, c->job.nrfiles, why, sizeof(why), &about_job)) {
        if (about_job)
            ctx_fail(c, "%s: %s", c->sec_file, why);
        else
            ctx_fail(c, "%s:%u: %s", c->sec_file, c->sec_line, why);
    }
}

/* Append to the expanded text (when asked for), capped at PLAN_TEXT_MAX. */
static void exp_put(struct ini_ctx *c, const char *a, size_t alen, const char *b, const char *end)
{
    size_t n = alen + strlen(b) + strlen(end);
    if (!c->exp || c->exp_len + n >= PLAN_TEXT_MAX)
        return;
    if (c->exp_len + n + 1 > c->exp_cap) {
        c->exp_cap = (c->exp_len + n + 1) * 2;
        c->exp = xrealloc(c->exp, c->exp_cap);
    }
    memcpy(c->exp + c->exp_len, a, alen);
    c->exp_len += alen;
    c->exp_len += (size_t)sprintf(c->exp + c->exp_len, "%s%s", b, end);
}

static void section_begin(struct ini_ctx *c, const char *name, size_t len)
{
    exp_put(c, c->exp_len ? "\n[" : "[", c->exp_len ? 2 : 1, "", "");
    exp_put(c, name, len, "]", "\n");
    section_end(c);
    if (c->rc)
        return;
    snprintf(c->sec_file, sizeof(c->sec_file), "%s", CUR(c)->file);
    c->sec_line = CUR(c)->line;
    c->nsized = 0;
    if (len == 6 && memcmp(name, "global", 6) == 0) {
        /* A later [global] adds to the earlier ones, for the jobs after it. */
        c->sec = SEC_GLOBAL;
        return;
    }
    if (len >= PLAN_NAME_MAX) {
        ctx_fail(c, "%s:%u: section name too long (max %d characters)",
                 CUR(c)->file, CUR(c)->line, PLAN_NAME_MAX - 1);
        return;
    }
    c->job = c->global;
    memcpy(c->job.spec.name, name, len);
    c->job.spec.name[len] = '\0';
    c->sec = SEC_JOB;
}

/* ${VAR} from the environment, as fio does; the path variables stay.  An
 * unset (or empty-named) variable expands to nothing, as fio's
 * fio_option_dup_subs does; the first one's name goes to unset (if not
 * NULL; "" when every variable was set) so the caller can say so. */
static int expand_env(struct ini_ctx *c, const char *key, const char *in, char *out, size_t outlen,
                      char *unset, size_t unsetlen)
{
    if (unset && unsetlen)
        unset[0] = '\0';
    size_t o = 0;
    while (*in) {
        const char *val = in;
        size_t n = 1, adv = 1;
        if (in[0] == '$' && in[1] == '{' && strchr(in + 2, '}')) {
            const char *name = in + 2;
            size_t nlen = (size_t)(strchr(name, '}') - name);
            adv = nlen + 3;
            n = adv;                      /* a path variable: copied as is */
            if (!names_list_has("agent host job nagents", ' ', name, nlen)) {
                char var[128];
                if (nlen >= sizeof(var)) {
                    ctx_fail(c, "%s:%u: bad variable '%.*s' in '%s'", CUR(c)->file, CUR(c)->line,
                             (int)adv, in, key);
                    return -EINVAL;
                }
                memcpy(var, name, nlen);
                var[nlen] = '\0';
                val = getenv(var);
                if (!val) {
                    if (unset && unsetlen && !unset[0])
                        snprintf(unset, unsetlen, "%s", var);
                    val = "";
                }
                n = strlen(val);
            }
        }
        if (o + n >= outlen) {
            ctx_fail(c, "%s:%u: value of '%s' too long after expansion", CUR(c)->file,
                     CUR(c)->line, key);
            return -EINVAL;
        }
        memcpy(out + o, val, n);
        o += n;
        in += adv;
    }
    out[o] = '\0';
    return 0;
}

/* A kb_base after sizes in its section: read them again in its base, in
 * their order, so the section means what it says whatever the order. */
static void reapply_sizes(struct ini_ctx *c, struct job_spec *j, const char *file, unsigned line)
{
    char why[256];
    for (unsigned i = 0; i < c->nsized && !c->rc; i++)
        if (plan_job_set_why(j, c->sized[i].key, c->sized[i].value, why, sizeof(why)))
            ctx_fail(c, "%s:%u: kb_base: bad value for '%s': '%s'%s%s%s", file, line,
                     c->sized[i].key, c->sized[i].value, why[0] ? " (" : "", why, why[0] ? ")" : "");
}

static void apply_key(struct ini_ctx *c, const char *key, const char *raw)
{
    const char *file = CUR(c)->file;
    unsigned line = CUR(c)->line;
    char value[PLAN_PATH_MAX * 2], why[256];
    const char *note = NULL;

    if (c->rc)
        return;
    if (c->sec == SEC_NONE) {
        ctx_fail(c, "%s:%u: key '%s' before any [section]", file, line, key);
        return;
    }
    /* name= in [global] is accepted as fio accepts it: every job section
     * then gives its job its own name (the section's, or a name= of its
     * own), so the global one names no job, in fio as here. */
    char unset[128] = "";
    if (c->raw) {
        /* a policy judges the text as written: nothing of ours is read */
        if (strlen(raw) >= sizeof(value)) {
            ctx_fail(c, "%s:%u: value of '%s' too long", file, line, key);
            return;
        }
        snprintf(value, sizeof(value), "%s", raw);
    } else if (expand_env(c, key, raw, value, sizeof(value), unset, sizeof(unset))) {
        return;
    }
    if (unset[0]) {
        snprintf(why, sizeof(why), "%s:%u: environment variable '%s' is not set (used in '%s'); "
                 "it expands to nothing, as in fio", file, line, unset, key);
        plan_add_warning(&c->plan, why);
    }
    exp_put(c, key, strlen(key), value[0] ? "=" : "", "");
    exp_put(c, value, strlen(value), "", "\n");
    if (c->visit) {
        c->visit(c->visit_user, file, line, c->sec == SEC_GLOBAL ? "global" : c->job.spec.name, key, value);
        return;
    }
    switch (plan_key_fio_status(key, &note)) {
    case FIO_KEY_SAME:
        return;
    case FIO_KEY_IGNORED:
        snprintf(why, sizeof(why), "%s:%u: '%s' is not implemented by nfstorm%s%s%s; ignored",
                 file, line, key, note ? " (" : "", note ? note : "", note ? ")" : "");
        plan_add_warning(&c->plan, why);
        return;
    case FIO_KEY_REFUSED:
        ctx_fail(c, "%s:%u: '%s' is refused by nfstorm (%s)", file, line, key, note ? note : "");
        return;
    default:
        break;
    }
    struct scope *s = c->sec == SEC_GLOBAL ? &c->global : &c->job;
    int rc = scope_set(s, key, value, why, sizeof(why));
    if (rc && strcmp(key, "matrix") == 0) {
        ctx_fail(c, "%s:%u: bad value for 'matrix': %s", file, line, why);
    } else if (rc == -ENOENT) {
        const char *near = plan_key_suggest(key);
        if (near)
            ctx_fail(c, "%s:%u: unknown key '%s' (did you mean '%s'?)", file, line, key, near);
        else
            ctx_fail(c, "%s:%u: unknown key '%s'", file, line, key);
    } else if (rc && unset[0]) {
        ctx_fail(c, "%s:%u: bad value for '%s': '%s' (environment variable '%s' is not set%s%s)",
                 file, line, key, value, unset, why[0] ? "; " : "", why);
    } else if (rc) {
        ctx_fail(c, "%s:%u: bad value for '%s': '%s'%s%s%s", file, line, key, value,
                 why[0] ? " (" : "", why, why[0] ? ")" : "");
    } else if (strcmp(key, "kb_base") == 0) {
        reapply_sizes(c, &s->spec, file, line);
    } else if (plan_key_reads_size(key)) {
        if (c->nsized == sizeof(c->sized) / sizeof(c->sized[0]) ||
            strlen(key) >= sizeof(c->sized[0].key) || strlen(value) >= sizeof(c->sized[0].value)) {
            ctx_fail(c, "%s:%u: too many or too long size keys in one section (kb_base needs "
                     "them again)", file, line);
            return;
        }
        snprintf(c->sized[c->nsized].key, sizeof(c->sized[0].key), "%s", key);
        snprintf(c->sized[c->nsized].value, sizeof(c->sized[0].value), "%s", value);
        c->nsized++;
    }
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

/* Plans are a few lines; anything this big is not a job file. */
#define PLAN_FILE_MAX (16u << 20)

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "a special file";
}

/* Whole file into *out (NUL-terminated, owned by the caller).  Messages
 * start with `what` (the path, or "file:line: include 'x'").  Only a
 * regular file is read: a FIFO or a device would block or never end, so
 * it is opened without blocking and refused after fstat. */
static int read_text(const char *path, const char *what, char **out, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    FILE *f;

    if (fd < 0) {
        int e = errno;
        why_fail(err, errlen, "%s: cannot open: %s", what, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) < 0) {
        int e = errno;
        why_fail(err, errlen, "%s: cannot stat: %s", what, strerror(e));
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        why_fail(err, errlen, "%s: %s, not a regular file: a plan must be a file", what,
                file_kind(st.st_mode));
        close(fd);
        return -EINVAL;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "r"))) {
        int e = errno;
        close(fd);
        why_fail(err, errlen, "%s: cannot open: %s", what, strerror(e));
        return -e;
    }
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (cap - len < 2) {
            if (cap >= PLAN_FILE_MAX) {
                fclose(f);
                free(buf);
                why_fail(err, errlen, "%s: file too large (max %u bytes)", what, PLAN_FILE_MAX);
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
        why_fail(err, errlen, "%s: cannot read: %s", what, strerror(e));
        return -e;
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        return why_fail(err, errlen, "%s: not a text file (contains a NUL byte)", what);
    }
    *out = buf;
    return 0;
}

static void source_free(struct source *s)
{
    free(s->file);
    free(s->text);
    free(s->real);
    memset(s, 0, sizeof(*s));
}

/* `include NAME` at the current line: NAME relative to the including
 * file's directory. */
static void include_file(struct ini_ctx *c, const char *s, const char *e)
{
    struct source *cur = CUR(c);
    char raw[PLAN_PATH_MAX], name[PLAN_PATH_MAX], path[PLAN_PATH_MAX * 2], what[PLAN_PATH_MAX * 3];
    size_t n = (size_t)(e - s);

    if (n == 0 || n >= sizeof(raw)) {
        ctx_fail(c, "%s:%u: include needs a file name", cur->file, cur->line);
        return;
    }
    memcpy(raw, s, n);
    raw[n] = '\0';
    char unset[128];
    if (expand_env(c, "include", raw, name, sizeof(name), unset, sizeof(unset)))
        return;
    if (unset[0]) {
        ctx_fail(c, "%s:%u: include '%s': environment variable '%s' is not set", cur->file,
                 cur->line, raw, unset);
        return;
    }
    const char *slash = strrchr(cur->file, '/');
    if (name[0] == '/' || !slash)
        snprintf(path, sizeof(path), "%s", name);
    else
        snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - cur->file), cur->file, name);
    if (c->depth == PLAN_INCLUDE_DEPTH) {
        ctx_fail(c, "%s:%u: include '%s': nested more than %d deep", cur->file, cur->line, name,
                 PLAN_INCLUDE_DEPTH);
        return;
    }
    char *real = realpath(path, NULL);
    for (int i = 0; real && i <= c->depth; i++) {
        if (c->src[i].real && strcmp(c->src[i].real, real) == 0) {
            ctx_fail(c, "%s:%u: include '%s': cycle (the file is already being read)",
                     cur->file, cur->line, name);
            free(real);
            return;
        }
    }
    snprintf(what, sizeof(what), "%s:%u: include '%s'", cur->file, cur->line, path);
    char *text = NULL;
    if (read_text(path, what, &text, c->err, c->errlen)) {
        c->rc = -EINVAL;
        free(real);
        return;
    }
    struct source *ns = &c->src[++c->depth];
    ns->file = xstrdup(path);
    ns->text = text;
    ns->real = real;
    ns->pos = text;
    ns->end = text + strlen(text);
    ns->line = 0;
}

/* inih's fgets-style reader over the sources; see the design note for what
 * it rewrites.  Every source line yields exactly one line for inih. */
static char *ini_reader_cb(char *str, int num, void *stream)
{
    struct ini_ctx *c = stream;
    while (!c->rc && c->depth > 0 && CUR(c)->pos >= CUR(c)->end)
        source_free(&c->src[c->depth--]);      /* an include is done */
    struct source *src = CUR(c);
    if (c->rc || src->pos >= src->end)
        return NULL;
    const char *s = src->pos;
    const char *nl = memchr(s, '\n', (size_t)(src->end - s));
    const char *e = nl ? nl : src->end;
    src->pos = nl ? nl + 1 : src->end;
    src->line++;
    str[0] = '\0';

    if (src->line == 1 && e - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
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
            ctx_fail(c, "%s:%u: missing ']' in section header", src->file, src->line);
            return NULL;
        }
        const char *after = close + 1;
        while (after < e && is_blank(*after))
            after++;
        if (after < e && *after != ';' && *after != '#') {
            ctx_fail(c, "%s:%u: unexpected text after section header", src->file, src->line);
            return NULL;
        }
        const char *n = s + 1, *ne = close;
        while (n < ne && is_blank(*n))
            n++;
        while (ne > n && is_blank(ne[-1]))
            ne--;
        if (n == ne) {
            ctx_fail(c, "%s:%u: empty section name", src->file, src->line);
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
    if (!eq && e - s > 8 && memcmp(s, "include", 7) == 0 && is_blank(s[7])) {
        const char *f = s + 8;
        while (f < e && is_blank(*f))
            f++;
        if (c->raw) {
            /* reported as a key named "include", never read */
            char name[PLAN_PATH_MAX];
            snprintf(name, sizeof(name), "%.*s", (int)(e - f), f);
            c->visit(c->visit_user, src->file, src->line,
                     c->sec == SEC_GLOBAL ? "global" : c->sec == SEC_NONE ? "" : c->job.spec.name, "include", name);
            return str;
        }
        include_file(c, f, e);
        return c->rc ? NULL : str;
    }
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

/* Parse text owned by the caller; real is the file's realpath (or NULL);
 * expanded, if not NULL, gets the plan as read (owned by the caller). */
static int parse_text(const char *name, const char *real, const char *text, const struct job_spec *base,
                      struct plan *out, char **expanded, plan_key_visit_fn visit, void *visit_user,
                      int raw, char *err, size_t errlen)
{
    struct ini_ctx *c = xcalloc(1, sizeof(*c));   /* ~15 KB: keep it off the stack */
    c->raw = raw;
    c->visit = visit;
    c->visit_user = visit_user;
    if (expanded) {
        *expanded = NULL;
        c->exp = xmalloc(c->exp_cap = 256);
        c->exp[0] = '\0';
    }
    c->src[0].file = xstrdup(name ? name : "<string>");
    c->src[0].real = real ? xstrdup(real) : NULL;
    c->src[0].pos = text ? text : "";
    c->src[0].end = c->src[0].pos + strlen(c->src[0].pos);
    c->err = err;
    c->errlen = errlen;
    if (base)
        c->global.spec = *base;
    else
        job_spec_default(&c->global.spec);
    plan_init(&c->plan);
    plan_init(out);
    if (err && errlen)
        err[0] = '\0';

    int r = ini_parse_stream(ini_reader_cb, c, ini_handler_cb, c);
    if (!c->rc && r > 0)      /* inih refused a line the reader let through */
        ctx_fail(c, "%s:%d: syntax error", c->src[0].file, r);
    else if (!c->rc && r < 0)
        ctx_fail(c, "%s: parser out of memory", c->src[0].file);
    section_end(c);
    if (!c->rc && c->plan.nphases == 0 && !c->visit)
        ctx_fail(c, "%s: no job sections", c->src[0].file);
    int rc = c->rc;
    if (rc)
        plan_free(&c->plan);
    else
        *out = c->plan;
    for (int i = 0; i <= c->depth; i++)
        source_free(&c->src[i]);
    if (expanded && rc == 0)
        *expanded = c->exp;
    else
        free(c->exp);
    free(c);
    return rc;
}

int plan_parse_string(const char *name, const char *text, struct plan *out, char *err, size_t errlen)
{
    return parse_text(name, NULL, text, NULL, out, NULL, NULL, NULL, 0, err, errlen);
}

int plan_parse_file(const char *path, struct plan *out, char *err, size_t errlen)
{
    return plan_parse_file_expanded(path, out, NULL, err, errlen);
}

int plan_parse_file_expanded(const char *path, struct plan *out, char **expanded, char *err,
                             size_t errlen)
{
    return plan_parse_file_over(path, NULL, out, expanded, err, errlen);
}

/* parse_text over the file at path (its realpath for include cycles). */
static int parse_path(const char *path, const struct job_spec *base, struct plan *out, char **expanded,
                      plan_key_visit_fn visit, void *visit_user, char *err, size_t errlen)
{
    char *buf = NULL;
    int rc = read_text(path, path, &buf, err, errlen);
    if (rc)
        return rc;
    char *real = realpath(path, NULL);
    rc = parse_text(path, real, buf, base, out, expanded, visit, visit_user, 0, err, errlen);
    free(real);
    free(buf);
    return rc;
}

int plan_parse_file_over(const char *path, const struct job_spec *base, struct plan *out,
                         char **expanded, char *err, size_t errlen)
{
    plan_init(out);
    if (expanded)
        *expanded = NULL;
    return parse_path(path, base, out, expanded, NULL, NULL, err, errlen);
}

int plan_visit_keys(const char *path, plan_key_visit_fn visit, void *user, char *err, size_t errlen)
{
    struct plan p;
    plan_init(&p);
    int rc = parse_path(path, NULL, &p, NULL, visit, user, err, errlen);
    plan_free(&p);
    return rc;
}

int plan_visit_string_raw(const char *name, const char *text, plan_key_visit_fn visit, void *user, char *err,
                          size_t errlen)
{
    struct plan p;
    int rc = parse_text(name, NULL, text, NULL, &p, NULL, visit, user, 1, err, errlen);
    plan_free(&p);
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
    if (argc <= 0 || !argv)
        return why_fail(err, errlen, "no job given");
    struct scope global = { .nrfiles = 0 }, job;
    char why[256];
    int about_job;
    job_spec_default(&global.spec);
    int have_job = 0;
    struct plan p;
    plan_init(&p);
    int rc = 0;

    for (int i = 0; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!a || a[0] != '-') {
            why_fail(err, errlen, "unknown option '%s'", a ? a : "");
            rc = -EINVAL;
            break;
        }
        const char *k = a + (a[1] == '-' ? 2 : 1);
        const char *eq = strchr(k, '=');
        size_t klen = eq ? (size_t)(eq - k) : strlen(k);
        const char *value = eq ? eq + 1 : NULL;
        char key[32];
        const char *note = NULL;
        if (klen < sizeof(key)) {
            memcpy(key, k, klen);
            key[klen] = '\0';
        }
        int fst = klen < sizeof(key) ? plan_key_fio_status(key, &note) : -1;
        if (fst == FIO_KEY_SAME)
            continue;
        if (fst == FIO_KEY_IGNORED) {
            snprintf(why, sizeof(why), "option '%.*s' is not implemented by nfstorm%s%s%s; ignored",
                     (int)(k - a + (ptrdiff_t)klen), a, note ? " (" : "", note ? note : "",
                     note ? ")" : "");
            plan_add_warning(&p, why);
            continue;
        }
        if (fst == FIO_KEY_REFUSED) {
            why_fail(err, errlen, "option '%.*s' is refused by nfstorm (%s)",
                    (int)(k - a + (ptrdiff_t)klen), a, note ? note : "");
            rc = -EINVAL;
            break;
        }
        if (klen >= sizeof(key) || !plan_is_key(key)) {
            const char *near = klen < sizeof(key) ? plan_key_suggest(key) : NULL;
            if (near)
                why_fail(err, errlen, "unknown option '%s' (did you mean '%.*s%s'?)", a,
                        (int)(k - a), a, near);
            else
                why_fail(err, errlen, "unknown option '%s'", a);
            rc = -EINVAL;
            break;
        }
        if (strcmp(key, "name") == 0) {
            if (have_job &&
                (rc = plan_job_complete(&p, &job.spec, job.matrix, job.nrfiles, err, errlen, &about_job)))
                break;
            job = global;
            have_job = 1;
        }
        if (scope_set(have_job ? &job : &global, key, value, why, sizeof(why)) == 0)
            continue;
        if (strcmp(key, "matrix") == 0)
            why_fail(err, errlen, "--matrix: %s", why);
        else
            why_fail(err, errlen, "--%s: bad value '%s'%s%s%s", key, value ? value : "",
                     why[0] ? " (" : "", why, why[0] ? ")" : "");
        rc = -EINVAL;
    }
    if (!rc) {
        if (!have_job) {
            job = global;
            snprintf(job.spec.name, sizeof(job.spec.name), "%s", "job");
        }
        rc = plan_job_complete(&p, &job.spec, job.matrix, job.nrfiles, err, errlen, &about_job);
    }
    if (rc) {
        plan_free(&p);
        return rc;
    }
    *out = p;
    return 0;
}
