/* errors_json: failed ops by cause (common/errcause.h) as the JSON
 * result's and the journal's "errors" object, and back (docs/results.md):
 *
 *   {"read": {"failed": N, "other": N,
 *             "causes": [{"kind": "short_read", "name": "short_read",
 *                         "text": "short read at offset 8192 (file is 0 bytes)",
 *                         "count": N, "first_offset": 8192, "file": "/d/f.dat",
 *                         "file_size": 0}, ...]}, ...}
 *
 * Only op types with a failed op.  "errno" (kind errno) is the number;
 * "file_size" only for short reads (null: not known); "first_agent" only
 * in the phase's merge.  "name", "text" and "failed" are derived: the
 * reader takes kind, errno or name (an NFS status), count, first_offset,
 * file, file_size and other, and checks them as the wire decoder does
 * (errcause_check). */
#ifndef NFSTORM_ERRORS_JSON_H
#define NFSTORM_ERRORS_JSON_H

#include <jansson.h>
#include <stddef.h>
#include "common/errcause.h"

/* New reference.  first_agent: each cause's first agent (the phase's
 * merge, result_phase_errors), or NULL. */
json_t *errors_json(const struct errcause_set *s, uint32_t (*first_agent)[ERRCAUSE_MAX]);
/* 0 (s filled) or -EINVAL with err naming the key. */
int errors_from_json(const json_t *o, struct errcause_set *s, char *err, size_t errlen);

#endif
