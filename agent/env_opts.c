/* env_opts: NFSTORM_AGENT_* variables as arguments (see env_opts.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/env_opts.h"
#include "common/xmalloc.h"

int env_opts_repeatable(const char *name)
{
    return strcmp(name, "allow") == 0 || strcmp(name, "allow-nfs") == 0 ||
           strcmp(name, "label") == 0;
}

/* The command line names --name (as --name, --name=V), before any "--". */
static int on_command_line(const char *name, int argc, char **argv)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; i++) {
        const char *t = argv[i];
        if (strcmp(t, "--") == 0)
            break;
        if (t[0] == '-' && t[1] == '-' && strncmp(t + 2, name, len) == 0 &&
            (t[2 + len] == '\0' || t[2 + len] == '='))
            return 1;
    }
    return 0;
}

static void push(struct env_argv *e, int *cap, char *s, int owned)
{
    if (e->argc + 2 > *cap) {
        *cap = *cap ? *cap * 2 : 16;
        e->argv = xrealloc(e->argv, (size_t)*cap * sizeof *e->argv);
        e->owned = xrealloc(e->owned, (size_t)*cap * sizeof *e->owned);
    }
    e->argv[e->argc++] = s;
    e->argv[e->argc] = NULL;
    if (owned)
        e->owned[e->nowned++] = s;
}

/* "--name=VAL" of the first vlen bytes of val. */
static char *arg_of(const char *name, const char *val, size_t vlen)
{
    size_t n = strlen(name) + vlen + 4;
    char *s = xmalloc(n);
    snprintf(s, n, "--%s=%.*s", name, (int)vlen, val);
    return s;
}

int env_opts_build(struct env_argv *e, const struct option *opts, const char *prefix, int argc,
                   char **argv, char *err, size_t errlen)
{
    int cap = 0;

    memset(e, 0, sizeof *e);
    push(e, &cap, argv[0], 0);
    for (const struct option *o = opts; o->name; o++) {
        char var[96];
        size_t pl = strlen(prefix), i;
        const char *val;

        if (strcmp(o->name, "help") == 0 || strcmp(o->name, "version") == 0)
            continue;
        if (pl + strlen(o->name) >= sizeof var)
            continue;
        memcpy(var, prefix, pl);
        for (i = 0; o->name[i]; i++)
            var[pl + i] = o->name[i] == '-' ? '_' : (char)toupper((unsigned char)o->name[i]);
        var[pl + i] = '\0';
        if (!(val = getenv(var)) || on_command_line(o->name, argc, argv))
            continue;
        if (o->has_arg == no_argument) {
            if (!strcasecmp(val, "1") || !strcasecmp(val, "true") || !strcasecmp(val, "yes") ||
                !strcasecmp(val, "on")) {
                char *s = xmalloc(strlen(o->name) + 3);
                sprintf(s, "--%s", o->name);
                push(e, &cap, s, 1);
            } else if (val[0] && strcasecmp(val, "0") && strcasecmp(val, "false") &&
                       strcasecmp(val, "no") && strcasecmp(val, "off")) {
                snprintf(err, errlen, "%s=%.64s: want 1 (on) or 0 (off)", var, val);
                env_opts_free(e);
                return -EINVAL;
            }
            continue;
        }
        if (!val[0])
            continue;
        if (!env_opts_repeatable(o->name)) {
            push(e, &cap, arg_of(o->name, val, strlen(val)), 1);
            continue;
        }
        for (const char *p = val; *p;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            if (n)
                push(e, &cap, arg_of(o->name, p, n), 1);
            p += n + (comma ? 1 : 0);
        }
    }
    for (int i = 1; i < argc; i++)
        push(e, &cap, argv[i], 0);
    return 0;
}

void env_opts_free(struct env_argv *e)
{
    for (int i = 0; i < e->nowned; i++)
        free(e->owned[i]);
    free(e->owned);
    free(e->argv);
    memset(e, 0, sizeof *e);
}
