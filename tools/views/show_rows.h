/* Internal to the views (show_rows.c, show_table.c, show_csv.c,
 * show_json.c, export_rows.c): the order and the rows the renderers share,
 * so a table, its CSV, its JSON and the export cannot disagree. Not a
 * contract. show's renderers are declared in show.h. */
#ifndef SL_SHOW_ROWS_H
#define SL_SHOW_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5read.h"
#include "run.h"
#include "run_info.h"
#include "schema.h"
#include "show_filter.h"

/* One timing region summed over its threads (sums saturate at the int64
 * limits rather than overflow): the figures of show's timing rows and of
 * export's timing columns. */
struct tm_sum {
    size_t idx;                         /* in the run's timing regions */
    int64_t calls, total, min, max;     /* min/max over threads that ran it */
    int have_minmax;
};

/* r's sums (idx left 0). */
struct tm_sum sl_show_timing_sum(const sl_timing_region *r);

/* The figures of one timing region, in the order show's table, CSV and
 * JSON give them; export's timing columns are a subset. X(id, name). */
#define SL_TIMING_FIGS(X)                                                        \
    X(THREADS, SL_H5N_threads) X(CALLS, "calls") X(TOTAL, SL_H5N_total_ns)        \
    X(MEAN, "mean_ns") X(MIN, SL_H5N_min_ns) X(MAX, SL_H5N_max_ns)                \
    X(DROPPED, SL_H5N_dropped_calls) X(OPEN, SL_H5N_open_at_close)                \
    X(UNMATCHED, SL_H5N_unmatched_stops) X(NESTED, SL_H5N_nested_starts)
#define SL_TF_ID(id, name) SL_TF_##id,
enum sl_timing_fig_id { SL_TIMING_FIGS(SL_TF_ID) SL_TF_N };
#undef SL_TF_ID
extern const char *const sl_timing_fig_names[SL_TF_N];

/* One figure: an integer, a double (the mean) or no value (min/max of a
 * region no thread completed, the mean of 0 calls). */
struct sl_fig {
    const char *name;
    enum { SL_FIG_NONE, SL_FIG_INT, SL_FIG_DBL } kind;
    long long i;
    double d;
};

/* r's figures, from its sums s. */
void sl_show_timing_figs(const sl_timing_region *r, const struct tm_sum *s,
                         struct sl_fig fig[SL_TF_N]);

/* The timing regions, costliest first; NULL when out of memory. */
struct tm_sum *sl_show_timing_order(const sl_timing *tm);

/* Rows of one event group: the union of the regions' event labels and
 * metric names, in order of first appearance. */
struct group_rows {
    size_t nlabels;
    char **labels;
    size_t nmetrics;
    char **metrics;
};

/* Index of s in names (tried at hint first), or -1. */
long sl_show_find_name(char **names, size_t n, const char *s, size_t hint);
/* Rows of the regions order[from..to) that flt lets through. 0 or -ENOMEM. */
int sl_show_group_rows(const sl_likwid *lw, char ***labels, const size_t *order, size_t from,
                       size_t to, const sl_show_filter *flt, struct group_rows *g);
void sl_show_group_rows_free(struct group_rows *g);

/* One value row of a LIKWID region: its name ("call count", "runtime [s]",
 * an event label, a metric name) and its value per thread (v[nthreads];
 * the call count's are r->call_counts, v is NULL). index: the event's or
 * metric's place in the region. */
struct sl_value_row {
    const char *name;
    enum { SL_ROW_CALLS, SL_ROW_TIME, SL_ROW_EVENT, SL_ROW_METRIC } kind;
    const double *v;
    size_t index;
};
/* The rows of r (labels: its event labels) that flt lets through, in the
 * order show's table, CSV and JSON give them: call count, runtime, events,
 * metrics. *rows malloc'd. Their number, or -ENOMEM. */
long sl_show_value_rows(const sl_region *r, char **labels, const sl_show_filter *flt,
                        struct sl_value_row **rows);

/* A rank's regions in show's order (region_order.h) and the event labels
 * of every region (computed once per rank). 0, or -ENOMEM with both NULL. */
int sl_show_order(const sl_likwid *lw, size_t **order, char ****labels);
void sl_show_order_free(const sl_likwid *lw, size_t *order, char ***labels);
/* The end of the run of regions order[k..] that share order[k]'s group. */
size_t sl_show_group_end(const sl_likwid *lw, const size_t *order, size_t k);
/* The metric's name, "" when the file has none. */
const char *sl_show_metric_name(const sl_region *r, size_t m);
/* Displayable tag (malloc'd); for tables, control bytes become '?'. */
char *sl_show_tag(const char *tag, size_t len, int for_table);

#endif
