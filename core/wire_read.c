/* Wire format decoder (docs/WIRE.md). The input is hostile: every read is
 * bounded by len, every announced count is checked against the bytes left
 * before anything is allocated for it, and the first defect stops decoding
 * with one "name:line: what: expected what" diagnostic. */
#include "wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cur {
    const char *buf;
    size_t len;
    size_t pos;         /* start of the next line */
    size_t lineno;      /* number of the current line (1-based) */
    const char *name;
    sl_diag *diag;
    int err;            /* first error; later calls are no-ops */
    /* the current line */
    const char *lp;
    size_t ln;
    size_t lo;          /* offset of the next token inside the line */
} cur;

/* Records the first defect only. */
static int defect(cur *c, const char *what, const char *expected)
{
    if (!c->err) {
        sl_diag_add(c->diag, c->name, c->lineno, "%s: expected %s", what, expected);
        c->err = -EINVAL;
    }
    return c->err;
}

static int nomem(cur *c)
{
    if (!c->err) {
        sl_diag_add(c->diag, c->name, c->lineno, "out of memory: expected less data");
        c->err = -ENOMEM;
    }
    return c->err;
}

/* Bytes not yet consumed: the ceiling for any announced count. */
static size_t remaining(const cur *c)
{
    return c->len - c->pos;
}

/* Moves to the next line; it must end in '\n' (else the input was cut). */
static int next_line(cur *c, const char *expected)
{
    if (c->err)
        return c->err;
    c->lineno++;
    if (c->pos >= c->len)
        return defect(c, "truncated (input ends)", expected);
    const char *p = c->buf + c->pos;
    const char *nl = memchr(p, '\n', c->len - c->pos);
    if (!nl)
        return defect(c, "truncated (last line has no newline)", expected);
    c->lp = p;
    c->ln = (size_t)(nl - p);
    c->lo = 0;
    c->pos += c->ln + 1;
    return 0;
}

/* The next blank-separated token of the current line. Tokens hold only
 * 0x21..0x7E and are separated by exactly one blank. */
static int token(cur *c, const char **t, size_t *n, const char *expected)
{
    if (c->err)
        return c->err;
    if (c->lo > 0) {
        if (c->lo >= c->ln)
            return defect(c, "line ends early", expected);
        if (c->lp[c->lo] != ' ')
            return defect(c, "bad separator", "one blank");
        c->lo++;
    }
    size_t s = c->lo;
    while (c->lo < c->ln && c->lp[c->lo] != ' ') {
        unsigned char ch = (unsigned char)c->lp[c->lo];
        if (ch < 0x21 || ch > 0x7E)
            return defect(c, "byte outside 0x21..0x7E", "printable ASCII tokens");
        c->lo++;
    }
    if (c->lo == s) {
        if (s == 0 && c->ln == 0)
            return defect(c, "empty line", expected);
        return defect(c, "empty token", expected);
    }
    *t = c->lp + s;
    *n = c->lo - s;
    return 0;
}

static int line_done(cur *c)
{
    if (c->err)
        return c->err;
    if (c->lo != c->ln)
        return defect(c, "extra data at end of line", "end of line");
    return 0;
}

static int keyword(cur *c, const char *kw)
{
    const char *t;
    size_t n;
    if (next_line(c, kw) || token(c, &t, &n, kw))
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
        return defect(c, what, exp);
    }
    return 0;
}

static int get_i64(cur *c, int64_t *v, const char *expected)
{
    const char *t;
    size_t n;
    if (token(c, &t, &n, expected))
        return c->err;
    size_t i = 0;
    int neg = 0;
    if (t[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n)
        return defect(c, "not a decimal integer", expected);
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return defect(c, "not a decimal integer", expected);
        unsigned d = (unsigned)(t[i] - '0');
        if (u > (lim - d) / 10)
            return defect(c, "integer out of range", expected);
        u = u * 10 + d;
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

/* A count of items that each need at least `per` bytes of what is left. */
static int get_count(cur *c, size_t per, size_t *out, const char *expected)
{
    int64_t v;
    if (get_i64(c, &v, expected))
        return c->err;
    if (v < 0)
        return defect(c, "negative count", expected);
    if ((uint64_t)v > remaining(c) / per)
        return defect(c, "count larger than the data that follows", expected);
    *out = (size_t)v;
    return 0;
}

static int get_flag(cur *c, int *out, const char *expected)
{
    int64_t v;
    if (get_i64(c, &v, expected))
        return c->err;
    if (v != 0 && v != 1)
        return defect(c, "flag not 0 or 1", expected);
    *out = (int)v;
    return 0;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static int get_dbl(cur *c, double *d, const char *expected)
{
    const char *t;
    size_t n;
    if (token(c, &t, &n, expected))
        return c->err;
    if (n != 16)
        return defect(c, "not 16 hex digits", expected);
    uint64_t u = 0;
    for (size_t i = 0; i < 16; i++) {
        int h = hexval(t[i]);
        if (h < 0 || (t[i] >= 'A' && t[i] <= 'F'))
            return defect(c, "not 16 lower-case hex digits", expected);
        u = (u << 4) | (uint64_t)h;
    }
    memcpy(d, &u, sizeof *d);
    return 0;
}

/* "=<escaped bytes>" -> newly allocated, NUL-terminated; *len without NUL. */
static int get_str(cur *c, char **out, size_t *len, const char *expected)
{
    const char *t;
    size_t n;
    *out = NULL;
    if (token(c, &t, &n, expected))
        return c->err;
    if (t[0] != '=')
        return defect(c, "string does not start with '='", expected);
    char *s = malloc(n);    /* the decoded string is shorter than the token */
    if (!s)
        return nomem(c);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (t[i] != '%') {
            s[k++] = t[i];
            continue;
        }
        int hi = i + 2 < n ? hexval(t[i + 1]) : -1, lo = i + 2 < n ? hexval(t[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(s);
            return defect(c, "bad %XX escape in string", expected);
        }
        int b = hi * 16 + lo;
        if (b == 0) {
            free(s);
            return defect(c, "NUL byte in string", expected);
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
static int set_str(cur *c, char **slot, const char *expected)
{
    char *s;
    if (get_str(c, &s, NULL, expected))
        return c->err;
    free(*slot);
    *slot = s;
    return 0;
}

static int named_i64(cur *c, const char *kw, int64_t *v)
{
    if (keyword(c, kw) || get_i64(c, v, kw))
        return c->err;
    return line_done(c);
}

static int named_str(cur *c, const char *kw, char **slot)
{
    if (keyword(c, kw) || set_str(c, slot, kw))
        return c->err;
    return line_done(c);
}

static int get_source(cur *c, sl_source *src, const char *expected)
{
    const char *t;
    size_t n;
    if (token(c, &t, &n, expected))
        return c->err;
    if (sl_source_parse(t, n, src) < 0)
        return defect(c, "unknown source", "none, full_api, marker_file or marker_api");
    return 0;
}

/* One row of T doubles after a keyword. */
static int dbl_row(cur *c, double *v, size_t stride, size_t T, const char *what)
{
    for (size_t t = 0; t < T && !c->err; t++)
        get_dbl(c, &v[t * stride], what);
    return c->err;
}

static int region(cur *c, sl_likwid *lw)
{
    char *tag = NULL, *group = NULL;
    size_t tag_len = 0, T = 0, E = 0, M = 0;
    int64_t gid = 0;
    int has_names = 0;
    sl_source src = SL_SOURCE_NONE;
    if (keyword(c, "region") || get_str(c, &tag, &tag_len, "region tag") ||
        get_i64(c, &gid, "group id") || get_str(c, &group, NULL, "group name") ||
        get_source(c, &src, "region source") ||
        get_count(c, 2, &T, "number of threads") || get_count(c, 2, &E, "number of events") ||
        get_count(c, 2, &M, "number of metrics") || get_flag(c, &has_names, "has_names flag") ||
        line_done(c)) {
        free(tag);
        free(group);
        return c->err;
    }
    /* every event/metric line carries T values of 17 bytes */
    size_t rem = remaining(c) / 17;
    if ((E && T > rem / E) || (M && T > rem / M)) {
        free(tag);
        free(group);
        return defect(c, "events x threads larger than the data that follows",
                      "fewer events, metrics or threads");
    }
    sl_region *r = sl_likwid_add(lw, tag, tag_len, gid, group, src, T, E, M, has_names);
    free(tag);
    free(group);
    if (!r)
        return nomem(c);
    if (keyword(c, "cpus"))
        return c->err;
    for (size_t t = 0; t < T && !c->err; t++)
        get_i64(c, &r->cpus[t], "cpu number");
    if (line_done(c) || keyword(c, "times") || dbl_row(c, r->times, 1, T, "time") ||
        line_done(c) || keyword(c, "counts"))
        return c->err;
    for (size_t t = 0; t < T && !c->err; t++)
        get_i64(c, &r->call_counts[t], "call count");
    if (line_done(c))
        return c->err;
    for (size_t e = 0; e < E; e++) {
        char *en = NULL, *cn = NULL;
        if (keyword(c, "event") || get_str(c, &en, NULL, "event name") ||
            get_str(c, &cn, NULL, "counter name")) {
            free(en);
            return c->err;
        }
        if (has_names) {
            free(r->event_names[e]);
            r->event_names[e] = en;
            free(r->counter_names[e]);
            r->counter_names[e] = cn;
        } else {
            int named = en[0] || cn[0];
            free(en);
            free(cn);
            if (named)
                return defect(c, "event name in a region without names", "'= =' (has_names 0)");
        }
        if (dbl_row(c, r->events + e * T, 1, T, "event value") || line_done(c))
            return c->err;
    }
    for (size_t m = 0; m < M; m++) {
        if (keyword(c, "metric") || set_str(c, &r->metric_names[m], "metric name") ||
            dbl_row(c, r->metrics + m * T, 1, T, "metric value") || line_done(c))
            return c->err;
    }
    return 0;
}

static int likwid_part(cur *c, sl_likwid *lw)
{
    size_t n = 0;
    if (keyword(c, "likwid") || get_source(c, &lw->source, "likwid source") ||
        get_count(c, 2, &n, "number of regions") || line_done(c))
        return c->err;
    for (size_t i = 0; i < n && !c->err; i++)
        region(c, lw);
    return c->err;
}

static int tregion(cur *c, sl_timing *tm)
{
    char *tag = NULL;
    size_t tag_len = 0, T = 0, C = 0;
    int64_t dropped = 0, open = 0, unmatched = 0, nested = 0;
    if (keyword(c, "tregion") || get_str(c, &tag, &tag_len, "timing region tag") ||
        get_i64(c, &dropped, "dropped calls") || get_i64(c, &open, "open at close") ||
        get_i64(c, &unmatched, "unmatched stops") || get_i64(c, &nested, "nested starts") ||
        get_count(c, 17, &T, "number of threads") || get_count(c, 12, &C, "number of calls") ||
        line_done(c)) {
        free(tag);
        return c->err;
    }
    /* a thread line is at least 17 bytes, a call line at least 12 */
    if (T > remaining(c) / 17 || C > (remaining(c) - T * 17) / 12) {
        free(tag);
        return defect(c, "threads and calls larger than the data that follows",
                      "fewer threads or calls");
    }
    sl_timing_region *r = sl_timing_add(tm, tag, tag_len, T, C);
    free(tag);
    if (!r)
        return nomem(c);
    r->dropped_calls = dropped;
    r->open_at_close = open;
    r->unmatched_stops = unmatched;
    r->nested_starts = nested;
    for (size_t t = 0; t < T; t++) {
        if (keyword(c, "thread") || get_i64(c, &r->threads[t], "thread id") ||
            get_i64(c, &r->call_counts[t], "call count") ||
            get_i64(c, &r->total_ns[t], "total ns") || get_i64(c, &r->min_ns[t], "min ns") ||
            get_i64(c, &r->max_ns[t], "max ns") || line_done(c))
            return c->err;
    }
    for (size_t k = 0; k < C; k++) {
        if (keyword(c, "call") || get_i64(c, &r->call_threads[k], "call thread") ||
            get_i64(c, &r->start_times[k], "start time") ||
            get_i64(c, &r->end_times[k], "end time") || line_done(c))
            return c->err;
    }
    return 0;
}

static int timing_part(cur *c, sl_timing *tm)
{
    size_t n = 0;
    if (keyword(c, "timing") || set_str(c, &tm->clock, "clock name") ||
        get_i64(c, &tm->origin_unix_ns, "origin_unix_ns") ||
        get_count(c, 2, &n, "number of timing regions") || line_done(c))
        return c->err;
    for (size_t i = 0; i < n && !c->err; i++)
        tregion(c, tm);
    return c->err;
}

static int head(cur *c, const char *kind)
{
    if (next_line(c, "'" SL_WIRE_MAGIC "'"))
        return c->err;
    if (c->ln != strlen(SL_WIRE_MAGIC) || memcmp(c->lp, SL_WIRE_MAGIC, c->ln) != 0)
        return defect(c, "not a scope-likwid wire file", "'" SL_WIRE_MAGIC "'");
    const char *t;
    size_t n;
    if (keyword(c, "kind") || token(c, &t, &n, "kind"))
        return c->err;
    if (n != strlen(kind) || memcmp(t, kind, n) != 0)
        return defect(c, "wrong kind", strcmp(kind, "run") == 0 ? "'kind run'" : "'kind likwid'");
    return line_done(c);
}

static int tail(cur *c)
{
    size_t before = c->lineno;
    int64_t v;
    if (keyword(c, "end") || get_i64(c, &v, "line count") || line_done(c))
        return c->err;
    if (v < 0 || (uint64_t)v != before)
        return defect(c, "truncated (line count in 'end' does not match)",
                      "the number of lines before 'end'");
    if (c->pos != c->len)
        return defect(c, "data after 'end'", "end of input");
    return 0;
}

static void start(cur *c, const char *buf, size_t len, const char *name, sl_diag *diag)
{
    memset(c, 0, sizeof *c);
    c->buf = buf ? buf : "";
    c->len = buf ? len : 0;
    c->name = name ? name : "(wire)";
    c->diag = diag;
}

int sl_wire_read_run(const char *buf, size_t len, const char *name, sl_run *run, sl_diag *diag)
{
    cur c;
    start(&c, buf, len, name, diag);
    if (head(&c, "run") || named_i64(&c, "rank", &run->rank) ||
        named_i64(&c, "mpi_rank", &run->mpi_rank) || named_i64(&c, "pid", &run->pid) ||
        named_str(&c, "hostname", &run->hostname) ||
        named_str(&c, "executable", &run->executable) ||
        named_str(&c, "command_line", &run->command_line) ||
        named_str(&c, "likwid_status", &run->likwid_status))
        return c.err;
    size_t nenv = 0;
    if (keyword(&c, "env") || get_count(&c, 2, &nenv, "number of variables") || line_done(&c))
        return c.err;
    for (size_t i = 0; i < nenv; i++) {
        char *n = NULL, *v = NULL;
        if (keyword(&c, "var") || get_str(&c, &n, NULL, "variable name") ||
            get_str(&c, &v, NULL, "variable value") || line_done(&c)) {
            free(n);
            free(v);
            return c.err;
        }
        int r = sl_run_add_env(run, n, v);
        free(n);
        free(v);
        if (r < 0)
            return nomem(&c);
    }
    if (timing_part(&c, &run->timing) || likwid_part(&c, &run->likwid))
        return c.err;
    return tail(&c);
}

int sl_wire_read_likwid(const char *buf, size_t len, const char *name, sl_likwid *lw,
                        sl_diag *diag)
{
    cur c;
    start(&c, buf, len, name, diag);
    if (head(&c, "likwid") || likwid_part(&c, lw))
        return c.err;
    return tail(&c);
}

int sl_wire_is_wire(const char *buf, size_t len)
{
    size_t n = strlen(SL_WIRE_MAGIC);
    return buf && len > n && memcmp(buf, SL_WIRE_MAGIC, n) == 0 && buf[n] == '\n';
}
