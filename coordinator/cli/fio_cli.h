/* fio_cli: fio's own command-line options on `nfstorm run`, and how fio
 * combines job options given on the command line with a job file.
 *
 *   --section=NAME (repeatable)  run only these job sections
 *   --minimal, --terse-version=3 fio's terse v3 output
 *   --eta=never|always|auto      the live status line
 *   --status-interval=DUR        every DUR the report of the run so far (fio formats)
 *   --parse-only                 parse and check the plan, exit 0 or 2
 *   --readonly                   refuse a plan whose jobs would write
 *   --showcmd                    print the job file as fio command-line options
 *   --max-jobs=N                 refuse a plan of more job threads per agent
 *
 * Command line with a job file, as fio's init.c does it: options before
 * the first --name are defaults beneath the file's [global] (the file's
 * keys win); each --name starts a job of its own that runs together with
 * the file's first jobs, ahead of them, and does not see the file's
 * [global].  All of it is pure: plan in, plan or a one-line error out. */
#ifndef NFSTORM_FIO_CLI_H
#define NFSTORM_FIO_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "common/plan.h"
#include "coordinator/cli/cmd_report.h"
#include "coordinator/run/run.h"

#define FIO_CLI_MAX_SECTIONS 64

enum fio_eta { FIO_ETA_AUTO = 0, FIO_ETA_NEVER, FIO_ETA_ALWAYS };

struct fio_cli {
    const char *sections[FIO_CLI_MAX_SECTIONS];   /* --section values (argv's) */
    uint32_t nsections;
    enum fio_eta eta;
    uint64_t status_interval_ns;   /* 0: none */
    int parse_only, readonly, showcmd;
    uint32_t max_jobs;             /* 0: no limit */
};

/* One of the options above at argv[*i] into f (--minimal and
 * --terse-version set out->fio_formats).  1 if it was one, 0 if not, 2 on
 * a bad or missing value (one line printed). */
int fio_cli_option(struct fio_cli *f, struct report_outputs *out, int argc, char **argv, int *i);

/* fio's "--key value" spelling of a job option (fio reads it with getopt):
 * argv[*i] as it is, or "--key=value" made of it and the next word (then
 * *i moves past that word) when key takes a value (plan_key_takes_value),
 * or is a fio key nfstorm ignores or refuses and the next word is no
 * option and no existing file.  The joined words live as long as the
 * process (they stand in argv's place). */
char *fio_cli_job_word(int argc, char **argv, int *i);

/* Read the plan: the job file at path (may be NULL) and the job options
 * args[0..nargs) combined as fio combines them (above).  *text gets the
 * plan as text for the run record (caller frees; NULL on failure).
 * 0, or -EINVAL/-errno with err holding one line. */
int fio_cli_read_plan(const char *path, int nargs, char **args, struct plan *out, char **text,
                      char *err, size_t errlen);

/* The same for several job files (fio's "fio a.fio b.fio"): their jobs in
 * order, each file after the first starting with a stonewall, as fio runs
 * job files one after the other. */
int fio_cli_read_plans(int npaths, const char *const *paths, int nargs, char **args, struct plan *out,
                       char **text, char *err, size_t errlen);

/* --local: the agents are this machine, so relative directory= and
 * filename= names are made absolute beneath cwd, where fio would put them
 * (a remote agent joins them to its default directory, which --dry-run
 * shows).  0, or -ENAMETOOLONG with err naming the job. */
int fio_cli_local_paths(struct plan *p, const char *cwd, char *err, size_t errlen);

/* Apply --section, --readonly and --max-jobs to a parsed plan: drop the
 * jobs of other sections (keeping each remaining job's own stonewall, as
 * fio skips a whole section), then check.  0, or -EINVAL with err naming
 * the section, or the job and key that would write, or the job count. */
int fio_cli_apply(const struct fio_cli *f, struct plan *p, char *err, size_t errlen);

/* --showcmd: the plan text (sections and key=value lines, as
 * plan_parse_file_expanded or the command line gives it) as one line of
 * fio options: "fio --key=v --name=job1 --key=v ...\n". */
void fio_cli_showcmd(FILE *out, const char *plan_text);

/* --status-interval: an observer writing to out, every interval_ns of a
 * phase, the run so far.  With fio formats (mask, report.h) that is fio's
 * whole report in them, as fio writes it at each status point
 * (report_fio_status: a complete JSON document each, terse lines, the
 * normal text); with mask 0 (nfstorm's own report) one line, the fleet's
 * totals so far per op type (ops, IOPS, bandwidth).  plan and rec (the
 * run's record while it runs, for the reports' job options) must outlive
 * it. */
struct fio_status;
struct fio_status *fio_status_new(FILE *out, uint64_t interval_ns, const struct plan *plan,
                                  const struct run_record *rec, unsigned mask, int unit_base);
/* Where the next status points go (a --repeat repetition's --output). */
void fio_status_set_out(struct fio_status *s, FILE *out);
void fio_status_free(struct fio_status *s);
struct run_observer fio_status_observer(struct fio_status *s);

#endif
