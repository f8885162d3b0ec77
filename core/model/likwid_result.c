/* LIKWID counter results: allocation and release of the region table. */
#include "likwid_result.h"

#include "mem.h"
#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const source_names[] = {
    [SL_SOURCE_NONE] = "none",
    [SL_SOURCE_FULL_API] = "full_api",
    [SL_SOURCE_MARKER_FILE] = "marker_file",
    [SL_SOURCE_MARKER_API] = "marker_api",
};

const char *sl_source_name(sl_source s)
{
    if ((unsigned)s >= sizeof source_names / sizeof source_names[0])
        return "none";
    return source_names[s];
}

int sl_source_parse(const char *s, size_t len, sl_source *out)
{
    for (size_t i = 0; i < sizeof source_names / sizeof source_names[0]; i++) {
        if (strlen(source_names[i]) == len && memcmp(source_names[i], s, len) == 0) {
            *out = (sl_source)i;
            return 0;
        }
    }
    return -EINVAL;
}

int sl_set_string(char **slot, const char *s)
{
    char *copy = strdup(s ? s : "");
    if (!copy)
        return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 0;
}

void sl_likwid_init(sl_likwid *lw)
{
    memset(lw, 0, sizeof *lw);
}

/* What a LIKWID region owns: arrays, and string arrays with their count. */
#define SL_REGION_OWNS(X) X(tag) X(group_name) X(cpus) X(times) X(call_counts) X(events) X(metrics)
#define SL_REGION_OWNS_STRINGS(X)                                                             \
    X(event_names, nevents) X(counter_names, nevents) X(metric_names, nmetrics)

static void region_free(sl_region *r)
{
#define SL_OWN_FREE(m) free(r->m);
#define SL_OWN_STRINGS_FREE(m, n) sl_strings_free(r->m, r->n);
    SL_REGION_OWNS(SL_OWN_FREE)
    SL_REGION_OWNS_STRINGS(SL_OWN_STRINGS_FREE)
#undef SL_OWN_FREE
#undef SL_OWN_STRINGS_FREE
}

void sl_likwid_free(sl_likwid *lw)
{
    for (size_t i = 0; i < lw->nregions; i++)
        region_free(&lw->regions[i]);
    free(lw->regions);
    sl_likwid_init(lw);
}

static char **empty_strings(size_t n)
{
    char **v = sl_zalloc(n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        v[i] = strdup("");
        if (!v[i]) {
            sl_strings_free(v, i);
            return NULL;
        }
    }
    return v;
}

sl_region *sl_likwid_add(sl_likwid *lw, const char *tag, size_t tag_len,
                         int64_t group_id, const char *group_name, sl_source src,
                         size_t nthreads, size_t nevents, size_t nmetrics,
                         int has_names)
{
    if (SL_VEC_RESERVE(lw->regions, lw->cap, lw->nregions, 1) < 0)
        return NULL;
    if ((nevents && nthreads > SIZE_MAX / nevents) || (nmetrics && nthreads > SIZE_MAX / nmetrics))
        return NULL;
    sl_region r = {0};
    r.tag = sl_bytes_dup(tag, tag_len);
    r.tag_len = tag_len;
    r.group_id = group_id;
    r.group_name = strdup(group_name ? group_name : "");
    r.source = src;
    r.nthreads = nthreads;
    r.nevents = nevents;
    r.nmetrics = nmetrics;
    r.cpus = sl_zalloc(nthreads, sizeof *r.cpus);
    r.times = sl_zalloc(nthreads, sizeof *r.times);
    r.call_counts = sl_zalloc(nthreads, sizeof *r.call_counts);
    r.events = sl_zalloc(nevents * nthreads, sizeof *r.events);
    r.metrics = sl_zalloc(nmetrics * nthreads, sizeof *r.metrics);
    r.metric_names = empty_strings(nmetrics);
    r.has_names = has_names;
    int ok = r.tag && r.group_name && r.cpus && r.times && r.call_counts && r.events &&
             r.metrics && r.metric_names;
    if (ok && has_names) {
        r.event_names = empty_strings(nevents);
        r.counter_names = empty_strings(nevents);
        ok = r.event_names && r.counter_names;
    }
    if (!ok) {
        /* region_free needs the name arrays' real lengths: NULL ones are skipped */
        region_free(&r);
        return NULL;
    }
    lw->regions[lw->nregions] = r;
    return &lw->regions[lw->nregions++];
}
