/* live: the status line (see live.h).
 *
 * Design: driven only by run observer callbacks (no timer of its own), so
 * it needs no thread and no access to the loop: a redraw happens when an
 * interval completes (every interval_ms, 1 s by default) or when layout
 * progress arrives.  On a terminal the line is rewritten with "\r" and
 * erase-to-end-of-line, throttled to once a second; the final line of a
 * phase is kept (newline) so the scrollback shows each phase's last state.
 * Off a terminal every interval prints its own line, which is what a log
 * or CI output wants.
 *
 * Progress: a phase is time-bound when a job has a runtime (the longest
 * wins), size-bound otherwise; a size-bound phase's total is the sum of
 * size x numjobs over its jobs times the agents, and the done part is the
 * bytes the merged intervals counted.  Remaining time for size-bound
 * phases is extrapolated from the rate so far.  Metadata jobs are not
 * size-bound: their "size" is files, not bytes to move.
 *
 * A time-bound phase's agents send one more, short interval after the
 * runtime (the ops that completed while the jobs stopped): it is counted
 * but not drawn, so the last line of a phase is its last full interval,
 * not "1 IOPS" after it.  An interval without ops shows "-" for its
 * latency, never "0ns". */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/sat.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/run/live.h"
#include "coordinator/run/sweep.h"

#define BAR_W 20
#define REDRAW_NS NS_PER_SEC

struct live {
    FILE *out;
    int quiet;
    int tty;
    int unit_base;
    const struct plan *plan;
    int drawn;                 /* a status line is on screen (tty) */
    uint64_t last_draw_ns;
    uint64_t bytes_done;       /* this phase, from merged intervals */
    int have_last;             /* last_k is set (this phase) */
    uint32_t last_k;           /* the last interval drawn */
    struct op_stats *all;      /* scratch for an interval's sum (~40 KB) */
};

struct live *live_new_tty(FILE *out, int quiet, const struct plan *plan, int unit_base, int tty)
{
    struct live *l = xcalloc(1, sizeof *l);

    l->out = out;
    l->quiet = quiet;
    l->plan = plan;
    l->unit_base = unit_base;
    l->tty = tty < 0 ? isatty(fileno(out)) : tty;
    l->all = xmalloc(sizeof(*l->all));
    return l;
}

void live_free(struct live *l)
{
    if (l && l->drawn)
        fputc('\n', l->out);
    if (l)
        free(l->all);
    free(l);
}

/* Runtime bound of phase (ns, 0 = none) and its size bound (bytes over the
 * fleet, 0 = none). */
static void phase_bounds(const struct live *l, uint32_t phase, uint32_t nagents,
                         uint64_t *runtime_ns, uint64_t *total_bytes)
{
    const struct phase *p;
    int timed = 0;

    *runtime_ns = 0;
    *total_bytes = 0;
    if (!l->plan || phase >= l->plan->nphases)
        return;
    p = &l->plan->phases[phase];
    for (uint32_t j = 0; j < p->njobs; j++) {
        const struct job_spec *js = &p->jobs[j];

        if (js->runtime_ns > *runtime_ns)
            *runtime_ns = js->runtime_ns;
        if (js->time_based)
            timed = 1;
        if (js->rw != RW_METADATA)
            *total_bytes += js->size * js->numjobs * nagents;
    }
    if (timed)
        *total_bytes = 0;
}

static void bar(char *dst, size_t len, double f)
{
    int fill;

    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    fill = (int)(f * BAR_W + 0.5);
    snprintf(dst, len, "[%.*s%.*s] %3.0f%%", fill, "####################", BAR_W - fill,
             "....................", f * 100);
}

static void draw(struct live *l, const char *line, int final)
{
    uint64_t now = clock_now_ns();

    if (l->quiet)
        return;
    if (!l->tty) {
        fprintf(l->out, "%s\n", line);
        fflush(l->out);
        return;
    }
    if (!final && l->drawn && now - l->last_draw_ns < REDRAW_NS * 9 / 10)
        return;
    fprintf(l->out, "\r%s\033[K%s", line, final ? "\n" : "");
    fflush(l->out);
    l->drawn = !final;
    l->last_draw_ns = now;
}

static uint32_t nlost(const struct run_result *r)
{
    uint32_t n = 0;

    for (uint32_t a = 0; a < r->nagents; a++)
        n += r->agents[a].lost != 0;
    return n;
}

static void live_phase_start(void *arg, const struct run_result *r, uint32_t phase)
{
    struct live *l = arg;
    char line[256];

    l->bytes_done = 0;
    l->have_last = 0;
    if (r->phases[phase].ctl.skipped) {      /* a sweep's spare point */
        snprintf(line, sizeof line, "phase %u/%u %s: not run: %s", phase + 1, r->nphases,
                 r->phases[phase].name, r->phases[phase].ctl.why);
        draw(l, line, !l->tty);
        return;
    }
    uint32_t on = r->nagents - nlost(r);
    if (r->sweeps) {
        /* a searched sweep=agents point runs on its first K: say those */
        on = 0;
        for (uint32_t a = 0; a < r->nagents; a++)
            on += r->phases[phase].agents[a].participating && !r->agents[a].lost;
    }
    snprintf(line, sizeof line, "phase %u/%u %s: started on %u agents", phase + 1, r->nphases,
             r->phases[phase].name, on);
    sweep_live_note(r->sweeps, phase, line + strlen(line), sizeof line - strlen(line));
    draw(l, line, !l->tty);
}

/* Say what is wrong in words: a stalled server (every live agent waits on
 * an op older than an interval), one stalled agent, or lost agents. */
static void stall_note(const struct run_result *r, uint32_t phase, uint32_t k, char *line, size_t len)
{
    uint64_t age;
    uint32_t live = r->nagents - nlost(r), n = result_interval_stalled(r, phase, k, &age);
    size_t o = strlen(line);

    /* a stall is no completion at all, not slow completions */
    if (n && result_interval_fleet_stalled(r, phase, k))
        o += (size_t)snprintf(line + o, len - o, " | server stalled %.1f s: no op completed on any agent",
                              (double)age / 1e9);
    else if (n)
        o += (size_t)snprintf(line + o, len - o, " | %u of %u agents stalled %.1f s", n, live, (double)age / 1e9);
    for (uint32_t a = 0; a < r->nagents && o < len; a++)
        if (r->agents[a].lost)
            o += (size_t)snprintf(line + o, len - o, " | agent %u lost", r->agents[a].id);
}

/* The status line after interval k (or the phase's end when final). */
static void status(struct live *l, const struct run_result *r, uint32_t phase, uint32_t k, int final)
{
    const struct phase_result *ph = &r->phases[phase];
    double secs = ph->interval_ms / 1000.0, elapsed = (k + 1) * secs, frac = -1, remain = -1;
    uint64_t runtime_ns, total, ops = 0, bytes = 0;
    char bw[32], lat[32], iops[32], el[32], rem[32] = "", pb[64] = "", line[512];
    struct op_stats *all = l->all;

    result_interval_all(r, phase, k, all);
    ops = result_ok_ops(all);     /* failed ops are not throughput */
    bytes = all->bytes;
    phase_bounds(l, phase, r->nagents, &runtime_ns, &total);
    if (total) {
        frac = (double)l->bytes_done / (double)total;
        if (frac > 0)
            remain = elapsed / frac - elapsed;
    }
    if (runtime_ns) {
        double f = elapsed * 1e9 / (double)runtime_ns;
        if (f > frac) {
            frac = f;
            remain = (double)runtime_ns / 1e9 - elapsed;
        }
    }
    if (final) {
        /* the phase is over: its whole duration, nothing left to say */
        frac = frac >= 0 ? 1 : -1;
        remain = -1;
        if (ph->duration_ns)
            elapsed = (double)ph->duration_ns / 1e9;
    }
    units_fmt_ns(el, sizeof el, elapsed * 1e9);
    if (remain >= 0) {
        char t[32];
        /* below a millisecond is nothing left: "0s", not "0ns" or "12us" */
        if (remain < 1e-3)
            snprintf(t, sizeof t, "0s");
        else
            units_fmt_ns(t, sizeof t, remain * 1e9);
        snprintf(rem, sizeof rem, " left %s", t);
    }
    if (frac >= 0) {
        pb[0] = ' ';   /* no trailing blank when there is no bar */
        bar(pb + 1, sizeof pb - 1, frac);
    }
    snprintf(line, sizeof line, "[%u/%u %s] %s%s | %s IOPS %s p99 %s | agents %u running %u lost%s",
             phase + 1, r->nphases, ph->name, el, rem, units_fmt_count(iops, sizeof iops, ops / secs),
             units_fmt_rate(bw, sizeof bw, bytes / secs, l->unit_base),
             all->lat.count ? units_fmt_ns(lat, sizeof lat, (double)hist_percentile(&all->lat, 99)) : "-",
             r->nagents - nlost(r), nlost(r), pb);
    if (all->errors) {
        size_t o = strlen(line);
        char e[32];
        snprintf(line + o, sizeof line - o, " | %s errors/s", units_fmt_count(e, sizeof e, all->errors / secs));
    }
    stall_note(r, phase, k, line, sizeof line);
    draw(l, line, final);
}

/* 1 when interval k starts at or after the phase's runtime: the short
 * interval of the ops that completed while the jobs stopped. */
static int is_tail(const struct live *l, const struct run_result *r, uint32_t phase, uint32_t k)
{
    uint64_t runtime_ns, total;

    phase_bounds(l, phase, r->nagents, &runtime_ns, &total);
    return runtime_ns && k > 0 && (uint64_t)k * r->phases[phase].interval_ms * NS_PER_MS >= runtime_ns;
}

static void live_interval(void *arg, const struct run_result *r, uint32_t phase, uint32_t k)
{
    struct live *l = arg;
    const struct interval_slot *s = &r->phases[phase].intervals[k];

    for (int t = 0; t < OP__COUNT; t++)
        l->bytes_done = sat_add_u64(l->bytes_done, s->count[t].bytes);
    if (is_tail(l, r, phase, k))
        return;
    l->have_last = 1;
    l->last_k = k;
    status(l, r, phase, k, 0);
}

static void live_phase_done(void *arg, const struct run_result *r, uint32_t phase)
{
    struct live *l = arg;
    const struct phase_result *ph = &r->phases[phase];

    /* on a terminal keep the phase's last state on screen: its last full
     * interval (the one on screen), not the tail after the runtime */
    if (l->tty && ph->nintervals > 0)
        status(l, r, phase, l->have_last ? l->last_k : ph->nintervals - 1, 1);
}

/* Layout progress before a phase (run_observer.layout): done_bytes of
 * total_bytes laid out over the fleet. */
static void live_layout(void *arg, const struct run_result *r, uint32_t phase, uint64_t done_bytes,
                        uint64_t total_bytes)
{
    struct live *l = arg;
    char d[32], t[32], pb[64], line[256];
    double f = total_bytes ? (double)done_bytes / (double)total_bytes : 1.0;

    bar(pb, sizeof pb, f);
    snprintf(line, sizeof line, "[%u/%u %s] laying out files %s / %s %s", phase + 1, r->nphases,
             r->phases[phase].name, units_fmt_bytes(d, sizeof d, (double)done_bytes, l->unit_base),
             units_fmt_bytes(t, sizeof t, (double)total_bytes, l->unit_base), pb);
    draw(l, line, l->tty && done_bytes >= total_bytes);
}

struct run_observer live_observer(struct live *l)
{
    struct run_observer o = { .phase_start = live_phase_start, .interval = live_interval,
                              .phase_done = live_phase_done, .layout = live_layout, .arg = l };
    return o;
}
