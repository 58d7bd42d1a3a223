/* nfs_allow: see nfs_allow.h.
 *
 * The parameter table follows libnfs's URL arguments (its libnfs.h, "URL
 * parsing functions", plus the identity keys newer releases add).  A key not
 * in the table is refused by name rather than passed on: libnfs grows new
 * keys, and one that changes identity must not slip through because the
 * agent did not know it. */
#include "agent/nfs_allow.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum key_kind { K_FREE, K_BOUND };

static const struct {
    const char *key;
    enum key_kind kind;
} keys[] = {
    /* who the server thinks we are, how we prove it, where we reach */
    { "uid", K_BOUND },
    { "gid", K_BOUND },
    { "auxgids", K_BOUND },
    { "sec", K_BOUND },
    { "xprtsec", K_BOUND },
    { "if", K_BOUND },
    { "auto-traverse-mounts", K_BOUND },
    /* tuning: the same server and export, the same identity */
    { "version", K_FREE },
    { "nfsport", K_FREE },
    { "mountport", K_FREE },
    { "tcp-syncnt", K_FREE },
    { "readahead", K_FREE },
    { "dircache", K_FREE },
    { "autoreconnect", K_FREE },
};

#define MAX_PARAMS 16

struct param {
    const char *key, *val;       /* into a copy of the URL */
};

struct parsed {
    char buf[4096];
    const char *base;            /* before '?' */
    struct param p[MAX_PARAMS];
    size_t n;
};

static int key_index(const char *k)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].key, k) == 0)
            return (int)i;
    return -1;
}

/* Split s into base and parameters; checks the parameters' names. */
static int parse(const char *s, struct parsed *u, const char *what, char *err, size_t errlen)
{
    char *q, *tok, *save = NULL;

    if (strlen(s) >= sizeof u->buf) {
        snprintf(err, errlen, "%s is longer than %zu bytes", what, sizeof u->buf - 1);
        return -EINVAL;
    }
    if (strncmp(s, "nfs://", 6) != 0 || s[6] == '\0' || s[6] == '/') {
        snprintf(err, errlen, "%s '%s' is not nfs://SERVER/EXPORT", what, s);
        return -EINVAL;
    }
    /* libnfs decodes every %XX of the whole URL before it splits it, so
     * "%2e%2e" is a '..' and "%3Fuid%3D0" a parameter this check would
     * never see: escapes are refused rather than decoded twice the same way */
    if (strchr(s, '%')) {
        snprintf(err, errlen, "%s: a '%%' escape in an NFS URL is refused (libnfs decodes %%XX "
                 "before it parses the URL, so it could hide '..', '?' or '&')", what);
        return -EINVAL;
    }
    snprintf(u->buf, sizeof u->buf, "%s", s);
    u->base = u->buf;
    u->n = 0;
    if (!(q = strchr(u->buf, '?')))
        return 0;
    *q++ = '\0';
    /* one '?' only: however a libnfs release splits the rest, it sees the
     * same parameters as this check */
    if (strchr(q, '?') || strchr(q, '#')) {
        snprintf(err, errlen, "%s: '%c' inside the parameters", what, strchr(q, '?') ? '?' : '#');
        return -EINVAL;
    }
    for (tok = strtok_r(q, "&", &save); tok; tok = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(err, errlen, "%s: parameter '%s' has no value", what, tok);
            return -EINVAL;
        }
        *eq = '\0';
        /* a value is one plain word: libnfs reads "3;uid=0" as 3 today, but
         * what a value may carry is not this check's guess to make */
        if (strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._,:-") !=
            strlen(eq + 1)) {
            snprintf(err, errlen, "%s: parameter %s's value '%.64s' is not a plain word (letters, "
                     "digits, '.', '_', ',', ':', '-')", what, tok, eq + 1);
            return -EINVAL;
        }
        if (key_index(tok) < 0) {
            snprintf(err, errlen, "%s: unknown NFS URL parameter '%s'", what, tok);
            return -EINVAL;
        }
        for (size_t i = 0; i < u->n; i++)
            if (strcmp(u->p[i].key, tok) == 0) {
                snprintf(err, errlen, "%s: parameter '%s' given twice", what, tok);
                return -EINVAL;
            }
        if (u->n == MAX_PARAMS) {
            snprintf(err, errlen, "%s: more than %d parameters", what, MAX_PARAMS);
            return -EINVAL;
        }
        u->p[u->n].key = tok;
        u->p[u->n].val = eq + 1;
        u->n++;
    }
    return 0;
}

static const char *param(const struct parsed *u, const char *key)
{
    for (size_t i = 0; i < u->n; i++)
        if (strcmp(u->p[i].key, key) == 0)
            return u->p[i].val;
    return NULL;
}

/* A ".." path component anywhere after the server. */
static int has_dotdot(const char *base)
{
    const char *p = strchr(base + 6, '/');
    while (p) {
        if (p[1] == '.' && p[2] == '.' && (p[3] == '/' || p[3] == '\0'))
            return 1;
        p = strchr(p + 1, '/');
    }
    return 0;
}

int nfs_allow_rule_check(const char *rule, char *err, size_t errlen)
{
    struct parsed u;
    char what[64];
    snprintf(what, sizeof what, "--allow-nfs rule");
    return parse(rule, &u, what, err, errlen);
}

/* 1 when rule r allows u; otherwise 0 and why in err. */
static int rule_allows(const struct parsed *r, const struct parsed *u, char *err, size_t errlen)
{
    size_t n = strlen(r->base);
    if (strncmp(u->base, r->base, n) != 0 ||
        !(u->base[n] == '\0' || u->base[n] == '/' || r->base[n - 1] == '/')) {
        snprintf(err, errlen, "server or export is outside the allowed NFS exports");
        return 0;
    }
    for (size_t i = 0; i < u->n; i++) {
        const char *want;
        if (keys[key_index(u->p[i].key)].kind == K_FREE)
            continue;
        want = param(r, u->p[i].key);
        if (!want) {
            snprintf(err, errlen, "parameter %s=%s changes the identity or security the server "
                     "sees; no --allow-nfs rule for this export allows it", u->p[i].key, u->p[i].val);
            return 0;
        }
        if (strcmp(want, u->p[i].val) != 0) {
            snprintf(err, errlen, "parameter %s=%s: the --allow-nfs rule for this export allows "
                     "only %s=%s", u->p[i].key, u->p[i].val, u->p[i].key, want);
            return 0;
        }
    }
    return 1;
}

int nfs_allow_check(const struct allow_list *rules, const char *url, char *err, size_t errlen)
{
    struct parsed u, r;
    char why[256] = "no --allow-nfs rule", first[256] = "";
    int export_matched = 0;

    if (parse(url, &u, url, err, errlen) < 0)
        return -EACCES;
    if (has_dotdot(u.base)) {
        snprintf(err, errlen, "%s: '..' in the NFS path", url);
        return -EACCES;
    }
    for (size_t i = 0; rules && i < rules->n; i++) {
        if (parse(rules->root[i], &r, "rule", why, sizeof why) < 0)
            continue;           /* main.c checked them: cannot happen */
        if (rule_allows(&r, &u, why, sizeof why))
            return 0;
        /* the most telling reason: a rule whose export matched */
        if (!strstr(why, "outside") && !export_matched) {
            export_matched = 1;
            snprintf(first, sizeof first, "%s", why);
        }
    }
    if (export_matched)
        snprintf(err, errlen, "%s: %s", url, first);
    else
        snprintf(err, errlen, "%s is outside the allowed NFS exports (--allow-nfs)", url);
    return -EACCES;
}
