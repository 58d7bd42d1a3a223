/* nfstorm-agent: the daemon that runs plans for one coordinator at a time.
 * Parses options (flags, and NFSTORM_AGENT_* variables through env_opts.c),
 * sets up the allow lists, then either listens and hands connections to
 * session.c, or (--coordinator) dials out through dial.c.  All run state
 * lives in the session, none here. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include "agent/dial.h"
#include "agent/env_opts.h"
#include "agent/nfs_allow.h"
#include "agent/session.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "net/addr.h"
#include "net/ctlsock.h"
#include "proto/auth.h"
#include "proto/msg.h"

static const char usage[] =
"usage: nfstorm-agent [--listen ADDR:PORT | --coordinator HOST:PORT [--label NAME ...]]\n"
"                     --allow DIR [--allow DIR ...]\n"
"                     [--allow-nfs nfs://SERVER/EXPORT ...] (--secret-file F | --insecure)\n"
"                     [--lease DUR] [--control-tos TOS]\n"
"                     [--max-threads N] [--max-files N] [--max-memory SIZE]\n"
"                     [--null-capacity-iops N] [--null-capacity-swing DUR]\n"
"                     [--quiet | --verbose]\n"
"\n"
"Runs workload plans sent by an nfstorm coordinator, one coordinator at a time.\n"
"\n"
"  --listen ADDR:PORT   address to listen on (default 127.0.0.1:7878; port 0 picks one\n"
"                       and prints it as 'listening on ADDR:PORT')\n"
"  --coordinator HOST:PORT  dial this coordinator instead of listening (it runs\n"
"                       `nfstorm run --listen ADDR:PORT --expect N`, conventionally port\n"
"                       7879); same handshake and secret; after each run, and whenever\n"
"                       the coordinator is away, dial again with backoff (full jitter,\n"
"                       0.1 s doubling to 10 s) until SIGTERM/SIGINT\n"
"  --label NAME         a label the coordinator sees (plans pick agents=@NAME);\n"
"                       repeatable, or NAME,NAME; letters, digits, '_', '.', '-'\n"
"  --allow DIR          plans may only touch files beneath DIR (symlinks resolved);\n"
"                       repeatable; the first is the default directory of plans\n"
"  --allow-nfs URL      plans may use ioengine=nfs only on URLs under URL (same server,\n"
"                       export beneath it); uid=, gid=, auxgids=, sec= and other identity\n"
"                       parameters only with the value this rule carries (e.g.\n"
"                       nfs://srv/export?uid=1000); unknown parameters are refused\n"
"  --secret-file F      shared secret (mode 600) the coordinator must prove it knows\n"
"                       (HMAC-SHA256 challenge-response; the secret never crosses the wire)\n"
"  --insecure           serve any coordinator without authentication (logged loudly)\n"
"  --lease DUR          stop I/O when the coordinator is silent this long (default 10s)\n"
"  --control-tos TOS    mark the coordinator connection so a link full of our own load\n"
"                       still carries it: the IP TOS byte (lowdelay = 0x10, the default;\n"
"                       dscp:N; a number 0-255 with the ECN bits 0; or none), plus\n"
"                       priority 6 for Linux's queues and linear thin-stream retransmits\n"
"  --max-threads N      refuse a plan phase with more than N job threads on this agent\n"
"  --max-files N        refuse a plan phase that uses more than N files on this agent\n"
"  --max-memory SIZE    refuse a plan phase that needs more than SIZE of memory here\n"
"                       (the agent's estimate; also always refused above what is free)\n"
"  --null-capacity-iops N  this agent's ioengine=null model server serves N ops/s,\n"
"                       whatever a plan's null_capacity_iops says (one slow agent\n"
"                       in a sweep's tests and demos; docs/plans.md)\n"
"  --null-capacity-swing DUR  that model server's capacity halves for every other\n"
"                       DUR of a phase (full, half, full, ...): throughput that\n"
"                       varies within a sweep point, for the CV rule's tests and demos\n"
"  --quiet              log errors and warnings only\n"
"  --verbose            log debug messages too\n"
"  --version            print the version and protocol version\n"
"  -h, --help           this text\n"
"\n"
"Every option can come from the environment instead: --foo-bar is NFSTORM_AGENT_FOO_BAR\n"
"(NFSTORM_AGENT_COORDINATOR, NFSTORM_AGENT_LISTEN, NFSTORM_AGENT_LABEL, NFSTORM_AGENT_ALLOW,\n"
"NFSTORM_AGENT_ALLOW_NFS, NFSTORM_AGENT_SECRET_FILE, NFSTORM_AGENT_INSECURE, NFSTORM_AGENT_LEASE,\n"
"NFSTORM_AGENT_CONTROL_TOS,\n"
"NFSTORM_AGENT_MAX_THREADS, NFSTORM_AGENT_MAX_FILES, NFSTORM_AGENT_MAX_MEMORY,\n"
"NFSTORM_AGENT_NULL_CAPACITY_IOPS, NFSTORM_AGENT_NULL_CAPACITY_SWING,\n"
"NFSTORM_AGENT_QUIET, NFSTORM_AGENT_VERBOSE).  Repeatable options (--allow, --allow-nfs,\n"
"--label) take a comma-separated list; switches (--insecure, --quiet, --verbose) take 1\n"
"(or true, yes) to turn on and 0 (false, no, or empty) to leave off.  An option given on\n"
"the command line wins: its variable is then ignored entirely.\n";

static void on_signal(uv_signal_t *h, int signum)
{
    log_info("signal %d: exiting", signum);
    uv_stop(h->loop);
}

static const struct option agent_opts[] = {
    { "listen", required_argument, NULL, 'l' },
    { "coordinator", required_argument, NULL, 'C' },
    { "label", required_argument, NULL, 'b' },
    { "allow", required_argument, NULL, 'a' },
    { "allow-nfs", required_argument, NULL, 'n' },
    { "secret-file", required_argument, NULL, 's' },
    { "insecure", no_argument, NULL, 'i' },
    { "lease", required_argument, NULL, 'L' },
    { "control-tos", required_argument, NULL, 'Q' },
    { "max-threads", required_argument, NULL, 'T' },
    { "max-files", required_argument, NULL, 'F' },
    { "max-memory", required_argument, NULL, 'M' },
    { "null-capacity-iops", required_argument, NULL, 'N' },
    { "null-capacity-swing", required_argument, NULL, 'W' },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { "version", no_argument, NULL, 'V' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* What the command line says beyond the agent's own settings. */
struct agent_cli {
    const char *listen;
    const char *coordinator;
    int listen_given;
    int insecure;
    struct auth_secret secret;
};

/* A refused option: "nfstorm-agent: TEXT" on stderr, and exit status 2. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
    va_list ap;
    fputs("nfstorm-agent: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* One option c (its argument arg) into a and cl.  0 to go on; else the
 * exit status, its message printed (--help and --version: 0, printed
 * on stdout, as a status of -1). */
static int agent_option(struct agent *a, struct agent_cli *cl, int c, const char *arg)
{
    char err[512];

    switch (c) {
    case 'l': cl->listen = arg; cl->listen_given = 1; return 0;
    case 'C': cl->coordinator = arg; return 0;
    case 'b': {
        size_t have = strlen(a->labels);
        if (msg_labels_check(arg, err, sizeof err) < 0 || !arg[0])
            return refuse("--label %s: %s", arg, arg[0] ? err : "an empty label");
        if (have + !!have + strlen(arg) >= sizeof a->labels)
            return refuse("--label %s: labels longer than %zu bytes in all", arg, sizeof a->labels - 1);
        snprintf(a->labels + have, sizeof a->labels - have, "%s%s", have ? "," : "", arg);
        return 0;
    }
    case 'a':
        if (allow_list_add(&a->allow, arg, err, sizeof err) < 0)
            return refuse("%s", err);
        return 0;
    case 'n':
        if (a->allow_nfs.n == PATHS_MAX_ROOTS)
            return refuse("--allow-nfs %s: more than %d rules", arg, PATHS_MAX_ROOTS);
        if (nfs_allow_rule_check(arg, err, sizeof err) < 0)
            return refuse("--allow-nfs %s: %s", arg, err);
        a->allow_nfs.root[a->allow_nfs.n++] = xstrdup(arg);
        return 0;
    case 's':
        if (auth_load_secret(arg, &cl->secret, err, sizeof err) < 0)
            return refuse("%s", err);
        a->secret = &cl->secret;
        return 0;
    case 'i': cl->insecure = 1; return 0;
    case 'L':
        if (units_parse_duration(arg, NS_PER_SEC, &a->lease_ns) < 0 || a->lease_ns < NS_PER_SEC)
            return refuse("--lease %s: want a duration of at least 1s", arg);
        return 0;
    case 'Q':
        if (ctlsock_parse_tos(arg, &a->control_tos) < 0)
            return refuse("--control-tos %s: want none, lowdelay, dscp:N (0-63) or a TOS byte 0-255 with "
                          "the two ECN bits 0", arg);
        return 0;
    case 'N':
        if (units_parse_count(arg, &a->null_capacity_iops) < 0 || a->null_capacity_iops == 0 ||
            a->null_capacity_iops > PLAN_MAX_RATE_IOPS)
            return refuse("--null-capacity-iops %s: want a count of at least 1 such as 20k", arg);
        return 0;
    case 'W':
        if (units_parse_duration(arg, 1000000ull, &a->null_swing_ns) < 0 || a->null_swing_ns < 1000000ull ||
            a->null_swing_ns > 3600 * NS_PER_SEC)
            return refuse("--null-capacity-swing %s: want a duration from 1ms to 1h such as 500ms", arg);
        return 0;
    case 'T':
    case 'F': {
        uint64_t *v = c == 'T' ? &a->limits.max_threads : &a->limits.max_files;
        if (units_parse_u64(arg, v) < 0 || *v == 0)
            return refuse("--max-%s %s: want a whole number of at least 1", c == 'T' ? "threads" : "files",
                          arg);
        return 0;
    }
    case 'M':
        if (units_parse_size(arg, &a->limits.max_memory) < 0 || a->limits.max_memory == 0)
            return refuse("--max-memory %s: want a size such as 4g", arg);
        return 0;
    case 'q': log_set_level(LOG_WARN); return 0;
    case 'v': log_set_level(LOG_DEBUG); return 0;
    case 'V':
        printf("nfstorm-agent 0.1 (protocol %d)\n", PROTO_VERSION);
        return -1;
    case 'h':
        fputs(usage, stdout);
        return -1;
    default:
        fputs(usage, stderr);
        return 2;
    }
}

/* The options that only make sense together, checked once all are read.
 * 0, or 2 with the message printed. */
static int agent_check_cli(const struct agent *a, const struct agent_cli *cl)
{
    struct sockaddr_storage ss;   /* --listen, checked (session_listen binds it) */
    const char *why = NULL;

    if (a->allow.n == 0 && a->allow_nfs.n == 0)
        why = "give at least one --allow DIR (or --allow-nfs URL)";
    else if (!a->secret && !cl->insecure)
        why = "no --secret-file: refusing to serve unauthenticated coordinators (give --insecure to do it "
              "anyway)";
    else if (a->secret && cl->insecure)
        why = "--secret-file and --insecure contradict each other";
    else if (cl->coordinator && cl->listen_given)
        why = "--coordinator and --listen contradict each other (an agent either dials or listens)";
    else if (!cl->coordinator && a->labels[0])
        why = "--label needs --coordinator (a listening agent's labels come from the coordinator's --hosts "
              "file)";
    if (why)
        return refuse("%s", why);
    if (cl->coordinator) {
        char h[256], p[8];
        if (dial_parse_target(cl->coordinator, h, sizeof h, p, sizeof p) < 0)
            return refuse("--coordinator %s: want HOST:PORT", cl->coordinator);
    } else if (addr_parse_listen(cl->listen, &ss) < 0) {
        return refuse("--listen %s: want ADDR:PORT", cl->listen);
    }
    return 0;
}

/* Listen for coordinators on cl->listen and say where (the bound port on
 * stdout, flushed: --local reads it from there).  0, or 1 with the
 * message printed. */
static int agent_listen(struct agent *a, const struct agent_cli *cl)
{
    struct sockaddr_storage bound;
    int len = sizeof bound;
    char ip[64], where[80], err[256];

    if (session_listen(a, cl->listen, err, sizeof err) < 0) {
        fprintf(stderr, "nfstorm-agent: %s\n", err);
        return 1;
    }
    uv_tcp_getsockname(&a->l.server, (struct sockaddr *)&bound, &len);
    if (bound.ss_family == AF_INET6)
        uv_ip6_name((struct sockaddr_in6 *)&bound, ip, sizeof ip);
    else
        uv_ip4_name((struct sockaddr_in *)&bound, ip, sizeof ip);
    printf("listening on %s:%d\n", ip, ntohs(((struct sockaddr_in *)&bound)->sin_port));
    fflush(stdout);
    for (size_t i = 0; i < a->allow.n; i++)
        log_info("allow %s", a->allow.root[i]);
    /* the bound port, not the :0 asked for */
    snprintf(where, sizeof where, bound.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", ip,
             ntohs(((struct sockaddr_in *)&bound)->sin_port));
    if (cl->insecure)
        log_warn("INSECURE: no authentication: anyone who can reach %s can run plans "
                 "within the allowed directories", where);
    return 0;
}

/* Dial the coordinator (a dial-in agent): dial.c keeps at it. */
static void agent_dial(struct agent *a, const struct agent_cli *cl, struct dial *dial)
{
    for (size_t i = 0; i < a->allow.n; i++)
        log_info("allow %s", a->allow.root[i]);
    if (a->labels[0])
        log_info("labels %s", a->labels);
    if (cl->insecure)
        log_warn("INSECURE: no authentication: whoever answers at %s can run plans within "
                 "the allowed directories", cl->coordinator);
    dial_start(dial, a, cl->coordinator);   /* checked by agent_check_cli */
}

int main(int argc, char **argv)
{
    struct agent a;
    struct agent_cli cl = { .listen = "127.0.0.1:7878" };
    struct dial dial;
    struct env_argv env;
    uv_signal_t sigint, sigterm;
    char err[512];
    int c, status = 0;

    memset(&a, 0, sizeof a);
    a.lease_ns = 10 * NS_PER_SEC;
    a.control_tos = CTLSOCK_TOS_DEFAULT;
    allow_list_init(&a.allow);
    allow_list_init(&a.allow_nfs);
    /* NFSTORM_AGENT_* first, as if typed before the real arguments */
    if (env_opts_build(&env, agent_opts, "NFSTORM_AGENT_", argc, argv, err, sizeof err) < 0) {
        fprintf(stderr, "nfstorm-agent: %s\n", err);
        allow_list_free(&a.allow);
        allow_list_free(&a.allow_nfs);
        return 2;
    }
    argc = env.argc;
    argv = env.argv;
    while (status == 0 && (c = getopt_long(argc, argv, "h", agent_opts, NULL)) != -1)
        status = agent_option(&a, &cl, c, optarg);
    if (status == 0 && optind < argc) {
        fprintf(stderr, "nfstorm-agent: unexpected argument '%s'\n%s", argv[optind], usage);
        status = 2;
    }
    if (status == 0)
        status = agent_check_cli(&a, &cl);
    if (status != 0)
        goto out;
    if (gethostname(a.host, sizeof a.host - 1) < 0)
        strcpy(a.host, "unknown");
    signal(SIGPIPE, SIG_IGN);
    /* An agent started as a background job of a terminal with `stty tostop`
     * (or reading from it) would be stopped by SIGTTOU at its first log line
     * there: with --quiet that is the first warning, e.g. a full disk.  A
     * stopped agent looks wedged from outside (main thread in epoll_wait,
     * coordinator sockets unread, no lease, output only once a debugger
     * continues it), so terminal job control never stops it: ignored,
     * SIGTTOU lets the write through. */
    signal(SIGTTOU, SIG_IGN);
    signal(SIGTTIN, SIG_IGN);

    a.loop = uv_default_loop();
    a.loop_thread = pthread_self();
    if (cl.coordinator)
        agent_dial(&a, &cl, &dial);
    else if ((status = agent_listen(&a, &cl)) != 0)
        goto out;
    uv_signal_init(a.loop, &sigint);
    uv_signal_init(a.loop, &sigterm);
    uv_signal_start(&sigint, on_signal, SIGINT);
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_run(a.loop, UV_RUN_DEFAULT);
out:
    env_opts_free(&env);
    allow_list_free(&a.allow);
    allow_list_free(&a.allow_nfs);
    return status < 0 ? 0 : status;
}
