/* Per-thread region timing (regions.h).
 *
 * Each thread owns an sl_rt_thread: an open-addressing hash table of entry
 * pointers (for lookup), a linked list of its entries in creation order (for
 * Close), and a sample log in an mmap'ed arena. Only the owner writes; Close
 * reads from another thread. Entries and tables are published with release
 * stores and never freed (Close may be reading them), counters are relaxed
 * atomics written by their single owner with plain load+store (no RMW cost).
 * This file: the tables, lookup and the hot path; see hot_path.h for
 * the structures and the other files. */
#include "hot_path.h"

#include <errno.h>
#include <string.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define INITIAL_SLOTS 16
#define LIST_MAX 4              /* entries found on the list, before a table */

static _Atomic int64_t cfg_max_calls = 1000;
static __thread sl_rt_thread *tls_self __attribute__((tls_model("initial-exec")));
/* The thread's lookup cache (NULL: none yet, or given back at its end). */
static __thread sl_rt_ctx *tls_ctx __attribute__((tls_model("initial-exec")));
/* tls_ctx when the thread's clock is the TSC, else NULL: the hot path's one
 * test covers both "has a table" and "which clock" (clock_gettime threads
 * take the general path, which the clock's cost dwarfs anyway). */
static __thread sl_rt_ctx *tls_fast __attribute__((tls_model("initial-exec")));
/* Its destructor runs when a thread that has a table ends. */
static pthread_key_t end_key;
static pthread_once_t end_key_once = PTHREAD_ONCE_INIT;

static inline int64_t now_ticks(int tsc)
{
#if defined(__x86_64__)
    if (LIKELY(tsc))
        return (int64_t)__rdtsc();
#else
    (void)tsc;
#endif
    return sl_rt_now_ns();
}

void sl_rt_configure(int64_t max_calls, size_t arena_bytes)
{
    atomic_store(&cfg_max_calls, max_calls < 0 ? 0 : max_calls);
    sl_rt_arena_configure(arena_bytes);
}

/* In the journal when there is one, else in the pool (arena.c). */
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

static sl_rt_thread *self_new(void);

sl_rt_thread *sl_rt_self(void)
{
    if (__builtin_expect(tls_self != NULL, 1))
        return tls_self;
    sigset_t old;
    sl_rt_quiet_begin(&old);
    /* A handler may have made it between the test and the mask. */
    sl_rt_thread *t = tls_self ? tls_self : self_new();
    sl_rt_quiet_end(&old);
    return t;
}

/* A thread ends (pthread_exit, or its start routine returns): what only
 * a live thread uses goes back (sl_rt_retire). A marker call after this
 * (another key's destructor) takes a cache again. */
static void thread_ends(void *p)
{
    sigset_t old;
    sl_rt_quiet_begin(&old);
    sl_rt_ctx *c = tls_ctx;
    tls_ctx = tls_fast = NULL;
    if (p == tls_self)
        sl_rt_retire(tls_self, c);
    sl_rt_quiet_end(&old);
}

static void end_key_make(void)
{
    if (pthread_key_create(&end_key, thread_ends) != 0)
        end_key = (pthread_key_t)-1;
}

/* The calling thread's cache (and table), made when it has none. NULL: no
 * memory. */
static COLD sl_rt_ctx *ctx_self(void)
{
    sl_rt_thread *t = sl_rt_self();
    if (!t)
        return NULL;
    sigset_t old;
    sl_rt_quiet_begin(&old);
    sl_rt_ctx *c = tls_ctx;
    if (!c && (c = sl_rt_ctx_take())) {
        c->t = t;
        c->tsc = t->tsc;
        tls_ctx = c;
        if (t->tsc)
            tls_fast = c;
    }
    sl_rt_quiet_end(&old);
    return c;
}

/* The calling thread's table, new (signals blocked). */
static sl_rt_thread *self_new(void)
{
    /* In the journal when there is one: its tid and sample pointers are
     * what a reader of the journal needs. */
    sl_rt_thread *t = sl_journal_alloc(SL_JRN_THREAD, sizeof *t, NULL);
    int in_journal = t != NULL;
    if (!t) {
        sl_journal_note_outside(0);
        t = sl_rt_pool_alloc(sizeof *t);
    }
    if (!t)
        return NULL;    /* no memory */
    t->tid = (int64_t)gettid();
    t->in_journal = in_journal;
    t->tsc = sl_rt_clock_tsc();
    atomic_init(&t->tbl, NULL);
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
    pthread_once(&end_key_once, end_key_make);
    if (end_key != (pthread_key_t)-1)
        pthread_setspecific(end_key, t);
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
    tls_ctx = tls_fast = NULL;
    sl_rt_pool_fork_child();
}

/* FNV-1a over at most HASH_ENDS bytes at each end of the tag and its
 * length; also gives the length. A long tag (a 1 MiB one, tags built from
 * a long common prefix and a counter) then costs a strlen and, on a hit,
 * one memcmp per call, both word-wise, never a byte-wise pass over it. */
#define HASH_ENDS 32

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static uint64_t hash_tag(const char *tag, size_t *len)
{
    const unsigned char *p = (const unsigned char *)tag;
    size_t n = strlen(tag);
    uint64_t h = fnv(1469598103934665603ULL, p, n < HASH_ENDS ? n : HASH_ENDS);
    if (n > HASH_ENDS)
        h = fnv(h, p + (n > 2 * HASH_ENDS ? n - HASH_ENDS : HASH_ENDS),
                n > 2 * HASH_ENDS ? HASH_ENDS : n - HASH_ENDS);
    *len = n;
    return (h ^ n) * 1099511628211ULL;
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

/* Doubles the table, or makes the first one from the list; the old one is
 * kept (linked) since nothing is freed. */
static int grow(sl_rt_thread *t)
{
    table *old = atomic_load_explicit(&t->tbl, RELAXED);
    table *nt = table_new(old ? old->cap * 2 : INITIAL_SLOTS, old);
    if (!nt)
        return -ENOMEM;
    for (sl_rt_entry *e = atomic_load_explicit(&t->first, RELAXED); e;
         e = atomic_load_explicit(&e->next, RELAXED))
        slot_put(nt, e);
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
    atomic_init(&e->group_starts, 0);
    atomic_init(&e->groups, 0);
    /* So that a dropped call needs no "first?" test. */
    atomic_init(&e->dropped_min, INT64_MAX);
    atomic_init(&e->dropped_max, INT64_MIN);
    if (in_journal)
        sl_journal_commit(e);
    return e;
}

/* The entry of tag in t's current table, or NULL. A handler that grows the
 * table meanwhile leaves the old one as it was (entries are never moved
 * out of a table, nor freed). */
static sl_rt_entry *find(sl_rt_thread *t, const char *tag, size_t len, uint64_t h)
{
    table *tb = atomic_load_explicit(&t->tbl, memory_order_acquire);
    if (!tb) {
        for (sl_rt_entry *e = atomic_load_explicit(&t->first, memory_order_acquire); e;
             e = atomic_load_explicit(&e->next, memory_order_acquire))
            if (e->hash == h && e->len == len && memcmp(e->tag, tag, len) == 0)
                return e;
        return NULL;
    }
    size_t mask = tb->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        sl_rt_entry *e = atomic_load_explicit(&tb->slots[i], memory_order_acquire);
        if (!e)
            return NULL;
        if (e->hash == h && e->len == len && memcmp(e->tag, tag, len) == 0)
            return e;
    }
}

static sl_rt_entry *entry_add(sl_rt_thread *t, const char *tag, size_t len, uint64_t h);

sl_rt_entry *sl_rt_lookup(sl_rt_thread *t, const char *tag, int make)
{
    size_t len;
    uint64_t h = hash_tag(tag, &len);
    sl_rt_entry *e = find(t, tag, len, h);
    if (e || !make)
        return e;
    sigset_t old;
    sl_rt_quiet_begin(&old);
    /* A handler may have made it between the look and the mask. */
    if (!(e = find(t, tag, len, h)))
        e = entry_add(t, tag, len, h);
    sl_rt_quiet_end(&old);
    return e;
}

/* A new entry for tag (signals blocked). */
static sl_rt_entry *entry_add(sl_rt_thread *t, const char *tag, size_t len, uint64_t h)
{
    table *tb = atomic_load_explicit(&t->tbl, RELAXED);
    /* A few entries are found on the list (most threads of a program that
     * runs many short ones have one); then the load factor at most 1/2. */
    if (tb ? (t->count + 1) * 2 > tb->cap : t->count + 1 > LIST_MAX) {
        if (grow(t) != 0)
            return NULL;
        tb = atomic_load_explicit(&t->tbl, RELAXED);
    }
    sl_rt_entry *e = entry_new(t, tag, len, h);
    if (!e)
        return NULL;
    if (tb)
        slot_put(tb, e);
    t->count++;
    if (t->last)
        atomic_store_explicit(&t->last->next, e, memory_order_release);
    else
        atomic_store_explicit(&t->first, e, memory_order_release);
    t->last = e;
    return e;
}

/* ---- the hot path: tag pointer -> entry through a per-thread cache ---- */

/* Tags that collide just take the hash path. */
static inline size_t hot_index(const char *tag)
{
    return ((uintptr_t)tag >> 3) & (HOT_SLOTS - 1);
}

/* The tag's cache slot, computed once into a register (the empty asm keeps
 * the compiler from re-deriving every field's address from the index). */
static inline hot *hot_slot(sl_rt_ctx *c, const char *tag)
{
    hot *h = &c->cache[hot_index(tag)];
    __asm__("" : "+r"(h));
    return h;
}

/* A handler of the same thread may fill the slot while this runs (its own
 * fill is whole when it returns): the slot is emptied first, and the
 * pointer is set last only when every field is still what this fill wrote,
 * so a slot is either empty or one fill's whole (a reader loads e before
 * checking, see hot_lookup). */
COLD void sl_rt_hot_fill(hot *h, const char *tag, sl_rt_entry *e)
{
    uintptr_t off = (uintptr_t)tag & 7;
    size_t n = off + e->len + 1;
    volatile hot *v = h;
    v->ptr = NULL;
    if (n > 8 * HOT_WORDS)
        return;     /* long tag: always the hash path */
    unsigned char want[8 * HOT_WORDS] = {0}, mask[8 * HOT_WORDS] = {0};
    memcpy(want + off, tag, e->len + 1);
    memset(mask + off, 0xff, e->len + 1);
    hot fill = {.ptr = tag, .e = e, .nwords = (n + 7) / 8};
    memcpy(fill.want, want, sizeof want);
    memcpy(fill.mask, mask, sizeof mask);
    v->e = e;
    v->nwords = fill.nwords;
    for (int i = 0; i < HOT_WORDS; i++) {
        v->want[i] = fill.want[i];
        v->mask[i] = fill.mask[i];
    }
    int whole = v->e == e && v->nwords == fill.nwords;
    for (int i = 0; i < HOT_WORDS; i++)
        whole &= v->want[i] == fill.want[i] && v->mask[i] == fill.mask[i];
    v->ptr = whole ? tag : NULL;
}

/* A slot's entry, loaded before its pointer and words are checked: a
 * handler that refills the slot between the check and this load would
 * otherwise hand the checked tag its own entry. */
static inline __attribute__((always_inline)) sl_rt_entry *hot_entry(const hot *h)
{
    sl_rt_entry *e = h->e;
    atomic_signal_fence(memory_order_acquire);
    return e;
}

static COLD sl_rt_entry *hot_miss(sl_rt_ctx *c, hot *h, const char *tag, int create)
{
    sl_rt_entry *e = sl_rt_lookup(c->t, tag, create);
    if (e)
        sl_rt_hot_fill(h, tag, e);
    return e;
}

static inline __attribute__((always_inline)) sl_rt_entry *hot_lookup(sl_rt_ctx *c, const char *tag,
                                                                     int create)
{
    hot *h = &c->cache[hot_index(tag)];
    sl_rt_entry *e = hot_entry(h);
    if (LIKELY(h->ptr == tag) && LIKELY(sl_rt_hot_same(h)))
        return e;
    return hot_miss(c, h, tag, create);
}

static inline int64_t tsc_now(void)
{
#if defined(__x86_64__)
    /* The halves combined in rdx: rax stays free for Stop's claim. */
    uint64_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (int64_t)(lo | hi << 32);
#else
    return 0;       /* never used: tls_fast stays NULL */
#endif
}

/* The general paths: no TSC, no table yet, or a cache miss. Start: as
 * sl_rt_start_at, or -2 when no memory (nothing timed). Stop: 0; -1 when
 * the region was not open or never started here (counted as an unmatched
 * stop); -2 when the thread has no table (no memory). Functions of their
 * own, out of the cold wrappers below and of interprocedural optimisation
 * (noipa): threads without the TSC run them on every call, and inlined or
 * specialised they cost more instructions per pair (callgrind). */
#if defined(__clang__)
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

static NOIPA int start_general(const char *tag)
{
    sl_rt_ctx *c = tls_ctx;
    if (UNLIKELY(!c) && !(c = ctx_self()))
        return -2;
    sl_rt_entry *e = hot_lookup(c, tag, 1);
    if (UNLIKELY(!e))
        return -2;
    return sl_rt_start_at(e, now_ticks(c->tsc));
}

static NOIPA int stop_general(const char *tag)
{
    sl_rt_ctx *c = tls_ctx;
    int64_t now = c ? now_ticks(c->tsc) : 0;
    if (UNLIKELY(!c)) {
        if (!(c = ctx_self()))
            return -2;
        now = now_ticks(c->tsc);
    }
    sl_rt_entry *e = hot_lookup(c, tag, 0);
    if (UNLIKELY(!e)) {
        sl_rt_unmatched(c->t, tag);
        return -1;
    }
    return sl_rt_stop_in(NULL, c, e, now);
}

static COLD void start_slow(const char *tag)
{
    start_general(tag);
}

static COLD int stop_slow(const char *tag, sl_rt_fwd real)
{
    int rc = stop_general(tag);
    if (rc == -1)
        return -EFAULT;
    return real(tag);       /* also for -2: no table, cannot judge */
}

static COLD int stop_miss(sl_rt_ctx *c, hot *h, const char *tag, sl_rt_fwd real, int64_t now)
{
    sl_rt_entry *e = hot_miss(c, h, tag, 0);
    if (!e) {
        sl_rt_unmatched(c->t, tag);
        return -EFAULT;
    }
    if (sl_rt_stop_at(c->t, e, now) != 0)
        return -EFAULT;
    return real(tag);
}

/* One function per entry point, LIKWID's call included, so that the
 * common case is one straight path: LIKWID, then the thread's cache (one
 * TLS load, which also says the clock is the TSC), the cached entry, the
 * clock, the stores. */
int sl_rt_start_fwd(const char *tag, sl_rt_fwd real)
{
    int rc = real(tag);
    sl_rt_ctx *c = tls_fast;
    if (LIKELY(c != NULL)) {
        hot *h = hot_slot(c, tag);
        sl_rt_entry *e = hot_entry(h);
        if (LIKELY(h->ptr == tag) && LIKELY(sl_rt_hot_same(h))) {
            sl_rt_start_at(e, tsc_now());
            return rc;
        }
    }
    start_slow(tag);
    return rc;
}

int sl_rt_stop_fwd(const char *tag, sl_rt_fwd real)
{
    sl_rt_ctx *c = tls_fast;
    if (UNLIKELY(c == NULL))
        return stop_slow(tag, real);
    int64_t now = tsc_now();
    hot *h = hot_slot(c, tag);
    sl_rt_entry *e = hot_entry(h);
    if (UNLIKELY(h->ptr != tag) || UNLIKELY(!sl_rt_hot_same(h)))
        return stop_miss(c, h, tag, real, now);
    if (UNLIKELY(sl_rt_stop_in(NULL, c, e, now) != 0))
        return -EFAULT;
    return real(tag);
}

int sl_rt_have_table(void)
{
    return tls_self != NULL;
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

__attribute__((noinline)) int64_t sl_rt_now_ns(void)
{
    return sl_clock_ns(CLOCK_MONOTONIC);
}
