/* nfstorm: the coordinator CLI.
 *
 *   nfstorm run [PLAN.fio] [options] [fio-style job options]
 *
 * Reads the plan (a job file, or fio options on the command line), finds
 * the agents (--agents, --hosts, or --local N of its own), runs it, and
 * prints the merged report.  Exit status: the run's verdict (verdict.h):
 * 0 ok, 1 failed, 3 partial (agents lost), 130 interrupted,
 * 2 bad usage or a bad plan. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "common/plan_parse.h"
#include "common/units.h"
#include "common/version.h"
#include "common/xmalloc.h"
#include "coordinator/run/plan_span.h"
#include "coordinator/fleet/clean.h"
#include "coordinator/cli/cmd_report.h"
#include "coordinator/run/journal.h"
#include "coordinator/cli/dryrun.h"
#include "coordinator/cli/fio_cli.h"
#include "coordinator/cli/fio_compat.h"
#include "coordinator/fleet/gather.h"
#include "coordinator/fleet/hosts.h"
#include "coordinator/run/live.h"
#include "coordinator/cli/out_file.h"
#include "coordinator/fleet/local.h"
#include "coordinator/fleet/spawn.h"
#include "coordinator/fleet/pool_campaign.h"
#include "coordinator/fleet/pool_client.h"
#include "coordinator/fleet/pool_policy.h"
#include "coordinator/fleet/serve.h"
#include "coordinator/result/repeat.h"
#include "coordinator/run/repeat_run.h"
#include "coordinator/result/result.h"
#include "coordinator/report/report.h"
#include "coordinator/run/run.h"
#include "coordinator/run/run_record.h"
#include "coordinator/run/verdict.h"
#include "coordinator/run/timeseries.h"
#include "coordinator/run/fiolog.h"
#include "net/ctlsock.h"
#include "coordinator/fleet/client_cap.h"
#include "coordinator/report/limits_report.h"
#include "proto/msg.h"

#define MAX_AGENTS   4096
#define MAX_PLAN_FILES 64
/* the timeouts travel as uint32_t milliseconds (49.7 days at most): a day
 * is longer than any wait worth having, and far from that edge */
#define TIMEOUT_MAX_NS (86400ull * 1000000000ull)

static const char usage[] =
"usage: nfstorm run [PLAN.fio ...] [options] [fio-style job options]\n"
"       nfstorm report RESULT.json|RESULT.json.journal [--json F] [--html F] [--csv F [--csv-agents]]\n"
"                      [--timeseries F] [--repetition K] [--agent-rows N|all]\n"
"                      [--output F] [--output-format FMT] [--unit-base 1000] [--include-failed]\n"
"                      [--change-min-pct PCT] [--change-min-intervals N]\n"
"                      [--limits F [--fs-size SIZE]] [--metrics CLOUDWATCH.json]\n"
"       nfstorm compare A.json B.json ... [--labels a,b,...] [--format text|md|csv|html|json]\n"
"                       [--html F] [--unit-base 1000] [--include-failed]\n"
"       nfstorm run [PLAN.fio] --pool ADDR:PORT --secret-file F [--expect N] [--pool-wait DUR|--no-wait] ...\n"
"       nfstorm serve --listen ADDR:PORT --secret-file F [--agent-timeout DUR] [--quiet]\n"
"       nfstorm clean [PLAN.fio] --agents ...|--hosts F|--local N|--listen ADDR --expect N|--pool ADDR\n"
"                     [--secret-file F] [fio-style job options]\n"
"       nfstorm --version | --help\n"
"\n"
"Runs a workload plan on many clients at once and prints one merged report.\n"
"PLAN is a fio job file; without it, fio options define one job, e.g.\n"
"  nfstorm run --local 2 --name=t --rw=randread --bs=4k --size=64M --numjobs=4 --runtime=5\n"
"(fio's single-dash spelling works too: -rw=randread -bs=4k ..., and --rw randread);\n"
"several job files run one after the other, as fio runs them\n"
"\n"
"Agents (one of --agents, --hosts, --local, --listen; default --local 1; --listen also\n"
"with --agents or --hosts: one fleet, the listed agents first, then the dial-ins):\n"
"  --agents HOST:PORT,...  agents already running (nfstorm-agent), in agent-index order\n"
"  --hosts FILE            one host[:port] [label=NAME ...] per line (default port " HOSTS_DEFAULT_PORT "),\n"
"                          # comments; agents=@NAME in a plan picks labelled agents\n"
"  --hosts FILE --spawn ssh  start an agent over ssh on each host of FILE ([user@]host\n"
"                          [label=NAME ...] per line) for this run; they dial back to --listen\n"
"                          (default 0.0.0.0:7879, a fixed port) and the run waits for all of\n"
"                          them (--expect-timeout, --min-agents apply); needs --secret-file.\n"
"                          --agent-path P (default nfstorm-agent on the remote PATH),\n"
"                          --remote-secret-file P (default the --secret-file path),\n"
"                          --remote-allow DIR, --remote-allow-nfs URL (default: the plan's\n"
"                          absolute directories), --spawn-address HOST (what they dial;\n"
"                          default the address their ssh connection came from),\n"
"                          --ssh-option OPT (ssh -o OPT), --ssh-config F (ssh -F F)\n"
"  --local N               start N agents on this machine for this run, allowed to a\n"
"                          temporary directory (the default directory) and to the\n"
"                          directories the plan names; stopped afterwards\n"
"  --listen ADDR:PORT      wait for agents that dial in (nfstorm-agent --coordinator;\n"
"                          conventionally port 7879), then run on them; needs\n"
"                          --secret-file; agents are numbered sorted by label, host,\n"
"                          address (docs/fleet.md)\n"
"  --expect N              with --listen: how many agents to wait for (the dial-ins only)\n"
"  --expect-timeout DUR    ... for at most this long (default 60s); fewer: exit 2\n"
"  --min-agents M          ... unless at least M joined: then run with them\n"
"  --pool ADDR:PORT        submit the run to a standing pool ('nfstorm serve', whose\n"
"                          agents stay connected); needs --secret-file; it runs on the\n"
"                          pool's agents (--expect N: the first N in index order, waiting\n"
"                          up to --expect-timeout for them) and prints, writes --json,\n"
"                          --html, --csv, --timeseries, --output (rendered here from the\n"
"                          result it returns) and exits as a run here would; --repeat N\n"
"                          submits N runs into one set; the pool refuses by name what\n"
"                          its policy does not allow (docs/fleet.md); one run at a time:\n"
"                          a second submitter\n"
"                          waits ('waiting: the pool is busy with a run from ADDR since T')\n"
"  --pool-wait DUR         ... for at most this long, then exit 2 (default: its turn)\n"
"  --no-wait               ... or exit 2 at once naming the run that holds the pool\n"
"                          (not with --cleanup, --dry-run or another agent option)\n"
"Output:\n"
"  --json FILE             write the full result as JSON (docs/results.md)\n"
"  --label TEXT            a label stored in the JSON result\n"
"  --target TEXT           what was measured (\"efs-gp-bursting\"), recorded with the plan,\n"
"                          command line, versions, agents' machines and mounts (docs/results.md)\n"
"  --unit-base 1024|1000   IEC (KiB, MiB/s; default) or SI units (kB, MB/s) in the\n"
"                          reports; block sizes always print exactly (4KiB)\n"
"  --agent-rows N|all      a row per agent up to N agents (default 16); beyond, per phase\n"
"                          the fleet view: per-agent IOPS/BW distribution (min, p10, median,\n"
"                          p90, max), 5 slowest and 5 fastest, lost and idle agents by name\n"
"  --change-min-pct PCT    step-downs and step-ups: a change of at least PCT percent\n"
"                          (default 20) in throughput or latency ...\n"
"  --change-min-intervals N  ... lasting at least N intervals (default 5, at least 2)\n"
"                          is reported per phase, fleet and per agent (docs/long-runs.md)\n"
"  --csv FILE              one row per phase x op type (docs/results.md)\n"
"  --csv-agents            ... and one per agent too\n"
"  --timeseries FILE       JSON lines per interval (merged and per agent), as they arrive\n"
"  --html FILE             self-contained HTML report with charts (docs/reports.md)\n"
"  --write_bw_log=PREFIX   fio's log files, merged and per agent (also --write_lat_log,\n"
"                          --write_iops_log, --write_hist_log; plan keys too); their\n"
"                          --log_avg_msec=MS sets --interval (docs/reports.md)\n"
"  --output FILE           write fio-format output to FILE (default format normal); as\n"
"                          fio, nothing else goes to stdout (--status-interval: there too)\n"
"  --output-format FMT     fio's normal|json|json+|terse, or a comma list; without\n"
"                          --output it replaces the text report on stdout\n"
"  --minimal               fio's terse output (version 3); --terse-version=3 the same\n"
"  --eta=auto|never|always the live line: on a terminal redrawn, else a line per\n"
"                          interval (auto); none (never); redrawn even in a pipe (always)\n"
"  --status-interval DUR   every DUR of a phase (a number: seconds) the run so far: with a\n"
"                          fio format fio's whole report in it where the report goes, as\n"
"                          fio; else a line with the fleet's ops, IOPS and bandwidth\n"
"  --quiet                 no live status line on stderr\n"
"Run:\n"
"  --interval DURATION     stats interval (default 1s; e.g. 500ms)\n"
"  --connect-timeout DUR   time for agents to connect and answer (default 10s, at most 1d)\n"
"  --agent-timeout DUR     an agent silent this long is marked lost (default 10s, 1s to 1d);\n"
"                          so is one whose layout makes no progress for this long; any\n"
"                          byte it sends counts, also of a frame still arriving\n"
"  --prepare-timeout DUR   an agent preparing a phase (engine connects, space check, file\n"
"                          creation, preallocation) without layout progress is marked lost\n"
"                          when not ready within DUR of its start or its last layout\n"
"                          progress (default 5m, 1s to 1d; docs/fleet.md)\n"
"  --control-tos TOS       mark the agents' connections so a link full of the run's own\n"
"                          load still carries them: the IP TOS byte (lowdelay = 0x10, the\n"
"                          default; dscp:N; a number 0-255 with the ECN bits 0; or none),\n"
"                          plus priority 6 for Linux's queues and linear thin-stream\n"
"                          retransmits (docs/fleet.md, \"A link the load fills\")\n"
"  --client-cap [LABEL=]RATE  what one agent can move at most (500MiB/s, 10Gbit/s), for\n"
"                          every agent or those with LABEL (repeatable; an agent with\n"
"                          several gets the largest): reads faster than it, or than the\n"
"                          agent's NIC link, are flagged 'faster than the link (...): page\n"
"                          cache or a client-side cache?' (docs/results.md)\n"
"  --limits FILE           the storage's declared limits (INI: caps per client and per\n"
"                          file system, burst credits, read metering, prices; examples/limits/,\n"
"                          docs/long-runs.md): before the run (and with --dry-run) the plan's\n"
"                          metered load, when it drains the credits, a warning when the run is\n"
"                          shorter than that, its cost; after it each agent and the fleet\n"
"                          against the caps, the metered bytes, credits used and cost\n"
"  --fs-size SIZE          bytes the file system holds (1.5TiB): its baseline and burst rates\n"
"  --secret-file F         shared secret of the agents (mode 600); --local makes its own\n"
"  --verbose               agents of --local log to stderr\n"
"  --dry-run               print each phase as each agent would run it (jobs, sizes,\n"
"                          op counts, what is laid out, file paths); connect to nothing,\n"
"                          do no I/O; then, for a job file, the --fio-compat-report\n"
"                          lines of its keys\n"
"  --fio-compat-report     list every key the plan sets, one line each, with what nfstorm\n"
"                          does with it (implemented, alias of X, accepted, ignored: why,\n"
"                          refused: why) and a verdict; exit 0 if the plan would run,\n"
"                          2 if not; runs nothing (docs/plans.md)\n"
"  --cleanup               after the run, have each agent remove the files the plan laid\n"
"                          out (as 'nfstorm clean' does)\n"
"  --repeat N              run the plan N times (1..1000) on the same agents; --json\n"
"                          writes a repeat set (every repetition, and per phase the mean,\n"
"                          sd and 95% CI of IOPS, bandwidth, p50, p99); each repetition's\n"
"                          report under 'repetition k/N' (not with --quiet), then the\n"
"                          summary; exit status: the worst repetition's\n"
"  --repeat-interval DUR   wait between repetitions (default 0; Ctrl-C ends the set)\n"
"  --include-failed        with --repeat (and for report and compare): count a phase's\n"
"                          repetitions that ran to their end with a verdict other than ok\n"
"                          in the mean, sd, CI and tests; by default they are left out,\n"
"                          listed with their values and why (docs/results.md)\n""fio's plan options (docs/plans.md):\n"
"  --section NAME          run only job section NAME (repeatable; [global] always applies)\n"
"  --parse-only            read and check the plan, then exit: 0 good, 2 bad\n"
"  --showcmd               print the plan as fio command-line options and exit\n"
"  --readonly              refuse a plan with a job that would write (exit 2, naming the\n"
"                          job and the key: rw=, md_ops=, unlink=)\n"
"  --max-jobs N            refuse a plan of more than N job threads per agent\n"
"  Job options together with PLAN.fio are applied as fio does: those before the first\n"
"  --name are defaults beneath the file's [global]; each --name is a job of its own,\n"
"  run ahead of and together with the file's first jobs.\n"
"Before a run, stderr says how much it is about to write across the agents (layout +\n"
"write phases); not with --quiet.\n"
"\n"
"'nfstorm clean' takes the plan and agent options of 'run' and has each agent remove the\n"
"regular files the plan names, beneath its --allow directories (ioengine=nfs: through libnfs,\n"
"beneath --allow-nfs); it prints what each removed, or why nothing matched. It never runs\n"
"the plan: with --pool it cleans the pool's agents, with --listen the agents that dial in,\n"
"with --spawn ssh the agents it starts.\n"
"'nfstorm report' and 'compare' into a pipe its reader closed ('| head') exit 141, quietly.\n"
"Signals: SIGINT, SIGTERM and SIGHUP stop the agents and write the partial results; a second\n"
"one during the run exits at once (the journal keeps what arrived). --local agents still\n"
"running 2 s after the run ends (stuck in a storage call) are killed: the coordinator exits\n"
"within 2.5 s of the run's end, or at once on a second signal (docs/fleet.md).\n"
"\n"
"Exit status follows the run's verdict (each phase's is in the report and the JSON):\n"
"0 ok, 1 failed (an agent completed no op, failed ops beyond the plan's error_threshold,\n"
"an agent's error, a bad block found by verify= (docs/verify.md); the reason names the\n"
"phase and the agent), 2 bad usage or plan,\n"
"3 partial (agents lost; the others' results are complete), 130 interrupted (partial results).\n"
"With --json FILE every interval is also appended to FILE.journal as it arrives;\n"
"'nfstorm report FILE.journal' rebuilds the report from it (a warning and exit 3 when that\n"
"run was cut short: the coordinator killed, or its disk full).  With --repeat, each\n"
"repetition K has FILE.repK.journal, and --csv, --timeseries and --output files get .repK\n"
"before their extension (a.csv -> a.rep1.csv); --html is the set's summary.\n"
"'nfstorm report RESULT --limits F' judges a saved result against declared limits (docs/long-runs.md);\n"
"--metrics F places the series of 'aws cloudwatch get-metric-data' output on the run's clock\n"
"(text, --json external_metrics, --html charts).\n"
"'nfstorm report SET.json' prints a repeat set's summary (--html: as a table; --json:\n"
"the set again); --repetition K renders repetition K like a single run's result.\n"
"'nfstorm serve' keeps a standing pool: agents that dial in (nfstorm-agent --coordinator\n"
"ADDR:PORT) stay connected between runs, submitters (run --pool) prove the same secret;\n"
"SIGTERM stops it (a run on it is stopped; its submitter exits 1); a run dies with serve,\n"
"even a serve killed with SIGKILL, and the next serve removes the run directory such a\n"
"serve left in $TMPDIR (only a dead serve's, by its ownership mark). docs/fleet.md.\n"
"Docs: docs/running.md, docs/plans.md, docs/results.md, docs/verify.md.\n";

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

static int die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("nfstorm: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}


/* One of --spawn's options at argv[*i] into c: 1 if it was one, 0 if
 * not, 2 on a bad or missing value (message printed). */
static int spawn_option(struct cli *c, int argc, char **argv, int *i)
{
    struct spawn_options *o = &c->so;
    /* repeatable ones collect into a list, the others set one value */
    const struct {
        const char *name;
        const char **one;
        const char **list;
        uint32_t *n;
    } t[] = {
        { "--spawn", &c->spawn, NULL, NULL },
        { "--agent-path", &o->agent_path, NULL, NULL },
        { "--remote-secret-file", &o->remote_secret, NULL, NULL },
        { "--ssh-config", &o->ssh_config, NULL, NULL },
        { "--spawn-address", &o->address, NULL, NULL },
        { "--ssh-option", NULL, o->ssh_opts, &o->nssh_opts },
        { "--remote-allow", NULL, o->allow, &o->nallow },
        { "--remote-allow-nfs", NULL, o->allow_nfs, &o->nallow_nfs },
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        int bad = 0;
        const char *v = cmd_opt_value(t[k].name, argc, argv, i, &bad);
        if (!v && !bad)
            continue;
        if (!v)
            return 2;           /* cmd_opt_value said so */
        if (!v[0])
            return die(2, "%s: an empty value", t[k].name);
        if (t[k].one == &c->spawn && strcmp(v, "ssh") != 0)
            return die(2, "--spawn: bad value '%s' (want ssh)", v);
        if (t[k].one) {
            *t[k].one = v;
        } else {
            if (*t[k].n == SPAWN_MAX_OPTS)
                return die(2, "%s: more than %d given", t[k].name, SPAWN_MAX_OPTS);
            t[k].list[(*t[k].n)++] = v;
        }
        return 1;
    }
    return 0;
}

/* --spawn's rules, before --listen's (which it implies). */
static int spawn_check_cli(const struct cli *c)
{
    const struct spawn_options *o = &c->so;
    if (!c->spawn) {
        if (o->agent_path || o->remote_secret || o->ssh_config || o->address || o->nssh_opts ||
            o->nallow || o->nallow_nfs)
            return die(2, "--agent-path, --remote-secret-file, --remote-allow, --remote-allow-nfs, "
                       "--ssh-option, --ssh-config and --spawn-address need --spawn ssh");
        return 0;
    }
    if (!c->hosts)
        return die(2, "--spawn ssh needs --hosts FILE (the hosts to start agents on)");
    if (c->expect)
        return die(2, "--spawn ssh expects one agent per line of --hosts: no --expect");
    if (!c->secret_file)
        return die(2, "--spawn ssh needs --secret-file: the agents it starts dial back and must "
                   "prove the secret");
    if (c->dry_run || c->cleanup)
        return die(2, "--spawn ssh does not combine with %s", c->dry_run ? "--dry-run" : "--cleanup");
    return 0;
}

static int pool_check_cli(const struct cli *c);
static int cmd_run(int argc, char **argv, int clean_only, struct gather_fleet *pool);

/* The run's options that are a plain value: one row each, in the order
 * they are tried (after a plan path, before the report's and fio's own
 * options).  A duration or count out of [min, max] says "bad value 'V'
 * (want WANT)". */
enum run_opt_kind { RO_STR, RO_FLAG, RO_DUR, RO_COUNT };

struct run_opt {
    const char *name;
    enum run_opt_kind kind;
    size_t off;                   /* in struct cli: const char *, int, uint64_t ns or uint32_t */
    uint64_t min, max;
    const char *want;
};

#define CLI(f) offsetof(struct cli, f)
#define H_NS 3600000000000ull
static const struct run_opt run_opts[] = {
    { "--agents", RO_STR, CLI(agents), 0, 0, NULL },
    { "--hosts", RO_STR, CLI(hosts), 0, 0, NULL },
    { "--listen", RO_STR, CLI(listen), 0, 0, NULL },
    { "--pool", RO_STR, CLI(pool), 0, 0, NULL },
    { "--pool-wait", RO_DUR, CLI(pool_wait_ns), 1000000ull, 24 * H_NS, "1ms..24h" },
    { "--no-wait", RO_FLAG, CLI(no_wait), 0, 0, NULL },
    { "--expect", RO_COUNT, CLI(expect), 1, MAX_AGENTS, NULL },
    { "--min-agents", RO_COUNT, CLI(min_agents), 1, MAX_AGENTS, NULL },
    { "--expect-timeout", RO_DUR, CLI(expect_timeout_ns), 1000000ull, 24 * H_NS, "1ms..24h" },
    { "--local", RO_COUNT, CLI(local), 1, MAX_AGENTS, NULL },
    { "--repeat", RO_COUNT, CLI(repeat), 1, RUN_SET_MAX_REPEAT, NULL },
    { "--repeat-interval", RO_DUR, CLI(repeat_interval_ns), 0, 24 * H_NS,
      "a duration up to 24h, e.g. 30s" },
    { "--json", RO_STR, CLI(json), 0, 0, NULL },
    { "--label", RO_STR, CLI(label), 0, 0, NULL },
    { "--interval", RO_DUR, CLI(interval_ns), 10000000ull, H_NS, "10ms..1h" },
    { "--connect-timeout", RO_DUR, CLI(connect_timeout_ns), 1000000ull, TIMEOUT_MAX_NS, "1ms to 1d" },
    { "--secret-file", RO_STR, CLI(secret_file), 0, 0, NULL },
    { "--agent-timeout", RO_DUR, CLI(agent_timeout_ns), 1000000000ull, TIMEOUT_MAX_NS, "1s to 1d" },
    { "--prepare-timeout", RO_DUR, CLI(prepare_timeout_ns), 1000000000ull, TIMEOUT_MAX_NS, "1s to 1d" },
    { "--limits", RO_STR, CLI(limits_path), 0, 0, NULL },
    { "--fs-size", RO_STR, CLI(fs_size), 0, 0, NULL },
    { "--quiet", RO_FLAG, CLI(quiet), 0, 0, NULL },
    { "--verbose", RO_FLAG, CLI(verbose), 0, 0, NULL },
    { "--dry-run", RO_FLAG, CLI(dry_run), 0, 0, NULL },
    { "--fio-compat-report", RO_FLAG, CLI(fio_compat), 0, 0, NULL },
    { "--include-failed", RO_FLAG, CLI(include_failed), 0, 0, NULL },
    { "--cleanup", RO_FLAG, CLI(cleanup), 0, 0, NULL },
};

/* argv[*i] as one of run_opts into c: 1 taken, 0 not one of them, 2 bad
 * (said). */
static int run_opt_take(struct cli *c, int argc, char **argv, int *i)
{
    for (size_t k = 0; k < sizeof run_opts / sizeof run_opts[0]; k++) {
        const struct run_opt *o = &run_opts[k];
        char *field = (char *)c + o->off;
        const char *v;
        int missing = 0;
        uint64_t n;

        if (o->kind == RO_FLAG) {
            if (strcmp(argv[*i], o->name) != 0)
                continue;
            *(int *)(void *)field = 1;
            return 1;
        }
        if (!(v = cmd_opt_value(o->name, argc, argv, i, &missing))) {
            if (missing)
                return 2;               /* cmd_opt_value said which */
            continue;
        }
        switch (o->kind) {
        case RO_STR:
            *(const char **)(void *)field = v;
            break;
        case RO_DUR:
            if (units_parse_duration(v, 1000000000ull, &n) < 0 || n < o->min || n > o->max)
                return die(2, "%s: bad value '%s' (want %s)", o->name, v, o->want);
            *(uint64_t *)(void *)field = n;
            break;
        default:    /* RO_COUNT */
            if (units_parse_u64(v, &n) < 0 || n < o->min || n > o->max)
                return die(2, "%s: bad value '%s' (want %llu..%llu)", o->name, v, (unsigned long long)o->min,
                           (unsigned long long)o->max);
            *(uint32_t *)(void *)field = (uint32_t)n;
            break;
        }
        return 1;
    }
    return 0;
}

static int parse_cli(int argc, char **argv, struct cli *c)
{
    c->unit_base = 1024;
    c->interval_ns = 1000000000ull;
    c->connect_timeout_ns = 10000000000ull;
    c->agent_timeout_ns = 10000000000ull;
    c->control_tos = CTLSOCK_TOS_DEFAULT;
    c->fio_args = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0, rc;
#define OPT(name) ((v = cmd_opt_value(name, argc, argv, &i, &missing)) != NULL || missing)
        if (a[0] != '-') {
            if (c->nplans == MAX_PLAN_FILES)
                return die(2, "more than %d job files", MAX_PLAN_FILES);
            c->plan_paths[c->nplans++] = a;
            if (!c->plan_path)
                c->plan_path = a;
        } else if ((rc = run_opt_take(c, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
            c->interval_given |= strncmp(a, "--interval", 10) == 0 && (a[10] == '\0' || a[10] == '=');
        } else if ((rc = spawn_option(c, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
        } else if (OPT("--target")) {
            if (v && strlen(v) >= RECORD_TARGET_MAX)
                return die(2, "--target: longer than %d bytes", RECORD_TARGET_MAX - 1);
            c->target = v;
        } else if (OPT("--unit-base")) {
            if (!v || (strcmp(v, "1024") && strcmp(v, "1000")))
                return die(2, "--unit-base: bad value '%s' (want 1024 or 1000)", v ? v : "");
            c->unit_base = atoi(v);
        } else if ((rc = cmd_report_option(&c->out, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
        } else if ((rc = fio_cli_option(&c->fio, &c->out, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
        } else if (OPT("--client-cap")) {
            char cerr[256];
            if (!v)
                return die(2, "--client-cap needs a value (RATE or LABEL=RATE)");
            if (client_caps_add(&c->caps, v, cerr, sizeof cerr) < 0)
                return die(2, "%s", cerr);
        } else if (OPT("--control-tos")) {
            if (!v || ctlsock_parse_tos(v, &c->control_tos) < 0)
                return die(2, "--control-tos: bad value '%s' (want none, lowdelay, dscp:N with N 0-63, "
                           "or a TOS byte 0-255 with the two ECN bits 0)", v ? v : "");
        } else {
            c->fio_args[c->nfio++] = fio_cli_job_word(argc, argv, &i);
            continue;
        }
        if (missing)
            return 2;       /* cmd_opt_value said which */
#undef OPT
    }
    if (spawn_check_cli(c) != 0)
        return 2;
    /* --listen adds dial-in agents to listed ones (a mixed fleet) */
    if (!!c->agents + !!c->hosts + !!c->local > 1)
        return die(2, "give only one of --agents, --hosts and --local");
    if (c->local && c->listen)
        return die(2, "--local does not combine with --listen (its agents have a secret of their own; "
                   "list running agents with --agents or --hosts)");
    if (!c->listen && !c->spawn && !c->pool && (c->expect || c->min_agents || c->expect_timeout_ns))
        return die(2, "--expect, --expect-timeout and --min-agents need --listen or --pool");
    if (pool_check_cli(c) != 0)
        return 2;
    if (c->pool && c->nplans > 1)
        return die(2, "--pool takes one job file (%d given): the pool host runs the plan it is sent",
                   c->nplans);
    if (c->listen && !c->expect && !c->spawn)
        return die(2, "--listen needs --expect N (how many agents to wait for)");
    if (c->min_agents > c->expect && c->listen && !c->spawn)
        return die(2, "--min-agents %u is more than --expect %u", c->min_agents, c->expect);
    if (c->listen && !c->secret_file)
        return die(2, "--listen needs --secret-file: a listening coordinator runs only agents "
                   "that prove the secret");
    if (c->listen && (c->dry_run || c->cleanup))
        return die(2, "--listen does not combine with %s", c->dry_run ? "--dry-run" : "--cleanup");
    if (c->repeat_interval_ns && !c->repeat)
        return die(2, "--repeat-interval without --repeat");
    if (c->include_failed && !c->repeat)
        return die(2, "--include-failed without --repeat (it decides what a repeat set's summary averages)");
    return 0;
}

/* ---- signals ----
 *
 * No signal ends the coordinator without its results.  During the run,
 * run.c's loop owns SIGINT and SIGTERM (stop the agents, collect what they
 * measured).  Before there is anything to keep (reading the plan, starting
 * --local agents, loading a journal) a signal ends the process at once,
 * status 130: --local agents die with us and their directory goes with
 * them (local.c).  From the journal's opening on (defer_signals set), and
 * while results are written, note_signal only notes the signal: files are
 * finished rather than cut half-written (a temp file left behind), `clean`
 * stops waiting, and the exit status says we were interrupted.  SIGHUP (a
 * closed terminal or ssh session) is forwarded as SIGTERM.  SIGPIPE is
 * ignored: a write to an agent that hung up fails with EPIPE and the agent
 * is lost like any other hang-up.
 *
 * libuv puts a signal back to its default action when the last uv_signal
 * watching it stops; run.c's watchers stop as the run ends, before we can
 * take the signal back.  A guard watcher on a loop of our own, started
 * before the run and stopped after we took over, keeps libuv's handler
 * installed in between, and what it caught says a signal came then. */
static volatile sig_atomic_t late_signal;
/* the command line as given, for the result's record (run_record.h) */
static int prog_argc;
static char **prog_argv;
static volatile sig_atomic_t defer_signals;
/* the --local agents are being stopped (at most 2.5 s, local.h): a
 * second signal ends us at once, the janitor finishes the cleanup */
static volatile sig_atomic_t stopping_local;
static volatile sig_atomic_t run_interrupted;  /* run.c's loop took a first signal */
static int signalled_twice;                     /* and a second came as its loop ended */
/* nfstorm serve's run child: the agents it was given (serve.h) */

static void note_signal(int signum)
{
    static const char msg[] = "nfstorm: signal received: finishing what is under way (result files are never cut short)\n";
    static const char now[] = "nfstorm: interrupted\n";
    static const char again[] = "nfstorm: interrupted again: not waiting for the local agents "
                                "(their cleanup process removes their directory)\n";
    if (!defer_signals) {
        (void)!write(2, now, sizeof now - 1);
        _exit(130);
    }
    if (stopping_local && (late_signal || run_interrupted || signalled_twice)) {
        (void)!write(2, again, sizeof again - 1);
        _exit(130);
    }
    if (!late_signal) {
        late_signal = signum;
        (void)!write(2, msg, sizeof msg - 1);
    }
}

static void forward_hup(int signum)
{
    (void)signum;
    kill(getpid(), SIGTERM);
}

static void signals_take(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = note_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = forward_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

struct signal_guard {
    uv_loop_t loop;
    uv_signal_t sig[2];
    int seen;                 /* a signal it caught */
    int count;                /* how many: run.c's loop's are counted here too */
};

static void on_guard(uv_signal_t *h, int signum)
{
    ((struct signal_guard *)h->data)->seen = signum;
    ((struct signal_guard *)h->data)->count++;
}

static void guard_start(struct signal_guard *g)
{
    static const int which[2] = { SIGINT, SIGTERM };
    memset(g, 0, sizeof *g);
    uv_loop_init(&g->loop);
    for (int i = 0; i < 2; i++) {
        uv_signal_init(&g->loop, &g->sig[i]);
        g->sig[i].data = g;
        uv_signal_start(&g->sig[i], on_guard, which[i]);
    }
}

/* Take the signals back from libuv (blocked meanwhile, so none is lost or
 * gets the default action); returns a signal the guard caught, or 0. */
static int guard_stop(struct signal_guard *g)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
    uv_run(&g->loop, UV_RUN_NOWAIT);
    for (int i = 0; i < 2; i++)
        uv_close((uv_handle_t *)&g->sig[i], NULL);
    uv_run(&g->loop, UV_RUN_DEFAULT);
    uv_loop_close(&g->loop);
    signals_take();
    sigprocmask(SIG_SETMASK, &old, NULL);
    return g->seen;
}

/* --hosts FILE (fleet/hosts.h): 0, or 2 with its one-line error said. */
static int hosts_cli(const char *path, char ***addrs, char ***labels, uint32_t *n)
{
    char err[512];
    return hosts_read(path, MAX_AGENTS, addrs, labels, n, err, sizeof err) < 0 ? die(2, "%s", err) : 0;
}

static void agent_binary(char *out, size_t len)
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

/* --cleanup, `nfstorm clean`: the agents remove the plan's files. */
static int clean_files(const struct plan *plan, char **addrs, struct gather_agent *joined, uint32_t ndial,
                       uint32_t n, const struct auth_secret *secret, const struct cli *c)
{
    struct clean_result *res = xcalloc(n, sizeof *res);
    /* divided before narrowing: 10 s of ns does not fit 32 bits (the cast
     * came first once, and the default 10 s wait was 1.4 s) */
    uint64_t timeout_ns = c->connect_timeout_ns > c->agent_timeout_ns ? c->connect_timeout_ns
                                                                      : c->agent_timeout_ns;
    uint32_t timeout_ms = (uint32_t)(timeout_ns / 1000000u);
    int status;
    clean_execute(plan, addrs, joined, ndial, n, secret, timeout_ms, &late_signal, res);
    status = clean_report(stderr, addrs, n, res);
    free(res);
    return status;
}

/* --listen: wait for the agents to dial in; on success addrs and labels
 * (taken from fleet) name them in index order.  The exit status: 0, or 2
 * when too few came (or the address is bad), 1 when we cannot listen. */
static int gather_cli(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                      uint32_t *n)
{
    struct gather_options go;
    struct auth_secret *secret = xmalloc(sizeof *secret);
    char err[4096];
    int rc;

    if (auth_load_secret(c->secret_file, secret, err, sizeof err) < 0) {
        free(secret);
        return die(2, "%s", err);
    }
    memset(&go, 0, sizeof go);
    go.listen = c->listen;
    go.expect = c->expect;
    go.min_agents = c->min_agents;
    go.timeout_ms = c->expect_timeout_ns ? (uint32_t)(c->expect_timeout_ns / 1000000u)
                                         : GATHER_DEFAULT_TIMEOUT_MS;
    go.agent_timeout_ms = (uint32_t)(c->agent_timeout_ns / 1000000u);
    go.control_tos = c->control_tos;
    go.secret = secret;
    go.log = c->quiet ? NULL : stderr;
    go.check = c->gather_check;
    go.check_arg = c->gather_check_arg;
    rc = gather_agents(&go, fleet, err, sizeof err);
    free(secret);
    if (rc < 0)
        return die(rc == -ETIMEDOUT || rc == -EINVAL ? 2 : 1, "%s", err);
    *addrs = fleet->addrs;
    *labels = fleet->labels;
    *n = fleet->n;
    fleet->addrs = fleet->labels = NULL;   /* cmd_run frees them */
    return 0;
}

/* The dial-ins na/nl/nn (gather_cli's) after the nlisted agents of a
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
static int gather_mixed(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                        uint32_t *n)
{
    char **na = NULL, **nl = NULL;
    uint32_t nn = 0;
    int status;

    if (*n + c->expect > MAX_AGENTS)
        return die(2, "%u listed agents and --expect %u: more than %d agents", *n, c->expect, MAX_AGENTS);
    if ((status = gather_cli(c, fleet, &na, &nl, &nn)) != 0)
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
static int regather(const struct cli *c, struct gather_fleet *fleet, char ***addrs, char ***labels,
                    uint32_t *n, uint32_t nlisted, uint32_t repetition)
{
    char **na = NULL, **nl = NULL;
    uint32_t nn = 0, had = *n - nlisted;
    int status;

    gather_free(fleet);
    if ((status = gather_cli(c, fleet, &na, &nl, &nn)) != 0)
        return status;
    for (uint32_t i = 0; nn == had && i < nn; i++) {
        const char *a = *labels ? (*labels)[nlisted + i] : NULL, *b = nl ? nl[i] : NULL;

        if (strcmp(a ? a : "", b ? b : "") != 0) {
            status = die(1, "repetition %u: agent %u has labels '%s', in repetition 1 '%s': the set ends "
                         "(the plan's agents= were resolved against the first agents)", repetition,
                         nlisted + i, b ? b : "", a ? a : "");
            break;
        }
    }
    if (nn != had && !status)
        status = die(1, "repetition %u: %u agents joined, repetition 1 had %u: the set ends", repetition, nn,
                     had);
    for (uint32_t i = nlisted; i < *n; i++) {
        free((*addrs)[i]);
        if (*labels)
            free((*labels)[i]);
    }
    if (nlisted == 0) {
        free(*addrs);
        free(*labels);
        *addrs = na;
        *labels = nl;
    } else {
        fleet_append(addrs, labels, nlisted, na, nl, nn);
    }
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
 * ssh children, fleet and addrs/labels/n as gather_cli's). */
static int spawn_cli(struct cli *c, const struct plan *plan, struct spawn_fleet *sp, struct gather_fleet *fleet,
                     char ***addrs, char ***labels, uint32_t *n)
{
    char **hosts = NULL, **hl = NULL, *dirs[SPAWN_MAX_OPTS], err[1024], *end;
    const char *listen = c->listen ? c->listen : SPAWN_DEFAULT_LISTEN, *colon;
    uint32_t nh = 0, ndirs = 0, need;
    struct spawn_options so = c->so;
    unsigned long port;
    int status, rc;

    if ((status = hosts_cli(c->hosts, &hosts, &hl, &nh)) != 0)
        goto out;
    for (uint32_t i = 0; i < nh; i++) {
        /* hosts_read added the agent port to a line without one */
        size_t l = strlen(hosts[i]), dl = strlen(":" HOSTS_DEFAULT_PORT);
        if (l <= dl || strcmp(hosts[i] + l - dl, ":" HOSTS_DEFAULT_PORT) != 0) {
            status = die(2, "%s: '%s': with --spawn ssh a line names an ssh destination ([user@]host) "
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
        status = die(2, "--listen %s: --spawn ssh needs a fixed port (the agents dial it back)", listen);
        goto out;
    }
    need = c->min_agents ? c->min_agents : nh;
    if (need > nh) {
        status = die(2, "--min-agents %u is more than the %u hosts of %s", c->min_agents, nh, c->hosts);
        goto out;
    }
    so.port = (uint16_t)port;
    if (!so.remote_secret)
        so.remote_secret = c->secret_file;
    if (!so.nallow) {
        ndirs = spawn_plan_allow(plan, dirs, SPAWN_MAX_OPTS);
        if (ndirs == 0) {
            status = die(2, "--spawn ssh: the plan names no absolute directory for the remote agents "
                         "to allow: give one with --remote-allow DIR");
            goto out;
        }
        for (uint32_t i = 0; i < ndirs; i++)
            so.allow[i] = dirs[i];
        so.nallow = ndirs;
    }
    if ((rc = spawn_fleet_start(sp, &so, hosts, hl, nh, err, sizeof err)) < 0) {
        /* a host, label or path ssh cannot carry is bad usage; fork or pipe failing is not */
        status = die(rc == -EINVAL || rc == -ENOSPC ? 2 : 1, "--spawn ssh: %s", err);
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
    status = gather_cli(c, fleet, addrs, labels, n);
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

/* --pool's rules: the pool has the agents, and only --json comes back. */
static int pool_check_cli(const struct cli *c)
{
    /* --repeat and the output files are the submitter's (pool_campaign.h) */
    const char *other = c->agents ? "--agents" : c->hosts ? "--hosts" : c->local ? "--local"
                      : c->listen ? "--listen" : c->spawn ? "--spawn"
                      : c->dry_run ? "--dry-run" : c->cleanup ? "--cleanup" : NULL;
    if (!c->pool) {
        if (c->pool_wait_ns || c->no_wait)
            return die(2, "--pool-wait and --no-wait need --pool");
        return 0;
    }
    if (other)
        return die(2, "--pool does not combine with %s (the pool has the agents)", other);
    if (c->pool_wait_ns && c->no_wait)
        return die(2, "give only one of --pool-wait and --no-wait");
    if (c->min_agents && c->expect && c->min_agents > c->expect)
        return die(2, "--min-agents %u is over --expect %u", c->min_agents, c->expect);
    if (!c->secret_file)
        return die(2, "--pool needs --secret-file: a pool runs only plans from submitters that "
                   "prove its secret");
    return 0;
}

/* 1 when argv[*i] is one of the options --pool keeps to itself (their
 * value skipped too): its own, and what the submitter renders from the
 * result (pool_campaign.h): the output files, --repeat, and with --output
 * the fio formats that go into it. */
static int pool_own_option(const struct cli *c, int argc, char **argv, int *i)
{
    static const char *const own[] = { "--pool", "--pool-wait", "--expect", "--min-agents",
                                       "--expect-timeout", "--json", "--secret-file", "--html", "--csv",
                                       "--timeseries", "--output", "--repeat", "--repeat-interval" };
    static const char *const fio_formats[] = { "--output-format", "--terse-version" };
    for (size_t k = 0; k < sizeof own / sizeof own[0] + sizeof fio_formats / sizeof fio_formats[0]; k++) {
        const char *name = k < sizeof own / sizeof own[0] ? own[k] : fio_formats[k - sizeof own / sizeof own[0]];
        size_t n = strlen(name);
        if (k >= sizeof own / sizeof own[0] && !c->out.output)
            break;
        if (strncmp(argv[*i], name, n) == 0 && (argv[*i][n] == '=' || argv[*i][n] == '\0')) {
            if (argv[*i][n] == '\0' && *i + 1 < argc)
                ++*i;
            return 1;
        }
    }
    return strcmp(argv[*i], "--no-wait") == 0 || (c->out.output && strcmp(argv[*i], "--minimal") == 0);
}

/* --pool: the run goes to nfstorm serve; its options go along, but for
 * the plan file (its expanded text instead) and --pool's own. */
static int pool_cli(const struct cli *c, int argc, char **argv, const char *plan_text, int clean_only)
{
    struct pool_client_options po;
    struct pool_campaign pc;
    struct pool_submit sub;
    struct auth_secret *secret = xmalloc(sizeof *secret);
    char err[4096];
    int status;

    if (auth_load_secret(c->secret_file, secret, err, sizeof err) < 0) {
        free(secret);
        return die(2, "%s", err);
    }
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
        free(sub.argv);
        free(secret);
        return die(2, "--pool: the plan is over %u bytes or has over %u options", POOL_PLAN_MAX, POOL_ARGV_MAX);
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
    if (pool_policy_check(&sub, err, sizeof err) < 0) {
        free(sub.argv);
        free(secret);
        return die(2, "--pool: %s", err);
    }
    memset(&pc, 0, sizeof pc);
    pc.po = &po;
    pc.sub = &sub;
    pc.out = &c->out;
    pc.repeat = c->repeat;
    pc.repeat_interval_ns = c->repeat_interval_ns;
    pc.quiet = c->quiet;
    pc.unit_base = c->unit_base;
    pc.signalled = &late_signal;
    status = clean_only ? pool_client_submit(&po, &sub) : pool_campaign_run(&pc);
    free(sub.argv);
    free(secret);
    return status;
}

/* In the child nfstorm serve forks for a submission: the ordinary run,
 * on the pool's agents (see serve.h). */
static int pool_run_child(int argc, char **argv, struct gather_fleet *f)
{
    signals_take();
    late_signal = 0;
    defer_signals = 0;
    prog_argc = argc;
    prog_argv = argv;
    return cmd_run(argc - 2, argv + 2, strcmp(argv[1], "clean") == 0, f);
}

/* `nfstorm serve --listen ADDR:PORT --secret-file F`. */
static int cmd_serve(int argc, char **argv)
{
    struct serve_options so;
    struct auth_secret *secret;
    const char *listen = NULL, *secret_file = NULL;
    uint64_t agent_timeout_ns = 10000000000ull;
    int quiet = 0, rc;
    char err[4096];

    for (int i = 0; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if ((v = cmd_opt_value("--listen", argc, argv, &i, &missing))) {
            listen = v;
        } else if ((v = cmd_opt_value("--secret-file", argc, argv, &i, &missing))) {
            secret_file = v;
        } else if ((v = cmd_opt_value("--agent-timeout", argc, argv, &i, &missing))) {
            if (units_parse_duration(v, 1000000000ull, &agent_timeout_ns) < 0 || agent_timeout_ns < 1000000000ull ||
                agent_timeout_ns > TIMEOUT_MAX_NS)
                return die(2, "--agent-timeout: bad value '%s' (want 1s to 1d)", v);
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (!missing) {
            return die(2, "serve: unknown option '%s' (try 'nfstorm --help')", argv[i]);
        }
        if (missing)
            return 2;
    }
    if (!listen)
        return die(2, "serve needs --listen ADDR:PORT (where agents and submitters come)");
    if (!secret_file)
        return die(2, "serve needs --secret-file: the pool takes only agents and submitters that prove it");
    secret = xmalloc(sizeof *secret);
    if (auth_load_secret(secret_file, secret, err, sizeof err) < 0) {
        free(secret);
        return die(2, "%s", err);
    }
    memset(&so, 0, sizeof so);
    so.listen = listen;
    so.secret = secret;
    so.agent_timeout_ms = (uint32_t)(agent_timeout_ns / 1000000u);
    so.log = quiet ? NULL : stderr;
    so.run = pool_run_child;
    rc = serve_main(&so, err, sizeof err);
    free(secret);
    if (rc < 0)
        return die(rc == -EINVAL ? 2 : 1, "%s", err);
    return 0;
}

/* fio's log files: the run's interval follows log_avg_msec (fiolog.h);
 * without it the logs are averaged over --interval, said once.  0 or 2. */
static int fiolog_plan_hook(const struct plan *plan, struct cli *c)
{
    char err[512];
    uint32_t ms = (uint32_t)(c->interval_ns / 1000000u);
    int avg = 0;

    if (c->pool && fiolog_plan_wants(plan))
        return die(2, "--pool: fio log files (write_*_log) are written where the plan runs; "
                   "run it without --pool");
    if (fiolog_plan_interval(plan, c->interval_given, &ms, err, sizeof err) < 0)
        return die(2, "%s", err);
    for (uint32_t i = 0; i < plan->nphases; i++)
        for (uint32_t j = 0; j < plan->phases[i].njobs; j++)
            avg |= plan->phases[i].jobs[j].log.mask && plan->phases[i].jobs[j].log.avg_msec;
    if (fiolog_plan_wants(plan) && !avg)
        fprintf(stderr, "nfstorm: warning: fio logs without log_avg_msec: nfstorm logs the mean of "
                "each %u ms interval, not every I/O\n", ms);
    c->interval_ns = (uint64_t)ms * 1000000u;
    return 0;
}

/* One `nfstorm run` (or `clean`): what it holds from parsing to exit.
 * cmd_run reads the plan, acquires the fleet, then runs repetitions in a
 * plain loop; each step is a function of its own and cmd_release frees
 * whatever was acquired, whichever step stopped. */
struct run_cmd {
    struct cli c;
    int clean_only;
    struct gather_fleet *pool;  /* a child of nfstorm serve: the pool's agents */
    struct plan plan;
    char *plan_text;
    struct local_fleet fleet;
    struct gather_fleet gathered;
    struct spawn_fleet spawned;     /* --spawn ssh: the ssh children */
    char **addrs, **labels;
    uint32_t naddrs;
    uint32_t nlisted;           /* a mixed fleet: agents 0..nlisted-1 are listed, the rest dial in */
    struct auth_secret secret;
    struct run_options ro;
    struct run_set set;             /* --repeat: the repetitions so far */
    struct repeat_run rr;
    struct fio_status *fstatus;     /* --status-interval: kept across repetitions */
    struct run_record rec;          /* the repetition's record while it runs: fstatus keeps
                                       its address, so it lives as long as fstatus */
    struct limits lim;              /* --limits, when have_limits */
    struct limits_forecast forecast;   /* ... the plan's, before it runs */
    int have_limits;
    char err[1024];
};

/* Parse the command line and read the plan.  0 to go on; else the exit
 * status (and *stop set: the command is over, e.g. --fio-compat-report). */
static int cmd_load_plan(struct run_cmd *r, int argc, char **argv, int *stop)
{
    struct cli *c = &r->c;
    int rc, status = 0;

    *stop = 1;
    if ((rc = parse_cli(argc, argv, c)) != 0) {
        free(c->fio_args);
        c->fio_args = NULL;
        return rc;
    }
    c->out.unit_base = c->unit_base;
    r->rr = (struct repeat_run){ .repeat = c->repeat, .interval_ns = c->repeat_interval_ns, .quiet = c->quiet,
                                 .unit_base = c->unit_base, .json = c->json, .out = &c->out,
                                 .signalled = &late_signal };
    if (r->clean_only && (c->json || c->dry_run || c->cleanup || c->out.csv || c->out.html || c->out.timeseries ||
                          c->out.output || c->out.fio_formats || c->repeat))
        return die(2, "clean: only plan and agent options apply (--json, --csv, --html, --output, "
                   "--timeseries, --dry-run, --cleanup, --repeat are for run)");
    if (c->fio_compat && !r->clean_only) {
        status = fio_compat_report(stdout, c->plan_path, c->nfio, c->fio_args);
        for (int k = 1; k < c->nplans && status == 0; k++)
            status = fio_compat_report(stdout, c->plan_paths[k], 0, NULL);
        return status;
    }
    rc = fio_cli_read_plans(c->nplans, c->plan_paths, c->nfio, c->fio_args, &r->plan, &r->plan_text,
                            r->err, sizeof r->err);
    free(c->fio_args);
    c->fio_args = NULL;
    if (rc == 0)
        rc = fio_cli_apply(&c->fio, &r->plan, r->err, sizeof r->err);
    if (rc < 0)
        return die(2, "%s", r->err);
    for (uint32_t i = 0; i < r->plan.nwarnings; i++)
        fprintf(stderr, "nfstorm: warning: %s\n", r->plan.warnings[i]);
    if (c->limits_path || c->fs_size) {
        /* the declared limits: read before anything connects, so a bad file costs nothing */
        if (!c->limits_path)
            return die(2, "--fs-size needs --limits FILE (the credit model it sizes)");
        if (r->clean_only || c->pool)
            return die(2, "--limits is for a run here (not with %s)", r->clean_only ? "clean" : "--pool");
        if (limits_load(c->limits_path, &r->lim, r->err, sizeof r->err) < 0 ||
            (c->fs_size && limits_set_fs_size(&r->lim, c->fs_size, r->err, sizeof r->err) < 0))
            return die(2, "%s", r->err);
        r->have_limits = 1;
    }
    if (c->fio.showcmd || c->fio.parse_only) {
        /* fio's dry parses: nothing is connected to or started */
        if (c->fio.showcmd)
            fio_cli_showcmd(stdout, r->plan_text);
        else if (plan_validate(&r->plan, c->local ? c->local : 1, r->err, sizeof r->err) < 0)
            return die(2, "%s", r->err);
        return 0;
    }
    if (!r->clean_only && fiolog_plan_hook(&r->plan, c) != 0)
        return 2;
    if (!c->pool && !r->pool && !c->agents && !c->hosts && !c->listen) {
        /* --local: relative names are beneath the current directory, as fio's */
        char cwd[PATH_MAX];
        int no_cwd = !getcwd(cwd, sizeof cwd);
        if (no_cwd)
            snprintf(r->err, sizeof r->err, "cannot tell the current directory: %s", strerror(errno));
        if (no_cwd || fio_cli_local_paths(&r->plan, cwd, r->err, sizeof r->err) < 0)
            return die(2, "%s", r->err);
    }
    *stop = 0;
    return 0;
}

/* --agents A,B,...: the listed addresses.  0, or the exit status. */
static int cmd_agents_list(struct run_cmd *r)
{
    for (const char *s = r->c.agents; *s;) {
        size_t len = strcspn(s, ",");
        if (len)
            hosts_add_addr(&r->addrs, &r->naddrs, s, len);
        if (len && hosts_port_ok(r->addrs[r->naddrs - 1]) < 0)
            return die(2, "--agents: '%s': the port must be 1 to 65535", r->addrs[r->naddrs - 1]);
        s += len + (s[len] == ',');
    }
    return r->naddrs == 0 ? die(2, "--agents: no address given") : 0;
}

/* Find the agents the plan runs on, however they arrive: the pool's (a
 * child of serve), --agents, --hosts (with --spawn), --listen, a mix of
 * listed and dialling agents, or --local agents started here.  With
 * --pool the whole command is the submission.  0, or the exit status. */
static int cmd_acquire_fleet(struct run_cmd *r)
{
    struct cli *c = &r->c;
    int status = 0;

    if (c->pool) {
        /* before anything of a run: clean --pool is a clean on the pool's agents */
        return 0;
    } else if (r->pool) {
        /* a run of nfstorm serve: the pool's agents, as if gathered */
        r->gathered = *r->pool;
        memset(r->pool, 0, sizeof *r->pool);
        r->addrs = r->gathered.addrs;
        r->labels = r->gathered.labels;
        r->naddrs = r->gathered.n;
        r->gathered.addrs = r->gathered.labels = NULL;
    } else if (c->agents) {
        status = cmd_agents_list(r);
    } else if (c->hosts && c->spawn) {
        /* clean too: the agents started over ssh dial back and are cleaned */
        status = spawn_cli(c, &r->plan, &r->spawned, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->hosts) {
        status = hosts_cli(c->hosts, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->listen) {
        /* clean too: the agents that dial in are the fleet to clean */
        status = gather_cli(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->dry_run) {
        /* --local N: nothing is started, the N agents are this machine */
    } else {
        char agent[PATH_MAX];
        agent_binary(agent, sizeof agent);
        if (local_fleet_start(&r->fleet, c->local ? c->local : 1, agent, &r->plan, c->verbose, r->err,
                              sizeof r->err) < 0)
            status = die(1, "%s", r->err);
        else
            for (uint32_t i = 0; i < r->fleet.n; i++)
                hosts_add_addr(&r->addrs, &r->naddrs, r->fleet.addr[i], strlen(r->fleet.addr[i]));
    }
    /* a mixed fleet: the listed agents, then those that dial in */
    r->nlisted = c->listen && !c->spawn && (c->agents || c->hosts) ? r->naddrs : 0;
    if (status == 0 && r->nlisted)     /* clean too: one fleet however it arrives */
        status = gather_mixed(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
    return status;
}

/* The run's options from the CLI and the fleet.  0, or the exit status. */
static int cmd_run_options(struct run_cmd *r)
{
    struct cli *c = &r->c;
    struct run_options *ro = &r->ro;

    memset(ro, 0, sizeof *ro);
    ro->interval_ms = (uint32_t)(c->interval_ns / 1000000u);
    ro->connect_timeout_ms = (uint32_t)(c->connect_timeout_ns / 1000000u);
    ro->agent_timeout_ms = (uint32_t)(c->agent_timeout_ns / 1000000u);
    ro->prepare_timeout_ms = (uint32_t)(c->prepare_timeout_ns / 1000000u);
    ro->control_tos = c->control_tos;
    ro->client_caps = &c->caps;
    if (r->fleet.n) {
        ro->secret = &r->fleet.secret;
    } else if (c->secret_file) {
        if (auth_load_secret(c->secret_file, &r->secret, r->err, sizeof r->err) < 0)
            return die(2, "%s", r->err);
        ro->secret = &r->secret;
    }
    return 0;
}

/* This repetition's observers, in the order they see the run: the
 * journal, the live line, fio's status reports, the time series and fio's
 * logs.  0, or the exit status (what was opened is in *ob for cleanup). */
struct rep_observers {
    struct run_observer list[5];
    uint32_t n;
    struct journal *journal;
    char jpath[PATH_MAX + 16];
    struct live *live;
    struct timeseries *ts;
    struct fiolog *flog;
};

static int rep_observers_open(struct run_cmd *r, struct report_outputs *outs, struct run_record *rec,
                              struct rep_observers *ob)
{
    struct cli *c = &r->c;
    struct stat jst;
    /* --json into a device or a FIFO (/dev/null, a pipe): the result is
     * written into it, and no FILE.journal is made beside it (in /dev) */
    int json_special = c->json && stat(c->json, &jst) == 0 && !S_ISREG(jst.st_mode);

    if (json_special && r->set.n == 0)
        fprintf(stderr, "nfstorm: warning: --json %s is not a regular file: the result is written into it, "
                "and no journal is kept\n", c->json);
    if (c->json && !json_special) {
        if (c->repeat)
            snprintf(ob->jpath, sizeof ob->jpath, "%s.rep%u.journal", c->json, r->set.n + 1);
        else
            snprintf(ob->jpath, sizeof ob->jpath, "%s.journal", c->json);
        if (!(ob->journal = journal_open(ob->jpath, c->label)))
            return die(1, "%s: cannot open for writing: %s", ob->jpath, out_file_strerror(errno));
        journal_set_record(ob->journal, rec);
        ob->list[ob->n++] = journal_observer(ob->journal);
    }
    ob->live = live_new_tty(stderr, c->quiet || c->fio.eta == FIO_ETA_NEVER, &r->plan, c->unit_base,
                            c->fio.eta == FIO_ETA_ALWAYS ? 1 : -1);
    ob->list[ob->n++] = live_observer(ob->live);
    if (c->fio.status_interval_ns) {
        /* fio writes each status report where its report goes and in its
         * format(s): --output (whose report then follows the status
         * reports), else stdout.  Without a fio format nfstorm's own text
         * report is the report, and its status is one line on stdout
         * (docs/running.md). */
        unsigned smask = outs->fio_formats ? outs->fio_formats : outs->output ? REPORT_FIO_NORMAL : 0;
        FILE *sout = stdout;

        if (smask && outs->output) {
            if (!(sout = out_file_open(outs->output)))
                return die(1, "%s: cannot open for writing: %s", outs->output, out_file_strerror(errno));
            outs->output_open = sout;
        }
        if (!r->fstatus)
            r->fstatus = fio_status_new(sout, c->fio.status_interval_ns, &r->plan, rec, smask, c->unit_base);
        else
            fio_status_set_out(r->fstatus, sout);
        ob->list[ob->n++] = fio_status_observer(r->fstatus);
    }
    if (outs->timeseries) {
        if (!(ob->ts = timeseries_new(outs->timeseries)))
            return die(1, "%s: cannot open for writing: %s", outs->timeseries, out_file_strerror(errno));
        ob->list[ob->n++] = timeseries_observer(ob->ts);
    }
    if (fiolog_plan_wants(&r->plan)) {
        ob->flog = fiolog_new(&r->plan, r->naddrs, r->ro.interval_ms);
        if (fiolog_create_files(ob->flog) < 0)
            return die(1, "cannot write a fio log: %s", fiolog_error(ob->flog));
        ob->list[ob->n++] = fiolog_observer(ob->flog);
    }
    return 0;
}

/* Close what rep_observers_open opened and the run did not finish. */
static void rep_observers_close(struct rep_observers *ob)
{
    live_free(ob->live);
    if (ob->ts)
        timeseries_free(ob->ts);
    fiolog_free(ob->flog);
    journal_close(ob->journal);
    memset(ob, 0, sizeof *ob);
}

/* The exit status the verdicts give (docs/running.md): 0 ok, 1 failed,
 * 3 partial, 130 interrupted; an output that could not be written
 * (status 1 already) makes an ok run fail. */
static int run_exit_status(const struct run_result *res, int rc, const char *err, int status)
{
    enum verdict_kind v = verdict_run(res);
    int vs = verdict_exit_status(v);

    if (rc < 0 && vs == 0)
        vs = 1;
    if (rc < 0 || rc == RUN_PARTIAL || rc == RUN_INTERRUPTED)
        die(vs, "%s", err);
    else if (v == VERDICT_FAILED) {
        char line[1024];
        verdict_summary(res, line, sizeof line);
        die(1, "run %s", line);
    }
    return vs != 0 || status == 0 ? vs : status;
}

/* One repetition (the whole run without --repeat): open its observers,
 * run the plan, write its reports.  *res holds the result (the caller
 * keeps or frees it), *run_rc run_execute's answer, *started whether the
 * run was started at all.  Returns the exit status of this repetition. */
static int cmd_run_once(struct run_cmd *r, struct run_result *res, int *run_rc, int *started)
{
    struct cli *c = &r->c;
    struct report_outputs outs = c->out;     /* this repetition's outputs */
    struct repeat_files rep_files;
    struct rep_observers ob;
    struct signal_guard guard;
    struct run_record *rec = &r->rec;
    int rc, gsig, status = 0;

    memset(&ob, 0, sizeof ob);
    memset(res, 0, sizeof *res);
    *run_rc = -1;
    *started = 0;
    run_record_init(rec);
    r->ro.addrs = r->addrs;
    r->ro.labels = r->labels;
    r->ro.naddrs = r->naddrs;
    r->ro.joined = r->gathered.n ? r->gathered.agents : NULL;
    r->ro.ndial = r->nlisted;
    repeat_run_outputs(&r->rr, r->set.n + 1, &rep_files, &outs);
    if (c->repeat && !c->quiet)
        printf("%srepetition %u/%u\n", r->set.n ? "\n" : "", r->set.n + 1, c->repeat);
    fflush(stdout);
    run_record_begin(rec, c->target, prog_argc, prog_argv, r->plan_text);
    if ((status = rep_observers_open(r, &outs, rec, &ob)) == 0 && late_signal)
        status = die(130, "interrupted before the run started");
    if (status != 0) {
        if (outs.output_open)
            fclose(outs.output_open);
        rep_observers_close(&ob);
        run_record_free(rec);
        return status;
    }
    r->ro.observers = ob.list;
    r->ro.nobservers = ob.n;
    guard_start(&guard);
    rc = run_execute(&r->plan, &r->ro, res, r->err, sizeof r->err);
    res->limits = r->have_limits ? &r->lim : NULL;       /* for the renderers; r outlives res */
    res->forecast = r->have_limits ? &r->forecast : NULL;
    *run_rc = rc;
    *started = 1;
    run_interrupted = rc == RUN_INTERRUPTED || res->end == RUN_END_INTERRUPTED;
    if ((gsig = guard_stop(&guard)) != 0 && rc != RUN_INTERRUPTED && !late_signal)
        late_signal = gsig;
    /* the guard sees run.c's signals too: a second one came as the run's
     * loop ended (run.c exits at once on one that comes before) */
    if (run_interrupted && guard.count >= 2)
        signalled_twice = 1;
    run_record_finish(rec, run_interrupted);
    if (journal_record_end(ob.journal, rec) < 0)
        fprintf(stderr, "nfstorm: %s: cannot write its record\n", ob.jpath);
    res->record = *rec;          /* the result owns it from here */
    run_record_init(rec);
    if (journal_end(ob.journal, rc < 0 ? "failed" : rc == RUN_PARTIAL ? "partial"
                                : rc == RUN_INTERRUPTED ? "interrupted" : "ok") < 0)
        fprintf(stderr, "nfstorm: %s: cannot write its end record\n", ob.jpath);
    live_free(ob.live);
    ob.live = NULL;
    cmd_report_apply_changes(&c->out, res);
    if (c->label) {
        snprintf(res->label, sizeof res->label, "%s", c->label);
        result_clean_utf8(res->label);    /* printed, and re-rendered alike from the files */
    }
    /* what was measured is reported, even when the run failed later; a
     * run that failed before any phase started measured nothing, and its
     * one-line error (below) says all */
    if (!cmd_report_fio_on_stdout(&c->out) && !c->out.output && !(rc < 0 && !result_any_phase_ran(res)) &&
        !(c->repeat && c->quiet))
        report_text_rows(stdout, res, c->unit_base, c->out.agent_rows);
    fflush(stdout);
    if (cmd_report_write(&outs, res) != 0)
        status = 1;
    outs.output_open = NULL;    /* closed by cmd_report_write */
    if (ob.ts && timeseries_free(ob.ts) < 0)
        status = die(1, "%s: cannot write the time series", outs.timeseries);
    ob.ts = NULL;
    if (ob.flog) {
        char ferr[600];
        if (fiolog_warning(ob.flog)[0])
            fprintf(stderr, "nfstorm: warning: %s\n", fiolog_warning(ob.flog));
        snprintf(ferr, sizeof ferr, "%s", fiolog_error(ob.flog));
        if (fiolog_free(ob.flog) < 0)
            status = die(1, "cannot write a fio log: %s", ferr);
        ob.flog = NULL;
    }
    if (c->json && !c->repeat) {
        int jrc = report_json_write(c->json, res);
        if (jrc < 0)
            status = die(1, "%s: cannot write the JSON result: %s", c->json, out_file_strerror(-jrc));
    }
    if (ob.journal && journal_close(ob.journal) < 0)
        status = die(1, "%s: write failed", ob.jpath);
    ob.journal = NULL;
    return run_exit_status(res, rc, r->err, status);
}

/* The repetition after the set's last could not start (status): a signal
 * interrupted the set; anything else (an output it could not open, agents
 * not gathered again) leaves it short of what was asked, and it says so. */
static void repeat_ended_short(struct run_cmd *r, int status)
{
    if (late_signal || status == 130)
        r->set.interrupted = 1;
    else
        r->set.not_started = r->set.n + 1;
}

/* The plan's repetitions (one without --repeat), each a whole run with
 * its record, journal and files; the set is written once it ends.  With
 * --listen every repetition after the first gathers its agents anew. */
static int cmd_repetitions(struct run_cmd *r)
{
    struct cli *c = &r->c;
    int set_status = 0, status = 0, rc, started;

    r->set.requested = c->repeat;
    r->set.interval_ns = c->repeat_interval_ns;
    r->set.include_failed = c->include_failed;
    if (c->target) {
        snprintf(r->set.target, sizeof r->set.target, "%s", c->target);
        result_clean_utf8(r->set.target);    /* as each repetition's record has it */
    }
    for (;;) {
        struct run_result res;

        if (c->listen && r->set.n > 0 &&
            (status = regather(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs, r->nlisted,
                               r->set.n + 1)) != 0) {
            repeat_ended_short(r, status);
            break;
        }
        status = cmd_run_once(r, &res, &rc, &started);
        if (!started) {
            /* it could not start: keep the repetitions before it, and the
             * set says it ended short (its JSON's exit_status is this one's) */
            repeat_ended_short(r, status);
            break;
        }
        if (!c->repeat) {
            result_free(&res);
            return status;
        }
        /* keep it; another repetition unless this one ended the set */
        r->set.reps = xrealloc(r->set.reps, (r->set.n + 1) * sizeof *r->set.reps);
        r->set.reps[r->set.n++] = res;
        set_status = repeat_worse_status(set_status, status);
        if (!repeat_run_next(&r->rr, &r->set, rc))
            return repeat_run_finish(&r->rr, &r->set, set_status);
    }
    if (r->set.n)
        status = repeat_worse_status(status, repeat_run_finish(&r->rr, &r->set, set_status));
    return status;
}

/* Free whatever cmd_run acquired, whichever step it stopped at. */
static void cmd_release(struct run_cmd *r)
{
    fio_status_free(r->fstatus);
    run_record_free(&r->rec);
    gather_free(&r->gathered);     /* closes the sockets of a run that never started */
    spawn_fleet_stop(&r->spawned, 5000);   /* their sessions end, so do the agents */
    free(r->plan_text);
    free(r->c.fio_args);
    run_set_free(&r->set);
    if (r->fleet.n) {
        stopping_local = 1;
        if (signalled_twice)
            note_signal(SIGTERM);       /* the second signal's due: out at once */
        local_fleet_stop(&r->fleet);
        stopping_local = 0;
    }
    for (uint32_t i = 0; i < r->naddrs; i++)
        free(r->addrs[i]);
    for (uint32_t i = 0; r->labels && i < r->naddrs; i++)
        free(r->labels[i]);
    free(r->labels);
    free(r->addrs);
    plan_free(&r->plan);
}

/* The work of `run` and `clean` once the fleet is there.  0, or the exit status. */
static int cmd_run_fleet(struct run_cmd *r, int argc, char **argv)
{
    struct cli *c = &r->c;
    int status;

    if (c->pool)
        return pool_cli(c, argc, argv, r->plan_text, r->clean_only);
    if (c->dry_run) {
        status = dryrun_main(stdout, &r->plan, r->addrs, (const char *const *)r->labels, r->naddrs,
                             c->local ? c->local : 1);
        if (status == 0 && r->have_limits) {
            limits_forecast(&r->lim, &r->plan, r->addrs ? r->naddrs : c->local ? c->local : 1, &r->forecast);
            fputc('\n', stdout);
            limits_forecast_text(stdout, "", &r->lim, &r->forecast, c->unit_base);
        }
        if (status == 0 && c->repeat)
            repeat_run_dry_line(stdout, &r->rr);
        if (status == 0 && c->plan_path) {
            fputc('\n', stdout);
            for (int k = 0; k < c->nplans; k++)
                fio_compat_section(stdout, c->plan_paths[k], 0, NULL);
        }
        return status;
    }
    if (plan_resolve_labels(&r->plan, (const char *const *)r->labels, r->naddrs, r->err, sizeof r->err) < 0 ||
        plan_validate(&r->plan, r->naddrs, r->err, sizeof r->err) < 0 ||
        plan_span_check(&r->plan, (uint32_t)(c->interval_ns / 1000000u), r->err, sizeof r->err) < 0)
        return die(2, "%s", r->err);
    if ((status = cmd_run_options(r)) != 0)
        return status;
    defer_signals = 1;          /* from here on there is something to finish */
    if (r->clean_only)
        return clean_files(&r->plan, r->addrs, r->gathered.n ? r->gathered.agents : NULL, r->nlisted,
                           r->naddrs, r->ro.secret, c);
    if (!c->quiet) {
        struct clean_estimate est;
        char line[512];
        clean_estimate(&r->plan, r->naddrs, &est);
        clean_estimate_line(&est, r->naddrs, line, sizeof line);
        fprintf(stderr, "nfstorm: %s\n", line);
    }
    if (r->have_limits) {
        limits_forecast(&r->lim, &r->plan, r->naddrs, &r->forecast);
        if (!c->quiet)
            limits_forecast_text(stderr, "nfstorm: ", &r->lim, &r->forecast, c->unit_base);
    }
    status = cmd_repetitions(r);
    if (c->cleanup && clean_files(&r->plan, r->addrs, NULL, 0, r->naddrs, r->ro.secret, c) != 0 && status == 0)
        status = 1;
    return status;
}

/* `nfstorm run` and `nfstorm clean` (clean_only): read the plan, acquire
 * the fleet (pool: a child of nfstorm serve hands its agents), run. */
static int cmd_run(int argc, char **argv, int clean_only, struct gather_fleet *pool)
{
    struct run_cmd *r = xcalloc(1, sizeof *r);
    int stop, status;

    r->clean_only = clean_only;
    r->pool = pool;
    plan_init(&r->plan);
    status = cmd_load_plan(r, argc, argv, &stop);
    if (!stop && (status = cmd_acquire_fleet(r)) == 0)
        status = cmd_run_fleet(r, argc, argv);
    cmd_release(r);
    free(r);
    if (late_signal && status == 0)
        status = die(130, "SIG%s after the run ended: the results above are complete",
                     sigabbrev_np(late_signal));
    return status;
}

static int cmd_report_signalled(int argc, char **argv)
{
    int status = cmd_stdout_status("report", cmd_report_main(argc, argv, &defer_signals));
    if (late_signal && status == 0)
        status = die(130, "SIG%s while writing: the files were finished", sigabbrev_np(late_signal));
    return status;
}

int main(int argc, char **argv)
{
    prog_argc = argc;
    prog_argv = argv;
    signals_take();
    if (argc < 2)
        return die(2, "no command (try 'nfstorm --help')");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("nfstorm %s (protocol %d)\n", NFSTORM_VERSION, PROTO_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "report") == 0)
        return cmd_report_signalled(argc - 2, argv + 2);
    if (strcmp(argv[1], "compare") == 0)
        return cmd_stdout_status("compare", cmd_compare_main(argc - 2, argv + 2));
    if (strcmp(argv[1], "serve") == 0)
        return cmd_serve(argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "clean") == 0) {
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                fputs(usage, stdout);
                return 0;
            }
        return cmd_run(argc - 2, argv + 2, strcmp(argv[1], "clean") == 0, NULL);
    }
    return die(2, "unknown command '%s' (try 'nfstorm --help')", argv[1]);
}
