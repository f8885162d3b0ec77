/* The shim's own region timing: allocation and release. */
#include "timing.h"

#include "mem.h"
#include "names.h"
#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sl_timing_init(sl_timing *t)
{
    memset(t, 0, sizeof *t);
}

/* What a timing region owns. */
#define SL_TIMING_REGION_OWNS(X)                                                              \
    X(tag) X(threads) X(call_counts) X(total_ns) X(min_ns) X(max_ns) X(call_threads)          \
    X(start_times) X(end_times)

static void region_free(sl_timing_region *r)
{
#define SL_OWN_FREE(m) free(r->m);
    SL_TIMING_REGION_OWNS(SL_OWN_FREE)
#undef SL_OWN_FREE
}

void sl_timing_free(sl_timing *t)
{
    for (size_t i = 0; i < t->nregions; i++)
        region_free(&t->regions[i]);
    free(t->regions);
    free(t->clock);
    sl_timing_init(t);
}

sl_timing_region *sl_timing_add(sl_timing *t, const char *tag, size_t tag_len,
                                size_t nthreads, size_t ncalls)
{
    if (SL_VEC_RESERVE(t->regions, t->cap, t->nregions, 1) < 0)
        return NULL;
    sl_timing_region r = {0};
    r.tag = sl_bytes_dup(tag, tag_len);
    r.tag_len = tag_len;
    r.nthreads = nthreads;
    r.ncalls = ncalls;
    r.threads = sl_zalloc(nthreads, sizeof *r.threads);
    r.call_counts = sl_zalloc(nthreads, sizeof *r.call_counts);
    r.total_ns = sl_zalloc(nthreads, sizeof *r.total_ns);
    r.min_ns = sl_zalloc(nthreads, sizeof *r.min_ns);
    r.max_ns = sl_zalloc(nthreads, sizeof *r.max_ns);
    r.call_threads = sl_zalloc(ncalls, sizeof *r.call_threads);
    r.start_times = sl_zalloc(ncalls, sizeof *r.start_times);
    r.end_times = sl_zalloc(ncalls, sizeof *r.end_times);
    if (!r.tag || !r.threads || !r.call_counts || !r.total_ns || !r.min_ns || !r.max_ns ||
        !r.call_threads || !r.start_times || !r.end_times) {
        region_free(&r);
        return NULL;
    }
    t->regions[t->nregions] = r;
    return &t->regions[t->nregions++];
}

int sl_timing_names(const sl_timing *t, char ***names)
{
    size_t n = t->nregions;
    const char **tags = sl_zalloc(n, sizeof *tags);
    size_t *lens = sl_zalloc(n, sizeof *lens);
    *names = sl_zalloc(n, sizeof **names);
    int rc = tags && lens && *names ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        tags[i] = t->regions[i].tag;
        lens[i] = t->regions[i].tag_len;
    }
    if (!rc)
        rc = sl_names_sp(tags, lens, n, *names);
    free(tags);
    free(lens);
    if (rc) {
        free(*names);
        *names = NULL;
    }
    return rc;
}
