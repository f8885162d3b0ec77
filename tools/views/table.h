/* Internal header: not installed. Plain-text tables in likwid-perfctr's
 * style (+----+ borders, | separators) and the number formats the
 * `show` command shares between its table, CSV and JSON output. */
#ifndef SL_TABLE_H
#define SL_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sl_table {
    size_t ncols;
    size_t nrows;
    size_t cap;
    size_t *cells;      /* nrows * ncols, row-major: 1 + the offset of the
                         * cell's text in text; 0 (empty) prints as "-" */
    char *text;         /* the cells' texts, each NUL-terminated, one after
                         * another (one allocation, not one per cell) */
    size_t text_len, text_cap;
} sl_table;

void sl_table_init(sl_table *t, size_t ncols);
void sl_table_free(sl_table *t);
/* Appends a row of empty (NULL) cells; returns its index or -ENOMEM. */
long sl_table_add_row(sl_table *t);
/* Sets a copy of s (NULL leaves the cell empty). 0 or -ENOMEM. */
int sl_table_set(sl_table *t, size_t row, size_t col, const char *s);
int sl_table_setf(sl_table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prints the table; the first header_rows rows are set off by a rule.
 * Column 0 is left-aligned, the others right-aligned. 0, or -ENOMEM when
 * a line could not be put together (the lines before it are printed). */
int sl_table_print(FILE *f, const sl_table *t, size_t header_rows);

/* Buffer big enough for any of the number formats below. */
#define SL_NUM_BUF 40

/* "%lld" without snprintf (the tables and exports print one per cell). */
const char *sl_fmt_int(long long x, char buf[SL_NUM_BUF]);
/* A counter value for people: integral values below 2^53 as integers,
 * others "%.6g"; "nan", "inf", "-inf" as such. */
const char *sl_fmt_value(double v, char buf[SL_NUM_BUF]);
/* Exact: integral values below 2^53 as integers, others the shortest
 * "%.*g" that reads back as exactly v; "nan", "inf", "-inf" as such. */
const char *sl_fmt_exact(double v, char buf[SL_NUM_BUF]);

#endif
