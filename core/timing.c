/* The shim's own region timing: allocation and release. */
#include "timing.h"

#include "names.h"
#include "vec.h"

#include <errno.h>
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

int sl_timing_names(const sl_timing *t, char ***names)
{
    size_t n = t->nregions;
    const char **tags = malloc((n ? n : 1) * sizeof *tags);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens);
    *names = calloc(n ? n : 1, sizeof **names);
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

void sl_timing_names_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
