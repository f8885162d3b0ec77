/* What Close and NextGroup read from the region tables. */
#include "hot_path.h"
#include "vec.h"

/* What Close reads from the region table: the started regions of the
 * closing thread (for its GetRegion snapshots), and every thread's entries
 * and samples merged into one sl_timing, in CLOCK_MONOTONIC ns. */
void sl_rt_each_started(sl_rt_thread *t, int64_t group, void (*fn)(void *ctx, const char *tag),
                        void *ctx)
{
    for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
         e = atomic_load_explicit(&e->next, memory_order_acquire))
        if (sl_rt_started(e) &&
            (group < 0 || (group < 64 && (atomic_load_explicit(&e->groups, RELAXED) >> group & 1))))
            fn(ctx, e->tag);
}

/* Every Start of e so far: completed calls, nested Starts, the open one. */
static int64_t starts(const sl_rt_entry *e)
{
    sl_rt_entry *m = (sl_rt_entry *)e;
    return e->cap - atomic_load_explicit(&m->left, RELAXED) +
           atomic_load_explicit(&m->nested, RELAXED) + sl_rt_is_open(e);
}

void sl_rt_mark_group(int64_t group)
{
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t;
         t = t->next)
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire)) {
            int64_t s = starts(e);
            if (s == atomic_exchange_explicit(&e->group_starts, s, RELAXED))
                continue;
            if (group >= 0 && group < 64)
                atomic_fetch_or_explicit(&e->groups, (uint64_t)1 << group, RELAXED);
        }
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
            if (s->e == e)      /* a sample claimed, not written yet: none */
                ticks += s->end - s->start;
    if (t->tsc) {
        sl_tick_line line = sl_rt_conv_now();
        ticks = sl_tick_dur(&line, ticks);
    }
    *calls = e->cap - atomic_load_explicit(&e->left, RELAXED);
    *seconds = (double)ticks * 1e-9;
}

/* ---- Close: every thread's entries into one sl_timing ---- */

typedef struct collect_ctx {
    sl_rt_thread **threads;
    sample **snap;              /* each thread's snext, read once */
    size_t nthreads;
    sl_tc_entry *entries;
    sl_rt_entry **of;           /* each entry's table entry */
    size_t nentries, ecap;
    /* The walk over the samples. */
    size_t ti;
    seg_it it;
    sample *s, *end;
} collect_ctx;

static void collect_free(collect_ctx *c)
{
    free(c->threads);
    free(c->snap);
    free(c->entries);
    free(c->of);
}

/* Every thread's entries, their counters read once (before the samples). */
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

    size_t ocap = 0;
    for (i = 0; i < n; i++) {
        sl_rt_thread *t = c->threads[i];
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire)) {
            if (SL_VEC_RESERVE(c->entries, c->ecap, c->nentries, 1) < 0 ||
                SL_VEC_RESERVE(c->of, ocap, c->nentries, 1) < 0)
                return -ENOMEM;
            e->close_index = c->nentries;
            c->of[c->nentries] = e;
            c->entries[c->nentries++] = (sl_tc_entry){
                .tag = e->tag, .len = e->len, .tid = t->tid, .tsc = t->tsc,
                .open = atomic_load_explicit(&e->open_start, RELAXED) >= 0,
                .calls = e->cap - atomic_load_explicit(&e->left, RELAXED),
                .dropped_total = atomic_load_explicit(&e->dropped_total, RELAXED),
                .dropped_min = atomic_load_explicit(&e->dropped_min, RELAXED),
                .dropped_max = atomic_load_explicit(&e->dropped_max, RELAXED),
                .nested = atomic_load_explicit(&e->nested, RELAXED),
                .unmatched = atomic_load_explicit(&e->unmatched, RELAXED),
            };
        }
    }
    /* The samples against one snapshot per thread, taken after the counts. */
    for (i = 0; i < n; i++)
        c->snap[i] = atomic_load_explicit(&c->threads[i]->snext, memory_order_acquire);
    return 0;
}

static void walk_rewind(void *ctx)
{
    collect_ctx *c = ctx;
    c->ti = 0;
    c->it = seg_begin(c->nthreads ? c->threads[0] : NULL, c->nthreads ? c->snap[0] : NULL);
    c->s = c->end = NULL;
}

static int walk_next(void *ctx, sl_tc_sample *out)
{
    collect_ctx *c = ctx;
    while (c->s == c->end) {
        if (c->ti >= c->nthreads)
            return 0;
        if (!seg_next(&c->it, &c->s, &c->end)) {
            c->s = c->end = NULL;
            if (++c->ti < c->nthreads)
                c->it = seg_begin(c->threads[c->ti], c->snap[c->ti]);
        }
    }
    const sample *s = c->s++;
    const sl_rt_thread *t = c->threads[c->ti];
    /* An entry created after gather() (a thread still running), or a
     * sample claimed and not written yet (its entry not set), is none. */
    sl_rt_entry *se = s->e;
    size_t k = se ? se->close_index : SIZE_MAX;
    *out = (sl_tc_sample){.entry = k < c->nentries && c->of[k] == se ? k : SIZE_MAX,
                          .tid = t->tid, .tsc = t->tsc, .start = s->start, .end = s->end};
    return 1;
}

int sl_rt_collect(sl_timing *out)
{
    collect_ctx c = {0};
    sl_tick_line line = sl_rt_conv_now();
    int rc = gather(&c);
    if (rc == 0) {
        sl_tc_samples walk = {walk_rewind, walk_next, &c};
        rc = sl_timing_collect(out, c.entries, c.nentries, &line, &walk);
    }
    collect_free(&c);
    return rc;
}

void sl_rt_count_outside(int (*held)(const void *p), int64_t *tables, int64_t *entries)
{
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t;
         t = t->next) {
        if (!t->in_journal || !held(t)) {
            (*tables)++;
            continue;
        }
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire))
            if (!held(e))
                (*entries)++;
    }
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
            atomic_store_explicit(&e->group_starts, 0, RELAXED);
            atomic_store_explicit(&e->groups, 0, RELAXED);
        }
        sl_rt_arena_rewind(t);
    }
}
