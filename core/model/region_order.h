/* Internal header: not installed. The order in which show and plot list a
 * rank's LIKWID regions (by group id, costliest first) and its timing
 * regions (costliest first), kept in one place so the tables and the report
 * agree. */
#ifndef SL_REGION_ORDER_H
#define SL_REGION_ORDER_H

#include <stddef.h>
#include <stdint.h>
#include "likwid_result.h"
#include "timing.h"

struct sl_cost_key {
    size_t idx;
    int64_t group;
    double cost;
};

/* qsort order of sl_cost_key: group ascending, cost descending, idx. */
int sl_cost_key_cmp(const void *a, const void *b);

/* LIKWID's time of a region summed over its threads (nan/inf left out). */
double sl_region_cost(const sl_region *r);

/* Region indices by group id, then cost (descending), then file order;
 * NULL when out of memory. The caller frees. */
size_t *sl_likwid_order(const sl_likwid *lw);

/* A timing region's total over its threads (ns), saturating at the int64
 * limits (a file may hold any value). */
int64_t sl_timing_total(const sl_timing_region *r);

/* Timing region indices by total (descending), then file order; NULL when
 * out of memory. The caller frees. */
size_t *sl_timing_order(const sl_timing *tm);

#endif
