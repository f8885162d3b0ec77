/* The LIKWID region order of show and plot (region_order.h). */
#include "region_order.h"

#include <math.h>
#include <stdlib.h>

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
