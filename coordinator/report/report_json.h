/* report_json: the JSON result as a jansson tree, and the atomic writer
 * behind report_json_write (result.h), for documents that embed results
 * (a repeat set, coordinator/result/repeat.h). */
#ifndef NFSTORM_REPORT_JSON_H
#define NFSTORM_REPORT_JSON_H

#include <jansson.h>
#include "coordinator/result/result.h"

/* The object report_json_write would write for r (schema 1,
 * docs/results.md); the caller owns it (json_decref).  NULL when jansson
 * ran out of memory: never a tree with keys missing. */
json_t *report_json_build(const struct run_result *r);

/* Write root to path atomically, as report_json_write does (an unnamed or
 * temp file in the same directory, fsynced, renamed into place).  root
 * stays the caller's.  0 or -errno. */
int report_json_write_tree(const char *path, json_t *root);

#endif
