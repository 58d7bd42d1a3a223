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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "common/plan_parse.h"
#include "common/version.h"
#include "common/xmalloc.h"
#include "coordinator/run/plan_span.h"
#include "coordinator/fleet/clean.h"
#include "coordinator/cli/cmd_report.h"
#include "coordinator/run/journal.h"
#include "coordinator/cli/dryrun.h"
#include "coordinator/cli/fio_cli.h"
#include "coordinator/cli/fio_compat.h"
#include "coordinator/cli/fleet_cli.h"
#include "coordinator/cli/options.h"
#include "coordinator/fleet/gather.h"
#include "coordinator/fleet/hosts.h"
#include "coordinator/run/live.h"
#include "coordinator/cli/out_file.h"
#include "coordinator/fleet/local.h"
#include "coordinator/fleet/spawn.h"
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
#include "coordinator/fleet/client_cap.h"
#include "coordinator/report/limits_report.h"
#include "proto/msg.h"


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

/* fio's log files: the run's interval follows log_avg_msec (fiolog.h);
 * without it the logs are averaged over --interval, said once.  0 or 2. */
static int fiolog_plan_hook(const struct plan *plan, struct cli *c)
{
    char err[512];
    uint32_t ms = (uint32_t)(c->interval_ns / 1000000u);
    int avg = 0;

    if (c->pool && fiolog_plan_wants(plan))
        return cli_die(2, "--pool: fio log files (write_*_log) are written where the plan runs; "
                   "run it without --pool");
    if (fiolog_plan_interval(plan, c->interval_given, &ms, err, sizeof err) < 0)
        return cli_die(2, "%s", err);
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
    if ((rc = cli_parse(argc, argv, c)) != 0) {
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
        return cli_die(2, "clean: only plan and agent options apply (--json, --csv, --html, --output, "
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
        return cli_die(2, "%s", r->err);
    for (uint32_t i = 0; i < r->plan.nwarnings; i++)
        fprintf(stderr, "nfstorm: warning: %s\n", r->plan.warnings[i]);
    if (c->limits_path || c->fs_size) {
        /* the declared limits: read before anything connects, so a bad file costs nothing */
        if (!c->limits_path)
            return cli_die(2, "--fs-size needs --limits FILE (the credit model it sizes)");
        if (r->clean_only || c->pool)
            return cli_die(2, "--limits is for a run here (not with %s)", r->clean_only ? "clean" : "--pool");
        if (limits_load(c->limits_path, &r->lim, r->err, sizeof r->err) < 0 ||
            (c->fs_size && limits_set_fs_size(&r->lim, c->fs_size, r->err, sizeof r->err) < 0))
            return cli_die(2, "%s", r->err);
        r->have_limits = 1;
    }
    if (c->fio.showcmd || c->fio.parse_only) {
        /* fio's dry parses: nothing is connected to or started */
        if (c->fio.showcmd)
            fio_cli_showcmd(stdout, r->plan_text);
        else if (plan_validate(&r->plan, c->local ? c->local : 1, r->err, sizeof r->err) < 0)
            return cli_die(2, "%s", r->err);
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
            return cli_die(2, "%s", r->err);
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
            return cli_die(2, "--agents: '%s': the port must be 1 to 65535", r->addrs[r->naddrs - 1]);
        s += len + (s[len] == ',');
    }
    return r->naddrs == 0 ? cli_die(2, "--agents: no address given") : 0;
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
        status = fleet_cli_spawn(c, &r->plan, &r->spawned, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->hosts) {
        status = fleet_cli_hosts(c->hosts, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->listen) {
        /* clean too: the agents that dial in are the fleet to clean */
        status = fleet_cli_gather(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
    } else if (c->dry_run) {
        /* --local N: nothing is started, the N agents are this machine */
    } else {
        char agent[PATH_MAX];
        fleet_cli_agent_binary(agent, sizeof agent);
        if (local_fleet_start(&r->fleet, c->local ? c->local : 1, agent, &r->plan, c->verbose, r->err,
                              sizeof r->err) < 0)
            status = cli_die(1, "%s", r->err);
        else
            for (uint32_t i = 0; i < r->fleet.n; i++)
                hosts_add_addr(&r->addrs, &r->naddrs, r->fleet.addr[i], strlen(r->fleet.addr[i]));
    }
    /* a mixed fleet: the listed agents, then those that dial in */
    r->nlisted = c->listen && !c->spawn && (c->agents || c->hosts) ? r->naddrs : 0;
    if (status == 0 && r->nlisted)     /* clean too: one fleet however it arrives */
        status = fleet_cli_mixed(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs);
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
            return cli_die(2, "%s", r->err);
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
            return cli_die(1, "%s: cannot open for writing: %s", ob->jpath, out_file_strerror(errno));
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
                return cli_die(1, "%s: cannot open for writing: %s", outs->output, out_file_strerror(errno));
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
            return cli_die(1, "%s: cannot open for writing: %s", outs->timeseries, out_file_strerror(errno));
        ob->list[ob->n++] = timeseries_observer(ob->ts);
    }
    if (fiolog_plan_wants(&r->plan)) {
        ob->flog = fiolog_new(&r->plan, r->naddrs, r->ro.interval_ms);
        if (fiolog_create_files(ob->flog) < 0)
            return cli_die(1, "cannot write a fio log: %s", fiolog_error(ob->flog));
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
        cli_die(vs, "%s", err);
    else if (v == VERDICT_FAILED) {
        char line[1024];
        verdict_summary(res, line, sizeof line);
        cli_die(1, "run %s", line);
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
        status = cli_die(130, "interrupted before the run started");
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
        status = cli_die(1, "%s: cannot write the time series", outs.timeseries);
    ob.ts = NULL;
    if (ob.flog) {
        char ferr[600];
        if (fiolog_warning(ob.flog)[0])
            fprintf(stderr, "nfstorm: warning: %s\n", fiolog_warning(ob.flog));
        snprintf(ferr, sizeof ferr, "%s", fiolog_error(ob.flog));
        if (fiolog_free(ob.flog) < 0)
            status = cli_die(1, "cannot write a fio log: %s", ferr);
        ob.flog = NULL;
    }
    if (c->json && !c->repeat) {
        int jrc = report_json_write(c->json, res);
        if (jrc < 0)
            status = cli_die(1, "%s: cannot write the JSON result: %s", c->json, out_file_strerror(-jrc));
    }
    if (ob.journal && journal_close(ob.journal) < 0)
        status = cli_die(1, "%s: write failed", ob.jpath);
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
            (status = fleet_cli_regather(c, &r->gathered, &r->addrs, &r->labels, &r->naddrs, r->nlisted,
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
        return fleet_cli_pool(c, argc, argv, r->plan_text, r->clean_only, &late_signal);
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
        return cli_die(2, "%s", r->err);
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
        status = cli_die(130, "SIG%s after the run ended: the results above are complete",
                     sigabbrev_np(late_signal));
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

/* `nfstorm serve`'s options. */
struct serve_args {
    const char *listen, *secret_file;
    uint64_t agent_timeout_ns;
    int quiet;
};

#define SA(f) offsetof(struct serve_args, f)
static const struct cli_opt serve_opts[] = {
    { "--listen", CO_STR, SA(listen), 0, 0, NULL, 0 },
    { "--secret-file", CO_STR, SA(secret_file), 0, 0, NULL, 0 },
    { "--agent-timeout", CO_DUR, SA(agent_timeout_ns), 1000000000ull, TIMEOUT_MAX_NS, "1s to 1d", 0 },
    { "--quiet", CO_FLAG, SA(quiet), 0, 0, NULL, 0 },
};

/* `nfstorm serve --listen ADDR:PORT --secret-file F`. */
static int cmd_serve(int argc, char **argv)
{
    struct serve_options so;
    struct auth_secret *secret;
    struct serve_args a = { .agent_timeout_ns = 10000000000ull };
    int rc;
    char err[4096];

    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(cli_usage, stdout);
            return 0;
        }
        rc = cli_opt_take(serve_opts, sizeof serve_opts / sizeof serve_opts[0], &a, "", argc, argv, &i);
        if (rc == 0)
            return cli_die(2, "serve: unknown option '%s' (try 'nfstorm --help')", argv[i]);
        if (rc == 2)
            return 2;
    }
    if (!a.listen)
        return cli_die(2, "serve needs --listen ADDR:PORT (where agents and submitters come)");
    if (!a.secret_file)
        return cli_die(2, "serve needs --secret-file: the pool takes only agents and submitters that prove it");
    if (!(secret = fleet_cli_secret(a.secret_file)))
        return 2;
    memset(&so, 0, sizeof so);
    so.listen = a.listen;
    so.secret = secret;
    so.agent_timeout_ms = (uint32_t)(a.agent_timeout_ns / 1000000u);
    so.log = a.quiet ? NULL : stderr;
    so.run = pool_run_child;
    rc = serve_main(&so, err, sizeof err);
    free(secret);
    if (rc < 0)
        return cli_die(rc == -EINVAL ? 2 : 1, "%s", err);
    return 0;
}

static int cmd_report_signalled(int argc, char **argv)
{
    int status = cmd_stdout_status("report", cmd_report_main(argc, argv, &defer_signals));
    if (late_signal && status == 0)
        status = cli_die(130, "SIG%s while writing: the files were finished", sigabbrev_np(late_signal));
    return status;
}

int main(int argc, char **argv)
{
    prog_argc = argc;
    prog_argv = argv;
    signals_take();
    if (argc < 2)
        return cli_die(2, "no command (try 'nfstorm --help')");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(cli_usage, stdout);
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
                fputs(cli_usage, stdout);
                return 0;
            }
        return cmd_run(argc - 2, argv + 2, strcmp(argv[1], "clean") == 0, NULL);
    }
    return cli_die(2, "unknown command '%s' (try 'nfstorm --help')", argv[1]);
}
