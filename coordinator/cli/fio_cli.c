/* fio_cli: fio's command-line options on `nfstorm run` (see fio_cli.h).
 *
 * Design: main.c asks fio_cli_option about each argument it does not know
 * itself, and calls the plan functions at fixed points (read the plan,
 * apply the section/readonly/job limits, then stop for --parse-only or
 * --showcmd).  Keeping fio's habits here leaves main.c's own options
 * readable and lets the plan side be tested without a run. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/engine_table.h"
#include "common/plan_files.h"
#include "common/plan_parse.h"
#include "common/sat.h"
#include "common/stats.h"
#include "common/xmalloc.h"
#include "coordinator/cli/fio_cli.h"
#include "coordinator/report/report.h"

/* fio's program options that change nothing here (its terminal's ETA
 * line, its own debugging, memory and log plumbing): accepted with one
 * warning, so a command line copied from fio runs.  `takes` is how fio
 * reads a value: 1 required (next word or =), 0 none, 2 only with '='. */
static const struct {
    const char *name;
    int takes;
    const char *why;
} fio_noop_opts[] = {
    { "--eta-newline", 1, "nfstorm prints its own live line per --interval" },
    { "--eta-interval", 1, "nfstorm prints its own live line per --interval" },
    { "--idle-prof", 1, "CPU idleness profiling; nfstorm samples the agents' CPU itself" },
    { "--warnings-fatal", 0, "nfstorm's plan errors are always fatal, its warnings never" },
    { "--debug", 1, "fio's own debug logging" },
    { "--alloc-size", 1, "fio's shared-memory pool" },
    { "--aux-path", 1, "fio's auxiliary files (verify state, etc.)" },
    { "--append-terse", 0, "terse output is written with --minimal" },
    { "--bandwidth-log", 0, "nfstorm's --json has the per-interval series" },
};

static int fio_noop_option(int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof fio_noop_opts / sizeof fio_noop_opts[0]; k++) {
        size_t n = strlen(fio_noop_opts[k].name);
        int bad = 0;
        if (strncmp(a, fio_noop_opts[k].name, n) != 0 || (a[n] != '\0' && a[n] != '='))
            continue;
        if (fio_noop_opts[k].takes == 1 && !cmd_opt_value(fio_noop_opts[k].name, argc, argv, i, &bad))
            return 2;           /* cmd_opt_value said so */
        fprintf(stderr, "nfstorm: warning: fio option %s changes nothing in nfstorm (%s); ignored\n",
                fio_noop_opts[k].name, fio_noop_opts[k].why);
        return 1;
    }
    return 0;
}

char *fio_cli_job_word(int argc, char **argv, int *i)
{
    /* reachable for the process's life (argv's stand-ins), so never a leak */
    static char **joined;
    static size_t njoined;
    char *a = argv[*i], *w;
    const char *key = a + (a[1] == '-' ? 2 : 1);
    const char *note;
    struct stat st;
    int takes;

    if (a[0] != '-' || strchr(a, '=') || *i + 1 >= argc || strlen(key) >= 64)
        return a;
    takes = plan_key_takes_value(key);
    if (takes == 0)
        return a;
    if (takes < 0 && (plan_key_fio_status(key, &note) < 0 || argv[*i + 1][0] == '-' ||
                      stat(argv[*i + 1], &st) == 0))
        return a;
    w = xmalloc(strlen(a) + strlen(argv[*i + 1]) + 2);
    sprintf(w, "%s=%s", a, argv[*i + 1]);
    joined = xrealloc(joined, (njoined + 1) * sizeof *joined);
    joined[njoined++] = w;
    (*i)++;
    return w;
}

/* fio's plain options, in struct fio_cli (fio's --status-interval is in
 * seconds unless it names a unit). */
#define FC(f) offsetof(struct fio_cli, f)
static const struct cli_opt fio_opts[] = {
    { "--parse-only", CO_FLAG, FC(parse_only), 0, 0, NULL, 0 },
    { "--readonly", CO_FLAG, FC(readonly), 0, 0, NULL, 0 },
    { "--showcmd", CO_FLAG, FC(showcmd), 0, 0, NULL, 0 },
    { "--status-interval", CO_DUR, FC(status_interval_ns), 10000000ull, 86400000000000ull,
      "10ms..24h; a number is seconds", 0 },
    { "--max-jobs", CO_COUNT, FC(max_jobs), 1, UINT32_MAX, "a positive count", 0 },
};

int fio_cli_option(struct fio_cli *f, struct report_outputs *out, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    int bad = 0, rc;

    if ((rc = fio_noop_option(argc, argv, i)) != 0)
        return rc;
    if (strcmp(a, "--client") == 0 || strncmp(a, "--client=", 9) == 0) {
        fprintf(stderr, "nfstorm: --client is fio's client/server mode: give nfstorm's agents with "
                "--hosts FILE (a fio host list of host[,port] lines reads as one) or "
                "--agents HOST:PORT,...\n");
        return 2;
    }

    if (strcmp(a, "--minimal") == 0) {
        out->fio_formats |= REPORT_FIO_TERSE;
        return 1;
    }
    if ((rc = cli_opt_take(fio_opts, sizeof fio_opts / sizeof fio_opts[0], f, "", argc, argv, i)) != 0)
        return rc;
    if ((v = cmd_opt_value("--section", argc, argv, i, &bad))) {
        if (!v[0] || f->nsections >= FIO_CLI_MAX_SECTIONS) {
            fprintf(stderr, "nfstorm: --section: %s\n", v[0] ? "more than 64 given" : "empty name");
            return 2;
        }
        f->sections[f->nsections++] = v;
        return 1;
    }
    if (!bad && (v = cmd_opt_value("--terse-version", argc, argv, i, &bad))) {
        if (strcmp(v, "3") != 0) {
            fprintf(stderr, "nfstorm: --terse-version: bad value '%s' (nfstorm writes fio's terse "
                    "version 3 only)\n", v);
            return 2;
        }
        out->fio_formats |= REPORT_FIO_TERSE;
        return 1;
    }
    if (!bad && (v = cmd_opt_value("--eta", argc, argv, i, &bad))) {
        if (strcmp(v, "auto") == 0)
            f->eta = FIO_ETA_AUTO;
        else if (strcmp(v, "never") == 0)
            f->eta = FIO_ETA_NEVER;
        else if (strcmp(v, "always") == 0)
            f->eta = FIO_ETA_ALWAYS;
        else {
            fprintf(stderr, "nfstorm: --eta: bad value '%s' (want never, always or auto)\n", v);
            return 2;
        }
        return 1;
    }
    return bad ? 2 : 0;
}

/* ---- the plan ------------------------------------------------------------ */

/* *t (NULL: empty, else freed) followed by b. */
static void append_text(char **t, const char *b)
{
    size_t la = *t ? strlen(*t) : 0, lb = b ? strlen(b) : 0;
    *t = xrealloc(*t, la + lb + 1);
    memcpy(*t + la, b ? b : "", lb);
    (*t)[la + lb] = '\0';
}

/* The command line's options as plan text for the record: one per line,
 * without their dashes ("name=t", "rw=randread"). */
static char *args_text(int n, char **args)
{
    size_t len = 1;
    char *t, *p;

    for (int i = 0; i < n; i++)
        len += strlen(args[i]) + 1;
    p = t = xmalloc(len);
    *p = '\0';
    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        while (*a == '-')
            a++;
        p += sprintf(p, "%s\n", a);
    }
    return t;
}

static int is_name_arg(const char *a)
{
    while (*a == '-')
        a++;
    return strncmp(a, "name=", 5) == 0 || strcmp(a, "name") == 0;
}

/* The options before the first --name onto base, as plan_parse_args
 * applies them to its global job. */
static int apply_globals(int n, char **args, struct job_spec *base, struct plan *warn, char *err,
                         size_t errlen)
{
    char why[256];

    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        const char *k = a + (a[0] == '-') + (a[0] == '-' && a[1] == '-');
        const char *eq = strchr(k, '=');
        size_t klen = eq ? (size_t)(eq - k) : strlen(k);
        const char *note = NULL;
        char key[32];

        if (a[0] != '-' || klen == 0 || klen >= sizeof key) {
            snprintf(err, errlen, "unknown option '%s'", a);
            return -EINVAL;
        }
        memcpy(key, k, klen);
        key[klen] = '\0';
        if (!plan_is_key(key) && plan_key_ignored(key, &note)) {
            snprintf(why, sizeof why, "option '%s' is not implemented by nfstorm%s%s%s; ignored", a,
                     note ? " (" : "", note ? note : "", note ? ")" : "");
            plan_add_warning(warn, why);
            continue;
        }
        if (!plan_is_key(key)) {
            const char *near = plan_key_suggest(key);
            if (near)
                snprintf(err, errlen, "unknown option '%s' (did you mean '--%s'?)", a, near);
            else
                snprintf(err, errlen, "unknown option '%s'", a);
            return -EINVAL;
        }
        if (strcmp(key, "matrix") == 0) {
            snprintf(err, errlen, "'%s' with a job file: put matrix= in the file", a);
            return -EINVAL;
        }
        why[0] = '\0';
        if (plan_job_set_why(base, key, eq ? eq + 1 : NULL, why, sizeof why) != 0) {
            snprintf(err, errlen, "--%s: bad value '%s'%s%s%s", key, eq ? eq + 1 : "",
                     why[0] ? " (" : "", why, why[0] ? ")" : "");
            return -EINVAL;
        }
    }
    return 0;
}

/* Append src's jobs to dst (each keeps its stonewall) within the limits. */
static int append_jobs(struct plan *dst, const struct plan *src, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < src->nphases; i++)
        for (uint32_t k = 0; k < src->phases[i].njobs; k++) {
            const struct job_spec *j = &src->phases[i].jobs[k];
            if ((dst->nphases == 0 || j->stonewall) && dst->nphases >= PLAN_MAX_PHASES) {
                snprintf(err, errlen, "too many phases (max %d)", PLAN_MAX_PHASES);
                return -EINVAL;
            }
            if (dst->nphases && !j->stonewall && dst->phases[dst->nphases - 1].njobs >= PLAN_MAX_JOBS) {
                snprintf(err, errlen, "too many jobs in phase '%s' (max %d; use stonewall to start "
                         "a new phase)", dst->phases[dst->nphases - 1].name, PLAN_MAX_JOBS);
                return -EINVAL;
            }
            plan_add_job(dst, j);
        }
    for (uint32_t i = 0; i < src->nwarnings; i++)
        plan_add_warning(dst, src->warnings[i]);
    return 0;
}

int fio_cli_read_plan(const char *path, int nargs, char **args, struct plan *out, char **text,
                      char *err, size_t errlen)
{
    return fio_cli_read_plans(path ? 1 : 0, &path, nargs, args, out, text, err, errlen);
}

int fio_cli_read_plans(int npaths, const char *const *paths, int nargs, char **args, struct plan *out,
                       char **text, char *err, size_t errlen)
{
    struct job_spec base;
    struct plan cmdjobs, file, gwarn;
    char *ftext = NULL, *all = NULL;
    int nglobal = 0, rc;

    *text = NULL;
    plan_init(out);
    if (npaths == 0) {
        rc = plan_parse_args(nargs, args, out, err, errlen);
        if (rc == 0)
            *text = args_text(nargs, args);
        return rc;
    }
    while (nglobal < nargs && !is_name_arg(args[nglobal]))
        nglobal++;
    job_spec_default(&base);
    plan_init(&cmdjobs);
    plan_init(&gwarn);
    rc = apply_globals(nglobal, args, &base, &gwarn, err, errlen);
    /* with jobs of its own the command line's warnings come from there */
    if (rc == 0 && nglobal < nargs)
        rc = plan_parse_args(nargs, args, &cmdjobs, err, errlen);
    else if (rc == 0)
        rc = append_jobs(&cmdjobs, &gwarn, err, errlen);
    plan_free(&gwarn);
    if (rc != 0)
        goto fail;
    if ((rc = append_jobs(out, &cmdjobs, err, errlen)) != 0)
        goto fail;
    /* Several job files run one after the other, as fio runs them: the
     * first job of each file after the first waits for all before it (a
     * stonewall).  Each file's [global] applies to its own jobs. */
    for (int k = 0; k < npaths; k++) {
        if ((rc = plan_parse_file_over(paths[k], &base, &file, &ftext, err, errlen)) != 0)
            goto fail;
        if (k > 0 && file.nphases && file.phases[0].njobs)
            file.phases[0].jobs[0].stonewall = 1;
        rc = append_jobs(out, &file, err, errlen);
        plan_free(&file);
        if (rc != 0) {
            free(ftext);
            goto fail;
        }
        if (npaths > 1) {
            char head[PATH_MAX + 64];
            snprintf(head, sizeof head, "%s# job file %d of %d: %s\n", k ? "\n" : "", k + 1, npaths,
                     paths[k]);
            append_text(&all, head);
        }
        append_text(&all, ftext);
        free(ftext);
    }
    plan_free(&cmdjobs);
    *text = nargs ? args_text(nargs, args) : NULL;
    append_text(text, all);
    free(all);
    return 0;
fail:
    free(all);
    plan_free(&cmdjobs);
    plan_free(out);
    return rc;
}

/* The key of j that would write, as "rw=randwrite", or "" when none. */
static void write_key(const struct job_spec *j, char *buf, size_t len)
{
    buf[0] = '\0';
    if (rw_mode_writes(j->rw)) {
        snprintf(buf, len, "rw=%s", rw_mode_name(j->rw));
        return;
    }
    if (j->rw == RW_METADATA)
        for (uint32_t i = 0; i < j->n_md_ops; i++) {
            uint32_t op = j->md_ops[i];
            if (op == OP_CREATE || op == OP_RENAME || op == OP_UNLINK || op == OP_MKDIR ||
                op == OP_RMDIR) {
                snprintf(buf, len, "md_ops=%s", op_type_name((enum op_type)op));
                return;
            }
        }
    if (j->unlink)
        snprintf(buf, len, "unlink=1");
}

/* The bits of f's --section names that are name (at most 64 of them). */
static uint64_t section_bits(const struct fio_cli *f, const char *name)
{
    uint64_t bits = 0;
    for (uint32_t i = 0; i < f->nsections; i++)
        bits |= (uint64_t)(strcmp(f->sections[i], name) == 0) << i;
    return bits;
}

int fio_cli_apply(const struct fio_cli *f, struct plan *p, char *err, size_t errlen)
{
    uint64_t threads = 0;
    char key[64];

    if (f->nsections) {
        struct plan kept;
        uint64_t found = 0, bits;
        plan_init(&kept);
        for (uint32_t i = 0; i < p->nphases; i++)
            for (uint32_t k = 0; k < p->phases[i].njobs; k++)
                if ((bits = section_bits(f, p->phases[i].jobs[k].name)) != 0) {
                    found |= bits;
                    plan_add_job(&kept, &p->phases[i].jobs[k]);
                }
        for (uint32_t s = 0; s < f->nsections; s++)
            if (!(found >> s & 1)) {
                snprintf(err, errlen, "--section %s: the plan has no job section of that name",
                         f->sections[s]);
                plan_free(&kept);
                return -EINVAL;
            }
        for (uint32_t i = 0; i < p->nwarnings; i++)
            plan_add_warning(&kept, p->warnings[i]);
        plan_free(p);
        *p = kept;
    }
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            const struct job_spec *j = &p->phases[i].jobs[k];
            threads += j->numjobs;
            if (f->readonly) {
                write_key(j, key, sizeof key);
                if (key[0]) {
                    snprintf(err, errlen, "--readonly: job '%s' would write (%s)", j->name, key);
                    return -EINVAL;
                }
            }
        }
    if (f->max_jobs && threads > f->max_jobs) {
        snprintf(err, errlen, "--max-jobs %u: the plan has %llu jobs per agent (numjobs summed "
                 "over its job sections)", f->max_jobs, (unsigned long long)threads);
        return -EINVAL;
    }
    return 0;
}

void fio_cli_showcmd(FILE *out, const char *t)
{
    fputs("fio", out);
    while (t && *t) {
        size_t n = strcspn(t, "\n");
        if (n > 0 && t[0] == '[') {
            size_t e = n > 1 && t[n - 1] == ']' ? n - 1 : n;
            if (!(e - 1 == 6 && strncmp(t + 1, "global", 6) == 0))
                fprintf(out, " --name=%.*s", (int)(e - 1), t + 1);
        } else if (n > 0) {
            fprintf(out, " --%.*s", (int)n, t);
        }
        t += n + (t[n] == '\n');
    }
    fputc('\n', out);
}

/* ---- --status-interval ---------------------------------------------------- */

struct fio_status {
    FILE *out;
    uint64_t every_ns, next_ns;
    const struct plan *plan;
    unsigned mask;               /* fio formats; 0: nfstorm's status line */
    const struct run_record *rec;
    int unit_base;
};

struct fio_status *fio_status_new(FILE *out, uint64_t interval_ns, const struct plan *plan,
                                  const struct run_record *rec, unsigned mask, int unit_base)
{
    struct fio_status *s = xcalloc(1, sizeof *s);
    *s = (struct fio_status){ .out = out, .every_ns = interval_ns, .next_ns = interval_ns, .plan = plan,
                              .mask = mask, .rec = rec, .unit_base = unit_base };
    return s;
}

void fio_status_set_out(struct fio_status *s, FILE *out)
{
    s->out = out;
}

void fio_status_free(struct fio_status *s)
{
    free(s);
}

static void status_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct fio_status *s = arg;
    (void)r;
    (void)phase;
    s->next_ns = s->every_ns;
}

/* When a phase whose jobs all run for a set time ends at the latest
 * (start delay, ramp and runtime), in ns from its start; UINT64_MAX when
 * a job runs until its size is done. */
static uint64_t phase_planned_end_ns(const struct plan *p, uint32_t phase)
{
    uint64_t end = 0;

    if (!p || phase >= p->nphases)
        return UINT64_MAX;
    for (uint32_t j = 0; j < p->phases[phase].njobs; j++) {
        const struct job_spec *js = &p->phases[phase].jobs[j];
        uint64_t e;

        if (!js->runtime_ns)
            return UINT64_MAX;
        e = sat_add_u64(sat_add_u64(js->startdelay_ns, js->ramp_ns), js->runtime_ns);
        if (e > end)
            end = e;
    }
    return end;
}

static void status_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct fio_status *s = arg;
    const struct phase_result *ph = &r->phases[phase];
    uint64_t at_ns = (uint64_t)(k + 1) * ph->interval_ms * 1000000ull;
    double secs = (double)at_ns / 1e9;

    if (at_ns < s->next_ns || k >= ph->nintervals)
        return;
    while (s->next_ns <= at_ns)
        s->next_ns += s->every_ns;
    /* an interval reaching past the phase's planned end is its short last
     * one: fio's status point would fall after the end, where the final
     * report alone is written (and the interval's length is not known) */
    if (at_ns > phase_planned_end_ns(s->plan, phase))
        return;
    if (s->mask) {
        /* fio's status report is its final report of the run so far */
        if (report_fio_status(s->out, r, s->rec, phase, k, s->mask, s->unit_base) < 0)
            fprintf(stderr, "nfstorm: out of memory building a fio JSON status report\n");
        fflush(s->out);
        return;
    }
    fprintf(s->out, "status: phase %u/%u '%s' at %.1fs:", phase + 1, r->nphases, ph->name, secs);
    for (int t = 0; t < OP__COUNT; t++) {
        uint64_t ops = 0, bytes = 0, errors = 0;
        for (uint32_t i = 0; i <= k; i++) {
            ops = sat_add_u64(ops, ph->intervals[i].count[t].ops);
            bytes = sat_add_u64(bytes, ph->intervals[i].count[t].bytes);
            errors = sat_add_u64(errors, ph->intervals[i].count[t].errors);
        }
        if (!ops && !errors)
            continue;
        fprintf(s->out, " %s ops=%llu iops=%.0f bw=%.0fKiB/s errors=%llu;", op_type_name((enum op_type)t),
                (unsigned long long)ops, (double)ops / secs, (double)bytes / 1024.0 / secs,
                (unsigned long long)errors);
    }
    fputc('\n', s->out);
    fflush(s->out);
}

struct run_observer fio_status_observer(struct fio_status *s)
{
    return (struct run_observer){ .phase_start = status_phase_start, .interval = status_interval,
                                  .arg = s };
}

/* one relative path made absolute beneath cwd, into out; -ENAMETOOLONG */
static int under_cwd(const char *cwd, const char *rel, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/%s", cwd, rel);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int fio_cli_local_paths(struct plan *p, const char *cwd, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t k = 0; k < p->phases[i].njobs; k++) {
            struct job_spec *j = &p->phases[i].jobs[k];
            char out[PLAN_PATH_MAX], one[PLAN_PATH_MAX];
            size_t used = 0;
            if (engine_table_takes_url(j->ioengine))
                continue;
            if (j->directory[0]) {
                if (j->directory[0] == '/')
                    continue;
                if (under_cwd(cwd, j->directory, out, sizeof out) < 0)
                    goto long_path;
                memcpy(j->directory, out, strlen(out) + 1);
                continue;
            }
            /* a name with an escaped ':' is left as it is (rare; the
             * agent's default directory then applies, as --dry-run says) */
            if (!j->filename[0] || strstr(j->filename, "\\:"))
                continue;
            uint32_t n = plan_filename_count(j->filename);
            for (uint32_t f = 0; f < n; f++) {
                char abs[PLAN_PATH_MAX];
                if (plan_filename_at(j->filename, f, one, sizeof one) < 0)
                    goto long_path;
                if (one[0] == '/')
                    snprintf(abs, sizeof abs, "%s", one);
                else if (under_cwd(cwd, one, abs, sizeof abs) < 0)
                    goto long_path;
                int w = snprintf(out + used, sizeof out - used, "%s%s", f ? ":" : "", abs);
                if (w < 0 || (size_t)w >= sizeof out - used)
                    goto long_path;
                used += (size_t)w;
            }
            memcpy(j->filename, out, used + 1);
            continue;
long_path:
            snprintf(err, errlen, "job '%s': its relative file names beneath the current directory %s "
                     "are longer than %d bytes", j->name, cwd, PLAN_PATH_MAX - 1);
            return -ENAMETOOLONG;
        }
    return 0;
}
