/* fio_compat: `nfstorm run --fio-compat-report PLAN`, and the same list at
 * the end of --dry-run: every key a plan sets, one line each, with what
 * nfstorm does with it -- implemented, alias of X, accepted (nfstorm
 * already behaves so), ignored: why, refused: why -- so a fio user sees at
 * a glance what differs from fio.  The statuses come from fio's key
 * inventory (common/plan_fio_keys.h) and the plan keys; a value a plan key
 * refuses (ioengine=libaio, bs=4k,8k) is shown refused with the reason. */
#ifndef NFSTORM_FIO_COMPAT_H
#define NFSTORM_FIO_COMPAT_H

#include <stdio.h>

/* The report for a job file (path) or, when path is NULL, for fio-style
 * options argv[0..argc).  Prints the key lines and a closing verdict to
 * out.  Returns the exit status: 0 when the plan would run, 2 when a key is
 * refused or the plan does not parse (the reason is in the verdict line),
 * 2 too when the file cannot be read (after "nfstorm: ..." on stderr). */
int fio_compat_report(FILE *out, const char *path, int argc, char **argv);

/* The key lines alone (no verdict), under a "fio compatibility:" heading,
 * for --dry-run of a plan that parsed.  Returns the number of refused keys. */
int fio_compat_section(FILE *out, const char *path, int argc, char **argv);

#endif
