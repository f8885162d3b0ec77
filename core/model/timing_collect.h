/* Internal header: not installed. One process's region timing from its
 * per-thread counters and kept samples: what Close computes from the live
 * tables (shim/) and the journal's reader from the file a killed process
 * left (core/journal/), by the same arithmetic. */
#ifndef SL_TIMING_COLLECT_H
#define SL_TIMING_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"

/* Ticks to ns: the straight line through (tick0, ns0) with the slope
 * dns / dtick; off: the values are ns already. */
typedef struct sl_tick_line {
    int on;
    int64_t tick0, ns0, dtick, dns;
} sl_tick_line;

/* Arithmetic on values a damaged journal may hold: wraps, never undefined. */
static inline int64_t sl_wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t sl_wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

__extension__ typedef __int128 sl_i128;

static inline int64_t sl_tick_dur(const sl_tick_line *c, int64_t ticks)
{
    return c->on ? (int64_t)((sl_i128)ticks * c->dns / c->dtick) : ticks;
}

static inline int64_t sl_tick_time(const sl_tick_line *c, int64_t tick)
{
    return c->on ? sl_wrap_add(c->ns0, sl_tick_dur(c, sl_wrap_sub(tick, c->tick0))) : tick;
}

/* One region in one thread, its counters as they were read. Calls are not
 * summed per call: calls = cap - left, a kept call is its sample, and only
 * the calls not kept add to dropped_* (dropped = calls - kept samples). */
typedef struct sl_tc_entry {
    const char *tag;
    size_t len;
    int64_t tid;                /* the thread's */
    int tsc;                    /* the thread stores TSC ticks */
    int open;                   /* a start without its stop */
    int64_t calls;              /* cap - left */
    int64_t dropped_total, dropped_min, dropped_max;
    int64_t nested, unmatched;
    /* Set by sl_timing_collect. */
    size_t region;              /* index among the regions it added; SIZE_MAX: left out */
} sl_tc_entry;

/* One kept sample: its entry's index (SIZE_MAX: none of the entries), the
 * thread that kept it (its id, whether its times are ticks), the call. */
typedef struct sl_tc_sample {
    size_t entry;
    int64_t tid;
    int tsc;
    int64_t start, end;
} sl_tc_sample;

/* The kept samples, walked twice in the same order: rewind, then next
 * until it returns 0. */
typedef struct sl_tc_samples {
    void (*rewind)(void *ctx);
    int (*next)(void *ctx, sl_tc_sample *s);
    void *ctx;
} sl_tc_samples;

/* Appends to out one region per distinct tag among the entries that were
 * used (a call, open, an unmatched stop or a nested start), in the order of
 * their first entry; per thread id one thread slot (in entry order: the
 * entries of threads that got the same id one after another add up), per kept
 * sample one call (in walk order); tick values through line. Each entry's
 * region is set. 0 or -ENOMEM. */
int sl_timing_collect(sl_timing *out, sl_tc_entry *entries, size_t n, const sl_tick_line *line,
                      const sl_tc_samples *samples);

#endif
