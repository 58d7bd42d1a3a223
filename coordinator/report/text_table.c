/* text_table: aligned columns for the compare reports (see text_table.h).
 *
 * Design: cells are collected first and printed once every width is known,
 * so no column width is guessed in advance (the old compare padded to a
 * fixed 12 and broke on long labels and values). */
#include "coordinator/report/text_table.h"

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

void text_table_init(struct text_table *t, uint32_t ncols)
{
    memset(t, 0, sizeof(*t));
    t->ncols = ncols ? ncols : 1;
}

void text_table_free(struct text_table *t)
{
    for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++)
        free(t->cell[i]);
    free(t->cell);
    memset(t, 0, sizeof(*t));
}

uint32_t text_table_row(struct text_table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cell = xrealloc(t->cell, (size_t)t->cap * t->ncols * sizeof(*t->cell));
    }
    memset(&t->cell[(size_t)t->nrows * t->ncols], 0, t->ncols * sizeof(*t->cell));
    return t->nrows++;
}

void text_table_set(struct text_table *t, uint32_t row, uint32_t col, const char *s)
{
    char **c;

    if (row >= t->nrows || col >= t->ncols)
        return;
    c = &t->cell[(size_t)row * t->ncols + col];
    free(*c);
    *c = s ? xstrdup(s) : NULL;
}

size_t text_table_width(const char *s)
{
    size_t n = 0;

    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static const char *cell(const struct text_table *t, uint32_t r, uint32_t c)
{
    const char *s = t->cell[(size_t)r * t->ncols + c];
    return s ? s : "";
}

/* Markdown punctuation a cell escapes with a backslash: '|' would end the
 * cell; '<' '>' would open raw HTML (a target "<img onerror=...>" runs in
 * a renderer that allows HTML), '[' ']' a link, '`' '*' '_' code or
 * emphasis; '\\' itself so that the escapes stay escapes. */
static int md_special(char c)
{
    return c && strchr("|\\<>[]`*_", c) != NULL;
}

/* A Markdown cell's printed width: each escaped character takes two. */
static size_t md_width(const char *s)
{
    size_t n = text_table_width(s);

    for (; *s; s++)
        n += md_special(*s);
    return n;
}

static size_t *widths(const struct text_table *t, int md)
{
    size_t *w = xcalloc(t->ncols, sizeof(*w));

    for (uint32_t r = 0; r < t->nrows; r++)
        for (uint32_t c = 0; c < t->ncols; c++) {
            size_t n = md ? md_width(cell(t, r, c)) : text_table_width(cell(t, r, c));
            if (n > w[c])
                w[c] = n;
        }
    return w;
}

void text_table_print(FILE *out, const struct text_table *t, const char *indent)
{
    size_t *w = widths(t, 0);

    for (uint32_t r = 0; r < t->nrows; r++) {
        uint32_t last = 0;

        for (uint32_t c = 0; c < t->ncols; c++)
            if (*cell(t, r, c))
                last = c;
        fputs(indent, out);
        for (uint32_t c = 0; c <= last; c++) {
            const char *s = cell(t, r, c);

            fputs(s, out);
            if (c < last)
                fprintf(out, "%*s", (int)(w[c] - text_table_width(s) + 2), "");
        }
        fputc('\n', out);
    }
    free(w);
}

void text_table_md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (md_special(*s))
            fputc('\\', out);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);   /* a line break would end the row */
    }
}

static void md_cell(FILE *out, const char *s, size_t w)
{
    size_t n = md_width(s);

    text_table_md_text(out, s);
    fprintf(out, "%*s", (int)(w > n ? w - n : 0), "");
}

void text_table_print_md(FILE *out, const struct text_table *t)
{
    size_t *w = widths(t, 1);

    for (uint32_t c = 0; c < t->ncols; c++)
        if (w[c] < 3)
            w[c] = 3;
    for (uint32_t r = 0; r < t->nrows; r++) {
        fputs("|", out);
        for (uint32_t c = 0; c < t->ncols; c++) {
            fputc(' ', out);
            md_cell(out, cell(t, r, c), w[c]);
            fputs(" |", out);
        }
        fputc('\n', out);
        if (r == 0) {
            fputs("|", out);
            for (uint32_t c = 0; c < t->ncols; c++) {
                fputc(' ', out);
                for (size_t k = 0; k < w[c]; k++)
                    fputc('-', out);
                fputs(" |", out);
            }
            fputc('\n', out);
        }
    }
    free(w);
}
