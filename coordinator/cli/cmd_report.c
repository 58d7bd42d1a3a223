/* cmd_report: report outputs for `run`, and the `report` and `compare`
 * commands.
 *
 * Design: `run` and `report` share one struct report_outputs and one
 * writer, so `nfstorm report saved.json --html F` produces exactly what
 * `nfstorm run ... --html F` would have: both render a run_result, live or
 * loaded (result_load).  Files are written whole and checked on close; a
 * failure is one line naming the file.  fio formats go to --output, or
 * replace the text report on stdout when only --output-format is given, so
 * a script that parses fio's JSON from stdout gets JSON alone. */
#include "coordinator/cli/out_file.h"
#include "coordinator/cli/cmd_report.h"
#include "common/changepoint.h"
#include "coordinator/result/changes.h"
#include "coordinator/run/sweep.h"
#include "coordinator/run/journal.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/report/compare.h"
#include "coordinator/report/fleet_summary.h"
#include "coordinator/result/repeat.h"
#include "coordinator/report/report.h"
#include "coordinator/result/result_load.h"
#include "coordinator/result/limits_model.h"
#include "common/plan_parse.h"
#include "coordinator/result/ext_metrics.h"
#include "coordinator/run/verdict.h"
#include "coordinator/run/timeseries.h"

int cmd_unit_base(const char *cmd, const char *v, int *base)
{
    if (strcmp(v, "1000") != 0 && strcmp(v, "1024") != 0) {
        fprintf(stderr, "nfstorm: %s--unit-base: bad value '%s' (want 1024 or 1000)\n", cmd, v);
        return 2;
    }
    *base = strcmp(v, "1000") == 0 ? 1000 : 1024;
    return 0;
}

/* --agent-rows' value into *rows: 0, or -EINVAL (*rows untouched). */
static int report_parse_agent_rows(const char *v, uint32_t *rows)
{
    uint64_t n;

    if (strcmp(v, "all") == 0) {
        *rows = FLEET_ROWS_ALL;
        return 0;
    }
    if (units_parse_u64(v, &n) < 0 || n == 0 || n > REPORT_AGENT_ROWS_MAX)
        return -EINVAL;
    *rows = (uint32_t)n;
    return 0;
}

/* The report's plain options, in struct report_outputs. */
#define RO(f) offsetof(struct report_outputs, f)
static const struct cli_opt report_opts[] = {
    { "--csv-agents", CO_FLAG, RO(csv_agents), 0, 0, NULL, 0 },
    { "--csv", CO_STR, RO(csv), 0, 0, NULL, 0 },
    { "--html", CO_STR, RO(html), 0, 0, NULL, 0 },
    { "--timeseries", CO_STR, RO(timeseries), 0, 0, NULL, 0 },
    { "--change-min-intervals", CO_COUNT, RO(change_min_intervals), CHANGEPOINT_MIN_LEN_FLOOR,
      CHANGES_INTERVALS_MAX, NULL, 0 },
};

int cmd_report_option(struct report_outputs *o, int argc, char **argv, int *i)
{
    const char *v;
    int bad = 0, rc;

    if ((rc = cli_opt_take(report_opts, sizeof report_opts / sizeof report_opts[0], o, "", argc, argv, i)) != 0)
        return rc;
    if ((v = cmd_opt_value("--output-format", argc, argv, i, &bad))) {
        if (report_fio_parse_formats(v, &o->fio_formats) < 0) {
            fprintf(stderr, "nfstorm: --output-format: bad value '%s' (want normal, json, json+, "
                    "terse, or a comma list)\n", v);
            return 2;
        }
    } else if ((v = cmd_opt_value("--output", argc, argv, i, &bad)))
        o->output = v;
    else if ((v = cmd_opt_value("--agent-rows", argc, argv, i, &bad))) {
        if (report_parse_agent_rows(v, &o->agent_rows) < 0) {
            fprintf(stderr, "nfstorm: --agent-rows: bad value '%s' (want 1..%u or all)\n", v,
                    REPORT_AGENT_ROWS_MAX);
            return 2;
        }
    } else if ((v = cmd_opt_value("--change-min-pct", argc, argv, i, &bad))) {
        char *end;
        double pct = strtod(v, &end);

        if (end == v || *end || !(pct > 0 && pct <= CHANGES_PCT_MAX)) {
            fprintf(stderr, "nfstorm: --change-min-pct: bad value '%s' (want a percentage above 0, up to %g)\n",
                    v, CHANGES_PCT_MAX);
            return 2;
        }
        o->change_min_pct = pct;
    } else
        return bad ? 2 : 0;
    return 1;
}

void cmd_report_apply_changes(const struct report_outputs *o, struct run_result *r)
{
    if (o->change_min_pct > 0)
        r->change_min_pct = o->change_min_pct;
    if (o->change_min_intervals)
        r->change_min_intervals = o->change_min_intervals;
}

int cmd_report_fio_on_stdout(const struct report_outputs *o)
{
    return o->fio_formats && !o->output;
}

/* stdout is a pipe or socket whose reader has gone (`| head -3`): poll
 * tells, where the failed write's EPIPE (SIGPIPE is ignored) is gone. */
static int stdout_reader_gone(void)
{
    struct stat st;
    struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

    if (fstat(STDOUT_FILENO, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return 0;
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int cmd_stdout_status(const char *cmd, int status)
{
    int flushed;

    errno = 0;
    flushed = fflush(stdout) == 0;
    if (flushed && !ferror(stdout))
        return status;
    /* the reader stopped reading: its choice, not a failure to report */
    if ((!flushed && errno == EPIPE) || stdout_reader_gone())
        return status ? status : CMD_STATUS_EPIPE;
    /* an earlier write's errno is gone by now: only fflush's is known */
    fprintf(stderr, "nfstorm: %s: cannot write the report to stdout: %s\n", cmd,
            !flushed && errno ? strerror(errno) : "a write failed (a full disk or a closed pipe?)");
    return status ? status : 1;
}

/* f, written to path, closed and checked: 0, or 1 after a one-line error.
 * A NULL f is an open_out that failed (and said so): 1. */
static int close_checked(FILE *f, const char *path)
{
    if (!f)
        return 1;
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "nfstorm: %s: cannot write: %s\n", path, strerror(errno ? errno : EIO));
        return 1;
    }
    return 0;
}

static FILE *open_out(const char *path)
{
    FILE *f = out_file_open(path);

    if (!f)
        fprintf(stderr, "nfstorm: %s: cannot open for writing: %s\n", path, out_file_strerror(errno));
    return f;
}

int cmd_report_write(const struct report_outputs *o, const struct run_result *r)
{
    int status = 0;
    FILE *f = NULL;   /* set wherever it is read; the sanitizer build cannot see it */

    if (o->csv && (f = open_out(o->csv)))
        report_csv(f, r, o->csv_agents);
    if (o->csv)
        status |= close_checked(f, o->csv);
    if (o->csv && r->sweeps) {
        /* a sweep's points beside it: a.csv -> a.sweeps.csv */
        char path[4096];
        const char *dot = strrchr(o->csv, '.'), *slash = strrchr(o->csv, '/');
        int stem = dot && (!slash || dot > slash) ? (int)(dot - o->csv) : (int)strlen(o->csv);
        snprintf(path, sizeof path, "%.*s.sweeps%s", stem, o->csv, dot && stem < (int)strlen(o->csv) ? dot : ".csv");
        if ((f = open_out(path)))
            sweep_csv(f, r->sweeps, r);
        status |= close_checked(f, path);
    }
    if (o->html && (f = open_out(o->html)))
        report_html_rows(f, r, o->unit_base, o->agent_rows);
    if (o->html)
        status |= close_checked(f, o->html);
    if (o->fio_formats || o->output) {
        unsigned mask = o->fio_formats ? o->fio_formats : REPORT_FIO_NORMAL;

        f = o->output_open ? o->output_open : o->output ? open_out(o->output) : stdout;
        if (!f)
            return 1;
        int frc = report_fio(f, r, mask, o->unit_base);
        if (frc == -ENOMEM) {
            fprintf(stderr, "nfstorm: %s: out of memory building the fio JSON\n",
                    o->output ? o->output : "stdout");
            status = 1;
        }
        /* a write error is not a lack of memory: a file's is close_checked's
         * to tell; stdout's is told here once, unless its reader went
         * (`| head`: its choice, left to cmd_stdout_status) */
        if (o->output) {
            status |= close_checked(f, o->output);
        } else if ((fflush(stdout) != 0 || ferror(stdout)) && !stdout_reader_gone()) {
            fprintf(stderr, "nfstorm: cannot write the report to stdout: %s\n", strerror(errno ? errno : EIO));
            clearerr(stdout);
            status = 1;
        }
    }
    return status;
}

int cmd_report_write_loaded(const struct report_outputs *o, const struct run_result *r)
{
    int status = cmd_report_write(o, r);

    if (o->timeseries) {
        FILE *f = open_out(o->timeseries);
        if (f)
            timeseries_write_all(f, r);
        status |= close_checked(f, o->timeseries);
    }
    return status;
}

int cmd_report_write_set(const struct report_outputs *o, const struct run_set *s)
{
    FILE *f;

    if (!o->html)
        return 0;
    if ((f = open_out(o->html)))
        repeat_report_html(f, s, o->unit_base);
    return close_checked(f, o->html);
}

/* --json's writer said jrc (0 or -errno): 0, or 1 after a one-line error. */
static int json_checked(const char *path, int jrc)
{
    if (jrc >= 0)
        return 0;
    fprintf(stderr, "nfstorm: %s: cannot write: %s\n", path, out_file_strerror(-jrc));
    return 1;
}

/* `nfstorm report SET.json` without --repetition: the set's summary. */
static int report_set(const struct run_set *s, const char *path, const struct report_outputs *o,
                      const char *json_out, volatile sig_atomic_t *writing)
{
    int status;
    const char *one = o->csv ? "--csv" : o->timeseries ? "--timeseries" : o->output ? "--output"
                    : o->fio_formats ? "--output-format" : NULL;

    if (one) {
        fprintf(stderr, "nfstorm: report: %s: %s is a repeat set; give --repetition K for one repetition's\n",
                one, path);
        return 2;
    }
    if (writing)
        *writing = 1;
    repeat_report_text(stdout, s, o->unit_base);
    fflush(stdout);
    status = cmd_report_write_set(o, s);
    if (json_out)
        status |= json_checked(json_out, repeat_set_write(json_out, s));
    return status ? status : repeat_exit_status(s);
}

/* A JSON input of `report`: a plain result, or a repeat set.  -1 with *r
 * filled (the result, or repetition K of the set) to render as one run;
 * otherwise the exit status (a set's summary was printed, or an error). */
static int report_load_json(const char *path, uint32_t repetition, int include_failed, struct run_result *r,
                            const struct report_outputs *o, const char *json_out, volatile sig_atomic_t *writing)
{
    struct run_set set;
    char err[1024];
    int status;

    memset(r, 0, sizeof *r);
    if (result_load_set(path, &set, err, sizeof err) < 0) {
        fprintf(stderr, "nfstorm: %s\n", err);
        return 2;
    }
    set.include_failed = include_failed;
    if (set.requested && !repetition) {
        status = report_set(&set, path, o, json_out, writing);
        run_set_free(&set);
        return status;
    }
    if (repetition && (!set.requested || repetition > set.n)) {
        if (!set.requested)
            fprintf(stderr, "nfstorm: report: --repetition: %s is a single run, not a repeat set\n", path);
        else
            fprintf(stderr, "nfstorm: report: --repetition: %s holds repetitions 1..%u, not %u\n", path, set.n,
                    repetition);
        run_set_free(&set);
        return 2;
    }
    *r = set.reps[repetition ? repetition - 1 : 0];      /* taken over: zeroed in the set */
    memset(&set.reps[repetition ? repetition - 1 : 0], 0, sizeof *r);
    run_set_free(&set);
    return -1;
}

/* The forecast of the plan r recorded (run_record.plan_text: a job file's
 * text, or the command line's options one a line), on r's agents, so that
 * a report with --limits says what the run said before it ran.  0 with *f
 * filled, or -1 when no text was kept or it no longer parses. */
static int recorded_forecast(const struct run_result *r, const struct limits *l, struct limits_forecast *f)
{
    const char *t = r->record.present ? r->record.plan_text : NULL;
    struct plan p;
    char err[512];
    int rc;

    /* the text was kept after includes: one in a result file is not the
     * run's, and reading the file it names is not a report's business */
    if (!t || strncmp(t, "include", 7) == 0 || strstr(t, "\ninclude"))
        return -1;
    if (t[0] == '[' || strstr(t, "\n[")) {
        rc = plan_parse_string("recorded plan", t, &p, err, sizeof err);
    } else {
        /* the command-line form: each line was one --key=value */
        char *copy = xstrdup(t), **args = xcalloc(strlen(t) + 1, sizeof *args), *save = NULL;
        int n = 0;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            size_t len = strlen(line) + 3;
            args[n] = xmalloc(len);
            snprintf(args[n++], len, "--%s", line);
        }
        rc = plan_parse_args(n, args, &p, err, sizeof err);
        for (int i = 0; i < n; i++)
            free(args[i]);
        free(args);
        free(copy);
    }
    if (rc < 0)
        return -1;
    limits_forecast(l, &p, r->nagents, f);
    plan_free(&p);
    return 0;
}

/* The rest of `nfstorm report` once its options are read: load path,
 * render it with lim and metrics (NULL: none). */
static int report_one(const char *path, uint32_t repetition, int include_failed, struct report_outputs *op,
                      const char *json_out, volatile sig_atomic_t *writing, const struct limits *lim,
                      const struct ext_metrics *metrics)
{
    struct report_outputs o = *op;
    struct run_result r;
    struct limits_forecast forecast;
    struct journal_gaps gaps = { 0 };
    char err[1024];
    int status, is_journal;

    /* a journal (from a run that may have died) or a saved result */
    is_journal = journal_detect(path);
    if (is_journal && repetition) {
        fprintf(stderr, "nfstorm: report: --repetition: %s is a journal (one run); repetition K's is "
                "SET.json.repK.journal\n", path);
        return 2;
    }
    if (!is_journal && (status = report_load_json(path, repetition, include_failed, &r, &o, json_out, writing)) >= 0)
        return status;
    if (is_journal && journal_replay(path, &r, &gaps, err, sizeof(err)) < 0) {
        fprintf(stderr, "nfstorm: %s\n", err);
        return 2;
    }
    if (gaps.cut_short) {
        fprintf(stderr, "nfstorm: warning: %s: the run was cut short: %s\n", path, gaps.what);
        result_cut_short(&r, gaps.what);   /* the verdicts say so too ("cut short: ...") */
    }
    cmd_report_apply_changes(&o, &r);
    r.limits = lim;
    r.metrics = metrics;
    if (lim && recorded_forecast(&r, lim, &forecast) == 0)
        r.forecast = &forecast;
    if (writing)
        *writing = 1;
    if (!cmd_report_fio_on_stdout(&o))
        report_text_rows(stdout, &r, o.unit_base, o.agent_rows);
    fflush(stdout);
    status = cmd_report_write_loaded(&o, &r);
    if (json_out)
        status |= json_checked(json_out, report_json_write(json_out, &r));
    /* the exit status is the run's, as the run itself would have exited
     * and as the report and --json say; a run cut short is partial (3) at
     * least: result_cut_short gives its unfinished phases that reason */
    if (status == 0)
        status = verdict_exit_status(verdict_run(&r));
    result_free(&r);
    return status;
}

/* `nfstorm report`'s own options, besides the outputs. */
struct report_args {
    uint32_t repetition;         /* --repetition K of a repeat set */
    int include_failed;          /* --include-failed: a set's summary counts failed repetitions */
    const char *limits_path, *fs_size, *metrics_path;
};

#define RA(f) offsetof(struct report_args, f)
static const struct cli_opt report_args_opts[] = {
    { "--repetition", CO_COUNT, RA(repetition), 1, RUN_SET_MAX_REPEAT, NULL, 0 },
    { "--include-failed", CO_FLAG, RA(include_failed), 0, 0, NULL, 0 },
    { "--limits", CO_STR, RA(limits_path), 0, 0, NULL, 0 },
    { "--fs-size", CO_STR, RA(fs_size), 0, 0, NULL, 0 },
    { "--metrics", CO_STR, RA(metrics_path), 0, 0, NULL, 0 },
};

int cmd_report_main(int argc, char **argv, volatile sig_atomic_t *writing)
{
    struct report_outputs o = { .unit_base = 1024 };
    struct report_args a = { 0 };
    const char *path = NULL, *json_out = NULL;
    char err[1024];
    int status;
    struct limits lim;
    struct ext_metrics metrics = { 0 };

    for (int i = 0; i < argc; i++) {
        int rc = cmd_report_option(&o, argc, argv, &i), bad = 0;
        const char *v;

        if (rc == 0)
            rc = cli_opt_take(report_args_opts, sizeof report_args_opts / sizeof report_args_opts[0], &a,
                              "report: ", argc, argv, &i);
        if (rc == 2)
            return 2;
        if (rc == 1)
            continue;
        if ((v = cmd_opt_value("--unit-base", argc, argv, &i, &bad)) || bad) {
            if (!v || cmd_unit_base("report: ", v, &o.unit_base) != 0)
                return 2;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json_out = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "nfstorm: report: unknown option '%s' (try 'nfstorm --help')\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "nfstorm: report: one result file at a time ('%s' and '%s')\n", path, argv[i]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "nfstorm: report: no result file (usage: nfstorm report RESULT.json|RESULT.json.journal "
                "[--html F] [--csv F] [--json F])\n");
        return 2;
    }
    /* --limits, --metrics: read and checked before the result, each error one line */
    if (a.fs_size && !a.limits_path) {
        fprintf(stderr, "nfstorm: report: --fs-size needs --limits FILE (the credit model it sizes)\n");
        return 2;
    }
    if (a.limits_path && (limits_load(a.limits_path, &lim, err, sizeof err) < 0 ||
                          (a.fs_size && limits_set_fs_size(&lim, a.fs_size, err, sizeof err) < 0))) {
        fprintf(stderr, "nfstorm: report: %s\n", err);
        return 2;
    }
    if (a.metrics_path && ext_metrics_load(a.metrics_path, &metrics, err, sizeof err) < 0) {
        fprintf(stderr, "nfstorm: report: %s\n", err);
        return 2;
    }
    status = report_one(path, a.repetition, a.include_failed, &o, json_out, writing, a.limits_path ? &lim : NULL,
                        a.metrics_path ? &metrics : NULL);
    ext_metrics_free(&metrics);
    return status;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* An input's label when --labels is not given (the one place that picks
 * it): its --target (the run record's, else a repeat set's), then its
 * --label, then the file name. */
static const char *compare_input_label(const struct run_set *s, const char *path)
{
    const struct run_result *r = &s->reps[0];

    if (r->record.present && r->record.target[0])
        return r->record.target;
    if (s->target[0])
        return s->target;
    return r->label[0] ? r->label : base_name(path);
}

/* --labels a,b,... into n names: exactly n, none empty, else a one-line
 * error and -EINVAL. */
static int compare_split_labels(const char *arg, uint32_t n, char **labels)
{
    uint32_t k = 0;
    const char *s = arg;

    for (;;) {
        size_t len = strcspn(s, ",");

        if (len == 0) {
            fprintf(stderr, "nfstorm: compare: --labels: name %u is empty ('%s')\n", k + 1, arg);
            goto bad;
        }
        for (size_t b = 0; b < len; b++)
            if ((unsigned char)s[b] < 0x20 || s[b] == 0x7f) {
                /* a line break would split a Markdown or text row, an
                 * escape sequence would reach the reader's terminal */
                fprintf(stderr, "nfstorm: compare: --labels: name %u has a control character (byte 0x%02x)\n",
                        k + 1, (unsigned char)s[b]);
                goto bad;
            }
        if (k < n)
            labels[k] = strndup(s, len);
        k++;
        if (!s[len])
            break;
        s += len + 1;
    }
    if (k == n)
        return 0;
    fprintf(stderr, "nfstorm: compare: --labels: %u name%s for %u runs\n", k, k == 1 ? "" : "s", n);
bad:
    for (uint32_t j = 0; j < n; j++) {
        free(labels[j]);
        labels[j] = NULL;
    }
    return -EINVAL;
}

static void compare_render(FILE *f, enum compare_format fmt, const struct compare *c, const char *const *paths,
                           int unit_base, const char *where, int *status)
{
    switch (fmt) {
    case CMP_FMT_TEXT: compare_text(f, c, paths, unit_base); break;
    case CMP_FMT_MD: compare_md(f, c, paths, unit_base); break;
    case CMP_FMT_CSV: compare_csv(f, c, paths); break;
    case CMP_FMT_HTML: compare_html(f, c, paths, unit_base); break;
    case CMP_FMT_JSON:
        if (compare_json(f, c, paths) < 0 && !ferror(f)) {   /* a write error: cmd_stdout_status */
            fprintf(stderr, "nfstorm: %s: cannot build the compare JSON (out of memory, or a label or "
                    "file name is not UTF-8)\n", where);
            *status = 1;
        }
        break;
    }
}

/* `nfstorm compare`'s plain options. */
struct compare_args {
    const char *labels, *html;
    int include_failed;
};

static const struct cli_opt compare_opts[] = {
    { "--include-failed", CO_FLAG, offsetof(struct compare_args, include_failed), 0, 0, NULL, 0 },
    { "--labels", CO_STR, offsetof(struct compare_args, labels), 0, 0, NULL, 0 },
    { "--html", CO_STR, offsetof(struct compare_args, html), 0, 0, NULL, 0 },
};

int cmd_compare_main(int argc, char **argv)
{
    const char **paths = xcalloc((size_t)argc + 1, sizeof(*paths));
    struct compare_args a = { 0 };
    char **labels = NULL;
    struct run_set *sets = NULL;
    struct compare c;
    enum compare_format fmt = CMP_FMT_TEXT;
    uint32_t n = 0, nloaded = 0;
    int unit_base = 1024, status = 0;
    char err[1024];

    for (int i = 0; i < argc; i++) {
        int bad = 0, rc = cli_opt_take(compare_opts, sizeof compare_opts / sizeof compare_opts[0], &a, "compare: ",
                                       argc, argv, &i);
        const char *v;

        if (rc == 1)
            continue;
        if (rc == 2) {
            status = 2;
            goto out;
        }
        if ((v = cmd_opt_value("--format", argc, argv, &i, &bad))) {
            if (compare_parse_format(v, &fmt) < 0) {
                fprintf(stderr, "nfstorm: compare: --format: bad value '%s' (want text, md, csv, html or json)\n", v);
                status = 2;
                goto out;
            }
        } else if ((v = cmd_opt_value("--unit-base", argc, argv, &i, &bad))) {
            if ((status = cmd_unit_base("compare: ", v, &unit_base)) != 0)
                goto out;
        }
        else if (bad || argv[i][0] == '-') {
            if (!bad)
                fprintf(stderr, "nfstorm: compare: unknown option '%s'\n", argv[i]);
            status = 2;
            goto out;
        } else
            paths[n++] = argv[i];
    }
    if (n < 2) {
        fprintf(stderr, "nfstorm: compare: want at least two result files "
                "(usage: nfstorm compare A.json B.json ... [--labels a,b,...] [--format text|md|csv|html|json] "
                "[--html F])\n");
        status = 2;
        goto out;
    }
    labels = xcalloc(n, sizeof(*labels));
    if (a.labels && compare_split_labels(a.labels, n, labels) < 0) {
        status = 2;
        goto out;
    }
    sets = xcalloc(n, sizeof(*sets));
    for (; nloaded < n; nloaded++)
        if (result_load_set(paths[nloaded], &sets[nloaded], err, sizeof(err)) < 0) {
            fprintf(stderr, "nfstorm: %s\n", err);
            status = 2;
            goto out;
        } else {
            sets[nloaded].include_failed = a.include_failed;
        }
    for (uint32_t j = 0; j < n; j++)
        if (!labels[j])
            labels[j] = xstrdup(compare_input_label(&sets[j], paths[j]));
    compare_build(&c, sets, (const char *const *)labels, n);
    compare_render(stdout, fmt, &c, paths, unit_base, "stdout", &status);
    fflush(stdout);
    if (a.html) {
        FILE *f = open_out(a.html);
        if (f)
            compare_html(f, &c, paths, unit_base);
        status |= close_checked(f, a.html);
    }
    compare_free(&c);
out:
    for (uint32_t j = 0; j < nloaded; j++)
        run_set_free(&sets[j]);
    for (uint32_t j = 0; labels && j < n; j++)
        free(labels[j]);
    free(labels);
    free(sets);
    free(paths);
    return status;
}
