/* The wire decoder's cursor (wire_cursor.h): lines, tokens and the typed
 * fields the format is made of. The input is hostile: every read is bounded
 * by len, and a count is accepted only when the bytes left can hold it. */
#include "wire_cursor.h"
#include "parse_int.h"

#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Records the first defect only. */
int sl_wc_defect(sl_wc *c, const char *what, const char *expected)
{
    if (!c->err) {
        sl_diag_add(c->diag, c->name, c->lineno, "%s: expected %s", what, expected);
        c->err = -EINVAL;
    }
    return c->err;
}

int sl_wc_nomem(sl_wc *c)
{
    if (!c->err) {
        sl_diag_add(c->diag, c->name, c->lineno, "out of memory: expected less data");
        c->err = -ENOMEM;
    }
    return c->err;
}

/* Moves to the next line; it must end in '\n' (else the input was cut). */
int sl_wc_next_line(sl_wc *c, const char *expected)
{
    if (c->err)
        return c->err;
    c->lineno++;
    if (c->pos >= c->len)
        return sl_wc_defect(c, "truncated (input ends)", expected);
    const char *p = c->buf + c->pos;
    const char *nl = memchr(p, '\n', c->len - c->pos);
    if (!nl)
        return sl_wc_defect(c, "truncated (last line has no newline)", expected);
    c->lp = p;
    c->ln = (size_t)(nl - p);
    c->lo = 0;
    c->pos += c->ln + 1;
    return 0;
}

/* The next blank-separated token of the current line. Tokens hold only
 * 0x21..0x7E and are separated by exactly one blank. */
int sl_wc_token(sl_wc *c, const char **t, size_t *n, const char *expected)
{
    if (c->err)
        return c->err;
    if (c->lo > 0) {
        if (c->lo >= c->ln)
            return sl_wc_defect(c, "line ends early", expected);
        if (c->lp[c->lo] != ' ')
            return sl_wc_defect(c, "bad separator", "one blank");
        c->lo++;
    }
    size_t s = c->lo;
    while (c->lo < c->ln && c->lp[c->lo] != ' ') {
        unsigned char ch = (unsigned char)c->lp[c->lo];
        if (ch < 0x21 || ch > 0x7E)
            return sl_wc_defect(c, "byte outside 0x21..0x7E", "printable ASCII tokens");
        c->lo++;
    }
    if (c->lo == s) {
        if (s == 0 && c->ln == 0)
            return sl_wc_defect(c, "empty line", expected);
        return sl_wc_defect(c, "empty token", expected);
    }
    *t = c->lp + s;
    *n = c->lo - s;
    return 0;
}

int sl_wc_line_done(sl_wc *c)
{
    if (c->err)
        return c->err;
    if (c->lo != c->ln)
        return sl_wc_defect(c, "extra data at end of line", "end of line");
    return 0;
}

int sl_wc_keyword(sl_wc *c, const char *kw)
{
    const char *t;
    size_t n;
    if (sl_wc_next_line(c, kw) || sl_wc_token(c, &t, &n, kw))
        return c->err;
    if (n != strlen(kw) || memcmp(t, kw, n) != 0) {
        char what[96];
        size_t k = n < 40 ? n : 40;
        memcpy(what, "unknown keyword '", 17);
        memcpy(what + 17, t, k);
        memcpy(what + 17 + k, "'", 2);
        char exp[64];
        size_t kl = strlen(kw) < 50 ? strlen(kw) : 50;
        exp[0] = '\'';
        memcpy(exp + 1, kw, kl);
        memcpy(exp + 1 + kl, "'", 2);
        return sl_wc_defect(c, what, exp);
    }
    return 0;
}

int sl_wc_get_i64(sl_wc *c, int64_t *v, const char *expected)
{
    const char *t;
    size_t n;
    if (sl_wc_token(c, &t, &n, expected))
        return c->err;
    size_t i = 0;
    int neg = 0;
    if (t[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n)
        return sl_wc_defect(c, "not a decimal integer", expected);
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return sl_wc_defect(c, "not a decimal integer", expected);
        unsigned d = (unsigned)(t[i] - '0');
        if (u > (lim - d) / 10)
            return sl_wc_defect(c, "integer out of range", expected);
        u = u * 10 + d;
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

/* A count of items that each need at least `per` bytes of what is left. */
int sl_wc_get_count(sl_wc *c, size_t per, size_t *out, const char *expected)
{
    int64_t v;
    if (sl_wc_get_i64(c, &v, expected))
        return c->err;
    if (v < 0)
        return sl_wc_defect(c, "negative count", expected);
    if ((uint64_t)v > sl_wc_remaining(c) / per)
        return sl_wc_defect(c, "count larger than the data that follows", expected);
    *out = (size_t)v;
    return 0;
}

int sl_wc_get_flag(sl_wc *c, int *out, const char *expected)
{
    int64_t v;
    if (sl_wc_get_i64(c, &v, expected))
        return c->err;
    if (v != 0 && v != 1)
        return sl_wc_defect(c, "flag not 0 or 1", expected);
    *out = (int)v;
    return 0;
}

int sl_wc_get_dbl(sl_wc *c, double *d, const char *expected)
{
    const char *t;
    size_t n;
    if (sl_wc_token(c, &t, &n, expected))
        return c->err;
    if (n != 16)
        return sl_wc_defect(c, "not 16 hex digits", expected);
    uint64_t u = 0;
    for (size_t i = 0; i < 16; i++) {
        int h = sl_hex_digit(t[i]);
        if (h < 0 || (t[i] >= 'A' && t[i] <= 'F'))
            return sl_wc_defect(c, "not 16 lower-case hex digits", expected);
        u = (u << 4) | (uint64_t)h;
    }
    memcpy(d, &u, sizeof *d);
    return 0;
}

/* "=<escaped bytes>" -> newly allocated, NUL-terminated; *len without NUL. */
int sl_wc_get_str(sl_wc *c, char **out, size_t *len, const char *expected)
{
    const char *t;
    size_t n;
    *out = NULL;
    if (sl_wc_token(c, &t, &n, expected))
        return c->err;
    if (t[0] != '=')
        return sl_wc_defect(c, "string does not start with '='", expected);
    char *s = malloc(n);    /* the decoded string is shorter than the token */
    if (!s)
        return sl_wc_nomem(c);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (t[i] != '%') {
            s[k++] = t[i];
            continue;
        }
        int hi = i + 2 < n ? sl_hex_digit(t[i + 1]) : -1, lo = i + 2 < n ? sl_hex_digit(t[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(s);
            return sl_wc_defect(c, "bad %XX escape in string", expected);
        }
        int b = hi * 16 + lo;
        if (b == 0) {
            free(s);
            return sl_wc_defect(c, "NUL byte in string", expected);
        }
        s[k++] = (char)b;
        i += 2;
    }
    s[k] = '\0';
    *out = s;
    if (len)
        *len = k;
    return 0;
}

/* Sets a string field from the next token. */
int sl_wc_set_str(sl_wc *c, char **slot, const char *expected)
{
    char *s;
    if (sl_wc_get_str(c, &s, NULL, expected))
        return c->err;
    free(*slot);
    *slot = s;
    return 0;
}

int sl_wc_named_i64(sl_wc *c, const char *kw, int64_t *v)
{
    if (sl_wc_keyword(c, kw) || sl_wc_get_i64(c, v, kw))
        return c->err;
    return sl_wc_line_done(c);
}

int sl_wc_named_str(sl_wc *c, const char *kw, char **slot)
{
    if (sl_wc_keyword(c, kw) || sl_wc_set_str(c, slot, kw))
        return c->err;
    return sl_wc_line_done(c);
}

int sl_wc_get_source(sl_wc *c, sl_source *src, const char *expected)
{
    const char *t;
    size_t n;
    if (sl_wc_token(c, &t, &n, expected))
        return c->err;
    if (sl_source_parse(t, n, src) < 0)
        return sl_wc_defect(c, "unknown source", "none, full_api, marker_file or marker_api");
    return 0;
}

/* One row of T doubles after a keyword. */
int sl_wc_dbl_row(sl_wc *c, double *v, size_t stride, size_t T, const char *what)
{
    for (size_t t = 0; t < T && !c->err; t++)
        sl_wc_get_dbl(c, &v[t * stride], what);
    return c->err;
}

void sl_wc_start(sl_wc *c, const char *buf, size_t len, const char *name, sl_diag *diag)
{
    memset(c, 0, sizeof *c);
    c->buf = buf ? buf : "";
    c->len = buf ? len : 0;
    c->name = name ? name : "(wire)";
    c->diag = diag;
}
