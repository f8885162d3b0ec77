/* Wire format decoder (docs/WIRE.md). The input is hostile: every read is
 * bounded by len, every announced count is checked against the bytes left
 * before anything is allocated for it, and the first defect stops decoding
 * with one "name:line: what: expected what" diagnostic.
 * This file knows the format's structure (head, run, timing, likwid part,
 * tail); the fields themselves are read by the cursor (wire_cursor.c). */
#include "wire.h"
#include "field_names.h"
#include "wire_cursor.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int region(sl_wc *c, sl_likwid *lw)
{
    char *tag = NULL, *group = NULL;
    size_t tag_len = 0, T = 0, E = 0, M = 0;
    int64_t gid = 0;
    int has_names = 0;
    sl_source src = SL_SOURCE_NONE;
    if (sl_wc_keyword(c, "region") || sl_wc_get_str(c, &tag, &tag_len, "region tag") ||
        sl_wc_get_i64(c, &gid, "group id") || sl_wc_get_str(c, &group, NULL, "group name") ||
        sl_wc_get_source(c, &src, "region source") ||
        sl_wc_get_count(c, 2, &T, "number of threads") ||
        sl_wc_get_count(c, 2, &E, "number of events") ||
        sl_wc_get_count(c, 2, &M, "number of metrics") ||
        sl_wc_get_flag(c, &has_names, "has_names flag") ||
        sl_wc_line_done(c)) {
        free(tag);
        free(group);
        return c->err;
    }
    /* every event/metric line carries T values of 17 bytes */
    size_t rem = sl_wc_remaining(c) / 17;
    if ((E && T > rem / E) || (M && T > rem / M)) {
        free(tag);
        free(group);
        return sl_wc_defect(c, "events x threads larger than the data that follows",
                      "fewer events, metrics or threads");
    }
    sl_region *r = sl_likwid_add(lw, tag, tag_len, gid, group, src, T, E, M, has_names);
    free(tag);
    free(group);
    if (!r)
        return sl_wc_nomem(c);
    if (sl_wc_keyword(c, SL_H5N_cpus))
        return c->err;
    for (size_t t = 0; t < T && !c->err; t++)
        sl_wc_get_i64(c, &r->cpus[t], "cpu number");
    if (sl_wc_line_done(c) || sl_wc_keyword(c, SL_H5N_times) ||
        sl_wc_dbl_row(c, r->times, 1, T, "time") ||
        sl_wc_line_done(c) || sl_wc_keyword(c, "counts"))
        return c->err;
    for (size_t t = 0; t < T && !c->err; t++)
        sl_wc_get_i64(c, &r->call_counts[t], "call count");
    if (sl_wc_line_done(c))
        return c->err;
    for (size_t e = 0; e < E; e++) {
        char *en = NULL, *cn = NULL;
        if (sl_wc_keyword(c, "event") || sl_wc_get_str(c, &en, NULL, "event name") ||
            sl_wc_get_str(c, &cn, NULL, "counter name")) {
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
                return sl_wc_defect(c, "event name in a region without names",
                                    "'= =' (has_names 0)");
        }
        if (sl_wc_dbl_row(c, r->events + e * T, 1, T, "event value") || sl_wc_line_done(c))
            return c->err;
    }
    for (size_t m = 0; m < M; m++) {
        if (sl_wc_keyword(c, "metric") || sl_wc_set_str(c, &r->metric_names[m], "metric name") ||
            sl_wc_dbl_row(c, r->metrics + m * T, 1, T, "metric value") || sl_wc_line_done(c))
            return c->err;
    }
    return 0;
}

static int likwid_part(sl_wc *c, sl_likwid *lw)
{
    size_t n = 0;
    if (sl_wc_keyword(c, SL_H5N_likwid) || sl_wc_get_source(c, &lw->source, "likwid source") ||
        sl_wc_get_count(c, 2, &n, "number of regions") || sl_wc_line_done(c))
        return c->err;
    for (size_t i = 0; i < n && !c->err; i++)
        region(c, lw);
    return c->err;
}

static int tregion(sl_wc *c, sl_timing *tm)
{
    char *tag = NULL;
    size_t tag_len = 0, T = 0, C = 0;
    int64_t dropped = 0, open = 0, unmatched = 0, nested = 0;
    if (sl_wc_keyword(c, "tregion") || sl_wc_get_str(c, &tag, &tag_len, "timing region tag") ||
        sl_wc_get_i64(c, &dropped, "dropped calls") || sl_wc_get_i64(c, &open, "open at close") ||
        sl_wc_get_i64(c, &unmatched, "unmatched stops") ||
        sl_wc_get_i64(c, &nested, "nested starts") ||
        sl_wc_get_count(c, 17, &T, "number of threads") ||
        sl_wc_get_count(c, 12, &C, "number of calls") ||
        sl_wc_line_done(c)) {
        free(tag);
        return c->err;
    }
    /* a thread line is at least 17 bytes, a call line at least 12 */
    if (T > sl_wc_remaining(c) / 17 || C > (sl_wc_remaining(c) - T * 17) / 12) {
        free(tag);
        return sl_wc_defect(c, "threads and calls larger than the data that follows",
                      "fewer threads or calls");
    }
    sl_timing_region *r = sl_timing_add(tm, tag, tag_len, T, C);
    free(tag);
    if (!r)
        return sl_wc_nomem(c);
    r->dropped_calls = dropped;
    r->open_at_close = open;
    r->unmatched_stops = unmatched;
    r->nested_starts = nested;
    for (size_t t = 0; t < T; t++) {
        if (sl_wc_keyword(c, "thread") || sl_wc_get_i64(c, &r->threads[t], "thread id") ||
            sl_wc_get_i64(c, &r->call_counts[t], "call count") ||
            sl_wc_get_i64(c, &r->total_ns[t], "total ns") ||
            sl_wc_get_i64(c, &r->min_ns[t], "min ns") ||
            sl_wc_get_i64(c, &r->max_ns[t], "max ns") || sl_wc_line_done(c))
            return c->err;
    }
    for (size_t k = 0; k < C; k++) {
        if (sl_wc_keyword(c, "call") || sl_wc_get_i64(c, &r->call_threads[k], "call thread") ||
            sl_wc_get_i64(c, &r->start_times[k], "start time") ||
            sl_wc_get_i64(c, &r->end_times[k], "end time") || sl_wc_line_done(c))
            return c->err;
    }
    return 0;
}

static int timing_part(sl_wc *c, sl_timing *tm)
{
    size_t n = 0;
    if (sl_wc_keyword(c, SL_H5N_timing) || sl_wc_set_str(c, &tm->clock, "clock name") ||
        sl_wc_get_i64(c, &tm->origin_unix_ns, "origin_unix_ns") ||
        sl_wc_get_count(c, 2, &n, "number of timing regions") || sl_wc_line_done(c))
        return c->err;
    for (size_t i = 0; i < n && !c->err; i++)
        tregion(c, tm);
    return c->err;
}

static int is_line(const sl_wc *c, const char *s)
{
    return c->ln == strlen(s) && memcmp(c->lp, s, c->ln) == 0;
}

/* The magic line (any version; *version says which) and the kind. */
static int head(sl_wc *c, const char *kind, int *version)
{
    if (sl_wc_next_line(c, "'" SL_WIRE_MAGIC "'"))
        return c->err;
    if (is_line(c, SL_WIRE_MAGIC))
        *version = 5;
    else if (is_line(c, SL_WIRE_MAGIC_V4))
        *version = 4;
    else if (is_line(c, SL_WIRE_MAGIC_V3))
        *version = 3;
    else if (is_line(c, SL_WIRE_MAGIC_V2))
        *version = 2;
    else if (is_line(c, SL_WIRE_MAGIC_V1))
        *version = 1;
    else
        return sl_wc_defect(c, "not a scope-likwid wire file", "'" SL_WIRE_MAGIC "'");
    const char *t;
    size_t n;
    if (sl_wc_keyword(c, "kind") || sl_wc_token(c, &t, &n, "kind"))
        return c->err;
    if (n != strlen(kind) || memcmp(t, kind, n) != 0)
        return sl_wc_defect(c, "wrong kind",
                            strcmp(kind, "run") == 0 ? "'kind run'" : "'kind likwid'");
    return sl_wc_line_done(c);
}

static int tail(sl_wc *c)
{
    size_t before = c->lineno;
    int64_t v;
    if (sl_wc_keyword(c, "end") || sl_wc_get_i64(c, &v, "line count") || sl_wc_line_done(c))
        return c->err;
    if (v < 0 || (uint64_t)v != before)
        return sl_wc_defect(c, "truncated (line count in 'end' does not match)",
                      "the number of lines before 'end'");
    if (c->pos != c->len)
        return sl_wc_defect(c, "data after 'end'", "end of input");
    return 0;
}

/* Reads name/value lines into a variable list through add. */
static int add_env(void *run, const char *name, const char *value)
{
    return sl_run_add_env(run, name, value);
}

static int add_meta_var(void *meta, const char *name, const char *value)
{
    return sl_run_meta_add_var(meta, name, value);
}

static int vars(sl_wc *c, size_t n, void *obj, int (*add)(void *, const char *, const char *))
{
    for (size_t i = 0; i < n; i++) {
        char *k = NULL, *v = NULL;
        if (sl_wc_keyword(c, "var") || sl_wc_get_str(c, &k, NULL, "variable name") ||
            sl_wc_get_str(c, &v, NULL, "variable value") || sl_wc_line_done(c)) {
            free(k);
            free(v);
            return c->err;
        }
        int r = add(obj, k, v);
        free(k);
        free(v);
        if (r < 0)
            return sl_wc_nomem(c);
    }
    return 0;
}

/* Version 2's metadata lines (docs/WIRE.md). */
static int meta_part(sl_wc *c, sl_run *run, int version)
{
    sl_run_meta *m = &run->meta;
    size_t n = 0;
    if (sl_wc_keyword(c, "meta") || sl_wc_get_i64(c, &m->mpi_size, "mpi_size") ||
        sl_wc_get_i64(c, &m->omp_num_threads, "omp_num_threads") ||
        sl_wc_get_i64(c, &m->start_time_ns, "start_time_ns") ||
        sl_wc_get_i64(c, &m->finalize_time_ns, "finalize_time_ns") || sl_wc_line_done(c) ||
        sl_wc_named_str(c, SL_H5N_working_directory, &m->working_directory) ||
        sl_wc_named_str(c, SL_H5N_user, &m->user) ||
        (version >= 5 && sl_wc_named_i64(c, "uid", &m->uid)) ||
        (version >= 4 && sl_wc_named_str(c, SL_H5N_run_id, &m->run_id)) ||
        sl_wc_keyword(c, "metavars") ||
        sl_wc_get_count(c, 2, &n, "number of variables") || sl_wc_line_done(c))
        return c->err;
    return vars(c, n, m, add_meta_var);
}

int sl_wire_read_run(const char *buf, size_t len, const char *name, sl_run *run, sl_diag *diag)
{
    sl_wc c;
    int version = 0;
    sl_wc_start(&c, buf, len, name, diag);
    if (head(&c, "run", &version) || sl_wc_named_i64(&c, SL_H5N_rank, &run->rank) ||
        sl_wc_named_i64(&c, SL_H5N_mpi_rank, &run->mpi_rank) || sl_wc_named_i64(&c, SL_H5N_pid, &run->pid) ||
        (version >= 3 && sl_wc_named_i64(&c, SL_H5N_parent_pid, &run->parent_pid)) ||
        sl_wc_named_str(&c, SL_H5N_hostname, &run->hostname) ||
        sl_wc_named_str(&c, SL_H5N_executable, &run->executable) ||
        sl_wc_named_str(&c, SL_H5N_command_line, &run->command_line) ||
        sl_wc_named_str(&c, SL_H5N_likwid_status, &run->likwid_status) ||
        (version >= 4 && (sl_wc_named_str(&c, SL_H5N_likwid_version, &run->likwid_version) ||
                          sl_wc_named_str(&c, SL_H5N_cpu_model, &run->cpu_model) ||
                          sl_wc_named_str(&c, SL_H5N_kernel_release, &run->kernel_release) ||
                          sl_wc_named_str(&c, SL_H5N_clock_source, &run->clock_source) ||
                          sl_wc_named_i64(&c, SL_H5N_tsc_hz, &run->tsc_hz))))
        return c.err;
    size_t nenv = 0;
    if (sl_wc_keyword(&c, "env") || sl_wc_get_count(&c, 2, &nenv, "number of variables") ||
        sl_wc_line_done(&c))
        return c.err;
    if (vars(&c, nenv, run, add_env) || (version >= 2 && meta_part(&c, run, version)))
        return c.err;
    if (timing_part(&c, &run->timing) || likwid_part(&c, &run->likwid))
        return c.err;
    return tail(&c);
}

int sl_wire_read_likwid(const char *buf, size_t len, const char *name, sl_likwid *lw,
                        sl_diag *diag)
{
    sl_wc c;
    int version = 0;
    sl_wc_start(&c, buf, len, name, diag);
    if (head(&c, "likwid", &version) || likwid_part(&c, lw))
        return c.err;
    return tail(&c);
}

static int starts_line(const char *buf, size_t len, const char *magic)
{
    size_t n = strlen(magic);
    return buf && len > n && memcmp(buf, magic, n) == 0 && buf[n] == '\n';
}

int sl_wire_is_wire(const char *buf, size_t len)
{
    return starts_line(buf, len, SL_WIRE_MAGIC) || starts_line(buf, len, SL_WIRE_MAGIC_V4) ||
           starts_line(buf, len, SL_WIRE_MAGIC_V3) ||
           starts_line(buf, len, SL_WIRE_MAGIC_V2) ||
           starts_line(buf, len, SL_WIRE_MAGIC_V1);
}
