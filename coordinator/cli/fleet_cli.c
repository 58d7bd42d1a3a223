/* fleet_cli: see fleet_cli.h. */
#include "coordinator/cli/fleet_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/xmalloc.h"
#include "coordinator/fleet/hosts.h"
#include "coordinator/fleet/pool_campaign.h"
#include "coordinator/fleet/pool_client.h"
#include "coordinator/fleet/pool_policy.h"

struct auth_secret *fleet_cli_secret(const char *path)
{
    struct auth_secret *secret = xmalloc(sizeof *secret);
    char err[4096];

    if (auth_load_secret(path, secret, err, sizeof err) < 0) {
        free(secret);
        cli_die(2, "%s", err);
        return NULL;
    }
    return secret;
}

/* --hosts FILE (fleet/hosts.h): 0, or 2 with its one-line error said. */
int fleet_cli_hosts(const char *path, char ***addrs, char ***labels, uint32_t *n)
{
    char err[512];
    return hosts_read(path, MAX_AGENTS, addrs, labels, n, err, sizeof err) < 0 ? cli_die(2, "%s", err) : 0;
}

void fleet_cli_agent_binary(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/nfstorm-agent", self);
            if (access(out, X_OK) == 0)
                return;
        }
    }
    snprintf(out, len, "nfstorm-agent");
}

/* --listen: wait for the agents to dial in; on success addrs and labels
 * (taken from fleet) name them in index order.  The exit status: 0, or 2
 * when too few came (or the address is bad), 1 when we cannot listen. */
int fleet_cli_gather(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                     uint32_t *n)
{
    struct auth_secret *secret = fleet_cli_secret(c->secret_file);
    struct gather_options go = {
        .listen = c->listen, .expect = c->expect, .min_agents = c->min_agents,
        .timeout_ms = c->expect_timeout_ns ? (uint32_t)(c->expect_timeout_ns / 1000000u) : GATHER_DEFAULT_TIMEOUT_MS,
        .agent_timeout_ms = (uint32_t)(c->agent_timeout_ns / 1000000u), .control_tos = c->control_tos,
        .secret = secret, .log = c->quiet ? NULL : stderr, .check = c->gather_check,
        .check_arg = c->gather_check_arg,
    };
    char err[4096];
    int rc;

    if (!secret)
        return 2;
    rc = gather_agents(&go, fleet, err, sizeof err);
    free(secret);
    if (rc < 0)
        return cli_die(rc == -ETIMEDOUT || rc == -EINVAL ? 2 : 1, "%s", err);
    *addrs = fleet->addrs;
    *labels = fleet->labels;
    *n = fleet->n;
    fleet->addrs = fleet->labels = NULL;   /* cmd_run frees them */
    return 0;
}

/* The dial-ins na/nl/nn (fleet_cli_gather's) after the nlisted agents of a
 * mixed fleet in addrs/labels: one fleet, the listed agents first.  Takes
 * na and nl. */
static void fleet_append(char ***addrs, char ***labels, uint32_t nlisted, char **na, char **nl, uint32_t nn)
{
    *addrs = xrealloc(*addrs, ((size_t)nlisted + nn + 1) * sizeof **addrs);
    memcpy(*addrs + nlisted, na, (size_t)nn * sizeof *na);
    if (!*labels)
        *labels = xcalloc((size_t)nlisted + 1, sizeof **labels);    /* the listed ones have none */
    *labels = xrealloc(*labels, ((size_t)nlisted + nn + 1) * sizeof **labels);
    for (uint32_t i = 0; i < nn; i++)
        (*labels)[nlisted + i] = nl ? nl[i] : NULL;
    free(na);
    free(nl);
}

/* --listen with the agents of --agents or --hosts: wait for the dial-ins
 * and number them after the *n listed ones. */
int fleet_cli_mixed(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                    uint32_t *n)
{
    char **na = NULL, **nl = NULL;
    uint32_t nn = 0;
    int status;

    if (*n + c->expect > MAX_AGENTS)
        return cli_die(2, "%u listed agents and --expect %u: more than %d agents", *n, c->expect, MAX_AGENTS);
    if ((status = fleet_cli_gather(c, fleet, &na, &nl, &nn)) != 0)
        return status;
    fleet_append(addrs, labels, *n, na, nl, nn);
    *n += nn;
    return 0;
}

/* --listen with --repeat: a run closes the connections it adopted and the
 * agents dial again, so each repetition after the first gathers them anew
 * (a mixed fleet's listed agents, 0..nlisted-1, are dialled again by the
 * run).  The plan's agents=@LABEL were resolved against the first
 * gathering, so a repetition must see the same agents: as many, with the
 * same labels at the same indices (indices are sorted by label, then host,
 * then address); otherwise the set ends here (what was measured is kept).
 * 0 or an exit status. */
int fleet_cli_regather(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                       uint32_t *n, uint32_t nlisted, uint32_t repetition)
{
    char **na = NULL, **nl = NULL;
    uint32_t nn = 0, had = *n - nlisted;
    int status;

    gather_free(fleet);
    if ((status = fleet_cli_gather(c, fleet, &na, &nl, &nn)) != 0)
        return status;
    for (uint32_t i = 0; nn == had && i < nn; i++) {
        const char *a = *labels ? (*labels)[nlisted + i] : NULL, *b = nl ? nl[i] : NULL;

        if (strcmp(a ? a : "", b ? b : "") != 0) {
            status = cli_die(1, "repetition %u: agent %u has labels '%s', in repetition 1 '%s': the set ends "
                         "(the plan's agents= were resolved against the first agents)", repetition,
                         nlisted + i, b ? b : "", a ? a : "");
            break;
        }
    }
    if (nn != had && !status)
        status = cli_die(1, "repetition %u: %u agents joined, repetition 1 had %u: the set ends", repetition, nn,
                     had);
    for (uint32_t i = nlisted; i < *n; i++) {
        free((*addrs)[i]);
        if (*labels)
            free((*labels)[i]);
    }
    fleet_append(addrs, labels, nlisted, na, nl, nn);
    *n = nlisted + nn;
    return status;
}

#define SPAWN_DEFAULT_LISTEN "0.0.0.0:7879"

static int spawn_watch_check(void *arg, char *err, size_t errlen)
{
    struct spawn_watch *w = arg;
    return spawn_fleet_check(w->fleet, err, errlen) > (int)w->spare;
}

/* --hosts FILE --spawn ssh: an agent over ssh on each host, dialling back
 * to --listen (default SPAWN_DEFAULT_LISTEN), then the wait of --listen
 * with --expect = the number of hosts.  The exit status (0: sp runs the
 * ssh children, fleet and addrs/labels/n as fleet_cli_gather's). */
int fleet_cli_spawn(struct cli *c, const struct plan *plan, struct spawn_fleet *sp, struct gather_fleet *fleet,
                    char ***addrs, char ***labels, uint32_t *n)
{
    char **hosts = NULL, **hl = NULL, *dirs[SPAWN_MAX_OPTS], err[1024], *end;
    const char *listen = c->listen ? c->listen : SPAWN_DEFAULT_LISTEN, *colon;
    uint32_t nh = 0, ndirs = 0, need;
    struct spawn_options so = c->so;
    unsigned long port;
    int status, rc;

    if ((status = fleet_cli_hosts(c->hosts, &hosts, &hl, &nh)) != 0)
        goto out;
    for (uint32_t i = 0; i < nh; i++) {
        /* hosts_read added the agent port to a line without one */
        size_t l = strlen(hosts[i]), dl = strlen(":" HOSTS_DEFAULT_PORT);
        if (l <= dl || strcmp(hosts[i] + l - dl, ":" HOSTS_DEFAULT_PORT) != 0) {
            status = cli_die(2, "%s: '%s': with --spawn ssh a line names an ssh destination ([user@]host) "
                         "without :PORT (ssh's port comes from its config or --ssh-option Port=N)",
                         c->hosts, hosts[i]);
            goto out;
        }
        hosts[i][l - dl] = '\0';
        if (hosts[i][0] == '[' && hosts[i][l - dl - 1] == ']') {     /* [v6]: ssh wants it bare */
            memmove(hosts[i], hosts[i] + 1, l - dl - 2);
            hosts[i][l - dl - 2] = '\0';
        }
    }
    colon = strrchr(listen, ':');
    port = colon ? strtoul(colon + 1, &end, 10) : 0;
    if (!colon || *end || port == 0 || port > 65535) {
        status = cli_die(2, "--listen %s: --spawn ssh needs a fixed port (the agents dial it back)", listen);
        goto out;
    }
    need = c->min_agents ? c->min_agents : nh;
    if (need > nh) {
        status = cli_die(2, "--min-agents %u is more than the %u hosts of %s", c->min_agents, nh, c->hosts);
        goto out;
    }
    so.port = (uint16_t)port;
    if (!so.remote_secret)
        so.remote_secret = c->secret_file;
    if (!so.nallow) {
        ndirs = spawn_plan_allow(plan, dirs, SPAWN_MAX_OPTS);
        if (ndirs == 0) {
            status = cli_die(2, "--spawn ssh: the plan names no absolute directory for the remote agents "
                         "to allow: give one with --remote-allow DIR");
            goto out;
        }
        for (uint32_t i = 0; i < ndirs; i++)
            so.allow[i] = dirs[i];
        so.nallow = ndirs;
    }
    if ((rc = spawn_fleet_start(sp, &so, hosts, hl, nh, err, sizeof err)) < 0) {
        /* a host, label or path ssh cannot carry is bad usage; fork or pipe failing is not */
        status = cli_die(rc == -EINVAL || rc == -ENOSPC ? 2 : 1, "--spawn ssh: %s", err);
        goto out;
    }
    if (!c->quiet) {
        if (so.address)
            fprintf(stderr, "nfstorm: ssh: starting %u agents, dialling back to %s:%lu\n", nh, so.address,
                    port);
        else
            fprintf(stderr, "nfstorm: ssh: starting %u agents, dialling back to port %lu of the address "
                    "their ssh connection came from\n", nh, port);
    }
    c->listen = listen;
    c->expect = nh;
    c->watch.fleet = sp;
    c->watch.spare = nh - need;
    c->gather_check = spawn_watch_check;       /* for as long as sp runs */
    c->gather_check_arg = &c->watch;
    status = fleet_cli_gather(c, fleet, addrs, labels, n);
    if (status != 0) {
        c->gather_check = NULL;
        spawn_fleet_stop(sp, 3000);
    }
out:
    for (uint32_t i = 0; i < ndirs; i++)
        free(dirs[i]);
    for (uint32_t i = 0; i < nh; i++) {
        free(hosts[i]);
        if (hl)
            free(hl[i]);
    }
    free(hosts);
    free(hl);
    return status;
}


/* 1 when argv[*i] is one of the options --pool keeps to itself (their
 * value skipped too): its own, and what the submitter renders from the
 * result (pool_campaign.h): the output files, --repeat, and with --output
 * the fio formats that go into it. */
static int pool_own_option(const struct cli *c, int argc, char **argv, int *i)
{
    /* the last two: the fio formats, with --output only */
    static const char *const own[] = { "--pool", "--pool-wait", "--expect", "--min-agents",
                                       "--expect-timeout", "--json", "--secret-file", "--html", "--csv",
                                       "--timeseries", "--output", "--repeat", "--repeat-interval",
                                       "--output-format", "--terse-version" };
    for (size_t k = 0; k < sizeof own / sizeof own[0] - (c->out.output ? 0 : 2); k++) {
        size_t n = strlen(own[k]);
        if (strncmp(argv[*i], own[k], n) == 0 && (argv[*i][n] == '=' || argv[*i][n] == '\0')) {
            if (argv[*i][n] == '\0' && *i + 1 < argc)
                ++*i;
            return 1;
        }
    }
    return strcmp(argv[*i], "--no-wait") == 0 || (c->out.output && strcmp(argv[*i], "--minimal") == 0);
}

/* --pool: the run goes to nfstorm serve; its options go along, but for
 * the plan file (its expanded text instead) and --pool's own. */
int fleet_cli_pool(const struct cli *c, int argc, char **argv, const char *plan_text, int clean_only,
                   volatile sig_atomic_t *signalled)
{
    struct pool_client_options po;
    struct pool_submit sub;
    struct pool_campaign pc = { .po = &po, .sub = &sub, .out = &c->out, .repeat = c->repeat,
                                .repeat_interval_ns = c->repeat_interval_ns, .quiet = c->quiet,
                                .unit_base = c->unit_base, .signalled = signalled };
    struct auth_secret *secret = fleet_cli_secret(c->secret_file);
    char err[4096];
    int status;

    if (!secret)
        return 2;
    memset(&sub, 0, sizeof sub);
    sub.argv = xcalloc((size_t)argc + 1, sizeof *sub.argv);
    for (int i = 0; i < argc; i++) {
        if (argv[i] == c->plan_path)
            sub.argv[sub.argc++] = POOL_PLAN_ARG;
        else if (!pool_own_option(c, argc, argv, &i))
            sub.argv[sub.argc++] = argv[i];
    }
    if (c->plan_path) {
        sub.plan = (char *)plan_text;
        sub.plan_len = strlen(plan_text);
    }
    if (sub.plan_len > POOL_PLAN_MAX || sub.argc > POOL_ARGV_MAX) {
        status = cli_die(2, "--pool: the plan is over %u bytes or has over %u options", POOL_PLAN_MAX, POOL_ARGV_MAX);
        goto out;
    }
    sub.want_json = c->json != NULL;
    sub.clean = clean_only;
    sub.wait = !c->no_wait;
    sub.expect = c->expect;
    sub.min_agents = c->min_agents;
    sub.expect_timeout_ms = (uint32_t)(c->expect_timeout_ns / 1000000u);
    memset(&po, 0, sizeof po);
    po.pool = c->pool;
    po.secret = secret;
    po.json = c->json;
    po.wait_ms = (uint32_t)(c->pool_wait_ns / 1000000u);
    po.quiet = c->quiet;
    po.drop_stdout = c->out.output != NULL;
    /* the pool's own policy, applied here first: the same refusal, sooner */
    if (pool_policy_check(&sub, err, sizeof err) < 0)
        status = cli_die(2, "--pool: %s", err);
    else
        status = clean_only ? pool_client_submit(&po, &sub) : pool_campaign_run(&pc);
out:
    free(sub.argv);
    free(secret);
    return status;
}
