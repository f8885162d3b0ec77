/* Plain-text tables and number formats for `scope-likwid show`. */
#include "table.h"

#include "mem.h"

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
    sl_strings_free(t->cells, t->nrows * t->ncols);
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

/* n copies of ch, in runs (a table has tens of thousands of cells: one
 * fprintf or fputc per pad byte cost more than the numbers). */
static void fill(FILE *f, char ch, size_t n)
{
    static const char spaces[] = "                                                                ";
    static const char dashes[] = "----------------------------------------------------------------";
    const char *run = ch == ' ' ? spaces : dashes;
    while (n) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        fwrite(run, 1, k, f);
        n -= k;
    }
}

static void rule(FILE *f, const size_t *width, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        fputc('+', f);
        fill(f, '-', width[c] + 2);
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
                fill(f, ' ', pad);
            } else {
                fill(f, ' ', pad);
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

/* "%lld" of a whole double below 2^53, without snprintf (the tables
 * print one per cell). -0.0 gives "0", as "%lld" does. */
static void fmt_whole(double v, char buf[SL_NUM_BUF])
{
    long long x = (long long)v;
    unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t k = 0;
    if (x < 0)
        buf[k++] = '-';
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
}

const char *sl_fmt_value(double v, char buf[SL_NUM_BUF])
{
    const char *nf = non_finite(v);
    if (nf)
        return nf;
    /* counters are accumulated doubles: whole numbers read best as integers */
    if (fabs(v) < 9007199254740992.0 && v == floor(v))
        fmt_whole(v, buf);
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
        fmt_whole(v, buf);
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
