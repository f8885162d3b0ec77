/* Internal header: not installed. The shim's own region timing, as it is
 * handed to the writer (the shim fills it at Close from its thread-local
 * tables; the hot path does not use these types). */
#ifndef SL_TIMING_H
#define SL_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

typedef struct sl_timing_region {
    char *tag;                  /* exact bytes, NUL-terminated */
    size_t tag_len;
    int64_t dropped_calls;      /* calls beyond the per-call cap (not recorded as calls) */
    int64_t open_at_close;      /* starts never matched by a stop */
    int64_t unmatched_stops;    /* stops without a start (extra field, see FORMAT.md) */
    int64_t nested_starts;      /* starts of a region already open in that thread (extra) */
    size_t nthreads;            /* per thread that entered the region */
    int64_t *threads;           /* [nthreads] OS thread id */
    int64_t *call_counts;
    int64_t *total_ns;
    int64_t *min_ns;
    int64_t *max_ns;
    size_t ncalls;              /* per recorded call */
    int64_t *call_threads;      /* [ncalls] */
    int64_t *start_times;       /* ns on the clock */
    int64_t *end_times;
} sl_timing_region;

typedef struct sl_timing {
    char *clock;                /* e.g. "CLOCK_MONOTONIC" */
    int64_t origin_unix_ns;     /* Unix time (ns) at the clock's zero */
    const char *recorder;       /* who timed the regions: NULL scope-likwid, else a
                                 * static name ("scope-profiler" for its files) */
    size_t nregions;
    size_t cap;
    sl_timing_region *regions;
} sl_timing;

void sl_timing_init(sl_timing *t);
void sl_timing_free(sl_timing *t);
/* Appends a region with a copy of the tag and zeroed arrays for nthreads
 * threads and ncalls calls; NULL on allocation failure. Valid until next add. */
sl_timing_region *sl_timing_add(sl_timing *t, const char *tag, size_t tag_len,
                                size_t nthreads, size_t ncalls);

/* The group names of t's regions in the result file (core/model/names.h,
 * sl_names_sp): *names newly allocated, one per region. 0 or -ENOMEM. */
int sl_timing_names(const sl_timing *t, char ***names);
static inline void sl_timing_names_free(char **names, size_t n)
{
    sl_strings_free(names, n);
}

#endif
