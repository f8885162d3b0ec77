/* The values plot charts (plot_values.h). */
#include "plot_values.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "region_order.h"
#include "sat.h"

int sl_plot_row(const sl_region *r, const char *name, double *v)
{
    const double *src;
    int rc = sl_region_row(r, name, &src);
    if (rc < 0)
        return rc;
    if (!src && !strcmp(name, SL_ROW_NAME_RUNTIME))
        src = r->times;
    if (src) {
        memcpy(v, src, r->nthreads * sizeof *v);
        return 1;
    }
    if (strcmp(name, SL_ROW_NAME_CALLS))
        return 0;
    for (size_t t = 0; t < r->nthreads; t++)
        v[t] = (double)r->call_counts[t];
    return 1;
}

/* The first metric name (show's order) of set for which pick says yes. */
static const char *first_metric(const sl_runset *set, int (*pick)(const char *, const void *),
                                const void *arg)
{
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_likwid *lw = &set->runs[r].likwid;
        size_t *c = sl_likwid_order(lw);
        const char *found = NULL;
        for (size_t k = 0; c && k < lw->nregions && !found; k++) {
            const sl_region *reg = &lw->regions[c[k]];
            for (size_t m = 0; m < reg->nmetrics && !found; m++)
                if (reg->metric_names[m] && pick(reg->metric_names[m], arg))
                    found = reg->metric_names[m];
        }
        free(c);
        if (found)
            return found;
    }
    return NULL;
}

static int is_rate(const char *name, const void *arg)
{
    (void)arg;
    return strstr(name, "FLOP/s") || strstr(name, "Bytes/s");
}

static int not_runtime(const char *name, const void *arg)
{
    (void)arg;
    return strncmp(name, "Runtime", 7) != 0;
}

static int has_needle(const char *name, const void *needle)
{
    return strstr(name, needle) != NULL;
}

const char *sl_plot_default_metric(const sl_runset *const *sets, size_t nsets)
{
    int (*const rules[])(const char *, const void *) = {is_rate, not_runtime};
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
        for (size_t f = 0; f < nsets; f++) {
            const char *m = first_metric(sets[f], rules[k], NULL);
            if (m)
                return m;
        }
    return SL_ROW_NAME_RUNTIME;
}

const char *sl_plot_find_metric(const sl_runset *set, const char *needle)
{
    return first_metric(set, has_needle, needle);
}

void sl_plot_stat_add(sl_plot_stat *s, double v, int64_t rank)
{
    if (!isfinite(v))
        return;
    if (!s->n || v < s->min)
        s->min = v;
    if (!s->n || v > s->max) {
        s->max = v;
        s->max_rank = rank;
    }
    s->sum += v;
    s->n++;
}

double sl_plot_stat_mean(const sl_plot_stat *s)
{
    return s->n ? s->sum / (double)s->n : NAN;
}

double sl_plot_stat_imbalance(const sl_plot_stat *s)
{
    if (!s->n || !(s->max > 0))
        return NAN;
    /* equal values: the mean's rounding must not show as 1e-13 % */
    double d = s->max - sl_plot_stat_mean(s);
    return d > s->max * 1e-9 ? d / s->max * 100 : 0;
}

int sl_plot_keys_init(sl_plot_keys *k, size_t max, size_t nstats)
{
    memset(k, 0, sizeof *k);
    k->max = max;
    k->nstats = nstats;
    k->nslots = 16;
    while (k->nslots < 2 * max + 1)
        k->nslots *= 2;
    k->v = calloc(max ? max : 1, sizeof *k->v);
    k->slots = calloc(k->nslots, sizeof *k->slots);
    k->stats = calloc((max ? max : 1) * (nstats ? nstats : 1), sizeof *k->stats);
    if (k->v && k->slots && k->stats)
        return 0;
    sl_plot_keys_free(k);
    return -ENOMEM;
}

void sl_plot_keys_free(sl_plot_keys *k)
{
    free(k->v);
    free(k->slots);
    free(k->stats);
    memset(k, 0, sizeof *k);
}

sl_plot_key *sl_plot_keys_get(sl_plot_keys *k, const char *tag, size_t len, int64_t group_id,
                              const char *sub)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)group_id;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)tag[i]) * 1099511628211ULL;
    size_t mask = k->nslots - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (!k->slots[i]) {
            if (k->n == k->max)
                return NULL;
            sl_plot_key *e = &k->v[k->n];
            *e = (sl_plot_key){tag, len, group_id, sub, k->n, 0, k->stats + k->n * k->nstats};
            k->slots[i] = ++k->n;
            return e;
        }
        sl_plot_key *e = &k->v[k->slots[i] - 1];
        if (e->group_id == group_id && e->tag_len == len && !memcmp(e->tag, tag, len))
            return e;
    }
}

static int cmp_weight(const void *a, const void *b)
{
    const sl_plot_key *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

void sl_plot_keys_sort(sl_plot_keys *k)
{
    qsort(k->v, k->n, sizeof *k->v, cmp_weight);
}

size_t sl_plot_region_count(const sl_runset *set)
{
    size_t n = 0;
    for (size_t r = 0; r < set->nruns; r++)
        n += set->runs[r].timing.nregions + set->runs[r].likwid.nregions;
    return n;
}

int sl_plot_keys_add_times(sl_plot_keys *k, const sl_runset *set, size_t slot, int weigh)
{
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_timing *tm = &set->runs[r].timing;
        for (size_t i = 0; i < tm->nregions; i++) {
            const sl_timing_region *reg = &tm->regions[i];
            sl_plot_key *e = sl_plot_keys_get(k, reg->tag, reg->tag_len, -1, NULL);
            if (!e)
                return -ENOMEM;
            int64_t ns = 0;
            for (size_t t = 0; t < reg->nthreads; t++)
                ns = sl_add_sat(ns, reg->total_ns[t]);
            sl_plot_stat_add(&e->stats[slot], (double)ns / 1e6, set->runs[r].rank);
            e->weight += weigh ? (double)ns : 0;
        }
    }
    return 0;
}

int sl_plot_keys_add_row(sl_plot_keys *k, const sl_runset *set, const char *name, size_t slot,
                         int by_tag)
{
    int rc = 0;
    for (size_t r = 0; r < set->nruns && !rc; r++) {
        const sl_likwid *lw = &set->runs[r].likwid;
        for (size_t i = 0; i < lw->nregions && !rc; i++) {
            const sl_region *reg = &lw->regions[i];
            double *v = malloc((reg->nthreads ? reg->nthreads : 1) * sizeof *v);
            int found = v ? sl_plot_row(reg, name, v) : -ENOMEM;
            sl_plot_key *e = found != 1 ? NULL
                             : by_tag ? sl_plot_keys_get(k, reg->tag, reg->tag_len, 0, NULL)
                                      : sl_plot_keys_get(k, reg->tag, reg->tag_len, reg->group_id,
                                                         reg->group_name);
            for (size_t t = 0; e && t < reg->nthreads; t++)
                sl_plot_stat_add(&e->stats[slot], v[t], set->runs[r].rank);
            rc = found < 0 ? found : found == 1 && !e ? -ENOMEM : 0;
            free(v);
        }
    }
    return rc;
}
