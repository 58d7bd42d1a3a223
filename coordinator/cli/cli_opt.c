/* cli_opt: see cli_opt.h.  A row per option keeps the parsers of the
 * commands to their few options with rules of their own. */
#include "coordinator/cli/cli_opt.h"

#include <stdio.h>
#include <string.h>
#include "common/units.h"

const char *cmd_opt_value(const char *name, int argc, char **argv, int *i, int *bad)
{
    size_t n = strlen(name);
    const char *a = argv[*i];

    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "nfstorm: %s needs a value\n", name);
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

/* v into o's field at f: 0, or 2 after its one-line error. */
static int opt_store(const struct cli_opt *o, char *base, const char *cmd, const char *v)
{
    void *f = base + o->off;
    uint32_t *count = (uint32_t *)(void *)(base + o->n_off);
    uint64_t n;

    if (!v[0] && (o->kind == CO_WORD || o->kind == CO_LIST)) {
        fprintf(stderr, "nfstorm: %s%s: an empty value\n", cmd, o->name);
        return 2;
    }
    switch (o->kind) {
    case CO_STR:
    case CO_WORD:
        if (o->want && strcmp(v, o->want) != 0)
            break;
        *(const char **)f = v;
        return 0;
    case CO_LIST:
        if (*count == o->max) {
            fprintf(stderr, "nfstorm: %s%s: more than %llu given\n", cmd, o->name, (unsigned long long)o->max);
            return 2;
        }
        ((const char **)f)[(*count)++] = v;
        return 0;
    case CO_DUR:
        if (units_parse_duration(v, 1000000000ull, &n) < 0 || n < o->min || n > o->max)
            break;
        *(uint64_t *)f = n;
        return 0;
    default:    /* CO_COUNT */
        if (units_parse_u64(v, &n) < 0 || n < o->min || n > o->max)
            break;
        *(uint32_t *)f = (uint32_t)n;
        return 0;
    }
    if (o->want)
        fprintf(stderr, "nfstorm: %s%s: bad value '%s' (want %s)\n", cmd, o->name, v, o->want);
    else
        fprintf(stderr, "nfstorm: %s%s: bad value '%s' (want %llu..%llu)\n", cmd, o->name, v,
                (unsigned long long)o->min, (unsigned long long)o->max);
    return 2;
}

int cli_opt_take(const struct cli_opt *t, size_t n, void *base, const char *cmd, int argc, char **argv, int *i)
{
    for (size_t k = 0; k < n; k++) {
        const char *v;
        int missing = 0;

        if (t[k].kind == CO_FLAG) {
            if (strcmp(argv[*i], t[k].name) != 0)
                continue;
            *(int *)(void *)((char *)base + t[k].off) = 1;
            return 1;
        }
        if ((v = cmd_opt_value(t[k].name, argc, argv, i, &missing)))
            return opt_store(&t[k], base, cmd, v) ? 2 : 1;
        if (missing)
            return 2;               /* cmd_opt_value said which */
    }
    return 0;
}
