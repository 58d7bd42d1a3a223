/* fio_opts: fio's option objects from the recorded plan text (fio_opts.h).
 *
 * The text is nfstorm's own expansion (plan_parse_file_expanded): "[name]"
 * headers and "key=value" lines, comments already gone; or, for a plan from
 * the command line, "key=value" lines where name= starts a job, as fio's
 * command line does; or both, the command line's lines first.  Parsed line
 * by line with no allocation beyond the JSON; a line is at most the plan
 * text's length (capped at RECORD_PLAN_MAX when recorded). */
#include "coordinator/cli/fio_opts.h"

#include <string.h>
#include "common/plan_fio_keys.h"

static void put(json_t *o, const char *k, size_t klen, const char *v, size_t vlen, int as_fio)
{
    char key[256];
    const char *canon;
    json_t *s;

    while (klen && (k[klen - 1] == ' ' || k[klen - 1] == '\t'))
        klen--;
    while (vlen && (*v == ' ' || *v == '\t')) {
        v++;
        vlen--;
    }
    if (!klen || klen >= sizeof(key))
        return;
    memcpy(key, k, klen);
    key[klen] = '\0';
    /* fio writes an option under its own name (bs, not blocksize) */
    if (as_fio && (canon = plan_fio_key_alias(key)) != NULL && strlen(canon) < sizeof key)
        strcpy(key, canon);
    s = json_stringn(v, vlen);
    if (s)                       /* not valid UTF-8: left out rather than mangled */
        json_object_set_new(o, key, s);
}

/* Is the line [p, p+len) "name=<job>"? */
static int names_job(const char *p, size_t len, const char *job)
{
    return job && len > 5 && !memcmp(p, "name=", 5) && strlen(job) == len - 5 && !memcmp(p + 5, job, len - 5);
}

/* Sections mode: which section (counting headers from 1) is job's: the
 * first whose header is job, else the first holding name=job (fio names a
 * job by its name= when it has one); 0 if none. */
static int job_section(const char *text, const char *job)
{
    int k = 0, by_name = 0;
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= 2 && p[0] == '[' && p[len - 1] == ']') {
            k++;
            if (strlen(job) == len - 2 && !memcmp(p + 1, job, len - 2) &&
                !(len == 8 && !memcmp(p + 1, "global", 6)))
                return k;
        } else if (k && !by_name && names_job(p, len, job)) {
            by_name = k;
        }
        p = end ? end + 1 : NULL;
    }
    return by_name;
}

json_t *fio_opts_section_as(const char *text, const char *job, int as_fio)
{
    json_t *o = json_object();
    int sections = text && strchr(text, '[') != NULL && (text[0] == '[' || strstr(text, "\n[") != NULL);
    /* command-line form (and the command line's lines before a job file's
     * first section) start in "global" */
    int in = job == NULL;
    int want = sections && job ? job_section(text, job) : 0, k = 0, cli_job = 0;
    int done = 0;

    for (const char *p = text; p && *p && !done;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);

        if (sections && len >= 2 && p[0] == '[' && p[len - 1] == ']') {
            int global = len == 8 && !memcmp(p + 1, "global", 6);
            int was = in;

            k++;
            in = job ? k == want : global;
            done = job && was && !cli_job;     /* only the first section of that name */
            cli_job = 0;
        } else if (k == 0 && eq && eq - p == 4 && !memcmp(p, "name", 4)) {
            /* the command line's name= starts a job of its own */
            int was = in;

            in = job && names_job(p, len, job);
            cli_job = in;
            if (job && was)
                done = 1;
            else if (in)
                put(o, p, 4, eq + 1, len - 5, as_fio);
        } else if (in && len) {
            if (eq)
                put(o, p, (size_t)(eq - p), eq + 1, len - (size_t)(eq - p) - 1, as_fio);
            else if (!as_fio)
                put(o, p, len, "", 0, 0);     /* fio leaves bare flags out */
        }
        p = end ? end + 1 : NULL;
    }
    return o;
}

json_t *fio_opts_section(const char *text, const char *job)
{
    return fio_opts_section_as(text, job, 0);
}
