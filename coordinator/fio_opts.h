/* fio_opts: the "global options" and "job options" objects of fio's JSON,
 * read back from the plan text a result records (run_record.plan_text:
 * the job file after includes and ${VAR}, or the command line's options one
 * a line), so every key the plan set appears as it was written.
 *
 * Values are strings, as fio writes them; a bare key ("time_based") has
 * the value "" (fio leaves such keys out; nfstorm lists every key set).
 * A key set twice in one section keeps its last value, in its first place. */
#ifndef NFSTORM_FIO_OPTS_H
#define NFSTORM_FIO_OPTS_H

#include <jansson.h>

/* The options of section `job` (the first section of that name; in the
 * command-line form, the options from its name= line to the next name=),
 * or of [global] (all [global] sections; command-line options before the
 * first name=) when job is NULL.  A new object, empty when the text is
 * NULL or has no such section. */
json_t *fio_opts_section(const char *plan_text, const char *job);

#endif
