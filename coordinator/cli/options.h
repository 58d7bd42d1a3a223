/* options: the command line of `nfstorm run` and `clean` (struct cli),
 * its parser and the --help text, and the one way the CLI says an error
 * (cli_die).  The plain-valued options come from one table (run_opts);
 * the report's and fio's own options are read by cmd_report.c and
 * fio_cli.c, which this parser asks in turn. */
#ifndef NFSTORM_CLI_OPTIONS_H
#define NFSTORM_CLI_OPTIONS_H

#include <stdint.h>
#include "coordinator/cli/cmd_report.h"
#include "coordinator/cli/fio_cli.h"
#include "coordinator/fleet/client_cap.h"
#include "coordinator/fleet/spawn.h"

#define MAX_AGENTS   4096
#define MAX_PLAN_FILES 64
/* the timeouts travel as uint32_t milliseconds (49.7 days at most): a day
 * is longer than any wait worth having, and far from that edge */
#define TIMEOUT_MAX_NS (86400ull * 1000000000ull)

/* --spawn ssh's watch on the wait for agents (each gathering, also those
 * of --repeat): more ssh children ended than --min-agents can spare ends
 * it, naming the hosts. */
struct spawn_watch {
    struct spawn_fleet *fleet;
    uint32_t spare;
};

struct cli {
    const char *plan_path;            /* the first job file */
    const char *plan_paths[MAX_PLAN_FILES];   /* all of them, run in order */
    int nplans;
    const char *agents;
    const char *hosts;
    uint32_t local;
    const char *listen;          /* --listen: agents dial in (gather.h) */
    const char *pool;            /* --pool: submit to nfstorm serve (pool_client.h) */
    uint64_t pool_wait_ns;       /* --pool-wait; 0: until its turn */
    int no_wait;                 /* --no-wait */
    uint32_t expect, min_agents;
    uint64_t expect_timeout_ns;
    const char *spawn;           /* --spawn ssh: start the --hosts agents (spawn.h) */
    struct spawn_options so;     /* --agent-path, --ssh-option, --remote-* ... */
    int (*gather_check)(void *arg, char *err, size_t errlen);   /* --spawn: did an ssh end? */
    void *gather_check_arg;
    struct spawn_watch watch;    /* gather_check_arg of --spawn */
    const char *json;
    const char *label;
    const char *target;
    int unit_base;
    int quiet;
    const char *secret_file;
    uint64_t agent_timeout_ns;
    uint64_t prepare_timeout_ns; /* 0: RUN_PREPARE_TIMEOUT_MS */
    int control_tos;             /* --control-tos (net/ctlsock.h) */
    struct client_caps caps;     /* --client-cap (client_cap.h) */
    const char *limits_path;     /* --limits FILE (limits.h) */
    const char *fs_size;         /* --fs-size SIZE */
    struct report_outputs out;   /* --csv, --html, --timeseries, --output... */
    struct fio_cli fio;          /* fio's --section, --readonly, --showcmd ... (fio_cli.h) */
    int verbose;
    int dry_run;
    int fio_compat;            /* --fio-compat-report */
    int cleanup;
    uint32_t repeat;             /* --repeat N; 0: not given (one run, a plain result) */
    int include_failed;          /* --include-failed: failed repetitions count in the summary */
    uint64_t repeat_interval_ns;
    uint64_t interval_ns;
    int interval_given;          /* --interval was on the command line */
    uint64_t connect_timeout_ns;
    char **fio_args;
    int nfio;
};

/* `nfstorm --help` */
extern const char cli_usage[];

/* "nfstorm: " + the message + a newline on stderr; returns status. */
int cli_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse run's (or clean's) argv into c (zeroed by the caller) and check
 * the options' combinations.  0, or 2 after a one-line error; c->fio_args
 * is the caller's to free either way. */
int cli_parse(int argc, char **argv, struct cli *c);

#endif
