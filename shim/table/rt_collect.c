/* What Close reads from the region table: the started regions of the
 * closing thread (for its GetRegion snapshots), and every thread's entries
 * and samples merged into one sl_timing, in CLOCK_MONOTONIC ns. */
#include "rt_internal.h"
#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sl_rt_each_started(sl_rt_thread *t, void (*fn)(void *ctx, const char *tag), void *ctx)
{
    for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
         e = atomic_load_explicit(&e->next, memory_order_acquire))
        if (sl_rt_started(e))
            fn(ctx, e->tag);
}

/* The chunks of a thread up to the one that holds snap, the thread's snext
 * read once (acquire): the chunks it passed were published before. */
typedef struct seg_it {
    sl_rt_chunk *c;
    sample *snap;
} seg_it;

static seg_it seg_begin(sl_rt_thread *t, sample *snap)
{
    return (seg_it){snap ? atomic_load_explicit(&t->arena, memory_order_acquire) : NULL, snap};
}

/* The next chunk's samples [*b, *e); 0 when there are no more. */
static int seg_next(seg_it *it, sample **b, sample **e)
{
    if (!it->c)
        return 0;
    int last = sl_rt_chunk_range(it->c, it->snap, b, e);
    it->c = last ? NULL : atomic_load_explicit(&it->c->next, memory_order_acquire);
    return 1;
}

void sl_rt_own(sl_rt_thread *t, const sl_rt_entry *e, int64_t *calls, double *seconds)
{
    int64_t ticks = atomic_load_explicit(&e->dropped_total, RELAXED);
    seg_it it = seg_begin(t, atomic_load_explicit(&t->snext, memory_order_acquire));
    sample *b, *end;
    while (seg_next(&it, &b, &end))
        for (sample *s = b; s < end; s++)
            if (s->e == e)
                ticks += s->end - s->start;
    if (t->tsc) {
        sl_rt_conv c = sl_rt_conv_now();
        ticks = sl_rt_conv_dur(&c, ticks);
    }
    *calls = e->cap - atomic_load_explicit(&e->left, RELAXED);
    *seconds = (double)ticks * 1e-9;
}

/* ---- Close: merge every thread's entries into one sl_timing ---- */

typedef struct rec {
    sl_rt_entry *e;
    int64_t tid, calls, kept, total, min, max, nested, unmatched, dropped;
    int open, tsc;
    size_t region, tslot;
} rec;

typedef struct agg {
    const char *tag;
    size_t len;
    uint64_t hash;
    size_t nthreads, ncalls, fill;
} agg;

typedef struct collect_ctx {
    sl_rt_thread **threads;
    sample **snap;      /* each thread's snext, read once */
    size_t nthreads;
    rec *recs;
    size_t nrecs, rcap;
    agg *aggs;
    size_t naggs;
    size_t *map;        /* open addressing over aggs, SIZE_MAX = empty */
    size_t mapcap;
    sl_rt_conv tsc;          /* for the threads that store TSC ticks */
} collect_ctx;

static void collect_free(collect_ctx *c)
{
    free(c->threads);
    free(c->snap);
    free(c->recs);
    free(c->aggs);
    free(c->map);
}

static int gather(collect_ctx *c)
{
    size_t n = 0;
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t; t = t->next)
        n++;
    c->threads = calloc(n ? n : 1, sizeof *c->threads);
    c->snap = calloc(n ? n : 1, sizeof *c->snap);
    if (!c->threads || !c->snap)
        return -ENOMEM;
    /* The list is newest first: store it oldest first. */
    size_t i = n;
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t && i;
         t = t->next)
        c->threads[--i] = t;
    c->nthreads = n;

    for (i = 0; i < n; i++) {
        sl_rt_thread *t = c->threads[i];
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire)) {
            /* The dropped calls' sums here; the kept ones are added from
             * the samples (total, min, max), in ticks, converted last. */
            rec r = {.e = e, .tid = t->tid, .tsc = t->tsc};
            r.calls = e->cap - atomic_load_explicit(&e->left, RELAXED);
            r.total = atomic_load_explicit(&e->dropped_total, RELAXED);
            r.min = atomic_load_explicit(&e->dropped_min, RELAXED);
            r.max = atomic_load_explicit(&e->dropped_max, RELAXED);
            r.nested = atomic_load_explicit(&e->nested, RELAXED);
            r.unmatched = atomic_load_explicit(&e->unmatched, RELAXED);
            r.open = atomic_load_explicit(&e->open_start, RELAXED) >= 0;
            e->close_index = SIZE_MAX;
            /* Only registered (a kept call is seen in the samples later:
             * close_index must be set for those too). */
            if (!(r.calls > 0 || r.open || r.unmatched > 0 || r.nested > 0))
                continue;
            if (SL_VEC_RESERVE(c->recs, c->rcap, c->nrecs, 1) < 0)
                return -ENOMEM;
            e->close_index = c->nrecs;
            c->recs[c->nrecs++] = r;
        }
    }
    return 0;
}

static int group_by_tag(collect_ctx *c)
{
    c->mapcap = 16;
    while (c->mapcap < c->nrecs * 2)
        c->mapcap *= 2;
    c->map = malloc(c->mapcap * sizeof *c->map);
    c->aggs = calloc(c->nrecs ? c->nrecs : 1, sizeof *c->aggs);
    if (!c->map || !c->aggs)
        return -ENOMEM;
    for (size_t i = 0; i < c->mapcap; i++)
        c->map[i] = SIZE_MAX;
    for (size_t r = 0; r < c->nrecs; r++) {
        sl_rt_entry *e = c->recs[r].e;
        size_t mask = c->mapcap - 1, i = e->hash & mask;
        for (;; i = (i + 1) & mask) {
            size_t a = c->map[i];
            if (a == SIZE_MAX) {
                a = c->naggs++;
                c->aggs[a] = (agg){.tag = e->tag, .len = e->len, .hash = e->hash};
                c->map[i] = a;
            }
            agg *g = &c->aggs[a];
            if (g->hash == e->hash && g->len == e->len && memcmp(g->tag, e->tag, e->len) == 0) {
                c->recs[r].region = a;
                c->recs[r].tslot = g->nthreads++;
                break;
            }
        }
    }
    return 0;
}

/* The record index of a logged sample, or SIZE_MAX for an entry created
 * after gather() (a thread still running). */
static size_t sample_rec(const collect_ctx *c, const sample *s)
{
    size_t idx = s->e->close_index;
    return idx < c->nrecs && c->recs[idx].e == s->e ? idx : SIZE_MAX;
}

int sl_rt_collect(sl_timing *out)
{
    collect_ctx c = {.tsc = sl_rt_conv_now()};
    int rc = gather(&c);
    if (rc == 0)
        rc = group_by_tag(&c);
    if (rc != 0) {
        collect_free(&c);
        return rc;
    }
    /* Count the samples each region gets, against one snapshot per thread,
     * and add them to their record's calls, total, min and max. */
    for (size_t ti = 0; ti < c.nthreads; ti++) {
        sl_rt_thread *t = c.threads[ti];
        c.snap[ti] = atomic_load_explicit(&t->snext, memory_order_acquire);
        seg_it it = seg_begin(t, c.snap[ti]);
        sample *b, *e;
        while (seg_next(&it, &b, &e)) {
            for (sample *s = b; s < e; s++) {
                size_t r = sample_rec(&c, s);
                if (r == SIZE_MAX)
                    continue;
                rec *x = &c.recs[r];
                int64_t d = s->end - s->start;
                c.aggs[x->region].ncalls++;
                x->kept++;
                x->total += d;
                if (d < x->min)
                    x->min = d;
                if (d > x->max)
                    x->max = d;
            }
        }
    }
    for (size_t r = 0; r < c.nrecs; r++) {
        rec *x = &c.recs[r];
        /* A thread still running may have kept samples after its count
         * was read. */
        if (x->calls < x->kept)
            x->calls = x->kept;
        x->dropped = x->calls - x->kept;
        /* No call, or a drop seen half-way (counted, min/max not yet). */
        if (x->min == INT64_MAX || x->max == INT64_MIN)
            x->min = x->max = 0;
        if (x->tsc) {
            x->total = sl_rt_conv_dur(&c.tsc, x->total);
            x->min = sl_rt_conv_dur(&c.tsc, x->min);
            x->max = sl_rt_conv_dur(&c.tsc, x->max);
        }
    }
    size_t base = out->nregions;
    for (size_t a = 0; a < c.naggs; a++)
        if (!sl_timing_add(out, c.aggs[a].tag, c.aggs[a].len, c.aggs[a].nthreads,
                           c.aggs[a].ncalls)) {
            collect_free(&c);
            return -ENOMEM;
        }
    for (size_t r = 0; r < c.nrecs; r++) {
        const rec *x = &c.recs[r];
        sl_timing_region *R = &out->regions[base + x->region];
        R->threads[x->tslot] = x->tid;
        R->call_counts[x->tslot] = x->calls;
        R->total_ns[x->tslot] = x->total;
        R->min_ns[x->tslot] = x->calls ? x->min : 0;
        R->max_ns[x->tslot] = x->calls ? x->max : 0;
        R->dropped_calls += x->dropped;
        R->open_at_close += x->open ? 1 : 0;
        R->unmatched_stops += x->unmatched;
        R->nested_starts += x->nested;
    }
    for (size_t ti = 0; ti < c.nthreads; ti++) {
        sl_rt_thread *t = c.threads[ti];
        seg_it it = seg_begin(t, c.snap[ti]);
        sample *b, *e;
        while (seg_next(&it, &b, &e)) {
            for (sample *s = b; s < e; s++) {
                size_t r = sample_rec(&c, s);
                if (r == SIZE_MAX)
                    continue;
                agg *g = &c.aggs[c.recs[r].region];
                sl_timing_region *R = &out->regions[base + c.recs[r].region];
                size_t k = g->fill++;
                R->call_threads[k] = t->tid;
                int64_t st = s->start, en = s->end;
                if (t->tsc) {
                    st = sl_rt_conv_time(&c.tsc, st);
                    en = sl_rt_conv_time(&c.tsc, en);
                }
                R->start_times[k] = st;
                R->end_times[k] = en;
            }
        }
    }
    collect_free(&c);
    return 0;
}

/* A new Init..Close cycle: every counter back to "never started", every
 * arena empty. Only while no thread runs regions (the mode is CLOSED):
 * entries and arenas are kept for reuse, nothing is freed. */
void sl_rt_forget(void)
{
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t;
         t = t->next) {
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire)) {
            atomic_store_explicit(&e->open_start, -1, RELAXED);
            atomic_store_explicit(&e->left, e->cap, RELAXED);
            atomic_store_explicit(&e->dropped_total, 0, RELAXED);
            atomic_store_explicit(&e->dropped_min, INT64_MAX, RELAXED);
            atomic_store_explicit(&e->dropped_max, INT64_MIN, RELAXED);
            atomic_store_explicit(&e->nested, 0, RELAXED);
            atomic_store_explicit(&e->unmatched, 0, RELAXED);
        }
        sl_rt_arena_rewind(t);
    }
}
