/* Internal header: not installed. The shim's group regions/: the per-thread region tables and the hot path's API (its inlined
 * structures: hot_path.h, private to regions/). */
#ifndef SL_REGIONS_H
#define SL_REGIONS_H

#include "journal_map.h"
#include "timing.h"

#pragma GCC visibility push(hidden)

/* The shim's own region timing: one table per
 * thread (no locks, no malloc after a tag's first use in that thread), read
 * by Close from any thread while the application may still run regions
 * (every field Close reads is a relaxed atomic or published with release). */
typedef struct sl_rt_entry sl_rt_entry;
typedef struct sl_rt_thread sl_rt_thread;

/* Per-call samples kept per region per thread (>= 0), and the bytes of
 * address space reserved per thread for them (0: the default, 256 MiB;
 * reserved with MAP_NORESERVE and touched on demand). Call before any
 * region is timed. */
void sl_rt_configure(int64_t max_calls, size_t arena_bytes);

/* The calling thread's table, created and registered on first use; NULL only
 * when memory is exhausted (then nothing is timed in that thread). */
sl_rt_thread *sl_rt_self(void);

/* CLOCK_MONOTONIC in ns. */
int64_t sl_rt_now_ns(void);

/* The hot path: the one Start and the one Stop, for the calling thread,
 * timed now (no lock, no malloc after the tag's first use in the thread),
 * with LIKWID's function of the entry point (never NULL: pass a stand-in
 * when LIKWID is absent). Start calls real(tag) first, then times, and
 * returns real's result (a Start of a region already open is counted as
 * nested, the first start kept; no memory: nothing timed). Stop times
 * first, then returns real(tag); -EFAULT, without calling real, when the
 * region is not open or was never started in this thread (counted as an
 * unmatched stop); when the thread has no table (no memory), it cannot
 * judge: real(tag). */
typedef int (*sl_rt_fwd)(const char *);
/* Whether the calling thread has a table (it has unless memory ran out). */
int sl_rt_have_table(void);
int sl_rt_start_fwd(const char *tag, sl_rt_fwd real);
int sl_rt_stop_fwd(const char *tag, sl_rt_fwd real);

/* The entry of tag in t, created when create is set (NULL on ENOMEM, or when
 * absent and !create). */
sl_rt_entry *sl_rt_lookup(sl_rt_thread *t, const char *tag, int create);

/* Whether this thread ever started the region (what makes LIKWID's per-thread
 * Stop/Get/Reset safe to forward). */
int sl_rt_started(const sl_rt_entry *e);
/* Whether the region is open (started, not yet stopped) in its thread. */
int sl_rt_is_open(const sl_rt_entry *e);
/* Counts a stop of a tag this thread has no entry for (creates one). */
void sl_rt_unmatched(sl_rt_thread *t, const char *tag);

/* Calls fn for each tag the thread t ever started (owner thread only);
 * group >= 0: only those started while group was LIKWID's active group
 * (as sl_rt_mark_group recorded). */
void sl_rt_each_started(sl_rt_thread *t, int64_t group, void (*fn)(void *ctx, const char *tag),
                        void *ctx);

/* LIKWID 5.2 to 5.4 keep a region once per group it was started in
 * ("tag-<group>"): at every change of the active group (NextGroup, before
 * it is forwarded) and at Close, every region of every thread started
 * since the last change is marked with `group`, the group active until
 * now. Lock-free; concurrent NextGroups race as they do in LIKWID. */
void sl_rt_mark_group(int64_t group);

/* The calling thread's own completed calls of e and their total time in
 * seconds (what GetRegion answers when LIKWID cannot): the owner reads its
 * own entry and samples, so no lock; cost grows with the samples kept. */
void sl_rt_own(sl_rt_thread *t, const sl_rt_entry *e, int64_t *calls, double *seconds);

/* Fills out (initialised by the caller) with every region of every thread:
 * regions in order of first use, threads in order of registration. Regions
 * only registered are left out. 0 or -ENOMEM. */
int sl_rt_collect(sl_timing *out);

/* Calls not kept as samples for want of room (the sample store full: the
 * per-thread cap, the journal and the pool both exhausted), and in how
 * many threads. */
int64_t sl_rt_room_dropped(size_t *threads);

/* In a forked child, from the atfork handler: no thread has a table (the
 * calling thread's included), so the child starts with empty tables; the
 * parent's are never touched again. */
void sl_rt_fork_child(void);

/* Zeroes every counter of every thread and empties every arena, for a new
 * Init..Close cycle; only while no region is being timed. */
void sl_rt_forget(void);
/* Threads whose table, and regions of the others whose entry, `held`
 * does not hold (the journal's pieces), added to *tables and *entries. */
void sl_rt_count_outside(int (*held)(const void *p), int64_t *tables, int64_t *entries);

#pragma GCC visibility pop

#endif
