/* fio_compat: the per-key compatibility report (see the header).
 *
 * Design.  The keys are collected first (plan_visit_keys reads a job file
 * with the parser's own reader, so includes, ${VAR} and comments are
 * treated exactly as a run treats them), each classified on its own
 * (plan key: its value tried on a scratch job; else the inventory), and
 * only then printed, so the columns line up.  The verdict is the real
 * parser's: a plan may fail for reasons no single key shows (size missing,
 * bs larger than the file), and the report must not promise a run that
 * `nfstorm run` would refuse. */
#include "coordinator/cli/fio_cli.h"
#include "coordinator/cli/fio_compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan_fio_keys.h"
#include "common/plan_parse.h"
#include "common/xmalloc.h"

enum { C_IMPL, C_ALIAS, C_SAME, C_IGN, C_REF, C__N };
static const char *const cat_names[C__N] = { "implemented", "alias", "accepted", "ignored", "refused" };

#define KV_SHOWN 48      /* key=value beyond this is cut, with "..." */

struct line {
    char where[96];
    char kv[KV_SHOWN + 4];
    char what[320];
};

/* A plan file may be 16 MiB of keys: the lines kept are capped, the rest
 * only counted (a line is ~470 bytes). */
#define LINES_MAX 10000

struct compat {
    struct line *v;
    size_t n, cap;
    size_t total;            /* keys seen, listed or not */
    unsigned count[C__N];
};

/* What nfstorm does with key=value; the category, and the text in what. */
static int classify(const char *key, const char *value, char *what, size_t len)
{
    const char *target = plan_fio_key_alias(key), *note = NULL;
    char alias[96] = "", why[256] = "";
    if (target)
        snprintf(alias, sizeof alias, "alias of %s", target);
    if (strcmp(key, "matrix") == 0) {
        if (plan_matrix_check(value, NULL, why, sizeof why)) {
            snprintf(what, len, "refused: bad value (%s)", why);
            return C_REF;
        }
        snprintf(what, len, "implemented (nfstorm's own key)");
        return C_IMPL;
    }
    if (plan_is_key(key)) {
        struct job_spec j;
        job_spec_default(&j);
        if (plan_job_set_why(&j, key, value, why, sizeof why) != 0) {
            const char *hint = plan_key_value_hint(key);
            if (!why[0])     /* every refusal says why */
                snprintf(why, sizeof why, "%s", hint ? hint : "not a value this key takes");
            snprintf(what, len, "refused: bad value (%s)", why);
            return C_REF;
        }
        if (target) {
            snprintf(what, len, "%s", alias);
            return C_ALIAS;
        }
        snprintf(what, len, "implemented%s", plan_fio_key_find(key) ? "" : " (nfstorm's own key)");
        return C_IMPL;
    }
    int st = plan_key_fio_status(key, &note);
    int cat = st == FIO_KEY_SAME ? C_SAME : st == FIO_KEY_IGNORED ? C_IGN : st == FIO_KEY_REFUSED ? C_REF : -1;
    if (cat >= 0) {
        /* its category's word: accepted, ignored or refused */
        snprintf(what, len, "%s%s%s: %s", alias, target ? ", " : "", cat_names[cat], note ? note : "");
        return cat;
    }
    const char *near = plan_key_suggest(key);
    snprintf(what, len, "refused: unknown key%s%s%s", near ? " (did you mean '" : "",
             near ? near : "", near ? "'?)" : "");
    return C_REF;
}

static void add(struct compat *c, const char *where, const char *key, const char *value)
{
    c->total++;
    if (c->n == LINES_MAX) {
        char what[320];
        c->count[classify(key, value, what, sizeof what)]++;
        return;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 32;
        c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
    }
    struct line *l = &c->v[c->n++];
    char kv[KV_SHOWN + 1];
    snprintf(l->where, sizeof l->where, "%s", where);
    int n = snprintf(kv, sizeof kv, "%s%s%s", key, value[0] ? "=" : "", value);
    snprintf(l->kv, sizeof l->kv, "%s%s", kv, n > KV_SHOWN ? "..." : "");
    c->count[classify(key, value, l->what, sizeof l->what)]++;
}

static void visit(void *user, const char *file, unsigned line, const char *section, const char *key,
                  const char *value)
{
    char where[96];
    (void)section;
    snprintf(where, sizeof where, "%s:%u", file, line);
    add(user, where, key, value);
}

/* fio-style options: "--key=value", "-key", as plan_parse_args reads them. */
static void collect_args(struct compat *c, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i] ? argv[i] : "";
        const char *k = a + (a[0] == '-') + (a[0] == '-' && a[1] == '-');
        const char *eq = strchr(k, '=');
        char key[64], where[32];
        size_t klen = eq ? (size_t)(eq - k) : strlen(k);
        snprintf(where, sizeof where, "argument %d", i + 1);
        snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), k);
        add(c, where, key, eq ? eq + 1 : "");
    }
}

static int collect(struct compat *c, const char *path, int argc, char **argv)
{
    char err[512];
    memset(c, 0, sizeof *c);
    /* the command line's options, also beside a job file (they apply to it) */
    collect_args(c, argc, argv);
    if (!path)
        return 0;
    if (plan_visit_keys(path, visit, c, err, sizeof err)) {
        fprintf(stderr, "nfstorm: %s\n", err);
        free(c->v);
        return -EINVAL;
    }
    return 0;
}

static void print_lines(FILE *out, const struct compat *c, const char *name)
{
    size_t ww = 0, kw = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t a = strlen(c->v[i].where), b = strlen(c->v[i].kv);
        ww = a > ww ? a : ww;
        kw = b > kw ? b : kw;
    }
    fprintf(out, "fio compatibility of %s: %zu key%s:", name, c->total, c->total == 1 ? "" : "s");
    for (int k = 0; k < C__N; k++)
        fprintf(out, "%s %u %s", k ? "," : "", c->count[k], cat_names[k]);
    fputc('\n', out);
    for (size_t i = 0; i < c->n; i++)
        fprintf(out, "  %-*s  %-*s  %s\n", (int)ww, c->v[i].where, (int)kw, c->v[i].kv, c->v[i].what);
    if (c->total > c->n)
        fprintf(out, "  ... %zu more keys, counted above but not listed\n", c->total - c->n);
}

int fio_compat_section(FILE *out, const char *path, int argc, char **argv)
{
    struct compat c;
    if (collect(&c, path, argc, argv))
        return -1;
    print_lines(out, &c, path ? path : "the options");
    int refused = (int)c.count[C_REF];
    free(c.v);
    return refused;
}

int fio_compat_report(FILE *out, const char *path, int argc, char **argv)
{
    struct compat c;
    struct plan p;
    char err[1024];
    if (collect(&c, path, argc, argv))
        return 2;
    print_lines(out, &c, path ? (argc ? "the options and the job file" : path) : "the options");
    char *text = NULL;
    int rc = fio_cli_read_plan(path, argc, argv, &p, &text, err, sizeof err);
    free(text);
    if (rc == 0)
        plan_free(&p);
    if (rc == 0 && c.count[C_REF] == 0) {
        fprintf(out, "verdict: nfstorm runs this plan");
        if (c.count[C_IGN])
            fprintf(out, " (%u ignored key%s, each with a warning)", c.count[C_IGN],
                    c.count[C_IGN] == 1 ? "" : "s");
        fputc('\n', out);
    } else if (c.count[C_REF]) {
        fprintf(out, "verdict: nfstorm refuses this plan: %u key%s refused%s%s\n", c.count[C_REF],
                c.count[C_REF] == 1 ? "" : "s", rc ? "; the run would stop at: " : "", rc ? err : "");
    } else {
        fprintf(out, "verdict: nfstorm refuses this plan: %s\n", err);
    }
    free(c.v);
    return rc == 0 && c.count[C_REF] == 0 ? 0 : 2;
}
