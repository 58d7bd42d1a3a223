/* limits_report: the declared limits (limits.h) and their model
 * (limits_model.h) in the report's forms: the lines before a run and in
 * --dry-run, the text report's section, the JSON result's "limits",
 * "credits" and "cost" objects, and the HTML page's section.  All read a
 * result (and the forecast, when the plan was at hand); none keeps a
 * pointer. */
#ifndef NFSTORM_LIMITS_REPORT_H
#define NFSTORM_LIMITS_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include "coordinator/result/limits_model.h"

struct run_result;

/* The forecast: each line starts with prefix ("nfstorm: " on stderr before
 * a run, "" in --dry-run).  Names the plan's metered load, when the credits
 * run out, the warning "this 10 min run measures the burst; credits last
 * about 6.0 h at this load" when the plan is shorter, and its cost. */
void limits_forecast_text(FILE *out, const char *prefix, const struct limits *l, const struct limits_forecast *f,
                          int unit_base);

/* The text report's section (nothing when r->limits is NULL). */
void limits_result_text(FILE *out, const struct run_result *r, int unit_base);
/* The HTML page's section (nothing when r->limits is NULL). */
void limits_result_html(FILE *out, const struct run_result *r, int unit_base);
/* Put "limits", "credits" and "cost" into root (nothing when r->limits is
 * NULL).  0, or -ENOMEM. */
int limits_result_json(json_t *root, const struct run_result *r);

#endif
