/* Per-thread region timing (see region_table.h).
 *
 * Each thread owns an sl_rt_thread: an open-addressing hash table of entry
 * pointers (for lookup), a linked list of its entries in creation order (for
 * Close), and a sample log in an mmap'ed arena. Only the owner writes; Close
 * reads from another thread. Entries and tables are published with release
 * stores and never freed (Close may be reading them), counters are relaxed
 * atomics written by their single owner with plain load+store (no RMW cost).
 * This file: the tables, lookup and the hot path; see rt_internal.h for
 * the structures and the other files. */
#include "rt_internal.h"

#include "journal_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define INITIAL_SLOTS 16

_Atomic(sl_rt_thread *) sl_rt_all_threads;
static _Atomic int64_t cfg_max_calls = 1000;
static __thread sl_rt_thread *tls_self __attribute__((tls_model("initial-exec")));
/* tls_self when the thread's clock is the TSC, else NULL: the hot path's one
 * test covers both "has a table" and "which clock" (clock_gettime threads
 * take the general path, which the clock's cost dwarfs anyway). */
static __thread sl_rt_thread *tls_fast __attribute__((tls_model("initial-exec")));

static inline int64_t now_ticks(const sl_rt_thread *t)
{
#if defined(__x86_64__)
    if (LIKELY(t->tsc))
        return (int64_t)__rdtsc();
#else
    (void)t;
#endif
    return sl_rt_now_ns();
}

void sl_rt_configure(int64_t max_calls, size_t arena_bytes)
{
    atomic_store(&cfg_max_calls, max_calls < 0 ? 0 : max_calls);
    sl_rt_arena_configure(arena_bytes);
}


/* In the journal when there is one, else in the pool (rt_arena.c). */
static table *table_new(size_t cap, table *prev)
{
    table *t = sl_journal_alloc(SL_JRN_TABLE, sizeof *t + cap * sizeof t->slots[0], NULL);
    if (t)
        sl_journal_commit(t);
    else if (!(t = sl_rt_pool_alloc(sizeof *t + cap * sizeof t->slots[0])))
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
    /* In the journal when there is one: its tid and sample pointers are
     * what a reader of the journal needs. */
    sl_rt_thread *t = sl_journal_alloc(SL_JRN_THREAD, sizeof *t, NULL);
    int in_journal = t != NULL;
    if (!t) {
        sl_journal_note_outside(0);
        t = sl_rt_pool_alloc(sizeof *t);
    }
    table *tb = t ? table_new(INITIAL_SLOTS, NULL) : NULL;
    if (!t || !tb)
        return NULL;    /* no memory: what was made stays in the pool */
    t->tid = (int64_t)gettid();
    t->in_journal = in_journal;
    t->tsc = sl_rt_clock_tsc();
    atomic_init(&t->tbl, tb);
    atomic_init(&t->first, NULL);
    atomic_init(&t->arena, NULL);
    atomic_init(&t->snext, NULL);
    /* Lock-free push; the release publishes everything above. */
    sl_rt_thread *head = atomic_load_explicit(&sl_rt_all_threads, RELAXED);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak_explicit(&sl_rt_all_threads, &head, t,
                                                  memory_order_release, RELAXED));
    if (in_journal)
        sl_journal_commit(t);
    tls_self = t;
    if (t->tsc)
        tls_fast = t;
    return t;
}

/* In a forked child (its one thread, from the atfork handler): the
 * parent's tables are not the child's. They stay where they are (in the
 * parent's journal, shared with it, or in the child's copy of the pool)
 * and are never reached again; the child's threads make new ones. */
void sl_rt_fork_child(void)
{
    atomic_store_explicit(&sl_rt_all_threads, NULL, RELAXED);
    tls_self = NULL;
    tls_fast = NULL;
    sl_rt_pool_fork_child();
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

/* In the journal when there is one (the tag right behind the entry), so
 * that the counters survive a kill; else in the pool. */
static sl_rt_entry *entry_new(sl_rt_thread *t, const char *tag, size_t len, uint64_t hash)
{
    sl_rt_entry *e = sl_journal_alloc(SL_JRN_ENTRY, sizeof *e + len + 1, t);
    int in_journal = e != NULL;
    if (!e && t->in_journal)
        sl_journal_note_outside(1);
    if (!e && !(e = sl_rt_pool_alloc(sizeof *e + len + 1)))
        return NULL;
    char *copy = (char *)(e + 1);
    memcpy(copy, tag, len + 1);
    e->tag = copy;
    e->len = len;
    e->hash = hash;
    e->close_index = SIZE_MAX;
    e->cap = atomic_load_explicit(&cfg_max_calls, RELAXED);
    atomic_init(&e->left, e->cap);
    atomic_init(&e->open_start, -1);
    /* So that a dropped call needs no "first?" test. */
    atomic_init(&e->dropped_min, INT64_MAX);
    atomic_init(&e->dropped_max, INT64_MIN);
    if (in_journal)
        sl_journal_commit(e);
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
    sl_rt_entry *e = entry_new(t, tag, len, h);
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


static inline __attribute__((always_inline)) int start_at(sl_rt_entry *e, int64_t now)
{
    if (UNLIKELY(atomic_load_explicit(&e->open_start, RELAXED) >= 0)) {
        bump(&e->nested, 1);
        return 1;
    }
    atomic_store_explicit(&e->open_start, now, RELAXED);
    return 0;
}

int sl_rt_start(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    (void)t;
    return start_at(e, now);
}


static inline __attribute__((always_inline)) int stop_at(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    int64_t start = atomic_load_explicit(&e->open_start, RELAXED);
    if (UNLIKELY(start < 0)) {
        bump(&e->unmatched, 1);
        return -1;
    }
    atomic_store_explicit(&e->open_start, -1, RELAXED);
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    int64_t left = atomic_load_explicit(&e->left, RELAXED);
    atomic_store_explicit(&e->left, left - 1, RELAXED);
    if (LIKELY(left > 0) && LIKELY(s < t->end))
        keep(t, s, e, start, now);
    else if (left <= 0)
        drop(e, now - start);
    else
        sl_rt_record_slow(t, e, start, now);
    return 0;
}

int sl_rt_stop(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    return stop_at(t, e, now);
}

/* ---- the hot path: tag pointer -> entry through a per-thread cache ---- */

/* Tags that collide just take the hash path. */
static inline size_t hot_index(const char *tag)
{
    return ((uintptr_t)tag >> 3) & (HOT_SLOTS - 1);
}

/* The tag's cache slot, computed once into a register (the empty asm keeps
 * the compiler from re-deriving every field's address from the index). */
static inline hot *hot_slot(sl_rt_thread *t, const char *tag)
{
    hot *h = &t->cache[hot_index(tag)];
    __asm__("" : "+r"(h));
    return h;
}

COLD void sl_rt_hot_fill(hot *h, const char *tag, sl_rt_entry *e)
{
    uintptr_t off = (uintptr_t)tag & 7;
    size_t n = off + e->len + 1;
    h->ptr = NULL;
    if (n > 8 * HOT_WORDS)
        return;     /* long tag: always the hash path */
    unsigned char want[8 * HOT_WORDS] = {0}, mask[8 * HOT_WORDS] = {0};
    memcpy(want + off, tag, e->len + 1);
    memset(mask + off, 0xff, e->len + 1);
    memcpy(h->want, want, sizeof want);
    memcpy(h->mask, mask, sizeof mask);
    h->nwords = (n + 7) / 8;
    h->e = e;
    h->ptr = tag;
}

static COLD sl_rt_entry *hot_miss(sl_rt_thread *t, hot *h, const char *tag, int create)
{
    sl_rt_entry *e = sl_rt_lookup(t, tag, create);
    if (e)
        sl_rt_hot_fill(h, tag, e);
    return e;
}

static inline __attribute__((always_inline)) sl_rt_entry *hot_lookup(sl_rt_thread *t, const char *tag,
                                                                     int create)
{
    hot *h = &t->cache[hot_index(tag)];
    if (LIKELY(h->ptr == tag) && LIKELY(sl_rt_hot_same(h)))
        return h->e;
    return hot_miss(t, h, tag, create);
}

static inline int64_t tsc_now(void)
{
#if defined(__x86_64__)
    return (int64_t)__rdtsc();
#else
    return 0;       /* never used: tls_fast stays NULL */
#endif
}

/* The general paths: no TSC, no table yet, or a cache miss. */
static COLD void start_slow(const char *tag)
{
    sl_rt_start_now(tag);
}

static COLD int stop_slow(const char *tag, sl_rt_fwd real)
{
    int rc = sl_rt_stop_now(tag);
    if (rc == -1)
        return -EFAULT;
    return real(tag);       /* also for -2: no table, cannot judge */
}

static COLD int stop_miss(sl_rt_thread *t, hot *h, const char *tag, sl_rt_fwd real, int64_t now)
{
    sl_rt_entry *e = hot_miss(t, h, tag, 0);
    if (!e) {
        sl_rt_unmatched(t, tag);
        return -EFAULT;
    }
    if (stop_at(t, e, now) != 0)
        return -EFAULT;
    return real(tag);
}

/* One function per entry point, LIKWID's call included, so that the
 * common case is one straight path: LIKWID, then the thread's table (one
 * TLS load, which also says the clock is the TSC), the cached entry, the
 * clock, the stores. */
int sl_rt_start_fwd(const char *tag, sl_rt_fwd real)
{
    int rc = real(tag);
    sl_rt_thread *t = tls_fast;
    if (LIKELY(t != NULL)) {
        hot *h = hot_slot(t, tag);
        if (LIKELY(h->ptr == tag) && LIKELY(sl_rt_hot_same(h))) {
            start_at(h->e, tsc_now());
            return rc;
        }
    }
    start_slow(tag);
    return rc;
}

int sl_rt_stop_fwd(const char *tag, sl_rt_fwd real)
{
    sl_rt_thread *t = tls_fast;
    if (UNLIKELY(t == NULL))
        return stop_slow(tag, real);
    int64_t now = tsc_now();
    hot *h = hot_slot(t, tag);
    if (UNLIKELY(h->ptr != tag) || UNLIKELY(!sl_rt_hot_same(h)))
        return stop_miss(t, h, tag, real, now);
    if (UNLIKELY(stop_at(t, h->e, now) != 0))
        return -EFAULT;
    return real(tag);
}

int sl_rt_have_table(void)
{
    return tls_self != NULL;
}

int sl_rt_start_now(const char *tag)
{
    sl_rt_thread *t = tls_self;
    if (UNLIKELY(!t) && !(t = sl_rt_self()))
        return -2;
    sl_rt_entry *e = hot_lookup(t, tag, 1);
    if (UNLIKELY(!e))
        return -2;
    return start_at(e, now_ticks(t));
}

int sl_rt_stop_now(const char *tag)
{
    sl_rt_thread *t = tls_self;
    int64_t now = t ? now_ticks(t) : 0;
    if (UNLIKELY(!t) && !(t = sl_rt_self()))
        return -2;
    sl_rt_entry *e = hot_lookup(t, tag, 0);
    if (UNLIKELY(!e)) {
        sl_rt_unmatched(t, tag);
        return -1;
    }
    return stop_at(t, e, now);
}

/* Every Start leaves the region open, or (when it was open) counts as
 * nested; every Stop of an open region counts left down. */
int sl_rt_started(const sl_rt_entry *e)
{
    return sl_rt_is_open(e) || atomic_load_explicit(&((sl_rt_entry *)e)->left, RELAXED) != e->cap;
}

int sl_rt_is_open(const sl_rt_entry *e)
{
    return atomic_load_explicit(&((sl_rt_entry *)e)->open_start, RELAXED) >= 0;
}

void sl_rt_unmatched(sl_rt_thread *t, const char *tag)
{
    sl_rt_entry *e = sl_rt_lookup(t, tag, 1);
    if (e)
        bump(&e->unmatched, 1);
}

