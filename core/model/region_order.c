/* The region order of show and plot (region_order.h). */
#include "region_order.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sat.h"

int sl_cost_key_cmp(const void *a, const void *b)
{
    const struct sl_cost_key *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

double sl_region_cost(const sl_region *r)
{
    double s = 0;
    for (size_t t = 0; t < r->nthreads; t++)
        if (isfinite(r->times[t]))
            s += r->times[t];
    return s;
}

size_t *sl_likwid_order(const sl_likwid *lw)
{
    struct sl_cost_key *k = calloc(lw->nregions ? lw->nregions : 1, sizeof *k);
    size_t *order = calloc(lw->nregions ? lw->nregions : 1, sizeof *order);
    if (!k || !order) {
        free(k);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < lw->nregions; i++)
        k[i] = (struct sl_cost_key){i, lw->regions[i].group_id, sl_region_cost(&lw->regions[i])};
    qsort(k, lw->nregions, sizeof *k, sl_cost_key_cmp);
    for (size_t i = 0; i < lw->nregions; i++)
        order[i] = k[i].idx;
    free(k);
    return order;
}

int64_t sl_timing_total(const sl_timing_region *r)
{
    int64_t s = 0;
    for (size_t t = 0; t < r->nthreads; t++)
        s = sl_add_sat(s, r->total_ns[t]);
    return s;
}

struct total_key {
    size_t idx;
    int64_t total;
};

static int total_key_cmp(const void *a, const void *b)
{
    const struct total_key *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t *sl_timing_order(const sl_timing *tm)
{
    size_t n = tm->nregions;
    struct total_key *k = calloc(n ? n : 1, sizeof *k);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    if (!k || !order) {
        free(k);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (struct total_key){i, sl_timing_total(&tm->regions[i])};
    qsort(k, n, sizeof *k, total_key_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].idx;
    free(k);
    return order;
}
