/* text_table: a grid of cells printed with every column as wide as its
 * widest cell, as plain text (left-aligned, two spaces between columns)
 * or as a Markdown pipe table.  Widths are display columns (UTF-8 aware:
 * "±" counts one), so columns line up whatever the labels and numbers. */
#ifndef NFSTORM_TEXT_TABLE_H
#define NFSTORM_TEXT_TABLE_H

#include <stdint.h>
#include <stdio.h>

struct text_table {
    uint32_t ncols, nrows, cap;
    char **cell;                /* [nrows * ncols], owned; NULL = empty */
};

void text_table_init(struct text_table *t, uint32_t ncols);
void text_table_free(struct text_table *t);
/* Append an empty row; its index. */
uint32_t text_table_row(struct text_table *t);
/* Set cell (row, col) of an existing row to a copy of s (col < ncols). */
void text_table_set(struct text_table *t, uint32_t row, uint32_t col, const char *s);
/* Display width of s: UTF-8 code points. */
size_t text_table_width(const char *s);
/* s as Markdown text: punctuation Markdown would interpret (| \\ < > [ ]
 * ` * _) backslash-escaped, so it is shown as typed; line breaks made
 * blanks. */
void text_table_md_text(FILE *out, const char *s);
/* Plain: each line is indent, then cells padded to their column's width,
 * two spaces apart, no trailing spaces.  Row 0 is printed like the rest. */
void text_table_print(FILE *out, const struct text_table *t, const char *indent);
/* Markdown: row 0 is the header, then the |---| line, then the rest;
 * '|' in a cell is escaped. */
void text_table_print_md(FILE *out, const struct text_table *t);

#endif
