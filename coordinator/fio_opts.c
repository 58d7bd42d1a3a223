/* fio_opts: fio's option objects from the recorded plan text (fio_opts.h).
 *
 * The text is nfstorm's own expansion (plan_parse_file_expanded): "[name]"
 * headers and "key=value" lines, comments already gone; or, for a plan from
 * the command line, "key=value" lines where name= starts a job, as fio's
 * command line does.  Parsed line by line with no allocation beyond the
 * JSON; a line is at most the plan text's length (capped at
 * RECORD_PLAN_MAX when recorded). */
#include "coordinator/fio_opts.h"

#include <string.h>

static void put(json_t *o, const char *k, size_t klen, const char *v, size_t vlen)
{
    char key[256];
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
    s = json_stringn(v, vlen);
    if (s)                       /* not valid UTF-8: left out rather than mangled */
        json_object_set_new(o, key, s);
}

json_t *fio_opts_section(const char *text, const char *job)
{
    json_t *o = json_object();
    int sections = text && strchr(text, '[') != NULL && (text[0] == '[' || strstr(text, "\n[") != NULL);
    int in = sections ? 0 : job == NULL;   /* command-line form starts in "global" */
    int done = 0;

    for (const char *p = text; p && *p && !done;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);

        if (sections && len >= 2 && p[0] == '[' && p[len - 1] == ']') {
            int global = len == 8 && !memcmp(p + 1, "global", 6);
            int was = in;

            in = job ? !global && strlen(job) == len - 2 && !memcmp(p + 1, job, len - 2) : global;
            done = job && was;          /* only the first section of that name */
        } else if (!sections && eq && eq - p == 4 && !memcmp(p, "name", 4)) {
            int was = in;

            in = job && strlen(job) == len - 5 && !memcmp(eq + 1, job, len - 5);
            if (job && was)
                done = 1;
            else if (in)
                put(o, p, 4, eq + 1, len - 5);
        } else if (in && len) {
            if (eq)
                put(o, p, (size_t)(eq - p), eq + 1, len - (size_t)(eq - p) - 1);
            else
                put(o, p, len, "", 0);
        }
        p = end ? end + 1 : NULL;
    }
    return o;
}
