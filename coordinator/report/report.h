/* report: the renderers beyond report_text and report_json (result.h):
 * CSV, the self-contained HTML page, and fio's own output formats.  All
 * read a finished run_result (live or loaded by result_load) and write to a
 * stream the caller opened; none keeps a pointer after returning. */
#ifndef NFSTORM_REPORT_H
#define NFSTORM_REPORT_H

#include <stdio.h>
#include "coordinator/result/result.h"

/* CSV: a header line (REPORT_CSV_HEADER), then one row per finished phase
 * and op type with ops ("agent" = all, with the phase's verdict), and with
 * agents one more per agent and op type.  RFC 4180 quoting. */
#define REPORT_CSV_HEADER "label,phase_index,phase,rw,bs,numjobs,nagents,agent,host,op," \
    "duration_s,ops,bytes,errors,iops,bw_bytes,lat_min_ns,lat_mean_ns,lat_p50_ns," \
    "lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,share,jain,verdict"
void report_csv(FILE *out, const struct run_result *r, int agents);

/* An op type's figures over duration_ns as the text and HTML tables print
 * them (report_text.c): IOPS, bandwidth ("-" for an op that moves no
 * data), mean, p50, p90, p99, p99.9 and max latency ("-" where ops have
 * no latency recorded). */
#define REPORT_FIGS 8
void report_fig_cells(char cell[REPORT_FIGS][32], enum op_type t, const struct op_stats *o, uint64_t duration_ns,
                      int base);

/* One HTML page, no external resources: tables and inline SVG charts
 * (docs/reports.md lists the views). */
void report_html(FILE *out, const struct run_result *r, int unit_base);
/* The same with --agent-rows (as report_text_rows): beyond agent_rows
 * agents the page opens with the fleet charts, each phase's per-agent
 * detail is a collapsible, sortable table and a distribution chart, and
 * per-agent lines give way to the fleet's p10/median/p90 and the slowest
 * and fastest few.  report_html is agent_rows 0. */
void report_html_rows(FILE *out, const struct run_result *r, int unit_base, uint32_t agent_rows);

/* fio output formats, as fio's --output-format names them. */
enum report_fio_format {
    REPORT_FIO_NORMAL = 1 << 0,
    REPORT_FIO_JSON = 1 << 1,
    REPORT_FIO_JSON_PLUS = 1 << 2,
    REPORT_FIO_TERSE = 1 << 3,
};
/* Parse fio's comma list ("json,normal") into a mask; -EINVAL if a word
 * is unknown. */
int report_fio_parse_formats(const char *s, unsigned *mask);
/* Write every format of mask to out, in fio's order: terse, json/json+,
 * normal.  0, -ENOMEM when the JSON could not be built, or -EIO when
 * writing it to out failed (out's error flag is set). */
int report_fio(FILE *out, const struct run_result *r, unsigned mask, int unit_base);
/* fio's --status-interval report (report_fio_status.c): report_fio of r
 * while it runs, phase `phase` still running and reported from its merged
 * intervals 0..k as though it had ended there (no per-agent entries for
 * it yet).  Same layout as the final report, as fio's.  rec: the run's
 * record while it runs (the result gets it only at the end: the plan text
 * gives the job options), NULL: r's own.  Returns as report_fio. */
int report_fio_status(FILE *out, const struct run_result *r, const struct run_record *rec, uint32_t phase,
                      uint32_t k, unsigned mask, int unit_base);

#endif
