/* scope-likwid show: a result file as likwid-perfctr-like tables, CSV or
 * JSON. All three carry the same data in the same order: per rank, LIKWID
 * regions by group id, costliest first (sum over threads of LIKWID's
 * times), then the shim's timing regions, costliest first (total ns). */
#include "cmds.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "cli_args.h"
#include "cli_files.h"
#include "h5read.h"
#include "labels.h"
#include "names.h"
#include "region_order.h"
#include "run.h"
#include "show_filter.h"
#include "table.h"

static const char usage[] =
    "usage: scope-likwid show FILE.h5 [--csv | --json] [--rank R[,R...]] [--region PATTERN]\n"
    "                         [--group G] [--metric NAME] [--threads sum|mean|max|all]\n"
    "\n"
    "Prints a scope-likwid result file. Per rank and LIKWID event group a\n"
    "table like likwid-perfctr's: one column per region (costliest first) and\n"
    "thread (\"tag@cpuN\" when the region ran on several CPUs), rows call count,\n"
    "runtime, events and metrics (\"-\": no value). Then the shim's timing per\n"
    "region: calls, total, mean, min, max, and problems counted at close.\n"
    "\n"
    "Filters (the same for the table, --csv and --json; repeat an option to\n"
    "give several values, any of which may match):\n"
    "  --rank R     only these ranks (also a comma list: --rank 0,2)\n"
    "  --region PATTERN  only regions whose tag (as displayed) matches the\n"
    "               shell glob PATTERN (fnmatch: * ? [...]); LIKWID and timing\n"
    "  --group G    only LIKWID regions of event group G (its id or its name);\n"
    "               the timing table has no groups and is not filtered by it\n"
    "  --metric NAME  only this row of the LIKWID tables: an event label, a\n"
    "               metric name, \"call count\" or \"runtime [s]\"\n"
    "  --threads MODE  all (default): one column per thread; sum, mean, max:\n"
    "               one column per region (\"tag [sum]\", CSV thread = the mode,\n"
    "               cpu empty; JSON: thread_aggregate, value arrays of one\n"
    "               element, cpus = the CPUs aggregated). Call count, runtime\n"
    "               and events are summed, averaged or maxed over threads;\n"
    "               metrics likewise for mean and max, but for sum they are the\n"
    "               MEAN: LIKWID's metrics are per-thread results (CPI, clock,\n"
    "               ratios) whose formulas the file does not carry, so a sum\n"
    "               is not a metric (sum a rate yourself from the export).\n"
    "               Threads without a value (nan) are left out. The timing\n"
    "               table is per region already and stays as it is.\n"
    "A value that matches nothing in the file (no such rank, no region\n"
    "matching, no such group, event or metric) is an error (exit 1) whose\n"
    "one-line message lists what the file has.\n"
    "\n"
    "  --csv    one CSV table (RFC 4180), columns\n"
    "           rank,section,group_id,group_name,tag,thread,cpu,row,value\n"
    "           section \"run\": the rank's attributes (row = name);\n"
    "           section \"likwid\": one line per region, thread (index on the\n"
    "           file's thread axis), row (\"call count\", \"runtime [s]\", each\n"
    "           event label, each metric); cpu = the CPU of that thread;\n"
    "           section \"timing\": per region, thread empty: threads, calls,\n"
    "           total_ns, mean_ns, min_ns, max_ns, dropped_calls,\n"
    "           open_at_close, unmatched_stops, nested_starts; then per\n"
    "           thread (thread = OS thread id): calls, total_ns, min_ns, max_ns.\n"
    "           Numbers are exact (shortest form that reads back the same);\n"
    "           nan, inf, -inf as such; empty value: no value.\n"
    "  --json   one JSON document: {\"file\", \"ranks\": [{rank, mpi_rank, pid,\n"
    "           hostname, executable, command_line, likwid_status, likwid_env,\n"
    "           \"likwid\": null or {source, groups: [{group_id, group_name,\n"
    "           regions: [{tag, group_id, group_name, source, cpus, call_counts,\n"
    "           times, event_labels, events (E x T), metric_names, metrics}]}]},\n"
    "           \"timing\": {clock, origin_unix_ns, regions: [{tag, threads,\n"
    "           calls, total_ns, mean_ns, min_ns, max_ns, dropped_calls,\n"
    "           open_at_close, unmatched_stops, nested_starts, per_thread:\n"
    "           {threads, call_counts, total_ns, min_ns, max_ns}}]}}]}.\n"
    "           nan and inf are written as null; a missing value as null.\n"
    "  -h, --help  this help\n"
    "\n"
    "For one row per (rank, region, group, thread) with every value, see\n"
    "'scope-likwid export'. Tags that are not valid UTF-8 show their stray\n"
    "bytes as \\xHH.\n"
    "Exit codes: 0 ok, 1 unreadable or not a result file, or a filter value\n"
    "that matches nothing; 2 usage error (unknown option, missing value, a\n"
    "rank that is not an integer >= 0, an unknown --threads mode).\n";

enum show_format { FMT_TABLE, FMT_CSV, FMT_JSON };

/* ---- ordering shared by the three formats -------------------------------- */

struct tm_sum {
    size_t idx;
    int64_t calls, total, min, max;     /* min/max over threads that ran it */
    int have_minmax;
};

static struct tm_sum timing_sum(const sl_timing *tm, size_t i)
{
    const sl_timing_region *r = &tm->regions[i];
    struct tm_sum s = {.idx = i};
    for (size_t t = 0; t < r->nthreads; t++) {
        s.calls += r->call_counts[t];
        s.total += r->total_ns[t];
        if (r->call_counts[t] <= 0)
            continue;
        if (!s.have_minmax || r->min_ns[t] < s.min)
            s.min = r->min_ns[t];
        if (!s.have_minmax || r->max_ns[t] > s.max)
            s.max = r->max_ns[t];
        s.have_minmax = 1;
    }
    return s;
}

static int tm_sum_cmp(const void *a, const void *b)
{
    const struct tm_sum *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static struct tm_sum *timing_order(const sl_timing *tm)
{
    struct tm_sum *s = calloc(tm->nregions ? tm->nregions : 1, sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < tm->nregions; i++)
        s[i] = timing_sum(tm, i);
    qsort(s, tm->nregions, sizeof *s, tm_sum_cmp);
    return s;
}

/* Rows of one event group: the union of the regions' event labels and
 * metric names, in order of first appearance. */
struct group_rows {
    size_t nlabels;
    char **labels;
    size_t nmetrics;
    char **metrics;
};

static long find_name(char **names, size_t n, const char *s, size_t hint)
{
    if (hint < n && !strcmp(names[hint], s))
        return (long)hint;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return (long)i;
    return -1;
}

static int add_name(char ***names, size_t *n, const char *s, size_t hint)
{
    if (find_name(*names, *n, s, hint) >= 0)
        return 0;
    return sl_filter_add(names, n, s);
}

static void group_rows_free(struct group_rows *g)
{
    sl_labels_free(g->labels, g->nlabels);
    sl_labels_free(g->metrics, g->nmetrics);
    memset(g, 0, sizeof *g);
}

/* Event labels of every region, computed once per rank. */
static char ***region_labels(const sl_likwid *lw)
{
    char ***l = calloc(lw->nregions ? lw->nregions : 1, sizeof *l);
    if (!l)
        return NULL;
    for (size_t i = 0; i < lw->nregions; i++) {
        if (lw->regions[i].nevents && !(l[i] = sl_event_labels(&lw->regions[i]))) {
            for (size_t j = 0; j < i; j++)
                sl_labels_free(l[j], lw->regions[j].nevents);
            free(l);
            return NULL;
        }
    }
    return l;
}

static void region_labels_free(const sl_likwid *lw, char ***l)
{
    if (!l)
        return;
    for (size_t i = 0; i < lw->nregions; i++)
        sl_labels_free(l[i], lw->regions[i].nevents);
    free(l);
}

static const char *metric_name(const sl_region *r, size_t m)
{
    return r->metric_names[m] ? r->metric_names[m] : "";
}

static int group_rows_build(const sl_likwid *lw, char ***labels, const size_t *order,
                            size_t from, size_t to, const sl_show_filter *flt,
                            struct group_rows *g)
{
    memset(g, 0, sizeof *g);
    for (size_t k = from; k < to; k++) {
        const sl_region *r = &lw->regions[order[k]];
        for (size_t e = 0; e < r->nevents; e++)
            if (sl_filter_row(flt, labels[order[k]][e]) &&
                add_name(&g->labels, &g->nlabels, labels[order[k]][e], e))
                return -ENOMEM;
        for (size_t m = 0; m < r->nmetrics; m++)
            if (sl_filter_row(flt, metric_name(r, m)) &&
                add_name(&g->metrics, &g->nmetrics, metric_name(r, m), m))
                return -ENOMEM;
    }
    return 0;
}

/* ---- small output helpers ------------------------------------------------ */

/* Displayable tag; for tables, control bytes become '?'. */
static char *tag_text(const char *tag, size_t len, int for_table)
{
    char *s = sl_tag_display(tag, len);
    if (s && for_table)
        for (char *p = s; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    return s;
}

/* show escapes \n \r \t short (csv_json.h) */
#define SHOW_ESC "\n\r\t"

/* A string that may hold any bytes, as valid UTF-8 JSON. */
static void json_bytes(FILE *f, const char *s)
{
    char *d = sl_tag_display(s, strlen(s));
    sl_json_string(f, d ? d : "", SHOW_ESC);
    free(d);
}

static void json_i64_array(FILE *f, const int64_t *v, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)v[i]);
    fputc(']', f);
}

static void json_double_array(FILE *f, const double *v, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        sl_json_double(f, v[i]);
    }
    fputc(']', f);
}

/* ---- table output --------------------------------------------------------- */

static int show_group_table(FILE *f, const sl_show_filter *flt, const sl_show_view *v,
                            char ***labels, const size_t *order, size_t from, size_t to)
{
    const sl_likwid *lw = &v->lw;
    int agg = flt->threads != SL_THREADS_ALL;
    struct group_rows g;
    int rc = group_rows_build(lw, labels, order, from, to, flt, &g);
    if (rc)
        goto out;
    size_t ncols = 1;
    for (size_t k = from; k < to; k++)
        ncols += lw->regions[order[k]].nthreads;
    sl_table t;
    sl_table_init(&t, ncols);
    /* rows: header, [call count], [runtime], labels, metrics (--metric) */
    int calls_row = sl_filter_row(flt, "call count");
    int time_row = sl_filter_row(flt, "runtime [s]");
    size_t first = 1 + (size_t)calls_row + (size_t)time_row;
    size_t nrows = first + g.nlabels + g.nmetrics;
    for (size_t i = 0; i < nrows; i++)
        if (sl_table_add_row(&t) < 0) {
            rc = -ENOMEM;
            goto table_out;
        }
    rc = sl_table_set(&t, 0, 0, "Region");
    if (calls_row)
        rc |= sl_table_set(&t, 1, 0, "call count");
    if (time_row)
        rc |= sl_table_set(&t, 1 + (size_t)calls_row, 0, "runtime [s]");
    for (size_t e = 0; e < g.nlabels; e++)
        rc |= sl_table_set(&t, first + e, 0, g.labels[e]);
    for (size_t m = 0; m < g.nmetrics; m++)
        rc |= sl_table_set(&t, first + g.nlabels + m, 0, g.metrics[m]);
    size_t col = 1;
    char num[SL_NUM_BUF];
    for (size_t k = from; k < to && !rc; k++) {
        const sl_region *r = &lw->regions[order[k]];
        char *tag = tag_text(r->tag, r->tag_len, 1);
        if (!tag) {
            rc = -ENOMEM;
            break;
        }
        /* where each of the group's rows sits in this region */
        for (size_t th = 0; th < r->nthreads; th++, col++) {
            if (agg)
                rc |= sl_table_setf(&t, 0, col, "%s [%s]", tag, sl_threads_name(flt->threads));
            else if (r->nthreads > 1)
                rc |= sl_table_setf(&t, 0, col, "%s@cpu%lld", tag, (long long)r->cpus[th]);
            else
                rc |= sl_table_set(&t, 0, col, tag);
            if (calls_row && agg)
                rc |= sl_table_set(&t, 1, col, sl_fmt_value(v->calls[order[k]], num));
            else if (calls_row)
                rc |= sl_table_setf(&t, 1, col, "%lld", (long long)r->call_counts[th]);
            if (time_row)
                rc |= sl_table_set(&t, 1 + (size_t)calls_row, col, sl_fmt_value(r->times[th], num));
            for (size_t e = 0; e < r->nevents; e++) {
                long row = find_name(g.labels, g.nlabels, labels[order[k]][e], e);
                double x = r->events[e * r->nthreads + th];
                if (row >= 0)
                    rc |= sl_table_set(&t, first + (size_t)row, col, sl_fmt_value(x, num));
            }
            for (size_t m = 0; m < r->nmetrics; m++) {
                long row = find_name(g.metrics, g.nmetrics, metric_name(r, m), m);
                double x = r->metrics[m * r->nthreads + th];
                if (row >= 0)
                    rc |= sl_table_set(&t, first + g.nlabels + (size_t)row, col, sl_fmt_value(x, num));
            }
        }
        free(tag);
    }
    if (!rc)
        sl_table_print(f, &t, 1);
table_out:
    sl_table_free(&t);
out:
    group_rows_free(&g);
    return rc ? -ENOMEM : 0;
}

/* Milliseconds to the nanosecond, without trailing zeros (no exponents:
 * "2e-05" reads badly in a table). */
static void ms_cell(sl_table *t, size_t row, size_t col, double ns)
{
    char b[64];
    snprintf(b, sizeof b, "%.6f", ns / 1e6);
    char *dot = strchr(b, '.');
    if (dot) {
        char *e = b + strlen(b);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
    sl_table_set(t, row, col, b);
}

static int show_timing_table(FILE *f, const sl_timing *tm)
{
    fprintf(f, "Timing (scope-likwid, clock %s)\n", tm->clock && *tm->clock ? tm->clock : "unknown");
    if (!tm->nregions) {
        fputs("no timed regions\n", f);
        return 0;
    }
    struct tm_sum *s = timing_order(tm);
    if (!s)
        return -ENOMEM;
    int dropped = 0, open = 0, unmatched = 0, nested = 0;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[i];
        dropped |= r->dropped_calls != 0;
        open |= r->open_at_close != 0;
        unmatched |= r->unmatched_stops != 0;
        nested |= r->nested_starts != 0;
    }
    size_t ncols = 7 + (size_t)(dropped + open + unmatched + nested);
    sl_table t;
    sl_table_init(&t, ncols);
    int rc = 0;
    if (sl_table_add_row(&t) < 0) {
        rc = -ENOMEM;
        goto out;
    }
    static const char *const head[] = {"Region", "threads", "calls", "total [ms]", "mean [ms]",
                                       "min [ms]", "max [ms]"};
    for (size_t c = 0; c < 7; c++)
        sl_table_set(&t, 0, c, head[c]);
    size_t c = 7;
    if (dropped)
        sl_table_set(&t, 0, c++, "dropped calls");
    if (open)
        sl_table_set(&t, 0, c++, "open at close");
    if (unmatched)
        sl_table_set(&t, 0, c++, "unmatched stops");
    if (nested)
        sl_table_set(&t, 0, c++, "nested starts");
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        long row = sl_table_add_row(&t);
        char *tag = tag_text(r->tag, r->tag_len, 1);
        if (row < 0 || !tag) {
            free(tag);
            rc = -ENOMEM;
            goto out;
        }
        size_t ro = (size_t)row;
        sl_table_set(&t, ro, 0, tag);
        free(tag);
        sl_table_setf(&t, ro, 1, "%zu", r->nthreads);
        sl_table_setf(&t, ro, 2, "%lld", (long long)s[i].calls);
        ms_cell(&t, ro, 3, (double)s[i].total);
        if (s[i].calls > 0)
            ms_cell(&t, ro, 4, (double)s[i].total / (double)s[i].calls);
        if (s[i].have_minmax) {
            ms_cell(&t, ro, 5, (double)s[i].min);
            ms_cell(&t, ro, 6, (double)s[i].max);
        }
        c = 7;
        if (dropped)
            sl_table_setf(&t, ro, c++, "%lld", (long long)r->dropped_calls);
        if (open)
            sl_table_setf(&t, ro, c++, "%lld", (long long)r->open_at_close);
        if (unmatched)
            sl_table_setf(&t, ro, c++, "%lld", (long long)r->unmatched_stops);
        if (nested)
            sl_table_setf(&t, ro, c++, "%lld", (long long)r->nested_starts);
    }
    sl_table_print(f, &t, 1);
out:
    sl_table_free(&t);
    free(s);
    return rc;
}

static int show_run_table(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    char *status = tag_text(run->likwid_status, strlen(run->likwid_status), 1);
    fprintf(f, "Rank %lld (mpi_rank %lld, pid %lld%s%s%s%s)\n", (long long)run->rank,
            (long long)run->mpi_rank, (long long)run->pid, *run->hostname ? ", host " : "",
            run->hostname, *run->executable ? ", " : "", run->executable);
    fprintf(f, "LIKWID status: %s\n", status ? status : "");
    free(status);
    int rc = 0;
    const sl_likwid *lw = &v->lw;
    if (lw->source == SL_SOURCE_NONE) {
        fputs("LIKWID: no counter data\n", f);
    } else {
        fprintf(f, "LIKWID counters (source %s)\n", sl_source_name(lw->source));
        size_t *order = sl_likwid_order(lw);
        char ***labels = region_labels(lw);
        if (!order || !labels)
            rc = -ENOMEM;
        if (!rc && !lw->nregions)
            fputs("no regions\n", f);
        for (size_t k = 0; k < lw->nregions && !rc;) {
            size_t end = k;
            while (end < lw->nregions && lw->regions[order[end]].group_id == lw->regions[order[k]].group_id)
                end++;
            const sl_region *first = &lw->regions[order[k]];
            fprintf(f, "Group %lld", (long long)first->group_id);
            if (first->group_name && *first->group_name)
                fprintf(f, ": %s", first->group_name);
            fputc('\n', f);
            rc = show_group_table(f, flt, v, labels, order, k, end);
            k = end;
        }
        int metrics = 0;
        for (size_t i = 0; i < lw->nregions; i++)
            metrics |= lw->regions[i].nmetrics != 0;
        if (!rc && metrics && flt->threads == SL_THREADS_SUM)
            fputs("(--threads sum: metrics are the mean over threads)\n", f);
        region_labels_free(lw, labels);
        free(order);
    }
    if (!rc)
        rc = show_timing_table(f, &v->tm);
    return rc;
}

/* ---- CSV output ----------------------------------------------------------- */

static void csv_line(FILE *f, long long rank, const char *section, const char *group_id,
                     const char *group_name, const char *tag, const char *thread, const char *cpu,
                     const char *row, const char *value)
{
    fprintf(f, "%lld,%s,", rank, section);
    sl_csv_field(f, group_id);
    fputc(',', f);
    sl_csv_field(f, group_name);
    fputc(',', f);
    sl_csv_field(f, tag);
    fprintf(f, ",%s,%s,", thread, cpu);
    sl_csv_field(f, row);
    fputc(',', f);
    sl_csv_field(f, value);
    fputc('\n', f);
}

static void csv_run_attr(FILE *f, const sl_run *run, const char *name, const char *value)
{
    char *v = sl_tag_display(value, strlen(value));
    csv_line(f, run->rank, "run", "", "", "", "", "", name, v ? v : "");
    free(v);
}

static int show_run_csv(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    char b[SL_NUM_BUF], th[32], cpu[32], gid[32];
    long long rank = run->rank;
    snprintf(b, sizeof b, "%lld", (long long)run->mpi_rank);
    csv_run_attr(f, run, "mpi_rank", b);
    snprintf(b, sizeof b, "%lld", (long long)run->pid);
    csv_run_attr(f, run, "pid", b);
    csv_run_attr(f, run, "hostname", run->hostname);
    csv_run_attr(f, run, "executable", run->executable);
    csv_run_attr(f, run, "command_line", run->command_line);
    csv_run_attr(f, run, "likwid_status", run->likwid_status);
    csv_run_attr(f, run, "likwid_source", sl_source_name(run->likwid.source));
    for (size_t i = 0; i < run->nenv; i++) {
        char name[300];
        snprintf(name, sizeof name, "env %s", run->env[i].name);
        csv_run_attr(f, run, name, run->env[i].value);
    }
    csv_run_attr(f, run, "clock", run->timing.clock);
    snprintf(b, sizeof b, "%lld", (long long)run->timing.origin_unix_ns);
    csv_run_attr(f, run, "origin_unix_ns", b);

    const sl_likwid *lw = &v->lw;
    int agg = flt->threads != SL_THREADS_ALL;
    size_t *order = sl_likwid_order(lw);
    char ***labels = region_labels(lw);
    if (!order || !labels) {
        free(order);
        region_labels_free(lw, labels);
        return -ENOMEM;
    }
    for (size_t k = 0; k < lw->nregions; k++) {
        const sl_region *r = &lw->regions[order[k]];
        char *tag = sl_tag_display(r->tag, r->tag_len);
        char *gname = sl_tag_display(r->group_name, strlen(r->group_name));
        snprintf(gid, sizeof gid, "%lld", (long long)r->group_id);
        for (size_t t = 0; t < r->nthreads && tag && gname; t++) {
            /* aggregated: thread = sum|mean|max, no single cpu */
            snprintf(th, sizeof th, "%s", agg ? sl_threads_name(flt->threads) : "");
            if (!agg)
                snprintf(th, sizeof th, "%zu", t);
            cpu[0] = '\0';
            if (!agg)
                snprintf(cpu, sizeof cpu, "%lld", (long long)r->cpus[t]);
            if (agg)
                sl_fmt_exact(v->calls[order[k]], b);
            else
                snprintf(b, sizeof b, "%lld", (long long)r->call_counts[t]);
            if (sl_filter_row(flt, "call count"))
                csv_line(f, rank, "likwid", gid, gname, tag, th, cpu, "call count", b);
            if (sl_filter_row(flt, "runtime [s]"))
                csv_line(f, rank, "likwid", gid, gname, tag, th, cpu, "runtime [s]", sl_fmt_exact(r->times[t], b));
            for (size_t e = 0; e < r->nevents; e++)
                if (sl_filter_row(flt, labels[order[k]][e]))
                    csv_line(f, rank, "likwid", gid, gname, tag, th, cpu, labels[order[k]][e],
                             sl_fmt_exact(r->events[e * r->nthreads + t], b));
            for (size_t m = 0; m < r->nmetrics; m++)
                if (sl_filter_row(flt, metric_name(r, m)))
                    csv_line(f, rank, "likwid", gid, gname, tag, th, cpu, metric_name(r, m),
                             sl_fmt_exact(r->metrics[m * r->nthreads + t], b));
        }
        free(tag);
        free(gname);
    }
    region_labels_free(lw, labels);
    free(order);

    const sl_timing *tm = &v->tm;
    struct tm_sum *s = timing_order(tm);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        char *tag = sl_tag_display(r->tag, r->tag_len);
        if (!tag)
            continue;
#define TLINE(rowname, ...) do { snprintf(b, sizeof b, __VA_ARGS__); \
        csv_line(f, rank, "timing", "", "", tag, "", "", rowname, b); } while (0)
        TLINE("threads", "%zu", r->nthreads);
        TLINE("calls", "%lld", (long long)s[i].calls);
        TLINE("total_ns", "%lld", (long long)s[i].total);
        if (s[i].calls > 0)
            csv_line(f, rank, "timing", "", "", tag, "", "", "mean_ns",
                     sl_fmt_exact((double)s[i].total / (double)s[i].calls, b));
        else
            csv_line(f, rank, "timing", "", "", tag, "", "", "mean_ns", "");
        if (s[i].have_minmax) {
            TLINE("min_ns", "%lld", (long long)s[i].min);
            TLINE("max_ns", "%lld", (long long)s[i].max);
        } else {
            csv_line(f, rank, "timing", "", "", tag, "", "", "min_ns", "");
            csv_line(f, rank, "timing", "", "", tag, "", "", "max_ns", "");
        }
        TLINE("dropped_calls", "%lld", (long long)r->dropped_calls);
        TLINE("open_at_close", "%lld", (long long)r->open_at_close);
        TLINE("unmatched_stops", "%lld", (long long)r->unmatched_stops);
        TLINE("nested_starts", "%lld", (long long)r->nested_starts);
#undef TLINE
        for (size_t t = 0; t < r->nthreads; t++) {
            snprintf(th, sizeof th, "%lld", (long long)r->threads[t]);
#define PLINE(rowname, v) do { snprintf(b, sizeof b, "%lld", (long long)(v)); \
        csv_line(f, rank, "timing", "", "", tag, th, "", rowname, b); } while (0)
            PLINE("calls", r->call_counts[t]);
            PLINE("total_ns", r->total_ns[t]);
            PLINE("min_ns", r->min_ns[t]);
            PLINE("max_ns", r->max_ns[t]);
#undef PLINE
        }
        free(tag);
    }
    free(s);
    return 0;
}

/* ---- JSON output ---------------------------------------------------------- */

/* A region of the view; orig = the file's region (its CPUs when aggregated). */
static void json_region(FILE *f, const sl_show_filter *flt, const sl_region *r, char **labels,
                        const sl_region *orig, double calls)
{
    int agg = flt->threads != SL_THREADS_ALL;
    fputs("{\"tag\":", f);
    char *tag = sl_tag_display(r->tag, r->tag_len);
    sl_json_string(f, tag ? tag : "", SHOW_ESC);
    free(tag);
    fprintf(f, ",\"group_id\":%lld,\"group_name\":", (long long)r->group_id);
    json_bytes(f, r->group_name);
    fprintf(f, ",\"source\":\"%s\",", sl_source_name(r->source));
    if (agg)
        fprintf(f, "\"thread_aggregate\":\"%s\",", sl_threads_name(flt->threads));
    fputs("\"cpus\":", f);
    json_i64_array(f, orig->cpus, orig->nthreads);
    fputs(",\"call_counts\":", f);
    if (agg)
        json_double_array(f, &calls, 1);
    else
        json_i64_array(f, r->call_counts, r->nthreads);
    fputs(",\"times\":", f);
    json_double_array(f, r->times, r->nthreads);
    /* --metric: only the named rows */
    size_t n = 0;
    fputs(",\"event_labels\":[", f);
    for (size_t e = 0; e < r->nevents; e++)
        if (sl_filter_row(flt, labels[e])) {
            fputs(n++ ? "," : "", f);
            json_bytes(f, labels[e]);
        }
    fputs("],\"events\":[", f);
    n = 0;
    for (size_t e = 0; e < r->nevents; e++)
        if (sl_filter_row(flt, labels[e])) {
            fputs(n++ ? "," : "", f);
            json_double_array(f, r->events + e * r->nthreads, r->nthreads);
        }
    fputs("],\"metric_names\":[", f);
    n = 0;
    for (size_t m = 0; m < r->nmetrics; m++)
        if (sl_filter_row(flt, metric_name(r, m))) {
            fputs(n++ ? "," : "", f);
            json_bytes(f, metric_name(r, m));
        }
    fputs("],\"metrics\":[", f);
    n = 0;
    for (size_t m = 0; m < r->nmetrics; m++)
        if (sl_filter_row(flt, metric_name(r, m))) {
            fputs(n++ ? "," : "", f);
            json_double_array(f, r->metrics + m * r->nthreads, r->nthreads);
        }
    fputs("]}", f);
}

static int show_run_json(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    fprintf(f, "{\"rank\":%lld,\"mpi_rank\":%lld,\"pid\":%lld,\"hostname\":", (long long)run->rank,
            (long long)run->mpi_rank, (long long)run->pid);
    json_bytes(f, run->hostname);
    fputs(",\"executable\":", f);
    json_bytes(f, run->executable);
    fputs(",\"command_line\":", f);
    json_bytes(f, run->command_line);
    fputs(",\"likwid_status\":", f);
    json_bytes(f, run->likwid_status);
    fputs(",\"likwid_env\":{", f);
    for (size_t i = 0; i < run->nenv; i++) {
        if (i)
            fputc(',', f);
        json_bytes(f, run->env[i].name);
        fputc(':', f);
        json_bytes(f, run->env[i].value);
    }
    fputs("},\n \"likwid\":", f);
    const sl_likwid *lw = &v->lw;
    if (lw->source == SL_SOURCE_NONE) {
        fputs("null", f);
    } else {
        size_t *order = sl_likwid_order(lw);
        char ***labels = region_labels(lw);
        if (!order || !labels) {
            free(order);
            region_labels_free(lw, labels);
            return -ENOMEM;
        }
        fprintf(f, "{\"source\":\"%s\",\"groups\":[", sl_source_name(lw->source));
        for (size_t k = 0; k < lw->nregions;) {
            const sl_region *first = &lw->regions[order[k]];
            fprintf(f, "%s\n  {\"group_id\":%lld,\"group_name\":", k ? "," : "", (long long)first->group_id);
            json_bytes(f, first->group_name);
            fputs(",\"regions\":[", f);
            size_t end = k;
            for (; end < lw->nregions && lw->regions[order[end]].group_id == first->group_id; end++) {
                fputs(end > k ? ",\n   " : "\n   ", f);
                json_region(f, flt, &lw->regions[order[end]], labels[order[end]],
                            &run->likwid.regions[v->src[order[end]]], v->calls[order[end]]);
            }
            fputs("]}", f);
            k = end;
        }
        fputs("]}", f);
        region_labels_free(lw, labels);
        free(order);
    }
    const sl_timing *tm = &v->tm;
    fputs(",\n \"timing\":{\"clock\":", f);
    json_bytes(f, tm->clock ? tm->clock : "");
    fprintf(f, ",\"origin_unix_ns\":%lld,\"regions\":[", (long long)tm->origin_unix_ns);
    struct tm_sum *s = timing_order(tm);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        fputs(i ? ",\n  {\"tag\":" : "\n  {\"tag\":", f);
        char *tag = sl_tag_display(r->tag, r->tag_len);
        sl_json_string(f, tag ? tag : "", SHOW_ESC);
        free(tag);
        fprintf(f, ",\"threads\":%zu,\"calls\":%lld,\"total_ns\":%lld,\"mean_ns\":", r->nthreads,
                (long long)s[i].calls, (long long)s[i].total);
        sl_json_double(f, s[i].calls > 0 ? (double)s[i].total / (double)s[i].calls : NAN);
        if (s[i].have_minmax)
            fprintf(f, ",\"min_ns\":%lld,\"max_ns\":%lld", (long long)s[i].min, (long long)s[i].max);
        else
            fputs(",\"min_ns\":null,\"max_ns\":null", f);
        fprintf(f, ",\"dropped_calls\":%lld,\"open_at_close\":%lld,\"unmatched_stops\":%lld,"
                   "\"nested_starts\":%lld,\"per_thread\":{\"threads\":",
                (long long)r->dropped_calls, (long long)r->open_at_close,
                (long long)r->unmatched_stops, (long long)r->nested_starts);
        json_i64_array(f, r->threads, r->nthreads);
        fputs(",\"call_counts\":", f);
        json_i64_array(f, r->call_counts, r->nthreads);
        fputs(",\"total_ns\":", f);
        json_i64_array(f, r->total_ns, r->nthreads);
        fputs(",\"min_ns\":", f);
        json_i64_array(f, r->min_ns, r->nthreads);
        fputs(",\"max_ns\":", f);
        json_i64_array(f, r->max_ns, r->nthreads);
        fputs("}}", f);
    }
    free(s);
    fputs("]}}", f);
    return 0;
}

/* ---- command -------------------------------------------------------------- */

/* "--name VALUE" or "--name=VALUE": the value, or NULL when a is not
 * that option; *bad when the value is missing. */
static const char *opt_value(const char *a, const char *name, int argc, char **argv, int *i, int *bad)
{
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n])
        return NULL;
    if (*i + 1 >= argc) {
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_filter(const char *a, int argc, char **argv, int *i, sl_show_filter *flt)
{
    int bad = 0;
    const char *v;
    static const char *const names[] = {"--rank", "--region", "--group", "--metric", "--threads"};
    for (int k = 0; k < 5; k++) {
        if (!(v = opt_value(a, names[k], argc, argv, i, &bad))) {
            if (bad)
                return sl_usage_error("show: %s needs a value", names[k]);
            continue;
        }
        int rc = 0;
        switch (k) {
        case 0:
            rc = sl_filter_add_ranks(flt, v);
            if (rc == -EINVAL)
                return sl_usage_error("show: --rank '%s': expected ranks (integers >= 0, comma list)", v);
            break;
        case 1:
            rc = sl_filter_add(&flt->regions, &flt->nregions, v);
            break;
        case 2:
            rc = sl_filter_add(&flt->groups, &flt->ngroups, v);
            break;
        case 3:
            rc = sl_filter_add(&flt->metrics, &flt->nmetrics, v);
            break;
        default:
            if (sl_threads_parse(v, &flt->threads))
                return sl_usage_error("show: --threads '%s': expected sum, mean, max or all", v);
        }
        return rc ? SL_EXIT_FAIL : -1;
    }
    return sl_usage_error("show: unknown option '%s'", a);
}

static int show_run(FILE *f, enum show_format fmt, size_t i, const sl_run *run, const sl_show_filter *flt)
{
    sl_show_view v;
    int rc = sl_show_view_build(flt, run, &v);
    if (rc == 0 && fmt == FMT_TABLE) {
        if (i)
            fputc('\n', f);
        rc = show_run_table(f, run, flt, &v);
    } else if (rc == 0 && fmt == FMT_CSV) {
        rc = show_run_csv(f, run, flt, &v);
    } else if (rc == 0) {
        fputs(i ? ",\n" : "\n", f);
        rc = show_run_json(f, run, flt, &v);
    }
    sl_show_view_free(&v);
    return rc;
}

int sl_cmd_show(int argc, char **argv)
{
    const char *path = NULL;
    enum show_format fmt = FMT_TABLE;
    int fmt_set = 0, only_positional = 0;
    sl_show_filter flt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k = sl_arg_common("show", usage, a, &only_positional, &path);
        if (k == SL_ARG_TAKEN)
            continue;
        if (k != SL_ARG_OPTION) {
            sl_show_filter_free(&flt);
            return k;
        }
        if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            enum show_format want = a[2] == 'c' ? FMT_CSV : FMT_JSON;
            if (fmt_set && want != fmt) {
                sl_show_filter_free(&flt);
                return sl_usage_error("show: --csv and --json exclude each other");
            }
            fmt = want;
            fmt_set = 1;
        } else {
            int rc = parse_filter(a, argc, argv, &i, &flt);
            if (rc >= 0) {
                sl_show_filter_free(&flt);
                return rc;
            }
        }
    }
    if (!path) {
        sl_show_filter_free(&flt);
        return sl_usage_error("show: missing FILE");
    }

    sl_runset set = {0};
    int rc = sl_read_result(path, &set);
    if (rc < 0) {
        sl_show_filter_free(&flt);
        return SL_EXIT_FAIL;
    }
    if (sl_filter_check(&flt, &set, path)) {
        sl_runset_free(&set);
            sl_show_filter_free(&flt);
        return SL_EXIT_FAIL;
    }
    FILE *f = stdout;
    if (fmt == FMT_CSV)
        fputs("rank,section,group_id,group_name,tag,thread,cpu,row,value\n", f);
    if (fmt == FMT_JSON) {
        fputs("{\"file\":", f);
        json_bytes(f, path);
        fputs(",\"ranks\":[", f);
    }
    size_t shown = 0;
    for (size_t i = 0; i < set.nruns && rc == 0; i++)
        if (sl_filter_rank(&flt, set.runs[i].rank))
            rc = show_run(f, fmt, shown++, &set.runs[i], &flt);
    if (fmt == FMT_JSON)
        fputs("]}\n", f);
    if (rc == 0 && (fflush(f) || ferror(f)))
        rc = -EIO;
    if (rc < 0)
        fprintf(stderr, "scope-likwid: show %s: %s\n", path, strerror(-rc));
    sl_runset_free(&set);
    sl_show_filter_free(&flt);
    return rc < 0 ? SL_EXIT_FAIL : SL_EXIT_OK;
}
