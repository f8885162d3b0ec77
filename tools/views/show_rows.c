/* The order and the rows the views share (show_rows.h): the model show's
 * table, CSV and JSON renderers and export read; it calls none of them. */
#include "show_rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "names.h"
#include "region_order.h"
#include "sat.h"

/* ---- ordering shared by the three formats ---- */

struct tm_sum sl_show_timing_sum(const sl_timing_region *r)
{
    struct tm_sum s = {0};
    for (size_t t = 0; t < r->nthreads; t++) {
        s.calls = sl_add_sat(s.calls, r->call_counts[t]);
        s.total = sl_add_sat(s.total, r->total_ns[t]);
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

#define SL_TF_NAME(id, name) name,
const char *const sl_timing_fig_names[SL_TF_N] = {SL_TIMING_FIGS(SL_TF_NAME)};
#undef SL_TF_NAME

void sl_show_timing_figs(const sl_timing_region *r, const struct tm_sum *s,
                         struct sl_fig fig[SL_TF_N])
{
    long long ints[SL_TF_N] = {
        [SL_TF_THREADS] = (long long)r->nthreads, [SL_TF_CALLS] = s->calls,
        [SL_TF_TOTAL] = s->total, [SL_TF_MIN] = s->min, [SL_TF_MAX] = s->max,
        [SL_TF_DROPPED] = r->dropped_calls, [SL_TF_OPEN] = r->open_at_close,
        [SL_TF_UNMATCHED] = r->unmatched_stops, [SL_TF_NESTED] = r->nested_starts,
    };
    for (size_t k = 0; k < SL_TF_N; k++)
        fig[k] = (struct sl_fig){.name = sl_timing_fig_names[k], .kind = SL_FIG_INT, .i = ints[k]};
    fig[SL_TF_MEAN].kind = SL_FIG_NONE;
    if (s->calls > 0)
        fig[SL_TF_MEAN] = (struct sl_fig){.name = sl_timing_fig_names[SL_TF_MEAN], .kind = SL_FIG_DBL,
                                          .d = (double)s->total / (double)s->calls};
    if (!s->have_minmax)
        fig[SL_TF_MIN].kind = fig[SL_TF_MAX].kind = SL_FIG_NONE;
}

struct tm_sum *sl_show_timing_order(const sl_timing *tm)
{
    struct tm_sum *s = calloc(tm->nregions ? tm->nregions : 1, sizeof *s);
    size_t *order = sl_timing_order(tm);
    if (!s || !order) {
        free(s);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < tm->nregions; i++)
{
        s[i] = sl_show_timing_sum(&tm->regions[order[i]]);
        s[i].idx = order[i];
    }
    free(order);
    return s;
}

long sl_show_find_name(char **names, size_t n, const char *s, size_t hint)
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
    if (sl_show_find_name(*names, *n, s, hint) >= 0)
        return 0;
    return sl_filter_add(names, n, s);
}

void sl_show_group_rows_free(struct group_rows *g)
{
    sl_labels_free(g->labels, g->nlabels);
    sl_labels_free(g->metrics, g->nmetrics);
    memset(g, 0, sizeof *g);
}

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

static void labels_free(const sl_likwid *lw, char ***l)
{
    if (!l)
        return;
    for (size_t i = 0; i < lw->nregions; i++)
        sl_labels_free(l[i], lw->regions[i].nevents);
    free(l);
}

int sl_show_order(const sl_likwid *lw, size_t **order, char ****labels)
{
    *order = sl_likwid_order(lw);
    *labels = region_labels(lw);
    if (*order && *labels)
        return 0;
    sl_show_order_free(lw, *order, *labels);
    *order = NULL;
    *labels = NULL;
    return -ENOMEM;
}

void sl_show_order_free(const sl_likwid *lw, size_t *order, char ***labels)
{
    labels_free(lw, labels);
    free(order);
}

size_t sl_show_group_end(const sl_likwid *lw, const size_t *order, size_t k)
{
    size_t end = k;
    while (end < lw->nregions && lw->regions[order[end]].group_id == lw->regions[order[k]].group_id)
        end++;
    return end;
}

const char *sl_show_metric_name(const sl_region *r, size_t m)
{
    return r->metric_names[m] ? r->metric_names[m] : "";
}

int sl_show_group_rows(const sl_likwid *lw, char ***labels, const size_t *order,
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
            if (sl_filter_row(flt, sl_show_metric_name(r, m)) &&
                add_name(&g->metrics, &g->nmetrics, sl_show_metric_name(r, m), m))
                return -ENOMEM;
    }
    return 0;
}

long sl_show_value_rows(const sl_region *r, char **labels, const sl_show_filter *flt,
                        struct sl_value_row **rows)
{
    struct sl_value_row *v = malloc((2 + r->nevents + r->nmetrics) * sizeof *v);
    if (!(*rows = v))
        return -ENOMEM;
    long n = 0;
    if (sl_filter_row(flt, SL_ROW_NAME_CALLS))
        v[n++] = (struct sl_value_row){SL_ROW_NAME_CALLS, SL_ROW_CALLS, NULL, 0};
    if (sl_filter_row(flt, SL_ROW_NAME_RUNTIME))
        v[n++] = (struct sl_value_row){SL_ROW_NAME_RUNTIME, SL_ROW_TIME, r->times, 0};
    for (size_t e = 0; e < r->nevents; e++)
        if (sl_filter_row(flt, labels[e]))
            v[n++] = (struct sl_value_row){labels[e], SL_ROW_EVENT, r->events + e * r->nthreads, e};
    for (size_t m = 0; m < r->nmetrics; m++)
        if (sl_filter_row(flt, sl_show_metric_name(r, m)))
            v[n++] = (struct sl_value_row){sl_show_metric_name(r, m), SL_ROW_METRIC,
                                           r->metrics + m * r->nthreads, m};
    return n;
}

char *sl_show_tag(const char *tag, size_t len, int for_table)
{
    char *s = sl_tag_display(tag, len);
    if (s && for_table)
        for (char *p = s; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    return s;
}
