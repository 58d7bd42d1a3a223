/* cmd_report: the report outputs a run (or a saved result) can produce,
 * and the `nfstorm report` and `nfstorm compare` commands. */
#ifndef NFSTORM_CMD_REPORT_H
#define NFSTORM_CMD_REPORT_H

#include <signal.h>
#include <stdint.h>
#include "coordinator/cli/cli_opt.h"
#include "coordinator/result/result.h"

struct report_outputs {
    const char *csv;         /* --csv FILE */
    int csv_agents;          /* --csv-agents */
    const char *html;        /* --html FILE */
    const char *timeseries;  /* --timeseries FILE (report: written from the saved intervals) */
    const char *output;      /* --output FILE: fio formats go there */
    unsigned fio_formats;    /* --output-format mask; 0 = not given */
    FILE *output_open;       /* --output already opened by the run (its --status-interval
                                reports went there): cmd_report_write writes the report
                                after them and closes it; NULL: it opens --output itself */
    int unit_base;
    uint32_t agent_rows;     /* --agent-rows N|all: per-agent rows up to N agents, beyond
                                them the fleet view; 0 = the default (fleet_summary.h) */
    double change_min_pct;   /* --change-min-pct: step detection (changes.h); 0 = not given */
    uint32_t change_min_intervals; /* --change-min-intervals; 0 = not given */
};

/* Parse one report option at argv[*i] into o (advancing *i past a
 * separate value).  1 if it was one, 0 if not, 2 on a bad value (message
 * printed). */
int cmd_report_option(struct report_outputs *o, int argc, char **argv, int *i);
/* --unit-base's value v into *base: 0, or 2 after "nfstorm: <cmd>--unit-base:
 * bad value ..." (cmd: "" for run, "report: ", "compare: "). */
int cmd_unit_base(const char *cmd, const char *v, int *base);
/* --change-min-pct / --change-min-intervals, where given, into r (they
 * win over what a loaded result recorded). */
struct run_result;
void cmd_report_apply_changes(const struct report_outputs *o, struct run_result *r);
/* --agent-rows' value: "all" (FLEET_ROWS_ALL) or 1..REPORT_AGENT_ROWS_MAX. */
#define REPORT_AGENT_ROWS_MAX 1000000u
/* 1 when the fio formats replace the text report on stdout. */
int cmd_report_fio_on_stdout(const struct report_outputs *o);
/* After command cmd ("report", "compare") wrote to stdout: flush it; when
 * that or an earlier write failed (a full disk), print one line saying so
 * and return 1 in place of a 0 status (an output that could not be written
 * fails the command, as it fails a run); else status.  A reader that
 * closed the pipe (`| head -3`) chose to stop: no message, and status
 * CMD_STATUS_EPIPE in place of 0, what a shell reports for a Unix tool
 * ended by SIGPIPE (docs/running.md). */
#define CMD_STATUS_EPIPE 141
int cmd_stdout_status(const char *cmd, int status);
/* Write every requested output of r.  0, or 1 after printing a one-line
 * error per output that failed. */
int cmd_report_write(const struct report_outputs *o, const struct run_result *r);
/* cmd_report_write for a saved (loaded) result, --timeseries included
 * (written from its saved intervals): what `nfstorm report` and `run
 * --pool` (from the result the pool returns) write.  0, or 1. */
int cmd_report_write_loaded(const struct report_outputs *o, const struct run_result *r);
/* The outputs of a repeat set's summary: --html (repeat_report_html).
 * 0, or 1 after a one-line error. */
struct run_set;
int cmd_report_write_set(const struct report_outputs *o, const struct run_set *s);

/* `nfstorm report RESULT.json [options]`, `nfstorm compare A.json B.json
 * ... [--labels a,b] [--html F]`: argv after the command word.  Exit
 * status 0, 1 (a file could not be written), 2 (usage, bad input), 3 (report:
 * a journal whose run was cut short; a warning says what is missing).
 * report on a repeat set prints its summary (--html: as a table, --json:
 * the set rewritten); --repetition K renders repetition K as a result.
 * report sets *writing (if given) once the input is loaded, before the
 * first output is written: main.c defers signals from then on. */
int cmd_report_main(int argc, char **argv, volatile sig_atomic_t *writing);
int cmd_compare_main(int argc, char **argv);

#endif
