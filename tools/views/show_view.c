/* The filtered view of one run for `scope-likwid show`. The view holds
 * copies so the emitters stay simple: they print whatever regions the view
 * has, aggregated or not. */
#include "show_view.h"
#include "show_rows.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

/* Aggregate of n values at stride: NaN values are left out (a thread without
 * a value does not count, not even in the mean's denominator); all NaN: NaN. */
static double aggregate(sl_threads_mode m, const double *v, size_t n)
{
    double acc = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (m == SL_THREADS_MAX)
            acc = used ? fmax(acc, v[i]) : v[i];
        else
            acc += v[i];
        used++;
    }
    if (!used)
        return NAN;
    return m == SL_THREADS_MEAN ? acc / (double)used : acc;
}

static int copy_names(char **dst, char *const *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sl_set_string(&dst[i], src && src[i] ? src[i] : ""))
            return -ENOMEM;
    return 0;
}

static int view_region(const sl_show_filter *f, const sl_region *r, sl_show_view *v, size_t idx)
{
    int agg = f->threads != SL_THREADS_ALL;
    size_t T = agg ? 1 : r->nthreads;
    sl_region *c = sl_likwid_add(&v->lw, r->tag, r->tag_len, r->group_id, r->group_name, r->source,
                                 T, r->nevents, r->nmetrics, r->has_names);
    if (!c)
        return -ENOMEM;
    size_t i = v->lw.nregions - 1;
    v->src[i] = idx;
    if (copy_names(c->metric_names, r->metric_names, r->nmetrics))
        return -ENOMEM;
    if (r->has_names && (copy_names(c->event_names, r->event_names, r->nevents) ||
                         copy_names(c->counter_names, r->counter_names, r->nevents)))
        return -ENOMEM;
    if (!agg) {
        memcpy(c->cpus, r->cpus, T * sizeof *c->cpus);
        memcpy(c->times, r->times, T * sizeof *c->times);
        memcpy(c->call_counts, r->call_counts, T * sizeof *c->call_counts);
        memcpy(c->events, r->events, r->nevents * T * sizeof *c->events);
        memcpy(c->metrics, r->metrics, r->nmetrics * T * sizeof *c->metrics);
        v->calls[i] = NAN;
        return 0;
    }
    size_t n = r->nthreads;
    double *calls = malloc((n ? n : 1) * sizeof *calls);
    if (!calls)
        return -ENOMEM;
    for (size_t t = 0; t < n; t++)
        calls[t] = (double)r->call_counts[t];
    v->calls[i] = n ? aggregate(f->threads, calls, n) : 0;
    free(calls);
    c->cpus[0] = -1;
    c->call_counts[0] = isfinite(v->calls[i]) ? (int64_t)llround(v->calls[i]) : 0;
    c->times[0] = n ? aggregate(f->threads, r->times, n) : NAN;
    for (size_t e = 0; e < r->nevents; e++)
        c->events[e] = n ? aggregate(f->threads, r->events + e * n, n) : NAN;
    /* Metrics are LIKWID's per-thread results: under sum, a rate, an
     * energy or a data volume sums over threads (the region's total
     * MFLOP/s, bandwidth); a time, clock, CPI or ratio has no sum and is
     * left without a value (nan: "-"), never shown as some other figure. */
    for (size_t m = 0; m < r->nmetrics; m++) {
        int nosum = sl_filter_nosum(f, sl_show_metric_name(r, m));
        c->metrics[m] = n && !nosum ? aggregate(f->threads, r->metrics + m * n, n) : NAN;
    }
    return 0;
}

static int view_timing(const sl_timing_region *r, sl_timing *tm)
{
    sl_timing_region *c = sl_timing_add(tm, r->tag, r->tag_len, r->nthreads, r->ncalls);
    if (!c)
        return -ENOMEM;
    c->dropped_calls = r->dropped_calls;
    c->open_at_close = r->open_at_close;
    c->unmatched_stops = r->unmatched_stops;
    c->nested_starts = r->nested_starts;
    size_t T = r->nthreads, C = r->ncalls;
    memcpy(c->threads, r->threads, T * sizeof *c->threads);
    memcpy(c->call_counts, r->call_counts, T * sizeof *c->call_counts);
    memcpy(c->total_ns, r->total_ns, T * sizeof *c->total_ns);
    memcpy(c->min_ns, r->min_ns, T * sizeof *c->min_ns);
    memcpy(c->max_ns, r->max_ns, T * sizeof *c->max_ns);
    memcpy(c->call_threads, r->call_threads, C * sizeof *c->call_threads);
    memcpy(c->start_times, r->start_times, C * sizeof *c->start_times);
    memcpy(c->end_times, r->end_times, C * sizeof *c->end_times);
    return 0;
}

int sl_show_view_build(const sl_show_filter *f, const sl_run *run, sl_show_view *v)
{
    memset(v, 0, sizeof *v);
    sl_likwid_init(&v->lw);
    sl_timing_init(&v->tm);
    v->lw.source = run->likwid.source;
    size_t n = run->likwid.nregions;
    v->src = calloc(n ? n : 1, sizeof *v->src);
    v->calls = calloc(n ? n : 1, sizeof *v->calls);
    if (!v->src || !v->calls)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const sl_region *r = &run->likwid.regions[i];
        if (!sl_filter_region(f, r->tag, r->tag_len) || !sl_filter_group(f, r))
            continue;
        if (view_region(f, r, v, i))
            return -ENOMEM;
    }
    if (sl_set_string(&v->tm.clock, run->timing.clock ? run->timing.clock : ""))
        return -ENOMEM;
    v->tm.origin_unix_ns = run->timing.origin_unix_ns;
    v->tm.recorder = run->timing.recorder;
    for (size_t i = 0; i < run->timing.nregions; i++) {
        const sl_timing_region *r = &run->timing.regions[i];
        if (sl_filter_region(f, r->tag, r->tag_len) && view_timing(r, &v->tm))
            return -ENOMEM;
    }
    return 0;
}

void sl_show_view_free(sl_show_view *v)
{
    sl_likwid_free(&v->lw);
    sl_timing_free(&v->tm);
    free(v->src);
    free(v->calls);
    memset(v, 0, sizeof *v);
}
