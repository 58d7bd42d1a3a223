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

static int set_fail(const char *path, const char *key, const char *why, char *err, size_t errlen)
{
    return why_fail(err, errlen, "%s: %s: %s", path, key, why);
}

static int load_repeat_set(json_t *root, const char *path, struct run_set *s, char *err, size_t errlen)
{
    json_t *v, *reps;
    size_t nreps;

    v = json_object_get(root, "nfstorm_repeat_set");
    if (!json_is_integer(v) || json_integer_value(v) != 1)
        return set_fail(path, "nfstorm_repeat_set", "unsupported version (want 1)", err, errlen);
    v = json_object_get(root, "repeat");
    if (!v)
        return set_fail(path, "repeat", "missing", err, errlen);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > RUN_SET_MAX_REPEAT)
        return why_fail(err, errlen, "%s: repeat: want an integer in 1..%d", path, RUN_SET_MAX_REPEAT);
    s->requested = (uint32_t)json_integer_value(v);
    v = json_object_get(root, "repeat_interval_s");
    if (!v)
        return set_fail(path, "repeat_interval_s", "missing", err, errlen);
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
        json_number_value(v) > 7.0 * 24 * 3600)
        return set_fail(path, "repeat_interval_s", "want a number of seconds in 0..604800", err, errlen);
    s->interval_ns = (uint64_t)llround(json_number_value(v) * 1e9);
    v = json_object_get(root, "target");
    if (v && (!json_is_string(v) || json_string_length(v) >= sizeof s->target))
        return why_fail(err, errlen, "%s: target: want a string of at most %zu bytes", path, sizeof s->target - 1);
    if (v) {
        snprintf(s->target, sizeof s->target, "%s", json_string_value(v));
        result_clean_utf8(s->target);
    }
    v = json_object_get(root, "interrupted");
    if (v && !json_is_boolean(v))
        return set_fail(path, "interrupted", "want true or false", err, errlen);
    s->interrupted = json_is_true(v);
    v = json_object_get(root, "not_started");      /* optional: a repetition that could not start */
    if (v && (!json_is_integer(v) || json_integer_value(v) < 2 || json_integer_value(v) > s->requested))
        return why_fail(err, errlen, "%s: not_started: want an integer in 2..%u", path, s->requested);
    s->not_started = v ? (uint32_t)json_integer_value(v) : 0;
    reps = json_object_get(root, "repetitions");
    if (!reps)
        return set_fail(path, "repetitions", "missing", err, errlen);
    if (!json_is_array(reps))
        return set_fail(path, "repetitions", "want an array", err, errlen);
    nreps = json_array_size(reps);
    if (nreps == 0)
        return set_fail(path, "repetitions", "empty (a set holds at least one repetition)", err, errlen);
    if (nreps > s->requested)
        return why_fail(err, errlen, "%s: repetitions: has %zu elements, more than repeat (%u)", path, nreps,
                        s->requested);
    if (s->not_started && s->not_started != nreps + 1)
        return why_fail(err, errlen, "%s: not_started: %u, but the set holds %zu repetitions (want %zu)", path,
                        s->not_started, nreps, nreps + 1);
    s->reps = xcalloc(nreps, sizeof *s->reps);
    for (size_t k = 0; k < nreps; k++) {
        char where[32];
        int rc;

        snprintf(where, sizeof where, "repetitions[%zu]", k);
        s->n = (uint32_t)k + 1;    /* rep k is freeable, loaded or not */
        if (!json_is_object(json_array_get(reps, k)))
            return set_fail(path, where, "not an object", err, errlen);
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
