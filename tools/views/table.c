/* Plain-text tables and number formats for `scope-likwid show`. */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sl_table_init(sl_table *t, size_t ncols)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
}

void sl_table_free(sl_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

long sl_table_add_row(sl_table *t)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **grown = realloc(t->cells, cap * t->ncols * sizeof *grown);
        if (!grown && t->ncols)
            return -ENOMEM;
        t->cells = grown;
        t->cap = cap;
    }
    memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof *t->cells);
    return (long)t->nrows++;
}

int sl_table_set(sl_table *t, size_t row, size_t col, const char *s)
{
    char **slot = &t->cells[row * t->ncols + col];
    char *copy = NULL;
    if (s && !(copy = strdup(s)))
        return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 0;
}

int sl_table_setf(sl_table *t, size_t row, size_t col, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sl_table_set(t, row, col, buf);
}

/* Columns are as wide as their text looks: count UTF-8 characters, not bytes. */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

static void rule(FILE *f, const size_t *width, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        fputc('+', f);
        for (size_t i = 0; i < width[c] + 2; i++)
            fputc('-', f);
    }
    fputs("+\n", f);
}

void sl_table_print(FILE *f, const sl_table *t, size_t header_rows)
{
    if (!t->ncols)
        return;
    size_t *width = calloc(t->ncols, sizeof *width);
    if (!width)
        return;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            size_t w = text_width(s ? s : "-");
            if (w > width[c])
                width[c] = w;
        }
    rule(f, width, t->ncols);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (!s)
                s = "-";
            size_t pad = width[c] - text_width(s);
            fputs("| ", f);
            if (c == 0) {
                fputs(s, f);
                fprintf(f, "%*s", (int)pad, "");
            } else {
                fprintf(f, "%*s", (int)pad, "");
                fputs(s, f);
            }
            fputc(' ', f);
        }
        fputs("|\n", f);
        if (r + 1 == header_rows)
            rule(f, width, t->ncols);
    }
    if (t->nrows)
        rule(f, width, t->ncols);
    free(width);
}

static const char *non_finite(double v)
{
    if (isnan(v))
        return "nan";
    if (isinf(v))
        return v < 0 ? "-inf" : "inf";
    return NULL;
}

const char *sl_fmt_value(double v, char buf[SL_NUM_BUF])
{
    const char *nf = non_finite(v);
    if (nf)
        return nf;
    /* counters are accumulated doubles: whole numbers read best as integers */
    if (fabs(v) < 9007199254740992.0 && v == floor(v))
        snprintf(buf, SL_NUM_BUF, "%lld", (long long)v);
    else
        snprintf(buf, SL_NUM_BUF, "%.6g", v);
    return buf;
}

const char *sl_fmt_exact(double v, char buf[SL_NUM_BUF])
{
    const char *nf = non_finite(v);
    if (nf)
        return nf;
    if (fabs(v) < 9007199254740992.0 && v == floor(v)) {
        snprintf(buf, SL_NUM_BUF, "%lld", (long long)v);
        return buf;
    }
    for (int prec = 1; prec < 17; prec++) {
        snprintf(buf, SL_NUM_BUF, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, SL_NUM_BUF, "%.17g", v);
    return buf;
}
