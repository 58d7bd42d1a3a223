/* plan_files: naming a job's files (see plan_files.h).  Pure string work:
 * no file system access, so the coordinator can show exactly what agents
 * will touch (--dry-run) and the agent can confine it afterwards. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "common/plan_files.h"
#include "common/rotate.h"
#include "common/why.h"
#include "common/names.h"

static int append(char *out, size_t outlen, size_t *o, const char *s, size_t n,
                  char *err, size_t errlen)
{
    if (*o + n >= outlen) {
        snprintf(err, errlen, "path too long after expansion");
        return -ENAMETOOLONG;
    }
    memcpy(out + *o, s, n);
    *o += n;
    out[*o] = '\0';
    return 0;
}

/* in into out with each of toks[] replaced by vals[] of the same index
 * (its case ignored when nocase); otherwise "${" is an unknown variable. */
static int substitute(const char *in, const char *const *toks, const char *const *vals, size_t n, int nocase,
                      char *out, size_t outlen, char *err, size_t errlen)
{
    size_t o = 0;
    int rc;

    if (outlen == 0)
        return -ENAMETOOLONG;
    out[0] = '\0';
    while (*in) {
        const char *val = in;
        size_t k, len = 1;
        for (k = 0; k < n; k++)
            if ((nocase ? strncasecmp : strncmp)(in, toks[k], strlen(toks[k])) == 0)
                break;
        if (k < n) {
            val = vals[k];
            len = strlen(val);
            in += strlen(toks[k]);
        } else if (!nocase && in[0] == '$' && in[1] == '{') {
            return why_fail(err, errlen, "unknown variable in '%s' (known: ${agent}, ${host}, ${job}, ${nagents})", in);
        } else {
            in++;
        }
        if ((rc = append(out, outlen, &o, val, len, err, errlen)) < 0)
            return rc;
    }
    return 0;
}

int plan_expand(const char *in, const struct plan_vars *v, char *out, size_t outlen,
                char *err, size_t errlen)
{
    static const char *const toks[] = { "${agent}", "${job}", "${nagents}", "${host}" };
    char num[3][24];
    const char *const vals[] = { num[0], num[1], num[2], v->host ? v->host : "" };

    snprintf(num[0], sizeof num[0], "%u", v->agent);
    snprintf(num[1], sizeof num[1], "%u", v->job);
    snprintf(num[2], sizeof num[2], "%u", v->nagents);
    return substitute(in, toks, vals, NELEM(toks), 0, out, outlen, err, errlen);
}

/* fio's filename_format: $jobname, $jobnum, $filenum, $clientuid (and our
 * $agent).  fio's $clientuid is the address of the fio server process, so
 * each server of a client/server run writes its own files; nfstorm's
 * equivalent is the agent's index (agents on one host share an address),
 * the same value as $agent.  Matched without regard to case, as fio. */
static int format_name(const char *fmt, const struct job_spec *js, uint32_t agent,
                       uint32_t thread, uint32_t file, char *out, size_t outlen,
                       char *err, size_t errlen)
{
    static const char *const toks[] = { "$jobname", "$jobnum", "$filenum", "$agent", "$clientuid" };
    char num[3][24];
    const char *const vals[] = { js->name, num[0], num[1], num[2], num[2] };

    snprintf(num[0], sizeof num[0], "%u", thread);
    snprintf(num[1], sizeof num[1], "%u", file);
    snprintf(num[2], sizeof num[2], "%u", agent);
    return substitute(fmt, toks, vals, NELEM(toks), 1, out, outlen, err, errlen);
}

/* fio's list rule: ':' separates names, "\\:" is a colon inside one; any
 * other backslash is an ordinary character. */
uint32_t plan_filename_count(const char *list)
{
    uint32_t n = list[0] ? 1 : 0;

    for (const char *p = list; *p; p++) {
        if (p[0] == '\\' && p[1] == ':')
            p++;
        else if (*p == ':')
            n++;
    }
    return n;
}

int plan_filename_at(const char *list, uint32_t i, char *out, size_t outlen)
{
    size_t o = 0;

    for (const char *p = list; *p; p++) {
        char ch = *p;
        if (p[0] == '\\' && p[1] == ':')
            ch = *++p;
        else if (ch == ':') {
            if (i-- == 0)
                break;
            continue;
        }
        if (i > 0)
            continue;
        if (o + 1 >= outlen)
            return -ENAMETOOLONG;
        out[o++] = ch;
    }
    if (outlen)
        out[o] = '\0';
    return 0;
}

uint32_t plan_files_per_thread(const struct job_spec *js)
{
    uint32_t n = plan_filename_count(js->filename);
    return n ? n : (js->nrfiles ? js->nrfiles : 1);
}

int plan_file_path(const struct job_spec *js, const struct plan_vars *v, uint32_t thread,
                   uint32_t file, const char *default_dir, char *out, size_t outlen,
                   char *err, size_t errlen)
{
    char dir[PLAN_PATH_MAX], name[PLAN_PATH_MAX], tmp[PLAN_PATH_MAX];
    struct plan_vars rv = *v;
    int rc;

    /* rotate=K: the names agent (i + K) mod N gives its files */
    rv.agent = rotate_source(v->agent, js->rotate, v->nagents);
    v = &rv;
    if ((rc = plan_expand(js->directory, v, tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    if (tmp[0] == '/' || !default_dir[0])
        snprintf(dir, sizeof dir, "%s", tmp);
    else if (tmp[0])
        snprintf(dir, sizeof dir, "%s/%s", default_dir, tmp);
    else
        snprintf(dir, sizeof dir, "%s", default_dir);

    if (js->filename[0]) {
        uint32_t n = plan_filename_count(js->filename);
        if ((rc = plan_filename_at(js->filename, n ? file % n : 0, tmp, sizeof tmp)) < 0) {
            snprintf(err, errlen, "path too long");
            return rc;
        }
        rc = plan_expand(tmp, v, name, sizeof name, err, errlen);
    }
    else if (js->filename_format[0])
        rc = format_name(js->filename_format, js, v->agent, thread, file, name, sizeof name, err, errlen);
    else
        rc = snprintf(name, sizeof name, "%s.%u.%u.%u", js->name, v->agent, thread, file) < 0 ? -EINVAL : 0;
    if (rc < 0)
        return rc;

    if (name[0] == '/' || !dir[0])
        rc = snprintf(out, outlen, "%s", name);
    else
        rc = snprintf(out, outlen, "%s/%s", dir, name);
    if (rc < 0 || (size_t)rc >= outlen) {
        snprintf(err, errlen, "path too long");
        return -ENAMETOOLONG;
    }
    return 0;
}
