/* Internal header: not installed. The values plot charts: a LIKWID region's
 * row named as show names it (a metric, an event label, "call count",
 * "runtime [s]": labels.h), the default metric, and min/mean/max/sum of a
 * set of values. */
#ifndef SL_PLOT_VALUES_H
#define SL_PLOT_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "h5read.h"

/* The values of r's row named name, one per hardware thread, into
 * v[r->nthreads]. 1 found, 0 r has no such row, -ENOMEM. */
int sl_plot_row(const sl_region *r, const char *name, double *v);

/* The metric charted without --metric: the first metric (show's order,
 * ranks in file order, then the next file) whose name has "FLOP/s" or
 * "Bytes/s" in it (a FLOP rate or a bandwidth); else the first metric whose
 * name does not start with "Runtime" (LIKWID's seconds repeat the time
 * chart); else "runtime [s]". Borrowed from the runsets. */
const char *sl_plot_default_metric(const sl_runset *const *sets, size_t nsets);

/* The first metric name of any region of set containing needle, or NULL. */
const char *sl_plot_find_metric(const sl_runset *set, const char *needle);

/* Finite values only; n == 0: no value. */
typedef struct sl_plot_stat {
    size_t n;
    double min, max, sum;
    int64_t max_rank;       /* the rank of the first value equal to max */
} sl_plot_stat;

/* Adds v, a value of the given rank. */
void sl_plot_stat_add(sl_plot_stat *s, double v, int64_t rank);
double sl_plot_stat_mean(const sl_plot_stat *s);
/* (max - mean) / max * 100 (LIKWID's STAT, Caliper), 0 below 1e-7 %
 * (rounding of equal values); NaN when max <= 0. */
double sl_plot_stat_imbalance(const sl_plot_stat *s);

/* Regions of several ranks (and files) under one key: (tag, group id),
 * group id -1 for the shim's timing. Each key holds nstats stats (one per
 * file, or min/mean/max's one) and a weight; keys in first-seen order. */
typedef struct sl_plot_key {
    const char *tag;        /* borrowed */
    size_t tag_len;
    int64_t group_id;
    const char *sub;        /* group name, NULL for timing (borrowed) */
    size_t first;           /* order of first appearance */
    double weight;          /* sl_plot_keys_sort: largest first */
    sl_plot_stat *stats;
} sl_plot_key;

typedef struct sl_plot_keys {
    size_t n, max, nstats, nslots;
    sl_plot_key *v;
    size_t *slots;          /* index + 1 into v; 0 free */
    sl_plot_stat *stats;    /* max * nstats */
} sl_plot_keys;

/* Room for max keys. 0 or -ENOMEM. */
int sl_plot_keys_init(sl_plot_keys *k, size_t max, size_t nstats);
void sl_plot_keys_free(sl_plot_keys *k);
/* The key's entry, added when new (NULL: more than max keys). */
sl_plot_key *sl_plot_keys_get(sl_plot_keys *k, const char *tag, size_t len, int64_t group_id,
                              const char *sub);
/* Largest weight first, ties in first-seen order (the hash slots are
 * invalid afterwards: get no more). */
void sl_plot_keys_sort(sl_plot_keys *k);

/* Adds to stat `slot` of each timing region's key (tag, -1) a rank's total
 * time in it in ms (its threads summed); weigh: the ns to its weight too.
 * 0 or -ENOMEM (more keys than room). */
int sl_plot_keys_add_times(sl_plot_keys *k, const sl_runset *set, size_t slot, int weigh);
/* Adds to stat `slot` of each LIKWID region's key (tag, group id; by_tag:
 * (tag, 0), whatever the group) every value of its row named name; a
 * region without the row adds no key. 0 or -ENOMEM. */
int sl_plot_keys_add_row(sl_plot_keys *k, const sl_runset *set, const char *name, size_t slot,
                         int by_tag);

/* The number of timing regions plus LIKWID regions over set's ranks. */
size_t sl_plot_region_count(const sl_runset *set);

#endif
