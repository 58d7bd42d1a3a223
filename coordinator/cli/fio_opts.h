/* fio_opts: the "global options" and "job options" objects of fio's JSON,
 * read back from the plan text a result records (run_record.plan_text:
 * the job file after includes and ${VAR}, or the command line's options one
 * a line), so every key the plan set appears as it was written.
 *
 * Values are strings, as fio writes them.
 * A key set twice in one section keeps its last value, in its first place. */
#ifndef NFSTORM_FIO_OPTS_H
#define NFSTORM_FIO_OPTS_H

#include <jansson.h>

/* The options of section `job` (the first section of that name, else the
 * first whose name= is job; in the command-line form, the options from its
 * name= line to the next name=), or of [global] (all [global] sections;
 * command-line options before the first name= or the job file's first
 * section) when job is NULL.  A new object, empty when the text is NULL or
 * has no such section.  Keys as written, bare keys with the value "". */
json_t *fio_opts_section(const char *plan_text, const char *job);

/* The same as fio writes them in its JSON: each key under fio's own name
 * (blocksize is bs, readwrite is rw), bare flags ("time_based") left out. */
json_t *fio_opts_section_as(const char *plan_text, const char *job, int as_fio);

#endif
