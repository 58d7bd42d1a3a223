/* run_record_show: the record as people read it (the report's header
 * block) and as compare asks about it (what differs between runs); the
 * contract is in run_record.h.  Both fold what repeats: agents with the
 * same machine share a line, a storage place shared by agents and phases
 * is printed once with the agents and phases on it, so the header stays a
 * few lines for a fleet of hundreds. */
#include "coordinator/run/run_record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/units.h"
#include "common/xmalloc.h"
#include "coordinator/result/result.h"
#include "coordinator/report/text_table.h"

/* A growing string. */
struct sb {
    char *s;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void sb_add(struct sb *b, const char *fmt, ...)
{
    va_list ap, ap2;
    int n;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        if (b->len + (size_t)n + 1 > b->cap) {
            b->cap = (b->len + (size_t)n + 1) * 2;
            b->s = xrealloc(b->s, b->cap);
        }
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
    if (!b->s)
        b->s = xcalloc(1, 1);
}

/* "0-3,5,7-8" for the set bits of in[0..n). */
static void add_ranges(struct sb *b, const uint8_t *in, uint32_t n)
{
    int first = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        if (!in[i])
            continue;
        while (j + 1 < n && in[j + 1])
            j++;
        sb_add(b, j > i ? "%s%u-%u" : "%s%u", first ? "" : ",", i, j);
        first = 0;
        i = j;
    }
}

static uint32_t count_set(const uint8_t *in, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += in[i] != 0;
    return k;
}

/* An agent's machine in words: "kernel 6.8.0, 2 x Intel(R) ..., 7.8GiB". */
static void system_words(struct sb *b, const struct agent_info *ai)
{
    char mem[32];
    if (!ai->sys.known) {
        sb_add(b, "%u CPUs, machine not reported", ai->ncpus);
        return;
    }
    sb_add(b, "kernel %s, %u CPUs (%s), %s memory", ai->sys.kernel[0] ? ai->sys.kernel : "?", ai->ncpus,
           ai->sys.cpu_model[0] ? ai->sys.cpu_model : "model not known",
           ai->sys.mem_bytes ? units_fmt_bytes(mem, sizeof mem, (double)ai->sys.mem_bytes, 1024) : "?");
}

/* A storage place in words, without the job. */
static void storage_words(struct sb *b, const struct storage_info *s)
{
    char r[32], w[32];
    int nfs = s->kind == STORAGE_NFS;

    if (!nfs && !s->fstype[0]) {
        sb_add(b, "%s (mount not found)", s->where);
        return;
    }
    if (nfs)
        sb_add(b, "%s (libnfs", s->where);
    else
        sb_add(b, "%s on %s (%s", s->source, s->where, s->fstype);
    if (s->nfsvers[0])
        sb_add(b, nfs ? ", NFSv%s" : ", vers %s", s->nfsvers);
    if (s->rsize || s->wsize)
        sb_add(b, ", rsize %s, wsize %s%s", units_fmt_bytes(r, sizeof r, (double)s->rsize, 1024),
               units_fmt_bytes(w, sizeof w, (double)s->wsize, 1024), nfs &&
               strcmp(s->options, "sizes=engine-default") == 0 ? " (the engine's: the server gave none)" : "");
    if (!nfs && s->mode[0])
        sb_add(b, ", %s", s->mode);
    if (!nfs && s->timeo)
        sb_add(b, ", timeo %u", s->timeo);
    if (!nfs && s->nconnect)
        sb_add(b, ", nconnect %u", s->nconnect);
    sb_add(b, ")");
}

static void agent_lines(FILE *out, const struct run_result *r)
{
    uint8_t *done = xcalloc(r->nagents ? r->nagents : 1, 1), *in = xcalloc(r->nagents ? r->nagents : 1, 1);
    for (uint32_t a = 0; a < r->nagents; a++) {
        struct sb key = { 0 }, other = { 0 }, line = { 0 };
        uint32_t nhosts = 0;
        if (done[a])
            continue;
        system_words(&key, &r->agents[a]);
        memset(in, 0, r->nagents);
        for (uint32_t b = a; b < r->nagents; b++) {
            if (done[b])
                continue;
            free(other.s);
            other = (struct sb){ 0 };
            system_words(&other, &r->agents[b]);
            if (strcmp(key.s, other.s) == 0)
                done[b] = in[b] = 1;
        }
        sb_add(&line, "agent%s ", count_set(in, r->nagents) > 1 ? "s" : "");
        add_ranges(&line, in, r->nagents);
        sb_add(&line, " (");
        for (uint32_t b = a; b < r->nagents; b++) {
            int seen = 0;
            if (!in[b])
                continue;
            for (uint32_t c = a; c < b && !seen; c++)
                seen = in[c] && strcmp(r->agents[c].host, r->agents[b].host) == 0;
            if (seen)
                continue;
            if (nhosts < 3)
                sb_add(&line, "%s%s", nhosts ? ", " : "", r->agents[b].host[0] ? r->agents[b].host : "?");
            nhosts++;
        }
        if (nhosts > 3)
            sb_add(&line, " and %u more hosts", nhosts - 3);
        fprintf(out, "%s): %s\n", line.s, key.s);
        free(key.s);
        free(other.s);
        free(line.s);
    }
    free(done);
    free(in);
}

static void storage_lines(FILE *out, const struct run_result *r)
{
    /* distinct places in order of first use; for each, its agents and phases */
    struct place { char *text; uint8_t *agents, *phases; } *pl = NULL;
    uint32_t npl = 0;
    for (uint32_t p = 0; p < r->nphases; p++)
        for (uint32_t a = 0; r->phases[p].ran && a < r->nagents; a++) {
            const struct agent_phase *ap = &r->phases[p].agents[a];
            for (uint32_t i = 0; i < ap->nstorage; i++) {
                struct sb t = { 0 };
                uint32_t k;
                storage_words(&t, &ap->storage[i]);
                for (k = 0; k < npl && strcmp(pl[k].text, t.s) != 0; k++)
                    ;
                if (k == npl) {
                    pl = xrealloc(pl, (npl + 1) * sizeof *pl);
                    pl[npl].text = t.s;
                    pl[npl].agents = xcalloc(r->nagents, 1);
                    pl[npl++].phases = xcalloc(r->nphases, 1);
                } else {
                    free(t.s);
                }
                pl[k].agents[a] = pl[k].phases[p] = 1;
            }
        }
    for (uint32_t k = 0; k < npl; k++) {
        struct sb line = { 0 };
        uint32_t np = count_set(pl[k].phases, r->nphases), shown = 0;
        sb_add(&line, "storage: %s; agent%s ", pl[k].text, count_set(pl[k].agents, r->nagents) > 1 ? "s" : "");
        add_ranges(&line, pl[k].agents, r->nagents);
        if (np == r->nphases && r->nphases > 1) {
            sb_add(&line, ", every phase");
        } else {
            sb_add(&line, ", phase%s ", np > 1 ? "s" : "");
            for (uint32_t p = 0; p < r->nphases; p++)
                if (pl[k].phases[p] && shown++ < 4)
                    sb_add(&line, "%s%s", shown > 1 ? "," : "", r->phases[p].name);
            if (shown > 4)
                sb_add(&line, " and %u more", shown - 4);
        }
        fprintf(out, "%s\n", line.s);
        free(line.s);
        free(pl[k].text);
        free(pl[k].agents);
        free(pl[k].phases);
    }
    free(pl);
}

void run_record_text(FILE *out, const struct run_result *r)
{
    const struct run_record *rec = &r->record;
    char start[64], end[64];
    if (!rec->present)
        return;
    run_record_iso8601(rec->start_ms, start, sizeof start);
    fprintf(out, "target %s, nfstorm %s (protocol %u), %s", rec->target[0] ? rec->target : "(none)",
            rec->version, rec->proto_version, start);
    if (rec->end_ms) {
        run_record_iso8601(rec->end_ms, end, sizeof end);
        fprintf(out, " to %s (%.1f s)", end, (double)(rec->end_ms - rec->start_ms) / 1000.0);
    } else {
        fprintf(out, ", end not recorded");
    }
    fprintf(out, "%s\n", rec->interrupted ? ", interrupted" : "");
    agent_lines(out, r);
    storage_lines(out, r);
}

/* ---- what differs ---- */

/* Add v to the "; "-separated list b unless it is there already (values
 * such as mount options hold commas themselves). */
static void add_distinct(struct sb *b, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = b->s; p && *p;) {
        const char *e = strstr(p, "; ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0)
            return;
        p += len + (e ? 2 : 0);
    }
    sb_add(b, "%s%s", b->len ? "; " : "", v);
}

enum fld { F_TARGET, F_VERSION, F_AGENTS, F_HOSTS, F_KERNEL, F_CPU, F_MEM, F_FSTYPE, F_SOURCE,
           F_MOUNT, F_OPTIONS, F_NFSVERS, F_RSIZE, F_WSIZE, F_NCONNECT, F_TIMEO, F_MODE, F_URL,
           F_PLAN, F__COUNT };
static const char *const fld_name[F__COUNT] = {
    "target", "version", "agents", "hosts", "kernel", "cpu", "mem", "fstype", "source", "mount",
    "options", "nfsvers", "rsize", "wsize", "nconnect", "timeo", "mode", "url", "plan",
};

static void storage_fields(struct sb *v, const struct storage_info *s)
{
    char num[32];
    if (s->kind == STORAGE_NFS) {
        add_distinct(&v[F_URL], s->where);
        add_distinct(&v[F_FSTYPE], "libnfs");
    } else {
        add_distinct(&v[F_MOUNT], s->where);
        add_distinct(&v[F_FSTYPE], s->fstype[0] ? s->fstype : "?");
        add_distinct(&v[F_SOURCE], s->source);
        add_distinct(&v[F_OPTIONS], s->options);
        add_distinct(&v[F_MODE], s->mode[0] ? s->mode : "-");
        snprintf(num, sizeof num, "%u", s->nconnect);
        add_distinct(&v[F_NCONNECT], num);
        snprintf(num, sizeof num, "%u", s->timeo);
        add_distinct(&v[F_TIMEO], num);
    }
    add_distinct(&v[F_NFSVERS], s->nfsvers[0] ? s->nfsvers : "-");
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->rsize);
    add_distinct(&v[F_RSIZE], num);
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->wsize);
    add_distinct(&v[F_WSIZE], num);
}

/* Every field of run r as text (plan: its letter among plans[0..np)). */
static void run_fields(const struct run_result *r, struct sb *v, char plan_letter)
{
    char num[64];
    add_distinct(&v[F_TARGET], r->record.target[0] ? r->record.target : "-");
    add_distinct(&v[F_VERSION], r->record.present ? r->record.version : "-");
    snprintf(num, sizeof num, "%u", r->nagents);
    add_distinct(&v[F_AGENTS], num);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct agent_info *ai = &r->agents[a];
        add_distinct(&v[F_HOSTS], ai->host[0] ? ai->host : "?");
        add_distinct(&v[F_KERNEL], ai->sys.known && ai->sys.kernel[0] ? ai->sys.kernel : "?");
        snprintf(num, sizeof num, "%u x %s", ai->ncpus, ai->sys.known && ai->sys.cpu_model[0] ?
                 ai->sys.cpu_model : "?");
        add_distinct(&v[F_CPU], num);
        snprintf(num, sizeof num, "%llu", (unsigned long long)ai->sys.mem_bytes);
        add_distinct(&v[F_MEM], ai->sys.known ? num : "?");
    }
    for (uint32_t p = 0; p < r->nphases; p++)
        for (uint32_t a = 0; a < r->nagents; a++)
            for (uint32_t i = 0; i < r->phases[p].agents[a].nstorage; i++)
                storage_fields(v, &r->phases[p].agents[a].storage[i]);
    snprintf(num, sizeof num, "plan %c", plan_letter);
    add_distinct(&v[F_PLAN], plan_letter ? num : "-");
}

/* Line k (0-based) of text, as a fresh string; NULL past its end. */
static char *plan_line(const char *text, uint32_t k)
{
    const char *p = text, *e;

    for (uint32_t i = 0; i < k && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p || !*p)
        return NULL;
    e = strchr(p, '\n');
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static uint32_t plan_nlines(const char *text)
{
    uint32_t n = 0;

    for (const char *p = text; p && *p; n++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return n;
}

static void diff_add_row(struct record_diff *d, const char *key, char **values)
{
    d->rows = xrealloc(d->rows, (d->nrows + 1) * sizeof *d->rows);
    snprintf(d->rows[d->nrows].key, sizeof d->rows[d->nrows].key, "%s", key);
    d->rows[d->nrows].values = values;
    d->nrows++;
}

/* "plan A" / "plan B" says that the plans differ, not where: when they do,
 * a row per line that differs ("plan line 7": each run's line 7, "-"
 * past a plan's end), so a plan that differs only by an expanded
 * ${VARIABLE} shows that one line.  Lines are compared by position (a
 * variable's value never adds lines); at most RECORD_DIFF_PLAN_LINES rows,
 * then one row counting the rest. */
#define RECORD_DIFF_PLAN_LINES 8
static void plan_line_rows(const struct run_result *const *runs, uint32_t n, struct record_diff *d)
{
    uint32_t most = 0, shown = 0, more = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = runs[i]->record.plan_text ? plan_nlines(runs[i]->record.plan_text) : 0;
        if (!runs[i]->record.plan_text)
            return;                    /* a run without its plan: nothing to line up */
        if (k > most)
            most = k;
    }
    for (uint32_t k = 0; k < most; k++) {
        char **v = xcalloc(n, sizeof *v), key[32];
        int differs = 0;

        for (uint32_t i = 0; i < n; i++) {
            v[i] = plan_line(runs[i]->record.plan_text, k);
            if (!v[i])
                v[i] = xstrdup("-");
            differs |= i > 0 && strcmp(v[i], v[0]) != 0;
        }
        if (differs && shown < RECORD_DIFF_PLAN_LINES) {
            snprintf(key, sizeof key, "plan line %u", k + 1);
            diff_add_row(d, key, v);
            shown++;
            continue;
        }
        more += differs;
        for (uint32_t i = 0; i < n; i++)
            free(v[i]);
        free(v);
    }
    if (more) {
        char **v = xcalloc(n, sizeof *v), text[64];

        snprintf(text, sizeof text, "%u more line%s differ", more, more == 1 ? "" : "s");
        for (uint32_t i = 0; i < n; i++)
            v[i] = xstrdup(text);
        diff_add_row(d, "plan lines", v);
    }
}

int run_record_diff(const struct run_result *const *runs, uint32_t n, struct record_diff *d)
{
    struct sb *v;
    char *letters;
    memset(d, 0, sizeof *d);
    if (n == 0)
        return -EINVAL;
    v = xcalloc((size_t)n * F__COUNT, sizeof *v);
    letters = xcalloc(n, 1);
    /* plans: the same text gets the same letter, in order of appearance */
    for (uint32_t i = 0; i < n; i++) {
        const char *t = runs[i]->record.plan_text;
        char next = 'A';
        if (!t)
            continue;
        for (uint32_t j = 0; j < i && !letters[i]; j++) {
            if (letters[j] >= next)
                next = (char)(letters[j] + 1);
            if (runs[j]->record.plan_text && strcmp(runs[j]->record.plan_text, t) == 0)
                letters[i] = letters[j];
        }
        if (!letters[i])
            letters[i] = next <= 'Z' ? next : 'Z';
    }
    for (uint32_t i = 0; i < n; i++) {
        run_fields(runs[i], &v[(size_t)i * F__COUNT], letters[i]);
        for (int f = 0; f < F__COUNT; f++)
            if (!v[(size_t)i * F__COUNT + f].s)
                v[(size_t)i * F__COUNT + f].s = xstrdup("-");    /* nothing of the kind */
    }
    d->nruns = n;
    for (int f = 0; f < F__COUNT; f++) {
        int differs = 0;
        char **row;
        for (uint32_t i = 1; i < n && !differs; i++)
            differs = strcmp(v[f].s, v[(size_t)i * F__COUNT + f].s) != 0;
        if (!differs)
            continue;
        row = xcalloc(n, sizeof *row);
        for (uint32_t i = 0; i < n; i++) {
            row[i] = v[(size_t)i * F__COUNT + f].s;
            v[(size_t)i * F__COUNT + f].s = NULL;     /* moved */
        }
        diff_add_row(d, fld_name[f], row);
        if (f == F_PLAN)
            plan_line_rows(runs, n, d);
    }
    for (size_t k = 0; k < (size_t)n * F__COUNT; k++)
        free(v[k].s);
    free(v);
    free(letters);
    return 0;
}

void run_record_diff_free(struct record_diff *d)
{
    for (uint32_t k = 0; k < d->nrows; k++) {
        for (uint32_t i = 0; i < d->nruns; i++)
            free(d->rows[k].values[i]);
        free(d->rows[k].values);
    }
    free(d->rows);
    memset(d, 0, sizeof *d);
}

#define DIFF_CELL_MAX 40      /* characters */

/* v cut to DIFF_CELL_MAX characters ("..." at the end when cut), into out;
 * never inside a UTF-8 sequence (a label or target in any script). */
static const char *cell(const char *v, char *out, size_t outlen)
{
    size_t keep = 0;

    if (text_table_width(v) <= DIFF_CELL_MAX)
        return v;
    for (size_t chars = 0; v[keep]; keep++) {
        if (((unsigned char)v[keep] & 0xC0) != 0x80 && chars++ == DIFF_CELL_MAX - 3)
            break;
    }
    snprintf(out, outlen, "%.*s...", (int)keep, v);
    return out;
}

/* "  " and s padded with blanks to w characters (w 0: unpadded). */
static void diff_col(FILE *out, const char *s, int w)
{
    int n = (int)text_table_width(s);

    fprintf(out, "  %s%*s", s, w > n ? w - n : 0, "");
}

/* Where the values of row k first differ (bytes, backed off to a UTF-8
 * character start and a little context): a long value (a plan line, a
 * URL, mount options) is cut from there, so the text view shows the
 * difference, never two equal-looking prefixes. */
static size_t diff_from(const struct record_diff *d, uint32_t k)
{
    size_t at = 0;
    const char *v0 = d->rows[k].values[0];
    int longer = 0;

    for (uint32_t i = 0; i < d->nruns; i++)
        longer |= text_table_width(d->rows[k].values[i]) > DIFF_CELL_MAX;
    if (!longer)
        return 0;
    for (;; at++) {
        int same = v0[at] != '\0';
        for (uint32_t i = 1; i < d->nruns && same; i++)
            same = d->rows[k].values[i][at] == v0[at];   /* a shorter value stops at its NUL */
        if (!same)
            break;
    }
    at = at > 12 ? at - 12 : 0;
    while (at > 0 && ((unsigned char)v0[at] & 0xC0) == 0x80)
        at--;
    return at;
}

/* A cell of row k for run i: cut from diff_from with "..." before it. */
static const char *row_cell(const struct record_diff *d, uint32_t k, uint32_t i, char *out, size_t outlen)
{
    size_t from = diff_from(d, k);
    const char *v = d->rows[k].values[i];
    char *tmp, cut[4 * DIFF_CELL_MAX + 8];

    if (from == 0 || strlen(v) <= from)
        return cell(v, out, outlen);
    tmp = xmalloc(strlen(v + from) + 4);
    snprintf(tmp, strlen(v + from) + 4, "...%s", v + from);
    snprintf(out, outlen, "%s", cell(tmp, cut, sizeof cut));
    free(tmp);
    return out;
}

void run_record_diff_text(FILE *out, const struct record_diff *d, const char *const *labels)
{
    int keyw = 3;
    int *w;
    char buf[4 * DIFF_CELL_MAX + 1];
    if (d->nrows == 0) {
        fprintf(out, "the runs' records agree (target, machines, mounts, plan)\n");
        return;
    }
    w = xcalloc(d->nruns, sizeof *w);
    for (uint32_t k = 0; k < d->nrows; k++)
        if ((int)strlen(d->rows[k].key) > keyw)
            keyw = (int)strlen(d->rows[k].key);
    for (uint32_t i = 0; i < d->nruns; i++) {
        w[i] = (int)text_table_width(labels[i]);
        for (uint32_t k = 0; k < d->nrows; k++) {
            int n = (int)text_table_width(row_cell(d, k, i, buf, sizeof buf));
            if (n > w[i])
                w[i] = n;
        }
    }
    fprintf(out, "what differs between the runs:\n  %-*s", keyw, "");
    for (uint32_t i = 0; i < d->nruns; i++)     /* the last column unpadded: no trailing blanks */
        diff_col(out, labels[i], i + 1 < d->nruns ? w[i] : 0);
    fputc('\n', out);
    for (uint32_t k = 0; k < d->nrows; k++) {
        fprintf(out, "  %-*s", keyw, d->rows[k].key);
        for (uint32_t i = 0; i < d->nruns; i++)
            diff_col(out, row_cell(d, k, i, buf, sizeof buf), i + 1 < d->nruns ? w[i] : 0);
        fputc('\n', out);
    }
    free(w);
}
