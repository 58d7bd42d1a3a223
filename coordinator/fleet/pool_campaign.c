/* pool_campaign: see pool_campaign.h.
 *
 * Each repetition's result comes back into a file (the user's --json, its
 * SET.json.repK, or a private temporary directory when --json was not
 * given) and is read back with result_load_set, so what is rendered here is
 * exactly what `nfstorm report` renders from the same file. */
#include "coordinator/fleet/pool_campaign.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "coordinator/result/repeat.h"
#include "coordinator/run/repeat_run.h"
#include "coordinator/result/result_load.h"

/* The repetition's result, loaded; 0, or 1 after a one-line error. */
static int load(const char *path, struct run_result *r)
{
    struct run_set set;
    char err[1024];

    memset(r, 0, sizeof *r);
    if (result_load_set(path, &set, err, sizeof err) < 0) {
        run_set_free(&set);
        fprintf(stderr, "nfstorm: the pool's result: %s\n", err);
        return 1;
    }
    *r = set.reps[0];                 /* taken over: zeroed in the set */
    memset(&set.reps[0], 0, sizeof *r);
    run_set_free(&set);
    return 0;
}

int pool_campaign_run(const struct pool_campaign *pc)
{
    struct pool_client_options po = *pc->po;
    struct pool_submit sub = *pc->sub;
    char tmpdir[PATH_MAX] = "", base[PATH_MAX + 32], path[PATH_MAX + 48], journal[PATH_MAX + 64];
    const char *tmp = getenv("TMPDIR");
    struct run_set set;
    struct repeat_run rr = { .repeat = pc->repeat, .interval_ns = pc->repeat_interval_ns, .quiet = pc->quiet,
                             .unit_base = pc->unit_base, .json = pc->po->json, .out = pc->out,
                             .signalled = pc->signalled };
    int status = 0, set_status = 0;

    /* nothing rendered here (no output file, no --repeat): the run's own output is all */
    if (!(pc->repeat || pc->out->html || pc->out->csv || pc->out->timeseries || pc->out->output))
        return pool_client_submit(&po, &sub);
    memset(&set, 0, sizeof set);
    set.requested = pc->repeat;
    set.interval_ns = pc->repeat_interval_ns;
    if (pc->po->json) {
        snprintf(base, sizeof base, "%s", pc->po->json);
    } else {
        snprintf(tmpdir, sizeof tmpdir, "%s/nfstorm-pool.XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        if (!mkdtemp(tmpdir)) {
            fprintf(stderr, "nfstorm: --pool: cannot make a directory for the pool's result in %s: %s\n",
                    tmp && tmp[0] == '/' ? tmp : "/tmp", strerror(errno));
            return 1;
        }
        snprintf(base, sizeof base, "%s/result.json", tmpdir);
    }
    sub.want_json = 1;
    for (uint32_t k = 1;; k++) {
        struct report_outputs outs = *pc->out;
        struct repeat_files files;
        struct run_result r;
        int st, written;

        /* a set keeps each repetition's journal as a local set does:
         * SET.json.repK.journal; its result is read and folded into the set */
        if (pc->repeat)
            snprintf(path, sizeof path, "%s.rep%u", base, k);
        else
            snprintf(path, sizeof path, "%s", base);
        po.json = path;
        if (pc->repeat && !pc->quiet)
            printf("%srepetition %u/%u\n", k > 1 ? "\n" : "", k, pc->repeat);
        fflush(stdout);
        written = 0;
        po.json_written = &written;
        st = pool_client_submit(&po, &sub);
        if (!written) {
            /* refused, or the pool went before a result: nothing to render;
             * the repetitions before it are kept, as a local set keeps them */
            status = set.n ? repeat_worse_status(st, repeat_run_finish(&rr, &set, set_status)) : st;
            break;
        }
        if (load(path, &r) != 0) {
            status = repeat_worse_status(st, 1);
            if (set.n)
                status = repeat_worse_status(status, repeat_run_finish(&rr, &set, set_status));
            break;
        }
        repeat_run_outputs(&rr, k, &files, &outs);
        if (pc->repeat)
            outs.html = NULL;         /* the set's summary, at the end */
        if (cmd_report_write_loaded(&outs, &r) != 0 && st == 0)
            st = 1;
        if (!pc->repeat) {
            result_free(&r);
            status = st;
            break;
        }
        unlink(path);                 /* the set file holds it; its journal stays */
        set.reps = xrealloc(set.reps, (set.n + 1) * sizeof *set.reps);
        set.reps[set.n++] = r;
        set_status = repeat_worse_status(set_status, st);
        if (!repeat_run_next(&rr, &set, st == 0 || st == 1 || st == 3 ? 0 : -1)) {
            status = repeat_run_finish(&rr, &set, set_status);
            break;
        }
    }
    run_set_free(&set);
    if (tmpdir[0]) {
        /* the temporary result and journals: only the user's files stay */
        for (uint32_t k = pc->repeat ? 1 : 0; k <= pc->repeat; k++) {
            if (pc->repeat)
                snprintf(path, sizeof path, "%s.rep%u", base, k);
            else
                snprintf(path, sizeof path, "%s", base);
            snprintf(journal, sizeof journal, "%s.journal", path);
            unlink(path);
            unlink(journal);
        }
        rmdir(tmpdir);
    }
    return status;
}
