/* Plain-text tables and number formats for `scope-likwid show`. */
#include "table.h"

#include "vec.h"

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
    free(t->cells);
    free(t->text);
    memset(t, 0, sizeof *t);
}

long sl_table_add_row(sl_table *t)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        size_t *grown = realloc(t->cells, cap * t->ncols * sizeof *grown);
        if (!grown && t->ncols)
            return -ENOMEM;
        t->cells = grown;
        t->cap = cap;
    }
    memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof *t->cells);
    return (long)t->nrows++;
}

/* A cell set twice keeps its first text in t->text, unused: cells are set
 * once or twice, and a table lives for one print. */
int sl_table_set(sl_table *t, size_t row, size_t col, const char *s)
{
    size_t *slot = &t->cells[row * t->ncols + col];
    if (!s) {
        *slot = 0;
        return 0;
    }
    size_t len = strlen(s) + 1;
    if (SL_VEC_RESERVE(t->text, t->text_cap, t->text_len, len) < 0)
        return -ENOMEM;
    memcpy(t->text + t->text_len, s, len);
    *slot = t->text_len + 1;
    t->text_len += len;
    return 0;
}

/* The text of a cell, "-" when it is empty. */
static const char *cell_text(const sl_table *t, size_t r, size_t c)
{
    size_t at = t->cells[r * t->ncols + c];
    return at ? t->text + at - 1 : "-";
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

/* A table has tens of thousands of cells: each line is put together in
 * one buffer and written with one fwrite (a stdio call per cell or per
 * pad run cost more than the numbers). */
struct line {
    char *buf;
    size_t len, cap;
};

/* Room for n more bytes at the line's end, counted as used; NULL when
 * there is no memory. */
static char *grow(struct line *l, size_t n)
{
    if (SL_VEC_RESERVE(l->buf, l->cap, l->len, n) < 0)
        return NULL;
    l->len += n;
    return l->buf + l->len - n;
}

static int put(struct line *l, const char *s, size_t n)
{
    char *at = grow(l, n);
    return at ? (memcpy(at, s, n), 0) : -ENOMEM;
}

static int fill(struct line *l, char ch, size_t n)
{
    char *at = grow(l, n);
    return at ? (memset(at, ch, n), 0) : -ENOMEM;
}

static int rule(struct line *l, const size_t *width, size_t ncols)
{
    int rc = 0;
    for (size_t c = 0; c < ncols && !rc; c++)
        rc = put(l, "+", 1) ? -ENOMEM : fill(l, '-', width[c] + 2);
    return rc ? rc : put(l, "+\n", 2);
}

/* Writes the line and empties it; a line that could not be put together
 * is not written (the table ends there, never garbled, and the caller is
 * told). */
static int flush(FILE *f, struct line *l, int rc)
{
    if (!rc)
        fwrite(l->buf, 1, l->len, f);
    l->len = 0;
    return rc;
}

int sl_table_print(FILE *f, const sl_table *t, size_t header_rows)
{
    if (!t->ncols)
        return 0;
    size_t *width = calloc(t->ncols, sizeof *width);
    if (!width)
        return -ENOMEM;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            size_t w = text_width(cell_text(t, r, c));
            if (w > width[c])
                width[c] = w;
        }
    struct line l = {0};
    int rc = flush(f, &l, rule(&l, width, t->ncols));
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        for (size_t c = 0; c < t->ncols && !rc; c++) {
            const char *s = cell_text(t, r, c);
            size_t len = strlen(s), pad = width[c] - text_width(s);
            rc = put(&l, "| ", 2);
            if (!rc && c == 0)
                rc = put(&l, s, len) ? -ENOMEM : fill(&l, ' ', pad);
            else if (!rc)
                rc = fill(&l, ' ', pad) ? -ENOMEM : put(&l, s, len);
            if (!rc)
                rc = put(&l, " ", 1);
        }
        if (!rc)
            rc = put(&l, "|\n", 2);
        if (!rc && r + 1 == header_rows)
            rc = rule(&l, width, t->ncols);
        rc = flush(f, &l, rc);
    }
    if (t->nrows && !rc)
        rc = flush(f, &l, rule(&l, width, t->ncols));
    free(l.buf);
    free(width);
    return rc;
}

static const char *non_finite(double v)
{
    if (isnan(v))
        return "nan";
    if (isinf(v))
        return v < 0 ? "-inf" : "inf";
    return NULL;
}

const char *sl_fmt_int(long long x, char buf[SL_NUM_BUF])
{
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
    return buf;
}

/* The text of a value that is not finite, or of a whole number a double
 * holds exactly (below 2^53) as an integer; NULL for any other. */
static const char *special_or_whole(double v, char buf[SL_NUM_BUF])
{
    const char *nf = non_finite(v);
    if (nf)
        return nf;
    if (fabs(v) < 9007199254740992.0 && v == floor(v))
        return sl_fmt_int((long long)v, buf); /* -0.0 gives "0", as "%lld" does */
    return NULL;
}

const char *sl_fmt_value(double v, char buf[SL_NUM_BUF])
{
    /* counters are accumulated doubles: whole numbers read best as integers */
    const char *s = special_or_whole(v, buf);
    if (s)
        return s;
    snprintf(buf, SL_NUM_BUF, "%.6g", v);
    return buf;
}

const char *sl_fmt_exact(double v, char buf[SL_NUM_BUF])
{
    const char *s = special_or_whole(v, buf);
    if (s)
        return s;
    for (int prec = 1; prec < 17; prec++) {
        snprintf(buf, SL_NUM_BUF, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, SL_NUM_BUF, "%.17g", v);
    return buf;
}
