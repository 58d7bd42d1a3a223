/* result_set: load a run set (result_load.h) from any of the three files a
 * run leaves: a plain result, a journal, or a repeat set.
 *
 * Design: the repeat set embeds each repetition as the very object --json
 * writes for one run, so each is read by result_load_json with its path
 * ("repetitions[1]") as the prefix of every error, and the set's own keys
 * are few and checked here.  The set's "summary" is derived data written
 * for scripts: it is not read back, every report recomputes it from the
 * repetitions (coordinator/result/repeat.c), so a file cannot make the summary
 * disagree with what it holds.  What must agree between repetitions (the
 * phases: count, name, mode, block size; the number of agents) is checked,
 * since summaries and comparisons pair phase i of every repetition. */
#include "coordinator/result/result_load.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/why.h"
#include "common/xmalloc.h"
#include "coordinator/result/jread.h"
#include "coordinator/run/journal.h"
#include "coordinator/run/sweep.h"

void run_set_free(struct run_set *s)
{
    for (uint32_t i = 0; s->reps && i < s->n; i++)
        result_free(&s->reps[i]);
    free(s->reps);
    s->reps = NULL;
    s->n = 0;
}

/* Phase i of a and b are points of one sweep (the same job's): a search
 * takes the path its measurements lead it, so on real storage two
 * repetitions can try different values at the same phase. */
static int same_sweep_point(const struct run_result *a, const struct run_result *b, uint32_t i)
{
    const char *ja = sweep_point_job(a->sweeps, a->phases[i].name);
    const char *jb = sweep_point_job(b->sweeps, b->phases[i].name);
    return ja && jb && !strcmp(ja, jb);
}

/* Phase i of rep k must be phase i of rep 0 (or a point of its sweep). */
static int same_phases(const struct run_set *s, uint32_t k, const char *path, char *err, size_t errlen)
{
    const struct run_result *a = &s->reps[0], *b = &s->reps[k];

    if (a->nphases != b->nphases)
        return why_fail(err, errlen, "%s: repetitions[%u].phases: %u phases, repetitions[0] has %u", path, k,
                        b->nphases, a->nphases);
    for (uint32_t i = 0; i < a->nphases; i++)
        if ((strcmp(a->phases[i].name, b->phases[i].name) && !same_sweep_point(a, b, i)) || a->phases[i].rw != b->phases[i].rw ||
            a->phases[i].bs != b->phases[i].bs) {
            return why_fail(err, errlen, "%s: repetitions[%u].phases[%u]: '%s' (%s, bs %llu) is not repetitions[0]'s "
                            "'%s' (%s, bs %llu)", path, k, i, b->phases[i].name, rw_mode_name(b->phases[i].rw),
                            (unsigned long long)b->phases[i].bs, a->phases[i].name, rw_mode_name(a->phases[i].rw),
                            (unsigned long long)a->phases[i].bs);
        }
    return 0;
}

/* Rep k ran on as many agents as rep 0: `run --repeat` keeps its agents
 * for the whole set (a --listen fleet that changes ends it), so a set
 * mixing agent counts was put together by hand, and averaging its IOPS
 * would mix fleets of different sizes. */
static int same_agents(const struct run_set *s, uint32_t k, const char *path, char *err, size_t errlen)
{
    if (s->reps[k].nagents == s->reps[0].nagents)
        return 0;
    return why_fail(err, errlen, "%s: repetitions[%u].agents: %u agent%s, repetitions[0] has %u", path, k,
                    s->reps[k].nagents, s->reps[k].nagents == 1 ? "" : "s", s->reps[0].nagents);
}

/* The set's own keys ("path: key: reason" on a failure), then each
 * repetition through result_load_json. */
static int load_repeat_set(json_t *root, const char *path, struct run_set *s, char *err, size_t errlen)
{
    struct jr c = { .file = path, .where = "", .err = err, .errlen = errlen };
    json_t *v, *reps;
    size_t nreps = 0;
    char sub[32];

    v = json_object_get(root, "nfstorm_repeat_set");
    if (!json_is_integer(v) || json_integer_value(v) != 1)
        jr_fail(&c, "nfstorm_repeat_set", "unsupported version (want 1)");
    v = jr_get(&c, root, "", "repeat", sub, sizeof sub);
    if (v && (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > RUN_SET_MAX_REPEAT))
        jr_fail(&c, sub, "want an integer in 1..%d", RUN_SET_MAX_REPEAT);
    s->requested = v ? (uint32_t)json_integer_value(v) : 0;
    v = jr_get(&c, root, "", "repeat_interval_s", sub, sizeof sub);
    if (v && (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
              json_number_value(v) > 7.0 * 24 * 3600))
        jr_fail(&c, sub, "want a number of seconds in 0..604800");
    s->interval_ns = v && !c.failed ? (uint64_t)llround(json_number_value(v) * 1e9) : 0;
    if (jr_opt(&c, root, "", "target", sub, sizeof sub))
        jr_str(&c, root, "", "target", s->target, sizeof s->target);
    if (jr_opt(&c, root, "", "interrupted", sub, sizeof sub))
        s->interrupted = jr_bool(&c, root, "", "interrupted");
    v = jr_opt(&c, root, "", "not_started", sub, sizeof sub);   /* a repetition that could not start */
    if (v && (!json_is_integer(v) || json_integer_value(v) < 2 || json_integer_value(v) > s->requested))
        jr_fail(&c, "not_started", "want an integer in 2..%u", s->requested);
    s->not_started = v && !c.failed ? (uint32_t)json_integer_value(v) : 0;
    reps = jr_array(&c, root, "", "repetitions", 0, SIZE_MAX, sub, sizeof sub);
    nreps = json_array_size(reps);
    if (reps && nreps == 0)
        jr_fail(&c, sub, "empty (a set holds at least one repetition)");
    else if (reps && nreps > s->requested)
        jr_fail(&c, sub, "has %zu elements, more than repeat (%u)", nreps, s->requested);
    else if (reps && s->not_started && s->not_started != nreps + 1)
        jr_fail(&c, "not_started", "%u, but the set holds %zu repetitions (want %zu)", s->not_started, nreps,
                nreps + 1);
    if (c.failed)
        return -EINVAL;
    s->reps = xcalloc(nreps, sizeof *s->reps);
    for (size_t k = 0; k < nreps; k++) {
        char where[32];
        int rc;

        snprintf(where, sizeof where, "repetitions[%zu]", k);
        s->n = (uint32_t)k + 1;    /* rep k is freeable, loaded or not */
        if (!json_is_object(json_array_get(reps, k))) {
            jr_fail(&c, where, "not an object");
            return -EINVAL;
        }
        if ((rc = result_load_json(json_array_get(reps, k), path, where, &s->reps[k], err, errlen)) < 0)
            return rc;
        if (k > 0 && ((rc = same_phases(s, (uint32_t)k, path, err, errlen)) < 0 ||
                      (rc = same_agents(s, (uint32_t)k, path, err, errlen)) < 0))
            return rc;
    }
    return 0;
}

int result_load_set(const char *path, struct run_set *s, char *err, size_t errlen)
{
    json_t *root;
    int rc;

    memset(s, 0, sizeof *s);
    if (journal_detect(path)) {
        struct journal_gaps gaps;

        s->reps = xcalloc(1, sizeof *s->reps);
        if ((rc = journal_replay(path, &s->reps[0], &gaps, err, errlen)) < 0) {
            free(s->reps);       /* journal_replay freed what it made */
            s->reps = NULL;
            return rc;
        }
        s->n = 1;
        if (gaps.cut_short)
            result_cut_short(&s->reps[0], gaps.what);
        return 0;
    }
    root = result_load_file_json(path, err, errlen);
    if (!root)
        return -EINVAL;
    if (json_is_object(root) && json_object_get(root, "nfstorm_repeat_set")) {
        rc = load_repeat_set(root, path, s, err, errlen);
    } else {
        s->reps = xcalloc(1, sizeof *s->reps);
        s->n = 1;
        rc = result_load_json(root, path, "", &s->reps[0], err, errlen);
    }
    json_decref(root);
    if (rc < 0)
        run_set_free(s);
    return rc;
}
