/* The shim's own region timing: allocation and release. */
#include "timing.h"

#include "vec.h"

#include <stdlib.h>
#include <string.h>

void sl_timing_init(sl_timing *t)
{
    memset(t, 0, sizeof *t);
}

static void region_free(sl_timing_region *r)
{
    free(r->tag);
    free(r->threads);
    free(r->call_counts);
    free(r->total_ns);
    free(r->min_ns);
    free(r->max_ns);
    free(r->call_threads);
    free(r->start_times);
    free(r->end_times);
}

void sl_timing_free(sl_timing *t)
{
    for (size_t i = 0; i < t->nregions; i++)
        region_free(&t->regions[i]);
    free(t->regions);
    free(t->clock);
    sl_timing_init(t);
}

static int64_t *zints(size_t n)
{
    return calloc(n ? n : 1, sizeof(int64_t));
}

sl_timing_region *sl_timing_add(sl_timing *t, const char *tag, size_t tag_len,
                                size_t nthreads, size_t ncalls)
{
    if (SL_VEC_RESERVE(t->regions, t->cap, t->nregions, 1) < 0)
        return NULL;
    sl_timing_region r = {0};
    r.tag = malloc(tag_len + 1);
    if (r.tag) {
        memcpy(r.tag, tag, tag_len);
        r.tag[tag_len] = '\0';
    }
    r.tag_len = tag_len;
    r.nthreads = nthreads;
    r.ncalls = ncalls;
    r.threads = zints(nthreads);
    r.call_counts = zints(nthreads);
    r.total_ns = zints(nthreads);
    r.min_ns = zints(nthreads);
    r.max_ns = zints(nthreads);
    r.call_threads = zints(ncalls);
    r.start_times = zints(ncalls);
    r.end_times = zints(ncalls);
    if (!r.tag || !r.threads || !r.call_counts || !r.total_ns || !r.min_ns || !r.max_ns ||
        !r.call_threads || !r.start_times || !r.end_times) {
        region_free(&r);
        return NULL;
    }
    t->regions[t->nregions] = r;
    return &t->regions[t->nregions++];
}
