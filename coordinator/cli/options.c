/* options: see options.h.  --help's text sits beside the table it
 * describes, so a new option is one row and one line of usage here. */
#include "coordinator/cli/options.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "coordinator/fleet/hosts.h"
#include "coordinator/result/repeat.h"
#include "coordinator/run/run.h"
#include "coordinator/run/run_record.h"
#include "net/ctlsock.h"

const char cli_usage[] =
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

int cli_die(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("nfstorm: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}


/* --spawn's rules, before --listen's (which it implies). */
static int spawn_check_cli(const struct cli *c)
{
    const struct spawn_options *o = &c->so;
    if (!c->spawn) {
        if (o->agent_path || o->remote_secret || o->ssh_config || o->address || o->nssh_opts ||
            o->nallow || o->nallow_nfs)
            return cli_die(2, "--agent-path, --remote-secret-file, --remote-allow, --remote-allow-nfs, "
                       "--ssh-option, --ssh-config and --spawn-address need --spawn ssh");
        return 0;
    }
    if (!c->hosts)
        return cli_die(2, "--spawn ssh needs --hosts FILE (the hosts to start agents on)");
    if (c->expect)
        return cli_die(2, "--spawn ssh expects one agent per line of --hosts: no --expect");
    if (!c->secret_file)
        return cli_die(2, "--spawn ssh needs --secret-file: the agents it starts dial back and must "
                   "prove the secret");
    if (c->dry_run || c->cleanup)
        return cli_die(2, "--spawn ssh does not combine with %s", c->dry_run ? "--dry-run" : "--cleanup");
    return 0;
}

/* The run's options that are a plain value: one row each, in the order
 * they are tried (after a plan path, before the report's and fio's own
 * options).  --spawn's lists collect up to SPAWN_MAX_OPTS values. */
#define CLI(f) offsetof(struct cli, f)
#define H_NS 3600000000000ull
#define SPAWN_LIST(name, f) { name, CO_LIST, CLI(so.f), 0, SPAWN_MAX_OPTS, NULL, CLI(so.n##f) }
static const struct cli_opt run_opts[] = {
    { "--agents", CO_STR, CLI(agents), 0, 0, NULL, 0 },
    { "--hosts", CO_STR, CLI(hosts), 0, 0, NULL, 0 },
    { "--listen", CO_STR, CLI(listen), 0, 0, NULL, 0 },
    { "--pool", CO_STR, CLI(pool), 0, 0, NULL, 0 },
    { "--pool-wait", CO_DUR, CLI(pool_wait_ns), 1000000ull, 24 * H_NS, "1ms..24h", 0 },
    { "--no-wait", CO_FLAG, CLI(no_wait), 0, 0, NULL, 0 },
    { "--expect", CO_COUNT, CLI(expect), 1, MAX_AGENTS, NULL, 0 },
    { "--min-agents", CO_COUNT, CLI(min_agents), 1, MAX_AGENTS, NULL, 0 },
    { "--expect-timeout", CO_DUR, CLI(expect_timeout_ns), 1000000ull, 24 * H_NS, "1ms..24h", 0 },
    { "--local", CO_COUNT, CLI(local), 1, MAX_AGENTS, NULL, 0 },
    { "--repeat", CO_COUNT, CLI(repeat), 1, RUN_SET_MAX_REPEAT, NULL, 0 },
    { "--repeat-interval", CO_DUR, CLI(repeat_interval_ns), 0, 24 * H_NS, "a duration up to 24h, e.g. 30s", 0 },
    { "--json", CO_STR, CLI(json), 0, 0, NULL, 0 },
    { "--label", CO_STR, CLI(label), 0, 0, NULL, 0 },
    { "--interval", CO_DUR, CLI(interval_ns), 10000000ull, H_NS, "10ms..1h", 0 },
    { "--connect-timeout", CO_DUR, CLI(connect_timeout_ns), 1000000ull, TIMEOUT_MAX_NS, "1ms to 1d", 0 },
    { "--secret-file", CO_STR, CLI(secret_file), 0, 0, NULL, 0 },
    { "--agent-timeout", CO_DUR, CLI(agent_timeout_ns), 1000000000ull, TIMEOUT_MAX_NS, "1s to 1d", 0 },
    { "--prepare-timeout", CO_DUR, CLI(prepare_timeout_ns), 1000000000ull, TIMEOUT_MAX_NS, "1s to 1d", 0 },
    { "--limits", CO_STR, CLI(limits_path), 0, 0, NULL, 0 },
    { "--fs-size", CO_STR, CLI(fs_size), 0, 0, NULL, 0 },
    { "--quiet", CO_FLAG, CLI(quiet), 0, 0, NULL, 0 },
    { "--verbose", CO_FLAG, CLI(verbose), 0, 0, NULL, 0 },
    { "--dry-run", CO_FLAG, CLI(dry_run), 0, 0, NULL, 0 },
    { "--fio-compat-report", CO_FLAG, CLI(fio_compat), 0, 0, NULL, 0 },
    { "--include-failed", CO_FLAG, CLI(include_failed), 0, 0, NULL, 0 },
    { "--cleanup", CO_FLAG, CLI(cleanup), 0, 0, NULL, 0 },
    { "--spawn", CO_WORD, CLI(spawn), 0, 0, "ssh", 0 },
    { "--agent-path", CO_WORD, CLI(so.agent_path), 0, 0, NULL, 0 },
    { "--remote-secret-file", CO_WORD, CLI(so.remote_secret), 0, 0, NULL, 0 },
    { "--ssh-config", CO_WORD, CLI(so.ssh_config), 0, 0, NULL, 0 },
    { "--spawn-address", CO_WORD, CLI(so.address), 0, 0, NULL, 0 },
    SPAWN_LIST("--ssh-option", ssh_opts),
    SPAWN_LIST("--remote-allow", allow),
    SPAWN_LIST("--remote-allow-nfs", allow_nfs),
};

/* --pool's rules: the pool has the agents, and only --json comes back. */
static int pool_check_cli(const struct cli *c)
{
    /* --repeat and the output files are the submitter's (pool_campaign.h) */
    const char *other = c->agents ? "--agents" : c->hosts ? "--hosts" : c->local ? "--local"
                      : c->listen ? "--listen" : c->spawn ? "--spawn"
                      : c->dry_run ? "--dry-run" : c->cleanup ? "--cleanup" : NULL;
    if (!c->pool) {
        if (c->pool_wait_ns || c->no_wait)
            return cli_die(2, "--pool-wait and --no-wait need --pool");
        return 0;
    }
    if (other)
        return cli_die(2, "--pool does not combine with %s (the pool has the agents)", other);
    if (c->pool_wait_ns && c->no_wait)
        return cli_die(2, "give only one of --pool-wait and --no-wait");
    if (c->min_agents && c->expect && c->min_agents > c->expect)
        return cli_die(2, "--min-agents %u is over --expect %u", c->min_agents, c->expect);
    if (!c->secret_file)
        return cli_die(2, "--pool needs --secret-file: a pool runs only plans from submitters that "
                   "prove its secret");
    return 0;
}

int cli_parse(int argc, char **argv, struct cli *c)
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
                return cli_die(2, "more than %d job files", MAX_PLAN_FILES);
            c->plan_paths[c->nplans++] = a;
            if (!c->plan_path)
                c->plan_path = a;
        } else if ((rc = cli_opt_take(run_opts, sizeof run_opts / sizeof run_opts[0], c, "", argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
            c->interval_given |= strncmp(a, "--interval", 10) == 0 && (a[10] == '\0' || a[10] == '=');
        } else if (OPT("--target")) {
            if (v && strlen(v) >= RECORD_TARGET_MAX)
                return cli_die(2, "--target: longer than %d bytes", RECORD_TARGET_MAX - 1);
            c->target = v;
        } else if (OPT("--unit-base")) {
            if (cmd_unit_base("", v ? v : "", &c->unit_base) != 0)
                return 2;
        } else if ((rc = cmd_report_option(&c->out, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
        } else if ((rc = fio_cli_option(&c->fio, &c->out, argc, argv, &i)) != 0) {
            if (rc == 2)
                return 2;
        } else if (OPT("--client-cap")) {
            char cerr[256];
            if (!v)
                return cli_die(2, "--client-cap needs a value (RATE or LABEL=RATE)");
            if (client_caps_add(&c->caps, v, cerr, sizeof cerr) < 0)
                return cli_die(2, "%s", cerr);
        } else if (OPT("--control-tos")) {
            if (!v || ctlsock_parse_tos(v, &c->control_tos) < 0)
                return cli_die(2, "--control-tos: bad value '%s' (want none, lowdelay, dscp:N with N 0-63, "
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
        return cli_die(2, "give only one of --agents, --hosts and --local");
    if (c->local && c->listen)
        return cli_die(2, "--local does not combine with --listen (its agents have a secret of their own; "
                   "list running agents with --agents or --hosts)");
    if (!c->listen && !c->spawn && !c->pool && (c->expect || c->min_agents || c->expect_timeout_ns))
        return cli_die(2, "--expect, --expect-timeout and --min-agents need --listen or --pool");
    if (pool_check_cli(c) != 0)
        return 2;
    if (c->pool && c->nplans > 1)
        return cli_die(2, "--pool takes one job file (%d given): the pool host runs the plan it is sent",
                   c->nplans);
    if (c->listen && !c->expect && !c->spawn)
        return cli_die(2, "--listen needs --expect N (how many agents to wait for)");
    if (c->min_agents > c->expect && c->listen && !c->spawn)
        return cli_die(2, "--min-agents %u is more than --expect %u", c->min_agents, c->expect);
    if (c->listen && !c->secret_file)
        return cli_die(2, "--listen needs --secret-file: a listening coordinator runs only agents "
                   "that prove the secret");
    if (c->listen && (c->dry_run || c->cleanup))
        return cli_die(2, "--listen does not combine with %s", c->dry_run ? "--dry-run" : "--cleanup");
    if (c->repeat_interval_ns && !c->repeat)
        return cli_die(2, "--repeat-interval without --repeat");
    if (c->include_failed && !c->repeat)
        return cli_die(2, "--include-failed without --repeat (it decides what a repeat set's summary averages)");
    return 0;
}
