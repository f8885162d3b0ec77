/* Internal header: not installed. The filters of `scope-likwid show`
 * (--rank, --region, --group, --metric, --threads); the view they make of
 * a run is show_view.h. */
#ifndef SL_SHOW_FILTER_H
#define SL_SHOW_FILTER_H

#include <stddef.h>
#include "h5read.h"
#include "run.h"
#include "why.h"

typedef enum sl_threads_mode {
    SL_THREADS_ALL = 0,     /* one column per thread (no aggregation) */
    SL_THREADS_SUM,
    SL_THREADS_MEAN,
    SL_THREADS_MAX,
} sl_threads_mode;

typedef struct sl_show_filter {
    size_t nranks;
    long long *ranks;
    size_t nregions;
    char **regions;         /* fnmatch patterns against the displayed tag */
    size_t ngroups;
    char **groups;          /* group id or group name */
    size_t nmetrics;
    char **metrics;         /* event labels, metric names, "call count", "runtime [s]" */
    sl_threads_mode threads;
} sl_show_filter;

void sl_show_filter_free(sl_show_filter *f);
/* Parses "sum|mean|max|all". 0 or -EINVAL. */
int sl_threads_parse(const char *s, sl_threads_mode *out);
const char *sl_threads_name(sl_threads_mode m);
/* Adds the values of one option (comma list for ranks). 0, -EINVAL, -ENOMEM. */
int sl_filter_add_ranks(sl_show_filter *f, const char *list);
int sl_filter_add(char ***v, size_t *n, const char *s);

/* Every filter value must match something in the file; otherwise msg gets
 * one line (no newline) "PATH: no ... 'X': the file has A, B, C" (or "PATH:
 * no counter data ..." for --group/--metric on a timing-only file) and the
 * return is -ENOENT; -ENOMEM. Nothing is added on success. */
int sl_filter_check(const sl_show_filter *f, const sl_runset *set, const char *path, sl_why *msg);

int sl_filter_rank(const sl_show_filter *f, long long rank);
/* 1 when a region of this tag (--region) or this LIKWID region (--group)
 * is to be shown. */
int sl_filter_region(const sl_show_filter *f, const char *tag, size_t len);
int sl_filter_group(const sl_show_filter *f, const sl_region *r);
/* 1 when a metric row of that name has no value under f's --threads: sum
 * of a metric without a sum (sl_metric_summable). */
int sl_filter_nosum(const sl_show_filter *f, const char *metric);
/* 1 when the event/metric row of that name is to be printed. */
int sl_filter_row(const sl_show_filter *f, const char *name);

#endif
