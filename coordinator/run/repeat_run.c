/* repeat_run: between the repetitions of `nfstorm run --repeat N`
 * (repeat_run.h).
 *
 * Design: each repetition is a whole run of cmd_run's, with its own
 * journal and files, so everything a single run guarantees (atomic files,
 * journals, verdicts, signals) holds for each; this module only decides
 * what comes between and writes the set at the end.  The wait sleeps in
 * 50 ms slices and checks the noted signal between them, so Ctrl-C ends
 * it within one slice whatever the interval. */
#include "coordinator/run/repeat_run.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/units.h"
#include "coordinator/cli/out_file.h"
#include "coordinator/result/repeat.h"
#include "coordinator/run/run.h"

#define WAIT_SLICE_NS (50 * NS_PER_MS)

void repeat_run_outputs(const struct repeat_run *rr, uint32_t k, struct repeat_files *f,
                        struct report_outputs *o)
{
    if (!rr->repeat)
        return;             /* one run: its files as named */
    o->html = NULL;
    if (o->csv)
        o->csv = repeat_file_name(f->csv, sizeof f->csv, o->csv, k);
    if (o->timeseries)
        o->timeseries = repeat_file_name(f->timeseries, sizeof f->timeseries, o->timeseries, k);
    if (o->output)
        o->output = repeat_file_name(f->output, sizeof f->output, o->output, k);
}

void repeat_run_dry_line(FILE *out, const struct repeat_run *rr)
{
    char every[32];

    units_fmt_ns(every, sizeof every, (double)rr->interval_ns);
    fprintf(out, "\nrepeat: the plan would run %u time%s on the same agents%s%s%s\n", rr->repeat,
            rr->repeat == 1 ? "" : "s", rr->interval_ns ? ", waiting " : "", rr->interval_ns ? every : "",
            rr->interval_ns ? " between repetitions" : "");
}

/* Sleep ns unless a signal is noted first.  1 if one was. */
static int wait_interruptible(const struct repeat_run *rr, uint64_t ns)
{
    uint64_t end = clock_now_ns() + ns;

    while (!*rr->signalled) {
        uint64_t now = clock_now_ns(), left;
        struct timespec ts;

        if (now >= end)
            return 0;
        left = end - now < WAIT_SLICE_NS ? end - now : WAIT_SLICE_NS;
        ts.tv_sec = (time_t)(left / NS_PER_SEC);
        ts.tv_nsec = (long)(left % NS_PER_SEC);
        nanosleep(&ts, NULL);   /* EINTR: the loop looks at the signal */
    }
    return 1;
}

int repeat_run_next(const struct repeat_run *rr, struct run_set *set, int rc)
{
    char every[32];

    if (rc == RUN_INTERRUPTED || *rr->signalled) {
        set->interrupted = set->n < rr->repeat;
        return 0;
    }
    if (set->n >= rr->repeat)
        return 0;
    if (rc < 0) {
        fprintf(stderr, "nfstorm: repetition %u/%u ended with an error: the repeat set stops here\n", set->n,
                rr->repeat);
        return 0;
    }
    if (rr->interval_ns) {
        if (!rr->quiet)
            fprintf(stderr, "nfstorm: repetition %u/%u in %s\n", set->n + 1, rr->repeat,
                    units_fmt_ns(every, sizeof every, (double)rr->interval_ns));
        if (wait_interruptible(rr, rr->interval_ns)) {
            set->interrupted = 1;
            return 0;
        }
    }
    return 1;
}

int repeat_run_finish(const struct repeat_run *rr, struct run_set *set, int set_status)
{
    int status = set_status;
    struct report_outputs o = *rr->out;

    if (!cmd_report_fio_on_stdout(rr->out)) {
        if (!rr->quiet)
            printf("\n");      /* after the last repetition's report */
        repeat_report_text(stdout, set, rr->unit_base);
    }
    fflush(stdout);
    if (rr->json) {
        int jrc = repeat_set_write(rr->json, set);
        if (jrc < 0) {
            fprintf(stderr, "nfstorm: %s: cannot write the repeat set: %s\n", rr->json, out_file_strerror(-jrc));
            status = repeat_worse_status(status, 1);
        }
    }
    o.csv = o.timeseries = o.output = NULL;
    o.fio_formats = 0;
    if (cmd_report_write_set(&o, set) != 0)
        status = repeat_worse_status(status, 1);
    if (set->interrupted) {
        int sig = *rr->signalled;
        const struct run_result *last = &set->reps[set->n - 1];
        char why[64];

        /* the signal noted here, or the one that stopped the last repetition */
        if (sig)
            snprintf(why, sizeof why, "SIG%s", sigabbrev_np(sig));
        else
            snprintf(why, sizeof why, "%s", last->end == RUN_END_INTERRUPTED && last->end_text[0] ?
                     last->end_text : "interrupted");
        fprintf(stderr, "nfstorm: %s: the repeat set ended after %u of %u repetitions%s%s\n", why, set->n,
                rr->repeat, rr->json ? "; they are in " : "", rr->json ? rr->json : "");
        status = repeat_worse_status(status, 130);
    }
    return status;
}
