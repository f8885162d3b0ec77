/* Internal header: not installed. The region table's data structures,
 * shared by the hot path (hot_path.c: the per-thread tables, lookup, the
 * one Start and Stop, the clock) and the table's other halves (arena.c, collect.c: the
 * sample arena and what Close reads). Only the owner thread writes a
 * table; Close reads it from another thread. Entries and tables are
 * published with release stores and never freed (Close may be reading
 * them); counters are relaxed atomics written by their single owner with
 * plain load+store (no RMW cost). */
#ifndef SL_SHIM_HOT_PATH_H
#define SL_SHIM_HOT_PATH_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "regions.h"
#include "timing_collect.h"

#define RELAXED memory_order_relaxed
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
    /* NextGroup and Close only (sl_rt_mark_group): the starts counted at
     * the last change of LIKWID's active group, and the groups (bit g,
     * g < 64) the thread started the region in. */
    _Atomic int64_t group_starts;
    _Atomic uint64_t groups;
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
    char pad[128 - 3 * 8 - 2 * 8 * HOT_WORDS];  /* a power of two: cheap indexing */
} hot;

/* Whether the chars at h->ptr are still the cached tag (a Fortran wrapper's
 * stack buffer, a reused buffer: the same pointer with other contents). Only
 * aligned words are loaded, and word k only once words 0..k-1 matched: the
 * cached tag has no NUL before its last word, so the caller's string then
 * reaches into word k. No load leaves the caller's string by more than the
 * rest of an aligned word (like glibc's strlen), whatever the cached tag
 * was: a shorter string that ends just before an unmapped page is never
 * read past. (ASan would object to the partial word: not instrumented.) */
__attribute__((no_sanitize_address)) static inline int sl_rt_hot_same(const hot *h)
{
    const alias_u64 *w = (const alias_u64 *)(const void *)((uintptr_t)h->ptr & ~(uintptr_t)7);
    size_t n = h->nwords;
    if ((w[0] & h->mask[0]) != h->want[0])
        return 0;
    if (n == 1)
        return 1;
    if ((w[1] & h->mask[1]) != h->want[1])
        return 0;
    if (n == 2)
        return 1;
    if ((w[2] & h->mask[2]) != h->want[2])
        return 0;
    return n == 3 || (w[3] & h->mask[3]) == h->want[3];
}

/* Caches tag (whose entry is e) in h; a tag too long for HOT_WORDS leaves h
 * empty (it always takes the hash path). */
void sl_rt_hot_fill(hot *h, const char *tag, sl_rt_entry *e);

/* A chunk of a thread's samples (arena.c): in the journal when there is
 * one, else in the pool; the samples follow the header. A
 * thread's chunks are linked in the order it fills them; a full chunk's
 * samples end at `fill`, the current one's at the thread's snext. */
typedef struct sl_rt_chunk {
    _Atomic(struct sl_rt_chunk *) next; /* published before snext moves there */
    sample *fill;                       /* set before the owner moves on */
    sample *end;                        /* end of the room */
    size_t bytes;                       /* the mapping (header included); low bit: in the journal */
} sl_rt_chunk;

static inline sample *sl_rt_chunk_samples(const sl_rt_chunk *c)
{
    return (sample *)(c + 1);
}

/* The samples [*b, *e) of chunk c of a thread whose snext was snap; 1 when
 * c is the last chunk to read (it holds snap). */
static inline int sl_rt_chunk_range(const sl_rt_chunk *c, sample *snap, sample **b, sample **e)
{
    *b = sl_rt_chunk_samples(c);
    if (snap >= *b && snap <= c->end) {
        *e = snap;
        return 1;
    }
    *e = c->fill && c->fill >= *b && c->fill <= c->end ? c->fill : *b;
    return 0;
}

typedef struct table {
    size_t cap;                         /* power of two */
    struct table *prev;                 /* retired tables stay reachable */
    _Atomic(sl_rt_entry *) slots[];
} table;

/* A thread's table. What its results need stays until Close; what only a
 * live thread uses (its lookup cache, sl_rt_ctx) is given back when the
 * thread ends, with the unused rest of its sample chunk, so that a program
 * that runs many short threads holds a few hundred bytes per thread that
 * ended. */
struct sl_rt_thread {
    sl_rt_thread *next;                 /* immutable once published */
    int64_t tid;
    _Atomic(table *) tbl;               /* NULL while the entries fit LIST_MAX (a list) */
    size_t count;                       /* owner only */
    _Atomic(sl_rt_entry *) first;
    sl_rt_entry *last;                  /* owner only */
    int tsc;                            /* times are TSC ticks (fixed at creation) */
    int store_full;                     /* no chunk could be had: stop asking */
    _Atomic(sl_rt_chunk *) arena;       /* the first chunk (NULL: none yet) */
    _Atomic(sample *) snext;            /* the next free sample (NULL: no chunk yet) */
    sl_rt_chunk *cur;                   /* the chunk snext is in (owner only) */
    _Atomic int64_t outside;            /* samples in full chunks outside the journal */
    sample *end;                        /* end of the current chunk (NULL: none) */
    size_t mapped;                      /* bytes of all chunks (owner only) */
    _Atomic int64_t room_dropped;       /* calls not kept for want of room */
    int in_journal;                     /* this object lies in the journal */
};

/* A live thread's lookup cache (owner only), taken at its first call and
 * given back for another thread when it ends. */
typedef struct sl_rt_ctx {
    hot cache[HOT_SLOTS];
    sl_rt_thread *t;
    int tsc;                            /* t->tsc, one load nearer */
    struct sl_rt_ctx *free_next;        /* on the list of given-back ones */
} sl_rt_ctx;

/* The journal's reader (core/journal/journal_read.c) reads entries, threads and
 * samples in place: their leading fields must be where it looks. */
#include "journal.h"
#define SL_SAME_FIELD(a, b, f) \
    _Static_assert(offsetof(a, f) == offsetof(b, f) && sizeof(((a *)0)->f) == sizeof(((b *)0)->f), \
                   #a "." #f " is not where the journal's reader looks")
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, tag);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, len);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, cap);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, open_start);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, dropped_total);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, dropped_min);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, dropped_max);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, nested);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, unmatched);
SL_SAME_FIELD(struct sl_rt_entry, sl_jrn_entry, left);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, tid);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, tsc);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, arena);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, snext);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, cur);
SL_SAME_FIELD(struct sl_rt_thread, sl_jrn_thread, outside);
SL_SAME_FIELD(sl_rt_chunk, sl_jrn_chunk, next);
SL_SAME_FIELD(sl_rt_chunk, sl_jrn_chunk, fill);
SL_SAME_FIELD(sl_rt_chunk, sl_jrn_chunk, end);
SL_SAME_FIELD(sl_rt_chunk, sl_jrn_chunk, bytes);
_Static_assert(sizeof(sl_rt_chunk) == sizeof(sl_jrn_chunk), "a chunk is not a journal chunk");
SL_SAME_FIELD(sample, sl_jrn_sample, e);
SL_SAME_FIELD(sample, sl_jrn_sample, start);
SL_SAME_FIELD(sample, sl_jrn_sample, end);
_Static_assert(sizeof(sample) == sizeof(sl_jrn_sample), "a sample is not a journal sample");

/* Every thread's table, newest first (lock-free push in sl_rt_self). */
extern _Atomic(sl_rt_thread *) sl_rt_all_threads __attribute__((visibility("hidden")));

/* ---- the counters and the samples: inlined into the hot path ---- */

/* Single writer: a relaxed load and store is enough (and cheaper than RMW). */
static inline void bump(_Atomic int64_t *a, int64_t by)
{
    atomic_store_explicit(a, atomic_load_explicit(a, RELAXED) + by, RELAXED);
}

/* The next free sample of a thread is claimed (snext moved past it) unless
 * the current chunk is full or there is none. A signal handler that
 * interrupts its own thread here and keeps samples of its own takes other
 * slots: the claim is one compare-and-swap on this thread's snext, which
 * fails (and is tried again on the new snext) when a handler moved it
 * since it was read, and a chunk switch always moves snext. On x86-64
 * without the lock prefix: one instruction is atomic for a handler of the
 * same thread, and only the owner writes snext. The slot is published
 * before it is written: a reader (Close, the journal's) skips a sample
 * whose entry is not set yet (keep() stores it last). */
static inline __attribute__((always_inline)) int claim_cas(sl_rt_thread *t, sample **expect,
                                                          sample *want)
{
#if defined(__x86_64__)
    sample *prev = *expect;
    unsigned char same;
    __asm__ volatile("cmpxchgq %3, %1" : "+a"(prev), "+m"(t->snext), "=@ccz"(same)
                     : "r"(want) : "memory");
    *expect = prev;
    return same;
#else
    return atomic_compare_exchange_weak_explicit(&t->snext, expect, want, RELAXED, RELAXED);
#endif
}

/* Writes a claimed sample; its entry last, so that a sample whose entry is
 * set is whole (for a reader after a kill or during a run). */
static inline __attribute__((always_inline)) void keep(sample *s, sl_rt_entry *e, int64_t start,
                                                      int64_t end)
{
    s->start = start;
    s->end = end;
    atomic_signal_fence(memory_order_release);
    s->e = e;
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

/* ---- the sample arena (arena.c) ---- */

/* Bytes of address space reserved per thread (0: the default). */
void sl_rt_arena_configure(size_t bytes);

/* Zeroed memory that is never freed, for the tables when there is no
 * journal (or it is full); NULL when there is none. */
void *sl_rt_pool_alloc(size_t bytes);
void sl_rt_pool_fork_child(void);     /* the pool's lock, new in a forked child */

/* A call under the cap when the arena is not mapped yet, or full: maps it
 * on first use, keeps the sample when there is room, else drops it. With
 * signals blocked (sl_rt_quiet_begin). */
COLD void sl_rt_record_slow(sl_rt_thread *t, sl_rt_entry *e, int64_t start, int64_t end);

/* The rare paths (a thread's first call, a new tag, a table growth, a new
 * chunk) take locks and make system calls: they run with every signal
 * blocked but the synchronous ones, so that no handler interrupts them on
 * their thread (a handler's own Start would wait for a lock its thread
 * holds). Two system calls, on the rare path only. */
void sl_rt_quiet_begin(sigset_t *old);
void sl_rt_quiet_end(const sigset_t *old);

/* A cache, given back by a thread that ended or new (zeroed); NULL when
 * there is no memory. With signals blocked. */
sl_rt_ctx *sl_rt_ctx_take(void);
/* A thread ends (signals blocked): its cache goes back, and the unused
 * rest of its current chunk becomes the first chunk of a later thread. */
void sl_rt_retire(sl_rt_thread *t, sl_rt_ctx *c);

/* A new cycle (no thread runs regions): fill the chunks again from the first. */
void sl_rt_arena_rewind(sl_rt_thread *t);

/* ---- the call: inlined into Start and Stop (hot_path.c) ---- */

/* The call itself, on the entry the caller found: Start at `now` (in the
 * thread's clock: TSC ticks or ns, see sl_rt_clock_init) returns 1 when the
 * region was already open in this thread (counted as a nested start; the
 * first start is kept), else 0. Stop at `now` returns 0, or -1 when the
 * region was not open (counted as an unmatched stop). */
static inline __attribute__((always_inline)) int sl_rt_start_at(sl_rt_entry *e, int64_t now)
{
    if (UNLIKELY(atomic_load_explicit(&e->open_start, RELAXED) >= 0)) {
        bump(&e->nested, 1);
        return 1;
    }
    atomic_store_explicit(&e->open_start, now, RELAXED);
    return 0;
}

/* Stop on the entry; the thread is t, or (t NULL) c->t, loaded only when
 * a sample is kept: a call beyond the cap needs neither. */
static inline __attribute__((always_inline)) int sl_rt_stop_in(sl_rt_thread *t, const sl_rt_ctx *c,
                                                              sl_rt_entry *e, int64_t now)
{
    int64_t start = atomic_load_explicit(&e->open_start, RELAXED);
    if (UNLIKELY(start < 0)) {
        bump(&e->unmatched, 1);
        return -1;
    }
    atomic_store_explicit(&e->open_start, -1, RELAXED);
    int64_t left = atomic_load_explicit(&e->left, RELAXED);
    atomic_store_explicit(&e->left, left - 1, RELAXED);
    if (LIKELY(left > 0)) {
        if (!t)
            t = c->t;
        sample *s = atomic_load_explicit(&t->snext, RELAXED);
        for (;;) {
            if (UNLIKELY(s >= t->end)) {
                sl_rt_record_slow(t, e, start, now);
                return 0;
            }
            if (LIKELY(claim_cas(t, &s, s + 1)))
                break;
        }
        keep(s, e, start, now);
        return 0;
    }
    drop(e, now - start);   /* beyond the cap: the steady state of a hot region */
    return 0;
}

static inline __attribute__((always_inline)) int sl_rt_stop_at(sl_rt_thread *t, sl_rt_entry *e, int64_t now)
{
    return sl_rt_stop_in(t, NULL, e, now);
}

#endif
