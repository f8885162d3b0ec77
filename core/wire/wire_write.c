/* Wire format encoder (docs/WIRE.md). Runs inside the application at Close
 * (through the shim), so it uses write(2) on a fixed buffer only: no stdio,
 * no locale, no allocation. */
#include "wire.h"
#include "field_names.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

typedef struct wbuf {
    int fd;
    int err;        /* first write error (negative errno), then everything is a no-op */
    size_t n;
    size_t lines;   /* complete lines written, for the final "end" line */
    char b[2048];   /* small: the caller may be any application thread, on a small stack */
} wbuf;

static void flush(wbuf *w)
{
    size_t off = 0;
    while (!w->err && off < w->n) {
        ssize_t r = write(w->fd, w->b + off, w->n - off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            w->err = -errno;
        } else if (r == 0) {
            w->err = -EIO;
        } else {
            off += (size_t)r;
        }
    }
    w->n = 0;
}

static void put(wbuf *w, const char *s, size_t n)
{
    while (n && !w->err) {
        if (w->n == sizeof w->b)
            flush(w);
        size_t k = sizeof w->b - w->n;
        if (k > n)
            k = n;
        memcpy(w->b + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
    }
}

static void putc1(wbuf *w, char c)
{
    put(w, &c, 1);
}

static void word(wbuf *w, const char *s)
{
    put(w, s, strlen(s));
}

/* Ends the current line. */
static void eol(wbuf *w)
{
    putc1(w, '\n');
    w->lines++;
}

/* " <int64>" in decimal, by hand so no locale can touch it. */
static void i64(wbuf *w, int64_t v)
{
    char t[24];
    size_t i = sizeof t;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        t[--i] = '-';
    t[--i] = ' ';
    put(w, t + i, sizeof t - i);
}

static void size(wbuf *w, size_t v)
{
    i64(w, (int64_t)v);
}

/* A whole line: the word kind and n int64 values. */
static void i64_line(wbuf *w, const char *kind, const int64_t *v, size_t n)
{
    word(w, kind);
    for (size_t i = 0; i < n; i++)
        i64(w, v[i]);
    eol(w);
}

/* " <16 hex digits>" of the IEEE-754 bits: exact, nan payloads and -0.0 kept. */
static void dbl(wbuf *w, double d)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    char t[17];
    t[0] = ' ';
    for (int i = 16; i >= 1; i--) {
        t[i] = hex[u & 15];
        u >>= 4;
    }
    put(w, t, sizeof t);
}

/* " =<bytes>": printable ASCII except '%' verbatim, everything else %XX. */
static void str(wbuf *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    put(w, " =", 2);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x21 && c <= 0x7E && c != '%') {
            putc1(w, (char)c);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            put(w, e, 3);
        }
    }
}

static void cstr(wbuf *w, const char *s)
{
    s = s ? s : "";
    str(w, s, strlen(s));
}

static void likwid_part(wbuf *w, const sl_likwid *lw)
{
    word(w, SL_H5N_likwid " ");
    word(w, sl_source_name(lw->source));
    size(w, lw->nregions);
    eol(w);
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *r = &lw->regions[i];
        size_t T = r->nthreads;
        word(w, "region");
        str(w, r->tag ? r->tag : "", r->tag ? r->tag_len : 0);
        i64(w, r->group_id);
        cstr(w, r->group_name);
        putc1(w, ' ');
        word(w, sl_source_name(r->source));
        size(w, T);
        size(w, r->nevents);
        size(w, r->nmetrics);
        i64(w, r->has_names ? 1 : 0);
        eol(w);
        word(w, SL_H5N_cpus);
        for (size_t t = 0; t < T; t++)
            i64(w, r->cpus[t]);
        eol(w);
        word(w, SL_H5N_times);
        for (size_t t = 0; t < T; t++)
            dbl(w, r->times[t]);
        eol(w);
        word(w, "counts");
        for (size_t t = 0; t < T; t++)
            i64(w, r->call_counts[t]);
        eol(w);
        for (size_t e = 0; e < r->nevents; e++) {
            word(w, "event");
            cstr(w, r->has_names && r->event_names ? r->event_names[e] : "");
            cstr(w, r->has_names && r->counter_names ? r->counter_names[e] : "");
            for (size_t t = 0; t < T; t++)
                dbl(w, r->events[e * T + t]);
            eol(w);
        }
        for (size_t m = 0; m < r->nmetrics; m++) {
            word(w, "metric");
            cstr(w, r->metric_names ? r->metric_names[m] : "");
            for (size_t t = 0; t < T; t++)
                dbl(w, r->metrics[m * T + t]);
            eol(w);
        }
    }
}

static void timing_part(wbuf *w, const sl_timing *tm)
{
    word(w, SL_H5N_timing);
    cstr(w, tm->clock);
    i64(w, tm->origin_unix_ns);
    size(w, tm->nregions);
    eol(w);
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[i];
        word(w, "tregion");
        str(w, r->tag ? r->tag : "", r->tag ? r->tag_len : 0);
        i64(w, r->dropped_calls);
        i64(w, r->open_at_close);
        i64(w, r->unmatched_stops);
        i64(w, r->nested_starts);
        size(w, r->nthreads);
        size(w, r->ncalls);
        eol(w);
        for (size_t t = 0; t < r->nthreads; t++) {
            const int64_t v[] = {r->threads[t], r->call_counts[t], r->total_ns[t], r->min_ns[t],
                                 r->max_ns[t]};
            i64_line(w, "thread", v, 5);
        }
        for (size_t c = 0; c < r->ncalls; c++) {
            const int64_t v[] = {r->call_threads[c], r->start_times[c], r->end_times[c]};
            i64_line(w, "call", v, 3);
        }
    }
}

/* Starts the output to fd: the magic line and the kind. */
static void head(wbuf *w, int fd, const char *kind)
{
    w->fd = fd;
    w->err = 0;
    w->n = 0;
    w->lines = 0;
    word(w, SL_WIRE_MAGIC);
    eol(w);
    word(w, "kind ");
    word(w, kind);
    eol(w);
}

static int finish(wbuf *w)
{
    word(w, "end");
    size(w, w->lines);
    eol(w);
    flush(w);
    return w->err;
}

static void named_i64(wbuf *w, const char *key, int64_t v)
{
    word(w, key);
    i64(w, v);
    eol(w);
}

static void named_str(wbuf *w, const char *key, const char *s)
{
    word(w, key);
    cstr(w, s);
    eol(w);
}

/* "<key> <count N>", then N lines "var <name> <value>". */
static void var_lines(wbuf *w, const char *key, const sl_env_var *vars, size_t n)
{
    word(w, key);
    size(w, n);
    eol(w);
    for (size_t i = 0; i < n; i++) {
        word(w, "var");
        cstr(w, vars[i].name);
        cstr(w, vars[i].value);
        eol(w);
    }
}

/* Version 2: the run's metadata (docs/WIRE.md). */
static void meta_part(wbuf *w, const sl_run_meta *m)
{
    word(w, "meta");
    i64(w, m->mpi_size);
    i64(w, m->omp_num_threads);
    i64(w, m->start_time_ns);
    i64(w, m->finalize_time_ns);
    eol(w);
    named_str(w, SL_H5N_working_directory, m->working_directory);
    named_str(w, SL_H5N_user, m->user);
    word(w, "uid");
    i64(w, m->uid);
    eol(w);
    named_str(w, SL_H5N_run_id, m->run_id);
    var_lines(w, "metavars", m->vars, m->nvars);
}

/* The run's own scalars, in the wire's order: (kind, member of sl_run,
 * which is also its SL_H5N_ name). */
#define SL_WIRE_RUN_FIELDS(X)                                                                  \
    X(i64, rank) X(i64, mpi_rank) X(i64, pid) X(i64, parent_pid) X(str, hostname)              \
    X(str, executable) X(str, command_line) X(str, likwid_status) X(str, likwid_version)       \
    X(str, cpu_model) X(str, kernel_release) X(str, clock_source) X(i64, tsc_hz)

int sl_wire_write_run(int fd, const sl_run *run)
{
    wbuf w;
    head(&w, fd, "run");
#define SL_WIRE_RUN_FIELD(kind, name) named_##kind(&w, SL_H5N_##name, run->name);
    SL_WIRE_RUN_FIELDS(SL_WIRE_RUN_FIELD)
#undef SL_WIRE_RUN_FIELD
    var_lines(&w, "env", run->env, run->nenv);
    meta_part(&w, &run->meta);
    timing_part(&w, &run->timing);
    likwid_part(&w, &run->likwid);
    return finish(&w);
}

int sl_wire_write_likwid(int fd, const sl_likwid *lw)
{
    wbuf w;
    head(&w, fd, "likwid");
    likwid_part(&w, lw);
    return finish(&w);
}
