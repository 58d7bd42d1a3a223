/* csv: the one quoting rule every CSV the coordinator writes follows
 * (the run's report_csv and the comparison's compare_csv), RFC 4180 style,
 * so a spreadsheet reads back every label, path and host name as written. */
#ifndef NFSTORM_CSV_H
#define NFSTORM_CSV_H

#include <stdio.h>

/* Write s to out as one CSV field: as is, unless it holds a comma, a double
 * quote, CR or LF; then in double quotes, each double quote doubled.  No
 * separator is written.  s must not be NULL. */
void csv_field(FILE *out, const char *s);

#endif
