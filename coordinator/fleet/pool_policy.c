/* pool_policy: see pool_policy.h.
 *
 * The option table mirrors the run's parser (options.c's cli_parse and
 * its run_opts, cmd_report_option, fio_cli_option): a word is matched as
 * those match it ("--opt", "--opt=VALUE", "--opt VALUE" for options with
 * a value), so the
 * walk here skips exactly the words the child will take as values.  A
 * word the table does not know is a plan key given as an option
 * ("--bs=4k", judged by the key table) or refused. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "common/plan.h"
#include "common/plan_fio_keys.h"
#include "common/plan_parse.h"
#include "coordinator/fleet/pool_policy.h"

#define WHY_FILE    "names a file on the pool host (the submitter writes it from the result it gets back)"
#define WHY_JSON    "names a file on the pool host (the submitter's --json travels as want_json; the result comes back)"
#define WHY_FLEET   "chooses agents or starts processes on the pool host (the pool has the agents)"
#define WHY_SECRET  "names a file on the pool host (the pool proves its own secret)"
#define WHY_OWN     "is the submitter's own (it travels in the submission's fields)"
#define WHY_REPEAT  "is the submitter's (it submits each repetition and builds the set)"
#define WHY_CLEANUP "is not a pool run's (use 'nfstorm clean --pool')"
#define WHY_DRYRUN  "runs nothing on the pool (use it without --pool)"
#define WHY_LIMITS  "reads a file on the pool host (judge the result afterwards: 'nfstorm report RESULT --limits F' or '--metrics F')"
#define WHY_LOG     "writes a fio log file on the pool host (run without --pool; --json has the time series)"

static const struct pool_policy_rule options[] = {
    /* how the run reports, on the stdout/stderr the submitter gets */
    { "--label", 1, NULL },
    { "--target", 1, NULL },
    { "--unit-base", 1, NULL },
    { "--interval", 1, NULL },
    { "--connect-timeout", 1, NULL },
    { "--agent-timeout", 1, NULL },
    { "--prepare-timeout", 1, NULL },
    { "--include-failed", 0, NULL },
    { "--client-cap", 1, NULL },        /* a judgment of the figures, nothing on the host */
    { "--control-tos", 1, NULL },       /* how the run's own control sockets are marked */
    { "--quiet", 0, NULL },
    { "--verbose", 0, NULL },
    { "--agent-rows", 1, NULL },
    { "--change-min-pct", 1, NULL },    /* how steps are judged in the figures */
    { "--change-min-intervals", 1, NULL },
    { "--fs-size", 1, NULL },           /* a figure for the declared limits' model */
    { "--limits", 1, WHY_LIMITS },
    { "--metrics", 1, WHY_LIMITS },
    { "--csv-agents", 0, NULL },
    { "--output-format", 1, NULL },
    { "--minimal", 0, NULL },
    { "--terse-version", 1, NULL },
    { "--eta", 1, NULL },
    { "--status-interval", 1, NULL },
    { "--max-jobs", 1, NULL },
    { "--section", 1, NULL },
    { "--readonly", 0, NULL },
    { "--parse-only", 0, NULL },
    { "--showcmd", 0, NULL },
    { "--fio-compat-report", 0, NULL },
    /* fio's program options the run accepts and ignores (fio_cli.c's
     * fio_noop_opts, their arity as there): they cause nothing anywhere */
    { "--eta-newline", 1, NULL },
    { "--eta-interval", 1, NULL },
    { "--idle-prof", 1, NULL },
    { "--warnings-fatal", 0, NULL },
    { "--debug", 1, NULL },
    { "--alloc-size", 1, NULL },
    { "--aux-path", 1, NULL },
    { "--append-terse", 0, NULL },
    { "--bandwidth-log", 0, NULL },
    /* files on the pool host */
    { "--json", 1, WHY_JSON },
    { "--html", 1, WHY_FILE },
    { "--csv", 1, WHY_FILE },
    { "--timeseries", 1, WHY_FILE },
    { "--output", 1, WHY_FILE },
    { "--secret-file", 1, WHY_SECRET },
    /* the fleet */
    { "--agents", 1, WHY_FLEET },
    { "--hosts", 1, WHY_FLEET },
    { "--local", 1, WHY_FLEET },
    { "--listen", 1, WHY_FLEET },
    { "--spawn", 1, WHY_FLEET },
    { "--agent-path", 1, WHY_FLEET },
    { "--remote-secret-file", 1, WHY_FLEET },
    { "--ssh-config", 1, WHY_FLEET },
    { "--spawn-address", 1, WHY_FLEET },
    { "--ssh-option", 1, WHY_FLEET },
    { "--remote-allow", 1, WHY_FLEET },
    { "--remote-allow-nfs", 1, WHY_FLEET },
    { "--pool", 1, WHY_OWN },
    { "--pool-wait", 1, WHY_OWN },
    { "--no-wait", 0, WHY_OWN },
    { "--expect", 1, WHY_OWN },
    { "--min-agents", 1, WHY_OWN },
    { "--expect-timeout", 1, WHY_OWN },
    /* other commands' work */
    { "--repeat", 1, WHY_REPEAT },
    { "--repeat-interval", 1, WHY_REPEAT },
    { "--cleanup", 0, WHY_CLEANUP },
    { "--dry-run", 0, WHY_DRYRUN },
};

/* Plan keys (aliases resolved first) and the two job-file features that
 * read the pool host: every other plan key is the agents', confined there. */
static const struct pool_policy_rule plan_keys[] = {
    { "write_bw_log", 1, WHY_LOG },
    { "write_lat_log", 1, WHY_LOG },
    { "write_iops_log", 1, WHY_LOG },
    { "write_hist_log", 1, WHY_LOG },
    { "include", 1, "reads a file on the pool host (the submitter sends the plan expanded)" },
    { "${VAR}", 1, "reads the pool host's environment (the submitter sends the plan expanded; "
                   "${agent}, ${host}, ${job}, ${nagents} are allowed)" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const struct pool_policy_rule *pool_policy_options(size_t *n)
{
    *n = NELEM(options);
    return options;
}

/* The option word w is (an option with its value joined by '='), or NULL. */
static const struct pool_policy_rule *find_option(const char *w, int *joined)
{
    for (size_t k = 0; k < NELEM(options); k++) {
        size_t n = strlen(options[k].name);
        if (strncmp(w, options[k].name, n) == 0 && (w[n] == '\0' || (w[n] == '=' && options[k].takes_value))) {
            *joined = w[n] == '=';
            return &options[k];
        }
    }
    return NULL;
}

static const struct pool_policy_rule *find_key(const char *key, size_t len)
{
    char k[128];
    const struct fio_key *fk;

    if (len >= sizeof k)
        return NULL;
    memcpy(k, key, len);
    k[len] = '\0';
    if ((fk = plan_fio_key_resolve(k)) != NULL)
        key = fk->name, len = strlen(fk->name);
    for (size_t i = 0; i < NELEM(plan_keys); i++)
        if (strlen(plan_keys[i].name) == len && memcmp(plan_keys[i].name, key, len) == 0)
            return &plan_keys[i];
    return NULL;
}

/* ${NAME} other than the agent's path variables (plan_parse.c's list). */
static int reads_env(const char *v, char *var, size_t varlen)
{
    static const char *const path_vars[] = { "agent", "host", "job", "nagents" };
    for (const char *p = strstr(v, "${"); p; p = strstr(p + 2, "${")) {
        const char *close = strchr(p + 2, '}');
        size_t n = close ? (size_t)(close - p - 2) : 0;
        int ok = 0;
        if (!close)
            continue;
        for (size_t i = 0; i < NELEM(path_vars); i++)
            ok |= strlen(path_vars[i]) == n && memcmp(path_vars[i], p + 2, n) == 0;
        if (!ok) {
            snprintf(var, varlen, "%.*s", (int)(n + 3 > 64 ? 64 : n + 3), p);
            return 1;
        }
    }
    return 0;
}

struct visit {
    char *err;
    size_t errlen;
    int refused;
};

static void refuse(struct visit *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct visit *v, const char *fmt, ...)
{
    va_list ap;
    size_t n;
    if (v->refused)
        return;                        /* the first one is named */
    v->refused = 1;
    n = (size_t)snprintf(v->err, v->errlen, "refused by the pool's policy: ");
    if (n >= v->errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(v->err + n, v->errlen - n, fmt, ap);
    va_end(ap);
}

static void on_key(void *user, const char *file, unsigned line, const char *section, const char *key,
                   const char *value)
{
    struct visit *v = user;
    const struct pool_policy_rule *r = find_key(key, strlen(key));
    char var[72];

    (void)section;
    if (r && r->refused)
        refuse(v, "%s:%u: %s: %s", file, line, r->name, r->refused);
    else if (reads_env(value, var, sizeof var))
        refuse(v, "%s:%u: %s (in '%s'): %s", file, line, var, key, plan_keys[NELEM(plan_keys) - 1].refused);
}

int pool_policy_check(const struct pool_submit *sub, char *err, size_t errlen)
{
    struct visit v = { err, errlen, 0 };
    int seen_plan = 0;
    char perr[512];

    /* the submission's own fields, to the limits run --pool's options have
     * (main.c): a submitter cannot hold the queue longer than one may */
    if (sub->expect > POOL_POLICY_MAX_AGENTS || sub->min_agents > POOL_POLICY_MAX_AGENTS)
        refuse(&v, "expect %u, min_agents %u: over %u agents", sub->expect, sub->min_agents,
               POOL_POLICY_MAX_AGENTS);
    else if (sub->expect_timeout_ms > POOL_POLICY_MAX_WAIT_MS)
        refuse(&v, "expect_timeout_ms %u: over 24h (--expect-timeout's limit)", sub->expect_timeout_ms);
    for (uint32_t i = 0; i < sub->argc && !v.refused; i++) {
        const char *w = sub->argv[i], *key;
        const struct pool_policy_rule *r;
        int joined = 0;
        size_t klen;

        if (strcmp(w, POOL_PLAN_ARG) == 0) {
            if (!sub->plan || seen_plan)
                refuse(&v, "%s: %s", w, sub->plan ? "given twice" : "the submission carries no plan");
            seen_plan = 1;
            continue;
        }
        if (w[0] != '-' || w[1] == '\0') {
            refuse(&v, "'%.200s': a plan path names a file on the pool host (the submitter sends the plan's "
                   "text, named %s)", w, POOL_PLAN_ARG);
            continue;
        }
        if ((r = find_option(w, &joined)) != NULL) {
            if (r->refused)
                refuse(&v, "%s: %s", r->name, r->refused);
            else if (r->takes_value && !joined)
                i++;                   /* its value, whatever it looks like */
            continue;
        }
        /* a plan key as an option: --key=value, -key=value, --flag */
        key = w + (w[1] == '-' ? 2 : 1);
        klen = strcspn(key, "=");
        {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)(klen < sizeof k ? klen : sizeof k - 1), key);
            /* a plan key, an alias, or one of fio's the run accepts with a warning */
            if (klen >= sizeof k || (!plan_is_key(k) && !plan_fio_key_find(k))) {
                refuse(&v, "'%.200s': not an option the pool knows (run and clean options, plan keys)", w);
                continue;
            }
        }
        if ((r = find_key(key, klen)) != NULL && r->refused)
            refuse(&v, "%.*s: %s", (int)(klen + (size_t)(key - w)), w, r->refused);
        /* "--key value": the run joins the next word to a key that takes a
         * value (fio_cli_job_word), whatever it is; so it is skipped here.
         * A key nfstorm only knows from fio's inventory is joined by the
         * run when the next word names no file where it runs: judged here
         * as a word of its own (a path is refused), never joined */
        if (!key[klen] && klen < 64 && i + 1 < sub->argc) {     /* fio_cli_job_word's bounds */
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)klen, key);
            if (plan_key_takes_value(k) > 0)
                i++;
        }
    }
    if (v.refused)
        return -EPERM;
    if (sub->plan) {
        if (memchr(sub->plan, '\0', sub->plan_len)) {
            snprintf(err, errlen, "bad submission: the plan's text has a NUL byte");
            return -EINVAL;
        }
        if (plan_visit_string_raw(POOL_PLAN_ARG, sub->plan, on_key, &v, perr, sizeof perr) < 0 && !v.refused) {
            snprintf(err, errlen, "bad submission: %s", perr);
            return -EINVAL;
        }
    }
    return v.refused ? -EPERM : 0;
}
