/* journal_replay: the reader of a journal (journal.h describes its lines):
 * the result rebuilt from it, and what a cut-short run's journal lacks. */
#ifndef NFSTORM_JOURNAL_REPLAY_H
#define NFSTORM_JOURNAL_REPLAY_H

#include "coordinator/result/result.h"

/* What a journal lacks when its run was cut short. */
#define JOURNAL_GAPS_MAX 768
struct journal_gaps {
    int cut_short;            /* no end record */
    uint32_t torn_line;       /* the last line, cut mid-write (0: none) */
    uint64_t torn_bytes;      /* its length */
    uint32_t unfinished;      /* phases with data but no phase_end */
    char what[JOURNAL_GAPS_MAX];   /* one line naming what is missing */
};

/* Rebuild a result from a journal (a truncated last line is ignored, as
 * after a kill -9).  0 or -errno with a one-line reason naming file:line.
 * When gaps is given it says whether the run was cut short; the phases of
 * a cut-short run that never got their phase_end are then summed (what
 * arrived counts, finished = 1 as for any phase with results) and marked
 * interrupted: the reports print their figures as partial, and the JSON
 * says "finished": false, "partial": true (docs/results.md). */
int journal_replay(const char *path, struct run_result *r, struct journal_gaps *gaps,
                   char *err, size_t errlen);
/* journal_replay without the gaps: phases with data count as finished. */
int journal_load(const char *path, struct run_result *r, char *err, size_t errlen);
/* 1 if the file starts like a journal. */
int journal_detect(const char *path);

#endif
