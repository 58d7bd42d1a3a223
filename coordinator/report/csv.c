/* csv: one CSV field (see csv.h).  Quoting only when needed keeps the
 * common rows (numbers, op names) free of quotes for line-based tools. */
#include "coordinator/report/csv.h"

#include <string.h>

void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
