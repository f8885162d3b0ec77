/* Per-thread region timing (see region_table.h).
 *
 * Each thread owns an sl_rt_thread: an open-addressing hash table of entry
 * pointers (for lookup), a linked list of its entries in creation order (for
 * Close), and a sample log in an mmap'ed arena. Only the owner writes; Close
 * reads from another thread. Entries and tables are published with release
 * stores and never freed (Close may be reading them), counters are relaxed
 * atomics written by their single owner with plain load+store (no RMW cost). */
#include "region_table.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RELAXED memory_order_relaxed
#define INITIAL_SLOTS 16
#define DEFAULT_ARENA ((size_t)256 << 20)
#define MIN_ARENA ((size_t)1 << 20)

struct sl_rt_entry {
    /* Immutable once published. */
    char *tag;
    size_t len;
    uint64_t hash;
    _Atomic(sl_rt_entry *) next;        /* creation order within the thread */
    /* Written by the owner, read by Close. */
    _Atomic int64_t calls, total_ns, min_ns, max_ns;
    _Atomic int64_t starts, nested, unmatched, dropped;
    _Atomic int open;
    /* Owner only. */
    int64_t open_start;
    int64_t recorded;
    /* Close only (set to SIZE_MAX by the owner before publication). */
    size_t close_index;
};

typedef struct sample {
    sl_rt_entry *e;
    int64_t start, end;
} sample;

typedef struct table {
    size_t cap;                         /* power of two */
    struct table *prev;                 /* retired tables stay reachable */
    _Atomic(sl_rt_entry *) slots[];
} table;

struct sl_rt_thread {
    sl_rt_thread *next;                 /* immutable once published */
    int64_t tid;
    _Atomic(table *) tbl;
    size_t count;                       /* owner only */
    _Atomic(sl_rt_entry *) first;
    sl_rt_entry *last;                  /* owner only */
    sample *arena;                      /* owner maps it; Close reads below nsamples */
    size_t arena_cap;                   /* samples */
    int arena_tried;
    _Atomic size_t nsamples;
};

static _Atomic(sl_rt_thread *) all_threads;
static _Atomic int64_t cfg_max_calls = 1000;
static _Atomic size_t cfg_arena_bytes = DEFAULT_ARENA;
static __thread sl_rt_thread *tls_self __attribute__((tls_model("initial-exec")));

void sl_rt_configure(int64_t max_calls, size_t arena_bytes)
{
    atomic_store(&cfg_max_calls, max_calls < 0 ? 0 : max_calls);
    atomic_store(&cfg_arena_bytes, arena_bytes ? arena_bytes : DEFAULT_ARENA);
}

int64_t sl_rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static table *table_new(size_t cap, table *prev)
{
    table *t = calloc(1, sizeof *t + cap * sizeof t->slots[0]);
    if (!t)
        return NULL;
    t->cap = cap;
    t->prev = prev;
    for (size_t i = 0; i < cap; i++)
        atomic_init(&t->slots[i], NULL);
    return t;
}

sl_rt_thread *sl_rt_self(void)
{
    if (__builtin_expect(tls_self != NULL, 1))
        return tls_self;
    sl_rt_thread *t = calloc(1, sizeof *t);
    table *tb = table_new(INITIAL_SLOTS, NULL);
    if (!t || !tb) {
        free(t);
        free(tb);
        return NULL;
    }
    t->tid = (int64_t)gettid();
    atomic_init(&t->tbl, tb);
    atomic_init(&t->first, NULL);
    atomic_init(&t->nsamples, 0);
    /* Lock-free push; the release publishes everything above. */
    sl_rt_thread *head = atomic_load_explicit(&all_threads, RELAXED);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak_explicit(&all_threads, &head, t,
                                                  memory_order_release, RELAXED));
    tls_self = t;
    return t;
}

/* FNV-1a over the tag; also gives its length. */
static uint64_t hash_tag(const char *tag, size_t *len)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *p = (const unsigned char *)tag;
    for (; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    *len = (size_t)(p - (const unsigned char *)tag);
    return h;
}

static void slot_put(table *tb, sl_rt_entry *e)
{
    size_t mask = tb->cap - 1;
    for (size_t i = e->hash & mask;; i = (i + 1) & mask)
        if (!atomic_load_explicit(&tb->slots[i], RELAXED)) {
            atomic_store_explicit(&tb->slots[i], e, memory_order_release);
            return;
        }
}

/* Doubles the table; the old one is kept (linked) since nothing is freed. */
static int grow(sl_rt_thread *t)
{
    table *old = atomic_load_explicit(&t->tbl, RELAXED);
    table *nt = table_new(old->cap * 2, old);
    if (!nt)
        return -ENOMEM;
    for (size_t i = 0; i < old->cap; i++) {
        sl_rt_entry *e = atomic_load_explicit(&old->slots[i], RELAXED);
        if (e)
            slot_put(nt, e);
    }
    atomic_store_explicit(&t->tbl, nt, memory_order_release);
    return 0;
}

static sl_rt_entry *entry_new(const char *tag, size_t len, uint64_t hash)
{
    sl_rt_entry *e = calloc(1, sizeof *e);
    char *copy = malloc(len + 1);
    if (!e || !copy) {
        free(e);
        free(copy);
        return NULL;
    }
    memcpy(copy, tag, len + 1);
    e->tag = copy;
    e->len = len;
    e->hash = hash;
    e->close_index = SIZE_MAX;
    return e;
}

sl_rt_entry *sl_rt_lookup(sl_rt_thread *t, const char *tag, int create)
{
    size_t len;
    uint64_t h = hash_tag(tag, &len);
    table *tb = atomic_load_explicit(&t->tbl, RELAXED);
    size_t mask = tb->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        sl_rt_entry *e = atomic_load_explicit(&tb->slots[i], RELAXED);
        if (!e)
            break;
        if (e->hash == h && e->len == len && memcmp(e->tag, tag, len) == 0)
            return e;
    }
    if (!create)
        return NULL;
    /* Keep the load factor at most 1/2. */
    if ((t->count + 1) * 2 > tb->cap) {
        if (grow(t) != 0)
            return NULL;
        tb = atomic_load_explicit(&t->tbl, RELAXED);
    }
    sl_rt_entry *e = entry_new(tag, len, h);
    if (!e)
        return NULL;
    slot_put(tb, e);
    t->count++;
    if (t->last)
        atomic_store_explicit(&t->last->next, e, memory_order_release);
    else
        atomic_store_explicit(&t->first, e, memory_order_release);
    t->last = e;
    return e;
}

/* Single writer: a relaxed load and store is enough (and cheaper than RMW). */
static inline void bump(_Atomic int64_t *a, int64_t by)
{
    atomic_store_explicit(a, atomic_load_explicit(a, RELAXED) + by, RELAXED);
}

int sl_rt_start(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    (void)t;
    bump(&e->starts, 1);
    if (atomic_load_explicit(&e->open, RELAXED)) {
        bump(&e->nested, 1);
        return 1;
    }
    e->open_start = now;
    atomic_store_explicit(&e->open, 1, RELAXED);
    return 0;
}

static sample *arena_slot(sl_rt_thread *t)
{
    if (!t->arena && !t->arena_tried) {
        t->arena_tried = 1;
        /* Reserve address space only; pages are touched as samples arrive. */
        for (size_t bytes = atomic_load(&cfg_arena_bytes); bytes >= sizeof(sample);
             bytes = bytes > MIN_ARENA ? bytes / 2 : 0) {
            void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p != MAP_FAILED) {
                t->arena = p;
                t->arena_cap = bytes / sizeof(sample);
                break;
            }
            if (bytes <= MIN_ARENA)
                break;
        }
    }
    size_t n = atomic_load_explicit(&t->nsamples, RELAXED);
    return t->arena && n < t->arena_cap ? &t->arena[n] : NULL;
}

int sl_rt_stop(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    if (!atomic_load_explicit(&e->open, RELAXED)) {
        bump(&e->unmatched, 1);
        return -1;
    }
    int64_t d = now - e->open_start;
    int64_t calls = atomic_load_explicit(&e->calls, RELAXED);
    if (calls == 0 || d < atomic_load_explicit(&e->min_ns, RELAXED))
        atomic_store_explicit(&e->min_ns, d, RELAXED);
    if (calls == 0 || d > atomic_load_explicit(&e->max_ns, RELAXED))
        atomic_store_explicit(&e->max_ns, d, RELAXED);
    bump(&e->total_ns, d);
    atomic_store_explicit(&e->calls, calls + 1, RELAXED);
    atomic_store_explicit(&e->open, 0, RELAXED);

    sample *s = NULL;
    if (e->recorded < atomic_load_explicit(&cfg_max_calls, RELAXED))
        s = arena_slot(t);
    if (s) {
        s->e = e;
        s->start = e->open_start;
        s->end = now;
        e->recorded++;
        /* Publishes the sample to Close. */
        atomic_store_explicit(&t->nsamples, atomic_load_explicit(&t->nsamples, RELAXED) + 1,
                              memory_order_release);
    } else {
        bump(&e->dropped, 1);
    }
    return 0;
}

int sl_rt_started(const sl_rt_entry *e)
{
    return atomic_load_explicit(&((sl_rt_entry *)e)->starts, RELAXED) > 0;
}

int sl_rt_is_open(const sl_rt_entry *e)
{
    return atomic_load_explicit(&((sl_rt_entry *)e)->open, RELAXED) != 0;
}

void sl_rt_unmatched(sl_rt_thread *t, const char *tag)
{
    sl_rt_entry *e = sl_rt_lookup(t, tag, 1);
    if (e)
        bump(&e->unmatched, 1);
}

void sl_rt_each_started(sl_rt_thread *t, void (*fn)(void *ctx, const char *tag), void *ctx)
{
    for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
         e = atomic_load_explicit(&e->next, memory_order_acquire))
        if (sl_rt_started(e))
            fn(ctx, e->tag);
}

/* ---- Close: merge every thread's entries into one sl_timing ---- */

typedef struct rec {
    sl_rt_entry *e;
    int64_t tid, calls, total, min, max, nested, unmatched, dropped;
    int open;
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
    size_t *nsnap;
    size_t nthreads;
    rec *recs;
    size_t nrecs, rcap;
    agg *aggs;
    size_t naggs;
    size_t *map;        /* open addressing over aggs, SIZE_MAX = empty */
    size_t mapcap;
} collect_ctx;

static void collect_free(collect_ctx *c)
{
    free(c->threads);
    free(c->nsnap);
    free(c->recs);
    free(c->aggs);
    free(c->map);
}

static int gather(collect_ctx *c)
{
    size_t n = 0;
    for (sl_rt_thread *t = atomic_load_explicit(&all_threads, memory_order_acquire); t; t = t->next)
        n++;
    c->threads = calloc(n ? n : 1, sizeof *c->threads);
    c->nsnap = calloc(n ? n : 1, sizeof *c->nsnap);
    if (!c->threads || !c->nsnap)
        return -ENOMEM;
    /* The list is newest first: store it oldest first. */
    size_t i = n;
    for (sl_rt_thread *t = atomic_load_explicit(&all_threads, memory_order_acquire); t && i;
         t = t->next)
        c->threads[--i] = t;
    c->nthreads = n;

    for (i = 0; i < n; i++) {
        sl_rt_thread *t = c->threads[i];
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire)) {
            rec r = {.e = e, .tid = t->tid};
            r.calls = atomic_load_explicit(&e->calls, RELAXED);
            r.total = atomic_load_explicit(&e->total_ns, RELAXED);
            r.min = atomic_load_explicit(&e->min_ns, RELAXED);
            r.max = atomic_load_explicit(&e->max_ns, RELAXED);
            r.nested = atomic_load_explicit(&e->nested, RELAXED);
            r.unmatched = atomic_load_explicit(&e->unmatched, RELAXED);
            r.dropped = atomic_load_explicit(&e->dropped, RELAXED);
            r.open = atomic_load_explicit(&e->open, RELAXED);
            int64_t starts = atomic_load_explicit(&e->starts, RELAXED);
            e->close_index = SIZE_MAX;
            if (!(r.calls > 0 || r.open || r.unmatched > 0 || starts > 0))
                continue;   /* only registered */
            if (c->nrecs == c->rcap) {
                size_t cap = c->rcap ? c->rcap * 2 : 64;
                rec *g = realloc(c->recs, cap * sizeof *g);
                if (!g)
                    return -ENOMEM;
                c->recs = g;
                c->rcap = cap;
            }
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
    collect_ctx c = {0};
    int rc = gather(&c);
    if (rc == 0)
        rc = group_by_tag(&c);
    if (rc != 0) {
        collect_free(&c);
        return rc;
    }
    /* Count the samples each region gets, against one snapshot per thread. */
    for (size_t ti = 0; ti < c.nthreads; ti++) {
        sl_rt_thread *t = c.threads[ti];
        c.nsnap[ti] = atomic_load_explicit(&t->nsamples, memory_order_acquire);
        for (size_t i = 0; i < c.nsnap[ti]; i++) {
            size_t r = sample_rec(&c, &t->arena[i]);
            if (r != SIZE_MAX)
                c.aggs[c.recs[r].region].ncalls++;
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
        for (size_t i = 0; i < c.nsnap[ti]; i++) {
            size_t r = sample_rec(&c, &t->arena[i]);
            if (r == SIZE_MAX)
                continue;
            agg *g = &c.aggs[c.recs[r].region];
            sl_timing_region *R = &out->regions[base + c.recs[r].region];
            size_t k = g->fill++;
            R->call_threads[k] = t->tid;
            R->start_times[k] = t->arena[i].start;
            R->end_times[k] = t->arena[i].end;
        }
    }
    collect_free(&c);
    return 0;
}
