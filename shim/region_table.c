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
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#define RELAXED memory_order_relaxed
#define INITIAL_SLOTS 16
#define DEFAULT_ARENA ((size_t)256 << 20)
#define MIN_ARENA ((size_t)1 << 20)
#define HOT_SLOTS 4                     /* per-thread tag cache (power of two) */
#define HOT_WORDS 4                     /* tags of up to 32 - 1 - (tag & 7) bytes */
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define COLD __attribute__((cold, noinline))

/* Calls, total, min and max of a region in a thread are not summed per
 * call: every completed Stop counts `left` down from the cap (so calls =
 * cap - left), a kept call is its sample (Close sums the samples), and only
 * the calls not kept (beyond the cap, or no arena room) add to dropped_*
 * (dropped = calls - kept samples). That keeps Stop to one counter and the
 * sample's stores; the figures stay exact. */
struct sl_rt_entry {
    /* Immutable once published. */
    char *tag;
    size_t len;
    uint64_t hash;
    int64_t cap;                        /* samples kept at most (the cap at creation) */
    _Atomic(sl_rt_entry *) next;        /* creation order within the thread */
    /* Written by the owner, read by Close. */
    _Atomic int64_t open_start;         /* start of the open call; -1: not open */
    _Atomic int64_t dropped_total, dropped_min, dropped_max;
    _Atomic int64_t nested, unmatched;
    _Atomic int64_t left;               /* cap - completed calls (negative past the cap) */
    /* Close only (set to SIZE_MAX by the owner before publication). */
    size_t close_index;
};

typedef struct sample {
    sl_rt_entry *e;
    int64_t start, end;
} sample;

/* A word load that may alias the caller's chars. */
typedef uint64_t __attribute__((may_alias)) alias_u64;

/* One cached tag pointer: the aligned words that hold its bytes (the NUL
 * included) as they were, and which bytes of those words are the tag's. */
typedef struct hot {
    const char *ptr;
    sl_rt_entry *e;
    size_t nwords;
    uint64_t want[HOT_WORDS], mask[HOT_WORDS];
    uint8_t idx[HOT_WORDS];             /* word read for word i: min(i, nwords - 1) */
    char pad[128 - 3 * 8 - 2 * 8 * HOT_WORDS - HOT_WORDS];  /* a power of two: cheap indexing */
} hot;

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
    int tsc;                            /* times are TSC ticks (fixed at creation) */
    int arena_tried;
    sample *arena;                      /* owner maps it; Close reads below snext */
    _Atomic(sample *) snext;            /* the next free sample (NULL: no arena yet) */
    sample *end;                        /* end of the arena (NULL: none) */
    hot cache[HOT_SLOTS];               /* owner only */
};

static _Atomic(sl_rt_thread *) all_threads;
static _Atomic int64_t cfg_max_calls = 1000;
static _Atomic size_t cfg_arena_bytes = DEFAULT_ARENA;
static __thread sl_rt_thread *tls_self __attribute__((tls_model("initial-exec")));
/* tls_self when the thread's clock is the TSC, else NULL: the hot path's one
 * test covers both "has a table" and "which clock" (clock_gettime threads
 * take the general path, which the clock's cost dwarfs anyway). */
static __thread sl_rt_thread *tls_fast __attribute__((tls_model("initial-exec")));

/* ---- the clock ----
 * Region times are CLOCK_MONOTONIC nanoseconds. On x86-64 clock_gettime
 * costs about two TSC reads or more (vDSO: an ordered TSC read plus
 * scaling), so when the CPU has an invariant TSC (CPUID 0x80000007 EDX bit 8)
 * AND the kernel itself uses the TSC as the clocksource of CLOCK_MONOTONIC
 * (which also means the kernel found the TSCs of all CPUs in sync), the hot
 * path reads the raw TSC instead and stores ticks. They are converted to
 * CLOCK_MONOTONIC ns at collect time by the straight line through two
 * (TSC, CLOCK_MONOTONIC) pairs, one taken at sl_rt_clock_init (Init) and one
 * at sl_rt_collect (Close), each read bracketed between two TSC reads (the
 * narrowest of a few tries, its midpoint). The kernel derives
 * CLOCK_MONOTONIC from the same TSC by a linear map too (NTP only slews its
 * rate by parts per million), so the converted values are on
 * CLOCK_MONOTONIC to within the pairs' reading error (tens of ns here) plus
 * any NTP rate change during the run; durations likewise. The reads are not
 * serialising (rdtsc, not rdtscp/lfence): a few cycles of skew against the
 * application's instructions, far below the cost of the calls themselves.
 * Elsewhere (or SCOPE_LIKWID_TSC=0) clock_gettime is read directly. */
static _Atomic int clk_tsc;             /* set once, release; read acquire */
static int64_t clk_tick0, clk_ns0;      /* published by clk_tsc's release */

#if defined(__x86_64__)
static int invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

static int kernel_clock_is_tsc(void)
{
    char buf[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) != NULL && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return ok;
}

/* A (tick, ns) pair: the ns read between two TSC reads, the narrowest
 * bracket of a few tries, at its midpoint. */
static void clock_pair(int64_t *tick, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __rdtsc();
        int64_t n = sl_rt_now_ns();
        uint64_t b = __rdtsc();
        if (b >= a && b - a < best) {
            best = b - a;
            *tick = (int64_t)(a + (b - a) / 2);
            *ns = n;
        }
    }
}
#endif

int sl_rt_clock_init(int allow_tsc)
{
#if defined(__x86_64__)
    if (allow_tsc && invariant_tsc() && kernel_clock_is_tsc()) {
        clock_pair(&clk_tick0, &clk_ns0);
        atomic_store_explicit(&clk_tsc, 1, memory_order_release);
        return 1;
    }
#else
    (void)allow_tsc;
#endif
    return 0;
}

/* Ticks to ns: the line through (tick0, ns0) and (tick1, ns1). */
typedef struct conv {
    int on;
    int64_t tick0, ns0, dtick, dns;
} conv;

__extension__ typedef __int128 i128;

static int64_t conv_dur(const conv *c, int64_t ticks)
{
    return c->on ? (int64_t)((i128)ticks * c->dns / c->dtick) : ticks;
}

static int64_t conv_time(const conv *c, int64_t tick)
{
    return c->on ? c->ns0 + conv_dur(c, tick - c->tick0) : tick;
}

static conv conv_now(void)
{
    conv c = {0};
#if defined(__x86_64__)
    if (atomic_load_explicit(&clk_tsc, memory_order_acquire)) {
        int64_t t1 = 0, n1 = 0;
        clock_pair(&t1, &n1);
        c.tick0 = clk_tick0;
        c.ns0 = clk_ns0;
        c.dtick = t1 - c.tick0;
        c.dns = n1 - c.ns0;
        c.on = c.dtick > 0 && c.dns > 0;
        if (!c.on) {    /* no time passed at all: the nominal ratio is unknown */
            c.on = 1;
            c.dtick = c.dns = 1;
        }
    }
#endif
    return c;
}

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
    atomic_store(&cfg_arena_bytes, arena_bytes ? arena_bytes : DEFAULT_ARENA);
}

__attribute__((noinline)) int64_t sl_rt_now_ns(void)
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
    t->tsc = atomic_load_explicit(&clk_tsc, memory_order_acquire);
    atomic_init(&t->tbl, tb);
    atomic_init(&t->first, NULL);
    atomic_init(&t->snext, NULL);
    /* Lock-free push; the release publishes everything above. */
    sl_rt_thread *head = atomic_load_explicit(&all_threads, RELAXED);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak_explicit(&all_threads, &head, t,
                                                  memory_order_release, RELAXED));
    tls_self = t;
    if (t->tsc)
        tls_fast = t;
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
    e->cap = atomic_load_explicit(&cfg_max_calls, RELAXED);
    atomic_init(&e->left, e->cap);
    atomic_init(&e->open_start, -1);
    /* So that a dropped call needs no "first?" test. */
    atomic_init(&e->dropped_min, INT64_MAX);
    atomic_init(&e->dropped_max, INT64_MIN);
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

/* First sample of the thread: reserve address space only; pages are
 * touched as samples arrive. */
static COLD void arena_map(sl_rt_thread *t)
{
    t->arena_tried = 1;
    for (size_t bytes = atomic_load(&cfg_arena_bytes); bytes >= sizeof(sample);
         bytes = bytes > MIN_ARENA ? bytes / 2 : 0) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            t->arena = p;
            t->end = t->arena + bytes / sizeof(sample);
            atomic_store_explicit(&t->snext, t->arena, memory_order_release);
            break;
        }
        if (bytes <= MIN_ARENA)
            break;
    }
}

static inline __attribute__((always_inline)) void keep(sl_rt_thread *t, sample *s, sl_rt_entry *e,
                                                      int64_t start, int64_t end)
{
    s->e = e;
    s->start = start;
    s->end = end;
    /* Publishes the sample to Close. */
    atomic_store_explicit(&t->snext, s + 1, memory_order_release);
}

/* A call that is not kept as a sample: beyond the cap (the common case of
 * a region called more often than the cap), or no arena room. */
static inline __attribute__((always_inline)) void drop(sl_rt_entry *e, int64_t d)
{
    if (d < atomic_load_explicit(&e->dropped_min, RELAXED))
        atomic_store_explicit(&e->dropped_min, d, RELAXED);
    if (d > atomic_load_explicit(&e->dropped_max, RELAXED))
        atomic_store_explicit(&e->dropped_max, d, RELAXED);
    bump(&e->dropped_total, d);
}

/* Under the cap, but the arena is not mapped yet, or full. */
static COLD void record_slow(sl_rt_thread *t, sl_rt_entry *e, int64_t start, int64_t end)
{
    if (!t->arena_tried)
        arena_map(t);
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    if (s && s < t->end)
        keep(t, s, e, start, end);
    else
        drop(e, end - start);
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
        record_slow(t, e, start, now);
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

/* Whether the chars at h->ptr are still the cached tag. Only aligned words
 * are loaded, and a word only after every byte before it matched (so the
 * caller's string reaches into it): no load can fault or leave the caller's
 * string by more than the rest of an aligned word, like glibc's strlen. A
 * Fortran wrapper's stack buffer comes back with the same pointer and other
 * chars: that is why the content is checked, not just the pointer. (ASan
 * would object to the partial word, so it is not instrumented.) */
__attribute__((no_sanitize_address)) static inline int hot_same(const hot *h)
{
    const alias_u64 *w = (const alias_u64 *)(const void *)((uintptr_t)h->ptr & ~(uintptr_t)7);
    uint64_t diff = (w[0] & h->mask[0]) ^ h->want[0];
    if (h->nwords > 1) {
        diff |= (w[1] & h->mask[1]) ^ h->want[1];
        /* Words 2 and 3 together: a word the tag does not reach is read as
         * the tag's last word again (idx), with mask and want 0. */
        if (h->nwords > 2)
            diff |= ((w[2] & h->mask[2]) ^ h->want[2]) |
                    ((w[h->idx[3]] & h->mask[3]) ^ h->want[3]);
    }
    return diff == 0;
}

static COLD void hot_fill(hot *h, const char *tag, sl_rt_entry *e)
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
    for (size_t i = 0; i < HOT_WORDS; i++)
        h->idx[i] = (uint8_t)(i < h->nwords ? i : h->nwords - 1);
    h->e = e;
    h->ptr = tag;
}

static COLD sl_rt_entry *hot_miss(sl_rt_thread *t, hot *h, const char *tag, int create)
{
    sl_rt_entry *e = sl_rt_lookup(t, tag, create);
    if (e)
        hot_fill(h, tag, e);
    return e;
}

static inline __attribute__((always_inline)) sl_rt_entry *hot_lookup(sl_rt_thread *t, const char *tag,
                                                                     int create)
{
    hot *h = &t->cache[hot_index(tag)];
    if (LIKELY(h->ptr == tag) && LIKELY(hot_same(h)))
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
        if (LIKELY(h->ptr == tag) && LIKELY(hot_same(h))) {
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
    if (UNLIKELY(h->ptr != tag) || UNLIKELY(!hot_same(h)))
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
    size_t *nsnap;
    size_t nthreads;
    rec *recs;
    size_t nrecs, rcap;
    agg *aggs;
    size_t naggs;
    size_t *map;        /* open addressing over aggs, SIZE_MAX = empty */
    size_t mapcap;
    conv tsc;           /* for the threads that store TSC ticks */
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
    collect_ctx c = {.tsc = conv_now()};
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
        sample *next = atomic_load_explicit(&t->snext, memory_order_acquire);
        c.nsnap[ti] = next ? (size_t)(next - t->arena) : 0;
        for (size_t i = 0; i < c.nsnap[ti]; i++) {
            size_t r = sample_rec(&c, &t->arena[i]);
            if (r == SIZE_MAX)
                continue;
            rec *x = &c.recs[r];
            int64_t d = t->arena[i].end - t->arena[i].start;
            c.aggs[x->region].ncalls++;
            x->kept++;
            x->total += d;
            if (d < x->min)
                x->min = d;
            if (d > x->max)
                x->max = d;
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
            x->total = conv_dur(&c.tsc, x->total);
            x->min = conv_dur(&c.tsc, x->min);
            x->max = conv_dur(&c.tsc, x->max);
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
            int64_t st = t->arena[i].start, en = t->arena[i].end;
            if (t->tsc) {
                st = conv_time(&c.tsc, st);
                en = conv_time(&c.tsc, en);
            }
            R->start_times[k] = st;
            R->end_times[k] = en;
        }
    }
    collect_free(&c);
    return 0;
}
