/* Internal header: not installed. The shim's own region timing: one table per
 * thread (no locks, no malloc after a tag's first use in that thread), read
 * by Close from any thread while the application may still run regions
 * (every field Close reads is a relaxed atomic or published with release). */
#ifndef SL_SHIM_REGION_TABLE_H
#define SL_SHIM_REGION_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "timing.h"

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

/* Chooses the hot path's clock, once, at Init, before any thread table
 * exists: the raw TSC when allow_tsc and the CPU and kernel make that
 * exact (see region_table.c), else clock_gettime. Returns 1 for the TSC.
 * Either way sl_rt_collect gives CLOCK_MONOTONIC ns. */
int sl_rt_clock_init(int allow_tsc);

/* The hot path, for the calling thread, timed now: no lock, no malloc after
 * the tag's first use in the thread. Start: as sl_rt_start, or -2 when no
 * memory (nothing timed). Stop: 0; -1 when the region was not open or never
 * started here (counted as an unmatched stop); -2 when the thread has no
 * table (no memory). */
int sl_rt_start_now(const char *tag);
int sl_rt_stop_now(const char *tag);

/* The same with LIKWID's function of the entry point (never NULL: pass a
 * stand-in when LIKWID is absent): Start calls real(tag) first, then times,
 * and returns real's result. Stop times first, then returns real(tag);
 * -EFAULT, without calling real, when the region is not open or was never
 * started in this thread; when the thread has no table (no memory), it
 * cannot judge: real(tag). */
typedef int (*sl_rt_fwd)(const char *);
/* Whether the calling thread has a table (it has unless memory ran out). */
int sl_rt_have_table(void);
int sl_rt_start_fwd(const char *tag, sl_rt_fwd real);
int sl_rt_stop_fwd(const char *tag, sl_rt_fwd real);

/* The entry of tag in t, created when create is set (NULL on ENOMEM, or when
 * absent and !create). */
sl_rt_entry *sl_rt_lookup(sl_rt_thread *t, const char *tag, int create);

/* Start at `now` (in the thread's clock: ns unless it uses the TSC, see
 * sl_rt_clock_init; tests pass ns). Returns 1 when the region was already open in this thread
 * (counted as a nested start; the first start is kept), else 0. */
int sl_rt_start(sl_rt_thread *t, sl_rt_entry *e, int64_t now);
/* Stop at `now`. Returns 0, or -1 when the region was not open (counted as an
 * unmatched stop). */
int sl_rt_stop(sl_rt_thread *t, sl_rt_entry *e, int64_t now);
/* Whether this thread ever started the region (what makes LIKWID's per-thread
 * Stop/Get/Reset safe to forward). */
int sl_rt_started(const sl_rt_entry *e);
/* Whether the region is open (started, not yet stopped) in its thread. */
int sl_rt_is_open(const sl_rt_entry *e);
/* Counts a stop of a tag this thread has no entry for (creates one). */
void sl_rt_unmatched(sl_rt_thread *t, const char *tag);

/* Calls fn for each tag the thread t ever started (owner thread only). */
void sl_rt_each_started(sl_rt_thread *t, void (*fn)(void *ctx, const char *tag), void *ctx);

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

/* Address-space budget of the sample chunks and the journal's pieces: a
 * quarter of RLIMIT_AS (SIZE_MAX without a limit); sl_rt_reserve takes
 * bytes from it (1) or finds no room (0), sl_rt_unreserve gives them back. */
size_t sl_rt_budget(void);
int sl_rt_reserve(size_t bytes);
void sl_rt_unreserve(size_t bytes);
/* For the journal: Init's (TSC, CLOCK_MONOTONIC) pair and one taken now;
 * zeros without the TSC. */
void sl_rt_clock_pairs(int64_t *tick0, int64_t *ns0, int64_t *tick1, int64_t *ns1);

/* In a forked child, from the atfork handler: no thread has a table (the
 * calling thread's included), so the child starts with empty tables; the
 * parent's are never touched again. */
void sl_rt_fork_child(void);

/* Zeroes every counter of every thread and empties every arena, for a new
 * Init..Close cycle; only while no region is being timed. */
void sl_rt_forget(void);

#endif
