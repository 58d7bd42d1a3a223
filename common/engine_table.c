/* engine_table: the rows of ENGINE_TABLE as data, and the parser's view
 * of fio's engine spellings (see engine_table.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/engine_table.h"
#include "common/names.h"
#include "common/plan_parse.h"
#include "common/stats.h"
#include "common/why.h"

#define ROW(name, aliases, target, flags, ops) { name, aliases, target, flags },
static const struct engine_desc rows[] = { ENGINE_TABLE(ROW) };
#undef ROW
#define NROWS (sizeof rows / sizeof rows[0])

/* fio's metadata engines: each "I/O" is one operation on one of the job's
 * nrfiles files.  fio lays the files out before filestat and filedelete
 * run, so here the job creates them first (counted as ops.create). */
static const struct {
    const char *name;
    uint32_t nops;
    uint32_t ops[2];
    int empty;                 /* fio's filecreate writes nothing */
} md_engines[] = {
    { "filecreate", 1, { OP_CREATE }, 1 },
    { "filestat", 2, { OP_CREATE, OP_STAT }, 0 },
    { "filedelete", 2, { OP_CREATE, OP_UNLINK }, 0 },
};

/* fio engines with no nfstorm equivalent, and where to go instead. */
static const struct {
    const char *name;
    const char *instead;
} refused[] = {
    { "windowsaio", "libaio or io_uring" },
    { "solarisaio", "libaio or io_uring" },
    { "mmap", "psync" },
    { "splice", "psync" },
};

const struct engine_desc *engine_table_find(const char *name)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

const char *engine_table_names(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NROWS && o < len; i++) {
        int n = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", rows[i].name);
        if (n < 0)
            break;
        o += (size_t)n;
        if (rows[i].aliases[0] && o < len) {
            /* "sync pvsync" -> " (sync, pvsync)" */
            for (const char *p = rows[i].aliases; *p && o < len;) {
                size_t w = strcspn(p, " ");
                n = snprintf(buf + o, len - o, "%s%.*s", p == rows[i].aliases ? " (" : ", ", (int)w, p);
                o += (size_t)(n > 0 ? n : 0);
                p += w;
                p += strspn(p, " ");
            }
            if (o < len)
                o += (size_t)snprintf(buf + o, len - o, ")");
        }
    }
    return buf;
}

const char *engine_table_url_names(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NROWS && o < len; i++)
        if (rows[i].target == ENGINE_URL) {
            int n = snprintf(buf + o, len - o, "%s%s", o ? " or " : "", rows[i].name);
            o += (size_t)(n > 0 ? n : 0);
        }
    return buf;
}

int engine_table_parse(const char *value, char *out, size_t cap, char *why, size_t whylen)
{
    char names[256];

    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(value, rows[i].name) == 0 || names_list_has(rows[i].aliases, ' ', value, strlen(value))) {
            snprintf(out, cap, "%s", rows[i].name);
            return 0;
        }
    for (size_t i = 0; i < sizeof md_engines / sizeof md_engines[0]; i++)
        if (strcmp(value, md_engines[i].name) == 0) {
            snprintf(out, cap, "%s", md_engines[i].name);
            return 0;
        }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (strcmp(value, refused[i].name) == 0)
            return why_fail(why, whylen, "fio's %s engine is not implemented by nfstorm; use %s",
                            value, refused[i].instead);
    return why_fail(why, whylen, "nfstorm's engines are %s; and fio's filecreate, filestat, filedelete",
                    engine_table_names(names, sizeof names));
}

int engine_table_fold_md(struct job_spec *j)
{
    for (size_t i = 0; i < sizeof md_engines / sizeof md_engines[0]; i++) {
        if (strcmp(j->ioengine, md_engines[i].name) != 0)
            continue;
        if (j->n_md_ops)
            return -EINVAL;
        j->rw = RW_METADATA;
        j->n_md_ops = md_engines[i].nops;
        memcpy(j->md_ops, md_engines[i].ops, md_engines[i].nops * sizeof j->md_ops[0]);
        if (md_engines[i].empty)
            j->filesize = 0;
        for (size_t r = 0; r < NROWS; r++)
            if ((rows[r].flags & ENGINE_F_MD) &&
                (j->nfs_url[0] ? rows[r].target == ENGINE_URL : rows[r].target == ENGINE_PATH)) {
                snprintf(j->ioengine, sizeof j->ioengine, "%s", rows[r].name);
                break;
            }
        return 1;
    }
    return 0;
}

int engine_table_takes_url(const char *name)
{
    const struct engine_desc *d = engine_table_find(name);
    return d && d->target == ENGINE_URL;
}

int engine_table_local(const char *name)
{
    const struct engine_desc *d = engine_table_find(name);
    return !d || d->target == ENGINE_PATH;
}

int engine_table_has_files(const char *name)
{
    const struct engine_desc *d = engine_table_find(name);
    return !d || d->target != ENGINE_NONE;
}

const char *engine_table_allow_flag(const char *name)
{
    return engine_table_takes_url(name) ? "--allow-nfs" : "--allow";
}
